"""The trainer's exported SGLang-format head passes the launcher's SGLang-name checks, loads through
eaglekit.export.load_head, and the embedded engine serving it still equals the target's greedy decode."""
import json

from eaglekit.export import export_head
from eaglekit.models import save_target
from eaglekit.train import save_checkpoint
from serving.engine import EagleEngine, SamplingParams, plain_greedy
from serving.launch import check_head
from serving.server import load_head
from serving.testing import self_distilled_head


def test_exported_head_checks_loads_and_decodes(tiny_target, tmp_path):
    prompts = [tiny_target.tokenizer(t)["input_ids"] for t in ["What is the capital of France?", "Solve 12 * 7 ="]]
    head = self_distilled_head(tiny_target, prompts, steps=60)
    ckpt = tmp_path / "ckpt"
    save_checkpoint(ckpt, head, {"draft_config": head.cfg.to_dict(), "step": 60})
    out = export_head(ckpt, tmp_path / "head", "sglang")
    tdir = save_target(tiny_target, tmp_path / "target")
    errors, _ = check_head(out, json.loads((tdir / "config.json").read_text()))
    assert errors == []
    loaded = load_head(str(out), tiny_target)
    engine = EagleEngine(tiny_target, loaded, 3, 2, 6)
    for p in prompts:
        gen = engine.generate(p, SamplingParams(max_new_tokens=24, ignore_eos=True))
        assert gen.output_ids == plain_greedy(tiny_target, p, 24)
    assert engine.mean_accept_length() > 1.5  # the bf16 export kept the fitted weights
