"""A small *trained* target for GPU checks of the embedded engine: a 24-layer Llama (≈20M parameters, a
4,096-token BPE vocabulary, ChatML) distilled from SmolLM2's own answers in generate-stage output.

Why: SmolLM2 (98 MB) cannot travel to the GPU machines lent for checks (64 MiB carry limit), and a
random-weight `tiny` target is useless for an acceptance figure: its greedy output is one token repeated
("TheTheThe..."), which any head predicts perfectly. This model writes varied, context-dependent text, so
a head trained on it has an honest, non-trivial acceptance length.

  python bench/tiny_target.py corpus --gen DIR [--gen DIR ...] --out corpus.jsonl        # here (CPU)
  python bench/tiny_target.py train --corpus corpus.jsonl --out DIR [--device cuda]      # ~2-3 min on a GPU

The output folder is a normal HF model folder (bf16 safetensors shards of <= 15 MB, tokenizer, ChatML
template, eaglekit.json), so every stage takes it as `--target DIR`. Ends with one JSON line.
"""
from __future__ import annotations

import argparse
import glob
import json
import math
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def build_corpus(gen_dirs: list[str], out: str) -> int:
    """User prompt + SmolLM2's answer (decoded from its token ids) per conversation, one JSON per line."""
    import pyarrow.parquet as pq

    from eaglekit.models import load_target
    tok = load_target("embedded").tokenizer
    n = 0
    with open(out, "w", encoding="utf-8") as f:
        for d in gen_dirs:
            paths = sorted(glob.glob(os.path.join(d, "conversations-*.parquet")))
            if not paths:
                sys.exit(f"{d}: no conversations-*.parquet; give a folder written by `eaglekit beam run generate`")
            for path in paths:
                for row in pq.read_table(path, columns=["messages", "turns"]).to_pylist():
                    user = next((m["content"] for m in row["messages"] if m["role"] == "user"), None)
                    if not user or not row["turns"]:
                        continue
                    answer = tok.decode(row["turns"][0]["response_ids"], skip_special_tokens=True).strip()
                    if answer:
                        f.write(json.dumps({"user": user, "assistant": answer}) + "\n")
                        n += 1
    return n


def train(corpus: str, out: str, device: str, epochs: float, seq_len: int, batch: int, lr: float,
          vocab: int, layers: int, hidden: int, seed: int) -> dict:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    if not Path(corpus).is_file():
        sys.exit(f"{corpus}: no such file; write one with `python bench/tiny_target.py corpus`")
    rows = [json.loads(line) for line in open(corpus, encoding="utf-8") if line.strip()]
    if len(rows) < 2:
        sys.exit(f"{corpus}: {len(rows)} conversation(s); the corpus needs at least 2 (one is held out), "
                 f"written by `python bench/tiny_target.py corpus`")
    random.Random(seed).shuffle(rows)
    n_val = max(len(rows) // 50, 1)
    from eaglekit.models import chatml_bpe_tokenizer
    tok = chatml_bpe_tokenizer([r["user"] + "\n" + r["assistant"] for r in rows], vocab)

    def encode(rs):
        ids = []
        for r in rs:  # the whole rendered conversation: the model must learn the template and <|im_end|>
            ids += tok.apply_chat_template([{"role": "user", "content": r["user"]},
                                            {"role": "assistant", "content": r["assistant"]}], tokenize=True,
                                           return_dict=False)
        return torch.tensor(ids, dtype=torch.long)

    train_ids, val_ids = encode(rows[n_val:]), encode(rows[:n_val])
    heads = max(hidden // 64, 2)  # head dim 64 (SmolLM2's), 2 KV heads (GQA, as in SmolLM2)
    cfg = LlamaConfig(vocab_size=len(tok), hidden_size=hidden, intermediate_size=3 * hidden,
                      num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=2,
                      max_position_embeddings=2048, rms_norm_eps=1e-5, tie_word_embeddings=True,
                      bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    model = LlamaForCausalLM(cfg).to(device)
    params = sum(p.numel() for p in model.parameters())
    steps = max(int(epochs * len(train_ids) / (seq_len * batch)), 1)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1, betas=(0.9, 0.95))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 100) * 0.5 * (1 + math.cos(math.pi * min(s / steps, 1.0))))
    amp = torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=device.startswith("cuda"))

    def windows(ids, g):
        n = min(seq_len, len(ids) - 2)  # a small corpus's validation split can be shorter than one window
        starts = torch.randint(0, len(ids) - n - 1, (batch,), generator=g)
        x = torch.stack([ids[s:s + n + 1] for s in starts]).to(device)
        return x[:, :-1], x[:, 1:]

    def val_loss():
        model.eval()
        g, losses = torch.Generator().manual_seed(0), []
        with torch.no_grad(), amp:
            for _ in range(8):
                x, y = windows(val_ids, g)
                losses.append(torch.nn.functional.cross_entropy(model(x).logits.float().flatten(0, 1),
                                                                y.flatten()).item())
        model.train()
        return sum(losses) / len(losses)

    g, t0 = torch.Generator().manual_seed(seed), time.time()
    model.train()
    for step in range(steps):
        x, y = windows(train_ids, g)
        with amp:
            loss = torch.nn.functional.cross_entropy(model(x).logits.float().flatten(0, 1), y.flatten())
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step(), sched.step(), opt.zero_grad(set_to_none=True)
        if step % 200 == 0 or step == steps - 1:
            print(f"step {step}/{steps} loss {loss.item():.3f} ({time.time() - t0:.0f}s)", file=sys.stderr, flush=True)
    val = val_loss()
    model.eval()
    sample_ids = tok.apply_chat_template([{"role": "user", "content": "How do I keep my houseplants alive?"}],
                                         add_generation_prompt=True, return_tensors="pt", return_dict=False)
    with torch.no_grad():
        gen = model.generate(sample_ids.to(device), max_new_tokens=60, do_sample=False,
                             pad_token_id=tok.pad_token_id, eos_token_id=tok.eos_token_id)
    sample = tok.decode(gen[0, sample_ids.shape[1]:], skip_special_tokens=True)
    out_dir = Path(out)
    model.to(torch.bfloat16).save_pretrained(out_dir, max_shard_size="15MB")
    tok.save_pretrained(out_dir)
    (out_dir / "eaglekit.json").write_text(json.dumps({
        "model_id": "eaglekit/tiny-distilled-smollm2", "revision": f"seed-{seed}",
        "recipe": {"corpus_rows": len(rows), "train_tokens": len(train_ids), "epochs": epochs, "steps": steps,
                   "layers": layers, "hidden": hidden, "vocab": len(tok)}}))
    return {"params_m": round(params / 1e6, 2), "train_tokens": len(train_ids), "steps": steps,
            "val_loss": round(val, 3), "train_s": round(time.time() - t0, 1), "sample": sample}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("corpus")
    c.add_argument("--gen", action="append", required=True, help="a generate-stage output folder")
    c.add_argument("--out", required=True)
    t = sub.add_parser("train")
    t.add_argument("--corpus", required=True)
    t.add_argument("--out", required=True)
    t.add_argument("--device", default="cuda")
    t.add_argument("--epochs", type=float, default=6.0)
    t.add_argument("--seq-len", type=int, default=512)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--lr", type=float, default=2e-3)
    t.add_argument("--vocab", type=int, default=4096)
    t.add_argument("--layers", type=int, default=24)
    t.add_argument("--hidden", type=int, default=256)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--quick", action="store_true", help="a few steps, to check the script runs")
    args = ap.parse_args()
    if args.cmd == "corpus":
        n = build_corpus(args.gen, args.out)
        print(json.dumps({"bench": "tiny_target_corpus", "targets": {}, "figures": {"rows": n, "out": args.out}}))
        return
    fig = train(args.corpus, args.out, args.device, 0.02 if args.quick else args.epochs, args.seq_len,
                args.batch, args.lr, args.vocab, args.layers, args.hidden, args.seed)
    print(json.dumps({"bench": "tiny_target", "targets": {}, "figures": fig}))


if __name__ == "__main__":
    main()
