"""Target models: tiny and embedded SmolLM2 load, render their chat template and decode greedily
and deterministically; aux-layer ids translate between the SGLang and HF conventions."""
import pytest
import torch

from eaglekit import models
from eaglekit.contract import ContractError


def test_layer_id_conventions():
    llama8b = models.default_aux_layers(32)
    assert llama8b.sglang == (1, 15, 28) and llama8b.hf == (2, 16, 29)   # SGLang ids = HF ids - 1
    smol = models.default_aux_layers(30)
    assert smol.sglang == (1, 14, 26) and smol.hf == (2, 15, 27)
    assert models.hf_to_sglang(models.sglang_to_hf((3, 7, 9))) == (3, 7, 9)
    custom = models.aux_layers([0, 5, 10], "sglang", 12)
    assert custom.hf == (1, 6, 11) and custom.sglang == (0, 5, 10)
    with pytest.raises(ContractError, match="outside a 12-layer target"):
        models.aux_layers([1, 5, 13], "hf", 12)
    with pytest.raises(ContractError, match="exactly three"):
        models.aux_layers([1, 2], "hf", 12)
    with pytest.raises(ContractError, match="'hf' or 'sglang'"):
        models.aux_layers([1, 2, 3], "vllm", 12)


def test_layer_ids_pick_the_right_hf_hidden_states(tiny_target):
    """HF id v is the input of decoder layer v == the output of layer v-1 (SGLang id v-1)."""
    model = tiny_target.model
    ids = torch.tensor([[1, 5, 9, 12]])
    captured = {}
    hooks = [layer.register_forward_hook(lambda m, a, out, i=i: captured.__setitem__(i, out[0] if isinstance(out, tuple) else out))
             for i, layer in enumerate(model.model.layers)]
    with torch.no_grad():
        hs = model(ids, output_hidden_states=True).hidden_states
    for h in hooks:
        h.remove()
    aux = models.default_aux_layers(model.config.num_hidden_layers)
    for hf_id, sg_id in zip(aux.hf, aux.sglang):
        assert torch.equal(hs[hf_id], captured[sg_id])


def _greedy(target, prompt, n):
    ids = target.tokenizer.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                               return_dict=True, return_tensors="pt")
    with torch.no_grad():
        out = target.model.generate(**ids, max_new_tokens=n, do_sample=False,
                                    pad_token_id=target.tokenizer.pad_token_id)
    return out[0, ids["input_ids"].shape[1]:].tolist()


def test_tiny_model_is_deterministic_with_chatml(tiny_target):
    again = models.tiny_llama()
    assert models.tokenizer_hash(again.tokenizer) == models.tokenizer_hash(tiny_target.tokenizer)
    for a, b in zip(again.model.state_dict().values(), tiny_target.model.state_dict().values()):
        assert torch.equal(a, b)
    text = tiny_target.tokenizer.apply_chat_template([{"role": "user", "content": "Hi ¿qué tal? 你好"}],
                                                     add_generation_prompt=True, tokenize=False)
    assert text == "<|im_start|>user\nHi ¿qué tal? 你好<|im_end|>\n<|im_start|>assistant\n"
    ids = tiny_target.tokenizer(text)["input_ids"]
    assert tiny_target.tokenizer.decode(ids) == text
    assert _greedy(tiny_target, "Hello", 8) == _greedy(again, "Hello", 8)
    other = models.load_target("tiny:seed=1")
    assert not torch.equal(other.model.lm_head.weight, tiny_target.model.lm_head.weight)


def test_load_from_folder_keeps_identity(tiny_target, tmp_path):
    folder = models.save_target(tiny_target, tmp_path / "tiny")
    loaded = models.load_target(str(folder))
    assert loaded.metadata() == tiny_target.metadata()
    assert _greedy(loaded, "Hello", 5) == _greedy(tiny_target, "Hello", 5)


def test_load_errors_say_what_to_do(tmp_path):
    with pytest.raises(models.ModelError, match="GGUF file not found"):
        models.load_target(str(tmp_path / "nope.gguf"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(models.ModelError, match="not a model folder"):
        models.load_target(str(tmp_path / "empty"))
    with pytest.raises(models.ModelError, match="unknown tiny-model option"):
        models.load_target("tiny:depth=3")


@pytest.mark.slow
def test_embedded_smollm2_chat_template_and_greedy(smollm2):
    cfg = smollm2.config
    assert (cfg.num_hidden_layers, cfg.hidden_size, cfg.vocab_size) == (30, 576, 49152)
    text = smollm2.tokenizer.apply_chat_template([{"role": "user", "content": "What is 2+2?"}],
                                                 add_generation_prompt=True, tokenize=False)
    assert text.endswith("<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n")
    assert text.startswith("<|im_start|>system\n")
    first = _greedy(smollm2, "What is 2+2?", 12)
    assert first == _greedy(smollm2, "What is 2+2?", 12)
    assert "4" in smollm2.tokenizer.decode(first)
    meta = smollm2.metadata()
    assert meta["target_model_id"] == models.EMBEDDED_ID and meta["target_revision"].startswith("gguf-sha256:")


@pytest.mark.slow
def test_embedded_cache_is_reused(smollm2):
    import time
    start = time.time()
    path = models.prepare_embedded()
    assert time.time() - start < 1.0 and (path / "eaglekit.json").is_file()
