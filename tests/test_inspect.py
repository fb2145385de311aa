"""data inspect / verify: the JSON report matches counts computed directly from the shards; verify
exits non-zero naming the bad shard."""
import json
from collections import Counter

import pyarrow as pa
import pyarrow.dataset as pds
import torch
from click.testing import CliRunner

from eaglekit.cli.data import data
from eaglekit.shards import read_manifest, write_feature_shards
from tests.test_shards import H, _meta, _rows


def _direct_counts(path):
    t = pds.dataset(str(path), format="arrow", exclude_invalid_files=True).to_table(
        columns=["source", "category", "input_ids", "loss_mask"])
    lens = [len(x) for x in t.column("input_ids").to_pylist()]
    sup = sum(sum(x) for x in t.column("loss_mask").to_pylist())
    cats = Counter("(none)" if c is None else c for c in t.column("category").to_pylist())
    return len(lens), sum(lens), sup, dict(Counter(t.column("source").to_pylist())), dict(cats), max(lens)


def test_inspect_json_matches_direct_counts(tmp_path):
    rows = list(_rows(7, logits=True))
    rows[2]["aux_mid"][1, 3] = float("nan")
    write_feature_shards(tmp_path, _meta("bf16", "topk_logprobs", 4), rows, max_shard_tokens=15)
    res = CliRunner().invoke(data, ["inspect", str(tmp_path), "--json", "--plot", str(tmp_path / "p.png")])
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    n, tokens, sup, sources, cats, longest = _direct_counts(tmp_path)
    assert (report["rows"], report["tokens"], report["supervised_tokens"]) == (n, tokens, sup)
    assert report["shards"] == len(read_manifest(tmp_path)[1]["shards"])
    assert report["sources"] == sources and report["categories"] == cats
    assert report["length"]["max"] == longest and sum(report["length"]["histogram"]["counts"]) == n
    assert abs(report["loss_mask_coverage"] - sup / tokens) < 1e-12
    assert report["hidden_health"]["aux_mid"]["nonfinite"] == 1 and report["hidden_health"]["aux_low"]["nonfinite"] == 0
    # top-k entropy is a mean over tokens of a distribution over 4 ids
    assert 0.0 < report["teacher_topk_entropy"] <= torch.log(torch.tensor(4.0)).item() + 1e-6
    assert (tmp_path / "p.png").stat().st_size > 1000


def test_human_inspect_runs(tmp_path):
    write_feature_shards(tmp_path, _meta(), _rows(3))
    res = CliRunner().invoke(data, ["inspect", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "hidden-state health" in res.output and "3 rows" in res.output


def test_verify_exit_code_names_the_bad_shard(tmp_path):
    write_feature_shards(tmp_path, _meta(), _rows(), max_shard_tokens=10)
    ok = CliRunner().invoke(data, ["verify", str(tmp_path)])
    assert ok.exit_code == 0 and ok.output.startswith("OK")
    shard = tmp_path / read_manifest(tmp_path)[1]["shards"][-1]["file"]
    b = bytearray(shard.read_bytes())
    b[-100] ^= 0xFF
    shard.write_bytes(bytes(b))
    bad = CliRunner().invoke(data, ["verify", str(tmp_path)])
    assert bad.exit_code == 1 and shard.name in bad.output


def test_inspect_names_a_non_features_dir(tmp_path):
    res = CliRunner().invoke(data, ["inspect", str(tmp_path)])
    assert res.exit_code != 0 and "manifest.json" in res.output
