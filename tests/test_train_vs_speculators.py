"""bench/train_vs_speculators.py's settings mapping and τ figures (no speculators needed): both tools get the same
value for every setting both offer, eaglekit's flags parse, and the targets come from the measured τ."""
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def b():
    spec = importlib.util.spec_from_file_location("train_vs_speculators", ROOT / "bench" / "train_vs_speculators.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def flag(flags: list[str], name: str) -> str:
    return flags[flags.index(name) + 1]


def test_both_tools_get_the_same_value_for_each_shared_setting(b):
    args = b.parse_args(["--epochs", "2", "--ttt-steps", "4", "--seq-len", "512", "--batch-size", "4",
                         "--lr", "0.001", "--step-weight", "0.8", "--weight-decay", "0.01"])
    s = b.aligned_settings(args, warmup=12)
    ek, sp = b.tool_flags(s, "eaglekit"), b.tool_flags(s, "speculators")
    for ours, theirs in (("--epochs", "--epochs"), ("--lr", "--lr"), ("--weight-decay", "--weight-decay"),
                         ("--step-weight", "--ttt-step-loss-decay"), ("--ttt-steps", "--ttt-steps"),
                         ("--draft-vocab-size", "--draft-vocab-size"), ("--warmup-steps", "--scheduler-warmup-steps")):
        assert float(flag(ek, ours)) == float(flag(sp, theirs)), ours
    assert int(flag(ek, "--seq-len")) * int(flag(ek, "--batch-size")) == int(flag(sp, "--total-seq-len")) == 2048
    assert flag(ek, "--warmup-ratio") == "0" and flag(ek, "--min-lr-ratio") == "0"       # W exactly, cosine to 0
    assert flag(sp, "--scheduler-type") == "cosine" and flag(sp, "--optimizer") == "adamw"
    assert float(flag(ek, "--grad-clip")) == b.SPECULATORS_CLIP                          # speculators' fixed clip
    assert flag(ek, "--lm-head") == "frozen"                                             # speculators': always
    # speculators trains the head the embedded engine (and SGLang) runs
    assert set(b.SPECULATORS_CLASSIC_HEAD) <= set(sp) and flag(sp, "--num-layers") == "1"
    assert {d["setting"] for d in b.DIFFERENCES} >= {"AdamW betas", "warm-up ramp", "rows per step"}
    assert all(d["why"] for d in b.DIFFERENCES)


def test_eaglekits_flags_parse(b):
    from eaglekit.cli.train import train
    args = b.parse_args(["--ttt-steps", "4", "--batch-size", "4"])
    flags = b.tool_flags(b.aligned_settings(args, warmup=5), "eaglekit")
    ctx = train.make_context("train", ["--data", "feats", "--out", "run", *flags])
    assert ctx.params["warmup_steps"] == 5 and ctx.params["grad_clip"] == 1.0 and ctx.params["batch_size"] == 4
    assert ctx.params["step_weight"] == 0.8 and ctx.params["lm_head"] == "frozen"


def test_default_warmup_is_eaglekits_rule(b):
    from eaglekit.train.loop import warmup_steps
    from eaglekit.train import TrainConfig
    args = b.parse_args([])
    cfg = TrainConfig(data="x")
    for steps in (8, 87, 174, 416, 5000):
        assert b.warmup_for(args, steps) == warmup_steps(steps, cfg.warmup_ratio, cfg.warmup_steps)
    assert b.warmup_for(b.parse_args(["--warmup-steps", "7"]), 416) == 7


def test_tau_margin_is_the_chains_and_needs_both_heads(b):
    def tau(chain, tree):
        return {"runs": [{"setting": [3, 1, 4], "accept_length": chain}, {"setting": [5, 4, 8], "accept_length": tree}]}
    seeds = [{"seed": 0, "eaglekit": {"median_tok_s": 600.0}, "speculators": {"median_tok_s": 400.0},
              "tau": {"eaglekit": tau(1.45, 1.70), "speculators": tau(1.40, 1.72)}}]
    a = b.aggregate(seeds, [(3, 1, 4), (5, 4, 8)])
    assert a["tau_margin"] == 0.05 and a["tau"]["5,4,8"]["margin"] == -0.02
    assert a["tau"]["3,1,4"] == {"eaglekit": [1.45], "speculators": [1.4], "margin": 0.05}
    no_tau = b.aggregate([dict(seeds[0], tau={"eaglekit": tau(1.45, 1.70)})], [(3, 1, 4)])
    assert no_tau["tau_margin"] is None
    assert b.accept_rate(1.45, (3, 1, 4)) == 0.15 and b.accept_rate(None, (3, 1, 4)) is None


def test_tau_settings_and_speculators_checkpoint(b, tmp_path):
    assert b.parse_args(["--tau-settings", "3,1,4 6,8,24"]).tau_settings == [(3, 1, 4), (6, 8, 24)]
    with pytest.raises(SystemExit):
        b.parse_args(["--tau-settings", "3,1"])
    save = tmp_path / "ckpt"
    for name in ("0", "1", "10"):
        (save / name).mkdir(parents=True)
        (save / name / "model.safetensors").write_bytes(b"")
    (save / "2").mkdir()                                 # an epoch folder without weights (interrupted)
    (save / "checkpoint_best").mkdir()
    assert b.speculators_checkpoint(save).name == "10"
    with pytest.raises(RuntimeError, match="no checkpoint"):
        b.speculators_checkpoint(tmp_path / "none")
    json.dumps(b.DIFFERENCES)                            # goes into the JSON line as it is


def test_tau_only_needs_prompts_and_summarises_without_training_figures(b):
    with pytest.raises(SystemExit):
        b.parse_args(["--tau-only"])
    assert b.parse_args(["--tau-only", "--tau-prompts", "p.jsonl"]).tau_only
    rec = {"seed": 0, "tau": {"eaglekit": {"runs": [{"setting": [5, 4, 8], "accept_length": 1.7}]},
                              "speculators": {"runs": [{"setting": [5, 4, 8], "accept_length": 1.6}]}}}
    assert b.tau_summary([rec], [(5, 4, 8)])["5,4,8"]["margin"] == 0.1
