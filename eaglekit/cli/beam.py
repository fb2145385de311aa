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


def _beam_parser():
    """An argparse parser holding every flag of Beam's registered PipelineOptions classes (what
    PipelineOptions.get_all_options builds), raising instead of exiting on a bad value."""
    import argparse

    from apache_beam.options.pipeline_options import PipelineOptions, _BeamArgumentParser

    class Parser(_BeamArgumentParser):
        def error(self, message):
            raise click.UsageError(f"Beam flag: {message}")

    parser = Parser(allow_abbrev=False, add_help=False)
    seen = {}
    for cls in PipelineOptions.__subclasses__():
        seen.setdefault(str(cls), cls)
    for cls in seen.values():
        try:
            cls._add_argparse_args(parser)  # noqa: SLF001 - the registry Beam itself parses with
        except argparse.ArgumentError:  # a class registered twice (Beam's own TODO): its flags are in already
            pass
    return parser


def beam_flags(ctx: click.Context) -> tuple[str, ...]:
    """The arguments click did not know, checked to be Beam flags (`--flag value` or `--flag=value`).

    Beam discards what it cannot parse with only a log warning, so a typo (`--chek`, `--direct_num_worker 2`)
    or a stray word (`--decontaminate a.jsonl b.jsonl` would run without b.jsonl) would run the pipeline
    anyway. Here every flag must be one of Beam's registered PipelineOptions (near matches are named), and
    every word must be a flag's value; anything else stops the run before any work."""
    args = tuple(ctx.args)
    for i, a in enumerate(args):
        prev = args[i - 1] if i else ""
        if not a.startswith("-") and not (prev.startswith("--") and "=" not in prev):
            raise click.UsageError(
                f"unexpected argument {a!r}: options take one value each; repeat the option for several "
                f"(e.g. --input a.jsonl --input b.jsonl, --decontaminate x.jsonl --decontaminate y.jsonl)", ctx)
    if not args:
        return args
    parser = _beam_parser()
    _, unknown = parser.parse_known_args(list(args))
    flags = [a for a in unknown if a.startswith("-")]
    if flags:
        import difflib
        bad = flags[0].split("=", 1)[0]
        ours = [o for p in ctx.command.params for o in getattr(p, "opts", []) if o.startswith("--")]
        known = sorted(set(parser._option_string_actions) | set(ours))  # noqa: SLF001
        near = difflib.get_close_matches(bad, known, n=3, cutoff=0.6)
        # `--max_new_tokens` for `--max-new-tokens` (and back) is the likeliest slip
        swapped = bad[:2] + bad[2:].replace("_", "-") if "_" in bad else bad[:2] + bad[2:].replace("-", "_")
        if swapped in known and swapped not in near:
            near.insert(0, swapped)
        hint = f"; did you mean {' or '.join(near)}?" if near else \
            "; see --help for this command's options (Beam's own flags: --runner, --project, --temp_location, ...)"
        more = f" (and {len(flags) - 1} more: {' '.join(flags[1:])})" if len(flags) > 1 else ""
        raise click.UsageError(f"no such option: {bad}{more}: neither this command nor Beam knows it{hint}", ctx)
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

    def format_options(self, ctx, formatter):
        super().format_options(ctx, formatter)
        # `beam run --config run.yaml ...` is routed to the config command: its options belong in this help
        from beam_jobs.pipeline import config_command
        rows = [r for p in config_command.get_params(ctx) if (r := p.get_help_record(ctx)) and "--help" not in r[0]]
        with formatter.section("Options with --config (every stage from one YAML file)"):
            formatter.write_dl(rows)

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

    Other --flags pass through to Beam (e.g. --project, --region, --temp_location,
    --setup_file ./setup.py, --direct_running_mode multi_processing --direct_num_workers 2); a flag that
    neither the stage nor Beam knows stops the run before any work, naming near matches.
    """
