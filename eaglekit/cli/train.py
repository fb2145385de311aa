"""`eaglekit train`: train a draft head on feature shards (options mirror TrainConfig one to one), and
`eaglekit train export` to write it in SGLang or speculators format. Runs unchanged under torchrun:
  torchrun --nproc_per_node 2 -m eaglekit.cli train --data feats/ --target embedded --out runs/x
"""
from __future__ import annotations

import json
import sys
import typing
from dataclasses import MISSING, fields

import click

from eaglekit.train import TrainConfig

_HELP = {
    "eval_data": "Held-out features directory (default: a hash split of --data).",
    "heldout_fraction": "Fraction of --data rows held out for evaluation (by row id hash).",
    "draft_vocab_size": "Draft vocabulary size (default: smallest size reaching --vocab-coverage).",
    "vocab_coverage": "Coverage of supervised tokens the draft vocabulary must reach.",
    "ttt_steps": "Training-time-test unroll length K.",
    "step_weight": "Loss weight of step k is step_weight**k (1.0 = uniform).",
    "seq_len": "Tokens per packed row.",
    "batch_size": "Packed rows per process per optimizer step.",
    "max_steps": "Optimizer steps (overrides --epochs).",
    "nan_policy": "Non-finite batch or gradient: skip (and count) or stop.",
    "parallel": "Under torchrun: ddp (replicated head) or fsdp (weights, grads and AdamW state sharded).",
    "resume": "Continue the run in --out from its latest checkpoint.",
    "init_from": "Start from this head's weights and draft vocabulary (a run's best/ or checkpoints/step-* "
                 "directory, or an exported head) and train it on --data with a fresh schedule.",
    "stop_after": "Stop after this step as if killed (testing resume).",
}
_SKIP = {"data", "target", "out"}


def _type(f):
    hint = typing.get_type_hints(TrainConfig)[f.name]
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    base = args[0] if args else hint
    return {int: int, float: float, str: str, bool: bool}.get(base, str)


def _config_options(func):
    for f in reversed([f for f in fields(TrainConfig) if f.name not in _SKIP]):
        name = "--" + f.name.replace("_", "-")
        default = None if f.default is MISSING else f.default
        typ = _type(f)
        if typ is bool:
            opt = click.option(f"{name}/--no-{f.name.replace('_', '-')}", f.name, default=default,
                               show_default=True, help=_HELP.get(f.name, ""))
        else:
            opt = click.option(name, f.name, type=typ, default=default, show_default=default is not None,
                               help=_HELP.get(f.name, ""))
        func = opt(func)
    return func


@click.group(invoke_without_command=True)
@click.option("--data", multiple=True, help="Features directory (manifest.json + shard-*.arrow); repeat to train on several.")
@click.option("--target", default="embedded", show_default=True, help="Target spec (embedded, tiny, folder, hub id).")
@click.option("--out", help="Run directory (checkpoints/, best/, metrics.jsonl, summary.json).")
@_config_options
@click.pass_context
def train(ctx, data, target, out, **options):
    """Train an EAGLE-3 draft head on feature shards (then: eaglekit train export)."""
    if ctx.invoked_subcommand is not None:
        return
    if not data or not out:
        raise click.UsageError("give --data FEATURES_DIR and --out RUN_DIR (see eaglekit train --help)")
    from eaglekit.contract import ContractError
    from eaglekit.train import TrainError
    from eaglekit.train import train as run
    cfg = TrainConfig(data=data[0] if len(data) == 1 else list(data), target=target, out=out, **options)
    try:
        summary = run(cfg)
    except (TrainError, ContractError) as err:
        raise click.ClickException(str(err)) from err
    click.echo(json.dumps({k: summary[k] for k in ("step", "best_checkpoint", "best_step", "sim_accept_len",
                                                     "sim_tau", "tokens", "skipped_nan") if k in summary}))


@train.command("export")
@click.argument("checkpoint", type=click.Path(exists=True, file_okay=False))
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["sglang", "speculators"]), default="sglang", show_default=True)
@click.option("--dtype", type=click.Choice(["bfloat16", "float16", "float32"]), default="bfloat16", show_default=True)
@click.option("--speculative-tokens", type=int, default=None, help="speculators only: proposal length.")
@click.option("--verifier", default=None, help="speculators only: target name or path (default: the trained target).")
def export_cmd(checkpoint, out, fmt, dtype, speculative_tokens, verifier):
    """Export CHECKPOINT (a run dir, its best/ or a step dir) to OUT in SGLang or speculators format,
    then reload it and check every tensor against what the loader consumes."""
    from eaglekit.export import ExportError, ExportOptions, export_head
    try:
        path = export_head(checkpoint, out, fmt, ExportOptions(dtype, speculative_tokens, verifier),
                           echo=lambda msg: click.echo(msg, err=True))
    except ExportError as err:
        raise click.ClickException(str(err)) from err
    click.echo(f"wrote {fmt} head to {path} (reload check passed)")


if __name__ == "__main__":
    sys.exit(train())
