"""The training loop: set-up (data, target, head, optimizer; or a resumed run) -> step -> eval -> save,
with everything a run carries in one `Run` object. DDP or FSDP under torchrun."""
from __future__ import annotations

import copy
import gc
import json
import math
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import torch
import torch.distributed as dist
from torch import Tensor, nn
from torch.distributed.tensor import DTensor

from eaglekit.contract import ContractError, aux_ids_hf, aux_layers, require_same
from eaglekit.draft import DraftConfig, Eagle3Draft
from eaglekit.train.checkpoint import (_set_rng_state, _truncate_metrics, gather_state, init_draft, latest_checkpoint,
                                       load_draft, load_optimizer_state, save_checkpoint, wrap_parallel)
from eaglekit.train.config import TrainConfig, TrainError
from eaglekit.train.data import (Cursor, _make_row, count_packed_rows, global_batches, is_heldout, iter_docs, pack,
                                 prefetch)
from eaglekit.train.objective import Teacher, TTTModel, summarize, targets
from eaglekit.train.precondition import FcPreconditioner, aux_rms
from eaglekit.vocab import build_vocab, count_supervised


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


def _train(cfg: TrainConfig, target) -> dict:
    run = set_up(cfg, target)
    try:
        while run.step < run.total_steps:
            if not train_step(run):
                continue  # a skipped non-finite batch: no log, eval or save at this step
            if run.step % cfg.eval_every == 0 or run.step == run.total_steps:
                evaluate_and_keep_best(run)
            if run.step % cfg.save_every == 0 or run.step == run.total_steps:
                save(run)
            if cfg.stop_after is not None and cfg.stop_after <= run.step < run.total_steps:
                run.stopped_early = True
                break
    finally:
        run.close()
    return finish(run)


# ---------------------------------------------------------------------------------------------
# The run state

@dataclass
class Run:
    """Everything one training run carries between steps."""
    cfg: TrainConfig
    rank: int
    world: int
    device: torch.device
    use_bf16: bool
    out: Path
    ds: Any                       # the training FeatureDataset
    eval_ds: Any                  # the held-out one, or None (a hash split of ds)
    meta: dict
    keep_train: Callable[[str], bool]
    keep_eval: Callable[[str], bool]
    draft: Eagle3Draft
    model: TTTModel
    wrapped: nn.Module            # model under DDP / FSDP (model itself on one process)
    opt: torch.optim.Optimizer
    sched: Any
    teacher: Teacher
    info: dict                    # what every checkpoint records
    vocab_report: dict
    total_steps: int
    precond: FcPreconditioner | None = None  # --standardize-aux
    step: int = 0
    cursor: Cursor = field(default_factory=Cursor)
    best: dict = field(default_factory=lambda: {"sim_accept_len": -1.0, "step": None})
    counters: dict = field(default_factory=lambda: {"skipped_nan": 0, "tokens": 0})
    stopped_early: bool = False
    metrics_f: Any = None
    tb: Any = None
    batches: Iterator | None = None
    progress: Any = None
    # the running aggregate between log records
    agg: Tensor | None = None
    agg_l: Tensor | None = None
    t0: float = 0.0
    tok0: int = 0

    def log(self, rec: dict) -> None:
        if self.metrics_f is not None:
            self.metrics_f.write(json.dumps(rec) + "\n")
            self.metrics_f.flush()
        if self.tb is not None:
            for key, v in rec.items():
                if isinstance(v, (int, float)) and key != "step":
                    self.tb.add_scalar(key, v, rec["step"])

    def empty_row(self) -> dict:
        return _make_row([], self.cfg.seq_len, self.meta)

    def to_dev(self, b: dict) -> dict:
        return {k: (v.to(self.device, non_blocking=True) if isinstance(v, Tensor) else v) for k, v in b.items()}

    def run_batch(self, b: dict, train_mode: bool):
        target_sig, sup, lmask, tgt_k = targets(self.teacher, b, self.cfg.ttt_steps)
        denom = _all_sum(lmask.sum(dim=(1, 2)).float())
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=self.use_bf16):
            loss, stats = (self.wrapped if train_mode else self.model)(b, target_sig, sup, lmask, tgt_k, denom,
                                                                        float(self.world))
        return loss, stats, denom

    def close(self) -> None:
        if self.progress is not None:
            self.progress.close()
        if self.batches is not None:
            self.batches.close()
        if self.metrics_f is not None:
            self.metrics_f.close()
        if self.tb is not None:
            self.tb.close()

    @property
    def shuffle_seed(self) -> int | None:
        """The seed of the data order (epoch_order), or None for the stored order."""
        return int(self.cfg.seed) if self.cfg.shuffle else None


# ---------------------------------------------------------------------------------------------
# Set-up

def set_up(cfg: TrainConfig, target) -> Run:
    """Open and check the data, load the target's embedding / norm / lm_head, build (or resume, or start
    from --init-from) the head, its optimizer and schedule; open the logs and the batch stream."""
    from eaglekit.models import load_target
    from eaglekit.shards import open_features

    rank, world = _dist_info()
    if cfg.device == "auto":
        device = torch.device(f"cuda:{int(os.environ.get('LOCAL_RANK', 0))}" if torch.cuda.is_available() else "cpu")
    else:
        device = torch.device(cfg.device)
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
    resuming = cfg.resume and resume_from is not None
    if resuming:
        draft, info = load_draft(resume_from, embed)
        vocab_report, total_steps = info["vocab"], info["total_steps"]
    else:
        draft, vocab_report = _new_draft(cfg, ds, target, embed, meta, keep_train, data_name)
        rows = count_packed_rows(ds, keep_train, cfg.seq_len)
        per_epoch = math.ceil(rows / (cfg.batch_size * world))
        if per_epoch == 0:
            raise TrainError(f"{data_name}: no training rows left after the held-out split; add data or lower "
                             f"--heldout-fraction")
        total_steps = int(cfg.max_steps or math.ceil(cfg.epochs * per_epoch))
    draft.lm_head.weight.requires_grad_(cfg.lm_head == "trained")
    draft.to(device)
    info = {"draft_config": draft.cfg.to_dict(), "vocab": vocab_report, "total_steps": total_steps,
            "train_config": asdict(cfg), "data_meta": meta, "target": target.metadata(), "sources": ds.sources}

    model = TTTModel(draft, cfg.ttt_steps, cfg.step_weight)
    wrapped = wrap_parallel(model, cfg.parallel, world, device)  # FSDP shards `model` in place
    precond = None
    if cfg.standardize_aux:  # after wrapping: FSDP replaces the parameters
        precond = FcPreconditioner(draft.fc, aux_rms(ds, keep_train))
        if not resuming and not cfg.init_from:
            precond.init_columns()
    opt = make_optimizer([p for p in draft.parameters() if p.requires_grad], cfg, sharded=world > 1 and
                         cfg.parallel == "fsdp")
    warmup = warmup_steps(total_steps, cfg.warmup_ratio, cfg.warmup_steps)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(total_steps, warmup, cfg.min_lr_ratio))
    run = Run(cfg=cfg, rank=rank, world=world, device=device, use_bf16=device.type == "cuda", out=out, ds=ds,
              eval_ds=eval_ds, meta=meta, keep_train=keep_train, keep_eval=keep_eval, draft=draft, model=model,
              wrapped=wrapped, opt=opt, sched=sched, teacher=Teacher(meta["teacher_kind"], draft, norm, lm_head),
              info=info, vocab_report=vocab_report, total_steps=total_steps, precond=precond)
    if resuming:
        ck = torch.load(resume_from / "trainer.pt", weights_only=False)
        load_optimizer_state(model, opt, ck["optimizer"])
        sched.load_state_dict(ck["scheduler"])
        _set_rng_state(ck["rng"])
        st = ck["state"]
        run.step, run.cursor, run.best, run.counters = st["step"], Cursor(*st["cursor"]), st["best"], st["counters"]
        stored_order = st.get("shuffle_seed")  # checkpoints from before shuffling: the stored order
        if stored_order != run.shuffle_seed:
            have = "the stored order" if stored_order is None else f"a shuffled order (seed {stored_order})"
            raise TrainError(f"{resume_from}: this run read its data in {have}; resume it with the same "
                             f"--seed and --shuffle/--no-shuffle (its data position means nothing in another order)")

    if rank == 0:
        out.mkdir(parents=True, exist_ok=True)
        (out / "vocab.json").write_text(json.dumps(vocab_report, indent=1))
        # the head's folder says which terms its training rows came under (eaglekit.sources)
        (out / "sources.json").write_text(json.dumps(ds.sources, indent=1))
    if rank == 0 and resuming:
        # the killed run logged steps past its last checkpoint; this run logs them again from that step
        _truncate_metrics(out / "metrics.jsonl", run.step)
    run.metrics_f = open(out / "metrics.jsonl", "a") if rank == 0 else None
    run.tb = _tensorboard(out) if rank == 0 else None

    data = iter_docs(ds, run.cursor, keep_train, shuffle_seed=run.shuffle_seed)
    run.batches = prefetch(global_batches(pack(data, cfg.seq_len, meta), cfg.batch_size, world, rank, run.empty_row),
                           cfg.prefetch)
    run.progress = _progress(cfg.progress and rank == 0, total_steps, run.step)
    run.t0, run.tok0 = time.perf_counter(), run.counters["tokens"]
    model.train()
    return run


def _new_draft(cfg: TrainConfig, ds, target, embed, meta: dict, keep_train, data_name: str):
    """A head for a new run: the draft vocabulary from the supervised tokens (or --init-from's head and its
    vocabulary); returns (head, vocabulary report)."""
    counts = count_supervised(ds, int(target.config.vocab_size), keep_train)
    if cfg.init_from:
        draft = init_draft(cfg.init_from, target, embed, aux_ids_hf(meta))
        if cfg.draft_vocab_size and cfg.draft_vocab_size != draft.cfg.draft_vocab_size:
            raise TrainError(f"--draft-vocab-size {cfg.draft_vocab_size}: the head in {cfg.init_from} has "
                             f"{draft.cfg.draft_vocab_size} (--init-from keeps its vocabulary)")
        covered = int(counts[draft.draft_ids().cpu().numpy()].sum())
        return draft, {"draft_vocab_size": draft.cfg.draft_vocab_size, "init_from": str(cfg.init_from),
                       "coverage": round(covered / max(1, int(counts.sum())), 6),
                       "supervised_tokens": int(counts.sum())}
    try:
        vocab = build_vocab(counts, cfg.draft_vocab_size, None if cfg.draft_vocab_size else cfg.vocab_coverage)
    except ValueError as err:
        raise TrainError(f"{data_name}: {err}") from err
    draft = Eagle3Draft(DraftConfig.from_target(target.config, vocab.size, aux_ids_hf(meta)), embed)
    draft.set_vocab(vocab.draft_ids)
    with torch.no_grad():  # start from the target's own output rows: the draft's logits begin in its space
        w = target.model.lm_head.weight
        draft.lm_head.weight.copy_(w[draft.draft_ids().to(w.device)].to(draft.lm_head.weight))
    return draft, vocab.report()


# ---------------------------------------------------------------------------------------------
# Step, eval, save, finish

def train_step(run: Run) -> bool:
    """One optimizer step on the next global batch, and a metrics record every log_every steps. False when
    the batch held non-finite values and was skipped (nan_policy skip; stop raises)."""
    cfg = run.cfg
    b, next_cursor = next(run.batches)
    b = run.to_dev(b)
    bad = torch.tensor([0.0 if _finite(b) else 1.0], device=run.device)
    if _all_sum(bad).item() > 0:
        run.counters["skipped_nan"] += 1
        if cfg.nan_policy == "stop":
            raise TrainError(f"non-finite values in a batch holding rows {b['doc_ids'][:8]}; check those "
                             f"rows (`eaglekit data inspect`), or pass --nan-policy skip to skip such batches")
        run.cursor, run.step = next_cursor, run.step + 1
        run.sched.step()
        return False
    loss, stats, denom = run.run_batch(b, True)
    run.opt.zero_grad(set_to_none=True)
    loss.backward()
    if run.precond is not None:
        run.precond.scale_grad()
    gnorm = torch.nn.utils.clip_grad_norm_([p for p in run.draft.parameters() if p.requires_grad], cfg.grad_clip)
    if isinstance(gnorm, DTensor):
        gnorm = gnorm.full_tensor()
    if torch.isfinite(gnorm):
        if run.precond is not None:
            run.precond.step(run.opt)   # opt.step() with fc's update in standardized-input coordinates
        else:
            run.opt.step()
    else:
        run.counters["skipped_nan"] += 1
        if cfg.nan_policy == "stop":
            raise TrainError(f"step {run.step}: non-finite gradient (lr {run.sched.get_last_lr()[0]:.2e}); lower "
                             f"--lr or pass --nan-policy skip")
    run.sched.step()
    run.step, run.cursor = run.step + 1, next_cursor
    stats = _all_sum(stats.detach().clone())
    n_tok = int(_all_sum(torch.tensor([float((b["seg"] >= 0).sum())], device=run.device)).item())
    run.counters["tokens"] += n_tok
    run.agg = stats if run.agg is None else run.agg + stats
    run.agg_l = denom if run.agg_l is None else run.agg_l + denom
    if run.step % cfg.log_every == 0 or run.step == run.total_steps:
        s = summarize(run.agg, run.agg_l)
        dt = time.perf_counter() - run.t0
        loss_w = sum(cfg.step_weight ** k * v for k, v in enumerate(s["loss_k"]))
        rec = {"step": run.step, "lr": run.sched.get_last_lr()[0], "loss": loss_w,
               "tokens": run.counters["tokens"], "tok_s": (run.counters["tokens"] - run.tok0) / max(dt, 1e-9),
               "skipped_nan": run.counters["skipped_nan"], "grad_norm": float(gnorm)} | s
        run.log(rec)
        run.progress.update(run.step, rec)
        run.agg, run.agg_l, run.t0, run.tok0 = None, None, time.perf_counter(), run.counters["tokens"]
    return True


def evaluate(run: Run) -> dict:
    """Held-out loss, accuracies and the simulated acceptance length ({} when there are no held-out rows)."""
    cfg = run.cfg
    docs = iter_docs(run.eval_ds or run.ds, Cursor(), run.keep_eval, loop=False)
    docs = (d for i, d in enumerate(docs) if i < cfg.eval_max_rows)
    total, n_tok = None, 0
    run.model.eval()
    with torch.no_grad():
        for b, _ in global_batches(pack(docs, cfg.seq_len, run.meta), cfg.batch_size, 1, 0, run.empty_row):
            b = run.to_dev(b)
            _, stats, _ = run.run_batch(b, False)
            total = stats if total is None else total + stats
            n_tok += int((b["seg"] >= 0).sum())
    run.model.train()
    if total is None:
        return {}
    return summarize(total) | {"eval_tokens": n_tok}


def evaluate_and_keep_best(run: Run) -> None:
    ev = evaluate(run)
    if not ev:
        return
    run.log({"step": run.step, "eval": True} | ev)
    if ev["sim_accept_len"] > run.best["sim_accept_len"]:
        run.best = {"sim_accept_len": ev["sim_accept_len"], "step": run.step, "eval": ev}
        weights, _ = gather_state(run.model)
        if run.rank == 0:
            save_checkpoint(run.out / "best", weights, run.info | {"step": run.step, "eval": ev})


def save(run: Run) -> None:
    """A resumable checkpoint of the step (weights, optimizer, scheduler, RNG, data position, best so far);
    only the newest keep_checkpoints stay."""
    import shutil
    weights, opt_state = gather_state(run.model, run.opt)
    if run.rank == 0:
        state = {"step": run.step, "cursor": list(run.cursor), "best": run.best, "counters": run.counters,
                 "shuffle_seed": run.shuffle_seed}
        save_checkpoint(run.out / "checkpoints" / f"step-{run.step:08d}", weights, run.info | {"step": run.step},
                        opt_state, run.sched, state)
        for old in sorted((run.out / "checkpoints").glob("step-*"))[: -run.cfg.keep_checkpoints]:
            shutil.rmtree(old, ignore_errors=True)
    if dist.is_initialized():
        dist.barrier()


def finish(run: Run) -> dict:
    """best/ (the last weights when nothing was held out) and the run's summary.json."""
    best, out = run.best, run.out
    if best["step"] is None and not run.stopped_early:
        # No held-out rows: the last weights are the result.
        weights, _ = gather_state(run.model)
        if run.rank == 0:
            save_checkpoint(out / "best", weights, run.info | {"step": run.step, "eval": None})
    summary = {"stopped_early": run.stopped_early, "step": run.step, "total_steps": run.total_steps,
               "best_checkpoint": str(out / "best"),
               "best_step": best["step"], "sim_accept_len": best["sim_accept_len"] if best["step"] else None,
               # the same on SGLang's / the bench's scale (tokens per verify step, bonus included)
               "sim_tau": round(1.0 + best["sim_accept_len"], 6) if best["step"] else None,
               "best_eval": best.get("eval"), "vocab": run.vocab_report, "skipped_nan": run.counters["skipped_nan"],
               "tokens": run.counters["tokens"], "world_size": run.world,
               "parallel": run.cfg.parallel if run.world > 1 else "none", "sources": run.ds.sources}
    if run.rank == 0:
        (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


# ---------------------------------------------------------------------------------------------
# Helpers

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


def make_optimizer(params: list, cfg: TrainConfig, sharded: bool = False) -> torch.optim.Optimizer:
    """AdamW over the head's trainable parameters. The fused kernel (one pass over each tensor instead of
    about ten) takes the optimizer step from ~32-39 ms to ~9 ms on the 2-core CPU box (a twentieth of a
    quickstart step); FSDP's sharded DTensor parameters keep the foreach one."""
    return torch.optim.AdamW(params, lr=cfg.lr, weight_decay=cfg.weight_decay, betas=(0.9, 0.95),
                             fused=not sharded)


def warmup_steps(total: int, ratio: float, at_least: int) -> int:
    """Warm-up length: the larger of ratio x total and `at_least`, but at most a tenth of the run (and >= 1)."""
    return max(1, max(int(ratio * total), min(int(at_least), total // 10)))


def lr_lambda(total: int, warmup: int, min_ratio: float):
    def f(step: int) -> float:
        if step < warmup:
            return (step + 1) / warmup
        t = min(1.0, (step - warmup) / max(1, total - warmup))
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * t))
    return f


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


def _on_device(module: nn.Module, device: torch.device, own: bool) -> nn.Module:
    """The module on the training device; a caller's target is copied rather than moved, so it still works
    where the caller keeps it (found on a GPU: training moved a CPU target's embedding to CUDA in place)."""
    p = next(module.parameters(), None)
    if own or p is None or p.device == device:
        return module.to(device)
    return copy.deepcopy(module).to(device)


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
