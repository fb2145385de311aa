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
    text = (ROOT / "bench" / "gpu_recipe.sh").read_text() + (ROOT / "bench" / "recipe_data.py").read_text()
    for src in ("grade-school-math", "data/train.jsonl", "data/test.jsonl", "self-instruct", "seed_tasks.jsonl",
                "databricks-dolly-15k", "mt_bench/question.jsonl", "Spec-Bench", "HumanEval.jsonl.gz",
                "alpaca_eval", "synth-prompts"):
        assert src in text, src
    assert (ROOT / "bench" / "MODEL_CARD.md").is_file()


def test_cpu_recipe_dry_run_prepares_offline_and_resumes(tmp_path):
    """bench/cpu_recipe.sh --dry-run, its default plan (one pass over every clean prompt): every public set read
    from a local folder (stand-ins with the real files' names and formats), each source's sha256 in the data
    manifest, the serve bench's prompts and the held-out MT-bench turns decontaminated out, then generate ->
    featurize -> train -> export -> τ of the chain and one tree; the JSON line holds the 90-minute target; a second
    run skips every stage already done."""
    env = {**os.environ, "PY": sys.executable, "OMP_NUM_THREADS": "1", "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    env.pop("PASS2", None)
    cmd = ["bash", str(ROOT / "bench" / "cpu_recipe.sh"), "--dry-run", str(tmp_path / "w")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=480, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["bench"] == "cpu_recipe" and out["targets"]["builtin_head_mb"]["goal"] == 25
    t = out["targets"]["total_minutes"]
    assert t["op"] == "<=" and t["goal"] == 90 and t["value"] == out["figures"]["total_minutes"] > 0
    f = out["figures"]
    assert f["train_steps"] == 4 and f["measured_tau_chain"] >= 1.0 and f["generate_counts"]["out"] > 0
    assert {"synth_prompts", "clean", "generate", "featurize", "train", "export", "tau_eval"} <= set(f["stage_s"])
    assert not {"generate2", "featurize2", "train2"} & set(f["stage_s"]) and "warm_start" not in f
    assert f["plan"]["pass2"] == "0" and f["wall_minutes"] >= f["total_minutes"] * 0.9
    # the chain and exactly one tree are measured; the trainer's own final eval is not run twice
    assert [r["setting"] for r in f["final_eval"]["runs"]] == [[3, 1, 4], [3, 2, 4]]
    assert "final_eval" not in json.loads((tmp_path / "w" / "recipe" / "run" / "summary.json").read_text())
    w = tmp_path / "w"
    manifest = json.loads((w / "data" / "data_manifest.json").read_text())
    sets = {s["name"]: s for s in manifest["sets"]}
    for name in ("mt_bench", "spec_bench", "humaneval", "gsm8k_test", "alpaca_eval", "serve_bench"):
        assert sets[name]["role"] == "decontaminate" and len(sets[name]["sha256"]) == 64, name
    assert sets["mt_bench_turn1"]["role"] == "heldout_tau" and sets["synth_prompts"]["role"] == "train"
    # the optional sets that were not given are named with where they come from
    missing = {m["name"]: m for m in manifest["missing"]}
    assert "gpteacher_roleplay" in missing and missing["gpteacher_roleplay"]["url"].startswith("https://")
    assert manifest["clean"]["counts"]
    # one pass reads every clean prompt
    import pyarrow.parquet as pq
    clean_rows = sum(pq.read_metadata(p).num_rows for p in (w / "data" / "clean").glob("prompts-*.parquet"))
    assert manifest["generate_prompts"] == clean_rows and "generate_prompts2" not in manifest
    ship = w / "recipe" / "builtin-head" / "smollm2-135m-instruct"
    assert {p.name for p in ship.iterdir()} >= {"config.json", "model.safetensors", "result.json", "data_manifest.json",
                                                "MODEL_CARD.md"}
    assert "mt_bench_turn1" in (ship / "MODEL_CARD.md").read_text()
    # resumable: the second run redoes nothing (no stage time is added)
    times = (w / "stage_times.jsonl").read_text()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (w / "stage_times.jsonl").read_text() == times


def test_recipe_data_names_a_missing_required_set(tmp_path):
    """prepare works from a local folder only: a missing decontamination set stops it, named with its URL."""
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "recipe_data.py"), "prepare", "--src",
                           str(tmp_path / "src"), "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    assert proc.returncode != 0
    assert "mt_bench_question.jsonl" in proc.stderr and "raw.githubusercontent.com/lm-sys/FastChat" in proc.stderr


def test_cpu_recipe_dry_run_two_passes(tmp_path):
    """PASS2=1 (the way the head shipped on 2026-11-24 was made): a first head on a seeded sample of the clean
    prompts, measured by the trainer's final eval, then the prompts that sample left out and the first head trained
    further on both feature sets."""
    env = {**os.environ, "PY": sys.executable, "OMP_NUM_THREADS": "1", "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": "",
           "PASS2": "1"}
    proc = subprocess.run(["bash", str(ROOT / "bench" / "cpu_recipe.sh"), "--dry-run", str(tmp_path / "w")],
                          capture_output=True, text=True, timeout=480, env=env, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    f = out["figures"]
    assert f["plan"]["pass2"] == "1" and {"generate2", "featurize2", "train2", "tau_eval_ws"} <= set(f["stage_s"])
    assert f["warm_start"]["first_pass_final_eval"]["runs"] and out["targets"]["total_minutes"]["goal"] == 90
    w = tmp_path / "w"
    manifest = json.loads((w / "data" / "data_manifest.json").read_text())
    import pyarrow.parquet as pq
    clean_rows = sum(pq.read_metadata(p).num_rows for p in (w / "data" / "clean").glob("prompts-*.parquet"))
    assert manifest["generate_prompts"] == 24 and manifest["generate_prompts"] + manifest["generate_prompts2"] == clean_rows
    card = (w / "recipe" / "builtin-head" / "smollm2-135m-instruct" / "MODEL_CARD.md").read_text()
    assert "Two passes" in card
