"""The one stage runner. A Beam stage (clean, generate, featurize) declares what is its own as a `Stage`:
its name, its output folder, its config, and three steps (`prepare`: check inputs before any work;
`build`: the pipeline; `tally`: count what the run wrote). `run_stage` does everything else, the same way
for every stage:

    prepare -> staging folder -> the pipeline (on `runner`) -> tally -> counts add up (in = out + dropped)
    -> yield check -> manifest (checked against schemas/manifest.json) -> publish, manifest last

A failed run removes its staging folder, except on a yield failure, whose message points at the dead
letters in it. `eaglekit beam run STAGE`, `eaglekit beam run --config` and the quickstart all run a stage
through here.
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from beam_jobs import io as bio


@dataclass
class Tally:
    """What a finished pipeline wrote, as the runner checks and records it."""
    stages: dict[str, dict]            # per step: {in, out, dropped{reason: n}} (bio.stage_counts)
    n_in: int                          # records into the stage
    n_out: int                         # records out of it
    dropped: dict[str, int]            # dead letters per reason, all steps
    manifest: dict = field(default_factory=dict)   # the stage's own manifest keys
    count_reasons: Iterable[str] | None = None     # dead-letter reasons the yield check counts (None: all)


@dataclass(frozen=True)
class Stage:
    """A Beam stage as the runner sees it."""
    name: str                   # the manifest's `stage`
    folder: str                 # its output folder in a run's workdir (the one place it is named)
    config: type                # its typed config (eaglekit.config)
    prepare: Callable[..., dict]                      # (cfg, runner, beam_args, **options) -> prepared inputs
    build: Callable[[Any, Any, dict, str], None]      # (pipeline, cfg, prepared, staging)
    tally: Callable[[Any, dict, str, Any], Tally]     # (cfg, prepared, staging, run info) -> Tally
    summary: Callable[[dict], str] = lambda m: ""     # one line for the CLI, from the manifest
    done: Callable[[dict], None] = lambda m: None     # after the publish (e.g. a throughput line)


@dataclass
class RunInfo:
    """What the runner knows of the finished pipeline: its result (Beam metrics) and wall time."""
    result: Any
    seconds: float


def run_stage(stage: Stage, cfg, runner: str = "DirectRunner", beam_args: Iterable[str] = (), **options) -> dict:
    """Run `stage` with config `cfg`; return its manifest (also `<cfg.output>/manifest.json`)."""
    beam_args = list(beam_args)
    prepared = stage.prepare(cfg, runner, beam_args, **options)
    staging = bio.staging_path(cfg.output)
    try:
        started = time.perf_counter()
        with prepared.get("display") or contextlib.nullcontext(), \
                bio.pipeline(runner, beam_args, warm_workers=prepared.get("warm_workers")) as p:
            stage.build(p, cfg, prepared, staging)
        info = RunInfo(getattr(p, "result", None), time.perf_counter() - started)
        tally = stage.tally(cfg, prepared, staging, info)
        bio.check_counts(tally.stages)
        bio.check_yield(stage.name, tally.n_in, tally.n_out, tally.dropped, cfg.max_dead_letter_share,
                       count_reasons=tally.count_reasons,
                       where=bio.FileSystems.join(staging, "dead_letters-*.jsonl"))
        options_seen = prepared.get("options")
        manifest = {**bio.manifest_header(stage.name, options_seen if options_seen is not None else _asdict(cfg),
                                         bio.runner_name(runner, beam_args)),
                    "stages": tally.stages, **tally.manifest}
        manifest = bio.finish(staging, cfg.output, manifest)
    except bio.YieldError:
        raise  # the staging folder keeps the dead letters the message points at
    except BaseException:
        bio.discard_staging(staging)
        raise
    stage.done(manifest)
    return manifest


def _asdict(cfg) -> dict:
    import dataclasses
    import json
    return json.loads(json.dumps(dataclasses.asdict(cfg), default=list))
