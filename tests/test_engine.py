"""Embedded EAGLE-3 engine: greedy output equals the target's own greedy decode token for token (chain and
tree settings), the KV cache is compacted to the accepted path, and sampled verification keeps the target's
output distribution."""
import pytest
import torch

from serving.engine import EagleEngine, EngineError, SamplingParams, plain_greedy
from serving.testing import random_head, self_distilled_head

TEXTS = ["What is the capital of France?", "Write a Python function that returns the sum",
         "Explain speculative decoding:", "Solve 12 * 7 =", "Hola, ¿cómo estás?", "The quick brown fox"]
SETTINGS = [(3, 1, 4), (5, 1, 6), (2, 2, 4), (4, 2, 6), (3, 4, 8), (5, 4, 12)]


@pytest.fixture(scope="module")
def prompts(tiny_target):
    return [tiny_target.tokenizer(t)["input_ids"] for t in TEXTS]


@pytest.fixture(scope="module")
def fitted_head(tiny_target, prompts):
    # fitted on 4 prompts only: the other 2 exercise rejections
    return self_distilled_head(tiny_target, prompts[:4])


@pytest.mark.parametrize("setting", SETTINGS)
def test_greedy_equivalence_tiny(tiny_target, prompts, fitted_head, setting):
    engine = EagleEngine(tiny_target, fitted_head, *setting)
    accepted = []
    for p in prompts:
        ref = plain_greedy(tiny_target, p, 40)
        gen = engine.generate(p, SamplingParams(max_new_tokens=40, ignore_eos=True))
        assert gen.output_ids == ref, (setting, p)
        accepted.append(gen.accept_length)
    assert max(accepted) > 2.0  # accepted paths were exercised, not only rejections
    assert engine.mean_accept_length() >= 1.0


@pytest.mark.parametrize("min_prob", [0.05, 0.5, 0.99])
def test_greedy_equivalence_with_probability_cut(tiny_target, prompts, fitted_head, min_prob):
    """Cutting unlikely draft nodes changes how much is verified, never what is output."""
    engine = EagleEngine(tiny_target, fitted_head, 5, 4, 12, min_draft_prob=min_prob)
    full = EagleEngine(tiny_target, fitted_head, 5, 4, 12)
    sizes = []
    orig = engine._draft_tree
    engine._draft_tree = lambda gen: sizes.append(orig(gen).size) or orig(gen)
    for p in prompts:
        ref = plain_greedy(tiny_target, p, 30)
        assert engine.generate(p, SamplingParams(max_new_tokens=30, ignore_eos=True)).output_ids == ref
        full.generate(p, SamplingParams(max_new_tokens=30, ignore_eos=True))
    assert min(sizes) < 12  # the cut really shrank trees
    if min_prob >= 0.5:
        assert engine.mean_accept_length() < full.mean_accept_length()
        assert min(sizes) == 1  # and some steps verified the root alone


def test_greedy_equivalence_random_head_and_eos(tiny_target, prompts):
    head = random_head(tiny_target, seed=3)
    for setting in [(3, 1, 4), (3, 4, 8)]:
        engine = EagleEngine(tiny_target, head, *setting)
        for p in prompts[:3]:
            eos = [int(plain_greedy(tiny_target, p, 12)[7])]  # stop on a token the target will emit
            ref = plain_greedy(tiny_target, p, 30, eos_ids=eos)
            gen = engine.generate(p, SamplingParams(max_new_tokens=30, stop_token_ids=tuple(eos), ignore_eos=True))
            assert gen.output_ids == ref and gen.finish_reason == "stop"


def test_plain_engine_matches_generate(tiny_target, prompts):
    engine = EagleEngine(tiny_target, None)
    gen = engine.generate(prompts[0], SamplingParams(max_new_tokens=20, ignore_eos=True))
    assert gen.output_ids == plain_greedy(tiny_target, prompts[0], 20)
    assert gen.verify_steps == 0 and gen.finish_reason == "length"


def test_kv_cache_compacted_to_accepted_path(tiny_target, prompts, fitted_head):
    """After verify steps the target cache equals a fresh prefill of the committed tokens."""
    engine = EagleEngine(tiny_target, fitted_head, 4, 2, 6)
    gen = engine.start(prompts[0], SamplingParams(max_new_tokens=100, ignore_eos=True))
    for _ in range(4):
        engine.step(gen)
    assert max(gen.accept_lengths) > 1  # something was accepted, so compaction really dropped tree nodes
    committed = gen.prompt_ids + gen.output_ids[:-1]  # the last token (the root) is not cached yet
    assert gen.target_kv.get_seq_length() == len(committed) == gen.past_len
    with torch.no_grad():
        fresh = tiny_target.model(torch.tensor([committed]), use_cache=True).past_key_values
    for a, b in zip(gen.target_kv.layers, fresh.layers):
        torch.testing.assert_close(a.keys, b.keys, atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(a.values, b.values, atol=1e-5, rtol=1e-4)
    # and the draft's cache holds one slot per committed position, nothing from the discarded tree
    assert gen.draft_kv[0].shape[-2] == len(committed)


def test_sampling_preserves_target_distribution(tiny_target, prompts, fitted_head):
    """The 2nd token comes from a verify step: its empirical distribution matches the exact target marginal."""
    temp, n = 0.05, 600  # the random tiny target is nearly flat (logit std ~0.16): sharpen it
    p = prompts[0]
    model = tiny_target.model
    with torch.no_grad():
        p1 = torch.softmax(model(torch.tensor([p])).logits[0, -1] / temp, -1)
        V = p1.numel()
        batch = torch.tensor([p + [t] for t in range(V)])
        p2 = torch.softmax(model(batch).logits[:, -1] / temp, -1)
    exact = (p1[:, None] * p2).sum(0)
    engine = EagleEngine(tiny_target, fitted_head, 3, 4, 8)
    counts = torch.zeros(V)
    first_accepted = 0
    for seed in range(n):
        g = engine.generate(p, SamplingParams(max_new_tokens=2, temperature=temp, seed=seed, ignore_eos=True))
        counts[g.output_ids[1]] += 1
        first_accepted += g.accept_lengths[0] > 1
    assert first_accepted > n // 6  # the draft's candidates were accepted often: the test has teeth
    # chi-square over the tokens with enough expected mass, the rest pooled
    big = exact * n >= 5
    obs = torch.cat([counts[big], counts[~big].sum()[None]])
    exp = torch.cat([exact[big] * n, (exact[~big].sum() * n)[None]])
    chi2 = float(((obs - exp) ** 2 / exp).sum())
    dof = int(big.sum())
    assert chi2 < dof + 4 * (2 * dof) ** 0.5 + 10, (chi2, dof)


def test_bad_settings_and_requests(tiny_target, fitted_head):
    with pytest.raises(EngineError):
        EagleEngine(tiny_target, fitted_head, 2, 2, 9)  # more draft tokens than a 2x2 tree holds
    with pytest.raises(EngineError):
        EagleEngine(tiny_target, fitted_head, 3, 4, 8, min_draft_prob=1.0)
    engine = EagleEngine(tiny_target, fitted_head, 3, 1, 99)
    assert engine.num_draft_tokens == 4  # a chain verifies steps + 1 tokens, as SGLang forces
    with pytest.raises(EngineError):
        engine.start([], SamplingParams())
    with pytest.raises(EngineError):
        engine.start([1, 10_000], SamplingParams())


@pytest.mark.slow
def test_greedy_equivalence_smollm2(smollm2):
    head = random_head(smollm2, draft_vocab_size=4096)
    ids = smollm2.tokenizer.apply_chat_template([{"role": "user", "content": "What is 2+2?"}],
                                                add_generation_prompt=True, tokenize=True)
    ids = list(ids["input_ids"] if hasattr(ids, "keys") else ids)
    ref = plain_greedy(smollm2, ids, 12)
    for setting in [(3, 1, 4), (3, 4, 8)]:
        gen = EagleEngine(smollm2, head, *setting).generate(ids, SamplingParams(max_new_tokens=12, ignore_eos=True))
        assert gen.output_ids == ref
