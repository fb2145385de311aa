"""Where a head's served acceptance is lost: the embedded engine's greedy decoding of held-out prompts, taken apart.

For each prompt the engine decodes greedily with the head (chain by default); then the answer is re-read
teacher-forced: one target forward over prompt + answer gives the aux states at every position, and the head's
step 0 runs over them exactly as the engine's `_draft_extend` does, so each answer position gets the head's
first guess with perfect context. That separates:
  - coverage: answer tokens the draft vocabulary cannot emit (a sure miss),
  - per-token step-0 accuracy (what the trainer's held-out `acc[0]` estimates), by position in the answer,
  - per-cycle accept@1 (what serving sees: the first draft token of each verify step right), from the engine,
    and the teacher-forced guess at the same answer positions: equal up to float noise unless the features or
    positions the engine passes differ from the ones the head is evaluated on (a defect),
  - greedy identity: the engine's answer against plain greedy decoding (--check-greedy).

    python bench/tau_where.py --head DIR --prompts heldout.jsonl [--num-prompts 24] [--max-tokens 128]
Ends with one JSON line.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch  # noqa: E402


def load_items(path: str, n: int) -> list[dict]:
    """Prompts as chat turns, round-robin over categories so n covers them all."""
    by_cat: dict[str, list] = {}
    for line in open(path, encoding="utf-8"):
        if line.strip():
            r = json.loads(line)
            by_cat.setdefault(r.get("category", "default"), []).append(
                r.get("messages") or [{"role": "user", "content": r["prompt"]}])
    items = [{"category": c, "messages": ms[i]} for i in range(max(map(len, by_cat.values())))
             for c, ms in by_cat.items() if i < len(ms)]
    return items[:n] if n else items


@torch.inference_mode()
def teacher_forced(engine, head, seq: list[int], n_prompt: int) -> tuple[list[int], list[bool]]:
    """The head's step-0 guess (target id) for answer tokens 1.. (index r = position - n_prompt), with perfect
    context, and whether each answer token is in the draft vocabulary."""
    ids = torch.tensor([seq], device=engine.device)
    out = engine.model(input_ids=ids, position_ids=torch.arange(len(seq), device=engine.device)[None],
                       output_hidden_states=True, use_cache=False)
    aux = torch.cat([out.hidden_states[i][0] for i in engine.aux_ids], dim=-1)[:-1]   # slots 0..S-2
    hidden = head.fuse(aux[None].to(engine.dtype))
    nxt = ids[:, 1:]                                                                  # slot p pairs with x_{p+1}
    pos = torch.arange(len(seq) - 1, device=engine.device)[None]
    from eaglekit.masks import causal_bias
    _, logits, _ = head(hidden, nxt, pos, causal_bias(len(seq) - 1, 0, engine.dtype, engine.device), None)
    guess = head.draft_to_target(logits[0].argmax(-1)).tolist()                       # guess[p] for x_{p+2}
    in_vocab = head.t2d[torch.tensor(seq)].tolist()
    # answer token r (r >= 1) sits at n_prompt + r and is guessed by slot n_prompt + r - 2
    return [guess[n_prompt + r - 2] for r in range(len(seq) - n_prompt)], [bool(v) for v in in_vocab[n_prompt:]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--head", required=True)
    ap.add_argument("--prompts", required=True)
    ap.add_argument("--target", default="embedded")
    ap.add_argument("--num-prompts", type=int, default=24)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--setting", default="3,1,4", help="STEPS,TOPK,NUM_DRAFT_TOKENS of the engine run")
    ap.add_argument("--check-greedy", action="store_true", help="also decode with plain greedy and compare")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    from eaglekit.heads import resolve_head
    from eaglekit.models import load_target
    from serving.bench import _encode
    from serving.engine import EagleEngine, SamplingParams, load_head
    target = load_target(args.target)
    head = load_head(resolve_head(args.head, args.target), target)
    setting = tuple(int(x) for x in args.setting.split(","))
    engine = EagleEngine(target, head, *setting)
    plain = EagleEngine(target, None) if args.check_greedy else None
    items = load_items(args.prompts, args.num_prompts)
    buckets = [(1, 8), (9, 32), (33, 10**9)]
    tok = {"n": 0, "hit": 0, "in_vocab": 0, "hit_in_vocab": 0}
    by_pos = {f"{a}-{b if b < 10**9 else ''}": [0, 0] for a, b in buckets}
    cyc = {"n": 0, "engine_hit": 0, "tf_hit": 0, "agree": 0}
    identical, accept = [], []
    for it in items:
        p = _encode(target.tokenizer, it)
        g = engine.generate(p, SamplingParams(max_new_tokens=args.max_tokens))
        out = g.output_ids
        if plain is not None:
            identical.append(plain.generate(p, SamplingParams(max_new_tokens=args.max_tokens)).output_ids == out)
        accept.append(g.accept_length)
        guess, in_vocab = teacher_forced(engine, head, p + out, len(p))
        for r in range(1, len(out)):
            hit = guess[r] == out[r]
            tok["n"] += 1
            tok["hit"] += hit
            tok["in_vocab"] += in_vocab[r]
            tok["hit_in_vocab"] += hit and in_vocab[r]
            for (a, b), key in zip(buckets, by_pos):
                if a <= r <= b:
                    by_pos[key][0] += 1
                    by_pos[key][1] += hit
        # verify step c drafts first for answer token r_c = 1 + tokens committed by earlier verify steps
        r = 1
        for a in g.accept_lengths:
            if r >= len(out):
                break
            cyc["n"] += 1
            cyc["engine_hit"] += a >= 2
            cyc["tf_hit"] += guess[r] == out[r]
            cyc["agree"] += (a >= 2) == (guess[r] == out[r])
            r += a
    res = {
        "head": args.head, "prompts": args.prompts, "num_prompts": len(items), "setting": list(setting),
        "tau": round(sum(accept) / len(accept), 4) if accept else None,
        "answer_tokens": tok["n"], "coverage": round(tok["in_vocab"] / max(tok["n"], 1), 4),
        "step0_acc_per_token": round(tok["hit"] / max(tok["n"], 1), 4),
        "step0_acc_in_vocab": round(tok["hit_in_vocab"] / max(tok["in_vocab"], 1), 4),
        "step0_acc_by_answer_position": {k: round(h / n, 4) if n else None for k, (n, h) in by_pos.items()},
        "cycles": cyc["n"], "accept1_per_cycle_engine": round(cyc["engine_hit"] / max(cyc["n"], 1), 4),
        "accept1_per_cycle_teacher_forced": round(cyc["tf_hit"] / max(cyc["n"], 1), 4),
        "engine_vs_teacher_forced_agreement": round(cyc["agree"] / max(cyc["n"], 1), 4),
        "identical_to_greedy": (all(identical) if identical else "not checked"),
    }
    print(json.dumps(res))


if __name__ == "__main__":
    main()
