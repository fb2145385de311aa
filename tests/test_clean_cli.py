"""`eaglekit beam run clean` user errors: a --pii-policy entity no recognizer reports, and a missing
--input or --decontaminate file, stop the run before any work with one line that names the option and
the fix, and leave no staging folder behind."""
import glob
import json
import os

import pytest
from click.testing import CliRunner

from beam_jobs import pii
from beam_jobs.clean import CleanConfig, check_pii_policies
from eaglekit.cli.beam import _parse_policies, clean_command
from eaglekit.cli import main


@pytest.fixture()
def src(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"prompt": "How do rainbows form after a summer storm?"}) + "\n")
    return str(path)


def _leftovers(folder):
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(folder, "*.tmp-*")))


def test_unknown_pii_policy_entity_stops_before_any_work(src, tmp_path):
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["beam", "run", "clean", "--input", src, "--output", str(out),
                                  "--pii-policy", "FOO_BAR=redact", "--pii-policy", "EMAIL_ADRESS=drop"])
    assert r.exit_code == 1 and r.exception.__class__ is SystemExit, r.output
    line = next(ln for ln in r.output.splitlines() if "--pii-policy" in ln)
    assert "'FOO_BAR'" in line and "'EMAIL_ADRESS' (did you mean EMAIL_ADDRESS?)" in line
    assert "PERSON" in line and "STREET_ADDRESS" in line          # the valid names are listed
    assert "Traceback" not in r.output and not out.exists() and _leftovers(tmp_path) == []


def test_pii_policy_names_are_checked_against_the_loaded_recognizers(src, tmp_path, monkeypatch):
    """What the analyzer reports decides (read at each run, so new recognizers count at once)."""
    calls = []

    def loaded(model):
        calls.append(model)
        return sorted({*pii.DEFAULT_POLICIES, "LOCATION", "URL"})

    monkeypatch.setattr(pii, "loaded_entities", loaded)

    def cfg(*specs, enabled=True):
        policies, keep = _parse_policies(specs)
        return CleanConfig(inputs=[src], output=str(tmp_path / "o"), pii=pii.PiiConfig(policies=policies),
                           pii_keep=keep, pii_enabled=enabled)

    with pytest.raises(ValueError, match=r"'EMAIL' \(did you mean EMAIL_ADDRESS\?\)"):
        check_pii_policies(cfg("EMAIL=drop"))
    with pytest.raises(ValueError, match="'LOCATON' .*LOCATION"):
        check_pii_policies(cfg("LOCATON=keep"))                    # a kept name is a name too
    check_pii_policies(cfg("URL=redact", "PERSON=keep", "EMAIL_ADDRESS=drop"))
    check_pii_policies(cfg("FOO_BAR=redact", enabled=False))       # PII off: nothing to check
    n = len(calls)
    check_pii_policies(cfg("PERSON=drop"))                         # defaults only: no analyzer is built
    assert len(calls) == n == 3


def test_policy_values_come_from_the_pii_module(monkeypatch):
    monkeypatch.setattr(pii, "POLICIES", ("drop", "redact", "context"))
    policies, keep = _parse_policies(["PERSON=context", "URL=drop", "EMAIL_ADDRESS=keep"])
    assert policies["PERSON"] == "context" and policies["URL"] == "drop" and "EMAIL_ADDRESS" not in policies
    assert keep == ["EMAIL_ADDRESS"]
    r = CliRunner().invoke(clean_command, ["--input", "x.jsonl", "--output", "o", "--pii-policy", "PERSON=forget"])
    assert r.exit_code == 2 and "ENTITY=context" in r.output and "ENTITY=keep" in r.output


def test_missing_files_name_their_option(src, tmp_path):
    runner = CliRunner()
    missing = str(tmp_path / "evals" / "x.jsonl")
    r = runner.invoke(clean_command, ["--input", src, "--output", str(tmp_path / "o"), "--no-pii",
                                      "--decontaminate", missing])
    assert r.exit_code == 1 and f"--decontaminate: no file matches {missing!r}" in r.output, r.output
    r = runner.invoke(clean_command, ["--input", str(tmp_path / "nope*.jsonl"), "--output", str(tmp_path / "o"),
                                      "--no-pii"])
    assert r.exit_code == 1 and "--input: no file matches" in r.output and "nope*.jsonl" in r.output, r.output
    assert not (tmp_path / "o").exists() and _leftovers(tmp_path) == []


def test_inputs_with_no_records_are_refused_not_published_empty(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    out = tmp_path / "o"
    r = CliRunner().invoke(clean_command, ["--input", str(empty), "--output", str(out), "--no-pii"])
    assert r.exit_code == 1 and "the inputs hold no records" in r.output and str(empty) in r.output, r.output
    assert "check --input" in r.output and not out.exists() and _leftovers(tmp_path) == []


def test_pii_keep_names_in_is_checked_and_named(src, tmp_path):
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["beam", "run", "clean", "--input", src, "--output", str(out),
                                  "--pii-keep-names-in", "article,fiction"])
    assert r.exit_code == 2 and "--pii-keep-names-in" in r.output and "fiction" in r.output, r.output
    assert not glob.glob(str(out) + "*")  # refused before any work
