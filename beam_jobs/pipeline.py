"""The whole data pipeline (clean -> generate -> featurize) from one YAML config file, and the one runner
of a run's steps (`run_steps`), which the quickstart uses too.

Each stage runs as its own Beam job (beam_jobs.stage.run_stage), in order, on the same runner: each writes a
complete, validated output (manifest last) that the next reads, so a failed stage is re-run alone and the
CPU-only clean job never holds GPU workers. On Dataflow the model steps carry a GPU resource hint
(`accelerator`). Every key is checked before any work starts: an unknown key, a value of the wrong type,
outside its choices or its range is an error naming it. With `resume`, a step whose output is complete
(manifest, or the step's marker file, present and valid) is skipped.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from beam_jobs.clean import CLEAN
from beam_jobs.featurize import FEATURIZE
from beam_jobs.generate import GENERATE
from beam_jobs.stage import run_stage
from eaglekit.config import ConfigError, config, describe, from_mapping, json_schema, setting

STAGES = {s.name: s for s in (CLEAN, GENERATE, FEATURIZE)}  # in run order; each declares its folder
STAGE_ORDER = tuple(STAGES)


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


def stage_dirs(workdir: str) -> dict[str, str]:
    """Each stage's output folder under `workdir` (the folder names are the stages' own declarations)."""
    return {name: f"{workdir.rstrip('/')}/{s.folder}" for name, s in STAGES.items()}


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
    for stage, cls in ((name, s.config) for name, s in STAGES.items()):
        section = dict(getattr(run, stage))
        clash = [k for k in _WIRED[stage] if k in section]
        if clash:
            raise ConfigError(f"{stage}.{clash[0]}: set by the run (workdir/stage folders); remove it from the config")
        if stage == "clean" and "inputs" not in section and "sources" not in section:
            raise ConfigError("clean.inputs: required (a list of JSONL / ShareGPT JSON / Parquet paths or globs), "
                              "or clean.sources (a sources file naming them with their licences)")
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


@dataclass
class Step:
    """One step of a run: its name, its output folder under the workdir, the file whose presence marks it
    complete, what runs it (returning the step's result: a manifest, a summary, a report), a further check
    of a complete-looking output, and how a skipped step's result is read back (default: the marker's JSON)."""
    name: str
    folder: str
    marker: str
    run: Callable[[], Any]
    valid: Callable[[Path], bool] = lambda out: True
    recorded: Callable[[Path], Any] | None = None


def _features_valid(out: Path) -> bool:
    from eaglekit.shards import ContractError, open_features
    try:
        open_features(str(out))
    except (ContractError, OSError, ValueError):
        return False
    return True


def stage_steps(run: RunConfig, runner: str = "DirectRunner", beam_args: Iterable[str] = ()) -> list[Step]:
    """The configured Beam stages of `run` as steps (every config checked first, before any work)."""
    configs = build_stage_configs(run)
    return [Step(name, STAGES[name].folder, "manifest.json",
                 lambda name=name: run_stage(STAGES[name], configs[name], runner, list(beam_args)),
                 _features_valid if name == "featurize" else (lambda out: True))
            for name in run.stages]


def run_steps(steps: Iterable[Step], workdir: str, resume: bool = False, echo=print,
              status: Callable[[str], Any] | None = None) -> tuple[dict, dict]:
    """Run `steps` in order: ({step: result}, {step: seconds}). With `resume`, a step whose output holds its
    marker (and passes its check) is skipped and its recorded result read back. `status(name)`: a context
    shown while a step runs (the quickstart's spinner)."""
    import contextlib
    results, timings = {}, {}
    for step in steps:
        out = Path(workdir) / step.folder
        if resume and (out / step.marker).is_file() and step.valid(out):
            echo(f"{step.name:<10} skipped: {out} is complete")
            results[step.name] = step.recorded(out) if step.recorded else json.loads((out / step.marker).read_text())
            timings[step.name] = 0.0
            continue
        start = time.time()
        with (status(step.name) if status else contextlib.nullcontext()):
            results[step.name] = step.run()
        timings[step.name] = time.time() - start
        echo(f"{step.name:<10} done in {timings[step.name]:.0f}s -> {out}")
    return results, timings


def run_pipeline(run: RunConfig, runner: str = "DirectRunner", beam_args: Iterable[str] = (), echo=print,
                 resume: bool = False) -> dict:
    """Run the configured stages in order; returns {stage: manifest}."""
    return run_steps(stage_steps(run, runner, beam_args), run.workdir, resume, echo)[0]


def run_schema() -> dict:
    """The JSON schema of a run file: the top-level keys and each stage's section (keys the run wires left out)."""
    schema = json_schema(RunConfig)
    for name, stage in STAGES.items():
        skip = _WIRED[name] + (("accelerator",) if name != "clean" else ())
        section = json_schema(stage.config, skip=skip)
        schema.setdefault("$defs", {}).update(section.pop("$defs", {}))
        schema["properties"][name] = section
    return schema


def describe_config() -> str:
    """Every key of run.yaml with its type, default and meaning (for `eaglekit beam run --help`), from the
    stage configs' field declarations (eaglekit.config.setting)."""
    lines = describe(RunConfig, skip=STAGE_ORDER)
    for stage, s in STAGES.items():
        lines += describe(s.config, f"{stage}.", skip=_WIRED[stage] + (("accelerator",) if stage != "clean" else ()))
    return "\n".join(lines)
