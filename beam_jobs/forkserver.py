"""Beam SDK workers forked from warm processes, for the local multi-process DirectRunner.

Beam starts each local worker as a fresh `python -m apache_beam.runners.worker.sdk_worker_main`, so every
worker pays the same start-up: Beam's imports (~1.2 s on a 2 GHz core), then whatever its DoFns load in
setup (the clean stage's Presidio + spaCy engine: ~2.4 s). On a 2-core machine that is a quarter of a
5,000-prompt clean run. Here the runner's workers come from fork servers forked from the launching
process when the pipeline object is made:
- the plain server forks workers with Beam already imported, at once, for every transform;
- the warm server first runs a `warm` callable (loading the PII engine, say), overlapping the pipeline's
  construction and its first stages, and forks the workers of the transforms that need it (`WarmWorkers`).
Those transforms run in an environment of their own, so the runner does not fuse them with the others:
the cheap stages start on plain workers while the engine loads once, instead of in every worker. The
children become SDK harnesses with everything in memory and leave without the interpreter's teardown. The
runner reaches a server through forkserver_client.py, which stands in for the worker command line.

Forking is only done where it is safe: on Linux, from a process running no other Python thread (a lock
held by another thread at fork time stays locked in the child). A run started from the CLI or a script
qualifies; a second run in the same process (Beam's gRPC threads outlive a run) or a notebook kernel does
not, and gets Beam's own worker processes. EAGLEKIT_FORK_WORKERS=0 turns it off.
"""
from __future__ import annotations

import gc
import json
import logging
import os
import select
import shlex
import shutil
import signal
import socket
import sys
import tempfile
import threading
import traceback
import weakref
from dataclasses import dataclass
from typing import Callable

from apache_beam.portability import python_urns
from apache_beam.runners.portability.fn_api_runner import fn_runner

CLIENT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "forkserver_client.py")
_LOG = logging.getLogger(__name__)
servers_started = 0  # in this process; tests read it to know which path a run took
_LIFELINES: set[int] = set()  # the launcher's ends of its servers' lifelines: a later server must not hold them


@dataclass(frozen=True)
class WarmWorkers:
    """What a warm server loads once (`warm`), and the labels of the transforms whose workers need it
    (a label covers its sub-transforms: "Pii" is also "Pii/ParDo(PiiDoFn)"). With no warm-up or no such
    transforms, every worker comes from the plain server."""
    warm: Callable[[], None] | None = None
    transforms: tuple[str, ...] = ()


def can_fork() -> bool:
    """Whether a fork server may be started from this process now (see the module docstring)."""
    return (sys.platform.startswith("linux") and os.environ.get("EAGLEKIT_FORK_WORKERS", "1") != "0"
            and threading.active_count() == 1)


class ForkServer:
    """A forked process that runs `warm()` (if any) once, then forks an SDK worker for each client that
    connects to its unix socket. It exits when close() is called or the launching process ends."""

    def __init__(self, warm: Callable[[], None] | None = None):
        global servers_started
        self.dir = tempfile.mkdtemp(prefix="eaglekit-workers-")
        self.path = os.path.join(self.dir, "sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(self.path)
            listener.listen(64)  # clients may connect before warm() is done: they wait in the backlog
        except OSError:
            listener.close()
            shutil.rmtree(self.dir, ignore_errors=True)
            raise
        lifeline, keep = os.pipe()  # EOF on `lifeline` once the launcher closes `keep` or ends
        sys.stdout.flush()  # or the children would write the launcher's buffered output a second time
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:  # the server
            for fd in (keep, *_LIFELINES):  # other servers must see their launcher go, not wait for this one
                os.close(fd)
            code = 1
            try:
                _serve(listener, lifeline, warm)
                code = 0
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(code)
        os.close(lifeline)
        listener.close()
        servers_started += 1
        _LIFELINES.add(keep)
        _LOG.info("Beam workers will be forked from a %s server (pid %d)", "warm" if warm else "plain", self.pid)
        # closed by close(), or when this object is collected, or at interpreter exit
        self.close = weakref.finalize(self, _stop, keep, self.pid, self.dir)

    def command(self) -> str:
        """The worker command line the runner runs instead of Beam's own."""
        return " ".join(shlex.quote(a) for a in (sys.executable, "-S", CLIENT, self.path))


class ForkingFnApiRunner(fn_runner.FnApiRunner):
    """Beam's FnApiRunner, with its multi-process workers forked by `plain`, and those of the transforms
    `warm.transforms` by a server that ran `warm.warm` first. It closes both servers after the run."""

    def __init__(self, warm: WarmWorkers | None = None, **kwargs):
        super().__init__(**kwargs)
        self.warm_transforms = warm.transforms if warm and warm.warm else ()
        # the warm server first: its warm-up is the longest wait
        self.warm = ForkServer(warm.warm) if self.warm_transforms else None
        try:
            self.plain = ForkServer()
        except BaseException:
            if self.warm:
                self.warm.close()
            raise

    def close(self) -> None:
        self.plain.close()
        if self.warm:
            self.warm.close()

    def run_pipeline(self, pipeline, options):
        try:
            return super().run_pipeline(pipeline, options)
        finally:
            self.close()

    def run_via_runner_api(self, pipeline_proto, options):
        envs, transforms = pipeline_proto.components.environments, pipeline_proto.components.transforms
        for env_id in list(envs):
            if envs[env_id].urn != python_urns.SUBPROCESS_SDK:  # multi_processing's `python -m ...sdk_worker_main`
                continue
            if self.warm:
                warm_id = f"{env_id}-warm"
                envs[warm_id].CopyFrom(envs[env_id])
                envs[warm_id].payload = self.warm.command().encode()
                moved = [t for t in transforms.values()
                         if t.environment_id == env_id and _labelled(t.unique_name, self.warm_transforms)]
                for t in moved:
                    t.environment_id = warm_id
                if not moved:  # a renamed step: right output, but every worker would load on its own
                    _LOG.warning("no transform labelled %s: its workers start without the warm-up",
                                 " or ".join(self.warm_transforms))
            envs[env_id].payload = self.plain.command().encode()
        return super().run_via_runner_api(pipeline_proto, options)


def _labelled(name: str, labels: tuple[str, ...]) -> bool:
    return any(name == label or name.startswith(label + "/") for label in labels)


def _stop(keep: int, pid: int, folder: str) -> None:
    _LIFELINES.discard(keep)
    os.close(keep)
    os.waitpid(pid, 0)
    shutil.rmtree(folder, ignore_errors=True)


def _serve(listener: socket.socket, lifeline: int, warm) -> None:
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the kernel reaps finished workers
    # Ctrl-C reaches the whole process group: the launcher and the workers stop on it, and the server
    # then ends on its lifeline, without a traceback of its own
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if warm is not None:
        try:
            warm()
        except Exception as e:  # the workers' own setup() then meets the same error and reports it in full
            _LOG.warning("forked workers start cold: warm-up failed (%s: %s)", type(e).__name__, e)
    from apache_beam.runners.worker import sdk_worker_main  # noqa: F401  (every worker's import, once)
    gc.freeze()  # what is alive now lives as long as the workers: keep the collector off its pages
    while True:
        ready, _, _ = select.select([listener, lifeline], [], [])
        if lifeline in ready:
            return
        conn, _ = listener.accept()
        try:
            env = json.loads(conn.makefile("rb").readline())  # the client sends one line, then waits
        except (OSError, ValueError):  # ValueError: it went away before sending it
            conn.close()
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            listener.close()
            os.close(lifeline)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            _run_worker(conn, env)
        conn.close()


def _run_worker(conn: socket.socket, env: dict) -> None:
    """Become the SDK harness the client asked for; report the exit status on `conn`; never return."""
    code = 1
    try:
        conn.sendall(f"{os.getpid()}\n".encode())
        os.environ.update(env)
        logging.getLogger().handlers.clear()  # the launcher's console handlers: a fresh worker has none
        from apache_beam.runners.worker import sdk_worker_main
        sdk_worker_main.main([])
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            conn.sendall(f"{code}\n".encode())
        except OSError:
            pass
        os._exit(code)
