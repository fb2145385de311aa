"""The worker command a ForkServer gives the runner (see forkserver.py): asks the server for an SDK worker
with this process's worker environment, waits for it and exits with its status. Standard library only, run
with `python -S`: it starts in tens of milliseconds. Should the server be gone, it becomes an ordinary
Beam worker instead, so a run never fails for want of a warm process."""
import json
import os
import signal
import socket
import sys

# what Beam's SubprocessSdkWorker sets for each worker; the rest of the environment the server inherited
WORKER_ENV = ("CONTROL_API_SERVICE_DESCRIPTOR", "LOGGING_API_SERVICE_DESCRIPTOR", "PIPELINE_OPTIONS", "WORKER_ID")


def main(path: str) -> int:
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
        conn.sendall((json.dumps({k: os.environ[k] for k in WORKER_ENV if k in os.environ}) + "\n").encode())
        reader = conn.makefile("r")
        pid = int(reader.readline())
    except (OSError, ValueError):
        os.execv(sys.executable, [sys.executable, "-m", "apache_beam.runners.worker.sdk_worker_main"])

    def forward(signum, _frame):  # the runner stops a worker by signalling its process: pass it on
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass
    for s in (signal.SIGTERM, signal.SIGINT):
        signal.signal(s, forward)
    status = reader.readline().strip()
    return int(status) if status.lstrip("-").isdigit() else 1  # no status: the worker died without one


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
