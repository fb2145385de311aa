"""`eaglekit bench`: benchmark the embedded engine in-process or any OpenAI-compatible endpoint."""
from __future__ import annotations

import json

import click

from eaglekit.cli.options import build, config_options
from serving.bench import BenchConfig


@click.command()
@config_options(BenchConfig)
@click.pass_context
def bench(ctx, **values):
    """Acceptance length, TPOT, TTFT, throughput and speed-up vs a baseline, per category and concurrency.

    \b
    eaglekit bench --head out/head --setting 3,1,4 --setting 5,4,8 --concurrency 1 --concurrency 4
    eaglekit bench --endpoint http://127.0.0.1:30000/v1 --baseline-endpoint http://127.0.0.1:30001/v1
    """
    from eaglekit.heads import HeadError, resolve_head
    from serving.bench import run_bench
    cfg = build(BenchConfig, ctx, values, "bench")
    try:
        cfg.head = head = resolve_head(cfg.head, cfg.model)
    except HeadError as err:
        raise click.BadParameter(str(err), param_hint="--head") from None
    output = cfg.output
    try:
        report = run_bench(cfg, echo=lambda m: click.echo(m, err=True))
    except (FileNotFoundError, ValueError) as err:
        raise click.ClickException(str(err))
    from rich.console import Console
    from rich.table import Table
    t = Table("setting", "conc", "accept", "TPOT p50 ms", "TPOT p90 ms", "TTFT p50 ms", "out tok/s", "speed-up", "failed")
    f = lambda v, d=1: "-" if v is None else f"{v:.{d}f}"  # noqa: E731
    for r in report["runs"]:
        t.add_row(json.dumps(r["setting"]), str(r["concurrency"]), f(r["accept_length"], 2), f(r["tpot_median_ms"]),
                  f(r["tpot_p90_ms"]), f(r["ttft_median_ms"]), f(r["output_tok_s"]), f(r.get("speedup"), 2),
                  str(r["failed"]))
    Console(stderr=True).print(t)
    for n in report["notes"]:
        click.echo(f"note: {n}", err=True)
    if report.get("autotune"):
        click.echo(f"autotune: {json.dumps(report['autotune'])}", err=True)
        for c, pick in report["autotune"].items():
            click.echo(f"fastest at concurrency {c}: eaglekit serve --draft {head or 'HEAD'} {pick['serve_flags']}",
                       err=True)
    click.echo(f"report: {output}/report.json" if output else json.dumps(report, default=str))
