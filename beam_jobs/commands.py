"""`eaglekit beam ...`: the Beam entry points. `eaglekit beam run STAGE` runs one stage; each stage's
click command lives in its own pipeline module and is imported only when used."""
from __future__ import annotations

import importlib
import importlib.util

import click

# stage -> (module, click command attribute, one-line help)
STAGES = {
    "clean": ("beam_jobs.clean", "clean_command", "Dedupe, decontaminate and PII-filter prompt sets."),
    "generate": ("beam_jobs.generate", "generate_command", "Write target responses as exact token ids."),
    "featurize": ("beam_jobs.featurize", "featurize_command", "Capture aux hidden states into Arrow shards."),
}


def beam_flags(ctx: click.Context) -> tuple[str, ...]:
    """The arguments click did not know, checked to be Beam flags (`--flag value` or `--flag=value`).

    Beam discards a stray word with only a log warning, so `--decontaminate a.jsonl b.jsonl` would run
    without b.jsonl; a word that is neither a flag nor a flag's value stops the run here instead."""
    args = tuple(ctx.args)
    for i, a in enumerate(args):
        prev = args[i - 1] if i else ""
        if not a.startswith("-") and not (prev.startswith("--") and "=" not in prev):
            raise click.UsageError(
                f"unexpected argument {a!r}: options take one value each; repeat the option for several "
                f"(e.g. --input a.jsonl --input b.jsonl, --decontaminate x.jsonl --decontaminate y.jsonl)", ctx)
    return args


class StageGroup(click.Group):
    def parse_args(self, ctx, args):
        # `eaglekit beam run --config run.yaml ...` runs every stage: route it to the config command.
        if args and args[0] not in STAGES and any(a == "--config" or a.startswith("--config=") for a in args):
            args = ["config", *args]
        return super().parse_args(ctx, args)

    def get_help(self, ctx):
        from beam_jobs.pipeline import describe_config
        return super().get_help(ctx) + "\n\nConfig file keys (eaglekit beam run --config run.yaml):\n" + \
            "\n".join("  " + line for line in describe_config().splitlines())

    def list_commands(self, ctx):
        return [s for s, (mod, _, _) in STAGES.items() if importlib.util.find_spec(mod) is not None]

    def get_command(self, ctx, name):
        if name == "config":
            from beam_jobs.pipeline import config_command
            return config_command
        if name not in STAGES or importlib.util.find_spec(STAGES[name][0]) is None:
            return None
        module, attr, _ = STAGES[name]
        return getattr(importlib.import_module(module), attr)

    def format_commands(self, ctx, formatter):
        rows = [(s, STAGES[s][2]) for s in self.list_commands(ctx)]
        if rows:  # click refuses an empty definition list
            with formatter.section("Stages"):
                formatter.write_dl(rows)


@click.group()
def beam():
    """Run the Beam data pipelines (DirectRunner locally, DataflowRunner at scale)."""


@beam.group(cls=StageGroup)
def run():
    """Run one pipeline stage, or all of them with --config run.yaml.

    Unknown --flags pass through to Beam (e.g. --project, --region, --temp_location,
    --setup_file ./setup.py, --direct_running_mode multi_processing --direct_num_workers 2).
    """
