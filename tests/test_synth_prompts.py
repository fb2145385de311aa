"""Prompts sampled from the target itself (eaglekit.synth_prompts, Magpie)."""
import pytest

from eaglekit.synth_prompts import SynthConfig, end_of_turn_ids, pre_query_text, synthesize


def test_pre_query_text_stops_where_the_user_words_begin(tiny_target):
    tok = tiny_target.tokenizer
    plain = pre_query_text(tok, None)
    steered = pre_query_text(tok, "You are a math tutor.")
    assert plain.endswith("<|im_start|>user\n")
    assert steered.endswith("<|im_start|>user\n") and "You are a math tutor." in steered
    # the prefix is exactly what the template renders before a real user message
    full = tok.apply_chat_template([{"role": "user", "content": "hi there"}], tokenize=False)
    assert full.startswith(plain) and full[len(plain):].startswith("hi there")


def test_template_without_verbatim_user_turn_is_refused(tiny_target):
    class Odd:
        def apply_chat_template(self, messages, **kw):
            return "".join(m["role"] for m in messages)  # drops the content
    with pytest.raises(ValueError, match="verbatim"):
        pre_query_text(Odd(), None)


def test_bad_config_is_refused():
    for bad in ({"n": -1}, {"batch_size": 0}, {"temperature": 0.0}, {"top_p": 1.5}, {"steering": {}}):
        with pytest.raises(ValueError):
            SynthConfig(**bad)


def test_smollm2_writes_whole_user_messages_reproducibly(smollm2):
    cfg = SynthConfig(n=6, batch_size=8, max_new_tokens=48, seed=3)
    rows = synthesize(smollm2, cfg)
    assert len(rows) == 6
    assert sorted(r["category"] for r in rows) == sorted(["chat", "code", "math", "writing", "knowledge", "chat"])
    stops = set(end_of_turn_ids(smollm2.tokenizer, smollm2.model))
    assert smollm2.tokenizer.convert_tokens_to_ids("<|im_end|>") in stops
    for r in rows:
        text = r["messages"][0]["content"]
        assert r["messages"][0]["role"] == "user" and len(text.split()) >= cfg.min_words
        assert "<|im_" not in text  # ended on the end-of-turn token, which is not part of the message
        # a message the model ended itself is shorter than the cap once re-tokenised
        assert len(smollm2.tokenizer(text, add_special_tokens=False).input_ids) <= cfg.max_new_tokens + 2
        prov = r["provenance"]
        assert prov["method"] == "magpie" and prov["model"] == smollm2.model_id and prov["seed"] == 3
    assert len({r["messages"][0]["content"] for r in rows}) == len(rows)
    again = synthesize(smollm2, cfg)
    assert [r["messages"] for r in again] == [r["messages"] for r in rows]
    other = synthesize(smollm2, SynthConfig(n=6, batch_size=8, max_new_tokens=48, seed=4))
    assert [r["messages"] for r in other] != [r["messages"] for r in rows]


def test_cli_writes_the_prompt_file(tmp_path):
    import json

    from click.testing import CliRunner

    from eaglekit.cli import main
    out = tmp_path / "synth.jsonl"
    res = CliRunner().invoke(main, ["data", "synth-prompts", "--target", "embedded", "--n", "2", "--seed", "1",
                                    "--batch-size", "4", "--max-new-tokens", "48", "--out", str(out)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 and {r["category"] for r in rows} == {"chat", "code"}
    assert json.loads(res.stdout.strip().splitlines()[-1])["written"] == 2
    assert not list(tmp_path.glob("*.tmp"))
    bad = CliRunner().invoke(main, ["data", "synth-prompts", "--n", "2", "--temperature", "0", "--out", str(out)])
    assert bad.exit_code == 2 and "temperature" in bad.output


def _scripted_generate(model, tok, calls):
    """model.generate replaced: records each call (rows, device, dtype, attention mask) and answers every row
    with a few words and the end-of-turn token, different per row, so the sampler's bookkeeping is exact."""
    stop = tok.convert_tokens_to_ids("<|im_end|>")

    def generate(ids, attention_mask=None, **kw):
        calls.append({"rows": ids.shape[0], "device": ids.device.type, "dtype": next(model.parameters()).dtype,
                      "mask": attention_mask.clone(), "max_new_tokens": kw["max_new_tokens"]})
        import torch
        outs = []
        for r in range(ids.shape[0]):
            words = tok(f" ask about item {len(calls)} {r} please", add_special_tokens=False).input_ids
            outs.append(ids[r].tolist() + words + [stop])
        width = max(map(len, outs))
        return torch.tensor([o + [stop] * (width - len(o)) for o in outs], device=ids.device)
    return generate


def test_device_path_fills_each_batch_with_mixed_categories(tiny_target, monkeypatch):
    import torch

    from eaglekit.models import tiny_llama
    target = tiny_llama()
    calls = []
    monkeypatch.setattr(target.model, "generate", _scripted_generate(target.model, target.tokenizer, calls))
    cfg = SynthConfig(n=10, batch_size=8, max_new_tokens=16, seed=1, device="cpu", dtype="bfloat16")
    rows = synthesize(target, cfg)
    assert len(rows) == 10
    assert {r["category"] for r in rows} == {"chat", "code", "math", "writing", "knowledge"}
    # every call full (8 rows, categories mixed), on the device and in the dtype asked for
    assert calls[0]["rows"] == 8 and all(c["device"] == "cpu" for c in calls)
    assert all(c["dtype"] == torch.bfloat16 for c in calls)
    # left padding: the steered rows are longer than chat's, chat's row starts with padding
    mask = calls[0]["mask"]
    assert mask[:, -1].all() and not mask[0, 0] and mask.sum(1).max() > mask[0].sum()
    assert len({r["messages"][0]["content"] for r in rows}) == 10
    with pytest.raises(ValueError, match="device"):
        SynthConfig(device="tpu")
    with pytest.raises(ValueError, match="dtype"):
        SynthConfig(dtype="int8")


def test_cli_device_option(tmp_path, monkeypatch):
    import json

    import torch
    from click.testing import CliRunner

    from eaglekit import models
    from eaglekit.cli import main
    seen = {}
    real = models.load_target

    def load(spec, dtype=torch.float32, device="cpu", prepare=True):
        seen.update(spec=spec, dtype=dtype, device=device)
        t = real("tiny", dtype=dtype, device=device)
        t.model.generate = _scripted_generate(t.model, t.tokenizer, [])
        return t
    monkeypatch.setattr(models, "load_target", load)
    out = tmp_path / "s.jsonl"
    res = CliRunner().invoke(main, ["data", "synth-prompts", "--target", "tiny", "--n", "3", "--device", "cpu",
                                    "--batch-size", "4", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert seen == {"spec": "tiny", "dtype": torch.float32, "device": "cpu"}
    assert json.loads(res.stdout.strip().splitlines()[-1])["written"] == 3
    if not torch.cuda.is_available():
        bad = CliRunner().invoke(main, ["data", "synth-prompts", "--target", "tiny", "--device", "cuda",
                                        "--out", str(out)])
        assert bad.exit_code == 2 and "no CUDA device" in bad.output
