"""Additive attention biases from boolean masks: the one rule the draft head, training and the serving
engine all use (0 where a query may see a key, -inf elsewhere; every query row must see at least one key)."""
from __future__ import annotations

import torch
from torch import Tensor


def bias_from_mask(allowed: Tensor, dtype=torch.float32) -> Tensor:
    """An additive bias of `allowed`'s shape: 0 where True, -inf where False."""
    return torch.zeros(allowed.shape, dtype=dtype, device=allowed.device).masked_fill(~allowed, float("-inf"))


def causal_bias(query_len: int, past_len: int = 0, dtype=torch.float32, device=None) -> Tensor:
    """[1, 1, q, past + q] bias for appending q tokens after a fully visible prefix of `past_len` keys
    (past_len 0: the plain [1, 1, S, S] causal bias)."""
    visible = torch.ones(query_len, past_len + query_len, dtype=torch.bool, device=device)
    visible[:, past_len:] = torch.tril(visible[:, past_len:])
    return bias_from_mask(visible, dtype)[None, None]
