"""What a training run takes (TrainConfig: every field declared once, from which `eaglekit train`'s options
come) and the one error it raises on purpose."""
from __future__ import annotations

from typing import Literal

from eaglekit.config import config, setting


class TrainError(RuntimeError):
    """A training run cannot start or continue; the message says what to do."""


@config
class TrainConfig:
    data: str | list[str] = setting(help="Features directory (manifest.json + shard-*.arrow), or several.", cli=False)
    target: str = setting("embedded", "Target spec (embedded, tiny, folder, hub id).")
    out: str = setting("runs/draft", "Run directory (checkpoints/, best/, metrics.jsonl, summary.json).")
    eval_data: str | None = setting(None, "Held-out features directory (default: a hash split of --data).")
    heldout_fraction: float = setting(0.05, "Fraction of --data rows held out for evaluation (by row id hash).",
                                      ge=0.0, le=1.0)
    eval_max_rows: int = setting(256, "Held-out conversations evaluated each time.", ge=1)
    draft_vocab_size: int | None = setting(None, "Draft vocabulary size (default: smallest size reaching "
                                                 "--vocab-coverage).", ge=1)
    vocab_coverage: float = setting(0.99, "Coverage of supervised tokens the draft vocabulary must reach.", ge=0.0,
                                    le=1.0)
    ttt_steps: int = setting(7, "Training-time-test unroll length K.", ge=1)
    step_weight: float = setting(0.8, "Loss weight of step k is step_weight**k (1.0 = uniform).")
    seq_len: int = setting(2048, "Tokens per packed row.", ge=1)
    batch_size: int = setting(1, "Packed rows per process per optimizer step.", ge=1)
    epochs: float = setting(1.0, "Passes over the data.", gt=0.0)
    max_steps: int | None = setting(None, "Optimizer steps (overrides --epochs).", ge=1)
    lm_head: Literal["trained", "frozen"] = setting("trained", "The head's lm_head starts as the target's lm_head rows of the draft vocabulary; "
                                      "trained updates it, frozen keeps it there (as speculators does: a cheaper "
                                      "step, ~1.2x faster on CPU, for ~0.01 less held-out step-0 accuracy on the "
                                      "quickstart conversations).")
    lr: float = setting(1e-4, "Peak learning rate (AdamW).", ge=0.0)
    warmup_ratio: float = setting(0.015, "Share of the steps spent warming up.", ge=0.0, le=1.0)
    warmup_steps: int = setting(50, "Warm-up steps at least (the larger of this and warmup_ratio x steps, at most "
                                    "a tenth of the run): a large batch at full lr from step 8 can spike.", ge=0)
    shuffle: bool = setting(True, "A new data order each epoch (shards and rows permuted, deterministic by --seed and "
                                  "epoch, resumable); off: the stored order every epoch.")
    min_lr_ratio: float = setting(0.0, "Final learning rate as a share of the peak (cosine).", ge=0.0, le=1.0)
    weight_decay: float = setting(0.0, "AdamW weight decay.", ge=0.0)
    standardize_aux: bool = setting(True, "Train fc as if each aux channel were scaled to unit rms (measured on the "
                                          "training rows): a per-column initial scale, gradient and step for fc; the "
                                          "forward and the saved weights are unchanged (eaglekit.train.precondition).")
    grad_clip: float = setting(0.5, "Gradient norm clip.", gt=0.0)
    seed: int = setting(0, "Seed of the weights' initialisation and the data order.")
    log_every: int = setting(10, "Steps between metrics.jsonl records.", ge=1)
    eval_every: int = setting(200, "Steps between held-out evaluations.", ge=1)
    save_every: int = setting(200, "Steps between checkpoints.", ge=1)
    keep_checkpoints: int = setting(2, "Step checkpoints kept (best/ is kept apart).", ge=1)
    nan_policy: Literal["skip", "stop"] = setting("skip", "Non-finite batch or gradient: skip (and count) or stop.")
    parallel: Literal["ddp", "fsdp"] = setting("ddp", "Under torchrun: ddp (replicated head) or fsdp (weights, grads and AdamW state "
                                   "sharded); one process ignores it.")
    resume: bool = setting(False, "Continue the run in --out from its latest checkpoint.")
    init_from: str | None = setting(None, "Start from this head's weights and draft vocabulary (a run's best/ or "
                                          "checkpoints/step-* directory, or an exported head) and train it on --data "
                                          "with a fresh schedule.")
    device: str = setting("auto", "auto, cpu or cuda.")
    prefetch: int = setting(4, "Batches prepared ahead by the loader thread (0: none).", ge=0)
    progress: bool = setting(True, "Show a progress bar.")
    final_eval_prompts: str | None = setting(None, "After training, run the embedded engine's greedy chain and tree "
                                                   "with best/ on these held-out prompts (JSONL with prompt or "
                                                   "messages, or text one a line) and report the measured acceptance "
                                                   "length beside the simulated one (summary.json final_eval).")
    final_eval_max_tokens: int = setting(64, "Tokens generated per final-eval prompt at most.", ge=1)
    stop_after: int | None = setting(None, "Stop after this step as if killed (testing resume); the schedule is "
                                           "unchanged.")
