"""The data contract: schema files build valid Arrow schemas, bf16 round-trips bit-exactly with a
zero-copy view, fp8 stays within its error bound, and mismatches fail with a message naming the difference."""
import json

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc
import pytest
import torch

from eaglekit import codecs, contract

FEATURE_META = {
    "eaglekit_version": "0.1.0", "target_model_id": "tiny", "target_revision": "seed-0",
    "tokenizer_hash": "t" * 64, "chat_template_hash": "c" * 64, "num_hidden_layers": 6, "hidden_size": 8,
    "vocab_size": 512, "aux_layer_ids": [2, 3, 5], "aux_layer_convention": "hf", "hidden_codec": "bf16",
    "teacher_kind": "final_hidden_prenorm", "teacher_topk": 0,
}


def feature_table(meta, rows=3, seq=(5, 1, 9), seed=0):
    g = torch.Generator().manual_seed(seed)
    schema = contract.arrow_schema("features", meta)
    H = meta["hidden_size"]
    cols = {"id": [f"r{i}" for i in range(rows)], "source": ["s"] * rows, "category": [None] * rows}
    cols["input_ids"] = [list(range(n)) for n in seq]
    cols["loss_mask"] = [[i % 2 for i in range(n)] for n in seq]
    tensors = {}
    hidden_cols = [f.name for f in schema if f.name.startswith(("aux_", "teacher_hidden")) and not f.name.endswith("_scale")]
    for name in hidden_cols:
        xs = [torch.randn(n, H, generator=g) * 30 for n in seq]
        enc = [codecs.encode_hidden(x, meta["hidden_codec"]) for x in xs]
        tensors[name] = xs
        cols[name] = codecs.hidden_column([e.bits for e in enc], H)
        if meta["hidden_codec"] == "fp8_e4m3":
            cols[name + "_scale"] = pa.array([e.scale for e in enc], type=pa.list_(pa.float32()))
    if meta["teacher_kind"] == "topk_logprobs":
        k = meta["teacher_topk"]
        tk = [codecs.topk_teacher(torch.randn(n, 50, generator=g), k) for n in seq]
        cols["teacher_topk_ids"] = codecs.hidden_column([t[0] for t in tk], k)
        cols["teacher_topk_logprobs"] = codecs.hidden_column([t[1] for t in tk], k)
    arrays = [pa.array(cols[f.name], type=f.type) if not isinstance(cols[f.name], pa.Array) else cols[f.name]
              for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema), tensors


def roundtrip(table, tmp_path):
    path = tmp_path / "x.arrow"
    with ipc.new_file(path, table.schema) as w:
        w.write_table(table)
    return ipc.open_file(pa.memory_map(str(path))).read_all()


def test_schema_files_build_for_every_combination():
    for name in contract.SCHEMA_NAMES:
        spec = contract.load_spec(name)
        assert spec["fields"] and spec["version"] >= 1
    for codec in ("bf16", "fp8_e4m3"):
        for teacher in ("final_hidden_prenorm", "final_hidden_postnorm", "topk_logprobs"):
            meta = dict(FEATURE_META, hidden_codec=codec, teacher_kind=teacher,
                        teacher_topk=32 if teacher == "topk_logprobs" else 0)
            schema = contract.arrow_schema("features", meta)
            names = schema.names
            assert ("aux_low_scale" in names) == (codec == "fp8_e4m3")
            assert ("teacher_hidden" in names) == (teacher != "topk_logprobs")
            assert schema.field("aux_low").type.value_type.list_size == 8
            assert contract.validate_schema(schema, "features") == meta


def test_bf16_roundtrip_is_bit_exact_and_zero_copy(tmp_path):
    table, tensors = feature_table(FEATURE_META)
    back = roundtrip(table, tmp_path)
    meta = contract.validate_schema(back.schema, "features", where="x.arrow")
    for name, xs in tensors.items():
        for i, x in enumerate(xs):
            view = codecs.row_values(back.column(name), i)
            assert view.shape == (x.shape[0], 8) and view.dtype == np.uint16
            t = codecs.decode_hidden(view, None, "bf16", dtype=torch.bfloat16)
            assert torch.equal(t.view(torch.int16), x.to(torch.bfloat16).view(torch.int16))
            # zero-copy: the numpy view and the torch tensor point into the memory-mapped Arrow buffer
            buf = back.column(name).chunk(0).values.values.buffers()[1]
            assert buf.address <= view.ctypes.data < buf.address + buf.size
            assert t.data_ptr() == view.ctypes.data
    assert meta["aux_layer_convention"] == "hf"


def test_fp8_error_bound_and_topk(tmp_path):
    meta = dict(FEATURE_META, hidden_codec="fp8_e4m3", teacher_kind="topk_logprobs", teacher_topk=4)
    table, tensors = feature_table(meta)
    back = roundtrip(table, tmp_path)
    contract.validate_schema(back.schema, "features")
    for name, xs in tensors.items():
        for i, x in enumerate(xs):
            got = codecs.decode_hidden(codecs.row_values(back.column(name), i),
                                       codecs.row_values(back.column(name + "_scale"), i), "fp8_e4m3")
            # e4m3 keeps 3 mantissa bits: relative error <= 2^-4 of each token's absmax scale grid
            err = (got - x).abs()
            bound = x.abs() * 2 ** -4 + x.abs().amax(-1, keepdim=True) / 448 * 2 ** -9 + 1e-6
            assert (err <= bound).all()
    ids = codecs.row_values(back.column("teacher_topk_ids"), 2)
    assert ids.shape == (9, 4) and ids.dtype == np.int32


def test_schema_mismatch_names_the_difference(tmp_path):
    schema = contract.arrow_schema("features", FEATURE_META)
    wrong_type = schema.set(schema.get_field_index("input_ids"), pa.field("input_ids", pa.list_(pa.int64())))
    with pytest.raises(contract.ContractError, match=r"x.arrow.*column 'input_ids' is list<item: int64>"):
        contract.validate_schema(wrong_type, "features", where="x.arrow")
    dropped = schema.remove(schema.get_field_index("aux_mid"))
    with pytest.raises(contract.ContractError, match="missing column 'aux_mid'"):
        contract.validate_schema(dropped, "features")
    old = schema.with_metadata({**schema.metadata, b"eaglekit.schema_version": b"0"})
    with pytest.raises(contract.ContractError, match="schema version 0, this eaglekit reads version 1"):
        contract.validate_schema(old, "features")
    with pytest.raises(contract.ContractError, match="expected an eaglekit features file, found a prompt file"):
        contract.validate_schema(contract.arrow_schema("prompt", {"eaglekit_version": "0"}), "features")
    with pytest.raises(contract.ContractError, match="no 'eaglekit.schema'"):
        contract.validate_schema(pa.schema([("a", pa.int32())]), "features")
    bad_meta = dict(FEATURE_META, aux_layer_convention="vllm")
    with pytest.raises(contract.ContractError, match="'aux_layer_convention' is 'vllm'; allowed: hf, sglang"):
        contract.arrow_schema("features", bad_meta)
    missing = {k: v for k, v in FEATURE_META.items() if k != "hidden_size"}
    with pytest.raises(contract.ContractError, match="missing 'hidden_size'"):
        contract.arrow_schema("features", missing)


def test_require_same_names_the_field():
    with pytest.raises(contract.ContractError, match="tokenizer_hash: found 'b', expected 'a'. use the right target"):
        contract.require_same({"tokenizer_hash": "a"}, {"tokenizer_hash": "b"}, ("tokenizer_hash",),
                              where="shards", fix="use the right target")


def test_schema_files_are_plain_json_for_other_readers():
    from schemas import SCHEMA_DIR
    for name in contract.SCHEMA_NAMES:
        spec = json.loads((SCHEMA_DIR / f"{name}.json").read_text())
        for f in spec["fields"]:
            assert f["description"], f"{name}.{f['name']} has no description"
