"""Shared I/O for the Beam stages: pipeline options, dead letters, atomic outputs, manifests and
count accounting. Paths may be local or any Beam filesystem (gs:// with the gcp extra).

Conventions every stage follows:
- A stage writes into `<output>.tmp-<run>/` and only renames it to `<output>/` once complete, so a
  half-written output never looks finished (`publish_output`).
- Bad records become dead letters: `{"stage", "reason", "id", "file", "record", "detail"}` JSONL, never
  with the record's text (it may hold PII).
- `manifest.json` in the output says counts in/out/dropped per reason per stage; `check_counts`
  asserts they add up.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import uuid
from typing import TYPE_CHECKING, Any, Iterable

from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions

from eaglekit import __version__

if TYPE_CHECKING:  # for the annotation only
    from beam_jobs.forkserver import WarmWorkers

DEAD_LETTER_FIELDS = ("stage", "reason", "id", "file", "record", "detail")


def pipeline_options(runner: str = "DirectRunner", beam_args: Iterable[str] = ()) -> PipelineOptions:
    """Pipeline options for `runner` plus any pass-through Beam flags (--project, --region, ...)."""
    args = list(beam_args)
    if not any(a == "--runner" or a.startswith("--runner=") for a in args):
        args = [f"--runner={runner}", *args]
    return PipelineOptions(args)


def runs_locally(options: PipelineOptions) -> bool:
    """Whether the run's workers are this machine's processes (DirectRunner and its aliases)."""
    return options.get_all_options()["runner"] in ("DirectRunner", "direct", "FnApiRunner")


def pipeline(runner: str = "DirectRunner", beam_args: Iterable[str] = (), warm_workers: WarmWorkers | None = None):
    """A beam.Pipeline for `runner` with the pass-through flags. DirectRunner means Beam's FnApiRunner,
    honouring --direct_running_mode / --direct_num_workers: Beam 2.77's DirectRunner would first try to
    download and start the Prism runner (a Go binary from GitHub), so the same command ran on a different
    engine online than offline, and spent a network timeout on machines without access.

    `warm_workers`: with --direct_running_mode=multi_processing, fork the workers from servers started
    now, while the caller builds the pipeline; it names what to load once and the transforms that need it
    (beam_jobs/forkserver.py)."""
    import apache_beam as beam
    options = pipeline_options(runner, beam_args)
    if not runs_locally(options):
        return beam.Pipeline(options=options)
    from apache_beam.portability.api import beam_provision_api_pb2
    from apache_beam.runners.portability.fn_api_runner import fn_runner
    from apache_beam.runners.portability.portable_runner import JobServiceHandle
    # what DirectRunner does once it has chosen FnApiRunner: workers get the pipeline options
    encoded = JobServiceHandle.encode_pipeline_options(options.get_all_options())
    info = fn_runner.ExtendedProvisionInfo(beam_provision_api_pb2.ProvisionInfo(pipeline_options=encoded))
    if warm_workers is not None and options.view_as(DirectOptions).direct_running_mode == "multi_processing":
        from beam_jobs import forkserver
        if forkserver.can_fork():
            try:
                forking = forkserver.ForkingFnApiRunner(warm_workers, provision_info=info)
            except OSError as e:  # no unix socket here (path too long, read-only temp dir): Beam's own workers
                logging.getLogger(__name__).info("Beam starts its own workers: no fork server (%s)", e)
            else:
                return beam.Pipeline(runner=forking, options=options)
    return beam.Pipeline(runner=fn_runner.FnApiRunner(provision_info=info), options=options)


def dead_letter(stage: str, reason: str, record_id: str | None = None, file: str | None = None,
                record: int | None = None, detail: str = "") -> dict:
    """One dead-letter row. `detail` must describe the problem, never quote the record's text."""
    return {"stage": stage, "reason": reason, "id": record_id, "file": file, "record": record,
            "detail": detail[:500]}


def staging_path(output: str) -> str:
    """Where a run writes before publishing: beside the final output, unique per run."""
    return f"{output.rstrip('/')}.tmp-{uuid.uuid4().hex[:8]}"


def publish_output(staging: str, output: str) -> None:
    """Replace `output` with the finished `staging` directory (atomic rename on local disks)."""
    output = output.rstrip("/")
    if FileSystems.get_scheme(output) in (None, "file") and "://" not in output:
        old = None
        if os.path.exists(output):
            old = f"{output}.old-{uuid.uuid4().hex[:8]}"
            os.rename(output, old)
        os.rename(staging, output)
        if old:
            shutil.rmtree(old, ignore_errors=True)
        return
    # Object stores have no directory rename: copy then delete, and the manifest is written last,
    # so readers treat a folder without manifest.json as incomplete.
    if FileSystems.exists(output):
        FileSystems.delete([output + "/"])
    FileSystems.rename([staging + "/"], [output + "/"])


def write_text(path: str, text: str) -> None:
    """Write a small text file on any Beam filesystem (temp + rename where the filesystem allows)."""
    tmp = f"{path}.tmp-{uuid.uuid4().hex[:8]}"
    with FileSystems.create(tmp) as f:
        f.write(text.encode())
    FileSystems.rename([tmp], [path])


def read_text(path: str) -> str:
    with FileSystems.open(path) as f:
        return f.read().decode()


def write_json(path: str, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=1, sort_keys=False) + "\n")


def file_sha256(path: str, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with FileSystems.open(path) as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def expand_inputs(patterns: Iterable[str]) -> list[str]:
    """Expand local paths, globs and gs:// patterns into a sorted file list; missing inputs are an error
    naming the pattern (a run that silently reads nothing is worse than one that stops)."""
    files = []
    for pattern in patterns:
        matched = [m.path for r in FileSystems.match([pattern]) for m in r.metadata_list]
        if not matched:
            raise FileNotFoundError(f"no input matches {pattern!r}: check the path or glob")
        files.extend(matched)
    return sorted(set(files))


def stage_counts(count_in: int, count_out: int, dropped: dict[str, int]) -> dict:
    return {"in": int(count_in), "out": int(count_out), "dropped": {k: int(v) for k, v in sorted(dropped.items())}}


def check_counts(counts: dict[str, dict]) -> None:
    """Raise when any stage's in != out + sum(dropped): a record vanished or was counted twice."""
    for stage, c in counts.items():
        if c["in"] != c["out"] + sum(c["dropped"].values()):
            raise AssertionError(f"counts of stage {stage!r} do not add up: in={c['in']} out={c['out']} "
                                 f"dropped={c['dropped']}")


def manifest_header(stage: str, options: dict) -> dict:
    return {"stage": stage, "eaglekit_version": __version__, "options": options}
