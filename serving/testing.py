"""Heads for tests and demos of the embedded engine, before (or without) a head trained by `eaglekit train`:
a randomly initialised head, and a head self-distilled in seconds on the target's own greedy outputs, so
tests exercise accepted paths (acceptance > 1) and not only rejections. Neither is a real trained head.
"""
from __future__ import annotations

import torch


def random_head(target, draft_vocab_size: int | None = None, seed: int = 0):
    from eaglekit.draft import DraftConfig, Eagle3Draft
    cfg = DraftConfig.from_target(target.model.config, draft_vocab_size or target.model.config.vocab_size)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        head = Eagle3Draft(cfg, target.model.get_input_embeddings())
    p = next(target.model.parameters())
    return head.to(device=p.device, dtype=p.dtype).eval()


@torch.no_grad()
def _greedy_sequences(target, prompts: list[list[int]], new_tokens: int) -> list[list[int]]:
    from serving.engine import EagleEngine, SamplingParams
    eng = EagleEngine(target, None)
    return [p + eng.generate(p, SamplingParams(max_new_tokens=new_tokens, ignore_eos=True)).output_ids
            for p in prompts]


def self_distilled_head(target, prompts: list[list[int]], new_tokens: int = 48, steps: int = 150,
                        ttt: int = 2, lr: float = 3e-3, seed: int = 0):
    """Fit a head for a few seconds on the target's greedy continuations of `prompts` (test fixture only)."""
    from eaglekit.masks import bias_from_mask
    head = random_head(target, seed=seed).train()
    seqs = _greedy_sequences(target, prompts, new_tokens)
    aux_ids = head.cfg.aux_layer_ids_hf
    data = []
    with torch.no_grad():
        for s in seqs:
            ids = torch.tensor([s])
            out = target.model(ids, output_hidden_states=True)
            aux = torch.cat([out.hidden_states[i] for i in aux_ids], -1)
            data.append((ids, aux, out.logits.argmax(-1)))
    opt = torch.optim.Adam(head.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        ids, aux, labels = data[int(torch.randint(len(data), (1,), generator=g))]
        S = ids.shape[1] - 1
        hidden = head.fuse(aux[:, :S])
        kv, loss = None, 0.0
        for k in range(ttt):
            n = S - k
            # TTT attention: causal over step-0 keys, then each later step's same-slot key (a diagonal)
            allowed = torch.zeros(n, k * S + n, dtype=torch.bool)
            allowed[:, :S] = torch.ones(S, S, dtype=torch.bool).tril()[:n]
            for j in range(1, k + 1):
                allowed[torch.arange(n), j * S + torch.arange(n)] = True
            pos = torch.arange(n)[None] + k
            tok = ids[:, 1 + k: 1 + k + n]
            out_h, logits, kv_new = head(hidden[:, :n], tok, pos, bias_from_mask(allowed)[None, None], kv)
            # pad this step's keys back to S columns so later steps' diagonals line up
            if n < S:
                pad = S - n
                kv_new = tuple(torch.cat([t, t.new_zeros(*t.shape[:2], pad, t.shape[-1])], 2) for t in kv_new)
            kv = kv_new
            loss = loss + (0.8 ** k) * torch.nn.functional.cross_entropy(logits[0], labels[0, 1 + k: 1 + k + n])
            hidden = out_h[:, :-1] if n > 1 else out_h
        opt.zero_grad()
        loss.backward()
        opt.step()
    return head.eval()
