"""oneDNN pre-packed linear layers for CPU inference (the embedded engine, the generate stage's CPU path).

Measured here (SmolLM2-135M's 1536x576 projections, 30 distinct weights so they stream from memory, 1
thread): `F.linear` (MKL, repacks the weight on every call) costs 0.26-0.5 ms at 1 token and 1.6-2.4x that
at 4-8 tokens; the same weight packed once by oneDNN (`mkldnn._reorder_linear_weight`) costs ~0.26 ms
for anything from 1 to 6 tokens and ~0.3 ms at 8. So the target verifies a draft tree for little more
than one token costs (a whole SmolLM2 pass over 8 tokens: ~1.4x one token at 1 thread, where the
attention and the lm-head grow too), and plain decoding (the baseline) gets faster too.

Only the forward changes; `weight`/`bias` stay the module's parameters (tied weights, state_dict and any
code reading them keep working). With autograd on, the layer falls back to `F.linear`.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

PACK_BATCH_HINT = 8  # oneDNN layout hint; measured flat cost for 1..8 rows with any hint >= 2


def available() -> bool:
    return bool(torch.backends.mkldnn.is_available()) and hasattr(torch.ops.mkldnn, "_reorder_linear_weight") \
        and hasattr(torch.ops.mkldnn, "_linear_pointwise")


class PackedLinear(nn.Module):
    """Wraps an nn.Linear (fp32, CPU) with a oneDNN-packed copy of its weight used for inference."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.weight = linear.weight
        self.bias = linear.bias
        with torch.no_grad():
            self._packed = torch.ops.mkldnn._reorder_linear_weight(linear.weight.detach(), PACK_BATCH_HINT)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled() or x.dtype != torch.float32 or x.device.type != "cpu":
            return F.linear(x, self.weight, self.bias)
        return torch.ops.mkldnn._linear_pointwise(x, self._packed, self.bias, "none", [], "")

    def __deepcopy__(self, memo):
        # the packed oneDNN tensor is opaque (no storage to copy): copy the parameters and pack again
        import copy
        lin = nn.Linear(self.in_features, self.out_features, bias=self.bias is not None)
        lin.weight = copy.deepcopy(self.weight, memo)
        if self.bias is not None:
            lin.bias = copy.deepcopy(self.bias, memo)
        new = PackedLinear(lin)
        memo[id(self)] = new
        return new

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, packed=oneDNN"


def pack_linears(module: nn.Module) -> int:
    """Replace every fp32 CPU nn.Linear under `module` with a PackedLinear, in place; returns how many."""
    if not available():
        return 0
    n = 0
    for name, child in list(module.named_modules()):
        for attr, sub in list(child.named_children()):
            if type(sub) is nn.Linear and sub.weight.device.type == "cpu" and sub.weight.dtype == torch.float32:
                setattr(child, attr, PackedLinear(sub))
                n += 1
    return n
