"""bench/gpu_recipe.sh --dry-run: the GPU recipe end to end on CPU with the tiny target (prepare with offline
stand-ins, synth-prompts, clean + decontaminate, generate, featurize, train with the final measured τ, export),
ending with its JSON line; and the recipe names every public set it trains on or decontaminates against."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_dry_run_goes_end_to_end_on_cpu(tmp_path):
    env = {**os.environ, "PY": sys.executable, "OMP_NUM_THREADS": "1", "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    proc = subprocess.run(["bash", str(ROOT / "bench" / "gpu_recipe.sh"), "--dry-run", str(tmp_path / "w")],
                          capture_output=True, text=True, timeout=480, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["bench"] == "gpu_recipe" and out["targets"]["total_minutes"]["goal"] == 25
    f = out["figures"]
    assert f["mode"] == "dry" and f["generate_counts"]["out"] > 0 and f["train_steps"] == 4
    assert f["measured_tau_chain"] >= 1.0 and f["measured_tau_tree"] >= 1.0 and "sim_tau" in f
    rec = tmp_path / "w" / "recipe"
    assert (rec / "head" / "config.json").is_file() and json.loads((rec / "result.json").read_text()) == out
    ship = rec / "builtin-head" / "smollm2-135m-instruct"  # what `--draft builtin` reads once copied in
    assert {p.name for p in ship.iterdir()} >= {"config.json", "model.safetensors", "result.json", "data_manifest.json"}
    assert out["targets"]["builtin_head_mb"]["value"] > 0
    manifest = json.loads((rec / "data_manifest.json").read_text())
    roles = {s["name"]: s["role"] for s in manifest["sets"]}
    assert roles["quickstart"] == "train" and roles["bench_builtin"] == "decontaminate"
    assert all(len(s["sha256"]) == 64 and s["rows"] >= 0 for s in manifest["sets"])
    assert manifest["clean"]["counts"]


def test_recipe_names_each_public_set_and_its_source():
    text = (ROOT / "bench" / "gpu_recipe.sh").read_text()
    for src in ("grade-school-math", "data/train.jsonl", "data/test.jsonl", "self-instruct", "seed_tasks.jsonl",
                "databricks-dolly-15k", "mt_bench/question.jsonl", "Spec-Bench", "HumanEval.jsonl.gz",
                "alpaca_eval", "synth-prompts"):
        assert src in text, src
    assert (ROOT / "bench" / "MODEL_CARD.md").is_file()
