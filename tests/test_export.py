"""Export: SGLang and speculators formats, reload checks of every tensor, refusal of inexpressible options."""
import json

import pytest
import torch
from safetensors.torch import load_file, save_file

from eaglekit.draft import DraftConfig, Eagle3Draft, causal_bias
from eaglekit.export import ExportError, ExportOptions, check_export, export_head, load_head
from eaglekit.train import save_checkpoint

from test_draft import SGLANG_KEYS


def assert_same_head(head, loaded, steps: int) -> None:
    """`loaded` gives `head`'s draft logits on random features (to bf16 precision) and maps its draft vocabulary
    to the same target tokens."""
    x = torch.randn(1, steps, 3 * head.cfg.target_hidden_size)
    ids, pos = torch.randint(0, 512, (1, steps)), torch.arange(steps)[None]
    with torch.no_grad():
        want = head(head.fuse(x), ids, pos, causal_bias(steps))[1]
        got = loaded(loaded.fuse(x), ids, pos, causal_bias(steps))[1]
    assert torch.allclose(want, got, atol=0.05)  # bf16 weights
    draft = torch.arange(head.cfg.draft_vocab_size)
    assert torch.equal(loaded.draft_to_target(draft), head.draft_to_target(draft))

VOCAB = torch.randperm(512, generator=torch.Generator().manual_seed(1))[:300].sort().values


@pytest.fixture()
def checkpoint(tmp_path, tiny_target):
    torch.manual_seed(0)
    head = Eagle3Draft(DraftConfig.from_target(tiny_target.config, 300), tiny_target.model.get_input_embeddings())
    head.set_vocab(VOCAB)
    info = {"draft_config": head.cfg.to_dict(), "vocab": {}, "train_config": {"ttt_steps": 5},
            "target": tiny_target.metadata(), "step": 7}
    save_checkpoint(tmp_path / "ckpt", head, info)
    return tmp_path / "ckpt", head


def test_sglang_export_round_trip(tmp_path, tiny_target, checkpoint):
    ckpt, head = checkpoint
    out = export_head(ckpt, tmp_path / "sglang", "sglang")
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["architectures"] == ["LlamaForCausalLMEagle3"] and cfg["num_hidden_layers"] == 1
    assert cfg["vocab_size"] == 512 and cfg["draft_vocab_size"] == 300 and cfg["tie_word_embeddings"] is False
    # aux ids: SGLang convention in eagle_config (hf - 1), HF convention at the top level
    assert cfg["eagle_config"]["eagle_aux_hidden_state_layer_ids"] == [v - 1 for v in head.cfg.aux_layer_ids_hf]
    assert cfg["max_position_embeddings"] == tiny_target.config.max_position_embeddings
    sd = load_file(out / "model.safetensors")
    assert set(sd) == SGLANG_KEYS
    assert sd["fc.weight"].dtype == torch.bfloat16 and sd["d2t"].dtype == torch.int64
    assert_same_head(head, load_head(out, tiny_target), steps=4)


def test_speculators_export(tmp_path, tiny_target, checkpoint):
    ckpt, head = checkpoint
    out = export_head(ckpt, tmp_path / "spec", "speculators")
    cfg = json.loads((out / "config.json").read_text())
    assert cfg["speculators_model_type"] == "eagle3" and cfg["norm_before_residual"] is False
    assert cfg["eagle_aux_hidden_state_layer_ids"] == list(head.cfg.aux_layer_ids_hf)
    assert cfg["speculators_config"]["proposal_methods"][0]["speculative_tokens"] == 5
    assert cfg["speculators_config"]["verifier"]["name_or_path"] == tiny_target.model_id
    keys = set(load_file(out / "model.safetensors"))
    assert keys == {k.replace("midlayer.", "layers.0.") for k in SGLANG_KEYS}
    assert load_head(out, tiny_target).cfg == DraftConfig.from_dict(head.cfg.to_dict())


@pytest.mark.parametrize("fmt", ["sglang", "speculators"])
def test_reload_check_catches_missing_extra_and_misshaped(tmp_path, checkpoint, fmt):
    ckpt, _ = checkpoint
    out = export_head(ckpt, tmp_path / fmt, fmt)
    sd = load_file(out / "model.safetensors")
    norm = "norm.weight"
    bad = dict(sd)
    bad.pop(norm)
    bad["model.norm.weight"] = sd[norm]                    # misnamed: SGLang would drop it silently
    save_file(bad, str(out / "model.safetensors"))
    with pytest.raises(ExportError, match="missing tensor 'norm.weight'.*|unexpected tensor 'model.norm.weight'"):
        check_export(out)
    bad = dict(sd)
    bad["lm_head.weight"] = sd["lm_head.weight"][:10]
    save_file(bad, str(out / "model.safetensors"))
    with pytest.raises(ExportError, match="lm_head.weight: shape"):
        check_export(out)


def test_refuses_what_the_format_cannot_express(tmp_path, checkpoint, tiny_target):
    ckpt, _ = checkpoint
    with pytest.raises(ExportError, match="speculative tokens"):
        export_head(ckpt, tmp_path / "x", "sglang", ExportOptions(speculative_tokens=3))
    with pytest.raises(ExportError, match="unknown format"):
        export_head(ckpt, tmp_path / "x", "gguf")
    assert not (tmp_path / "x").exists()
    out = export_head(ckpt, tmp_path / "ok", "sglang")
    other = tiny_llama_other()
    with pytest.raises(ExportError, match="not trained for this target"):
        load_head(out, other)


def tiny_llama_other():
    from eaglekit.models import tiny_llama
    return tiny_llama(hidden=32, intermediate=64)


def test_cli_export(tmp_path, checkpoint):
    from click.testing import CliRunner
    from eaglekit.cli import main
    ckpt, _ = checkpoint
    res = CliRunner().invoke(main, ["train", "export", str(ckpt), "--format", "speculators", str(tmp_path / "o")])
    assert res.exit_code == 0, res.output
    assert "reload check passed" in res.output
    res = CliRunner().invoke(main, ["train", "export", str(ckpt), "--speculative-tokens", "3", str(tmp_path / "p")])
    assert res.exit_code != 0 and "speculative tokens" in res.output
