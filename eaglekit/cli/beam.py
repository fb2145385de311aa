"""`eaglekit beam ...`: the Beam entry points. `eaglekit beam run STAGE` runs one stage (clean, generate,
featurize); `eaglekit beam run --config run.yaml` runs them all from one file. The commands build a stage's
typed config and call its `run_*` function in beam_jobs/; nothing below this layer knows about click."""
from __future__ import annotations

import json
from dataclasses import asdict
from typing import Iterable

import click

from beam_jobs import pii as pii_lib
from beam_jobs.clean import CLEAN
from beam_jobs.featurize import FEATURIZE
from beam_jobs.generate import GENERATE
from beam_jobs.io import YieldError
from beam_jobs.pii_policy import EXEMPTION_NAMES
from beam_jobs.pipeline import STAGES, build_stage_configs, describe_config, load_run_config, run_pipeline, run_schema
from beam_jobs.stage import Stage, run_stage
from eaglekit.cli.options import build, config_options
from eaglekit.config import ConfigError
from eaglekit.contract import ContractError

# stage -> (click command attribute, one-line help)
STAGE_COMMANDS = {
    "clean": ("clean_command", "Dedupe, decontaminate and PII-filter prompt sets."),
    "generate": ("generate_command", "Write target responses as exact token ids."),
    "featurize": ("featurize_command", "Capture aux hidden states into Arrow shards."),
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
        if args and args[0] not in STAGE_COMMANDS and any(a == "--config" or a.startswith("--config=") for a in args):
            args = ["config", *args]
        return super().parse_args(ctx, args)

    def get_help(self, ctx):
        return super().get_help(ctx) + "\n\nConfig file keys (eaglekit beam run --config run.yaml):\n" + \
            "\n".join("  " + line for line in describe_config().splitlines())

    def format_options(self, ctx, formatter):
        super().format_options(ctx, formatter)
        # `beam run --config run.yaml ...` is routed to the config command: its options belong in this help
        rows = [r for p in config_command.get_params(ctx) if (r := p.get_help_record(ctx)) and "--help" not in r[0]]
        with formatter.section("Options with --config (every stage from one YAML file)"):
            formatter.write_dl(rows)

    def list_commands(self, ctx):
        return list(STAGE_COMMANDS)

    def get_command(self, ctx, name):
        if name == "config":
            return config_command
        return globals()[STAGE_COMMANDS[name][0]] if name in STAGE_COMMANDS else None

    def format_commands(self, ctx, formatter):
        rows = [(s, STAGE_COMMANDS[s][1]) for s in self.list_commands(ctx)]
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


# ---------------------------------------------------------------------------------------------
# clean


def _parse_policies(specs: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """(policies, entity types to keep) from ENTITY=POLICY specs over the defaults; the names are checked
    against the PII engine by run_clean (check_pii_policies)."""
    policies, keep = dict(pii_lib.DEFAULT_POLICIES), []
    allowed = (*pii_lib.POLICIES, "keep")  # read now: the pii module may add policies
    for spec in specs:
        entity, sep, policy = spec.partition("=")
        entity, policy = entity.strip(), policy.strip()
        if not sep or not entity or policy not in allowed:
            forms = ", ".join(f"ENTITY={p}" for p in allowed)
            raise click.BadParameter(f"{spec!r}: use {forms} (e.g. PERSON=drop)", param_hint="--pii-policy")
        if policy == "keep":
            policies.pop(entity, None)
            keep.append(entity)
        else:
            policies[entity] = policy
            keep = [k for k in keep if k != entity]
    return policies, keep


def _name_exemptions(spec: str) -> tuple[str, ...]:
    """`--pii-keep-names-in`: 'none' or a comma-separated subset of EXEMPTION_NAMES (checked by PiiConfig)."""
    spec = spec.strip()
    names = () if spec in ("", "none") else tuple(p.strip() for p in spec.split(",") if p.strip())
    bad = [n for n in names if n not in EXEMPTION_NAMES]
    if bad:
        raise click.BadParameter(f"{', '.join(bad)}: use 'none' or any of {', '.join(EXEMPTION_NAMES)}, "
                                 f"comma-separated", param_hint="--pii-keep-names-in")
    return names


def _stage_command(stage: Stage, doc: str, nested=None, options=(), overrides=lambda extra: {},
                   user_errors: tuple = (ContractError, YieldError)) -> click.Command:
    """`eaglekit beam run STAGE`: the stage's options from its config (plus `options`, [(name, click option)],
    whose values `overrides` turns into config keys), run through the one stage runner. `user_errors`: the
    errors shown as one line (others reach the CLI's own handler)."""
    @click.command(stage.name, help=doc, context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    @config_options(stage.config, nested=nested)
    @click.option("--runner", default="DirectRunner", show_default=True, help="Beam runner (DirectRunner, DataflowRunner).")
    @click.pass_context
    def command(ctx, runner, **values):
        extra = {name: values.pop(name) for name, _ in options}
        cfg = build(stage.config, ctx, values, stage.name, overrides(extra))
        try:
            manifest = run_stage(stage, cfg, runner=runner, beam_args=beam_flags(ctx))
        except ConfigError as err:
            raise click.UsageError(str(err), ctx) from err
        except user_errors as err:  # a message naming the problem, not a traceback
            raise click.ClickException(str(err)) from None
        click.echo(f"{stage.name}: {stage.summary(manifest)} -> {cfg.output}")
    for _, option in reversed(options):
        command = option(command)
    return command


def _pii_policy(extra: dict) -> dict:
    if not extra.get("pii_policy"):
        return {}
    policies, keep = _parse_policies(extra["pii_policy"])
    return {"pii.policies": policies, "pii_keep": keep}


# clean's flags for fields of its sections (reader, near, pii); the rest come from CleanConfig's own fields
CLEAN_SECTION_FLAGS = {
    "reader.all_user_turns": "--all-turns", "reader.prompt_fields": "--prompt-field",
    "reader.messages_fields": "--messages-field", "reader.category_field": "--category-field",
    "reader.source_name": "--source-name", "reader.max_chars": "--max-chars",
    "near.threshold": "--near-threshold", "near.shards": "--near-shards",
    "pii.model": "--pii-model", "pii.score_threshold": "--pii-threshold",
    "pii.second_member": "--pii-second-member", "pii.spacy_member": "--pii-spacy-member",
    "pii.name_exemptions": ("--pii-keep-names-in", _name_exemptions),
    "terms.also_allowed": "--allow-licence", "terms.also_refused": "--refuse-terms",
    "terms.allow_unknown": "--allow-unknown-terms", "terms.allow_sources": "--allow-source",
}

clean_command = _stage_command(
    CLEAN, "Dedupe, decontaminate and PII-filter prompt sets into prompt records. Unknown --flags go to Beam.",
    nested=CLEAN_SECTION_FLAGS, overrides=_pii_policy, user_errors=(FileNotFoundError, ValueError),
    options=[("pii_policy", click.option("--pii-policy", multiple=True, help="ENTITY=drop|redact|keep, overriding "
                                                                             "the safe defaults (repeatable)."))])
generate_command = _stage_command(GENERATE, "Answer clean prompts with the target itself; store exact token ids.")
featurize_command = _stage_command(FEATURIZE, "Capture aux hidden states and the teacher into Arrow shards.")


# ---------------------------------------------------------------------------------------------
# every stage from one YAML file: `eaglekit beam run --config run.yaml [--runner R] [beam flags]`


@click.command("config", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.option("--config", "config_path", required=True, type=click.Path(dir_okay=False),
              help="YAML run config (see `eaglekit beam run --help` for every key).")
@click.option("--runner", default="DirectRunner", show_default=True, help="Beam runner (DirectRunner, DataflowRunner).")
@click.option("--workdir", default=None, help="Override the config's workdir.")
@click.option("--check", is_flag=True, help="Only validate the config and print the resolved stage configs.")
@click.option("--resume", is_flag=True, help="Skip stages whose output is already complete (manifest present).")
@click.pass_context
def config_command(ctx, config_path, runner, workdir, check, resume):
    """Run clean -> generate -> featurize from one config file."""
    beam_args = beam_flags(ctx)  # a mistyped flag (`--chek`) stops here, before any stage runs
    try:
        run = load_run_config(config_path, {"workdir": workdir} if workdir else None)
        configs = build_stage_configs(run)
    except ConfigError as err:
        raise click.ClickException(str(err))
    if check:
        if "clean" in configs:  # the inputs' terms too, where this machine can list the inputs
            from beam_jobs.clean import resolve_sources
            from eaglekit.sources import SourcesError
            try:
                resolve_sources(configs["clean"])
            except (SourcesError, ConfigError) as err:
                raise click.ClickException(str(err)) from None
            except (FileNotFoundError, OSError):  # data on another machine or bucket: the run checks it first
                pass
        click.echo(json.dumps({s: asdict(c) for s, c in configs.items()}, indent=1, default=str))
        return
    manifests = run_pipeline(run, runner=runner, beam_args=beam_args, echo=click.echo, resume=resume)
    for stage, m in manifests.items():
        click.echo(f"{stage}: {STAGES[stage].summary(m)}")


@beam.command("schema")
def schema_command():
    """Print the JSON schema of a run file (eaglekit beam run --config run.yaml): every key, its type,
    default, choices, range and meaning."""
    click.echo(json.dumps(run_schema(), indent=1))
