"""Trainer benchmark: does the data path starve the step, and what does a fixed budget buy?

1. Makes feature shards from the embedded SmolLM2 target: greedy answers to the quickstart prompts,
   one target forward per conversation (aux states at the default layers, post-norm final hidden as
   teacher), written with eaglekit.shards.write_feature_shards.
2. Trains with `eaglekit.train.train` (streamed shards, packing, prefetch thread) and measures tokens/s
   per step after warm-up; runs a bare loop of the same module (teacher, masks, TTT forward, backward,
   clip, AdamW with fc's standardized-input step) on batches already in memory with the same shapes, before
   and after, in the same process.
   Target: trainer / bare >= 0.85.
3. Reports the held-out simulated acceptance length of that fixed-budget run.

    python bench/train.py [--quick]      # ends with one JSON line
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402

from eaglekit import __version__  # noqa: E402
from eaglekit.models import default_aux_layers, load_target  # noqa: E402

PROMPTS = Path(__file__).resolve().parents[1] / "eaglekit" / "data" / "prompts.jsonl"


def prompts(n: int) -> list[str]:
    out = []
    for line in PROMPTS.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # the quickstart set plants a malformed line on purpose
        users = [m["content"] for m in rec.get("messages", []) if m.get("role") == "user" and m.get("content")]
        if users:
            out.append(users[0])
    return (out * (n // max(1, len(out)) + 1))[:n]


@torch.no_grad()
def make_shards(target, out: Path, n_prompts: int, new_tokens: int, batch: int = 16) -> dict:
    from eaglekit.shards import write_feature_shards
    tok, model = target.tokenizer, target.model
    tok.padding_side = "left"
    eos = tok.convert_tokens_to_ids("<|im_end|>")
    c = target.config
    aux = default_aux_layers(c.num_hidden_layers).hf
    meta = {"eaglekit_version": __version__, **target.metadata(), "num_hidden_layers": c.num_hidden_layers,
            "hidden_size": c.hidden_size, "vocab_size": c.vocab_size, "aux_layer_ids": list(aux),
            "aux_layer_convention": "hf", "hidden_codec": "bf16", "teacher_kind": "final_hidden_postnorm",
            "teacher_topk": 0}
    texts = [tok.apply_chat_template([{"role": "user", "content": p}], add_generation_prompt=True, tokenize=False)
             for p in prompts(n_prompts)]

    def rows():
        for s in range(0, len(texts), batch):
            enc = tok(texts[s:s + batch], return_tensors="pt", padding=True, add_special_tokens=False)
            gen = model.generate(**enc, max_new_tokens=new_tokens, do_sample=False, pad_token_id=tok.pad_token_id)
            for j in range(gen.shape[0]):
                prompt = enc["input_ids"][j][enc["attention_mask"][j].bool()].tolist()
                answer = gen[j, enc["input_ids"].shape[1]:].tolist()
                if eos in answer:
                    answer = answer[: answer.index(eos) + 1]
                ids = prompt + answer
                hs = model(torch.tensor([ids]), output_hidden_states=True).hidden_states
                yield {"id": f"bench-{s + j}", "source": "quickstart", "input_ids": ids,
                       "loss_mask": [0] * len(prompt) + [1] * len(answer),
                       "aux_low": hs[aux[0]][0], "aux_mid": hs[aux[1]][0], "aux_high": hs[aux[2]][0],
                       "teacher_hidden": hs[-1][0]}

    return write_feature_shards(out, meta, rows(), max_shard_tokens=4096)


class BareLoop:
    """The same module stepped on batches already in memory (same packing, same shapes): teacher,
    masks, TTT forward, backward, clip, AdamW. Nothing else."""

    def __init__(self, cfg, ckpt_dir: Path, n_batches: int):
        from eaglekit.shards import open_features
        from eaglekit.train import Cursor, TTTModel, Teacher, global_batches, iter_docs, load_draft, pack
        target = load_target(cfg.target)
        self.draft, _ = load_draft(ckpt_dir, target.model.get_input_embeddings())
        ds = open_features(cfg.data)
        gb = global_batches(pack(iter_docs(ds, Cursor(), lambda rid: True), cfg.seq_len, ds.meta),
                            cfg.batch_size, 1, 0, None)
        self.batches = [next(gb)[0] for _ in range(n_batches)]
        self.model = TTTModel(self.draft, cfg.ttt_steps, cfg.step_weight)
        self.teacher = Teacher(ds.meta["teacher_kind"], self.draft, target.model.model.norm, target.model.lm_head)
        self.draft.lm_head.weight.requires_grad_(cfg.lm_head == "trained")
        self.params = [p for p in self.draft.parameters() if p.requires_grad]
        from eaglekit.train.loop import make_optimizer
        self.opt = make_optimizer(self.params, cfg)
        from eaglekit.train.precondition import FcPreconditioner, aux_rms
        self.precond = FcPreconditioner(self.draft.fc, aux_rms(ds, lambda rid: True)) if cfg.standardize_aux else None
        self.cfg, self.i = cfg, 0

    def run(self, steps: int) -> tuple[int, float]:
        from eaglekit.train.objective import targets
        tokens, t = 0, 0.0
        for _ in range(steps):
            b = self.batches[self.i % len(self.batches)]
            self.i += 1
            self.teacher.forget()  # every trainer round is a fresh process on rows it has not seen: a cold cache
            t0 = time.perf_counter()
            sig, sup, lmask, tgt_k = targets(self.teacher, b, self.cfg.ttt_steps)
            loss, _ = self.model(b, sig, sup, lmask, tgt_k, lmask.sum(dim=(1, 2)).float())
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            if self.precond is not None:
                self.precond.scale_grad()
            torch.nn.utils.clip_grad_norm_(self.params, self.cfg.grad_clip)
            if self.precond is not None:
                self.precond.step(self.opt)
            else:
                self.opt.step()
            t += time.perf_counter() - t0
            tokens += int((b["seg"] >= 0).sum())
        return tokens, t


def trainer_window(run_dir: Path, first_step: int) -> tuple[int, float]:
    """Tokens and seconds of the trainer's steps after `first_step` (per-step JSONL records)."""
    recs = [json.loads(x) for x in open(run_dir / "metrics.jsonl")]
    recs = [r for r in recs if not r.get("eval") and r["step"] > first_step]
    tokens = [b["tokens"] - a["tokens"] for a, b in zip(recs, recs[1:])]  # the first step of a round warms up
    return sum(tokens), sum(n / r["tok_s"] for n, r in zip(tokens, recs[1:]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small data and budget (< 1 minute)")
    ap.add_argument("--work", default=None, help="work directory (default: ~/.cache/eaglekit/bench/train-*; "
                                                  "the generated shards are reused from there)")
    args = ap.parse_args()
    q = args.quick
    n_prompts, new_tokens = (16, 48) if q else (64, 160)
    seq_len, ttt, steps, per_round = (256, 3, 12, 4) if q else (512, 7, 40, 10)
    default = Path.home() / ".cache" / "eaglekit" / "bench" / f"train-{n_prompts}x{new_tokens}"
    work = Path(args.work) if args.work else default
    work.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    target = load_target("embedded")
    feats = work / "feats"
    try:  # generated once per setting: greedy generation on this CPU takes minutes
        from eaglekit.shards import open_features
        manifest = open_features(feats).manifest
        assert manifest["meta"]["tokenizer_hash"] == target.metadata()["tokenizer_hash"]
        assert manifest["num_rows"] == n_prompts
    except Exception:  # noqa: BLE001 - (re)build
        shutil.rmtree(feats, ignore_errors=True)
        manifest = make_shards(target, feats, n_prompts, new_tokens)
    data_s = time.perf_counter() - t0
    print(f"shards: {manifest['num_rows']} rows, {manifest['num_tokens']} tokens, {len(manifest['shards'])} "
          f"shards in {data_s:.1f}s", file=sys.stderr)

    from eaglekit.train import TrainConfig, train
    cfg = TrainConfig(data=str(work / "feats"), target="embedded", out=str(work / "run"), seq_len=seq_len,
                      batch_size=1, ttt_steps=ttt, max_steps=steps, lr=3e-4, warmup_ratio=0.05,
                      heldout_fraction=0.15, log_every=1, eval_every=10 ** 9, save_every=per_round,
                      progress=False, vocab_coverage=0.99)
    shutil.rmtree(work / "run", ignore_errors=True)
    # Rounds alternate the trainer (stopped and resumed from its checkpoint) and the bare loop, so load
    # from other processes on this shared box hits both alike.
    bare, tt, tb, ratios = None, [0, 0.0], [0, 0.0], []
    for r in range(steps // per_round):
        cfg.resume, cfg.stop_after = r > 0, (r + 1) * per_round
        summary = train(cfg)
        n, t = trainer_window(work / "run", r * per_round)
        tt[0], tt[1] = tt[0] + n, tt[1] + t
        if bare is None:
            bare = BareLoop(cfg, work / "run" / "checkpoints" / f"step-{per_round:08d}", per_round)
            bare.run(3)  # warm-up (first large allocations)
        m, u = bare.run(per_round - 1)
        tb[0], tb[1] = tb[0] + m, tb[1] + u
        ratios.append((n / t) / (m / u))
    trainer_tps, bare_tps = tt[0] / tt[1], tb[0] / tb[1]
    ratio = statistics.median(ratios)  # per-round ratios: robust to load that comes and goes
    ev = summary["best_eval"] or {}
    out = {"bench": "train",
           "targets": {"trainer_vs_bare_tok_s": {"value": round(ratio, 3), "op": ">=", "goal": 0.85}},
           "figures": {"trainer_tok_s": round(trainer_tps, 1), "bare_tok_s": round(bare_tps, 1),
                       "round_ratios": [round(x, 3) for x in ratios],
                       "heldout_sim_accept_len": round(ev.get("sim_accept_len", float("nan")), 3),
                       "heldout_sim_tau": round(ev.get("sim_tau", float("nan")), 3),
                       "heldout_acc_k": [round(a, 3) for a in ev.get("acc", [])],
                       "heldout_tokens": ev.get("eval_tokens"), "train_steps": summary["step"],
                       "ttt_steps": ttt, "seq_len": seq_len, "train_tokens": summary["tokens"],
                       "draft_vocab": summary["vocab"]["draft_vocab_size"],
                       "vocab_coverage": summary["vocab"]["coverage"], "shard_rows": manifest["num_rows"],
                       "shard_tokens": manifest["num_tokens"], "data_build_s": round(data_s, 1),
                       "torch_threads": torch.get_num_threads(), "quick": q}}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
