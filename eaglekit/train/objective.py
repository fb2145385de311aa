"""The training objective: teacher targets, the training-time-test unroll and its loss.

Label alignment. Position t holds the target's aux states after token x_t. Step k of the
unroll at row t feeds token x_{t+k+1} at rotary position t+k and predicts x_{t+k+2}; its teacher is the
target's next-token distribution at position t+k+1; it is supervised iff loss_mask[t+k+2] (same
document). So the first and the last supervised tokens of every answer are predicted, nothing else.
Attention at step k: causal over step-0 keys of the same document plus the same-row key of steps 1..k.

Loss = Σ_k w^k · Σ_t CE_k(t) / Σ_t mask_k(t), the mask sum taken over the whole global batch (all
ranks), so 2 processes compute exactly the gradient one process computes on the same global batch.
Positions whose target argmax is outside the draft vocabulary are left out of the loss but count as
misses in the accuracies (a draft cannot propose them).
"""
from __future__ import annotations

from typing import Iterator

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from eaglekit.draft import Eagle3Draft
from eaglekit.masks import bias_from_mask


def shift(x: Tensor, n: int, fill) -> Tensor:
    """out[:, t] = x[:, t+n] (fill beyond the end)."""
    out = torch.full_like(x, fill)
    if n < x.shape[1]:
        out[:, : x.shape[1] - n] = x[:, n:]
    return out


class Teacher:
    """Turns a batch's teacher signal into draft-vocabulary targets (no grad, frozen target parts)."""

    def __init__(self, kind: str, draft: Eagle3Draft, norm: nn.Module | None, lm_head: nn.Module | None,
                 chunk: int = 1024):
        self.kind, self.norm, self.lm_head, self.chunk = kind, norm, lm_head, chunk
        ids = draft.draft_ids()
        self.draft_ids = ids
        self.to_draft = torch.full((draft.cfg.vocab_size,), -1, dtype=torch.long, device=ids.device)
        self.to_draft[ids] = torch.arange(ids.numel(), device=ids.device)

    @torch.no_grad()
    def __call__(self, batch: dict) -> tuple[dict, Tensor]:
        """({"probs"} dense [B,L,Dv] or {"idx","p"} sparse [B,L,k]; target argmax as draft id [B,L], -1 if OOV)."""
        if self.kind == "topk_logprobs":
            tids, lp = batch["topk_ids"], batch["topk_lp"]
            idx = self.to_draft[tids]
            p = lp.float().exp() * (idx >= 0)
            p = p / p.sum(-1, keepdim=True).clamp_min(1e-20)  # renormalise over ids the draft can emit
            return {"idx": idx.clamp_min(0), "p": p}, self.to_draft[tids[..., 0]]
        h = batch["teacher"]
        B, L, _ = h.shape
        flat = h.reshape(B * L, -1)
        probs, arg = [], []
        for s in range(0, B * L, self.chunk):
            x = flat[s:s + self.chunk]
            if self.kind == "final_hidden_prenorm":
                x = self.norm(x)
            logits = self.lm_head(x.to(self.lm_head.weight.dtype)).float()
            arg.append(logits.argmax(-1))
            probs.append(torch.softmax(logits[:, self.draft_ids], -1))
        probs = torch.cat(probs).view(B, L, -1)
        return {"probs": probs}, self.to_draft[torch.cat(arg)].view(B, L)


def step_masks(batch: dict, tgt: Tensor, K: int) -> tuple[Tensor, Tensor, Tensor]:
    """Per step k: supervised positions sup [K,B,L], loss positions (sup and target argmax in the draft
    vocabulary) lmask [K,B,L], and the target draft id tgt_k [K,B,L]."""
    mask, seg = batch["mask"], batch["seg"]
    sups, tgts = [], []
    for k in range(K):
        same = (shift(seg, k + 2, -2) == seg) & (seg >= 0)
        sups.append(shift(mask, k + 2, False) & same)
        tgts.append(shift(tgt, k + 1, -1))
    sup, tgt_k = torch.stack(sups), torch.stack(tgts)
    return sup, sup & (tgt_k >= 0), tgt_k


def ttt_bias(seg: Tensor, k: int, dtype=torch.float32) -> Tensor:
    """[B,1,L,(k+1)L] additive bias for step k: causal same-document over step-0 keys, then the
    same-row key of each step 1..k. Padding rows see themselves (keeps softmax finite)."""
    L = seg.shape[1]
    eye = torch.eye(L, dtype=torch.bool, device=seg.device)
    base = (seg[:, :, None] == seg[:, None, :]) & torch.ones(L, L, dtype=torch.bool, device=seg.device).tril()
    allowed = torch.cat([base | eye] + [eye.expand_as(base)] * k, dim=2)
    return bias_from_mask(allowed, dtype)[:, None]


class TTTModel(nn.Module):
    """The unrolled training-time test around the draft head: one forward = the whole loss (so DDP
    sees one forward per backward)."""

    def __init__(self, draft: Eagle3Draft, steps: int, step_weight: float):
        super().__init__()
        self.draft, self.steps, self.step_weight = draft, steps, step_weight

    def unroll(self, batch: dict) -> Iterator[Tensor]:
        """Draft logits [B,L,Dv] of each step k = 0..K-1 (see the module docstring for alignment)."""
        d = self.draft
        hidden = d.fuse(batch["aux"].to(d.fc.weight.dtype))
        past = None
        for k in range(self.steps):
            ids_k = shift(batch["ids"], k + 1, 0)
            bias = ttt_bias(batch["seg"], k, dtype=hidden.dtype)
            hidden, logits, past = d(hidden, ids_k, batch["pos"] + k, bias, past)
            yield logits

    def forward(self, batch: dict, target: dict, sup: Tensor, lmask: Tensor, tgt: Tensor, denom: Tensor,
                scale: float = 1.0):
        """Returns (loss, stats [K,5]: loss_sum, supervised, correct, chain_prev, chain)."""
        loss = batch["aux"].new_zeros((), dtype=torch.float32)
        chain, stats = None, []
        for k, logits in enumerate(self.unroll(batch)):
            logq = F.log_softmax(logits.float(), dim=-1)
            if "probs" in target:
                ce = -(shift(target["probs"], k + 1, 0.0) * logq).sum(-1)
            else:
                idx, p = shift(target["idx"], k + 1, 0), shift(target["p"], k + 1, 0.0)
                ce = -(p * logq.gather(-1, idx)).sum(-1)
            lm = lmask[k].float()
            loss_sum = (ce * lm).sum()
            # The 0-weighted term keeps every parameter in the graph when a step has no supervised
            # position (DDP needs a gradient for each parameter on every rank).
            loss = loss + 0.0 * logits.float().mean()
            if denom[k] > 0:
                loss = loss + (self.step_weight ** k) * loss_sum / denom[k] * scale
            with torch.no_grad():
                correct = (logits.argmax(-1) == tgt[k]) & sup[k]
                prev = sup[k] if chain is None else chain & sup[k]
                chain = correct if chain is None else chain & correct
                stats.append(torch.stack([loss_sum.detach(), sup[k].sum().float(), correct.sum().float(),
                                          prev.sum().float(), chain.sum().float()]))
        return loss, torch.stack(stats)


def summarize(stats: Tensor, lmask_count: Tensor | None = None) -> dict:
    """Per-step loss/acc/conditional acc and the simulated acceptance length from summed stats."""
    s = stats.double().cpu()
    K = s.shape[0]
    acc = [float(s[k, 2] / s[k, 1]) if s[k, 1] > 0 else 0.0 for k in range(K)]
    cacc = [float(s[k, 4] / s[k, 3]) if s[k, 3] > 0 else 0.0 for k in range(K)]
    out = {"acc": acc, "cacc": cacc}
    if lmask_count is not None:
        lc = lmask_count.double().cpu()
        out["loss_k"] = [float(s[k, 0] / lc[k]) if lc[k] > 0 else 0.0 for k in range(K)]
    sim, prod = 0.0, 1.0
    for c in cacc:
        prod *= c
        sim += prod
    out["sim_accept_len"] = sim          # expected accepted draft tokens per chain of K (Σ_k Π_{j≤k} cacc_j)
    out["sim_tau"] = 1.0 + sim           # + the bonus token: comparable with SGLang's spec_accept_length
    return out
