"""`builtin` names the head shipped for the embedded target: resolved to its folder where one ships, a clear
error naming what to pass where none does (serve and bench alike), and the quickstart's bench runs it too."""
import json

import pytest
from click.testing import CliRunner

from eaglekit import heads
from eaglekit.cli import main
from eaglekit.export import export_head
from eaglekit.train import save_checkpoint
from serving.testing import random_head


def test_paths_pass_through_and_builtin_without_a_shipped_head_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.setattr(heads, "HEADS_DIR", tmp_path / "none")
    assert heads.resolve_head(None) is None and heads.resolve_head("out/head") == "out/head"
    with pytest.raises(heads.HeadError, match="gpu_recipe.sh.*eaglekit train export"):
        heads.resolve_head("builtin")
    with pytest.raises(heads.HeadError, match="only for the embedded target"):
        heads.resolve_head("builtin", "meta-llama/Llama-3.1-8B-Instruct")
    r = CliRunner().invoke(main, ["serve", "--model", "embedded", "--draft", "builtin", "--backend", "embedded",
                                  "--dry-run"])
    assert r.exit_code != 0 and "ships no head" in r.output and "Traceback" not in r.output, r.output
    r = CliRunner().invoke(main, ["bench", "--head", "builtin", "--no-plots"])
    assert r.exit_code == 2 and "--head" in r.output and "ships no head" in r.output, r.output


@pytest.fixture
def shipped_tiny_head(monkeypatch, tmp_path, tiny_target):
    """A head 'shipped' for the tiny target (the mapping and the folder stand in for the package's)."""
    head = random_head(tiny_target)
    save_checkpoint(tmp_path / "ckpt", head, {"draft_config": head.cfg.to_dict(), "step": 0})
    export_head(tmp_path / "ckpt", tmp_path / "heads" / "tiny-head", "sglang")
    monkeypatch.setattr(heads, "HEADS_DIR", tmp_path / "heads")
    monkeypatch.setattr(heads, "BUILTIN_HEADS", {"tiny": "tiny-head"})
    return tmp_path / "heads" / "tiny-head"


def test_builtin_resolves_to_the_shipped_head_for_serve_and_bench(shipped_tiny_head, tmp_path):
    assert heads.resolve_head("builtin", "tiny") == str(shipped_tiny_head)
    r = CliRunner().invoke(main, ["serve", "--model", "tiny", "--draft", "builtin", "--backend", "embedded", "--dry-run"])
    assert r.exit_code == 0 and f"draft={shipped_tiny_head}" in r.output, r.output
    r = CliRunner().invoke(main, ["bench", "--model", "tiny", "--head", "builtin", "--num-prompts", "1",
                                  "--max-tokens", "4", "--no-plots", "--output", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    report = json.loads((tmp_path / "b" / "report.json").read_text())
    assert any(run.get("setting") != "baseline" for run in report["runs"])


def test_quickstart_bench_compares_the_users_head_with_the_shipped_one(shipped_tiny_head, tmp_path):
    from eaglekit.cli.quickstart import QuickstartConfig, stage_bench
    import shutil
    shutil.copytree(shipped_tiny_head, tmp_path / "work" / "head-sglang")  # the user's head, here the same one
    cfg = QuickstartConfig(workdir=str(tmp_path / "work"), target="tiny", bench_prompts=1, bench_tokens=4)
    report = stage_bench(cfg, tmp_path / "work")
    assert report["builtin"]["runs"] and json.loads((tmp_path / "work" / "bench" / "report.json").read_text())["builtin"]
