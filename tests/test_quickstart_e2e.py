"""End to end on the tiny target: the quickstart's path (clean -> generate -> featurize -> train ->
export -> bench) over the shipped prompt set; checks the artefacts, the accounting across stages, the
run's data card against the manifests, and that a re-run resumes instead of redoing work."""
import json
import re

import pytest
from rich.console import Console

from eaglekit.cli.quickstart import QuickstartConfig, print_report, run_quickstart


@pytest.mark.slow
def test_quickstart_path_on_tiny_target(tmp_path, monkeypatch):
    # the shipped prompt set declares its licence (eaglekit/data/sources.yaml): no allowance of unknown terms
    monkeypatch.delenv("EAGLEKIT_ALLOW_UNKNOWN_TERMS", raising=False)
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
    assert out["card"] in text.replace("\n", "")

    check_card(work / "data-card.md", res)

    again = run_quickstart(cfg, Console(record=True))
    assert all(t == 0.0 for t in again["timings"].values())  # every stage complete: nothing re-run


def check_card(path, res):
    """The quickstart's data card holds what its manifests say: the licence, each source's file and rows,
    every step's counts and drop reasons, the PII counts per type, the target's hashes, the head's τ."""
    import yaml
    card = path.read_text()
    head = yaml.safe_load(card.split("---\n")[1])
    assert head["license"] == "apache-2.0"
    clean = res["clean"]
    (src,) = clean["sources"]
    assert src["name"] == "eaglekit-quickstart" and src["licence"] == "Apache-2.0" and src["allowed_by"] == "policy"
    assert src["rows_in"] == clean["counts"]["records_in"] and src["rows_out"] == clean["counts"]["prompts_out"]
    assert f"| {src['files'][0]['sha256']} | {src['rows_in']} | {src['rows_out']} |" in card
    for stage in ("clean", "generate", "featurize"):
        for step, c in res[stage]["stages"].items():
            dropped = ", ".join(f"{k}: {v}" for k, v in c["dropped"].items()) or "-"
            assert f"| {stage} | {step} | {c['in']} | {c['out']} | {dropped} |" in card
    for entity, n in clean["pii_entities"].items():
        assert re.search(rf"\| {entity} \| \w+ \| {n} \|", card), entity
    meta = res["featurize"]["meta"]
    assert meta["tokenizer_hash"] in card and meta["chat_template_hash"] in card
    assert {s["licence"] for s in res["featurize"]["sources"]} == {"Apache-2.0"}
    tau = res["train"]["sim_tau"]
    assert ("n/a" if tau is None else f"{tau:.3f}") in card and "## Trained head" in card
