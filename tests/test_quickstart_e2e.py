"""End to end on the tiny target: the quickstart's path (clean -> generate -> featurize -> train ->
export -> bench) over the shipped prompt set; checks the artefacts, the accounting across stages
and that a re-run resumes instead of redoing work."""
import json

import pytest
from rich.console import Console

from eaglekit.cli.quickstart import QuickstartConfig, print_report, run_quickstart


@pytest.mark.slow
def test_quickstart_path_on_tiny_target(tmp_path):
    cfg = QuickstartConfig(workdir=str(tmp_path / "qs"), target="tiny", max_new_tokens=12,
                           train_steps=4, seq_len=128, ttt_steps=2, bench_prompts=2, bench_tokens=8)
    console = Console(record=True, width=140)
    out = run_quickstart(cfg, console)
    res, work = out["results"], tmp_path / "qs"

    clean = res["clean"]
    for step, c in clean["stages"].items():
        assert c["in"] == c["out"] + sum(c["dropped"].values()), step
    kept = clean["stages"]["pii"]["out"]
    assert kept < clean["stages"]["read"]["in"]  # the shipped set plants duplicates, PII and bad records
    dead = [json.loads(line) for f in (work / "clean").glob("dead_letters-*.jsonl") for line in f.read_text().splitlines()]
    assert len(dead) == sum(sum(c["dropped"].values()) for c in clean["stages"].values())
    assert all("text" not in d and "content" not in d for d in dead)  # ids and reasons only

    gen = res["generate"]["counts"]["generate"]
    assert gen["in"] == kept and gen["in"] == gen["out"] + sum(gen["dropped"].values())
    feat = res["featurize"]["counts"]["featurize"]
    assert feat["in"] == gen["out"] and feat["out"] == res["featurize"]["num_rows"] > 0

    from eaglekit.shards import open_features, verify_features
    ds = open_features(str(work / "features"))
    assert ds.meta["target_model_id"].startswith("tiny") and ds.num_rows == feat["out"]
    assert not verify_features(str(work / "features"))

    assert (work / "draft" / "summary.json").is_file() and res["train"]["step"] == 4
    assert json.loads((work / "head-sglang" / "config.json").read_text())["architectures"] == ["LlamaForCausalLMEagle3"]
    runs = res["bench"]["runs"]
    assert any(r["setting"] == "baseline" for r in runs)
    assert all(r.get("identical_to_baseline", True) for r in runs)  # greedy EAGLE-3 == plain greedy

    print_report(cfg, {**out, "total_s": 1.0}, console)
    text = console.export_text()
    assert "Counts (in = out + dropped)" in text and "acceptance length" in text

    again = run_quickstart(cfg, Console(record=True))
    assert all(t == 0.0 for t in again["timings"].values())  # every stage complete: nothing re-run
