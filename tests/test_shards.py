"""Feature shards: codecs round-trip, size-bounded shards, crash safety, checksums, and that the files
open without eaglekit (pyarrow.dataset, DuckDB)."""
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from eaglekit import __version__
from eaglekit.contract import ContractError
from eaglekit.shards import open_features, read_manifest, verify_features, write_feature_shards

H, V = 16, 64


def _meta(codec="bf16", teacher="final_hidden_prenorm", k=0):
    return dict(eaglekit_version=__version__, target_model_id="t", target_revision="r", tokenizer_hash="a",
                chat_template_hash="b", num_hidden_layers=6, hidden_size=H, vocab_size=V, aux_layer_ids=[2, 3, 4],
                aux_layer_convention="hf", hidden_codec=codec, teacher_kind=teacher, teacher_topk=k)


def _rows(n=6, seed=0, logits=False):
    g = torch.Generator().manual_seed(seed)
    for i in range(n):
        S = 3 + i
        row = dict(id=f"r{i}", source="src" if i % 2 else "other", category=None if i % 3 else "qa",
                   input_ids=torch.randint(0, V, (S,), generator=g).tolist(), loss_mask=[0] * 2 + [1] * (S - 2),
                   aux_low=torch.randn(S, H, generator=g) * 10, aux_mid=torch.randn(S, H, generator=g),
                   aux_high=torch.randn(S, H, generator=g) * 0.01)
        if logits:
            row["teacher_logits"] = torch.randn(S, V, generator=g)
        else:
            row["teacher_hidden"] = torch.randn(S, H, generator=g)
        yield row


def test_bf16_round_trip_is_bit_exact(tmp_path):
    src = list(_rows())
    for r in src:  # bf16-representable input must come back bit for bit
        for k in ("aux_low", "aux_mid", "aux_high", "teacher_hidden"):
            r[k] = r[k].to(torch.bfloat16).float()
    write_feature_shards(tmp_path, _meta(), src)
    got = list(open_features(tmp_path).iter_rows())
    assert [g.id for g in got] == [r["id"] for r in src]
    for r, g in zip(src, got):
        want = torch.cat([r["aux_low"], r["aux_mid"], r["aux_high"]], -1)
        assert torch.equal(g.aux.view(torch.int32), want.view(torch.int32))
        assert torch.equal(g.teacher_hidden, r["teacher_hidden"])
        assert g.input_ids.dtype == torch.int64 and g.input_ids.tolist() == r["input_ids"]
        assert g.loss_mask.dtype == torch.bool and g.loss_mask.int().tolist() == r["loss_mask"]


def test_several_directories_read_as_one(tmp_path):
    a, b = list(_rows(3, seed=1)), list(_rows(4, seed=2))
    for r in b:
        r["id"] = "b-" + r["id"]
    write_feature_shards(tmp_path / "a", _meta(), a)
    write_feature_shards(tmp_path / "b", _meta(), b, max_shard_tokens=8)  # several shards in the second
    ds = open_features([tmp_path / "a", str(tmp_path / "b")])
    assert [g.id for g in ds.iter_rows()] == [r["id"] for r in a + b]
    assert ds.num_rows == 7 and len(ds.shard_rows) == len(ds.shards) > 2
    assert ds.num_tokens == sum(len(r["input_ids"]) for r in a + b)
    # resuming inside the second directory (global shard index) gives its rows
    si = len(ds.shards) - 1
    assert next(ds.iter_rows(si, 0)).id == [r["id"] for r in b][-ds.shard_rows[si]]
    write_feature_shards(tmp_path / "c", _meta(codec="fp8_e4m3"), b)
    with pytest.raises(ContractError, match="hidden_codec"):
        open_features([tmp_path / "a", tmp_path / "c"])


def test_fp8_error_is_bounded_per_token(tmp_path):
    src = list(_rows())
    write_feature_shards(tmp_path, _meta("fp8_e4m3"), src)
    for r, g in zip(src, open_features(tmp_path).iter_rows()):
        for j, k in enumerate(("aux_low", "aux_mid", "aux_high")):
            x, y = r[k], g.aux[:, j * H:(j + 1) * H]
            # e4m3 has 3 mantissa bits: relative error <= 2^-4 of each value, plus subnormal floor
            # relative to the per-token absmax scale.
            bound = x.abs() * 2 ** -4 + x.abs().amax(-1, keepdim=True) * 2 ** -9 + 1e-7
            assert ((x - y).abs() <= bound).all(), k


def test_topk_teacher_from_logits(tmp_path):
    src = list(_rows(logits=True))
    write_feature_shards(tmp_path, _meta("bf16", "topk_logprobs", 5), src)
    for r, g in zip(src, open_features(tmp_path).iter_rows()):
        lp = torch.log_softmax(r["teacher_logits"], -1)
        vals, ids = lp.topk(5, -1)
        assert g.teacher_hidden is None
        assert torch.equal(g.topk_ids, ids)
        assert torch.allclose(g.topk_logprobs, vals, atol=1e-2)


def test_shards_are_token_bounded_and_resume_from_a_position(tmp_path):
    m = write_feature_shards(tmp_path, _meta(), _rows(8), max_shard_tokens=12, batch_tokens=5)
    assert len(m["shards"]) > 2 and all(s["tokens"] <= 12 or s["rows"] == 1 for s in m["shards"])
    ds = open_features(tmp_path)
    assert ds.num_rows == 8 and ds.num_tokens == sum(3 + i for i in range(8))
    all_ids = [r.id for r in ds.iter_rows()]
    assert all_ids == [f"r{i}" for i in range(8)]
    first = m["shards"][0]["rows"]
    assert [r.id for r in ds.iter_rows(1, 1)] == all_ids[first + 1:]


def test_killed_write_lists_no_shard(tmp_path):
    def dying():
        yield from _rows(3)
        raise KeyboardInterrupt("killed")
    with pytest.raises(KeyboardInterrupt):
        write_feature_shards(tmp_path, _meta(), dying(), max_shard_tokens=4)
    assert not (tmp_path / "manifest.json").exists()
    assert not list(tmp_path.glob(".tmp-shard-*"))  # the shard in progress is removed
    with pytest.raises(ContractError, match="did not finish"):
        open_features(tmp_path)


def test_verify_catches_a_flipped_byte(tmp_path):
    write_feature_shards(tmp_path, _meta(), _rows(), max_shard_tokens=10)
    assert verify_features(tmp_path) == []
    _, manifest = read_manifest(tmp_path)
    bad = tmp_path / manifest["shards"][1]["file"]
    data = bytearray(bad.read_bytes())
    data[len(data) // 2] ^= 0x01
    bad.write_bytes(bytes(data))
    problems = verify_features(tmp_path)
    assert len(problems) == 1 and bad.name in problems[0] and "sha256" in problems[0]


def test_open_names_missing_and_mismatched_shards(tmp_path):
    write_feature_shards(tmp_path, _meta(), _rows())
    shard = next(tmp_path.glob("shard-*.arrow"))
    shard.rename(tmp_path / "elsewhere.arrow")
    with pytest.raises(ContractError, match=shard.name):
        open_features(tmp_path)


def test_rows_with_wrong_shapes_are_refused(tmp_path):
    row = next(_rows())
    row["aux_mid"] = torch.zeros(1, H)
    with pytest.raises(ContractError, match="aux_mid"):
        write_feature_shards(tmp_path, _meta(), [row])


def test_opens_in_pyarrow_dataset_and_duckdb(tmp_path):
    import duckdb
    import pyarrow.dataset as pds
    src = list(_rows(logits=True))
    write_feature_shards(tmp_path, _meta("fp8_e4m3", "topk_logprobs", 4), src, max_shard_tokens=10)
    # the directory also holds manifest.json: skip non-Arrow files (or list the shard files)
    ds = pds.dataset(str(tmp_path), format="arrow", exclude_invalid_files=True)
    table = ds.to_table(columns=["id", "input_ids", "loss_mask"]).sort_by("id")
    assert table.column("id").to_pylist() == sorted(r["id"] for r in src)
    assert table.column("input_ids").to_pylist() == [r["input_ids"] for r in sorted(src, key=lambda r: r["id"])]
    # DuckDB has no float16: project the other columns through the pyarrow scanner
    scan = ds.scanner(columns=[c for c in ds.schema.names if c != "teacher_topk_logprobs"])  # noqa: F841
    got = duckdb.sql("select id, len(input_ids) as n, list_sum(loss_mask) as sup, len(aux_low[1]) as h "
                     "from scan order by id").fetchall()
    assert got == [(r["id"], len(r["input_ids"]), sum(r["loss_mask"]), H) for r in sorted(src, key=lambda r: r["id"])]
