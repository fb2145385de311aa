"""The public prompt sets the head recipes (bench/cpu_recipe.sh, bench/gpu_recipe.sh prepare) train on, decontaminate
against and hold out, read from a local folder: no network is needed, so an air-gapped box prepares as well as
any other. Each set is one file under SRC with a fixed name; its sha256, rows and origin go to
data_manifest.json. A missing set is named with where it comes from; `--fetch` (curl) is one optional way to
fill the folder, a copy made any other way (git, a USB stick, `git show` from a mirror) serves the same.

    python bench/recipe_data.py prepare --src SRC --out DATA [--cap NAME=N ...] [--fetch] [--seed S]
    python bench/recipe_data.py sources        # the table: file name, role, URL, licence

Writes DATA/<name>.jsonl ({id, prompt, category}; train sets capped by --cap, picked by --seed),
DATA/eval_<name>.jsonl for the decontamination sets, DATA/heldout.jsonl (MT-bench first turns, the held-out
prompts for the measured τ) and DATA/data_manifest.json.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

GH = "https://raw.githubusercontent.com"
# name, role, file under SRC, URL, licence, parser kind, required
SETS = [
    ("self_instruct_seeds", "train", "self_instruct_seed_tasks.jsonl",
     f"{GH}/yizhongw/self-instruct/main/data/seed_tasks.jsonl", "Apache-2.0", "self_instruct", False),
    ("self_instruct_user_oriented", "train", "self_instruct_user_oriented.jsonl",
     f"{GH}/yizhongw/self-instruct/main/human_eval/user_oriented_instructions.jsonl", "Apache-2.0",
     "self_instruct", False),
    ("gpteacher_roleplay", "train", "gpteacher_roleplay.json",
     f"{GH}/teknium1/GPTeacher/main/Roleplay/roleplay-simple-deduped-roleplay-instruct.json", "MIT", "alpaca", False),
    ("gpteacher_codegen", "train", "gpteacher_codegen.json",
     f"{GH}/teknium1/GPTeacher/main/Codegen/codegen-instruct.json", "MIT", "alpaca", False),
    ("gsm8k_train", "train", "gsm8k_train.jsonl",
     f"{GH}/openai/grade-school-math/master/grade_school_math/data/train.jsonl", "MIT", "gsm8k", False),
    ("databricks_dolly_15k", "train", "databricks-dolly-15k.jsonl",
     "https://huggingface.co/datasets/databricks/databricks-dolly-15k/resolve/main/databricks-dolly-15k.jsonl",
     "CC BY-SA 3.0", "dolly", False),
    ("mt_bench", "decontaminate", "mt_bench_question.jsonl",
     f"{GH}/lm-sys/FastChat/main/fastchat/llm_judge/data/mt_bench/question.jsonl", "Apache-2.0", "turns", True),
    ("spec_bench", "decontaminate", "spec_bench_question.jsonl",
     f"{GH}/hemingkx/Spec-Bench/main/data/spec_bench/question.jsonl", "Apache-2.0 (see source)", "turns", True),
    ("humaneval", "decontaminate", "HumanEval.jsonl.gz",
     f"{GH}/openai/human-eval/master/data/HumanEval.jsonl.gz", "MIT", "humaneval", True),
    ("gsm8k_test", "decontaminate", "gsm8k_test.jsonl",
     f"{GH}/openai/grade-school-math/master/grade_school_math/data/test.jsonl", "MIT", "gsm8k", True),
    # the 805 AlpacaEval instructions: the HF dataset's alpaca_eval.json, or any results/*/model_outputs.json of
    # github.com/tatsu-lab/alpaca_eval (same instructions, same format)
    ("alpaca_eval", "decontaminate", "alpaca_eval.json",
     f"{GH}/tatsu-lab/alpaca_eval/main/results/gpt4/model_outputs.json", "CC BY-NC 4.0 (see source)", "alpaca", True),
]


def _rows(path: Path) -> list[dict]:
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        text = f.read()
    if text.lstrip().startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _prompts(rows: list[dict], kind: str, name: str) -> list[tuple[str, str]]:
    """(prompt, category) pairs from a set's own format; MT-bench/Spec-Bench give every turn (decontamination)."""
    out = []
    for r in rows:
        if kind == "gsm8k":
            out.append((r["question"], "math"))
        elif kind == "self_instruct":
            inp = (r.get("instances") or [{}])[0].get("input") or ""
            out.append((r["instruction"] + ("\n\n" + inp if inp else ""), "self_instruct"))
        elif kind == "alpaca":
            inp = r.get("input") or ""
            out.append((r["instruction"] + ("\n\n" + inp if inp else ""), r.get("dataset") or name))
        elif kind == "dolly":
            ctx = r.get("context") or ""
            out.append((r["instruction"] + ("\n\n" + ctx if ctx else ""), r.get("category") or "chat"))
        elif kind == "turns":
            out.extend((t, r.get("category") or name) for t in r["turns"])
        elif kind == "humaneval":
            out.append((r["prompt"], "code"))
        else:
            raise ValueError(kind)
    return [(p, c) for p, c in out if p and p.strip()]


def _write(path: Path, name: str, items: list[tuple[str, str]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for i, (p, c) in enumerate(items):
            f.write(json.dumps({"id": f"{name}-{i}", "prompt": p, "category": c}, ensure_ascii=False) + "\n")


def prepare(src: Path, out: Path, caps: dict[str, int], seed: int, fetch: bool) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    src.mkdir(parents=True, exist_ok=True)
    if fetch:  # optional: fill SRC from the published URLs (needs network); copies made otherwise serve the same
        for name, _, fname, url, *_ in SETS:
            if not (src / fname).is_file():
                subprocess.run(["curl", "-fsSL", "--retry", "3", "-o", str(src / fname), url], check=False)
    missing = [(n, role, f, u, req) for n, role, f, u, _, _, req in SETS if not (src / f).is_file()
               or (src / f).stat().st_size == 0]
    for n, role, f, u, req in missing:
        print(f"recipe_data: {'MISSING (required)' if req else 'missing (optional, skipped)'} {n} ({role}): "
              f"put {src / f} from {u}", file=sys.stderr)
    if any(req for *_, req in missing):
        raise SystemExit("recipe_data: required decontamination sets missing (see above): copy them into "
                         f"{src} (or pass --fetch where there is network)")
    manifest = {"src": str(src), "seed": seed, "sets": [], "missing": [
        {"name": n, "role": role, "file": f, "url": u, "required": req} for n, role, f, u, req in missing]}
    rng = random.Random(seed)
    for name, role, fname, url, licence, kind, _ in SETS:
        path = src / fname
        if not path.is_file() or path.stat().st_size == 0:
            continue
        items = _prompts(_rows(path), kind, name)
        raw_rows = len(items)
        if role == "train":
            cap = caps.get(name)
            if cap is not None and cap < len(items):
                items = rng.sample(items, cap)
            out_name = f"{name}.jsonl"
        else:
            out_name = f"eval_{name}.jsonl"
        _write(out / out_name, name, items)
        manifest["sets"].append({"name": name, "role": role, "url": url, "licence": licence, "source_file": fname,
                                 "sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "rows": raw_rows,
                                 "used": len(items), "file": out_name})
    # bench/serve.py's default prompts measure the speed-up "outside the training distribution": never train on them
    try:
        from serving.bench import BUILTIN_PROMPTS
    except ImportError:  # run from outside the repository: the recipes set PYTHONPATH to it
        BUILTIN_PROMPTS = {}
    if BUILTIN_PROMPTS:
        items = [(q, c) for c, qs in BUILTIN_PROMPTS.items() for q in qs]
        _write(out / "eval_serve_bench.jsonl", "serve_bench", items)
        manifest["sets"].append({"name": "serve_bench", "role": "decontaminate",
                                 "url": "serving/bench.py BUILTIN_PROMPTS (bench/serve.py's default prompts)",
                                 "licence": "eaglekit's own", "rows": len(items), "used": len(items),
                                 "file": "eval_serve_bench.jsonl", "sha256": hashlib.sha256(
                                     (out / "eval_serve_bench.jsonl").read_bytes()).hexdigest()})
    # held out for the measured τ: MT-bench first turns (also in eval_mt_bench, so never trained on), as chat turns
    mt = _rows(src / "mt_bench_question.jsonl")
    with open(out / "heldout.jsonl", "w", encoding="utf-8") as f:
        for r in mt:
            f.write(json.dumps({"id": f"mt_bench-{r.get('question_id')}", "category": r.get("category") or "mt_bench",
                                "messages": [{"role": "user", "content": r["turns"][0]}]}, ensure_ascii=False) + "\n")
    manifest["sets"].append({"name": "mt_bench_turn1", "role": "heldout_tau", "source_file": "mt_bench_question.jsonl",
                             "sha256": hashlib.sha256((src / "mt_bench_question.jsonl").read_bytes()).hexdigest(),
                             "rows": len(mt), "used": len(mt), "file": "heldout.jsonl"})
    (out / "data_manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


# The manifest's licence strings as SPDX ids (clean's terms policy reads SPDX), and the terms a reviewer must
# see: GPTeacher's prompts were written by GPT-4, whose terms forbid using its output for competing models
SPDX = {"Apache-2.0": "Apache-2.0", "MIT": "MIT", "CC BY-SA 3.0": "CC-BY-SA-3.0",
        "generated by the target": "Apache-2.0", "generated": "Apache-2.0", "eaglekit's own": "Apache-2.0",
        "project's own": "Apache-2.0"}
TERMS = {"gpteacher_roleplay": "prompts written by GPT-4, whose terms forbid using its output to develop competing "
                               "models; only the prompts are used (the target writes every response)",
         "gpteacher_codegen": "prompts written by GPT-4, whose terms forbid using its output to develop competing "
                              "models; only the prompts are used (the target writes every response)",
         "synth_prompts": "written by the target (SmolLM2-135M-Instruct, Apache-2.0) itself"}


def sources_yaml(manifest_path: Path) -> str:
    """The clean stage's sources file for a prepared data folder: one entry per train set of its manifest."""
    import yaml
    m = json.loads(manifest_path.read_text())
    entries = []
    for s in m["sets"]:
        if s.get("role") != "train" or not (manifest_path.parent / s["file"]).exists():
            continue
        licence = SPDX.get(s.get("licence", ""), "unknown")
        entries.append({"name": s["name"], "path": s["file"], "url": s.get("url", ""), "licence": licence,
                        **({"terms": TERMS[s["name"]]} if s["name"] in TERMS else {})})
    return yaml.safe_dump({"sources": entries}, sort_keys=False, allow_unicode=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--src", required=True, help="folder holding the public sets' files (see `sources`)")
    p.add_argument("--out", required=True)
    p.add_argument("--cap", action="append", default=[], help="NAME=N: at most N prompts of train set NAME")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--fetch", action="store_true", help="curl missing files into --src first (needs network)")
    sub.add_parser("sources")
    y = sub.add_parser("sources-yaml", help="write DATA/sources.yaml (clean --sources) from DATA/data_manifest.json")
    y.add_argument("data")
    a = ap.parse_args(argv)
    if a.cmd == "sources-yaml":
        (Path(a.data) / "sources.yaml").write_text(sources_yaml(Path(a.data) / "data_manifest.json"))
        return
    if a.cmd == "sources":
        for name, role, fname, url, licence, _, req in SETS:
            print(f"{fname}\t{name}\t{role}{' (required)' if req else ''}\t{url}\t{licence}")
        return
    caps = {k: int(v) for k, v in (c.split("=", 1) for c in a.cap)}
    m = prepare(Path(a.src), Path(a.out), caps, a.seed, a.fetch)
    print(json.dumps({s["name"]: s["used"] for s in m["sets"]}))


if __name__ == "__main__":
    main()
