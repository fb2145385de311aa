"""The whole data pipeline (clean -> generate -> featurize) from one YAML config file.

Each stage runs as its own Beam job, in order, on the same runner: each writes a complete, validated
output (manifest last) that the next reads, so a failed stage is re-run alone and the CPU-only clean
job never holds GPU workers. On Dataflow the model steps carry a GPU resource hint (`accelerator`).
Every key is checked before any work starts: an unknown key or a value of the wrong type is an error
naming it.
"""
from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any, Iterable, Mapping


from beam_jobs.clean import CleanConfig
from beam_jobs.featurize import FeaturizeConfig
from beam_jobs.generate import GenerateConfig
from eaglekit.config import ConfigError, config, describe, from_mapping, setting

STAGE_ORDER = ("clean", "generate", "featurize")


@config
class RunConfig:
    """`eaglekit beam run --config run.yaml`: one section per stage; outputs default under `workdir`."""
    workdir: str = setting("runs/eaglekit", "stage outputs go to workdir/<stage>")
    stages: list[str] = setting(factory=lambda: list(STAGE_ORDER), help="which stages to run, in order")
    accelerator: str | None = setting(None, "Beam resource hint for generate/featurize on Dataflow, e.g. type:nvidia-l4;count:1;install-nvidia-driver")
    clean: dict = setting(factory=dict)
    generate: dict = setting(factory=dict)
    featurize: dict = setting(factory=dict)


# Keys each stage gets from the run config itself rather than from the user.
_WIRED = {"clean": ("output",), "generate": ("input", "output"), "featurize": ("input", "output")}
_STAGE_CLASSES = {"clean": CleanConfig, "generate": GenerateConfig, "featurize": FeaturizeConfig}


def stage_dirs(workdir: str) -> dict[str, str]:
    return {"clean": f"{workdir}/clean", "generate": f"{workdir}/generate", "featurize": f"{workdir}/features"}


def build_stage_configs(run: RunConfig) -> dict[str, Any]:
    """Typed, checked configs for every stage of `run` (errors name the section and key)."""
    unknown = [s for s in run.stages if s not in STAGE_ORDER]
    if unknown:
        raise ConfigError(f"stages: unknown stage(s) {unknown}; choose from {list(STAGE_ORDER)}")
    dirs = stage_dirs(run.workdir.rstrip("/"))
    wired = {"clean": {"output": dirs["clean"]},
             "generate": {"input": dirs["clean"], "output": dirs["generate"]},
             "featurize": {"input": dirs["generate"], "output": dirs["featurize"]}}
    if run.accelerator:
        for stage in ("generate", "featurize"):
            wired[stage]["accelerator"] = run.accelerator
    out = {}
    for stage, cls in _STAGE_CLASSES.items():
        section = dict(getattr(run, stage))
        clash = [k for k in _WIRED[stage] if k in section]
        if clash:
            raise ConfigError(f"{stage}.{clash[0]}: set by the run (workdir/stage folders); remove it from the config")
        if stage == "clean" and "inputs" not in section:
            raise ConfigError("clean.inputs: required (a list of JSONL / ShareGPT JSON / Parquet paths or globs)")
        values = {**section, **{k: v for k, v in wired[stage].items() if k in {f.name for f in fields(cls)}}}
        out[stage] = from_mapping(cls, values, stage)
    return out


def load_run_config(path: str | Path, overrides: Mapping[str, Any] | None = None) -> RunConfig:
    import yaml
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file not found: {path}")
    try:
        raw = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise ConfigError(f"{path}: not valid YAML: {err}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of sections (clean, generate, featurize, ...)")
    raw.update(overrides or {})
    return from_mapping(RunConfig, raw, str(path))


def run_pipeline(run: RunConfig, runner: str = "DirectRunner", beam_args: Iterable[str] = (), echo=print) -> dict:
    """Run the configured stages in order; returns {stage: manifest}."""
    from beam_jobs.clean import run_clean
    from beam_jobs.featurize import run_featurize
    from beam_jobs.generate import run_generate
    configs = build_stage_configs(run)  # all checked before any stage starts
    runners = {"clean": run_clean, "generate": run_generate, "featurize": run_featurize}
    manifests = {}
    for stage in run.stages:
        echo(f"== {stage} -> {getattr(configs[stage], 'output')}")
        manifests[stage] = runners[stage](configs[stage], runner=runner, beam_args=list(beam_args))
    return manifests


def describe_config() -> str:
    """Every key of run.yaml with its type, default and meaning (for `eaglekit beam run --help`), from the
    stage configs' field declarations (eaglekit.config.setting)."""
    lines = describe(RunConfig, skip=STAGE_ORDER)
    for stage, cls in _STAGE_CLASSES.items():
        lines += describe(cls, f"{stage}.", skip=_WIRED[stage] + (("accelerator",) if stage != "clean" else ()))
    return "\n".join(lines)
