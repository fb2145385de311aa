"""Benchmark the featurize and generate stages on the embedded SmolLM2 target.

(a) featurize tokens/s (forward + capture + encode + shard write) vs a bare forward pass with
    output_hidden_states over the same batches, same run, alternating to share the machine's noise;
    target >= 0.85 for the default config (bf16, pre-norm teacher).
(b) stored bytes/token of each codec/teacher vs SpecForge's layout for the same tensors (torch.save
    per sample: int64 ids + int64 mask, bf16 [S,3H] aux, bf16 [S,H] final hidden); target <= 0.40 for
    fp8 + top-k.
(c) batched hf generation tokens/s vs batch-1 generation (reported).

Usage: python bench/featurize.py [--quick]   (ends with one JSON line)
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


def bare_forward(model, extractor: FeatureExtractor, rows) -> int:
    tokens = 0
    for batch in extractor.batches(rows):
        width = max(len(r["input_ids"]) for r in batch)
        ids = torch.full((len(batch), width), extractor.pad_id, dtype=torch.long)
        attn = torch.zeros((len(batch), width), dtype=torch.long)
        for i, r in enumerate(batch):
            ids[i, : len(r["input_ids"])] = torch.tensor(r["input_ids"])
            attn[i, : len(r["input_ids"])] = 1
        with torch.no_grad():
            model(input_ids=ids, attention_mask=attn, output_hidden_states=True, use_cache=False)
        tokens += sum(len(r["input_ids"]) for r in batch)
    return tokens


def featurize(extractor: FeatureExtractor, rows, meta, out: Path) -> tuple[int, list[dict]]:
    writer = ShardWriter(out, meta)
    for row in extractor(rows):
        writer.add(row)
    shards = writer.close()
    return sum(len(r["input_ids"]) for r in rows), shards


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
    args = ap.parse_args()
    n_rows, length, repeats = (4, 64, 2) if args.quick else (32, 512, 5)
    gen_prompts, gen_tokens, gen_batch = (4, 6, 4) if args.quick else (16, 48, 8)
    tmp = Path(tempfile.mkdtemp(prefix="bench-featurize-"))
    try:
        target = load_target("embedded")
        rows = make_rows(target, n_rows, length)
        configs = {"bf16_prenorm": ("bf16", "final_hidden_prenorm"), "fp8_prenorm": ("fp8", "final_hidden_prenorm"),
                   "bf16_topk32": ("bf16", "topk_logprobs"), "fp8_topk32": ("fp8", "topk_logprobs")}
        extractors, metas = {}, {}
        for name, (codec, teacher) in configs.items():
            cfg = FeaturizeConfig(input="", output="", target="embedded", hidden_codec=codec, teacher=teacher, topk=32)
            metas[name] = feature_meta(target, cfg)
            extractors[name] = FeatureExtractor(target, metas[name]["aux_layer_ids"], teacher, 32, cfg.batch_tokens)
        base = extractors["bf16_prenorm"]
        bare_forward(target.model, base, rows[:2])  # warm-up

        # (a) alternate bare forward / featurize, same batches
        t_bare, t_feat, t_feat_topk, sized = [], [], [], {}
        for rep in range(repeats):
            t0 = time.perf_counter(); n = bare_forward(target.model, base, rows); t_bare.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            sized["bf16_prenorm"] = featurize(base, rows, metas["bf16_prenorm"], tmp / f"a{rep}")[1]
            t_feat.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            sized["fp8_topk32"] = featurize(extractors["fp8_topk32"], rows, metas["fp8_topk32"], tmp / f"b{rep}")[1]
            t_feat_topk.append(time.perf_counter() - t0)
        bare_tps = n / statistics.median(t_bare)
        feat_tps = n / statistics.median(t_feat)
        feat_topk_tps = n / statistics.median(t_feat_topk)

        # (b) bytes per token
        tokens = sum(len(r["input_ids"]) for r in rows)
        sf = specforge_bytes(base, rows, tmp / "specforge") / tokens
        bpt = {}
        for name in configs:
            shards = sized.get(name) or featurize(extractors[name], rows, metas[name], tmp / f"size-{name}")[1]
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
            "featurize_vs_bare_forward": {"value": round(feat_tps / bare_tps, 3), "op": ">=", "goal": 0.85},
            "fp8_topk_bytes_vs_specforge": {"value": round(bpt["fp8_topk32"] / sf, 3), "op": "<=", "goal": 0.40},
        },
        "figures": {
            "rows": n_rows, "tokens": tokens, "repeats": repeats, "threads": torch.get_num_threads(),
            "bare_forward_tok_s": round(bare_tps, 1), "featurize_bf16_prenorm_tok_s": round(feat_tps, 1),
            "featurize_fp8_topk32_tok_s": round(feat_topk_tps, 1),
            "featurize_fp8_topk32_vs_bare_forward": round(feat_topk_tps / bare_tps, 3),
            "specforge_bytes_per_token": round(sf, 1),
            **{f"{k}_bytes_per_token": round(v, 1) for k, v in bpt.items()},
            **{f"{k}_vs_specforge": round(v / sf, 3) for k, v in bpt.items()},
            "generate_batch1_tok_s": round(gen_b1, 2), f"generate_batch{gen_batch}_tok_s": round(gen_bn, 2),
            "generate_batched_speedup": round(gen_bn / gen_b1, 2),
        },
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
