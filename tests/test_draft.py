"""The EAGLE-3 draft head: SGLang tensor names and shapes, vocabulary mapping, KV-concatenation forward."""
import numpy as np
import pytest
import torch

from eaglekit.draft import DraftConfig, Eagle3Draft, causal_bias
from eaglekit.vocab import build_vocab

# The key list SGLang's LlamaForCausalLMEagle3 loads, written out by hand on purpose.
SGLANG_KEYS = {
    "fc.weight", "midlayer.self_attn.q_proj.weight", "midlayer.self_attn.k_proj.weight",
    "midlayer.self_attn.v_proj.weight", "midlayer.self_attn.o_proj.weight", "midlayer.mlp.gate_proj.weight",
    "midlayer.mlp.up_proj.weight", "midlayer.mlp.down_proj.weight", "midlayer.input_layernorm.weight",
    "midlayer.hidden_norm.weight", "midlayer.post_attention_layernorm.weight", "norm.weight", "lm_head.weight",
    "d2t", "t2d",
}


@pytest.fixture()
def head(tiny_target):
    torch.manual_seed(0)
    cfg = DraftConfig.from_target(tiny_target.config, draft_vocab_size=100)
    return Eagle3Draft(cfg, tiny_target.model.get_input_embeddings())


def test_names_and_shapes_match_sglang(head, tiny_target):
    c = tiny_target.config
    sd = head.state_dict()
    assert set(sd) == SGLANG_KEYS  # the frozen target embedding is not exported
    H, D = c.hidden_size, c.head_dim
    assert sd["fc.weight"].shape == (H, 3 * H)
    assert sd["midlayer.self_attn.q_proj.weight"].shape == (c.num_attention_heads * D, 2 * H)
    assert sd["midlayer.self_attn.k_proj.weight"].shape == (c.num_key_value_heads * D, 2 * H)
    assert sd["midlayer.mlp.gate_proj.weight"].shape == (c.intermediate_size, H)
    assert sd["lm_head.weight"].shape == (100, H)
    assert sd["d2t"].shape == (100,) and sd["d2t"].dtype == torch.int64
    assert sd["t2d"].shape == (c.vocab_size,) and sd["t2d"].dtype == torch.bool
    assert all(not n.startswith("embed") for n, _ in head.named_parameters())
    assert not head.embed_tokens.weight.requires_grad


def test_from_target_reads_smollm2_shape():
    from transformers import LlamaConfig
    c = LlamaConfig(hidden_size=576, intermediate_size=1536, num_attention_heads=9, num_key_value_heads=3,
                    head_dim=64, num_hidden_layers=30, vocab_size=49152, max_position_embeddings=8192,
                    rope_parameters={"rope_type": "default", "rope_theta": 100000.0})
    cfg = DraftConfig.from_target(c, 8192)
    assert (cfg.head_dim, cfg.rope_theta, cfg.max_position_embeddings) == (64, 100000.0, 8192)
    assert cfg.aux_layer_ids_hf == (2, 15, 27)  # SGLang (1, 14, 26) + 1
    assert DraftConfig.from_dict(cfg.to_dict()) == cfg


def test_d2t_t2d_round_trip(head):
    counts = np.zeros(512, dtype=np.int64)
    rng = np.random.default_rng(0)
    counts[rng.choice(512, 150, replace=False)] = rng.integers(1, 50, 150)
    vocab = build_vocab(counts, size=100)
    head.set_vocab(vocab.draft_ids)
    draft = torch.arange(100)
    target = head.draft_to_target(draft)
    assert torch.equal(target, vocab.draft_ids)
    assert torch.equal(head.t2d.nonzero().squeeze(1), target)   # t2d marks exactly the draft ids
    assert torch.equal(head.d2t, vocab.d2t())
    inverse = torch.full((512,), -1)
    inverse[target] = draft
    assert torch.equal(inverse[target], draft)


def test_incremental_kv_equals_full_pass(head):
    B, S = 2, 7
    aux = torch.randn(B, S, 3 * 64)
    ids = torch.randint(0, 512, (B, S))
    pos = torch.arange(S).expand(B, S)
    full_h, full_l, _ = head(head.fuse(aux), ids, pos, causal_bias(S))
    h = head.fuse(aux)
    _, _, kv = head(h[:, :4], ids[:, :4], pos[:, :4], causal_bias(4))
    inc_h, inc_l, kv2 = head(h[:, 4:], ids[:, 4:], pos[:, 4:], causal_bias(S)[:, :, 4:], kv)
    assert torch.allclose(inc_h, full_h[:, 4:], atol=1e-5)
    assert torch.allclose(inc_l, full_l[:, 4:], atol=1e-5)
    assert kv2[0].shape == (B, 2, S, 16)


def test_out_hidden_is_prenorm_and_logits_use_norm(head):
    B, S = 1, 3
    h0 = head.fuse(torch.randn(B, S, 192))
    out, logits, _ = head(h0, torch.zeros(B, S, dtype=torch.long), torch.arange(S)[None], causal_bias(S))
    assert torch.allclose(logits, head.lm_head(head.norm(out)), atol=1e-6)
    assert not torch.allclose(out, head.norm(out))


@pytest.mark.parametrize("merged", [True, False])
def test_diagonal_tail_attention_equals_the_dense_bias(head, tiny_target, monkeypatch, merged):
    """The training unroll's steps k >= 1 (diagonal_tail: the bias covers step 0's keys, each later block is
    seen on its diagonal) give the values and gradients of SDPA with the dense bias [bias ; diag ; ... ; diag],
    with GQA (4 query heads, 2 key/value heads), several packed documents and padding in a row; merged False
    runs the path devices other than CPU take (the dense bias built inside the layer)."""
    from eaglekit import draft as draft_mod
    from eaglekit.draft import diagonal_tail_bias, gather_rows
    monkeypatch.setattr(draft_mod, "MERGED_DIAGONAL_DEVICES", {"cpu"} if merged else set())
    from eaglekit.masks import bias_from_mask
    from eaglekit.train.objective import doc_causal
    assert head.cfg.num_key_value_heads < head.cfg.num_attention_heads
    torch.manual_seed(1)
    B, L, n, K = 2, 24, 11, 3
    seg = torch.tensor([[0] * 9 + [1] * 6 + [2] * 5 + [-1] * 4, [0] * 14 + [1] * 10])
    pos = torch.stack([torch.cat([torch.arange((s == d).sum()) for d in s.unique_consecutive()]) for s in seg])
    idx = torch.stack([torch.randperm(L)[:n].sort().values for _ in range(B)])   # padding rows queried too
    ids, aux = torch.randint(0, 100, (B, L)), torch.randn(B, L, 3 * head.cfg.target_hidden_size)
    bias = bias_from_mask(gather_rows(doc_causal(seg), idx))[:, None]

    def unroll(tail: bool):
        head.zero_grad()
        hidden = head.fuse(aux)
        hidden.retain_grad()
        h, logits, past = head(hidden, ids, pos, bias, None, q_index=idx)
        outs = [logits]
        for k in range(1, K):
            b = bias if tail else diagonal_tail_bias(bias, k)
            h, logits, past = head(h, gather_rows(ids, idx), gather_rows(pos, idx) + k, b, past, diagonal_tail=tail)
            outs.append(logits)
        (sum((o * torch.randn(o.shape, generator=torch.Generator().manual_seed(i))).sum()
             for i, o in enumerate(outs))).backward()
        grads = {nm: p.grad.clone() for nm, p in head.named_parameters() if p.grad is not None}
        return outs, past, hidden.grad, grads

    got, want = unroll(True), unroll(False)
    for a, b in zip(got[0], want[0]):
        assert torch.allclose(a, b, atol=1e-5, rtol=1e-4)
    for a, b in zip(got[1], want[1]):  # the returned [past ; current] keys/values: same layout, same values
        assert a.shape == b.shape and torch.allclose(a, b, atol=1e-5, rtol=1e-4)
    assert torch.allclose(got[2], want[2], atol=1e-5, rtol=1e-4)
    assert set(got[3]) == set(want[3])
    for nm in got[3]:
        assert torch.allclose(got[3][nm], want[3][nm], atol=1e-5, rtol=1e-4), nm


def test_diagonal_tail_attention_gradient():
    """The hand-written backward (flash backward on the merged softmax + the diagonal terms) against finite
    differences, in fp64, with masked keys."""
    from eaglekit.draft import _DiagonalTailAttention
    torch.manual_seed(0)
    B, H, n, m, J, D = 2, 4, 5, 7, 2, 8
    x = [torch.randn(*s, dtype=torch.double, requires_grad=True)
         for s in [(B, H, n, D), (B, H, m + J * n, D), (B, H, m + J * n, D)]]
    bias = torch.zeros(B, 1, n, m, dtype=torch.double)
    bias[..., 5:] = float("-inf")
    bias[0, 0, 1, :4] = float("-inf")
    assert torch.autograd.gradcheck(lambda q, k, v: _DiagonalTailAttention.apply(q, k, v, bias, D ** -0.5), x)
