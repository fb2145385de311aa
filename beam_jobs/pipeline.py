"""The whole data pipeline (clean -> generate -> featurize) from one YAML config file.

Each stage runs as its own Beam job, in order, on the same runner: each writes a complete, validated
output (manifest last) that the next reads, so a failed stage is re-run alone and the CPU-only clean
job never holds GPU workers. On Dataflow the model steps carry a GPU resource hint (`accelerator`).
Every key is checked before any work starts: an unknown key or a value of the wrong type is an error
naming it.
"""
from __future__ import annotations

import inspect
import re
import types
import typing
from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping


from beam_jobs.clean import CleanConfig
from beam_jobs.featurize import FeaturizeConfig
from beam_jobs.generate import GenerateConfig
from eaglekit.config import ConfigError, from_mapping

STAGE_ORDER = ("clean", "generate", "featurize")


@dataclass
class RunConfig:
    """`eaglekit beam run --config run.yaml`: one section per stage; outputs default under `workdir`."""
    workdir: str = "runs/eaglekit"                                   # stage outputs go to workdir/<stage>
    stages: list[str] = field(default_factory=lambda: list(STAGE_ORDER))  # which stages to run, in order
    accelerator: str | None = None    # Beam resource hint for generate/featurize on Dataflow, e.g. type:nvidia-l4;count:1;install-nvidia-driver
    clean: dict = field(default_factory=dict)
    generate: dict = field(default_factory=dict)
    featurize: dict = field(default_factory=dict)


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
        values = {**section, **{k: v for k, v in wired[stage].items() if k in _field_names(cls)}}
        check_types(cls, values, stage)
        try:
            out[stage] = from_mapping(cls, values, stage)
            if hasattr(out[stage], "check"):
                out[stage].check()
        except (TypeError, ValueError) as err:
            raise ConfigError(f"{stage}: {getattr(err, 'message', None) or err}") from None
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
    check_types(RunConfig, raw, str(path))
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


# ---------------------------------------------------------------------------------------------
# Type checks and generated help: the dataclasses are the single source of truth for both.

def _field_names(cls) -> set[str]:
    return {f.name for f in fields(cls)}


def _type_ok(value: Any, hint: Any) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin in (list, tuple):
        return isinstance(value, (list, tuple)) and all(_type_ok(v, args[0]) for v in value) if args else \
            isinstance(value, (list, tuple))
    if origin is dict or hint is dict:
        return isinstance(value, dict)
    if is_dataclass(hint):
        return isinstance(value, Mapping) or isinstance(value, hint)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def check_types(cls, values: Mapping[str, Any], where: str) -> None:
    """Raise ConfigError naming the first key whose value has the wrong type (nested sections too)."""
    hints = typing.get_type_hints(cls)
    known = _field_names(cls)
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown key {key!r}; known: {', '.join(sorted(known))}")
        hint = hints[key]
        if is_dataclass(hint) and isinstance(value, Mapping):
            check_types(hint, value, f"{where}.{key}")
        elif not _type_ok(value, hint):
            raise ConfigError(f"{where}.{key}: expected {_type_name(hint)}, got {value!r}")


def _type_name(hint) -> str:
    return re.sub(r"typing\.|<class '([^']+)'>", r"\1", str(hint))


def _comments(cls) -> dict[str, str]:
    """Trailing `# comments` of a dataclass's field lines: the config's documentation."""
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):
        return {}
    out = {}
    for line in source.splitlines():
        m = re.match(r"\s+(\w+)\s*:[^#]*#\s*(.+)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


def describe_config() -> str:
    """Every key of run.yaml with its type, default and meaning (for `eaglekit beam run --help`)."""
    lines = []

    def walk(cls, prefix: str, skip=()):
        docs, hints = _comments(cls), typing.get_type_hints(cls)
        for f in fields(cls):
            if f.name in skip or f.name in ("clean", "generate", "featurize") and cls is RunConfig:
                continue
            hint = hints[f.name]
            if is_dataclass(hint):
                walk(hint, f"{prefix}{f.name}.")
                continue
            default = f.default if f.default is not MISSING else (
                f.default_factory() if f.default_factory is not MISSING else None)
            lines.append(f"{prefix}{f.name} ({_type_name(hint)}, " + ("required" if f.default is MISSING and f.default_factory is MISSING else f"default {default!r}") + ")"
                         + (f": {docs[f.name]}" if f.name in docs else ""))

    walk(RunConfig, "")
    for stage, cls in _STAGE_CLASSES.items():
        walk(cls, f"{stage}.", skip=_WIRED[stage] + (("accelerator",) if stage != "clean" else ()))
    return "\n".join(lines)
