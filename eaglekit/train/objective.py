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

from eaglekit.draft import Eagle3Draft, gather_rows
from eaglekit.masks import bias_from_mask


def shift(x: Tensor, n: int, fill) -> Tensor:
    """out[:, t] = x[:, t+n] (fill beyond the end)."""
    out = torch.full_like(x, fill)
    if n < x.shape[1]:
        out[:, : x.shape[1] - n] = x[:, n:]
    return out


class Teacher:
    """Turns a batch's teacher signal into draft-vocabulary targets (no grad, frozen target parts).

    A hidden-state teacher is evaluated only where a loss reads it (`need`): the draft-vocabulary rows of the
    target's lm_head give the soft targets; the full-vocabulary argmax (needed only to tell whether the target's
    top token is one the draft can emit) is computed once per token and remembered for the run, keyed by
    document id and content checksum, up to `cache_tokens` tokens: every later epoch skips the 49k-row matmul.
    """

    def __init__(self, kind: str, draft: Eagle3Draft, norm: nn.Module | None, lm_head: nn.Module | None,
                 chunk: int = 1024, cache_tokens: int = 50_000_000):
        self.kind, self.norm, self.lm_head, self.chunk = kind, norm, lm_head, chunk
        ids = draft.draft_ids()
        self.draft_ids = ids
        self.to_draft = torch.full((draft.cfg.vocab_size,), -1, dtype=torch.long, device=ids.device)
        self.to_draft[ids] = torch.arange(ids.numel(), device=ids.device)
        self.cache: dict[str, Tensor] = {}
        self.cache_tokens, self.cached = cache_tokens, 0
        self._w_draft: Tensor | None = None

    @torch.no_grad()
    def __call__(self, batch: dict, need: Tensor | None = None) -> tuple[dict, Tensor]:
        """Returns (signal, target argmax as draft id [B,L], -1 if outside the draft vocabulary or not computed).
        signal: {"idx","p"} [B,L,k] for a top-k teacher; {"probs" [N,Dv], "row" [B,L]} for a hidden one, where
        row maps a position to its row of probs (-1 where not computed; every position when need is None);
        and "top_dv" [B,L]: the target's most likely token among those the draft can emit (draft id)."""
        if self.kind == "topk_logprobs":
            tids, lp = batch["topk_ids"], batch["topk_lp"]
            idx = self.to_draft[tids]
            p = lp.float().exp() * (idx >= 0)
            p = p / p.sum(-1, keepdim=True).clamp_min(1e-20)  # renormalise over ids the draft can emit
            return {"idx": idx.clamp_min(0), "p": p, "top_dv": idx.clamp_min(0).gather(-1, p.argmax(-1, keepdim=True))
                    .squeeze(-1)}, self.to_draft[tids[..., 0]]
        h = batch["teacher"]
        B, L, _ = h.shape
        need = torch.ones(B, L, dtype=torch.bool, device=h.device) if need is None else need
        row = torch.full((B, L), -1, dtype=torch.long, device=h.device)
        row[need] = torch.arange(int(need.sum()), device=h.device)
        x = h[need]
        if self.kind == "final_hidden_prenorm":
            x = self.norm(x)
        x = x.to(self.lm_head.weight.dtype)
        if self._w_draft is None or self._w_draft.device != x.device:
            self._w_draft = self.lm_head.weight[self.draft_ids].detach()
        probs = torch.cat([torch.softmax((x[s:s + self.chunk] @ self._w_draft.T).float(), -1)
                           for s in range(0, x.shape[0], self.chunk)]) if x.shape[0] else \
            torch.zeros(1, self.draft_ids.numel(), device=h.device)  # nothing supervised: one row nobody reads
        tgt = torch.full((B, L), -1, dtype=torch.long, device=h.device)
        tgt[need] = self.to_draft[self._argmax(batch, need, x)]
        top_dv = torch.full((B, L), -1, dtype=torch.long, device=h.device)
        top_dv[need] = probs.argmax(-1)[: int(need.sum())]
        return {"probs": probs, "row": row, "top_dv": top_dv}, tgt

    def _argmax(self, batch: dict, need: Tensor, x: Tensor) -> Tensor:
        """The target's full-vocabulary argmax at the `need` positions (x: their normed states), from the cache
        where known."""
        out = torch.full((x.shape[0],), -1, dtype=torch.long, device=x.device)
        keys = batch.get("doc_keys")
        if keys is None:  # a batch built by hand: no document identity, nothing to remember
            return self._full_argmax(x)
        b_idx, t_idx = need.nonzero(as_tuple=True)
        seg, pos = batch["seg"][b_idx, t_idx], batch["pos"][b_idx, t_idx]
        n_docs = batch["seg"].amax(1) + 1            # documents packed in each row (padding is -1)
        doc = (torch.cumsum(n_docs, 0) - n_docs)[b_idx] + seg
        doc = doc.cpu()
        for d in doc.unique().tolist():
            sel = (doc == d).nonzero().squeeze(1).to(x.device)
            p = pos[sel]
            key = keys[d]
            known = self.cache.get(key)
            if known is not None and known.numel() > int(p.max()):
                got = known.to(x.device)[p].long()
                miss = got < 0
            else:
                got, miss = torch.full_like(p, -1), torch.ones_like(p, dtype=torch.bool)
            if bool(miss.any()):
                got[miss] = self._full_argmax(x[sel[miss]])
                self._remember(key, p, got)
            out[sel] = got
        return out

    def forget(self) -> None:
        """Empty the argmax cache (a cold start, as a fresh run on rows it has not seen)."""
        self.cache.clear()
        self.cached = 0

    def _full_argmax(self, x: Tensor) -> Tensor:
        return torch.cat([self.lm_head(x[s:s + self.chunk]).argmax(-1) for s in range(0, x.shape[0], self.chunk)]) \
            if x.shape[0] else torch.zeros(0, dtype=torch.long, device=x.device)

    def _remember(self, key: str, pos: Tensor, arg: Tensor) -> None:
        known = self.cache.get(key)
        size = int(pos.max()) + 1
        if known is None or known.numel() < size:
            if self.cached + size - (0 if known is None else known.numel()) > self.cache_tokens:
                return
            grown = torch.full((size,), -1, dtype=torch.int32)
            if known is not None:
                grown[: known.numel()] = known
            self.cached += size - (0 if known is None else known.numel())
            known = self.cache[key] = grown
        known[pos.cpu()] = arg.to(torch.int32).cpu()


def supervised(batch: dict, K: int) -> Tensor:
    """[K,B,L]: step k at position t is supervised iff loss_mask[t+k+2] in the same document."""
    mask, seg = batch["mask"], batch["seg"]
    return torch.stack([shift(mask, k + 2, False) & (shift(seg, k + 2, -2) == seg) & (seg >= 0) for k in range(K)])


def teacher_positions(sup: Tensor) -> Tensor:
    """[B,L] positions whose teacher a loss reads: t+k+1 for every supervised (k, t)."""
    need = torch.zeros_like(sup[0])
    for k in range(sup.shape[0]):
        need[:, k + 1:] |= sup[k][:, : need.shape[1] - k - 1]
    return need


def query_positions(sup: Tensor) -> tuple[Tensor, Tensor]:
    """Positions whose unroll some loss reads (supervised at any step), per row, ascending: (idx [B,n], valid
    [B,n]); rows with fewer than n are padded with other positions (valid False). Only step 0's keys need every
    position; a packed row is often half prompt, so the unroll's queries, MLP and lm_head shrink with it."""
    useful = sup.any(0)
    count = useful.sum(1)
    n = max(int(count.max()), 1)
    order = torch.sort((~useful).to(torch.int8), dim=1, stable=True).indices[:, :n]
    return order, torch.arange(n, device=sup.device)[None] < count[:, None]


def step_masks(batch: dict, tgt: Tensor, K: int, sup: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Per step k: supervised positions sup [K,B,L] (given, or computed), loss positions (sup and target
    argmax in the draft vocabulary) lmask [K,B,L], and the target draft id tgt_k [K,B,L]."""
    sup = supervised(batch, K) if sup is None else sup
    tgt_k = torch.stack([shift(tgt, k + 1, -1) for k in range(K)])
    return sup, sup & (tgt_k >= 0), tgt_k


def targets(teacher: Teacher, batch: dict, K: int) -> tuple[dict, Tensor, Tensor, Tensor]:
    """What one step's loss reads: the teacher signal (evaluated only where a loss reads it) and step_masks'
    (sup, lmask, tgt_k). The trainer and bench/train.py's bare loop both take their targets here."""
    sup = supervised(batch, K)
    signal, tgt = teacher(batch, teacher_positions(sup))
    return (signal, *step_masks(batch, tgt, K, sup))


def ttt_bias(seg: Tensor, k: int, dtype=torch.float32) -> Tensor:
    """[B,1,L,(k+1)L] additive bias for step k: causal same-document over step-0 keys, then the
    same-row key of each step 1..k. Padding rows see themselves (keeps softmax finite)."""
    base = doc_causal(seg)
    eye = torch.eye(seg.shape[1], dtype=torch.bool, device=seg.device)
    allowed = torch.cat([base] + [eye.expand_as(base)] * k, dim=2)
    return bias_from_mask(allowed, dtype)[:, None]


def doc_causal(seg: Tensor) -> Tensor:
    """[B,L,L] causal attention within each packed document; every position sees itself (padding included)."""
    L = seg.shape[1]
    eye = torch.eye(L, dtype=torch.bool, device=seg.device)
    return ((seg[:, :, None] == seg[:, None, :]) & torch.ones(L, L, dtype=torch.bool, device=seg.device).tril()) | eye


class SoftCrossEntropy(torch.autograd.Function):
    """Σ_n w_n·(logsumexp(z_n) − p_n·z_n) for logits z [N,V], soft targets p [N,V] (rows summing to 1) and row
    weights w [N], computed in fp32; the gradient w·(softmax(z) − p) comes in one pass. (log_softmax, the product
    and their autograd backward make six passes and three temporaries of [N,V]: on CPU the step's largest cost
    after the matmuls.) The forward keeps softmax(z), which its logsumexp computes anyway, in place of the
    logits, so the backward needs no second exp."""

    @staticmethod
    def forward(ctx, z: Tensor, p: Tensor, w: Tensor) -> Tensor:
        with torch.autocast(z.device.type, enabled=False):  # bf16 autocast would round the p·z products
            zf, p = z.float(), p.float()
            m = zf.amax(-1, keepdim=True)
            e = torch.sub(zf, m).exp_()
            s = e.sum(-1, keepdim=True)
            lse = (m + s.log()).squeeze(-1)
            dot = (p * zf).sum(-1)
            ctx.save_for_backward(e.div_(s), p, w)
            ctx.dtype = z.dtype
            return (w * (lse - dot)).sum()

    @staticmethod
    def backward(ctx, grad: Tensor):
        soft, p, w = ctx.saved_tensors
        # In place on the saved softmax: nothing reads it after this backward.
        g = soft.sub_(p).mul_((w * grad)[:, None])
        return g.to(ctx.dtype), None, None


class TTTModel(nn.Module):
    """The unrolled training-time test around the draft head: one forward = the whole loss (so DDP
    sees one forward per backward)."""

    def __init__(self, draft: Eagle3Draft, steps: int, step_weight: float):
        super().__init__()
        self.draft, self.steps, self.step_weight = draft, steps, step_weight

    def unroll(self, batch: dict) -> Iterator[Tensor]:
        """Draft logits [B,L,Dv] of each step k = 0..K-1 at every position (see the module docstring for
        alignment). The reference the training forward (`unroll_at`) is tested against."""
        d = self.draft
        hidden = d.fuse(batch["aux"].to(d.fc.weight.dtype))
        past = None
        for k in range(self.steps):
            ids_k = shift(batch["ids"], k + 1, 0)
            bias = ttt_bias(batch["seg"], k, dtype=hidden.dtype)
            hidden, logits, past = d(hidden, ids_k, batch["pos"] + k, bias, past)
            yield logits

    def unroll_at(self, batch: dict, idx: Tensor) -> Iterator[Tensor]:
        """The unroll's logits [B,n,Dv] at positions idx [B,n] only: step 0 takes keys from every position and
        queries from idx; steps 1..K-1 run on idx alone (their same-row keys are all a query may see there)."""
        d = self.draft
        hidden = d.fuse(batch["aux"].to(d.fc.weight.dtype))
        # [B,1,n,L]: row i of the step-0 bias, what query idx[i] sees of the step-0 keys at every step
        bias = bias_from_mask(gather_rows(doc_causal(batch["seg"]), idx), hidden.dtype)[:, None]
        pos = gather_rows(batch["pos"], idx)
        hidden, logits, past = d(hidden, shift(batch["ids"], 1, 0), batch["pos"], bias, None, q_index=idx)
        yield logits
        for k in range(1, self.steps):
            ids_k = gather_rows(shift(batch["ids"], k + 1, 0), idx)
            # keys [L step-0 ; n of step 1 ; ... ; n of step k]: the bias covers the step-0 ones, and query i
            # sees key i of each later block (= ttt_bias's same-row keys); diagonal_tail says so without a
            # dense [n, L + k·n] bias, so the draft's attention scores L + k keys per query, not L + k·n
            hidden, logits, past = d(hidden, ids_k, pos + k, bias, past, diagonal_tail=True)
            yield logits

    def forward(self, batch: dict, target: dict, sup: Tensor, lmask: Tensor, tgt: Tensor, denom: Tensor,
                scale: float = 1.0):
        """Returns (loss, stats [K,6]: loss_sum, supervised, correct, chain_prev, chain, correct_dv). correct
        counts a hit on the target's top token (a miss where the draft cannot emit it: what serving sees);
        correct_dv a hit on its top token among the draft vocabulary (speculators' accuracy)."""
        idx, valid = query_positions(sup)
        L = sup.shape[2]
        loss = batch["aux"].new_zeros((), dtype=torch.float32)
        chain, stats = None, []
        for k, logits in enumerate(self.unroll_at(batch, idx)):
            at = (idx + k + 1).clamp(max=L - 1)  # the teacher of position t at step k sits at t+k+1
            sup_k, lm = sup[k].gather(1, idx) & valid, (lmask[k].gather(1, idx) & valid).float()
            if "probs" in target:
                # index_select: ~6x faster than advanced indexing for whole rows on CPU
                p = target["probs"].index_select(0, target["row"].gather(1, at).clamp_min(0).flatten())
                loss_sum = SoftCrossEntropy.apply(logits.flatten(0, 1), p, lm.flatten())
            else:
                logq = F.log_softmax(logits.float(), dim=-1)
                ce = -(gather_rows(target["p"], at) * logq.gather(-1, gather_rows(target["idx"], at))).sum(-1)
                loss_sum = (ce * lm).sum()
            if denom[k] > 0:
                loss = loss + (self.step_weight ** k) * loss_sum / denom[k] * scale
            else:
                # keeps every parameter in the graph when a step has no supervised position (DDP needs a
                # gradient for each parameter on every rank)
                loss = loss + 0.0 * logits.float().mean()
            with torch.no_grad():
                pred = logits.argmax(-1)
                correct = (pred == tgt[k].gather(1, idx)) & sup_k
                correct_dv = (pred == target["top_dv"].gather(1, at)) & sup_k
                prev = sup_k if chain is None else chain & sup_k
                chain = correct if chain is None else chain & correct
                stats.append(torch.stack([loss_sum.detach(), sup_k.sum().float(), correct.sum().float(),
                                          prev.sum().float(), chain.sum().float(), correct_dv.sum().float()]))
        return loss, torch.stack(stats)


def summarize(stats: Tensor, lmask_count: Tensor | None = None) -> dict:
    """Per-step loss/acc/conditional acc and the simulated acceptance length from summed stats."""
    s = stats.double().cpu()
    K = s.shape[0]
    acc = [float(s[k, 2] / s[k, 1]) if s[k, 1] > 0 else 0.0 for k in range(K)]
    cacc = [float(s[k, 4] / s[k, 3]) if s[k, 3] > 0 else 0.0 for k in range(K)]
    out = {"acc": acc, "cacc": cacc}
    if s.shape[1] > 5:  # the same, counting a hit on the best token the draft vocabulary holds (speculators')
        out["acc_draft_vocab"] = [float(s[k, 5] / s[k, 1]) if s[k, 1] > 0 else 0.0 for k in range(K)]
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
