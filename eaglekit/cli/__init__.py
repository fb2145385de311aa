"""The `eaglekit` command: the CLI layer, on top of everything else. It parses options, builds a typed
config and calls the library (eaglekit), a Beam stage (beam_jobs) or the server (serving); all click code
lives in this package and nothing below it imports it (tests/test_layers.py). Command groups are
imported lazily, so `eaglekit --help` stays fast.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import logging
import sys

import click

from eaglekit import __version__

# name -> (module, attribute, one-line help). A group is listed only when its module is present.
STAGE_GROUPS = {
    "beam": ("eaglekit.cli.beam", "beam", "Run the Beam data pipelines (clean, generate, featurize)."),
    "data": ("eaglekit.cli.data", "data", "Inspect and verify feature shards."),
    "train": ("eaglekit.cli.train", "train", "Train an EAGLE-3 draft head and export it."),
    "serve": ("eaglekit.cli.serve", "serve", "Serve a target with its draft head (SGLang, vLLM, embedded)."),
    "bench": ("eaglekit.cli.bench", "bench", "Benchmark acceptance length, TPOT and throughput."),
    "quickstart": ("eaglekit.cli.quickstart", "quickstart", "Run the whole loop on embedded defaults."),
}


def _present(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _is_user_error(err: Exception) -> bool:
    defined_here = type(err).__module__.split(".")[0] in ("eaglekit", "beam_jobs", "serving", "schemas")
    return defined_here or isinstance(err, (FileNotFoundError, NotADirectoryError, PermissionError))


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        lazy = [name for name, (mod, _, _) in STAGE_GROUPS.items() if _present(mod)]
        return sorted(set(super().list_commands(ctx)) | set(lazy))

    def get_command(self, ctx, name):
        if name in STAGE_GROUPS and name not in self.commands and _present(STAGE_GROUPS[name][0]):
            module, attr, _ = STAGE_GROUPS[name]
            return getattr(importlib.import_module(module), attr)
        return super().get_command(ctx, name)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as err:
            from eaglekit.config import ConfigError
            if isinstance(err, ConfigError):  # a bad option or config value: a usage error, exit 2
                raise click.UsageError(str(err), ctx) from err
            # Errors eaglekit raises on purpose (bad input, wrong model, contract mismatch) carry a message
            # that names the problem and the fix: show it, not a traceback. Anything else is a bug: re-raise.
            if _is_user_error(err):
                raise click.ClickException(f"{type(err).__name__}: {err}") from err
            raise

    def format_commands(self, ctx, formatter):
        rows = []
        for name in self.list_commands(ctx):
            if name in STAGE_GROUPS and name not in self.commands:
                rows.append((name, STAGE_GROUPS[name][2]))
            else:
                rows.append((name, self.commands[name].get_short_help_str(limit=70)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def quiet_beam(verbose: int) -> None:
    """Beam's own warnings (a multi-process run relays every worker's WARN lines, pages of them) only
    with -v; errors always."""
    logging.getLogger("apache_beam").setLevel(logging.WARNING if verbose else logging.ERROR)


class _NotOurs(logging.Filter):
    """Drops the lines libraries log straight to the root logger that say nothing a user can act on."""
    LINES = ("Resource module is not available",)  # Beam's RunInference, once per batch where its extra is absent

    def filter(self, record: logging.LogRecord) -> bool:
        return not any(line in record.getMessage() for line in self.LINES)


_ROOT_FILTER = _NotOurs()


def quiet(verbose: int) -> None:
    """Output that is not ours to show, hidden unless -v: Beam's warnings and worker WARN lines,
    transformers' progress bars ("Loading weights") and advisories (the `past_key_values` deprecation),
    Beam's "Resource module is not available". The environment variables reach Beam's worker processes
    and a transformers imported later; a transformers already imported is set directly."""
    import os
    import sys
    import warnings
    quiet_beam(verbose)
    root = logging.getLogger()
    if verbose:
        root.removeFilter(_ROOT_FILTER)
        return
    root.addFilter(_ROOT_FILTER)
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    warnings.filterwarnings("ignore", message=".*past_key_values.*", category=FutureWarning)
    if "transformers" in sys.modules:
        from transformers.utils import logging as hf_logging
        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="eaglekit")
@click.option("-v", "--verbose", count=True, help="Also show the libraries' own warnings and progress bars (Beam's "
                                                 "worker logs, transformers' weight loading).")
def main(verbose):
    """eaglekit: compliant synthetic data, training and serving for EAGLE-3 draft heads.

    The loop: clean -> generate -> featurize (eaglekit beam run ...), inspect (eaglekit data inspect),
    train (eaglekit train), serve (eaglekit serve) and bench (eaglekit bench).
    """
    quiet(verbose)


@main.group()
def models():
    """Target models: list the built-in ones, prepare the embedded SmolLM2."""


@models.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def models_list(as_json):
    """List built-in target models and whether they are ready to use."""
    from eaglekit.models import describe_models
    rows = describe_models()
    if as_json:
        click.echo(json.dumps(rows, indent=1))
        return
    from rich.console import Console
    from rich.table import Table
    table = Table("spec", "model", "layers", "hidden", "vocab", "ready", "where")
    for r in rows:
        ready = "yes" if r["prepared"] else ("no: eaglekit models prepare" if r["installed"] else f"no: {r['source']}")
        table.add_row(r["spec"], r["model_id"], str(r["layers"]), str(r["hidden"]), str(r["vocab"]), ready, r["path"])
    Console().print(table)


@models.command("prepare")
@click.option("--force", is_flag=True, help="Convert again even when the cache looks complete.")
def models_prepare(force):
    """Convert the embedded SmolLM2 GGUF once into a cached HF folder (later loads take seconds)."""
    import time
    from eaglekit.models import ModelError, prepare_embedded
    start = time.time()
    try:
        from transformers.utils import logging as hf_logging
        hf_logging.disable_progress_bar()
        path = prepare_embedded(force=force)
    except ModelError as err:
        raise click.ClickException(str(err))
    click.echo(f"embedded target ready at {path} ({time.time() - start:.1f}s)")


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a report.")
def doctor(as_json):
    """Check the environment and say how to fix what is missing."""
    from eaglekit.doctor import run_checks
    checks = run_checks()
    if as_json:
        click.echo(json.dumps([c.__dict__ for c in checks], indent=1))
    else:
        from rich.console import Console
        from rich.markup import escape
        console = Console()
        marks = {"ok": "[green]ok[/]", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]", "info": "[blue]info[/]"}
        for c in checks:
            console.print(f"{marks[c.status]:>14}  [bold]{escape(c.name)}[/]: {escape(c.detail)}"
                          + (f"\n{'':>8}fix: {escape(c.fix)}" if c.fix else ""))
    if any(c.status == "fail" for c in checks):
        sys.exit(1)


if __name__ == "__main__":
    main()
