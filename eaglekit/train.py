"""Train an EAGLE-3 draft head on feature shards: streamed, packed batches; training-time-test unroll;
soft cross-entropy against the target restricted to the draft vocabulary; DDP or FSDP under torchrun;
checkpoints that resume exactly (model, optimizer, scheduler, step, data position, RNG).

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

import copy
import gc
import hashlib
import json
import math
import os
import queue
import random
import shutil
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator, NamedTuple

import numpy as np
import torch
import torch.distributed as dist
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import Tensor, nn
from torch.distributed.tensor import DTensor

from eaglekit.config import setting
from eaglekit.contract import ContractError, aux_ids_hf, aux_layers, require_same
from eaglekit.draft import DraftConfig, Eagle3Draft
from eaglekit.masks import bias_from_mask
from eaglekit.vocab import build_vocab, count_supervised


class TrainError(RuntimeError):
    """A training run cannot start or continue; the message says what to do."""


@dataclass
class TrainConfig:
    data: str | list[str] = setting(help="Features directory (manifest.json + shard-*.arrow), or several.", cli=False)
    target: str = setting("embedded", "Target spec (eaglekit.models.load_target).", cli=False)
    out: str = setting("runs/draft", "Run directory (checkpoints/, best/, metrics.jsonl, summary.json).", cli=False)
    eval_data: str | None = setting(None, "Held-out features directory (default: a hash split of --data).")
    heldout_fraction: float = setting(0.05, "Fraction of --data rows held out for evaluation (by row id hash).")
    eval_max_rows: int = setting(256, "Held-out conversations evaluated each time.")
    draft_vocab_size: int | None = setting(None, "Draft vocabulary size (default: smallest size reaching "
                                                 "--vocab-coverage).")
    vocab_coverage: float = setting(0.99, "Coverage of supervised tokens the draft vocabulary must reach.")
    ttt_steps: int = setting(7, "Training-time-test unroll length K.")
    step_weight: float = setting(0.8, "Loss weight of step k is step_weight**k (1.0 = uniform).")
    seq_len: int = setting(2048, "Tokens per packed row.")
    batch_size: int = setting(1, "Packed rows per process per optimizer step.")
    epochs: float = setting(1.0, "Passes over the data.")
    max_steps: int | None = setting(None, "Optimizer steps (overrides --epochs).")
    lr: float = setting(1e-4, "Peak learning rate (AdamW).")
    warmup_ratio: float = setting(0.015, "Share of the steps spent warming up.")
    min_lr_ratio: float = setting(0.0, "Final learning rate as a share of the peak (cosine).")
    weight_decay: float = setting(0.0, "AdamW weight decay.")
    grad_clip: float = setting(0.5, "Gradient norm clip.")
    seed: int = setting(0, "Seed of the weights' initialisation and the data order.")
    log_every: int = setting(10, "Steps between metrics.jsonl records.")
    eval_every: int = setting(200, "Steps between held-out evaluations.")
    save_every: int = setting(200, "Steps between checkpoints.")
    keep_checkpoints: int = setting(2, "Step checkpoints kept (best/ is kept apart).")
    nan_policy: str = setting("skip", "Non-finite batch or gradient: skip (and count) or stop.", choices=("skip", "stop"))
    parallel: str = setting("ddp", "Under torchrun: ddp (replicated head) or fsdp (weights, grads and AdamW state "
                                   "sharded); one process ignores it.", choices=("ddp", "fsdp"))
    resume: bool = setting(False, "Continue the run in --out from its latest checkpoint.")
    init_from: str | None = setting(None, "Start from this head's weights and draft vocabulary (a run's best/ or "
                                          "checkpoints/step-* directory, or an exported head) and train it on --data "
                                          "with a fresh schedule.")
    device: str = setting("auto", "auto, cpu or cuda.")
    prefetch: int = setting(4, "Batches prepared ahead by the loader thread.")
    progress: bool = setting(True, "Show a progress bar.")
    stop_after: int | None = setting(None, "Stop after this step as if killed (testing resume); the schedule is "
                                           "unchanged.")


class Cursor(NamedTuple):
    """Data position: first token not yet consumed (epoch, shard, row within shard, token offset)."""
    epoch: int = 0
    shard: int = 0
    row: int = 0
    offset: int = 0


# ---------------------------------------------------------------------------------------------
# Data: stream rows, pack them into fixed-length rows, prefetch in a thread.

def is_heldout(row_id: str, fraction: float) -> bool:
    h = int(hashlib.sha1(row_id.encode()).hexdigest()[:8], 16)
    return h % 100000 < fraction * 100000


def iter_docs(ds, start: Cursor, keep, loop: bool = True):
    """(cursor of the row, FeatureRow) from `start` on; loops over epochs when `loop`."""
    rows_per_shard = ds.shard_rows
    epoch, si, ri, off = start
    while True:
        for row in ds.iter_rows(si, ri):
            while ri >= rows_per_shard[si]:  # iter_rows moved on to the next non-empty shard
                si, ri = si + 1, 0
            if keep(row.id):
                yield Cursor(epoch, si, ri, off), row
            ri, off = ri + 1, 0
        if not loop:
            return
        epoch, si, ri, off = epoch + 1, 0, 0, 0


def pack(docs, seq_len: int, meta: dict):
    """Greedy packing of documents (split into <= seq_len chunks) into rows of exactly seq_len tokens.
    Yields (row dict of tensors, cursor of the first token not in this or an earlier row)."""
    pieces, fill = [], 0
    cur = None
    for cur, row in docs:
        n_tok, off = len(row.input_ids), cur.offset
        while off < n_tok:
            n = min(seq_len, n_tok - off)
            if fill + n > seq_len:
                yield _make_row(pieces, seq_len, meta), cur._replace(offset=off)
                pieces, fill = [], 0
            pieces.append((row, off, n))
            fill, off = fill + n, off + n
    if pieces:  # only reached by a finite stream
        yield _make_row(pieces, seq_len, meta), None


def _make_row(pieces, L: int, meta: dict) -> dict:
    H = int(meta["hidden_size"])
    topk = meta["teacher_kind"] == "topk_logprobs"
    k = int(meta["teacher_topk"])
    out = {"ids": torch.zeros(L, dtype=torch.long), "mask": torch.zeros(L, dtype=torch.bool),
           "seg": torch.full((L,), -1, dtype=torch.long), "pos": torch.zeros(L, dtype=torch.long),
           "aux": torch.zeros(L, 3 * H)}
    if topk:
        out["topk_ids"], out["topk_lp"] = torch.zeros(L, k, dtype=torch.long), torch.full((L, k), -math.inf)
    else:
        out["teacher"] = torch.zeros(L, H)
    at = 0
    for i, (row, off, n) in enumerate(pieces):
        sl, src = slice(at, at + n), slice(off, off + n)
        out["ids"][sl], out["mask"][sl], out["aux"][sl] = row.input_ids[src], row.loss_mask[src], row.aux[src]
        out["seg"][sl], out["pos"][sl] = i, torch.arange(off, off + n)
        if topk:
            out["topk_ids"][sl], out["topk_lp"][sl] = row.topk_ids[src], row.topk_logprobs[src]
        else:
            out["teacher"][sl] = row.teacher_hidden[src]
        at += n
    out["doc_ids"] = [row.id for row, _, _ in pieces]
    return out


def collate(rows: list[dict]) -> dict:
    out = {k: torch.stack([r[k] for r in rows]) for k in rows[0] if k != "doc_ids"}
    out["doc_ids"] = [d for r in rows for d in r["doc_ids"]]
    return out


def global_batches(packed, per_rank: int, world: int, rank: int, empty_row):
    """Group packed rows into global batches; yield (this rank's batch, cursor after the global batch)."""
    group, cursor = [], None
    for row, cursor in packed:
        group.append(row)
        if len(group) == per_rank * world:
            yield collate(group[rank * per_rank:(rank + 1) * per_rank]), cursor
            group = []
    if group:  # finite stream: pad the last global batch with empty rows so every rank steps
        group += [empty_row() for _ in range(per_rank * world - len(group))]
        yield collate(group[rank * per_rank:(rank + 1) * per_rank]), cursor


def prefetch(it, depth: int):
    """Run an iterator in a background thread (decoding overlaps the step); re-raise its errors here."""
    if depth <= 0:
        yield from it
        return
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    end = object()

    def put(item) -> bool:
        """Hand `item` over unless the consumer has gone; False once it has."""
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work():
        try:
            for item in it:
                if not put(item):
                    return
            put(end)
        except BaseException as err:  # noqa: BLE001 - handed to the consumer
            put(err)

    t = threading.Thread(target=work, name="eaglekit-prefetch", daemon=True)
    t.start()
    try:
        while True:
            item = q.get()
            if item is end:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        # Wait for the worker to notice: a daemon thread still inside a torch/pyarrow call when the
        # interpreter exits aborts the process ("terminate called without an active exception", exit 134)
        # after a run that had finished and saved everything.
        stop.set()
        t.join(timeout=120)


# ---------------------------------------------------------------------------------------------
# Teacher targets and the training-time-test unroll

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


# ---------------------------------------------------------------------------------------------
# Setup helpers

def check_shards(meta: dict, target, where: str) -> None:
    """Refuse shards made from another target/tokenizer (aux ids in one explicit convention)."""
    c = target.config
    expected = {**target.metadata(), "hidden_size": int(c.hidden_size), "vocab_size": int(c.vocab_size),
                "num_hidden_layers": int(c.num_hidden_layers)}
    require_same(expected, meta, ("tokenizer_hash", "hidden_size", "vocab_size", "num_hidden_layers"), where=where,
                 fix=f"these shards were made from {meta.get('target_model_id')!r}; train with that target "
                     f"(--target) or re-run featurize with this one")
    try:
        aux_layers(meta["aux_layer_ids"], meta["aux_layer_convention"], c.num_hidden_layers)
    except ContractError as err:
        raise ContractError(f"{where}: {err}") from err


def lr_lambda(total: int, warmup: int, min_ratio: float):
    def f(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        t = min(1.0, (step - warmup) / max(1, total - warmup))
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * t))
    return f


def count_packed_rows(ds, keep, seq_len: int) -> int:
    """Rows one epoch packs into (same greedy rule as `pack`, on lengths only)."""
    rows, fill = 0, 0
    for _, batch in ds.iter_tables(0):
        ids = batch.column(batch.schema.names.index("id")).to_pylist()
        offs = batch.column(batch.schema.names.index("input_ids")).offsets.to_numpy()
        for i, rid in enumerate(ids):
            if not keep(rid):
                continue
            left = int(offs[i + 1] - offs[i])
            while left > 0:
                n = min(seq_len, left)
                if fill + n > seq_len:
                    rows, fill = rows + 1, 0
                fill, left = fill + n, left - n
    return rows + (1 if fill else 0)


def _dist_info():
    if int(os.environ.get("WORLD_SIZE", "1")) > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
    if dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _all_sum(t: Tensor) -> Tensor:
    if dist.is_initialized():
        dist.all_reduce(t)
    return t


def _rng_state() -> dict:
    return {"torch": torch.get_rng_state(), "python": random.getstate(), "numpy": np.random.get_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None}


def _set_rng_state(s: dict) -> None:
    torch.set_rng_state(s["torch"])
    random.setstate(s["python"])
    np.random.set_state(s["numpy"])
    if s.get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(s["cuda"])


def wrap_parallel(model: "TTTModel", parallel: str, world: int, device: torch.device) -> nn.Module:
    """The module the training step calls: the model itself (one process), DDP (replicated weights, averaged
    gradients) or FSDP2 (weights, gradients and AdamW state sharded across ranks, gathered per step).
    FSDP shards the whole TTT model as one unit: the unroll calls the head K times per step, so one
    all-gather per step beats one per call, and a one-layer head has nothing finer worth sharding."""
    if world == 1:
        return model
    if parallel == "fsdp":
        from torch.distributed.fsdp import fully_shard
        return fully_shard(model, reshard_after_forward=False)
    return nn.parallel.DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)


def gather_state(model: "TTTModel", opt=None) -> tuple[dict, dict | None]:
    """Full (unsharded) head weights keyed like Eagle3Draft.state_dict() and optimizer state keyed by
    parameter name, on CPU. A collective under FSDP: every rank calls it, rank 0 gets the tensors."""
    from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                         get_optimizer_state_dict)
    sharded = dist.is_initialized() and any(isinstance(p, DTensor) for p in model.parameters())
    options = StateDictOptions(full_state_dict=True, cpu_offload=sharded)
    weights = {k.removeprefix("draft."): v.detach().cpu().contiguous()
               for k, v in get_model_state_dict(model, options=options).items()}
    return weights, (get_optimizer_state_dict(model, opt, options=options) if opt is not None else None)


def load_optimizer_state(model: "TTTModel", opt, state: dict) -> None:
    """Install a gathered optimizer state (gather_state) on this rank, re-sharding it under FSDP."""
    from torch.distributed.checkpoint.state_dict import StateDictOptions, set_optimizer_state_dict
    set_optimizer_state_dict(model, opt, optim_state_dict=state, options=StateDictOptions(full_state_dict=True))


def save_checkpoint(path: Path, weights: "dict | nn.Module", info: dict, opt_state: dict | None = None, sched=None,
                    state: dict | None = None):
    """Write a checkpoint directory atomically (temp dir + rename): head weights (a gather_state dict or an
    unsharded Eagle3Draft), and for a resumable checkpoint the optimizer/scheduler/RNG/loop state."""
    if isinstance(weights, nn.Module):
        weights = {k: v.detach().cpu().contiguous() for k, v in weights.state_dict().items()}
    tmp = path.with_name(f".tmp-{path.name}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_file(weights, str(tmp / "model.safetensors"))
    (tmp / "draft.json").write_text(json.dumps(info, indent=1))
    if opt_state is not None:
        torch.save({"optimizer": opt_state, "scheduler": sched.state_dict(), "rng": _rng_state(),
                    "state": state}, tmp / "trainer.pt")
        (tmp / "trainer_state.json").write_text(json.dumps(state, indent=1))
    if path.exists():
        shutil.rmtree(path)
    os.replace(tmp, path)


def load_draft(checkpoint_dir, embed_tokens: nn.Embedding) -> tuple[Eagle3Draft, dict]:
    """A trained draft head from a checkpoint directory (fp32 weights + draft.json)."""
    ckpt = Path(checkpoint_dir)
    if not (ckpt / "draft.json").is_file():
        raise TrainError(f"{ckpt}: not an eaglekit checkpoint (no draft.json); give a run's best/ or "
                         f"checkpoints/step-* directory")
    info = json.loads((ckpt / "draft.json").read_text())
    draft = Eagle3Draft(DraftConfig.from_dict(info["draft_config"]), embed_tokens)
    draft.load_state_dict(load_file(str(ckpt / "model.safetensors")), strict=True)
    return draft, info


def init_draft(path, target, embed_tokens: nn.Embedding, aux_ids: tuple[int, int, int]) -> Eagle3Draft:
    """The head a fine-tuning run starts from: a checkpoint (draft.json) or an exported head (config.json),
    weights and draft vocabulary kept. It must read the aux layers the new shards captured."""
    p = Path(path)
    if (p / "draft.json").is_file():
        draft, _ = load_draft(p, embed_tokens)
    elif (p / "config.json").is_file():
        from eaglekit.export import ExportError, load_head
        try:
            draft = load_head(p, target)
        except ExportError as err:
            raise TrainError(str(err)) from err
    else:
        raise TrainError(f"{p}: --init-from takes a run's best/ or checkpoints/step-* directory, or a head "
                         f"written by `eaglekit train export`")
    c, tc = draft.cfg, target.config
    diffs = [f"{k}: head {a} != {b}" for k, a, b in (
        ("vocab_size", c.vocab_size, tc.vocab_size), ("target_hidden_size", c.target_hidden_size, tc.hidden_size),
        ("aux_layer_ids (hf)", tuple(c.aux_layer_ids_hf), tuple(aux_ids))) if a != b]
    if diffs:
        raise TrainError(f"{p}: this head does not fit the target and shards ({'; '.join(diffs)}); start a new "
                         f"head instead of --init-from")
    return draft.to(embed_tokens.weight.device)


def latest_checkpoint(out: Path) -> Path | None:
    steps = sorted((out / "checkpoints").glob("step-*"))
    return steps[-1] if steps else None


# ---------------------------------------------------------------------------------------------
# The loop

def train(cfg: TrainConfig, target=None) -> dict:
    """Run (or resume) a training run; returns the summary also written to <out>/summary.json.
    `target` (an eaglekit.models.Target) may be given to skip loading `cfg.target`."""
    owns_group = int(os.environ.get("WORLD_SIZE", "1")) > 1 and not dist.is_initialized()
    summary = _train(cfg, target)
    if owns_group:
        # A rank leaving while its peer still writes checkpoints tears gloo's sockets under the peer, and
        # the process aborts at exit ("terminate called without an active exception"): meet, then tear down.
        # The wrapped model and its hooks hold the process group in reference cycles: collect them first, so
        # the group (and gloo's threads) goes now, not in whatever order interpreter exit picks (a rare
        # abort of one FSDP rank after a finished run, seen once in CI).
        gc.collect()
        dist.barrier()
        dist.destroy_process_group()
    return summary


def _on_device(module: nn.Module, device: torch.device, own: bool) -> nn.Module:
    """The module on the training device; a caller's target is copied rather than moved, so it still works
    where the caller keeps it (found on a GPU: training moved a CPU target's embedding to CUDA in place)."""
    p = next(module.parameters(), None)
    if own or p is None or p.device == device:
        return module.to(device)
    return copy.deepcopy(module).to(device)


def _train(cfg: TrainConfig, target) -> dict:
    from eaglekit.models import load_target
    from eaglekit.shards import open_features

    rank, world = _dist_info()
    if cfg.device == "auto":
        device = torch.device(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(cfg.device)
    use_bf16 = device.type == "cuda"
    if cfg.nan_policy not in ("skip", "stop"):
        raise TrainError(f"nan_policy must be 'skip' or 'stop', got {cfg.nan_policy!r}")
    if cfg.parallel not in ("ddp", "fsdp"):
        raise TrainError(f"parallel must be 'ddp' or 'fsdp', got {cfg.parallel!r}")
    out = Path(cfg.out)
    torch.manual_seed(cfg.seed)

    ds = open_features(cfg.data)
    ds.verify_checksums()  # a corrupt shard stops the run here, by name (remembered per size+mtime)
    meta = ds.meta
    data_name = cfg.data if isinstance(cfg.data, str) else " + ".join(cfg.data)
    if ds.num_rows == 0 or ds.num_tokens == 0:
        raise TrainError(f"{data_name}: the features directory holds no rows; check the featurize "
                         f"run's manifest and dead letters, then re-run it")
    own_target = target is None
    target = load_target(cfg.target) if own_target else target
    check_shards(meta, target, where=data_name)
    eval_ds = None
    if cfg.eval_data:
        eval_ds = open_features(cfg.eval_data)
        eval_ds.verify_checksums()
        check_shards(eval_ds.meta, target, where=cfg.eval_data)
        require_same(meta, eval_ds.meta, ("teacher_kind", "teacher_topk", "aux_layer_ids", "aux_layer_convention"),
                     where=cfg.eval_data, fix="evaluate on shards from the same featurize settings")
    frac = 0.0 if cfg.eval_data else cfg.heldout_fraction
    keep_train = (lambda rid: not is_heldout(rid, frac)) if frac > 0 else (lambda rid: True)
    keep_eval = (lambda rid: is_heldout(rid, frac)) if not cfg.eval_data else (lambda rid: True)

    # Only the embedding (draft input), final norm and lm_head (teacher) of the target are needed.
    tm = target.model
    tm.requires_grad_(False)
    embed, norm, lm_head = (_on_device(m, device, own_target) for m in (tm.get_input_embeddings(), tm.model.norm,
                                                                           tm.lm_head))
    if own_target:
        tm.model.layers = nn.ModuleList()

    resume_from = latest_checkpoint(out) if out.exists() else None
    if resume_from is not None and not cfg.resume:
        raise TrainError(f"{out} already holds checkpoints ({resume_from.name}); pass --resume to continue "
                         f"that run or choose a new --out")
    if cfg.resume and resume_from is not None:
        draft, info = load_draft(resume_from, embed)
        vocab_report, total_steps = info["vocab"], info["total_steps"]
    else:
        counts = count_supervised(ds, int(target.config.vocab_size), keep_train)
        if cfg.init_from:
            draft = init_draft(cfg.init_from, target, embed, aux_ids_hf(meta))
            if cfg.draft_vocab_size and cfg.draft_vocab_size != draft.cfg.draft_vocab_size:
                raise TrainError(f"--draft-vocab-size {cfg.draft_vocab_size}: the head in {cfg.init_from} has "
                                 f"{draft.cfg.draft_vocab_size} (--init-from keeps its vocabulary)")
            covered = int(counts[draft.draft_ids().cpu().numpy()].sum())
            vocab_report = {"draft_vocab_size": draft.cfg.draft_vocab_size, "init_from": str(cfg.init_from),
                            "coverage": round(covered / max(1, int(counts.sum())), 6),
                            "supervised_tokens": int(counts.sum())}
        else:
            try:
                vocab = build_vocab(counts, cfg.draft_vocab_size, None if cfg.draft_vocab_size else cfg.vocab_coverage)
            except ValueError as err:
                raise TrainError(f"{data_name}: {err}") from err
            vocab_report = vocab.report()
            draft = Eagle3Draft(DraftConfig.from_target(target.config, vocab.size, aux_ids_hf(meta)), embed)
            draft.set_vocab(vocab.draft_ids)
        rows = count_packed_rows(ds, keep_train, cfg.seq_len)
        per_epoch = math.ceil(rows / (cfg.batch_size * world))
        if per_epoch == 0:
            raise TrainError(f"{data_name}: no training rows left after the held-out split; add data or lower "
                             f"--heldout-fraction")
        total_steps = int(cfg.max_steps or math.ceil(cfg.epochs * per_epoch))
    draft.to(device)
    info = {"draft_config": draft.cfg.to_dict(), "vocab": vocab_report, "total_steps": total_steps,
            "train_config": asdict(cfg), "data_meta": meta, "target": target.metadata()}

    model = TTTModel(draft, cfg.ttt_steps, cfg.step_weight)
    wrapped = wrap_parallel(model, cfg.parallel, world, device)  # FSDP shards `model` in place
    opt = torch.optim.AdamW(draft.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay, betas=(0.9, 0.95))
    warmup = max(1, int(cfg.warmup_ratio * total_steps))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(total_steps, warmup, cfg.min_lr_ratio))
    teacher = Teacher(meta["teacher_kind"], draft, norm, lm_head)

    step, cursor, best = 0, Cursor(), {"sim_accept_len": -1.0, "step": None}
    counters = {"skipped_nan": 0, "tokens": 0}
    if cfg.resume and resume_from is not None:
        ck = torch.load(resume_from / "trainer.pt", weights_only=False)
        load_optimizer_state(model, opt, ck["optimizer"])
        sched.load_state_dict(ck["scheduler"])
        _set_rng_state(ck["rng"])
        st = ck["state"]
        step, cursor, best, counters = st["step"], Cursor(*st["cursor"]), st["best"], st["counters"]

    if rank == 0:
        out.mkdir(parents=True, exist_ok=True)
        (out / "vocab.json").write_text(json.dumps(vocab_report, indent=1))
    if rank == 0 and cfg.resume and resume_from is not None:
        # the killed run logged steps past its last checkpoint; this run logs them again from that step
        _truncate_metrics(out / "metrics.jsonl", step)
    metrics_f = open(out / "metrics.jsonl", "a") if rank == 0 else None
    tb = _tensorboard(out) if rank == 0 else None

    def log(rec: dict) -> None:
        if metrics_f is not None:
            metrics_f.write(json.dumps(rec) + "\n")
            metrics_f.flush()
        if tb is not None:
            for key, v in rec.items():
                if isinstance(v, (int, float)) and key != "step":
                    tb.add_scalar(key, v, rec["step"])

    def empty_row():
        return _make_row([], cfg.seq_len, meta) | {"doc_ids": []}

    def to_dev(b):
        return {k: (v.to(device, non_blocking=True) if isinstance(v, Tensor) else v) for k, v in b.items()}

    def run_batch(b: dict, train_mode: bool):
        target_sig, tgt = teacher(b)
        sup, lmask, tgt_k = step_masks(b, tgt, cfg.ttt_steps)
        denom = _all_sum(lmask.sum(dim=(1, 2)).float())
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_bf16):
            loss, stats = (wrapped if train_mode else model)(b, target_sig, sup, lmask, tgt_k, denom, float(world))
        return loss, stats, denom

    def evaluate() -> dict:
        src = eval_ds or ds
        docs = iter_docs(src, Cursor(), keep_eval, loop=False)
        docs = (d for i, d in enumerate(docs) if i < cfg.eval_max_rows)
        total, n_tok = None, 0
        model.eval()
        with torch.no_grad():
            for b, _ in global_batches(pack(docs, cfg.seq_len, meta), cfg.batch_size, 1, 0, empty_row):
                b = to_dev(b)
                _, stats, _ = run_batch(b, False)
                total = stats if total is None else total + stats
                n_tok += int((b["seg"] >= 0).sum())
        model.train()
        if total is None:
            return {}
        return summarize(total) | {"eval_tokens": n_tok}

    data = iter_docs(ds, cursor, keep_train)
    batches = prefetch(global_batches(pack(data, cfg.seq_len, meta), cfg.batch_size, world, rank, empty_row),
                       cfg.prefetch)
    progress = _progress(cfg.progress and rank == 0, total_steps, step)
    agg, agg_l, t0, tok0 = None, None, time.perf_counter(), counters["tokens"]
    summary = {"stopped_early": False}
    model.train()
    try:
        while step < total_steps:
            b, next_cursor = next(batches)
            b = to_dev(b)
            bad = torch.tensor([0.0 if _finite(b) else 1.0], device=device)
            if _all_sum(bad).item() > 0:
                counters["skipped_nan"] += 1
                if cfg.nan_policy == "stop":
                    raise TrainError(f"non-finite values in a batch holding rows {b['doc_ids'][:8]}; check those "
                                     f"rows (`eaglekit data inspect`), or pass --nan-policy skip to skip such batches")
                cursor, step = next_cursor, step + 1
                sched.step()
                continue
            loss, stats, denom = run_batch(b, True)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(draft.parameters(), cfg.grad_clip)
            if isinstance(gnorm, DTensor):
                gnorm = gnorm.full_tensor()
            if torch.isfinite(gnorm):
                opt.step()
            else:
                counters["skipped_nan"] += 1
                if cfg.nan_policy == "stop":
                    raise TrainError(f"step {step}: non-finite gradient (lr {sched.get_last_lr()[0]:.2e}); lower "
                                     f"--lr or pass --nan-policy skip")
            sched.step()
            step, cursor = step + 1, next_cursor
            stats = _all_sum(stats.detach().clone())
            n_tok = int(_all_sum(torch.tensor([float((b["seg"] >= 0).sum())], device=device)).item())
            counters["tokens"] += n_tok
            agg = stats if agg is None else agg + stats
            agg_l = denom if agg_l is None else agg_l + denom
            if step % cfg.log_every == 0 or step == total_steps:
                s = summarize(agg, agg_l)
                dt = time.perf_counter() - t0
                loss_w = sum(cfg.step_weight ** k * v for k, v in enumerate(s["loss_k"]))
                rec = {"step": step, "lr": sched.get_last_lr()[0], "loss": loss_w,
                       "tokens": counters["tokens"], "tok_s": (counters["tokens"] - tok0) / max(dt, 1e-9),
                       "skipped_nan": counters["skipped_nan"], "grad_norm": float(gnorm)} | s
                log(rec)
                progress.update(step, rec)
                agg, agg_l, t0, tok0 = None, None, time.perf_counter(), counters["tokens"]
            do_eval = step % cfg.eval_every == 0 or step == total_steps
            if do_eval:
                ev = evaluate()
                if ev:
                    log({"step": step, "eval": True} | ev)
                    if ev["sim_accept_len"] > best["sim_accept_len"]:
                        best = {"sim_accept_len": ev["sim_accept_len"], "step": step, "eval": ev}
                        weights, _ = gather_state(model)
                        if rank == 0:
                            save_checkpoint(out / "best", weights, info | {"step": step, "eval": ev})
            if step % cfg.save_every == 0 or step == total_steps:
                weights, opt_state = gather_state(model, opt)
                if rank == 0:
                    state = {"step": step, "cursor": list(cursor), "best": best, "counters": counters}
                    save_checkpoint(out / "checkpoints" / f"step-{step:08d}", weights, info | {"step": step},
                                    opt_state, sched, state)
                    for old in sorted((out / "checkpoints").glob("step-*"))[: -cfg.keep_checkpoints]:
                        shutil.rmtree(old, ignore_errors=True)
                if dist.is_initialized():
                    dist.barrier()
            if cfg.stop_after is not None and step >= cfg.stop_after and step < total_steps:
                summary["stopped_early"] = True
                break
    finally:
        progress.close()
        batches.close()
        if metrics_f is not None:
            metrics_f.close()
        if tb is not None:
            tb.close()
    if best["step"] is None and not summary["stopped_early"]:
        # No held-out rows: the last weights are the result.
        weights, _ = gather_state(model)
        if rank == 0:
            save_checkpoint(out / "best", weights, info | {"step": step, "eval": None})
    summary.update({"step": step, "total_steps": total_steps, "best_checkpoint": str(out / "best"),
                    "best_step": best["step"], "sim_accept_len": best["sim_accept_len"] if best["step"] else None,
                    # the same on SGLang's / the bench's scale (tokens per verify step, bonus included)
                    "sim_tau": round(1.0 + best["sim_accept_len"], 6) if best["step"] else None,
                    "best_eval": best.get("eval"), "vocab": vocab_report, "skipped_nan": counters["skipped_nan"],
                    "tokens": counters["tokens"], "world_size": world,
                    "parallel": cfg.parallel if world > 1 else "none"})
    if rank == 0:
        (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _truncate_metrics(path: Path, step: int) -> None:
    """Keep only metrics.jsonl records of steps <= `step` (the resumed checkpoint's), atomically."""
    if not path.is_file():
        return
    kept = []
    for line in path.read_text().splitlines():
        try:
            if int(json.loads(line).get("step", 0)) <= step:
                kept.append(line)
        except (ValueError, AttributeError, TypeError):
            continue  # a line cut short by the kill
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text("".join(f"{line}\n" for line in kept))
    os.replace(tmp, path)


def _finite(b: dict) -> bool:
    return all(bool(torch.isfinite(b[k]).all()) for k in ("aux", "teacher") if k in b) and \
        ("topk_lp" not in b or not bool(torch.isnan(b["topk_lp"]).any()))


def _tensorboard(out: Path):
    try:
        from torch.utils.tensorboard import SummaryWriter
        return SummaryWriter(str(out / "tb"))
    except Exception:  # noqa: BLE001 - TensorBoard is optional
        return None


class _progress:
    """A rich progress bar (or nothing) showing step, loss, step-0 accuracy and tokens/s."""

    def __init__(self, enabled: bool, total: int, start: int):
        self.p = None
        if enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            self.p = Progress(TextColumn("train"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                              TextColumn("{task.fields[info]}"), transient=False)
            self.task = self.p.add_task("train", total=total, completed=start, info="")
            self.p.start()

    def update(self, step: int, rec: dict) -> None:
        if self.p is not None:
            info = f"loss {rec['loss']:.3f} acc0 {rec['acc'][0]:.3f} {rec['tok_s']:.0f} tok/s"
            self.p.update(self.task, completed=step, info=info)

    def close(self) -> None:
        if self.p is not None:
            self.p.stop()
