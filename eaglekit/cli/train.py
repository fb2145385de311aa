"""`eaglekit train`: train a draft head on feature shards (options generated from TrainConfig), and
`eaglekit train export` to write it in SGLang or speculators format. Runs unchanged under torchrun:
  torchrun --nproc_per_node 2 -m eaglekit.cli train --data feats/ --target embedded --out runs/x
"""
from __future__ import annotations

import json
import os
import sys

import click

from eaglekit.cli.options import CONFIG_FILE, build, config_options, given, load_yaml
from eaglekit.export import ExportOptions
from eaglekit.train import TrainConfig


@click.group(invoke_without_command=True)
@click.option("--data", multiple=True, help="Features directory (manifest.json + shard-*.arrow); repeat to train on several.")
@config_options(TrainConfig)
@click.pass_context
def train(ctx, data, **options):
    """Train an EAGLE-3 draft head on feature shards (then: eaglekit train export)."""
    if ctx.invoked_subcommand is not None:
        return
    from_file = load_yaml(options[CONFIG_FILE]) if options[CONFIG_FILE] else {}
    if not (data or "data" in from_file) or not (given(ctx, "out") or "out" in from_file):
        raise click.UsageError("give --data FEATURES_DIR and --out RUN_DIR (see eaglekit train --help)")
    from eaglekit.contract import ContractError
    from eaglekit.train import TrainError
    from eaglekit.train import train as run
    cfg = build(TrainConfig, ctx, options, "train",
                overrides={"data": data[0] if len(data) == 1 else list(data)} if data else None)
    if cfg.final_eval_prompts and not os.path.isfile(cfg.final_eval_prompts):  # before hours of training
        raise click.BadParameter(f"{cfg.final_eval_prompts}: no such file", param_hint="--final-eval-prompts")
    try:
        summary = run(cfg)
    except (TrainError, ContractError) as err:
        raise click.ClickException(str(err)) from err
    if cfg.final_eval_prompts and not summary.get("stopped_early") and int(os.environ.get("RANK", "0")) == 0:
        summary = _final_eval(cfg, summary)
    click.echo(json.dumps({k: summary[k] for k in ("step", "best_checkpoint", "best_step", "sim_accept_len",
                                                     "sim_tau", "final_eval", "tokens", "skipped_nan")
                           if k in summary}))


def _final_eval(cfg: TrainConfig, summary: dict) -> dict:
    """Measure best/ in the embedded engine on --final-eval-prompts; add it to summary.json."""
    from pathlib import Path

    from eaglekit.config import torch_dtype
    from eaglekit.models import load_target
    from serving.bench import final_eval
    import torch
    device = "cuda" if cfg.device in ("auto", "cuda") and torch.cuda.is_available() else "cpu"
    target = load_target(cfg.target, dtype=torch_dtype("bfloat16" if device == "cuda" else "float32"), device=device)
    try:
        result = final_eval(target, summary["best_checkpoint"], cfg.final_eval_prompts, cfg.final_eval_max_tokens,
                            echo=lambda m: click.echo(m, err=True))
    except (ValueError, FileNotFoundError) as err:
        raise click.ClickException(f"--final-eval-prompts: {err}") from err
    result["sim_tau"] = summary.get("sim_tau")
    summary = {**summary, "final_eval": result}
    path = Path(cfg.out) / "summary.json"
    path.write_text(json.dumps(summary, indent=1))
    return summary


@train.command("export")
@click.argument("checkpoint", type=click.Path(exists=True, file_okay=False))
@click.argument("out", type=click.Path(file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["sglang", "speculators"]), default="sglang", show_default=True,
              help="SGLang's LlamaForCausalLMEagle3 layout, or vLLM's speculators layout.")
@config_options(ExportOptions)
@click.pass_context
def export_cmd(ctx, checkpoint, out, fmt, **values):
    """Export CHECKPOINT (a run dir, its best/ or a step dir) to OUT in SGLang or speculators format,
    then reload it and check every tensor against what the loader consumes."""
    from eaglekit.export import ExportError, export_head
    try:
        path = export_head(checkpoint, out, fmt, build(ExportOptions, ctx, values, "export"),
                           echo=lambda msg: click.echo(msg, err=True))
    except ExportError as err:
        raise click.ClickException(str(err)) from err
    click.echo(f"wrote {fmt} head to {path} (reload check passed)")


if __name__ == "__main__":
    sys.exit(train())
