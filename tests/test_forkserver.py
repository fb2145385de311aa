"""Tests of the fork servers that start local multi-process Beam workers (beam_jobs/forkserver.py): the
named steps' workers really are forked from the warmed process and the others' from the plain one, a clean
run gives the same output that way, and a server that fails or dies never fails a run. Pipelines run in a subprocess: forking needs a process with no other
threads, and Beam leaves gRPC threads behind in this one."""
import json
import os
import subprocess
import sys
import threading

import pytest

from test_clean import _outputs, _write_jsonl

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MULTI = ["--direct_running_mode=multi_processing", "--direct_num_workers=2"]

WHERE_SCRIPT = """
import glob, json, os, sys
import apache_beam as beam
from beam_jobs import forkserver, io as bio

out, mode = sys.argv[1], sys.argv[2]

def warm():
    os.environ["EK_WARM_PID"] = str(os.getpid())  # inherited by every worker forked after this
    if mode == "exits":
        os._exit(3)
    if mode == "raises":
        raise RuntimeError("no model here")

def where(x, step):
    return {"x": x, "step": step, "warm_pid": os.environ.get("EK_WARM_PID"), "parent": os.getppid()}

with bio.pipeline("DirectRunner", %r, warm_workers=forkserver.WarmWorkers(warm, ("Warm",))) as p:
    xs = p | beam.Create(range(16)) | "Plain" >> beam.Map(lambda x: (x, where(x, "plain")))
    _ = (xs | "Warm" >> beam.MapTuple(lambda x, seen: [seen, where(x, "warm")])
            | beam.FlatMap(lambda rows: rows) | beam.Map(json.dumps) | beam.io.WriteToText(out + "/rows"))
rows = [json.loads(line) for fn in glob.glob(out + "/rows*") for line in open(fn)]
print(json.dumps({"servers": forkserver.servers_started, "launcher": os.getpid(), "rows": rows}))
""" % (MULTI,)


def _python(script, *args):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1]), res.stderr


def _by_step(rows):
    out = {"plain": [], "warm": []}
    for r in rows:
        out[r["step"]].append(r)
    assert sorted(r["x"] for r in out["plain"]) == sorted(r["x"] for r in out["warm"]) == list(range(16))
    return out["plain"], out["warm"]


@pytest.mark.slow
def test_workers_are_forked_from_the_servers_warm_where_asked(tmp_path):
    got, _ = _python(WHERE_SCRIPT, str(tmp_path), "ok")
    assert got["servers"] == 2
    plain, warm = _by_step(got["rows"])
    warm_pids = {r["warm_pid"] for r in warm}
    assert len(warm_pids) == 1 and None not in warm_pids  # warm() ran once, in one process
    assert {str(r["parent"]) for r in warm} == warm_pids  # ... and the "Warm" step's workers are its children
    plain_parents = {r["parent"] for r in plain}  # the other steps' workers: the plain server's, never warmed
    assert {r["warm_pid"] for r in plain} == {None} and len(plain_parents) == 1
    assert plain_parents.isdisjoint({got["launcher"], int(warm_pids.pop())})


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["raises", "exits"])
def test_a_failing_or_dead_server_never_fails_the_run(tmp_path, mode):
    got, err = _python(WHERE_SCRIPT, str(tmp_path), mode)
    _, warm = _by_step(got["rows"])
    if mode == "raises":  # its workers are still forked, cold; the worker's own setup would meet the error
        assert "warm-up failed (RuntimeError: no model here)" in err
        assert len({r["warm_pid"] for r in warm} - {None}) == 1
    else:  # the server is gone: the client becomes Beam's own worker
        assert {r["warm_pid"] for r in warm} == {None}


CLEAN_SCRIPT = """
import json, sys
from beam_jobs import forkserver
from beam_jobs.clean import CleanConfig, run_clean
m = run_clean(CleanConfig(inputs=[sys.argv[1]], output=sys.argv[2]), beam_args=%r)
print(json.dumps({"servers": forkserver.servers_started, "manifest": m}))
""" % (MULTI,)


@pytest.mark.slow
def test_forked_clean_run_matches_the_in_process_run(tmp_path):
    from beam_jobs.clean import CleanConfig, run_clean
    src = _write_jsonl(tmp_path / "p.jsonl", [
        {"prompt": "Please tell Mary Johnson the meeting moved to Friday"},
        {"prompt": "Email jane.doe@example.org and call (212) 555-0147 about the invoice"},
        {"prompt": "How do rainbows form after a summer storm?"},
        {"prompt": "How do rainbows form after a summer storm?"},
        {"prompt": "I live at 42 Oak Street, Apt 5 and need advice on insulation"}], raw_lines=[b"{broken"])
    got, err = _python(CLEAN_SCRIPT, src, str(tmp_path / "forked"))
    assert got["servers"] == 2 and "no transform labelled" not in err  # the PII step found its warm workers
    here = run_clean(CleanConfig(inputs=[src], output=str(tmp_path / "here")))
    assert got["manifest"]["counts"] == here["counts"] and got["manifest"]["pii_entities"] == here["pii_entities"]
    assert _outputs(tmp_path / "forked") == _outputs(tmp_path / "here")
    texts = [r["messages"][-1]["content"] for r in _outputs(tmp_path / "here")[0]]
    assert not any(s in t for t in texts for s in ("Mary Johnson", "jane.doe", "555-0147", "42 Oak Street"))


def test_no_fork_with_other_threads_or_when_turned_off(monkeypatch):
    from beam_jobs import forkserver
    stop = threading.Event()
    t = threading.Thread(target=stop.wait)
    t.start()
    try:
        assert not forkserver.can_fork()  # another thread could hold a lock the child would inherit locked
    finally:
        stop.set()
        t.join()
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert forkserver.can_fork() == sys.platform.startswith("linux")
    monkeypatch.setenv("EAGLEKIT_FORK_WORKERS", "0")
    assert not forkserver.can_fork()


def test_no_unix_socket_means_beam_starts_its_own_workers(tmp_path, monkeypatch):
    from apache_beam.runners.portability.fn_api_runner.fn_runner import FnApiRunner

    from beam_jobs import forkserver
    from beam_jobs import io as bio
    deep = tmp_path / ("d" * 120)  # longer than a unix socket path may be
    deep.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(deep))
    with pytest.raises(OSError):
        forkserver.ForkServer()
    assert os.listdir(deep) == []  # nothing left behind
    monkeypatch.setattr(forkserver, "can_fork", lambda: True)
    p = bio.pipeline("DirectRunner", MULTI, warm_workers=forkserver.WarmWorkers(lambda: None, ("Pii",)))
    assert type(p.runner) is FnApiRunner
