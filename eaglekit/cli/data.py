"""`eaglekit data ...`: look at feature shards before training on them (`inspect`), check that
every byte is what the manifest says (`verify`), write a run's data card for a reviewer (`card`), and
sample training prompts from the target itself when there is no prompt set (`synth-prompts`)."""
from __future__ import annotations

import json
import sys

import click

from eaglekit.cli.options import build, config_options
from eaglekit.contract import ContractError
from eaglekit.synth_prompts import SynthConfig


@click.group()
def data():
    """Inspect and verify feature shards; synthesize prompts."""


@data.command("inspect")
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--plot", "plot_path", default=None, help="Write length/coverage histograms to this PNG.")
@click.option("--max-rows", type=int, default=None, help="Look at the first N rows only.")
def inspect_command(path, as_json, plot_path, max_rows):
    """Schema, counts, lengths, loss-mask coverage, hidden-state health and a decoded sample."""
    from eaglekit.inspect import inspect_features, plot, render
    try:
        report = inspect_features(path, max_rows=max_rows)
    except ContractError as err:
        raise click.ClickException(str(err)) from err
    if plot_path:
        plot(report, plot_path)
    if as_json:
        click.echo(json.dumps(report))
        return
    tokenizer = None
    try:  # the sample is decoded with the target's tokenizer when it can be loaded locally
        from eaglekit.models import EMBEDDED_ID, load_target, tokenizer_hash
        model_id = report["meta"]["target_model_id"]
        target = load_target("embedded" if model_id == EMBEDDED_ID else model_id, prepare=False)
        if tokenizer_hash(target.tokenizer) == report["meta"]["tokenizer_hash"]:
            tokenizer = target.tokenizer
    except Exception:  # noqa: BLE001 - no tokenizer just means no decoded sample
        pass
    render(report, tokenizer)
    if plot_path:
        click.echo(f"plot written to {plot_path}")


@data.command("verify")
@click.argument("path")
def verify_command(path):
    """Check every shard's checksum, schema and counts; exit 1 naming each bad shard."""
    from eaglekit.shards import verify_features
    problems = verify_features(path)
    if problems:
        for p in problems:
            click.echo(f"BAD {p}", err=True)
        sys.exit(1)
    from eaglekit.shards import read_manifest
    _, manifest = read_manifest(path)
    click.echo(f"OK {len(manifest['shards'])} shard(s), {manifest.get('num_rows')} rows, "
               f"{manifest.get('num_tokens')} tokens: checksums, schemas and counts match")


@data.command("card")
@click.argument("runs", nargs=-1, required=True)
@click.option("--out", "out", default=None, help="Write the card to this file (default: print it).")
def card_command(runs, out):
    """A Markdown data card of a run (RUN: its workdir, or its stage, head and bench folders): sources and
    their terms, counts per stage, PII, decontamination, target, generation, capture, head. Every number is
    read from the manifests and checked to add up (exit 1 naming what does not)."""
    from eaglekit.card import CardError, write_card
    try:
        text = write_card(list(runs), out)
    except CardError as err:
        raise click.ClickException(str(err)) from None
    if out:
        click.echo(f"data card written to {out}")
    else:
        click.echo(text, nl=False)


@data.command("synth-prompts")
@config_options(SynthConfig)
@click.pass_context
def synth_prompts_command(ctx, **values):
    """Sample user prompts from TARGET itself (Magpie), spread over chat/code/math/writing/knowledge.

    Run the file through `eaglekit beam run clean` (with --decontaminate YOUR_EVAL_SET) before generating:
    sampled text can hold made-up names and numbers, repeats and benchmark questions."""
    from pathlib import Path

    from eaglekit.models import load_target
    from eaglekit.synth_prompts import synthesize
    cfg = build(SynthConfig, ctx, values, "synth-prompts")
    if not cfg.out:
        raise click.UsageError("Missing option '--out' (or key out in --config).", ctx)
    device = cfg.device = cfg.device or "cpu"
    dtype = cfg.dtype = cfg.dtype or ("float32" if device == "cpu" else "bfloat16")
    n, max_new_tokens = cfg.n, cfg.max_new_tokens
    import torch
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise click.BadParameter(f"{device}: no CUDA device here (torch.cuda.is_available() is False)",
                                 param_hint="--device")
    try:
        from eaglekit.config import torch_dtype
        rows = synthesize(load_target(cfg.target, dtype=torch_dtype(dtype), device=device), cfg,
                          echo=lambda m: click.echo(m, err=True))
    except ValueError as err:
        raise click.ClickException(str(err)) from err
    out = Path(cfg.out).expanduser()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text("".join(json.dumps(r) + "\n" for r in rows))
    tmp.replace(out)  # never a half-written prompt file under the final name
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["category"]] = counts.get(r["category"], 0) + 1
    click.echo(json.dumps({"written": len(rows), "out": str(out), "categories": counts}))
    if len(rows) < n:
        click.echo(f"only {len(rows)} of {n} prompts: the model rarely ended a message within --max-new-tokens "
                   f"{max_new_tokens}; raise it or --temperature", err=True)
