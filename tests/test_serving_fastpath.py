"""The embedded engine's CPU fast paths: the growing KV cache, GQA-packed attention and oneDNN pre-packed
linears compute what the stock HF/PyTorch paths compute."""
import copy

import pytest
import torch
from torch import nn

from eaglekit import cpu_linear
from serving import kv as KV
from serving import tree as T


def test_growing_layer_appends_and_keeps_accepted_rows():
    layer = KV.GrowingLayer()
    k0 = torch.randn(1, 2, 5, 4)
    k, v = layer.update(k0, -k0)
    assert layer.get_seq_length() == 5 and torch.equal(k, k0) and torch.equal(v, -k0)
    k1 = torch.randn(1, 2, 400, 4)  # forces a reallocation past the initial capacity
    k, _ = layer.update(k1, -k1)
    assert layer.get_seq_length() == 405 and torch.equal(k, torch.cat([k0, k1], -2))
    tree = torch.randn(1, 2, 6, 4)
    layer.update(tree, -tree)
    layer.keep(405, torch.tensor([405, 407, 410]))  # root + two accepted nodes of the tree
    want = torch.cat([k0, k1, tree[:, :, [0, 2, 5]]], -2)
    assert layer.get_seq_length() == 408
    assert torch.equal(layer.keys, want) and torch.equal(layer.values, -want)
    layer.crop(-3)
    assert layer.get_seq_length() == 405


def test_gqa_attention_matches_hf_sdpa(tiny_target):
    model = copy.deepcopy(tiny_target.model)
    assert model.config.num_key_value_heads < model.config.num_attention_heads  # GQA really exercised
    ids = torch.tensor([[5, 17, 99, 230, 41, 7, 300, 12, 64]])
    with torch.no_grad():
        ref = model(ids).logits
        assert KV.install(model)
        got = model(ids).logits  # no mask: HF builds (or omits) the causal mask itself
        got_masked = model(ids, attention_mask=T.causal_bias(9, 0), position_ids=torch.arange(9)[None]).logits
        # a cached prefix and a tree query with an explicit tree mask, against the stock model
        cache = KV.growing_cache(model.config.num_hidden_layers)
        model(ids[:, :6], past_key_values=cache, use_cache=True, attention_mask=T.causal_bias(6, 0),
              position_ids=torch.arange(6)[None])
        tail = model(ids[:, 6:], past_key_values=cache, use_cache=True, attention_mask=T.causal_bias(3, 6),
                     position_ids=torch.arange(6, 9)[None]).logits
    torch.testing.assert_close(got, ref, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(got_masked, ref, atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(tail, ref[:, 6:], atol=1e-5, rtol=1e-4)


@pytest.mark.skipif(not cpu_linear.available(), reason="oneDNN not built into this torch")
def test_packed_linear_matches_linear_and_keeps_parameters():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(64, 96, bias=False), nn.ReLU(), nn.Linear(96, 32))
    ref_net = copy.deepcopy(net)
    assert cpu_linear.pack_linears(net) == 2
    assert isinstance(net[0], cpu_linear.PackedLinear)
    assert set(net.state_dict()) == set(ref_net.state_dict())
    for rows in (1, 3, 8, 17):
        x = torch.randn(1, rows, 64)
        with torch.inference_mode():
            torch.testing.assert_close(net(x), ref_net(x), atol=1e-5, rtol=1e-5)
    x = torch.randn(2, 64, requires_grad=True)  # autograd on: the stock path, gradients flow
    net(x).sum().backward()
    assert x.grad is not None
    twin = copy.deepcopy(net)  # packed tensors are opaque: a deep copy re-packs (models get copied in tests)
    with torch.inference_mode():
        x = torch.randn(3, 64)
        torch.testing.assert_close(twin(x), ref_net(x), atol=1e-5, rtol=1e-5)
