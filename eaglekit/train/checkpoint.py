"""Checkpoints that resume exactly: weights (gathered from DDP / FSDP), optimizer, scheduler, RNG and the
run state; loading a head to train on (a run checkpoint or an exported head)."""
from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from safetensors.torch import load_file, save_file
from torch import nn
from torch.distributed.tensor import DTensor

from eaglekit.draft import DraftConfig, Eagle3Draft
from eaglekit.train.config import TrainError
from eaglekit.train.objective import TTTModel


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
