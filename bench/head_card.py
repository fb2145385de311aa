"""Write a shipped head's model card (MODEL_CARD.md in its folder) from what its recipe run recorded: result.json
(stage times, training summary, measured τ, speed-up), data_manifest.json (every set with its source and sha256,
clean counts) and the exported config.json. Only measured figures go in; what was not measured says so.

    python bench/head_card.py RECIPE_DIR HEAD_DIR [--recipe "bash bench/cpu_recipe.sh"] [--extra NOTES.md]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path


def _fmt(v, nd=3):
    return "not measured" if v is None else (f"{v:.{nd}f}" if isinstance(v, float) else str(v))


def card(recipe_dir: Path, head_dir: Path, recipe_cmd: str, extra: str = "") -> str:
    res = json.loads((recipe_dir / "result.json").read_text())
    man = json.loads((recipe_dir / "data_manifest.json").read_text())
    cfg = json.loads((head_dir / "config.json").read_text())
    f = res["figures"]
    fe = f.get("final_eval") or {}
    serve = f.get("serve") or {}
    lines = [
        "# EAGLE-3 draft head for SmolLM2-135M-Instruct (eaglekit's embedded target)",
        "",
        "Made on a 2-core CPU (no GPU) by one command, `" + recipe_cmd + "`. `eaglekit serve --model embedded "
        "--draft builtin` and `eaglekit bench --head builtin` load it. A head from a GPU run "
        "(bench/gpu_recipe.sh) replaces it in this folder when it beats it on the held-out τ below.",
        "",
        "## What it is",
        "",
        f"- EAGLE-3, one decoder layer, hidden {cfg.get('hidden_size')}, aux layers (SGLang ids) "
        f"{(cfg.get('eagle_config') or {}).get('eagle_aux_hidden_state_layer_ids', 'default')}, draft vocabulary "
        f"{cfg.get('draft_vocab_size')} of {cfg.get('vocab_size')} target ids; SGLang format, bfloat16, "
        f"{f.get('builtin_head_mb')} MB (`model.safetensors`).",
        f"- Trained {f.get('train_steps')} steps on {f.get('train_tokens')} tokens (packed rows, prompt tokens "
        "included; the loss reads the answer tokens only)" + (" in a second pass, warm-started (below)." if
                                                               f.get("warm_start") else "."),
    ]
    ws = f.get("warm_start")
    if ws:
        tc, fe1 = ws.get("train_config") or {}, ws.get("first_pass_final_eval") or {}
        tau1 = ", ".join(f"{tuple(r['setting'])} {_fmt(r.get('accept_length'))}" for r in fe1.get("runs", []))
        ft = ws.get("feature_tokens") or {}
        lines += [
            f"- Two passes. The first trained a new head {ws.get('first_pass_steps')} steps "
            f"({ws.get('first_pass_tokens')} tokens) on `feats` ({ft.get('feats')} feature tokens, the first "
            f"sample of clean prompts); measured τ of that head on the same held-out turns: {tau1 or 'not measured'}. "
            f"The second pass (`--init-from run/best`: its weights and draft vocabulary, a fresh schedule) read "
            f"`feats` + `feats2` ({ft.get('feats2')} feature tokens: the answers to the "
            f"{(ws.get('generate2_counts') or {}).get('out')} clean prompts the first sample left out) for "
            f"{tc.get('epochs')} epochs, peak lr {tc.get('lr')} (cosine to {tc.get('min_lr_ratio')}), "
            f"{tc.get('warmup_steps')} warm-up steps, seq-len {tc.get('seq_len')}, batch {tc.get('batch_size')}, "
            f"TTT steps {tc.get('ttt_steps')}, seed {tc.get('seed')}.",
        ]
    lines += [
        "",
        "## Data",
        "",
        "Answers are the target's own greedy answers (token ids kept exactly). Prompts:",
        "",
        "| set | role | rows in source | used | source | licence | sha256 of the source file |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in man["sets"]:
        lines.append(f"| {s['name']} | {s['role']} | {s.get('rows')} | {s.get('used')} | {s.get('url', '')} | "
                     f"{s.get('licence', '')} | `{s.get('sha256', '')[:16]}…` |")
    for m in man.get("missing", []):
        lines.append(f"| {m['name']} | {m['role']} (not given: skipped) | – | 0 | {m['url']} | | |")
    if any(s["name"].startswith("gpteacher") and s["role"] == "train" for s in man["sets"]):
        lines += ["", "**Terms.** GPTeacher's prompts were written by GPT-4, whose terms forbid using its output to "
                  "develop competing models. Only the prompts were used (the target wrote every response), and the "
                  "recipe accepts the two sets by name (`--allow-source`), which the clean manifest records; a team "
                  "that will not accept that drops the two sets from `bench/recipe_data.py` and re-runs the recipe."]
    c = (man.get("clean") or {}).get("counts") or {}
    lines += ["", f"Clean (dedupe, near-dedupe, decontamination, PII): {c.get('prompts_in')} prompts in, "
              f"{c.get('prompts_out')} out, dropped {json.dumps(c.get('dropped'))}. Generated from "
              f"{man.get('generate_prompts', 'all')} of them (a seeded sample): "
              f"{json.dumps(f.get('generate_counts'))}" + (
                  f"; the second pass from the other {man['generate_prompts2']}: "
                  f"{json.dumps((ws or {}).get('generate2_counts'))}." if man.get("generate_prompts2") else "."),
              "Decontamination is by containment of the evaluation prompts' character n-grams (threshold 0.8), "
              "not by meaning: paraphrases may remain.", "",
              "## Recipe and time per stage (this 2-core box, shared with other jobs)", "",
              "| stage | seconds |", "|---|---|"]
    for k, v in (f.get("stage_s") or {}).items():
        lines.append(f"| {k} | {v} |")
    lines += [f"| total | {round(sum((f.get('stage_s') or {}).values()), 1)} ({f.get('total_minutes')} min) |", "",
              "## Figures", "",
              "| figure | value | how |", "|---|---|---|",
              f"| simulated τ (trainer, held-out rows, teacher-forced) | {_fmt(f.get('sim_tau'))} | `summary.json` |"]
    for r in fe.get("runs", []):
        lines.append(f"| measured τ {tuple(r['setting'])} | {_fmt(r.get('accept_length'))} | embedded engine, greedy, "
                     f"{fe.get('num_prompts')} MT-bench first turns (held out), ≤ {fe.get('max_tokens')} tokens |")
    for key, what in (("serve", "bench/serve.py's default prompts (outside the training data)"),
                      ("serve_mt_bench", "held-out MT-bench first turns")):
        sv = f.get(key) or {}
        for k, v in sv.items():
            if isinstance(v, dict) and "speedup" in v:
                lines.append(f"| bench/serve.py {k}: speed-up vs plain greedy | {v['speedup']}x (τ "
                             f"{v['accept_length']}, identical {v['identical_to_greedy']}) | {sv.get('prompts')} "
                             f"{what}, ≤ {sv.get('max_tokens')} tokens, {sv.get('threads')} thread(s), greedy "
                             f"{sv.get('baseline_decode_tok_s')} tok/s, 1-min load before/after "
                             f"{sv.get('loadavg_1min_before_after')} |")
    if not serve:
        lines.append("| speed-up | not measured in this run | |")
    if extra:
        lines += ["", extra.rstrip()]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("recipe_dir")
    ap.add_argument("head_dir")
    ap.add_argument("--recipe", default="bash bench/cpu_recipe.sh")
    ap.add_argument("--extra", default=None, help="markdown appended (e.g. figures measured after the run)")
    a = ap.parse_args()
    extra = Path(a.extra).read_text() if a.extra else ""
    (Path(a.head_dir) / "MODEL_CARD.md").write_text(card(Path(a.recipe_dir), Path(a.head_dir), a.recipe, extra))


if __name__ == "__main__":
    main()
