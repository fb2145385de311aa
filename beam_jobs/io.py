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
import re
import shutil
import socket
import sys
import threading
import time
import uuid
from typing import TYPE_CHECKING, Any, Iterable

from apache_beam.io.filesystems import FileSystems
from apache_beam.options.pipeline_options import DirectOptions, PipelineOptions

from eaglekit import __version__

if TYPE_CHECKING:  # for the annotation only
    from beam_jobs.forkserver import WarmWorkers

def pipeline_options(runner: str = "DirectRunner", beam_args: Iterable[str] = ()) -> PipelineOptions:
    """Pipeline options for `runner` plus any pass-through Beam flags (--project, --region, ...)."""
    args = list(beam_args)
    if not any(a == "--runner" or a.startswith("--runner=") for a in args):
        args = [f"--runner={runner}", *args]
    return PipelineOptions(args)


def runner_name(runner: str = "DirectRunner", beam_args: Iterable[str] = ()) -> str:
    """The runner a run uses: `runner`, unless the pass-through Beam flags name another."""
    return pipeline_options(runner, beam_args).get_all_options()["runner"] or runner


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


# Staging folders: `<output>.tmp-<run>.<host>.<pid>` names the process that writes it, so a later run of
# the same output can tell a folder left by a killed or failed run from one a running job still writes.
STALE_UNOWNED_AFTER_S = 6 * 3600   # folders without a live owner we can check: untouched this long
_STAGING_RE = re.compile(r"\.tmp-[0-9a-f]{8}(?:\.(?P<host>[0-9a-f]{6})\.(?P<pid>\d+))?$")
_OLD_RE = re.compile(r"\.old-[0-9a-f]{8}$")
_ACTIVE: dict[str, int] = {}       # staging folders of this process -> the thread running that job


def _host_tag() -> str:
    return hashlib.sha1(socket.gethostname().encode()).hexdigest()[:6]


def is_local(path: str) -> bool:
    """Whether `path` is on this machine's disk (no scheme, or file://)."""
    return FileSystems.get_scheme(path) in (None, "file") and "://" not in path


def _newest_mtime(path: str) -> float:
    newest = os.path.getmtime(path)
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            try:
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
            except OSError:
                pass
    return newest


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def _stale_reason(path: str, now: float) -> str | None:
    """Why the staging (or .old) folder `path` is left over from a finished run, or None if it may be live.

    Ours (this host): stale once its process is gone, or, in this process, once the thread that made it has
    ended or is the one starting this run (runs are synchronous). Other hosts' and unnamed (older eaglekit)
    folders: stale once nothing in them changed for STALE_UNOWNED_AFTER_S; a live pid's folder too (pid
    reuse), after the same time."""
    name = os.path.basename(path)
    if _OLD_RE.search(name):  # exists only for an instant inside publish_output
        return "left by an interrupted publish" if now - os.path.getmtime(path) > 600 else None
    m = _STAGING_RE.search(name)
    if m is None:
        return None
    host, pid = m.group("host"), m.group("pid")
    if host == _host_tag() and pid is not None:
        pid = int(pid)
        if pid == os.getpid():
            owner = _ACTIVE.get(path)
            alive = {t.ident for t in threading.enumerate()}
            if owner is None or owner == threading.get_ident() or owner not in alive:
                return "left by an earlier run in this process"
            return None
        if not _pid_alive(pid):
            return f"left by process {pid}, which is no longer running"
    age = now - _newest_mtime(path)
    if age > STALE_UNOWNED_AFTER_S:
        return f"untouched for {age / 3600:.0f} h"
    return None


def remove_stale_staging(output: str, echo=None) -> list[str]:
    """Remove staging folders of `output` left by killed or failed runs (see _stale_reason); one line on
    stderr for each. Folders a running job may still write are left alone. Local outputs only."""
    output = output.rstrip("/")
    if not is_local(output):
        return []
    import glob
    echo = echo or (lambda msg: print(msg, file=sys.stderr))
    now, removed = time.time(), []
    for path in sorted(glob.glob(glob.escape(output) + ".tmp-*") + glob.glob(glob.escape(output) + ".old-*")):
        if not os.path.isdir(path):
            continue
        try:
            why = _stale_reason(path, now)
        except OSError:  # vanished meanwhile (its owner published or removed it)
            continue
        if why:
            shutil.rmtree(path, ignore_errors=True)
            _ACTIVE.pop(path, None)
            removed.append(path)
            echo(f"removed stale staging folder {path} ({why})")
    return removed


def staging_path(output: str) -> str:
    """Where a run writes before publishing: beside the final output, unique per run, named after this
    host and process. Stale staging folders of the same output (killed or failed runs) are removed first."""
    output = output.rstrip("/")
    path = f"{output}.tmp-{uuid.uuid4().hex[:8]}.{_host_tag()}.{os.getpid()}"
    if is_local(output):
        remove_stale_staging(output)
        os.makedirs(path, exist_ok=True)
        _ACTIVE[path] = threading.get_ident()
    return path


def discard_staging(staging: str) -> None:
    """Remove a failed run's staging folder now (local disks; a later run would remove it anyway)."""
    _ACTIVE.pop(staging, None)
    if is_local(staging):
        shutil.rmtree(staging, ignore_errors=True)


def publish_output(staging: str, output: str) -> None:
    """Replace `output` with the finished `staging` directory (atomic rename on local disks)."""
    output = output.rstrip("/")
    _ACTIVE.pop(staging, None)
    if is_local(output):
        old = None
        if os.path.exists(output):
            old = f"{output}.old-{uuid.uuid4().hex[:8]}"
            os.rename(output, old)
        os.rename(staging, output)
        if old:
            shutil.rmtree(old, ignore_errors=True)
        return
    # Object stores have no directory rename: each object is renamed (copy + delete) on its own, after the
    # old output's objects are gone; finish() writes the manifest after this, so readers treat a folder
    # without manifest.json as incomplete.
    old = list_files(FileSystems.join(output, "**"))
    if old:
        FileSystems.delete(old)
    staged = list_files(FileSystems.join(staging, "**"))
    if staged:
        FileSystems.rename(staged, [output + path[len(staging):] for path in staged])


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


def list_files(pattern: str) -> list[str]:
    """The sorted paths matching `pattern` on any Beam filesystem (`**` crosses folders); [] when none."""
    return sorted(m.path for r in FileSystems.match([pattern]) for m in r.metadata_list)


def stage_files(path: str, pattern: str) -> list[str]:
    """The files of a stage output: `pattern` inside `path` when `path` is a folder (local or an object-store
    prefix), else `path` itself taken as a glob."""
    inside = list_files(FileSystems.join(path.rstrip("/"), pattern))
    return inside or [f for f in list_files(path) if not (is_local(f) and os.path.isdir(f))]


def parquet_rows(path: str) -> int:
    """Rows of a Parquet file on any Beam filesystem (from its footer)."""
    import pyarrow.parquet as pq
    with FileSystems.open(path) as f:
        return pq.ParquetFile(f).metadata.num_rows


def parquet_schema(path: str):
    import pyarrow.parquet as pq
    with FileSystems.open(path) as f:
        return pq.read_schema(f)


def parquet_records(path: str, columns=None, batch_size: int = 256):
    """The rows of a Parquet file on any Beam filesystem, as dicts, read a batch at a time."""
    import pyarrow.parquet as pq
    with FileSystems.open(path) as f:
        for batch in pq.ParquetFile(f).iter_batches(batch_size=batch_size, columns=columns):
            yield from batch.to_pylist()


def tally_dead_letters(folder: str) -> dict[str, int]:
    """Dead letters per reason in `folder`'s `dead_letters-*.jsonl` files."""
    dropped: dict[str, int] = {}
    for path in list_files(FileSystems.join(folder, "dead_letters-*.jsonl")):
        for line in read_text(path).splitlines():
            if line.strip():
                reason = json.loads(line)["reason"]
                dropped[reason] = dropped.get(reason, 0) + 1
    return dict(sorted(dropped.items()))


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


DEFAULT_MAX_DEAD_LETTER_SHARE = 0.5


class YieldError(ValueError):
    """A stage made no output from non-empty input, or lost more than the allowed share of its records."""


def check_yield(stage: str, n_in: int, n_out: int, dead_by_reason: dict[str, int] | None = None,
                max_share: float | None = DEFAULT_MAX_DEAD_LETTER_SHARE, count_reasons: Iterable[str] | None = None,
                where: str = "") -> None:
    """Raise YieldError (one line) when a stage's run went wrong as a whole rather than record by record:
    `n_in` > 0 records in and none out, or more than `max_share` of `n_in` became dead letters.

    `count_reasons`: the dead-letter reasons that count as errors (None: every reason). The clean stage
    passes only its error reasons (malformed records, ...): duplicates, contamination and PII drops are
    the stage working, not failing. `max_share` None turns the share check off (the no-output check stays).
    `where`: the dead letters' location, named in the message."""
    dead_by_reason = dict(dead_by_reason or {})
    counted = {r: n for r, n in dead_by_reason.items() if count_reasons is None or r in set(count_reasons)}
    dead = sum(counted.values())
    look = f"; see the dead letters in {where}" if where else ""
    top = ", ".join(f"{r}={n}" for r, n in sorted(counted.items(), key=lambda kv: -kv[1])[:4])
    if n_in > 0 and n_out == 0:
        raise YieldError(f"{stage}: {n_in} records in, none out ({top or 'no dead letters'}){look}")
    if max_share is not None and n_in > 0 and dead / n_in > max_share:
        raise YieldError(f"{stage}: {dead} of {n_in} records ({dead / n_in:.0%}) became dead letters ({top}), more "
                         f"than --max-dead-letter-share {max_share:g}{look}; fix the cause or raise the share")


def manifest_header(stage: str, options: dict, runner: str = "DirectRunner") -> dict:
    """The keys every stage manifest starts with (schemas/manifest.json)."""
    return {"stage": stage, "eaglekit_version": __version__, "run": uuid.uuid4().hex[:8], "runner": runner,
            "options": options}


def finish(staging: str, output: str, manifest: dict) -> dict:
    """The one way a stage ends: check `manifest` against schemas/manifest.json, then publish `staging` as
    `output` with the manifest as the last thing written. Local disks: the manifest goes into the staging
    folder, which is then renamed into place at once. Object stores (gs://): objects are renamed one by
    one, then the manifest is written; either way a folder with a manifest is complete."""
    from eaglekit.contract import check_manifest
    check_manifest(manifest, where=FileSystems.join(output, "manifest.json"))
    if is_local(output):
        write_json(FileSystems.join(staging, "manifest.json"), manifest)
        publish_output(staging, output)
    else:
        publish_output(staging, output)
        write_json(FileSystems.join(output.rstrip("/"), "manifest.json"), manifest)
    return manifest
