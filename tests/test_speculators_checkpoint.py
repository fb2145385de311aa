"""Heads saved by speculators' own trainer (`speculators train`, 0.9.0 layout) load into the embedded engine:
a synthetic checkpoint in that layout, made from a known head, must give that head's logits."""
import json

import pytest
import torch
from safetensors.torch import save_file

from eaglekit.draft import DraftConfig, Eagle3Draft
from eaglekit.export import ExportError, check_export, load_head

from test_export import assert_same_head

VOCAB = torch.randperm(512, generator=torch.Generator().manual_seed(2))[:300].sort().values


def speculators_checkpoint(out, head: Eagle3Draft, embed: torch.Tensor, **switches) -> None:
    """What `speculators train` 0.9.0 writes in a checkpoint folder (config.json and model.safetensors, bf16,
    keys layers.0.*, the verifier's embedding saved beside the head), for `head`."""
    c = head.cfg
    layer = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": c.hidden_size,
             "intermediate_size": c.intermediate_size, "num_attention_heads": c.num_attention_heads,
             "num_key_value_heads": c.num_key_value_heads, "head_dim": c.head_dim, "num_hidden_layers": 1,
             "hidden_act": "silu", "rms_norm_eps": c.rms_norm_eps, "vocab_size": c.vocab_size,
             "max_position_embeddings": c.max_position_embeddings, "tie_word_embeddings": False,
             "rope_parameters": {"rope_theta": c.rope_theta, "rope_type": "default"},
             "layer_types": ["sliding_attention"], "sliding_window": 2048}
    config = {"architectures": ["Eagle3DraftModel"], "auto_map": {"": "config.Eagle3SpeculatorConfig"},
              "speculators_model_type": "eagle3", "speculators_version": "0.9.0", "dtype": "bfloat16",
              "draft_vocab_size": c.draft_vocab_size, "target_hidden_size": None,
              "eagle_aux_hidden_state_layer_ids": list(c.aux_layer_ids_hf), "transformer_layer_config": layer,
              "norm_before_residual": False, "norm_before_fc": False, "fc_norm": False, "norm_output": False,
              "embed_requires_grad": False, "tie_word_embeddings": False,
              "speculators_config": {"algorithm": "eagle3", "default_proposal_method": "greedy",
                                     "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": 3,
                                                           "verifier_accept_k": 1, "accept_tolerance": 0.0}],
                                     "verifier": {"name_or_path": "tiny", "architectures": ["LlamaForCausalLM"]}}}
    config.update(switches)
    state = {("layers.0." + k[len("midlayer."):] if k.startswith("midlayer.") else k): v
             for k, v in head.state_dict().items() if not k.startswith("embed")}
    state = {k: (v.to(torch.bfloat16) if v.is_floating_point() else v).contiguous() for k, v in state.items()}
    state["embed_tokens.weight"] = embed.detach().to(torch.bfloat16).contiguous()
    if switches.get("norm_before_fc"):
        state["input_norm.weight"] = torch.ones(3 * c.target_hidden_size, dtype=torch.bfloat16)
    out.mkdir(parents=True)
    save_file(state, str(out / "model.safetensors"), metadata={"format": "pt"})
    (out / "config.json").write_text(json.dumps(config))


@pytest.fixture()
def head(tiny_target):
    torch.manual_seed(0)
    h = Eagle3Draft(DraftConfig.from_target(tiny_target.config, 300), tiny_target.model.get_input_embeddings())
    h.set_vocab(VOCAB)
    return h


def test_speculators_trainer_checkpoint_gives_the_heads_logits(tmp_path, tiny_target, head):
    speculators_checkpoint(tmp_path / "ckpt", head, tiny_target.model.get_input_embeddings().weight)
    loaded = load_head(tmp_path / "ckpt", tiny_target)
    assert loaded.cfg == head.cfg
    assert_same_head(head, loaded, steps=5)


@pytest.mark.parametrize("switch", ["norm_before_fc", "norm_output", "fc_norm", "embed_requires_grad"])
def test_architectures_the_engine_does_not_run_are_refused(tmp_path, tiny_target, head, switch):
    speculators_checkpoint(tmp_path / "ckpt", head, tiny_target.model.get_input_embeddings().weight,
                           **{switch: True})
    with pytest.raises(ExportError, match=switch):
        check_export(tmp_path / "ckpt")


def test_norm_before_residual_is_refused(tmp_path, tiny_target, head):
    speculators_checkpoint(tmp_path / "ckpt", head, tiny_target.model.get_input_embeddings().weight,
                           norm_before_residual=True)
    with pytest.raises(ExportError, match="--no-norm-before-residual"):
        load_head(tmp_path / "ckpt", tiny_target)


def test_an_embedding_other_than_the_targets_is_refused(tmp_path, tiny_target, head):
    other = tiny_target.model.get_input_embeddings().weight + 0.5
    speculators_checkpoint(tmp_path / "ckpt", head, other)
    check_export(tmp_path / "ckpt")  # the layout is right: only the target can tell
    with pytest.raises(ExportError, match="not the target's embedding"):
        load_head(tmp_path / "ckpt", tiny_target)


def test_final_eval_measures_a_speculators_checkpoint_as_saved(tmp_path, tiny_target, head):
    """serving.bench.final_eval takes an exported head folder (here speculators' layout) as well as a run's
    checkpoint: both tools' heads are measured by the same function."""
    from serving.bench import final_eval
    speculators_checkpoint(tmp_path / "ckpt", head, tiny_target.model.get_input_embeddings().weight)
    prompts = tmp_path / "heldout.jsonl"
    prompts.write_text(json.dumps({"prompt": "Name a colour.", "category": "chat"}) + "\n")
    res = final_eval(tiny_target, tmp_path / "ckpt", str(prompts), 6, [(3, 1, 4)])
    assert res["num_prompts"] == 1 and res["runs"][0]["accept_length"] >= 1.0
