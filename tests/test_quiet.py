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
