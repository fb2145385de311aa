"""`eaglekit bench`: benchmark the embedded engine in-process or any OpenAI-compatible endpoint."""
from __future__ import annotations

import json

import click


def _settings(values) -> list[tuple]:
    from serving.bench import parse_setting
    out = []
    for v in values:
        try:
            out.append(parse_setting(v))
        except ValueError:
            raise click.BadParameter(f"{v!r}: give STEPS,TOPK,NUM_DRAFT_TOKENS[,MIN_DRAFT_PROB in [0, 1)], e.g. "
                                     "3,1,4 or 5,4,12,0.05") from None
    return out


@click.command()
@click.option("--model", default="embedded", show_default=True, help="Target spec (embedded engine) or served model name.")
@click.option("--head", default=None, help="Exported head folder for the embedded engine, or `builtin` (the head "
                                           "shipped for the embedded target).")
@click.option("--endpoint", default=None, help="OpenAI-compatible base URL, e.g. http://127.0.0.1:30000/v1")
@click.option("--baseline-endpoint", default=None, help="Same target served without the head (for the speed-up).")
@click.option("--api-key", default=None, envvar="EAGLEKIT_API_KEY")
@click.option("--prompts", default=None, help="JSONL ({prompt|messages, category}) or text file; default: built-in mix.")
@click.option("--num-prompts", default=10, show_default=True, type=int)
@click.option("--max-tokens", default=64, show_default=True, type=int)
@click.option("--temperature", default=0.0, show_default=True, type=float)
@click.option("--concurrency", "concurrency", multiple=True, type=int, help="Repeatable; default 1.")
@click.option("--setting", "settings", multiple=True,
              help="STEPS,TOPK,NUM_DRAFT_TOKENS[,MIN_DRAFT_PROB] (repeatable); default 3,1,4.")
@click.option("--no-baseline", is_flag=True)
@click.option("--autotune", is_flag=True, help="Also try a set of chain/tree settings and pick the fastest.")
@click.option("--output", default="bench-out", show_default=True, help="Folder for report.json and PNG plots.")
@click.option("--no-plots", is_flag=True)
def bench(model, head, endpoint, baseline_endpoint, api_key, prompts, num_prompts, max_tokens, temperature,
          concurrency, settings, no_baseline, autotune, output, no_plots):
    """Acceptance length, TPOT, TTFT, throughput and speed-up vs a baseline, per category and concurrency.

    \b
    eaglekit bench --head out/head --setting 3,1,4 --setting 5,4,8 --concurrency 1 --concurrency 4
    eaglekit bench --endpoint http://127.0.0.1:30000/v1 --baseline-endpoint http://127.0.0.1:30001/v1
    """
    from eaglekit.heads import HeadError, resolve_head
    from serving.bench import BenchConfig, run_bench
    try:
        head = resolve_head(head, model)
    except HeadError as err:
        raise click.BadParameter(str(err), param_hint="--head") from None
    cfg = BenchConfig(model=model, head=head, endpoint=endpoint, baseline_endpoint=baseline_endpoint, api_key=api_key,
                      prompts=prompts, num_prompts=num_prompts, max_tokens=max_tokens, temperature=temperature,
                      concurrency=list(concurrency) or [1], settings=_settings(settings) or [(3, 1, 4)],
                      baseline=not no_baseline, autotune=autotune, output=output, plots=not no_plots)
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
