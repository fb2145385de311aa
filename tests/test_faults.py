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


# ---------------------------------------------------------------------------------------------
# 2-3. Corrupt shards: train and inspect check every sha256 (remembered per size+mtime) and turn every
# pyarrow read error into one line naming the shard

@pytest.fixture
def shards(tmp_path, tiny_target, monkeypatch):
    from test_train_data import make_shards
    monkeypatch.setenv("EAGLEKIT_CACHE", str(tmp_path / "cache"))  # the checksum cache of this test only
    return make_shards(tmp_path / "feats", tiny_target)


def _shard(path):
    return sorted(path.glob("shard-*.arrow"))[0]


def _flip_middle_byte(path):
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF   # same size, footer intact: pyarrow reads it without complaint
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("command", [["train", "--target", "tiny", "--max-steps", "1", "--no-progress"],
                                     ["data", "inspect"]])
def test_corrupt_shard_is_refused_by_name(shards, tmp_path, command):
    shard = _shard(shards)
    _flip_middle_byte(shard)
    args = command[:1] + (["--data", str(shards), "--out", str(tmp_path / "run")] + command[1:]
                          if command[0] == "train" else command[1:] + [str(shards)])
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (r.output, r.exception)
    assert shard.name in r.output and "sha256" in r.output and "corrupt" in r.output
    assert not (tmp_path / "run" / "best").exists()


def test_checksums_are_hashed_once_until_the_file_changes(shards, monkeypatch):
    from eaglekit import shards as S
    calls = []
    real = S.file_sha256
    monkeypatch.setattr(S, "file_sha256", lambda p: calls.append(p) or real(p))
    ds = S.open_features(shards)
    ds.verify_checksums()
    n = len(calls)
    assert n == len(ds.shards) >= 1
    S.open_features(shards).verify_checksums()   # a second run trusts the remembered digests
    assert len(calls) == n
    shard = _shard(shards)
    st = shard.stat()
    _flip_middle_byte(shard)
    os.utime(shard, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # same size, new mtime: hashed again
    from eaglekit.contract import ContractError
    with pytest.raises(ContractError, match="sha256"):
        S.open_features(shards).verify_checksums()
    assert len(calls) == n + 1


@pytest.mark.parametrize("command", [["train", "--target", "tiny", "--max-steps", "1", "--no-progress"],
                                     ["data", "inspect"]])
def test_damaged_arrow_footer_is_one_line(shards, tmp_path, command):
    shard = _shard(shards)
    data = bytearray(shard.read_bytes())
    data[-40:-10] = b"\xff" * 30   # inside the footer flatbuffer; size unchanged
    shard.write_bytes(bytes(data))
    args = command[:1] + (["--data", str(shards), "--out", str(tmp_path / "run")] + command[1:]
                          if command[0] == "train" else command[1:] + [str(shards)])
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (r.output, r.exception)
    assert shard.name in r.output and "not a readable Arrow IPC file" in r.output
    assert len([line for line in r.output.splitlines() if line.strip()]) == 1
