"""featurize: the ids that reach the shards are exactly the generated ones, the captured states are
the target's (aux layers, pre-norm teacher, top-k), over-long rows are truncated or dropped and counted."""
import glob
import os

import pyarrow.parquet as pq
import pytest
import torch

from tests.test_generate import PROMPTS, write_prompts


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    from beam_jobs.generate import GenerateConfig, run_generate
    root = tmp_path_factory.mktemp("feat")
    write_prompts(root / "clean", PROMPTS)
    run_generate(GenerateConfig(input=str(root / "clean"), output=str(root / "gen"), target="tiny",
                                max_new_tokens=5, batch_size=4))
    convs = sum((pq.read_table(f).to_pylist() for f in glob.glob(str(root / "gen" / "conversations-*.parquet"))), [])
    return root, {c["id"]: c for c in convs}


def _direct(model, ids):
    cap = {}
    h = model.model.norm.register_forward_pre_hook(lambda m, a: cap.__setitem__("pre", a[0]))
    try:
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_hidden_states=True)
    finally:
        h.remove()
    return out, cap["pre"][0]


def test_featurize_bf16_prenorm_matches_the_target(generated, tiny_target):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from eaglekit.models import default_aux_layers
    from eaglekit.shards import open_features
    root, convs = generated
    m = run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(root / "f1"), target="tiny"))
    assert m["counts"]["featurize"] == {"in": 3, "out": 3, "dropped": {}}
    ds = open_features(root / "f1")
    assert ds.meta["aux_layer_convention"] == "hf" and ds.meta["aux_layer_ids"] == list(default_aux_layers(6).hf)
    H = 64
    for row in ds.iter_rows():
        conv = convs[row.id]
        want_ids = sum((t["prompt_ids"] + t["response_ids"] for t in conv["turns"]), [])
        want_mask = sum(([0] * len(t["prompt_ids"]) + [1] * len(t["response_ids"]) for t in conv["turns"]), [])
        assert row.input_ids.tolist() == want_ids          # token-exact: generated ids straight into features
        assert row.loss_mask.int().tolist() == want_mask
        out, pre = _direct(tiny_target.model, want_ids)
        for j, layer in enumerate(ds.meta["aux_layer_ids"]):
            ref = out.hidden_states[layer][0].to(torch.bfloat16).float()
            assert torch.allclose(row.aux[:, j * H:(j + 1) * H], ref, rtol=2e-2, atol=1e-3)
        assert torch.allclose(row.teacher_hidden, pre.to(torch.bfloat16).float(), rtol=2e-2, atol=1e-3)
        # and pre-norm really differs from HF's last hidden state (which is after the final norm)
        assert not torch.allclose(pre, out.hidden_states[-1][0])


def test_topk_teacher_equals_the_targets_topk(generated, tiny_target):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from eaglekit.shards import open_features
    root, convs = generated
    run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(root / "f2"), target="tiny",
                                  teacher="topk_logprobs", topk=8, hidden_codec="fp8"))
    ds = open_features(root / "f2")
    assert ds.meta["hidden_codec"] == "fp8_e4m3" and ds.meta["teacher_topk"] == 8
    for row in ds.iter_rows():
        out, _ = _direct(tiny_target.model, row.input_ids.tolist())
        vals, ids = torch.log_softmax(out.logits[0], -1).topk(8, -1)
        assert torch.equal(row.topk_ids, ids)
        assert torch.allclose(row.topk_logprobs, vals, atol=1e-2)


@pytest.mark.parametrize("overflow", ["truncate", "drop"])
def test_over_long_rows_are_truncated_or_dropped_and_counted(generated, overflow):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    root, convs = generated
    lengths = {k: sum(len(t["prompt_ids"]) + len(t["response_ids"]) for t in c["turns"]) for k, c in convs.items()}
    limit = max(lengths.values()) - 2  # the longest loses 2 of its 5 response tokens
    longer = sum(1 for n in lengths.values() if n > limit)
    m = run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(root / f"f-{overflow}"), target="tiny",
                                      max_length=limit, overflow=overflow))
    c = m["counts"]["featurize"]
    assert c["in"] == 3 and c["in"] == c["out"] + sum(c["dropped"].values())
    if overflow == "drop":
        assert c["dropped"] == {"too_long": longer}
    else:
        assert m["truncated"] == longer and c["out"] == 3 and m["num_tokens"] <= 3 * limit


def test_other_tokenizer_is_refused(generated):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from eaglekit.contract import ContractError
    root, _ = generated
    with pytest.raises(ContractError, match="tokenizer_hash"):
        run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(root / "fx"), target="tiny:vocab=400"))


# ---------------------------------------------------------------------------------------------
# The encoded, overlapped path writes what the float rows + synchronous writer wrote (byte-equal
# tables), and a writer failure is raised in the model thread, not lost and not a hang.

def _rows(generated):
    from beam_jobs.featurize import conversation_row
    _, convs = generated
    return [conversation_row(c, 2048, "truncate")["row"] for c in convs.values()]


def _table(folder):
    import pyarrow as pa
    tables = []
    for f in sorted(glob.glob(str(folder / "shard-*.arrow"))):
        with pa.memory_map(f) as src:
            tables.append(pa.ipc.open_file(src).read_all())
    return pa.concat_tables(tables).combine_chunks()


def _extractor(tiny_target, codec, teacher):
    from beam_jobs.featurize import FeatureExtractor, FeaturizeConfig, feature_meta
    cfg = FeaturizeConfig(input="", output="", target="tiny", hidden_codec=codec, teacher=teacher, topk=8)
    meta = feature_meta(tiny_target, cfg)
    # a small token budget: several forward batches, so the writer thread lags the model thread
    return FeatureExtractor(tiny_target, meta["aux_layer_ids"], teacher, 8, batch_tokens=40, codec=codec), meta


@pytest.mark.parametrize("codec,teacher", [("bf16", "final_hidden_prenorm"), ("fp8", "final_hidden_postnorm"),
                                           ("bf16", "topk_logprobs"), ("fp8", "topk_logprobs")])
def test_overlapped_writer_gives_the_same_table_as_the_synchronous_path(generated, tiny_target, tmp_path,
                                                                       codec, teacher):
    from beam_jobs.featurize_phases import PhaseClock
    from beam_jobs.featurize_writer import BackgroundShardWriter
    from eaglekit.shards import ShardWriter
    extractor, meta = _extractor(tiny_target, codec, teacher)
    rows = _rows(generated) * 3  # 9 rows over several batches and record batches
    sync = ShardWriter(tmp_path / "sync", meta, batch_tokens=30)
    for row in extractor(rows):  # float rows, encoded row by row on the host: the path featurize had
        sync.add(row)
    sync.close()
    clock = PhaseClock()
    encoded = extractor.encoded(rows, clock)
    assert all(r.pop("nonfinite") is None for r in encoded)
    overlapped = BackgroundShardWriter(ShardWriter(tmp_path / "bg", meta, batch_tokens=30), max_pending_tokens=20)
    for row in encoded:
        overlapped.add(row)
    shards = overlapped.close()
    assert sum(s["rows"] for s in shards) == len(rows) == overlapped.rows_in
    want, got = _table(tmp_path / "sync"), _table(tmp_path / "bg")
    assert got.schema.metadata == want.schema.metadata and got.equals(want)
    seconds = clock.settle()
    assert seconds["forward"] > 0 and seconds["encode"] > 0 and (seconds["teacher"] > 0) == (teacher == "topk_logprobs")
    assert overlapped.seconds["arrow"] > 0 and overlapped.seconds["write"] > 0 and overlapped.seconds["encode"] == 0


def test_featurize_run_writes_the_synchronous_paths_table_and_says_where_the_time_went(generated, tiny_target,
                                                                                    tmp_path, capsys):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from eaglekit.shards import ShardWriter
    root, _ = generated
    extractor, meta = _extractor(tiny_target, "fp8", "topk_logprobs")
    m = run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(tmp_path / "feat"), target="tiny",
                                      teacher="topk_logprobs", topk=8, hidden_codec="fp8"))
    ref = ShardWriter(tmp_path / "ref", meta)
    for row in extractor(_rows(generated)):
        ref.add(row)
    ref.close()
    want, got = _table(tmp_path / "ref"), _table(tmp_path / "feat")
    assert got.schema.metadata == want.schema.metadata and got.sort_by("id").equals(want.sort_by("id"))
    t = m["throughput"]
    assert t["tokens"] == m["num_tokens"] and t["model_phases_s"]["forward"] > 0
    assert t["writer_phases_s"]["write"] > 0 and "wait" in t["model_phases_s"]
    line = [s for s in capsys.readouterr().err.splitlines() if s.startswith("featurize: ")]
    assert line == [t["summary"]] and "forward" in line[0] and "writer thread" in line[0]


class _FailingWriter:
    """A ShardWriter whose second row fails to encode."""

    def __new__(cls, folder, meta):
        from eaglekit.shards import ShardWriter

        class Failing(ShardWriter):
            def add_encoded(self, enc):
                if self._rows + len(self._pending) == 1:
                    raise OSError("disk full")
                super().add_encoded(enc)
        return Failing(folder, meta)


@pytest.mark.parametrize("max_pending_tokens", [1, 10_000])  # the model thread waiting for room, or not
def test_a_writer_failure_is_raised_in_the_model_thread_naming_shard_and_row(generated, tiny_target, tmp_path,
                                                                            max_pending_tokens):
    import threading

    from beam_jobs.featurize_writer import BackgroundShardWriter, ShardWriteError
    extractor, meta = _extractor(tiny_target, "bf16", "final_hidden_prenorm")
    rows = extractor.encoded(_rows(generated) * 4)
    writer = BackgroundShardWriter(_FailingWriter(tmp_path, meta), max_pending_tokens=max_pending_tokens)
    raised = []

    def feed():
        try:
            for row in rows:
                writer.add(row)
            writer.close()
        except ShardWriteError as err:
            raised.append(err)
    t = threading.Thread(target=feed, daemon=True)
    t.start()
    t.join(timeout=30)
    assert not t.is_alive(), "the model thread hung on a failed writer"
    assert len(raised) == 1
    msg = str(raised[0])
    assert f"row {rows[1]['id']}" in msg and "shard-" in msg and "OSError: disk full" in msg
    assert isinstance(raised[0].__cause__, OSError)
    assert not list(tmp_path.glob(".tmp-shard-*"))  # the open shard is dropped
    with pytest.raises(ShardWriteError):  # and it stays failed
        writer.close()


def test_a_writer_failure_fails_the_featurize_run(generated, tmp_path, monkeypatch):
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    from eaglekit.shards import ShardWriter

    def fail(self, enc):
        raise OSError("disk full")
    monkeypatch.setattr(ShardWriter, "add_encoded", fail)
    root, _ = generated
    with pytest.raises(Exception, match=r"shard-.*failed at row .*OSError: disk full"):
        run_featurize(FeaturizeConfig(input=str(root / "gen"), output=str(tmp_path / "feat"), target="tiny"))
    assert not (tmp_path / "feat").exists() and not list(tmp_path.glob("feat.tmp-*"))


def test_nan_at_a_real_position_flags_the_row_but_padding_does_not():
    from beam_jobs.featurize import encode_batch
    attn = torch.tensor([[1, 1, 1], [1, 1, 0]])
    feats = {n: torch.ones(2, 3, 4) for n in ("aux_low", "aux_mid", "aux_high", "teacher_hidden")}
    feats["aux_mid"][0, 1, 2] = float("nan")   # row 0, a real token
    feats["aux_low"][1, 2, 0] = float("inf")   # row 1, padding: not the row's
    flags = encode_batch(feats, attn, "fp8_e4m3")["nonfinite"]
    assert flags.tolist() == [[False, True, False, False], [False, False, False, False]]
