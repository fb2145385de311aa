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


def test_model_stages_show_no_library_chatter_unless_verbose(tmp_path):
    """generate / featurize printed transformers' "Loading weights" bar and Beam's `WARNING:root:Resource
    module is not available` once per batch: not ours to show, so only with -v."""
    env = {**os.environ, "TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS": ""}
    for var in ("TRANSFORMERS_VERBOSITY", "HF_HUB_DISABLE_PROGRESS_BARS", "TRANSFORMERS_NO_ADVISORY_WARNINGS"):
        env.pop(var, None)
    (tmp_path / "p.jsonl").write_text('{"prompt": "hello there friend"}\n{"prompt": "what is two plus two"}\n')

    def run(*args):
        return subprocess.run([sys.executable, "-m", "eaglekit.cli", *args], capture_output=True, text=True,
                              env=env, cwd=tmp_path, timeout=300)
    assert run("beam", "run", "clean", "--input", "p.jsonl", "--output", "c", "--no-pii").returncode == 0
    quiet = run("beam", "run", "generate", "--input", "c", "--output", "g", "--target", "tiny", "--max-new-tokens", "4")
    assert quiet.returncode == 0, quiet.stderr
    assert "Resource module" not in quiet.stderr and "WARNING" not in quiet.stderr and "Loading weights" not in quiet.stderr
    loud = run("-v", "beam", "run", "generate", "--input", "c", "--output", "g2", "--target", "tiny",
               "--max-new-tokens", "4")
    assert loud.returncode == 0 and "Resource module is not available" in loud.stderr, loud.stderr
