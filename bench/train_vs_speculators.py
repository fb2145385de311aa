"""The heads users get, against the anchor: `eaglekit train` vs vLLM's speculators 0.9.0 (`speculators train`)
on identical data and the same settings wherever both tools offer one, then both heads measured the same way:
τ in the embedded engine on held-out prompts (GitHub issue #29 item 4; the trainer-speed comparison of #22
item 5 is kept: tokens/s ratio and held-out step-0 accuracy).

What is identical on both sides:
  * the conversations: eaglekit's featurize output (by default the 73 quickstart conversations, made here by
    eaglekit's clean -> generate -> featurize on eaglekit/data/prompts.jsonl with the embedded SmolLM2 target
    and cached); speculators gets the very token ids and loss masks eaglekit trains on, read from the shards
    (checked against the generate output's turns);
  * the supervised positions: eaglekit supervises a draft prediction when the *predicted* token is a
    response token, speculators when the token *before* it is; its loss mask is shifted left by one
    (m'[i] = m[i+1]) so that both supervise the same predictions;
  * the split: eaglekit's hash split of the row id (--heldout-fraction); speculators' rows are written
    training rows first, then held-out rows, and its contiguous split (--train-data-ratio) cuts exactly
    there. `speculators prepare-data` shuffles rows, so they are put back in that order afterwards;
  * the draft vocabulary: speculators builds it from `token_freq.pt`, written here from the supervised tokens
    of eaglekit's training rows only (what eaglekit counts), at the same --draft-vocab-size;
  * the hidden states: speculators reads per-row files [S, 4, H] (the three aux layers, HF hidden_states
    index = vLLM's layer id, then the final hidden *before* the final norm), written here by an fp32 forward
    of the same target with a hook on model.model.norm, stored in the features' codec (bf16);
  * settings (aligned_settings, in the JSON line's settings.aligned): one decoder layer of the classic EAGLE-3
    head (speculators' --no-norm-before-residual --no-norm-before-fc --no-norm-output: its defaults add layers
    the embedded engine and SGLang do not run), TTT steps, loss weight step_weight**k of step k, tokens per
    step (eaglekit --batch-size rows of --seq-len; speculators one packed row of as many tokens), AdamW at
    --lr with --weight-decay, a cosine schedule to 0 after the same W warm-up steps (--warmup-steps, default
    eaglekit's rule for its run), gradient clip 1.0 (speculators' fixed value), lm_head initialised from the
    target's rows and frozen (speculators': always), frozen embedding, epochs, the seed (--seeds N: seeds
    0..N-1, each given to both tools; it sets the initialisation and the data order of each), fp32 training,
    threads (--threads, default: each library's default). What still differs is listed in DIFFERENCES (the
    JSON line's settings.differ) with why: neither tool has an option that would align it.

After training (--tau-prompts FILE): speculators' last checkpoint folder is loaded as it is saved by
eaglekit.export.load_head (which checks the saved verifier embedding against the target's and refuses
architectures the engine does not run); its step-0 logits on a held-out row's stored aux states are compared
with speculators' own model forward in its interpreter (`_spec_logits`: figures.per_seed[].conversion_check).
eaglekit's best/ (its only evaluation is at the end: the final weights, as speculators' last epoch) is
exported as the trainer's final eval does. Both are measured by serving.bench.final_eval (greedy, one
request at a time, answers ending at end-of-turn or --tau-max-tokens) on the same prompts for each
--tau-settings entry (the chain (3,1,4) first: tau_margin = eaglekit's τ minus speculators' on it, goal >= 0).
`--tau-only` measures further settings (a tree) on the heads a run left, without training again.

speculators 0.9.0 (https://pypi.org/project/speculators/0.9.0/) does not train on a CPU-only host as
shipped. The launcher (this same file, run by speculators' interpreter with `_spec_train`) edits no file of
the package; it patches in memory: the trainer's local rank and device type to "cpu" (an int rank makes
torch look for an accelerator; an absent accelerator makes autocast fall back to "cuda"), the
checkpointer's device to "cpu", torch.accelerator.synchronize to a no-op without an accelerator; then it
calls the package's own `speculators.train.cli.main(TrainConfig.resolve(argv))`, i.e. what
`speculators train ARGS` runs, with: --speculator-type eagle3 --target-layer-ids --draft-vocab-size
--num-layers 1 --ttt-steps --total-seq-len --train-data-ratio --num-workers 0 --on-missing raise
--draft-attn-impl sdpa --loss-implementation eager (the fused loss needs Triton) --optimizer adamw --lr
--hidden-states-dtype float32 --epochs --log-freq 1 --no-resume-from-checkpoint --seed. The metrics its
trainer logs (logger "speculators.metrics") are recorded to a JSONL file.

Speculators comes from --speculators-python PATH (an interpreter with speculators 0.9.0), or else a venv made
in the cache folder: `pip install -c constraints speculators==0.9.0` with torch==2.13.0 and
transformers<=5.19.0, then torchvision and torchaudio removed (the PyPI builds break `import transformers`
beside a CPU torch). That needs the package index; without speculators the bench still trains eaglekit and
reports the targets with value null and the reason. It never fakes the comparison.

The two trainings of a seed run as two processes at once that take the CPU in turns of --turn-s seconds (the
other one stopped meanwhile): this box's speed drifts by +-15% within minutes, and run one after the other
(--sequential) a slow spell can fall on one tool only; in turns both see the same machine. A step cut by a
turn counts the pause: --turn-s must be several times the longer step (the recipe's 2048-token steps take
10-20 s a side on one busy thread: --turn-s 90), or the median step holds a pause (the bench warns).

Reported per seed (in the run folder's seed-<n>/): median tokens/s over the steps after the first (each tool's
own count: non-padding tokens of the step), their ratio, median step ms, the seconds each training held the
CPU (process start to exit: speculators also validates every epoch), held-out accuracy per TTT step from each
tool's own validation, and the step-0 margin: eaglekit's minus speculators', both counting a hit on the
target's best token among the draft vocabulary (speculators' definition; eaglekit's stricter own figure, a
miss where the draft cannot emit the target's top token, is reported beside it); with --tau-prompts, τ and
accept rate ((τ - 1) / draft steps) of each head per setting. The targets are over the seeds: tau_margin
(above), tok_s_ratio = the median of the per-seed ratios (goal >= 1.5); figures.summary also holds
step0_margin = the mean of the per-seed step-0 margins, with its standard error (sample sd / sqrt(N)) and the
per-seed lists in figures.summary. The held-out positions are the same for every seed, so that standard error
is the spread of training (initialisation, data order), not the sampling error of a held-out set of 15
conversations (a binomial sd of ~0.01 on each accuracy, mostly shared by the two tools since they are scored
on the same positions).

    python bench/train_vs_speculators.py [--quick] [--seeds N] [--speculators-python PATH] [--gen DIR --features DIR]
        [--tau-prompts FILE [--tau-settings "3,1,4 5,4,8"]] [--tau-only]

The first run makes the data (clean, generate, featurize: ~5-10 min on a 2-core CPU) and the venv (minutes,
~1 GB of wheels); both are cached (~/.cache/eaglekit/bench/train-vs-speculators, or under $EAGLEKIT_CACHE).
speculators' data folder (its hidden states: 1-2 min) is cached in the run folder too. The default is 10
epochs on the 73 conversations (~160 steps a side: ~10 min of training on a busy 2-core CPU). --quick trains
2 epochs on the first 32 conversations of the features (~18 steps a side: about two minutes once data, venv
and hidden states are cached, three on the first --quick run): a smoke test of the path, whose ratio is
noisier (few steps) and whose accuracy says little. --seeds N repeats both trainings N times (the data,
venv and hidden states are made once). Ends with one JSON line.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

SPECULATORS = "speculators==0.9.0"
SPECULATORS_CLIP = 1.0       # speculators' trainer clips the gradient norm at 1.0 (no option): eaglekit is given it
# speculators' own defaults for eagle3 add layers the SGLang-style EAGLE-3 head has not (norm before the residual,
# an RMSNorm over the concatenated aux states, a normed hidden fed to the next step): the embedded engine and
# SGLang run the classic head, so speculators trains that one (eaglekit.export refuses the others by name).
SPECULATORS_CLASSIC_HEAD = ("--no-norm-before-residual", "--no-norm-before-fc", "--no-norm-output",
                            "--no-embed-requires-grad")
# What still differs between the two trainings, and why: neither tool has an option that would align it.
DIFFERENCES = [
    {"setting": "AdamW betas", "eaglekit": "(0.9, 0.95)", "speculators": "(0.9, 0.999), torch's default",
     "why": "neither trainer has an option for them"},
    {"setting": "warm-up ramp", "eaglekit": "lr x (step+1)/W", "speculators": "lr x step/W (transformers' "
     "get_cosine_schedule_with_warmup: its first step at lr 0)", "why": "the same W is given to both; the ramp's "
     "formula is fixed in each"},
    {"setting": "fc preconditioning", "eaglekit": "--standardize-aux (default: fc trained as if each aux channel "
     "had unit rms; forward and saved weights unchanged)", "speculators": "none",
     "why": "speculators' nearest option (--norm-before-fc, its default) adds an RMSNorm layer that the "
     "embedded engine and SGLang's head do not run"},
    {"setting": "rows per step", "eaglekit": "--batch-size rows of --seq-len tokens (the recipe: 4 x 512; a "
     "longer conversation is cut into --seq-len pieces)", "speculators": "one packed row of --seq-len x "
     "--batch-size tokens (whole conversations)",
     "why": "speculators has no batch-size option: a step is one packed row; the tokens per step are equal"},
    {"setting": "loss", "eaglekit": "soft cross-entropy against the target's distribution on the draft vocabulary",
     "speculators": "kl_div (its eagle3 default) against the same distribution",
     "why": "equal gradients (they differ by the target's entropy, a constant); eaglekit has no KL option"},
    {"setting": "data order", "eaglekit": "its own per-epoch shuffle from --seed", "speculators": "its own "
     "sampler's shuffle from --seed", "why": "each tool orders its batches its own way"},
]


def warmup_for(args, eaglekit_steps: int) -> int:
    """The warm-up W both tools are given: --warmup-steps, else what eaglekit's default rule picks for its run
    (eaglekit.train.loop.warmup_steps: 1.5 % of the steps, at least 50 but at most a tenth of the run)."""
    if args.warmup_steps is not None:
        return args.warmup_steps
    return max(1, max(int(0.015 * eaglekit_steps), min(50, eaglekit_steps // 10)))


def aligned_settings(args, warmup: int) -> dict:
    """setting -> {"eaglekit": its flags, "speculators": its flags}: the settings both tools offer, set alike."""
    return {
        "epochs": {"eaglekit": ["--epochs", str(args.epochs)], "speculators": ["--epochs", str(args.epochs)]},
        "lr": {"eaglekit": ["--lr", str(args.lr)], "speculators": ["--optimizer", "adamw", "--lr", str(args.lr)]},
        "schedule": {"eaglekit": ["--warmup-steps", str(warmup), "--warmup-ratio", "0", "--min-lr-ratio", "0"],
                     "speculators": ["--scheduler-type", "cosine", "--scheduler-warmup-steps", str(warmup),
                                     "--scheduler-num-cosine-cycles", "0.5"]},
        "weight_decay": {"eaglekit": ["--weight-decay", str(args.weight_decay)],
                         "speculators": ["--weight-decay", str(args.weight_decay)]},
        "step_weight": {"eaglekit": ["--step-weight", str(args.step_weight)],
                        "speculators": ["--ttt-step-loss-decay", str(args.step_weight)]},
        "grad_clip": {"eaglekit": ["--grad-clip", str(SPECULATORS_CLIP)], "speculators": []},
        "lm_head": {"eaglekit": ["--lm-head", args.lm_head], "speculators": []},   # speculators: always frozen
        "ttt_steps": {"eaglekit": ["--ttt-steps", str(args.ttt_steps)],
                      "speculators": ["--ttt-steps", str(args.ttt_steps)]},
        "draft_vocab_size": {"eaglekit": ["--draft-vocab-size", str(args.draft_vocab_size)],
                             "speculators": ["--draft-vocab-size", str(args.draft_vocab_size)]},
        "tokens_per_step": {"eaglekit": ["--seq-len", str(args.seq_len), "--batch-size", str(args.batch_size)],
                            "speculators": ["--total-seq-len", str(tokens_per_step(args))]},
        "architecture": {"eaglekit": [], "speculators": ["--num-layers", "1", *SPECULATORS_CLASSIC_HEAD]},
    }


def tool_flags(settings: dict, tool: str) -> list[str]:
    return [flag for s in settings.values() for flag in s[tool]]
CONSTRAINTS = ("torch==2.13.0", "transformers<=5.19.0")
QUICK_ROWS, QUICK_EPOCHS = 32, 2


# ---------------------------------------------------------------------------------------------
# The conversion (pure: tested without speculators)

def is_heldout(row_id: str, fraction: float) -> bool:
    """eaglekit.train.data.is_heldout, restated so that speculators' interpreter needs no eaglekit."""
    h = int(hashlib.sha1(row_id.encode()).hexdigest()[:8], 16)
    return h % 100000 < fraction * 100000


def shift_mask(mask: list[int], shift: int = 1) -> list[int]:
    """speculators supervises the prediction of x[i+1] when mask[i] is set; eaglekit when mask[i+1] is. Shift
    left so that the same predictions are supervised (the last position predicts nothing)."""
    return list(mask[shift:]) + [0] * shift


def split_rows(rows: list[dict], fraction: float) -> tuple[list[dict], list[dict]]:
    """eaglekit's split: (training rows, held-out rows), each in the given (stored) order."""
    held = [r for r in rows if is_heldout(r["id"], fraction)]
    return [r for r in rows if not is_heldout(r["id"], fraction)], held


def train_data_ratio(n_train: int, n: int) -> float:
    """The --train-data-ratio whose contiguous split int(n * ratio) keeps exactly n_train rows."""
    ratio = (n_train + 0.5) / n
    assert int(n * ratio) == n_train
    return ratio


def token_freq(train: list[dict]) -> dict[int, int]:
    """Counts of the supervised tokens (unshifted mask) of the training rows: what eaglekit builds its draft
    vocabulary from (eaglekit.vocab.count_supervised over the training split)."""
    freq: dict[int, int] = {}
    for r in train:
        for tok, m in zip(r["input_ids"], r["loss_mask"]):
            if m:
                freq[int(tok)] = freq.get(int(tok), 0) + 1
    return freq


def speculators_rows(train: list[dict], held: list[dict]) -> list[dict]:
    """Pre-tokenized rows for `speculators prepare-data`: training rows then held-out rows, mask shifted."""
    return [{"id": r["id"], "input_ids": list(r["input_ids"]), "loss_mask": shift_mask(list(r["loss_mask"]))}
            for r in train + held]


def restore_order(have: list[list[int]], want: list[list[int]]) -> list[int]:
    """Indices into `have` (prepare-data's shuffled rows) that give `want`'s order; rows are matched by their
    token ids, so duplicates are refused."""
    index: dict[tuple, int] = {}
    for i, ids in enumerate(have):
        key = tuple(int(x) for x in ids)
        if key in index:
            raise ValueError(f"rows {index[key]} and {i} hold the same tokens: their order cannot be restored")
        index[key] = i
    return [index[tuple(int(x) for x in w)] for w in want]


def generate_ids(turns: list[dict]) -> tuple[list[int], list[int]]:
    """A generate row's tokens and loss mask (response tokens supervised), for the cross-check."""
    ids, mask = [], []
    for t in turns:
        ids += list(t["prompt_ids"]) + list(t["response_ids"])
        mask += [0] * len(t["prompt_ids"]) + [1] * len(t["response_ids"])
    return ids, mask


# ---------------------------------------------------------------------------------------------
# Speculators' side of the launcher (runs in speculators' interpreter: stdlib + that venv only)

def _spec_reorder(prepared: str, raw_jsonl: str, out: str) -> None:
    from datasets import load_from_disk
    ds = load_from_disk(prepared)
    want = [json.loads(line)["input_ids"] for line in open(raw_jsonl)]
    idx = restore_order(list(ds["input_ids"]), want)
    ds.select(idx).save_to_disk(out)


def _spec_train(argv: list[str]) -> None:
    import logging

    import torch
    sync = torch.accelerator.synchronize
    # The step timer synchronizes on every logged step; without an accelerator that call raises.
    torch.accelerator.synchronize = lambda *a, **k: sync(*a, **k) if torch.accelerator.is_available() else None
    import speculators.train.checkpointer as ckpt
    import speculators.train.cli as cli
    import speculators.train.trainer as trainer
    from speculators.train.config import TrainConfig

    trainer.get_local_rank = lambda: "cpu"    # an int rank (0) means "the current accelerator" to torch
    ckpt.get_current_device = lambda: "cpu"   # else "cuda:0" when loading a checkpoint
    init = trainer.Trainer.__init__

    def cpu_init(self, *a, **k):
        init(self, *a, **k)
        self.device_type = "cpu"              # else autocast("cuda") on a CPU host: silently off
    trainer.Trainer.__init__ = cpu_init

    class Record(logging.Handler):
        def __init__(self, path):
            super().__init__()
            self.f = open(path, "a")  # noqa: SIM115 - open for the whole run

        def emit(self, record):
            if isinstance(record.msg, dict) and not getattr(record, "hparams", False):
                self.f.write(json.dumps(record.msg, default=str) + "\n")
                self.f.flush()

    setup = cli.setup_metric_logger

    def setup_and_record(*a, **k):
        setup(*a, **k)
        logging.getLogger("speculators.metrics").addHandler(Record(os.environ["SPEC_METRICS_JSONL"]))
    cli.setup_metric_logger = setup_and_record
    cli.main(TrainConfig.resolve(argv))


# ---------------------------------------------------------------------------------------------
# Data (eaglekit's venv)

def cache_root() -> Path:
    base = Path(os.environ["EAGLEKIT_CACHE"]) if os.environ.get("EAGLEKIT_CACHE") else Path.home() / ".cache" / "eaglekit"
    return base / "bench" / "train-vs-speculators"


def make_quickstart_data(work: Path) -> tuple[Path, Path]:
    """eaglekit's clean -> generate -> featurize on the shipped prompts (the quickstart's stages), reused."""
    from beam_jobs.pipeline import STAGES, run_steps, stage_steps
    from eaglekit.cli.quickstart import QuickstartConfig, run_config
    run = run_config(QuickstartConfig(workdir=str(work)))
    run_steps(stage_steps(run), run.workdir, resume=True, echo=lambda m: print(f"[data] {m}", file=sys.stderr))
    return work / STAGES["generate"].folder, work / STAGES["featurize"].folder


def read_feature_rows(features: Path) -> tuple[list[dict], dict]:
    """Ids, tokens and loss masks in stored order (what eaglekit trains on), and the features' meta."""
    from eaglekit.shards import open_features
    ds = open_features(features)
    rows = [{"id": r.id, "input_ids": r.input_ids.tolist(), "loss_mask": r.loss_mask.int().tolist()}
            for r in ds.iter_rows()]
    return rows, ds.meta


def check_against_generate(rows: list[dict], gen: Path) -> None:
    """The features' tokens and masks are the generate output's turns (no truncation crept in)."""
    import pyarrow.parquet as pq
    turns = {}
    for f in sorted(gen.glob("conversations-*.parquet")):
        for r in pq.read_table(f, columns=["id", "turns"]).to_pylist():
            turns[r["id"]] = r["turns"]
    for r in rows:
        ids, mask = generate_ids(turns[r["id"]])
        if ids != r["input_ids"] or mask != r["loss_mask"]:
            raise SystemExit(f"row {r['id']}: features differ from {gen}'s turns (truncated?): not comparable")


def subset_features(features: Path, out: Path, n: int) -> Path:
    """The first n rows of `features` as a features folder of their own (--quick), reused."""
    from eaglekit.shards import open_features, read_manifest, write_feature_shards
    if (out / "manifest.json").is_file() and read_manifest(out)[1]["num_rows"] == n:
        return out
    shutil.rmtree(out, ignore_errors=True)
    ds = open_features(features)

    def rows():
        for i, row in enumerate(ds.iter_rows()):
            if i >= n:
                return
            low, mid, high = row.aux.chunk(3, dim=-1)
            yield {"id": row.id, "source": row.source, "category": row.category, "input_ids": row.input_ids,
                   "loss_mask": row.loss_mask.long(), "aux_low": low, "aux_mid": mid, "aux_high": high,
                   "teacher_hidden": row.teacher_hidden}
    write_feature_shards(out, ds.meta, rows())
    return out


def write_hidden_states(rows: list[dict], meta: dict, out: Path, features: Path) -> float:
    """speculators' offline hidden-state files hs_{i}.safetensors (row i of the reordered dataset): [S, 4, H]
    = aux layers then the final hidden before model.model.norm, from an fp32 forward of the target, in the
    features' codec. Returns the largest difference from eaglekit's stored states of the first row (same
    target and codec: bf16 rounding at most)."""
    import torch
    from safetensors.torch import save_file

    from transformers.utils import logging as hf_logging

    from eaglekit.models import load_target
    from eaglekit.shards import open_features
    hf_logging.disable_progress_bar()  # the bench's stderr is its report
    target = load_target("embedded")
    if target.metadata()["tokenizer_hash"] != meta["tokenizer_hash"]:
        raise SystemExit("the features were not made with the embedded target: speculators' hidden states would "
                         "come from another model")
    model, aux = target.model.eval(), list(meta["aux_layer_ids"])
    dtype = torch.bfloat16 if meta["hidden_codec"] == "bf16" else torch.float32
    out.mkdir(parents=True, exist_ok=True)
    pre = {}
    hook = model.model.norm.register_forward_pre_hook(lambda mod, args: pre.__setitem__("h", args[0]))
    try:
        with torch.inference_mode():
            for i, r in enumerate(rows):
                ids = torch.tensor(r["input_ids"], dtype=torch.long)
                hs = model(ids[None], output_hidden_states=True).hidden_states
                stack = torch.stack([hs[k][0] for k in aux] + [pre["h"][0]], dim=1).to(dtype)
                save_file({"hidden_states": stack.contiguous(), "token_ids": ids}, str(out / f"hs_{i}.safetensors"))
                if i == 0:
                    first = stack.float()
    finally:
        hook.remove()
    stored = next(r for r in open_features(features).iter_rows() if r.id == rows[0]["id"])
    theirs = torch.cat([stored.aux.view(first.shape[0], 3, -1), stored.teacher_hidden[:, None]], dim=1)
    return float((first - theirs).abs().max())


# ---------------------------------------------------------------------------------------------
# Speculators' interpreter

def venv_python(work: Path) -> Path:
    """A venv with speculators 0.9.0 in the cache folder (made once; needs the package index)."""
    venv = work / "spec-venv"
    py = venv / "bin" / "python"
    if py.is_file() and (venv / ".complete").is_file():
        return py
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    cons = work / "constraints.txt"
    cons.write_text("\n".join(CONSTRAINTS) + "\n")
    print(f"[speculators] pip install {SPECULATORS} into {venv} (minutes)", file=sys.stderr)
    subprocess.run([str(py), "-m", "pip", "install", "-q", "-c", str(cons), SPECULATORS], check=True)
    # The PyPI torchvision/torchaudio builds break `import transformers` beside the CPU torch wheel.
    subprocess.run([str(py), "-m", "pip", "uninstall", "-q", "-y", "torchvision", "torchaudio"], check=True)
    (venv / ".complete").write_text(SPECULATORS + "\n")
    return py


def speculators_versions(py: Path) -> dict:
    code = ("import json; from importlib.metadata import version as v; "
            "print(json.dumps({p: v(p) for p in ('speculators', 'torch', 'transformers')}))")
    proc = subprocess.run([str(py), "-c", code], capture_output=True, text=True, env=child_env(None))
    if proc.returncode:
        raise RuntimeError(f"{py} cannot report speculators' version: {proc.stderr.strip()[-300:]}")
    return json.loads(proc.stdout)


def child_env(threads: int | None) -> dict:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "COLUMNS": "160"}
    if threads:
        env["OMP_NUM_THREADS"] = env["MKL_NUM_THREADS"] = str(threads)
    return env


def run_logged(cmd: list[str], log: Path, env: dict) -> float:
    """Run `cmd` with its output in `log`; its wall seconds. A failure raises with the log's tail."""
    job = Job(cmd, log, env)
    run_in_turns([job])
    if job.rc:
        raise RuntimeError(job.failure())
    return job.active_s


class Job:
    """One training process: its command, log and environment."""

    def __init__(self, cmd: list[str], log: Path, env: dict):
        self.cmd, self.log, self.env = cmd, log, env
        self.proc, self.active_s, self.rc = None, 0.0, None

    def failure(self) -> str:
        tail = self.log.read_text(errors="replace").strip().splitlines()[-8:]
        return (f"{Path(self.cmd[0]).name} {' '.join(self.cmd[1:3])} failed (exit {self.rc}; {self.log}): "
                + " | ".join(tail))


def run_in_turns(jobs: list[Job], turn_s: float = 8.0) -> None:
    """Run the jobs as processes that take the CPU in turns of `turn_s` seconds: one runs, the others are
    stopped (SIGSTOP), round-robin until all have exited. Each tool's speed is a median over its steps, and this
    box's speed drifts by +-15% within minutes: run one after the other, a slow spell can fall on one tool
    only; in turns of a few seconds both see the same machine. A step cut by a turn counts the pause in its
    time: one step in each turn, an outlier the median passes over. The last job left runs to its end
    unstopped. Sets each job's rc and active_s (seconds it held the CPU: the wall time it would have taken
    alone)."""
    import signal
    for job in jobs:
        job.log.parent.mkdir(parents=True, exist_ok=True)
        f = job.log.open("w")
        job.proc = subprocess.Popen(job.cmd, stdout=f, stderr=subprocess.STDOUT, env=job.env, start_new_session=True)
        f.close()
        os.killpg(job.proc.pid, signal.SIGSTOP)
    try:
        while any(j.rc is None for j in jobs):
            for job in (j for j in jobs if j.rc is None):
                os.killpg(job.proc.pid, signal.SIGCONT)
                t0 = time.perf_counter()
                alone = sum(j.rc is None for j in jobs) == 1
                try:
                    job.rc = job.proc.wait(timeout=None if alone else turn_s)
                except subprocess.TimeoutExpired:
                    os.killpg(job.proc.pid, signal.SIGSTOP)
                job.active_s += time.perf_counter() - t0
    finally:
        for job in jobs:
            if job.proc is not None and job.proc.poll() is None:
                os.killpg(job.proc.pid, signal.SIGKILL)
                job.proc.wait()


# ---------------------------------------------------------------------------------------------
# The two trainings

def tokens_per_step(args) -> int:
    """speculators packs one row of --total-seq-len tokens per step; eaglekit --batch-size rows of --seq-len:
    the same tokens per optimizer step."""
    return args.seq_len * args.batch_size


def prepare_speculators_data(py: Path, rows: list[dict], meta: dict, args, run: Path, model_dir: Path,
                             features: Path) -> dict:
    """raw.jsonl + token_freq.pt -> prepare-data -> order restored -> hidden states: speculators' data folder,
    reused when made from the same rows, split, target and layers (the hidden states take minutes)."""
    import torch
    train, held = split_rows(rows, args.heldout_fraction)
    longest = max(len(r["input_ids"]) for r in rows)
    if longest > tokens_per_step(args):
        # prepare-data would truncate it (eaglekit splits it into chunks): the rows would no longer match
        raise ValueError(f"a conversation of {longest} tokens exceeds speculators' {tokens_per_step(args)}-token "
                         f"packed row (--seq-len x --batch-size)")
    raw = "".join(json.dumps(r) + "\n" for r in speculators_rows(train, held))
    key = hashlib.sha256((raw + json.dumps([tokens_per_step(args), meta["aux_layer_ids"], meta["hidden_codec"],
                                            meta["tokenizer_hash"], meta.get("target_revision")])).encode()).hexdigest()
    data, ds = run / "spec-data", run / "spec-data" / "ds"
    done = data / "complete.json"
    if done.is_file() and json.loads(done.read_text())["key"] == key:
        info = json.loads(done.read_text())
        for cached in (*ds.glob("d2t-*.npy"), *ds.glob("t2d-*.npy")):
            cached.unlink()  # speculators would reuse a vocabulary mapping cached by an earlier run
    else:
        shutil.rmtree(data, ignore_errors=True)
        data.mkdir(parents=True)
        (data / "raw.jsonl").write_text(raw)
        env = child_env(args.threads)
        run_logged([str(py.parent / "speculators"), "prepare-data", "--model", str(model_dir), "--data",
                    str(data / "raw.jsonl"), "--output", str(data / "prep"), "--seq-length", str(tokens_per_step(args)),
                    "--num-preprocessing-workers", "1"], run / "spec-prepare.log", env)
        run_logged([str(py), __file__, "_spec_reorder", str(data / "prep"), str(data / "raw.jsonl"), str(ds)],
                   run / "spec-reorder.log", env)
        t0 = time.perf_counter()
        diff = write_hidden_states(train + held, meta, ds / "hidden_states", features)
        info = {"key": key, "hidden_states_s": round(time.perf_counter() - t0, 1),
                "hidden_states_max_abs_diff_vs_features": diff}
        done.write_text(json.dumps(info))
    torch.save(token_freq(train), ds / "token_freq.pt")
    return {"ds": ds, "train_rows": len(train), "heldout_rows": len(held),
            "ratio": train_data_ratio(len(train), len(rows))} | {k: v for k, v in info.items() if k != "key"}


def speculators_job(py: Path, data: dict, meta: dict, args, run: Path, model_dir: Path, seed: int,
                    settings: dict) -> Job:
    out = run / "speculators"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    for cached in (*data["ds"].glob("d2t-*.npy"), *data["ds"].glob("t2d-*.npy")):
        cached.unlink()  # every seed builds its vocabulary mapping from token_freq.pt, as the first did
    cmd = [str(py), __file__, "_spec_train", "--speculator-type", "eagle3", "--verifier-name-or-path",
           str(model_dir), "--data-path", str(data["ds"]), "--target-layer-ids", *map(str, meta["aux_layer_ids"]),
           *tool_flags(settings, "speculators"),
           "--train-data-ratio", repr(data["ratio"]), "--num-workers", "0",
           "--on-missing", "raise", "--draft-attn-impl", "sdpa", "--loss-implementation", "eager",
           "--hidden-states-dtype", "float32", "--checkpoint-freq", str(args.epochs), "--log-freq", "1",
           "--no-resume-from-checkpoint", "--seed", str(seed), "--save-path", str(out / "ckpt"),
           "--log-dir", str(out / "logs")]
    return Job(cmd, out / "train.log", {**child_env(args.threads), "SPEC_METRICS_JSONL": str(out / "metrics.jsonl")})


def speculators_result(job: Job, args) -> dict:
    recs = [json.loads(x) for x in (job.log.parent / "metrics.jsonl").open()]
    return speculators_figures(recs, args.ttt_steps) | {"train_wall_s": round(job.active_s, 1)}


def speculators_figures(recs: list[dict], ttt: int) -> dict:
    """Per-step profile of speculators' trainer (its own tokens: document_ids != -1) after its first step, and
    its last validation's full accuracy per TTT step."""
    steps = [r for r in recs if "train" in r and r.get("profile")]
    prof = [r["profile"] for r in steps[1:]]
    val = [r["val"] for r in recs if "val" in r]
    return {"steps": len(steps), "median_tok_s": round(statistics.median(p["tokens_per_s"] for p in prof), 1),
            "median_step_ms": round(statistics.median(p["step_ms"] for p in prof), 1),
            "heldout_acc": [round(val[-1][f"full_acc_{k}_epoch"], 4) for k in range(ttt)] if val else None,
            "heldout_cond_acc": [round(val[-1][f"cond_acc_{k}_epoch"], 4) for k in range(ttt)] if val else None}


def eaglekit_job(features: Path, args, run: Path, seed: int, settings: dict) -> Job:
    out = run / "eaglekit"
    shutil.rmtree(out, ignore_errors=True)
    never = str(10 ** 9)  # one evaluation (at the end) and no step checkpoints, as on speculators' side
    cmd = [sys.executable, "-m", "eaglekit.cli", "train", "--data", str(features), "--out", str(out),
           "--heldout-fraction", str(args.heldout_fraction),
           *tool_flags(settings, "eaglekit"),
           "--seed", str(seed), "--log-every", "1", "--eval-every", never, "--save-every", never, "--no-progress"]
    return Job(cmd, run / "eaglekit-train.log", child_env(args.threads))


def eaglekit_steps(features: Path, args) -> int:
    """The optimizer steps of eaglekit's run (its own packing count over the training rows)."""
    import math

    from eaglekit.shards import open_features
    from eaglekit.train.data import count_packed_rows, is_heldout
    rows = count_packed_rows(open_features(features), lambda rid: not is_heldout(rid, args.heldout_fraction),
                             args.seq_len)
    return math.ceil(args.epochs * math.ceil(rows / args.batch_size))


def eaglekit_result(job: Job, run: Path) -> dict:
    recs = [json.loads(x) for x in (run / "eaglekit" / "metrics.jsonl").open()]
    return eaglekit_figures(recs) | {"train_wall_s": round(job.active_s, 1)}


def train_seed(features: Path, setup: tuple | None, meta: dict, args, run: Path, seed: int,
               settings: dict) -> tuple[dict, dict | None, str | None]:
    """(eaglekit's figures, speculators' or None, why they are missing) of one seed: both trainings in turns
    (run_in_turns), or one after the other with --sequential (speculators first)."""
    ours = eaglekit_job(features, args, run, seed, settings)
    theirs = None
    if setup:
        py, data, model_dir = setup
        theirs = speculators_job(py, data, meta, args, run, model_dir, seed, settings)
    jobs = [j for j in (theirs, ours) if j is not None]
    for group in ([[j] for j in jobs] if args.sequential else [jobs]):
        run_in_turns(group, args.turn_s)
    if ours.rc:
        raise RuntimeError(ours.failure())
    if theirs is None:
        return eaglekit_result(ours, run), None, None
    try:
        if theirs.rc:
            raise RuntimeError(theirs.failure())
        figs = speculators_result(theirs, args) | {k: v for k, v in data.items() if k not in ("ds",)}
    except (OSError, RuntimeError, KeyError, ValueError) as err:  # a failed run, or metrics it did not write
        return eaglekit_result(ours, run), None, f"speculators side not measured (seed {seed}): {err}"
    return eaglekit_result(ours, run), figs, None


def eaglekit_figures(recs: list[dict]) -> dict:
    """Per-step records (log every step: tok_s = the step's non-padding tokens / its seconds) after the first,
    and the last held-out evaluation's accuracy per TTT step."""
    steps = [r for r in recs if not r.get("eval")]
    toks = [b["tokens"] - a["tokens"] for a, b in zip(steps, steps[1:])]
    later = steps[1:]
    evals = [r for r in recs if r.get("eval")]
    return {"steps": len(steps), "median_tok_s": round(statistics.median(r["tok_s"] for r in later), 1),
            "median_step_ms": round(statistics.median(1000 * n / r["tok_s"] for n, r in zip(toks, later)), 1),
            "heldout_acc": [round(a, 4) for a in evals[-1]["acc"]] if evals else None,
            "heldout_acc_draft_vocab": [round(a, 4) for a in evals[-1].get("acc_draft_vocab", [])] if evals else None,
            "heldout_cond_acc": [round(a, 4) for a in evals[-1]["cacc"]] if evals else None}


# ---------------------------------------------------------------------------------------------
# The heads in the embedded engine

def speculators_checkpoint(save_path: Path) -> Path:
    """The last epoch folder speculators' trainer saved (config.json + model.safetensors)."""
    epochs = [p for p in save_path.iterdir() if p.is_dir() and not p.is_symlink() and p.name.isdigit()
              and (p / "model.safetensors").is_file()] if save_path.is_dir() else []
    if not epochs:
        raise RuntimeError(f"{save_path}: speculators saved no checkpoint")
    return max(epochs, key=lambda p: int(p.name))


def _spec_logits(ckpt: str, inputs: str, out: str) -> None:
    """Speculators' own model (its class, its forward) on the checkpoint: step-0 logits for the inputs."""
    import torch
    from safetensors.torch import load_file, save_file
    from speculators.models.eagle3 import Eagle3SpeculatorConfig
    from speculators.models.eagle3.core import Eagle3DraftModel
    cfg = Eagle3SpeculatorConfig.from_pretrained(ckpt)
    cfg.transformer_layer_config._attn_implementation = "sdpa"  # its default, flex attention, wants a GPU
    model = Eagle3DraftModel.from_pretrained(ckpt, config=cfg).float().eval()
    x = load_file(inputs)
    seen = {}
    model.lm_head.register_forward_hook(lambda mod, args, output: seen.__setitem__("logits", output))
    with torch.no_grad():
        model(hidden_states=x["aux"][None].float(), input_ids=x["ids"][None],
              document_ids=torch.zeros_like(x["ids"])[None], position_ids=torch.arange(len(x["ids"]))[None],
              ttt_steps=1)
    save_file({"logits": seen["logits"][0].contiguous()}, out)


def check_conversion(py: Path, ckpt: Path, features: Path, row_id: str, target, work: Path,
                     threads: int | None = None) -> dict:
    """speculators' forward and the embedded engine's head (eaglekit.export.load_head on the same folder) on one
    held-out row's stored aux states and tokens: their step-0 logits must agree."""
    import torch
    from safetensors.torch import load_file, save_file

    from eaglekit.draft import causal_bias
    from eaglekit.export import load_head
    from eaglekit.shards import open_features
    row = next(r for r in open_features(features).iter_rows() if r.id == row_id)
    ids, aux = row.input_ids.long(), row.aux.float()
    save_file({"ids": ids.contiguous(), "aux": aux.contiguous()}, str(work / "check-in.safetensors"))
    run_logged([str(py), __file__, "_spec_logits", str(ckpt), str(work / "check-in.safetensors"),
                str(work / "check-out.safetensors")], work / "spec-logits.log", child_env(threads))
    theirs = load_file(str(work / "check-out.safetensors"))["logits"].float()
    head = load_head(ckpt, target)
    n = len(ids)
    with torch.no_grad():
        ours = head(head.fuse(aux[None]), ids[None], torch.arange(n)[None], causal_bias(n))[1][0].float()
    return {"row": row_id, "positions": n, "max_abs_logit_diff": round(float((ours - theirs).abs().max()), 6),
            "logit_scale": round(float(theirs.abs().max()), 3),
            "argmax_agreement": round(float((ours.argmax(-1) == theirs.argmax(-1)).float().mean()), 4)}


def measure_tau(heads: dict[str, Path], args, target, log: Path | None = None) -> dict:
    """τ (tokens per verify step, bonus included) of each head in the embedded engine on --tau-prompts, each
    setting for every head before the next setting (the chain first), with serving.bench.final_eval: greedy,
    one request at a time, the same prompts, engine and target for both."""
    from serving.bench import final_eval
    out: dict[str, dict] = {name: {"runs": []} for name in heads}
    for setting in args.tau_settings:
        for name, head in heads.items():
            t0 = time.perf_counter()
            res = final_eval(target, head, args.tau_prompts, args.tau_max_tokens, [setting])
            run = res["runs"][0]
            run["accept_rate"] = accept_rate(run["accept_length"], setting)
            run["eval_s"] = round(time.perf_counter() - t0, 1)
            out[name]["runs"].append(run)
            out[name]["num_prompts"] = res["num_prompts"]
            print(f"τ {name:<12} {setting}: {run['accept_length']:.3f} (accept rate {run['accept_rate']}) "
                  f"{run['output_tok_s']:.1f} tok/s, {run['eval_s']:.0f}s", file=sys.stderr, flush=True)
            if log is not None:  # an evaluation takes minutes: what is measured survives an interrupted run
                log.write_text(json.dumps(out, indent=1))
    return out


def accept_rate(tau: float | None, setting) -> float | None:
    """Drafted tokens accepted per draft step: (τ - 1, the bonus token removed) / steps."""
    return None if tau is None else round((tau - 1) / setting[0], 4)


def tau_of(figs: dict | None, setting) -> float | None:
    for run in (figs or {}).get("runs", []):
        if tuple(run["setting"]) == tuple(setting):
            return run["accept_length"]
    return None


# ---------------------------------------------------------------------------------------------

def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help=f"{QUICK_EPOCHS} epochs on the first {QUICK_ROWS} conversations (~1 min once cached)")
    ap.add_argument("--gen", default=None, help="an existing generate output (with --features)")
    ap.add_argument("--lm-head", default="frozen", choices=("frozen", "trained"),
                    help="eaglekit's --lm-head (default frozen: speculators' lm_head is always frozen)")
    ap.add_argument("--step-weight", type=float, default=0.8,
                    help="loss weight of TTT step k = this**k on both sides (eaglekit --step-weight, speculators "
                         "--ttt-step-loss-decay; default 0.8, eaglekit's and the recipe's)")
    ap.add_argument("--weight-decay", type=float, default=0.0, help="AdamW weight decay of both (default 0)")
    ap.add_argument("--warmup-steps", type=int, default=None,
                    help="warm-up steps of both cosine schedules (default: eaglekit's rule for its run's length)")
    ap.add_argument("--tau-prompts", default=None,
                    help="after training, measure τ of both heads in the embedded engine on these held-out prompts "
                         "(serving.bench.final_eval: greedy, one request at a time)")
    ap.add_argument("--tau-max-tokens", type=int, default=64)
    ap.add_argument("--tau-only", action="store_true",
                    help="train nothing: measure τ (--tau-prompts, --tau-settings) of the heads an earlier run of "
                         "this bench left in --work's run/seed-N folders, and end with their JSON line")
    ap.add_argument("--tau-settings", default="3,1,4 5,4,8",
                    help="(steps,topk,draft tokens) settings measured, chain first (default: '3,1,4 5,4,8')")
    ap.add_argument("--features", default=None, help="its featurize output (default: made in the cache folder)")
    ap.add_argument("--speculators-python", default=None,
                    help="an interpreter with speculators 0.9.0 (default: a venv made in the cache folder)")
    ap.add_argument("--work", default=None, help="cache and run folder (default: "
                                                 "$EAGLEKIT_CACHE or ~/.cache/eaglekit, + bench/train-vs-speculators)")
    ap.add_argument("--epochs", type=int, default=None, help="default 10 (--quick: 2)")
    ap.add_argument("--heldout-fraction", type=float, default=0.2)
    ap.add_argument("--draft-vocab-size", type=int, default=8192)
    ap.add_argument("--ttt-steps", type=int, default=3)
    ap.add_argument("--seq-len", type=int, default=512)
    ap.add_argument("--batch-size", type=int, default=1,
                    help="eaglekit's rows of --seq-len per step; speculators packs --seq-len x this into one row")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--threads", type=int, default=None, help="OMP_NUM_THREADS of both trainings")
    ap.add_argument("--turn-s", type=float, default=8.0,
                    help="the two trainings run at once and take the CPU in turns of this many seconds (default 8)")
    ap.add_argument("--sequential", action="store_true",
                    help="run speculators, then eaglekit (a slow spell of the box can then fall on one tool only)")
    ap.add_argument("--seeds", type=int, default=1,
                    help="train both tools once per seed 0..N-1, the same seed on both sides (default 1: seed 0)")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error("--seeds must be at least 1")
    if not args.turn_s > 0:
        ap.error("--turn-s must be a positive number of seconds")
    args.seeds = list(range(args.seeds))
    try:
        args.tau_settings = [tuple(int(x) for x in t.split(",")) for t in args.tau_settings.split()]
    except ValueError:
        ap.error("--tau-settings: space-separated steps,topk,draft_tokens triples")
    if any(len(t) != 3 for t in args.tau_settings):
        ap.error("--tau-settings: space-separated steps,topk,draft_tokens triples")
    if (args.gen is None) != (args.features is None):
        ap.error("give --gen and --features together")
    args.epochs = args.epochs or (QUICK_EPOCHS if args.quick else 10)
    if args.tau_only and not args.tau_prompts:
        ap.error("--tau-only needs --tau-prompts")
    return args


def resolve_data(args, work: Path) -> tuple[Path, Path, list[dict], dict]:
    gen, features = (Path(args.gen), Path(args.features)) if args.gen else make_quickstart_data(work / "data")
    if args.quick:
        features = subset_features(features, work / f"features-first{QUICK_ROWS}", QUICK_ROWS)
    if args.gen and (args.features is None or not gen.is_dir()):
        raise SystemExit(f"--gen {gen}: give an existing generate output and its featurize output (--features)")
    from eaglekit.contract import ContractError
    try:
        rows, meta = read_feature_rows(features)
    except (ContractError, OSError) as err:
        raise SystemExit(f"--features: {err}") from None
    check_against_generate(rows, gen)
    if meta.get("aux_layer_convention", "hf") != "hf" or meta["teacher_kind"] != "final_hidden_prenorm":
        raise SystemExit("the features must hold HF-indexed aux layers and the pre-norm final hidden "
                         "(eaglekit beam run featurize --teacher final_hidden_prenorm)")
    return gen, features, rows, meta


def speculators_setup(args, work: Path, rows, meta, features: Path) -> tuple[tuple | None, str | None, dict]:
    """((interpreter, data, target folder), reason it is missing, versions): what each seed's speculators
    training needs, made once (the hidden states are not recomputed per seed), or None and why."""
    try:
        py = Path(args.speculators_python) if args.speculators_python else venv_python(work)
        versions = speculators_versions(py)
        from eaglekit.models import prepare_embedded
        model_dir = prepare_embedded()  # the embedded target as an HF folder: speculators' verifier
        data = prepare_speculators_data(py, rows, meta, args, work / "run", model_dir, features)
        return (py, data, model_dir), None, versions
    except (OSError, RuntimeError, subprocess.CalledProcessError, KeyError, ValueError) as err:
        return None, f"speculators side not measured: {err}", {}


def step0_margin(ours: dict, theirs: dict | None) -> float | None:
    """eaglekit's held-out step-0 accuracy minus speculators', both in speculators' definition.

    Step 0 is the step whose semantics agree exactly across the two tools. From step 1 on, eaglekit feeds
    step k at rotary position t+k (as SGLang's serving does) while speculators keeps position t. The two
    count a hit differently: speculators' full_acc compares the draft's argmax with the target's best token
    *among the draft vocabulary*; eaglekit's own `acc` with the target's best token overall (a miss where
    the draft cannot emit it: what serving sees). The margin compares like with like: eaglekit's
    acc_draft_vocab (speculators' definition) against speculators' full_acc; the strict figure is reported."""
    same_def = ours.get("heldout_acc_draft_vocab") or ours.get("heldout_acc")
    if not (theirs and theirs.get("heldout_acc") and same_def):
        return None
    return round(same_def[0] - theirs["heldout_acc"][0], 4)


def tau_summary(per_seed: list[dict], tau_settings) -> dict:
    """Per setting "steps,topk,tokens": each head's τ per seed and the mean margin eaglekit - speculators
    (None unless every seed measured both)."""
    taus = {}
    for setting in tau_settings:
        pairs = [(tau_of((s.get("tau") or {}).get("eaglekit"), setting),
                  tau_of((s.get("tau") or {}).get("speculators"), setting)) for s in per_seed]
        both = bool(pairs) and all(a is not None and b is not None for a, b in pairs)
        taus[",".join(map(str, setting))] = {
            "eaglekit": [a for a, _ in pairs], "speculators": [b for _, b in pairs],
            "margin": round(statistics.fmean(a - b for a, b in pairs), 4) if both else None}
    return taus


def aggregate(per_seed: list[dict], tau_settings=((3, 1, 4),)) -> dict:
    """The targets over seeds, from [{"seed", "eaglekit": figures, "speculators": figures or None}, ...]:
    tok_s_ratio = the median over seeds of each seed's eaglekit/speculators ratio of median tokens/s;
    step0_margin = the mean over seeds of each seed's step-0 margin (step0_margin), with its standard error
    (sample sd / sqrt(seeds); None for one seed). A target is None unless every seed measured both sides.
    The held-out positions are the same for every seed: the standard error is the spread of the training
    (initialisation and data order), not the sampling error of the held-out set. tau_margin = the mean over
    seeds of eaglekit's τ minus speculators' in the first (chain) setting (tau_summary)."""
    ratios = [round(s["eaglekit"]["median_tok_s"] / s["speculators"]["median_tok_s"], 3)
              if s.get("speculators") else None for s in per_seed]
    margins = [step0_margin(s["eaglekit"], s.get("speculators")) for s in per_seed]
    complete = bool(per_seed) and all(r is not None for r in ratios)
    has_margin = bool(per_seed) and all(m is not None for m in margins)
    n = len(per_seed)

    def mean_of(side: str, key: str) -> float | None:
        vals = [(s.get(side) or {}).get(key) for s in per_seed]
        return round(statistics.fmean(v[0] for v in vals), 4) if vals and all(vals) else None
    taus = tau_summary(per_seed, tau_settings)
    chain = taus.get(",".join(map(str, tau_settings[0]))) if tau_settings else None
    return {"seeds": [s["seed"] for s in per_seed],
            "tau_margin": chain["margin"] if chain else None,
            "tau": taus,
            "tok_s_ratio": round(statistics.median(ratios), 3) if complete else None,
            "tok_s_ratio_per_seed": ratios,
            "step0_margin": round(statistics.fmean(margins), 4) if has_margin else None,
            "step0_margin_se": (round(statistics.stdev(margins) / n ** 0.5, 4) if has_margin and n > 1 else None),
            "step0_margin_per_seed": margins,
            "eaglekit_step0_acc_draft_vocab_mean": mean_of("eaglekit", "heldout_acc_draft_vocab"),
            "eaglekit_step0_acc_mean": mean_of("eaglekit", "heldout_acc"),
            "speculators_step0_acc_mean": mean_of("speculators", "heldout_acc")}


def tau_only(args, work: Path) -> None:
    """τ of the heads already trained in work/run/seed-N (e.g. a tree measured after the run's chain)."""
    import torch

    from eaglekit.models import load_target
    if args.threads:
        torch.set_num_threads(args.threads)
    target = load_target("embedded", dtype=torch.float32, device="cpu")
    per_seed = []
    for seed in args.seeds:
        run = work / "run" / f"seed-{seed}"
        heads = {"eaglekit": run / "eaglekit" / "best",
                 "speculators": speculators_checkpoint(run / "speculators" / "ckpt")}
        per_seed.append({"seed": seed, "heads": {k: str(v) for k, v in heads.items()},
                         "tau": measure_tau(heads, args, target, run / f"tau-{len(args.tau_settings)}.json")})
    taus = tau_summary(per_seed, args.tau_settings)
    print(json.dumps({"bench": "train_vs_speculators", "mode": "tau_only", "figures": {
        "tau": taus, "per_seed": per_seed, "tau_prompts": args.tau_prompts, "tau_max_tokens": args.tau_max_tokens}}))


def main() -> None:
    args = parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    work = Path(args.work) if args.work else cache_root()
    work.mkdir(parents=True, exist_ok=True)
    if args.tau_only:
        return tau_only(args, work)
    gen, features, rows, meta = resolve_data(args, work)
    train, held = split_rows(rows, args.heldout_fraction)
    setup, reason, versions = speculators_setup(args, work, rows, meta, features)
    steps = eaglekit_steps(features, args)
    warmup = warmup_for(args, steps)
    settings = aligned_settings(args, warmup)
    target = None
    if args.tau_prompts:
        import torch

        from eaglekit.models import load_target
        if args.threads:
            torch.set_num_threads(args.threads)
        target = load_target("embedded", dtype=torch.float32, device="cpu")  # as the trainer's final eval on CPU
    per_seed = []
    for seed in args.seeds:
        run = work / "run" / f"seed-{seed}"
        ours, theirs, why = train_seed(features, setup, meta, args, run, seed, settings)
        why = why or (None if setup else reason)
        reason = reason or why
        rec = {"seed": seed, "eaglekit": ours, "speculators": theirs,
               "tok_s_ratio": round(ours["median_tok_s"] / theirs["median_tok_s"], 3) if theirs else None,
               "step0_margin": step0_margin(ours, theirs)}
        print_seed(rec, why, None if args.sequential else args.turn_s)
        if target is not None:
            heads = {"eaglekit": run / "eaglekit" / "best"}
            if theirs:
                heads["speculators"] = speculators_checkpoint(run / "speculators" / "ckpt")
                rec["conversion_check"] = check_conversion(setup[0], heads["speculators"], features, held[0]["id"],
                                                           target, run, args.threads)
                print(f"seed {seed} conversion check: {rec['conversion_check']}", file=sys.stderr, flush=True)
            rec["tau"] = measure_tau(heads, args, target, run / "tau.json")
            rec["heads"] = {k: str(v) for k, v in heads.items()}
        per_seed.append(rec)
    agg = aggregate(per_seed, args.tau_settings)
    import torch
    figures = {"summary": agg, "per_seed": per_seed, "speculators_missing": reason,
               "speculators_versions": versions, "eaglekit_torch": torch.__version__,
               "data": {"gen": str(gen), "features": str(features), "conversations": len(rows),
                        "train_rows": len(train), "heldout_rows": len(held),
                        "train_tokens": sum(len(r["input_ids"]) for r in train),
                        "train_supervised": sum(sum(r["loss_mask"]) for r in train)},
               "settings": {"epochs": args.epochs, "seeds": args.seeds, "eaglekit_steps": steps,
                            "warmup_steps": warmup, "heldout_fraction": args.heldout_fraction,
                            "threads": args.threads, "quick": args.quick,
                            "turns": "one after the other" if args.sequential else f"in turns of {args.turn_s} s",
                            "tau_prompts": args.tau_prompts, "tau_max_tokens": args.tau_max_tokens,
                            "tau_settings": [list(t) for t in args.tau_settings],
                            "aligned": settings, "differ": DIFFERENCES}}
    print_summary(agg, reason)
    targets = {"tau_margin": {"value": agg["tau_margin"], "op": ">=", "goal": 0.0},
               "tok_s_ratio": {"value": agg["tok_s_ratio"], "op": ">=", "goal": 1.5}}
    print(json.dumps({"bench": "train_vs_speculators", "targets": targets, "figures": figures}))


def print_seed(rec: dict, reason: str | None, turn_s: float | None = None) -> None:
    for name in ("eaglekit", "speculators"):
        f = rec[name]
        if f:
            print(f"seed {rec['seed']} {name:<12} {f['median_tok_s']:>8.1f} tok/s  "
                  f"{f['median_step_ms']:>7.1f} ms/step  {f['steps']} steps  wall {f['train_wall_s']:.0f}s  "
                  f"held-out acc {f['heldout_acc']}"
                  + (f" (in the draft vocabulary: {f['heldout_acc_draft_vocab']})"
                     if f.get("heldout_acc_draft_vocab") else ""),
                  file=sys.stderr, flush=True)
    print(f"seed {rec['seed']} ratio {rec['tok_s_ratio']}, step-0 acc margin {rec['step0_margin']}"
          if rec["speculators"] else f"seed {rec['seed']}: {reason}", file=sys.stderr, flush=True)
    for name in ("eaglekit", "speculators"):
        if rec[name] and turn_s is not None and rec[name]["median_step_ms"] > 1000 * turn_s / 3:
            print(f"warning: {name}'s median step ({rec[name]['median_step_ms'] / 1000:.1f} s) is over a third of "
                  f"--turn-s {turn_s}: many of its steps hold a pause; raise --turn-s", file=sys.stderr, flush=True)


def print_summary(agg: dict, reason: str | None) -> None:
    if agg["tok_s_ratio"] is None:
        print(reason, file=sys.stderr)
        return
    for key, t in agg["tau"].items():
        print(f"τ ({key}): eaglekit {t['eaglekit']}, speculators {t['speculators']}, margin {t['margin']}"
              + (" (goal >= 0)" if t["margin"] is not None and key == next(iter(agg["tau"])) else ""),
              file=sys.stderr)
    se = f" +- {agg['step0_margin_se']} (standard error over seeds)" if agg["step0_margin_se"] is not None else ""
    print(f"seeds {agg['seeds']}: median ratio {agg['tok_s_ratio']} {agg['tok_s_ratio_per_seed']} (goal >= 1.5), "
          f"mean step-0 acc margin {agg['step0_margin']}{se} {agg['step0_margin_per_seed']} (goal >= 0)",
          file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_spec_reorder":
        _spec_reorder(*sys.argv[2:5])
    elif len(sys.argv) > 1 and sys.argv[1] == "_spec_logits":
        _spec_logits(*sys.argv[2:5])
    elif len(sys.argv) > 1 and sys.argv[1] == "_spec_train":
        _spec_train(sys.argv[2:])
    else:
        main()
