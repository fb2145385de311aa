"""Golden chat-template tests: rendered ids and loss mask, token by token, single- and multi-turn, on
the tiny model's ChatML and SmolLM2's own template (which injects its default system prompt)."""
import pytest

from eaglekit.chat import ChatError, generation_stop_ids, join_turns, render_conversation, user_turns

Q1, A1 = "What is the capital of France?", "Paris is the capital."
Q2, A2 = "How many days?", "Seven days."

TINY_USER_HDR = ["<|im_start|>", "u", "s", "er", "Ċ"]
TINY_ASSIST_HDR = ["<|im_start|>", "as", "s", "is", "t", "a", "n", "t", "Ċ"]
TINY_Q1 = ["What", "Ġis", "Ġthe", "Ġcapital", "Ġof", "ĠFrance", "?", "<|im_end|>", "Ċ"]
TINY_A1 = ["P", "aris", "Ġis", "Ġthe", "Ġcapital", ".", "<|im_end|>"]
TINY_Q2 = ["H", "ow", "Ġmany", "Ġdays", "?", "<|im_end|>", "Ċ"]
TINY_A2 = ["S", "ev", "en", "Ġdays", ".", "<|im_end|>"]

SMOL_SYS = ["<|im_start|>", "system", "Ċ", "You", "Ġare", "Ġa", "Ġhelpful", "ĠAI", "Ġassistant", "Ġnamed", "ĠSm",
            "ol", "LM", ",", "Ġtrained", "Ġby", "ĠH", "ugging", "ĠFace", "<|im_end|>", "Ċ"]
SMOL_USER_HDR = ["<|im_start|>", "user", "Ċ"]
SMOL_ASSIST_HDR = ["<|im_start|>", "ass", "istant", "Ċ"]
SMOL_Q1 = ["What", "Ġis", "Ġthe", "Ġcapital", "Ġof", "ĠFrance", "?", "<|im_end|>", "Ċ"]
SMOL_A1 = ["Paris", "Ġis", "Ġthe", "Ġcapital", ".", "<|im_end|>"]
SMOL_Q2 = ["How", "Ġmany", "Ġdays", "?", "<|im_end|>", "Ċ"]
SMOL_A2 = ["Seven", "Ġdays", ".", "<|im_end|>"]


def _response(tok, text, stops):
    # The "generated" ids of these tests: text ids plus the stop token the model would emit.
    return list(tok(text, add_special_tokens=False)["input_ids"]) + [stops[0]]


def _expect(*segments):
    tokens, mask = [], []
    for toks, m in segments:
        tokens += toks
        mask += [m] * len(toks)
    return tokens, mask


def _check(target, messages, answers, expected):
    tok = target.tokenizer
    stops = generation_stop_ids(tok, target.model)
    responses = [_response(tok, a, stops) for a in answers]
    prompts, rendered = render_conversation(tok, messages, responses, stops)
    got = list(zip(tok.convert_ids_to_tokens(rendered.input_ids), rendered.loss_mask))
    assert got == list(zip(*expected))
    # the generated ids appear verbatim (token-exact) where the mask is 1
    assert [t for t, m in zip(rendered.input_ids, rendered.loss_mask) if m] == sum(responses, [])
    assert len(prompts) == len(answers)


def test_tiny_single_turn(tiny_target):
    _check(tiny_target, [{"role": "user", "content": Q1}], [A1],
           _expect((TINY_USER_HDR + TINY_Q1 + TINY_ASSIST_HDR, 0), (TINY_A1, 1)))


def test_tiny_multi_turn_supervises_every_assistant_turn(tiny_target):
    msgs = [{"role": "user", "content": Q1}, {"role": "assistant", "content": "dataset answer, regenerated"},
            {"role": "user", "content": Q2}]
    _check(tiny_target, msgs, [A1, A2],
           _expect((TINY_USER_HDR + TINY_Q1 + TINY_ASSIST_HDR, 0), (TINY_A1, 1),
                   (["Ċ"] + TINY_USER_HDR + TINY_Q2 + TINY_ASSIST_HDR, 0), (TINY_A2, 1)))


def test_tiny_explicit_system_prompt(tiny_target):
    tok = tiny_target.tokenizer
    stops = generation_stop_ids(tok, tiny_target.model)
    msgs = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": Q1}]
    _, r = render_conversation(tok, msgs, [_response(tok, A1, stops)], stops)
    text = tok.decode(r.input_ids[: r.loss_mask.index(1)])
    assert text.startswith("<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\n")


@pytest.mark.slow
def test_smollm2_single_and_multi_turn(smollm2):
    _check(smollm2, [{"role": "user", "content": Q1}], [A1],
           _expect((SMOL_SYS + SMOL_USER_HDR + SMOL_Q1 + SMOL_ASSIST_HDR, 0), (SMOL_A1, 1)))
    _check(smollm2, [{"role": "user", "content": Q1}, {"role": "user", "content": Q2}], [A1, A2],
           _expect((SMOL_SYS + SMOL_USER_HDR + SMOL_Q1 + SMOL_ASSIST_HDR, 0), (SMOL_A1, 1),
                   (["Ċ"] + SMOL_USER_HDR + SMOL_Q2 + SMOL_ASSIST_HDR, 0), (SMOL_A2, 1)))


def test_truncated_response_keeps_template_end_of_turn_unsupervised(tiny_target):
    # A response cut by max_new_tokens has no stop id: the template's <|im_end|> then is a template token.
    tok = tiny_target.tokenizer
    stops = generation_stop_ids(tok, tiny_target.model)
    cut = list(tok("Paris", add_special_tokens=False)["input_ids"])
    msgs = [{"role": "user", "content": Q1}, {"role": "user", "content": Q2}]
    _, r = render_conversation(tok, msgs, [cut, _response(tok, A2, stops)], stops)
    toks = tok.convert_ids_to_tokens(r.input_ids)
    i = r.input_ids.index(cut[-1], r.loss_mask.index(1)) + 1
    assert toks[i] == "<|im_end|>" and r.loss_mask[i] == 0


def test_bad_messages_are_named():
    with pytest.raises(ChatError, match="role"):
        user_turns([{"role": "tool", "content": "x"}])
    with pytest.raises(ChatError, match="no user"):
        user_turns([{"role": "system", "content": "x"}])
    assert join_turns([[1, 2]], [[3]]).loss_mask == [0, 0, 1]
