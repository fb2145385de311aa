"""Quiet by default: no `apitools not found` line from Beam's import, on any command, --help included."""
import os
import subprocess
import sys


def test_beam_help_prints_no_apitools_warning():
    env = {**os.environ, "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    r = subprocess.run([sys.executable, "-m", "eaglekit.cli", "beam", "run", "--help"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "apitools" not in r.stderr and "WARNING" not in r.stderr, r.stderr


def test_beam_worker_warnings_only_with_verbose():
    """A multi-process run relays every Beam worker's WARN lines through the `apache_beam` loggers: quiet by
    default, shown with `eaglekit -v`."""
    import logging

    from eaglekit.cli import quiet_beam
    logger = logging.getLogger("apache_beam.runners.portability.local_job_service")
    before = logging.getLogger("apache_beam").level
    try:
        quiet_beam(0)
        assert not logger.isEnabledFor(logging.WARNING) and logger.isEnabledFor(logging.ERROR)
        quiet_beam(1)
        assert logger.isEnabledFor(logging.WARNING)
    finally:
        logging.getLogger("apache_beam").setLevel(before)
