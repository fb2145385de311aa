"""Careless input and faults (issue #21): nothing runs silently wrong. Each test is one fault that used to
run (or end) wrongly; docs/faults.md lists every fault tried and what it gives now."""
import json
import os
import textwrap

import pytest
from click.testing import CliRunner

from eaglekit.cli import main


# ---------------------------------------------------------------------------------------------
# 1. A mistyped flag stops the run before any work (Beam only warned and carried on)

def test_typo_flag_with_config_stops_before_any_stage(tmp_path):
    src = tmp_path / "p.jsonl"
    src.write_text('{"prompt": "hello there"}\n')
    cfg = tmp_path / "run.yaml"
    cfg.write_text(textwrap.dedent(f"""\
        workdir: {tmp_path / "w"}
        clean: {{inputs: ["{src}"], pii: {{model: "blank:en"}}}}
        featurize: {{target: tiny}}
        generate: {{target: tiny}}
        """))
    r = CliRunner().invoke(main, ["beam", "run", "--config", str(cfg), "--chek"])
    assert r.exit_code == 2, r.output
    assert "--chek" in r.output and "--check" in r.output  # the near match is named
    assert not (tmp_path / "w").exists()  # no stage ran


@pytest.mark.parametrize("flag, hint", [("--bogus-flag", "no such option"),
                                        ("--direct_num_worker=2", "--direct_num_workers"),
                                        ("--max_chars", "--max-chars")])
def test_unknown_stage_flag_is_refused_with_near_matches(tmp_path, flag, hint):
    src = tmp_path / "p.jsonl"
    src.write_text('{"prompt": "hello"}\n')
    r = CliRunner().invoke(main, ["beam", "run", "clean", "--input", str(src), "--output", str(tmp_path / "out"),
                                  flag])
    assert r.exit_code == 2 and hint in r.output and flag.split("=")[0] in r.output, r.output
    assert not (tmp_path / "out").exists() and not list(tmp_path.glob("out.tmp-*"))


def test_real_beam_flags_still_pass_through():
    from click import Context, command

    from beam_jobs.commands import beam_flags
    ctx = Context(command("x")(lambda: None))
    ctx.args = ["--project", "p", "--region=eu", "--save_main_session", "--direct_running_mode",
                "multi_processing", "--direct_num_workers=2", "--setup_file", "./setup.py"]
    assert beam_flags(ctx) == tuple(ctx.args)


def test_beam_run_help_lists_the_config_options():
    r = CliRunner().invoke(main, ["beam", "run", "--help"])
    assert r.exit_code == 0
    for opt in ("--config", "--check", "--runner", "--workdir"):
        assert opt in r.output, opt
