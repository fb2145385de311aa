"""Benchmark the featurize and generate stages on the embedded SmolLM2 target.

(a) featurize tokens/s (forward + capture + device-side encode + shard write in the background thread,
    as the Beam job runs them) vs a bare forward pass with output_hidden_states over the same batches,
    same run, alternating to share the machine's noise; target >= 0.85 for the default config (bf16,
    pre-norm teacher). The bare forward is the one featurize needs: the target's body (no lm_head) for
    the hidden-state teachers, the whole model (logits) for top-k. Also timed: the synchronous path
    featurize had before (float rows, encoded row by row, written in the model thread), and where the
    time goes: each phase's share of the model thread, the writer thread's seconds (overlapped) over it.
(b) stored bytes/token of each codec/teacher vs SpecForge's layout for the same tensors (torch.save
    per sample: int64 ids + int64 mask, bf16 [S,3H] aux, bf16 [S,H] final hidden); target <= 0.40 for
    fp8 + top-k.
(c) batched hf generation tokens/s vs batch-1 generation (reported).

Usage: python bench/featurize.py [--quick] [--device cuda --dtype bfloat16 --batch-tokens 65536]
(ends with one JSON line)
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from beam_jobs.featurize import FeaturizeConfig, FeatureExtractor, feature_meta  # noqa: E402
from beam_jobs.featurize_phases import MODEL_PHASES, WRITER_PHASES, PhaseClock, shares, summary  # noqa: E402
from beam_jobs.featurize_writer import BackgroundShardWriter  # noqa: E402
from beam_jobs.generate import GenerateConfig, HFBackend  # noqa: E402
from eaglekit.chat import generation_stop_ids, join_turns, next_prompt_ids  # noqa: E402
from eaglekit.models import load_target  # noqa: E402
from eaglekit.shards import ShardWriter  # noqa: E402

QUESTIONS = ["What is the capital of France?", "Write a Python function that sums a list.",
             "Explain speculative decoding in two sentences.", "How many days are in a leap year?",
             "Translate 'good morning' into German.", "Summarise the plot of Hamlet.",
             "Why is the sky blue?", "Give three tips for writing clear code."]


def make_rows(target, n: int, length: int) -> list[dict]:
    """Rendered prompts followed by a pseudo-response of ids (timing does not depend on content)."""
    tok = target.tokenizer
    stops = generation_stop_ids(tok, target.model)
    g = torch.Generator().manual_seed(0)
    rows = []
    for i in range(n):
        p = next_prompt_ids(tok, None, [QUESTIONS[i % len(QUESTIONS)]], [], stops)
        resp = torch.randint(200, 20000, (max(1, length - len(p) - 1),), generator=g).tolist() + [stops[0]]
        r = join_turns([p], [resp])
        rows.append({"id": f"b{i}", "source": "bench", "category": None, "input_ids": r.input_ids,
                     "loss_mask": r.loss_mask, "truncated": False})
    return rows


def sync(device) -> None:
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)


def bare_forward(extractor: FeatureExtractor, rows, logits: bool) -> int:
    """The forward featurize needs, nothing else: the body with output_hidden_states, plus lm_head's
    logits when `logits` (top-k teacher)."""
    model = extractor.model if logits else extractor.model.model
    tokens = 0
    for batch in extractor.batches(rows):
        ids, attn = extractor.collate(batch)
        with torch.no_grad():
            model(input_ids=ids, attention_mask=attn, output_hidden_states=True, use_cache=False)
        tokens += sum(len(r["input_ids"]) for r in batch)
    sync(extractor.device)
    return tokens


def featurize(extractor: FeatureExtractor, rows, meta, out: Path, phases: dict) -> list[dict]:
    """What the Beam job's model and write steps do (minus Beam): storage rows encoded on the device,
    written by the background writer; adds the seconds per phase to `phases`."""
    clock = PhaseClock(extractor.device)
    writer = BackgroundShardWriter(ShardWriter(out, meta), max_pending_tokens=2 * extractor.batch_tokens)
    for row in extractor.encoded(rows, clock):
        row.pop("nonfinite")
        writer.add(row)
    shards = writer.close()
    for name, s in {**clock.settle(), "wait": writer.wait_s}.items():
        phases["model"][name] = phases["model"].get(name, 0.0) + s
    for name, s in writer.seconds.items():
        phases["writer"][name] = phases["writer"].get(name, 0.0) + s
    return shards


def featurize_sync(extractor: FeatureExtractor, rows, meta, out: Path) -> list[dict]:
    """The path featurize had before: float rows, encoded row by row and written in the model thread."""
    writer = ShardWriter(out, meta)
    for row in extractor(rows):
        writer.add(row)
    return writer.close()


def timed(fn, *args) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def phase_figures(name: str, phases: dict, tokens: int) -> dict:
    """Flat figures: each model-thread phase's share, each writer phase's seconds over the model thread's
    (the writer runs beside it, so these need not add up to anything), and the tokens/s the writer thread
    alone sustains: on a GPU, featurize keeps up with the forward only while that is the larger."""
    model_s, writer_s = sum(phases["model"].values()), sum(phases["writer"].values())
    out = {f"{name}_model_share_{k}": round(v, 4) for k, v in shares(
        {k: phases["model"].get(k, 0.0) for k in MODEL_PHASES}).items()}
    out.update({f"{name}_writer_vs_model_{k}": round(phases["writer"].get(k, 0.0) / max(model_s, 1e-9), 4)
                for k in WRITER_PHASES if k != "upload"})
    out[f"{name}_writer_thread_tok_s"] = round(tokens / max(writer_s, 1e-9), 1)
    return out


def specforge_bytes(extractor: FeatureExtractor, rows, out: Path) -> int:
    """SpecForge layout: one torch.save file per sample (int64 ids/mask, bf16 aux [S,3H] + final [S,H])."""
    out.mkdir(parents=True, exist_ok=True)
    total = 0
    for row in extractor(rows):
        path = out / f"{row['id']}.ckpt"
        torch.save({"input_ids": torch.tensor(row["input_ids"], dtype=torch.int64),
                    "loss_mask": torch.tensor(row["loss_mask"], dtype=torch.int64),
                    "hidden_state": torch.cat([row["aux_low"], row["aux_mid"], row["aux_high"]], -1).to(torch.bfloat16),
                    "target": row["teacher_hidden"].to(torch.bfloat16)}, path)
        total += path.stat().st_size
    return total


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--dtype", default="float32", help="model dtype (bfloat16 on a GPU)")
    ap.add_argument("--batch-tokens", type=int, default=FeaturizeConfig.batch_tokens)
    ap.add_argument("-v", "--verbose", action="count", default=0,
                    help="also show the libraries' warnings (Beam's worker WARN lines, transformers' bars)")
    args = ap.parse_args()
    from eaglekit.cli import quiet
    quiet(args.verbose)
    # full: 8k tokens a pass (two forward batches at the default budget, so the writer overlaps one);
    # five passes a repeat (two bare forwards, three featurize paths): ~12 min on one busy 2 GHz core
    n_rows, length, repeats = (4, 64, 2) if args.quick else (16, 512, 3)
    gen_prompts, gen_tokens, gen_batch = (4, 6, 4) if args.quick else (16, 48, 8)
    tmp = Path(tempfile.mkdtemp(prefix="bench-featurize-"))
    try:
        target = load_target("embedded", dtype=getattr(torch, args.dtype), device=args.device)
        rows = make_rows(target, n_rows, length)
        configs = {"bf16_prenorm": ("bf16", "final_hidden_prenorm"), "fp8_prenorm": ("fp8", "final_hidden_prenorm"),
                   "bf16_topk32": ("bf16", "topk_logprobs"), "fp8_topk32": ("fp8", "topk_logprobs")}
        extractors, metas = {}, {}
        for name, (codec, teacher) in configs.items():
            cfg = FeaturizeConfig(input="", output="", target="embedded", hidden_codec=codec, teacher=teacher, topk=32,
                                  batch_tokens=args.batch_tokens)
            metas[name] = feature_meta(target, cfg)
            extractors[name] = FeatureExtractor(target, metas[name]["aux_layer_ids"], teacher, 32, cfg.batch_tokens,
                                                cfg.codec())
        base, topk = extractors["bf16_prenorm"], extractors["fp8_topk32"]
        bare_forward(base, rows[:2], logits=True)  # warm-up
        featurize(base, rows[:2], metas["bf16_prenorm"], tmp / "warm", {"model": {}, "writer": {}})

        # (a) alternate the bare forwards and the featurize paths, same batches
        t = {k: [] for k in ("body", "logits", "feat", "feat_sync", "feat_topk")}
        phases = {k: {"model": {}, "writer": {}} for k in ("bf16_prenorm", "fp8_topk32")}
        sized = {}
        n = sum(len(r["input_ids"]) for r in rows)
        for rep in range(repeats):
            t["body"].append(timed(bare_forward, base, rows, False))
            t0 = time.perf_counter()
            sized["bf16_prenorm"] = featurize(base, rows, metas["bf16_prenorm"], tmp / f"a{rep}", phases["bf16_prenorm"])
            t["feat"].append(time.perf_counter() - t0)
            t["feat_sync"].append(timed(featurize_sync, base, rows, metas["bf16_prenorm"], tmp / f"s{rep}"))
            t["logits"].append(timed(bare_forward, topk, rows, True))
            t0 = time.perf_counter()
            sized["fp8_topk32"] = featurize(topk, rows, metas["fp8_topk32"], tmp / f"b{rep}", phases["fp8_topk32"])
            t["feat_topk"].append(time.perf_counter() - t0)
        tps = {k: n / statistics.median(v) for k, v in t.items()}

        # (b) bytes per token
        tokens = sum(len(r["input_ids"]) for r in rows)
        sf = specforge_bytes(base, rows, tmp / "specforge") / tokens
        bpt = {}
        for name in configs:
            shards = sized.get(name) or featurize(extractors[name], rows, metas[name], tmp / f"size-{name}",
                                                  {"model": {}, "writer": {}})
            bpt[name] = sum(s["bytes"] for s in shards) / tokens

        # (c) batched generation vs batch 1
        tok = target.tokenizer
        stops = generation_stop_ids(tok, target.model)
        prompts = [next_prompt_ids(tok, None, [QUESTIONS[i % len(QUESTIONS)]], [], stops) for i in range(gen_prompts)]

        def gen(batch_size):
            g = HFBackend.__new__(HFBackend)
            g.cfg = GenerateConfig(input="", output="", max_new_tokens=gen_tokens, batch_size=batch_size)
            g.target, g.tokenizer, g.stop_ids, g.pad_id, g._torch = target, tok, stops, int(tok.pad_token_id), torch
            t0 = time.perf_counter()
            produced = 0
            for s in range(0, len(prompts), batch_size):
                produced += sum(len(ids) for ids, _ in g.generate(prompts[s:s + batch_size]))
            return produced / (time.perf_counter() - t0)
        gen_b1 = gen(1)
        gen_bn = gen(gen_batch)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    result = {
        "bench": "featurize",
        "targets": {
            "featurize_vs_bare_forward": {"value": round(tps["feat"] / tps["body"], 3), "op": ">=", "goal": 0.85},
            "fp8_topk_bytes_vs_specforge": {"value": round(bpt["fp8_topk32"] / sf, 3), "op": "<=", "goal": 0.40},
        },
        "figures": {
            "rows": n_rows, "tokens": tokens, "repeats": repeats, "threads": torch.get_num_threads(),
            "device": str(base.device), "dtype": args.dtype, "batch_tokens": args.batch_tokens,
            "bare_forward_tok_s": round(tps["body"], 1), "bare_forward_with_logits_tok_s": round(tps["logits"], 1),
            "featurize_bf16_prenorm_tok_s": round(tps["feat"], 1),
            "featurize_bf16_prenorm_sync_tok_s": round(tps["feat_sync"], 1),
            "featurize_sync_vs_bare_forward": round(tps["feat_sync"] / tps["body"], 3),
            "featurize_fp8_topk32_tok_s": round(tps["feat_topk"], 1),
            "featurize_fp8_topk32_vs_bare_forward_with_logits": round(tps["feat_topk"] / tps["logits"], 3),
            **phase_figures("bf16_prenorm", phases["bf16_prenorm"], n * repeats),
            **phase_figures("fp8_topk32", phases["fp8_topk32"], n * repeats),
            "specforge_bytes_per_token": round(sf, 1),
            **{f"{k}_bytes_per_token": round(v, 1) for k, v in bpt.items()},
            **{f"{k}_vs_specforge": round(v / sf, 3) for k, v in bpt.items()},
            "generate_batch1_tok_s": round(gen_b1, 2), f"generate_batch{gen_batch}_tok_s": round(gen_bn, 2),
            "generate_batched_speedup": round(gen_bn / gen_b1, 2),
        },
    }
    for name, ph in phases.items():  # where the time went, one line per config (stderr: stdout ends with the JSON)
        print(f"{name}: " + summary(n * repeats, sum(ph["model"].values()), ph["model"], ph["writer"]), file=sys.stderr)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
