"""`eaglekit data ...`: look at feature shards before training on them (`inspect`) and check that
every byte is what the manifest says (`verify`)."""
from __future__ import annotations

import json
import sys

import click

from eaglekit.contract import ContractError


@click.group()
def data():
    """Inspect and verify feature shards."""


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
