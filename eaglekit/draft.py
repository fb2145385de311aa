"""The EAGLE-3 draft head: one Llama decoder layer over [token embedding ; fused target features].

Parameter and buffer names are exactly those SGLang's `LlamaForCausalLMEagle3` loads:
`fc`, `midlayer.*`, `norm`, `lm_head`, buffers `d2t` / `t2d`. The target's token embedding is reused and
held frozen; it is deliberately not a registered submodule, so it never appears in `state_dict()`,
`parameters()` (optimizer, DDP) or an exported checkpoint.

One call of `forward` is one draft step over a block of positions. Keys/values are returned concatenated
with the past ones, so a caller builds any attention pattern (training-time-test diagonals, draft trees)
from an additive bias over [past ; current] keys.

The training unroll's steps k >= 1 may instead pass `diagonal_tail=True`: attn_bias [B,1,n,m] then covers only
the first m keys (step 0's), and the keys after them are k blocks of n (steps 1..k, the current one last),
query i seeing exactly key i of each block. That is the same attention as the dense bias
[attn_bias ; diag ; ... ; diag] (0 on the diagonal, -inf elsewhere) over all m + k·n keys; on CPU it is computed
as one softmax over m + k scores per query instead of m + k·n (see `_DiagonalTailAttention`). The returned
(k, v) are [past ; current] either way.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from eaglekit.masks import bias_from_mask, causal_bias  # noqa: F401 - the draft head's attention biases


def read_rope(config) -> tuple[float, dict | None]:
    """(rope_theta, rope_scaling or None) of a model config: a transformers config object or a config.json
    mapping, written either way (`rope_parameters` of transformers 5, or `rope_scaling` + `rope_theta`)."""
    get = config.get if isinstance(config, dict) else (lambda key: getattr(config, key, None))
    rope = dict(get("rope_parameters") or get("rope_scaling") or {})
    theta = rope.pop("rope_theta", None) or get("rope_theta") or 10000.0
    return float(theta), (rope if rope.get("rope_type", "default") != "default" else None)


@dataclass
class DraftConfig:
    hidden_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    intermediate_size: int
    rms_norm_eps: float
    rope_theta: float
    rope_scaling: dict | None
    max_position_embeddings: int
    vocab_size: int                       # target vocabulary
    draft_vocab_size: int
    target_hidden_size: int
    aux_layer_ids_hf: tuple[int, int, int] = field(default=(0, 0, 0))

    @classmethod
    def from_target(cls, target_config, draft_vocab_size: int, aux_layer_ids_hf=None) -> "DraftConfig":
        """Size the head like one decoder layer of the target (heads, widths, RoPE, context)."""
        from eaglekit.contract import default_aux_layers
        c = target_config
        heads = int(c.num_attention_heads)
        head_dim = int(getattr(c, "head_dim", None) or c.hidden_size // heads)
        theta, scaling = read_rope(c)
        aux = tuple(aux_layer_ids_hf) if aux_layer_ids_hf is not None else default_aux_layers(c.num_hidden_layers).hf
        return cls(hidden_size=int(c.hidden_size), num_attention_heads=heads,
                   num_key_value_heads=int(getattr(c, "num_key_value_heads", None) or heads), head_dim=head_dim,
                   intermediate_size=int(c.intermediate_size), rms_norm_eps=float(c.rms_norm_eps),
                   rope_theta=float(theta), rope_scaling=scaling,
                   max_position_embeddings=int(c.max_position_embeddings), vocab_size=int(c.vocab_size),
                   draft_vocab_size=int(draft_vocab_size), target_hidden_size=int(c.hidden_size),
                   aux_layer_ids_hf=tuple(int(v) for v in aux))

    def rope_parameters(self) -> dict:
        """The RoPE settings as transformers' `rope_parameters` (theta and any scaling in one dict)."""
        return {"rope_type": "default", **(self.rope_scaling or {}), "rope_theta": self.rope_theta}

    def to_dict(self) -> dict:
        d = asdict(self)
        d["aux_layer_ids_hf"] = list(self.aux_layer_ids_hf)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "DraftConfig":
        d = dict(d)
        d["aux_layer_ids_hf"] = tuple(d["aux_layer_ids_hf"])
        return cls(**d)


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x: Tensor) -> Tensor:
        # Normalise in fp32 like Llama, then cast back (matters under bf16 autocast).
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * xf.to(x.dtype)


def gather_rows(x: Tensor, index: Tensor) -> Tensor:
    """x [B,S,...] at positions index [B,n] -> [B,n,...]."""
    return x.gather(1, index.view(*index.shape, *([1] * (x.dim() - 2))).expand(-1, -1, *x.shape[2:]))


def gather_heads(x: Tensor, index: Tensor) -> Tensor:
    """x [B,1,S,D] (broadcast over heads) at positions index [B,n] -> [B,1,n,D]."""
    return gather_rows(x.squeeze(1), index).unsqueeze(1)


def _rotate_half(x: Tensor) -> Tensor:
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def diagonal_tail_bias(bias: Tensor, blocks: int) -> Tensor:
    """The dense equivalent of a `diagonal_tail` bias [B,1,n,m]: [bias ; diag ; ... ; diag] [B,1,n,m+blocks·n],
    each diag 0 where key i of its block meets query i, -inf elsewhere."""
    n = bias.shape[-2]
    diag = bias_from_mask(torch.eye(n, dtype=torch.bool, device=bias.device), bias.dtype)
    return torch.cat([bias] + [diag.expand(*bias.shape[:-1], n)] * blocks, dim=-1)


# Devices whose `diagonal_tail` attention runs `_DiagonalTailAttention`; the others build the dense bias.
MERGED_DIAGONAL_DEVICES = {"cpu"}


class _DiagonalTailAttention(torch.autograd.Function):
    """Attention whose keys are [m main keys ; J blocks of n diagonal keys]: query i scores the main keys (plus
    bias) and key i of each block, one softmax over those m + J scores.

    q [B,H,n,D]; k, v [B,H,m+J·n,D] (already repeated for GQA; block j is keys m+j·n .. m+(j+1)·n-1); bias
    [B,1,n,m] over the main keys, every row seeing at least one. Returns [B,H,n,D] in q's dtype; equal to SDPA
    over all keys with `diagonal_tail_bias(bias, J)`.

    Why: the TTT steps k >= 1 let a query see one key per later block, so SDPA with the dense bias spends
    (m + J·n)/m of the step-0 cost on scores that are almost all -inf (fwd+bwd ~19 and ~31 ms against 12.5 on the
    2-core CPU bench, n=300, m=512). Here the main keys go through PyTorch's CPU flash kernel (the one SDPA itself
    dispatches to), which also returns their log-sum-exp; the J diagonal scores are per-row dot products, merged by
    log-sum-exp. Backward: the flash backward, given the *merged* output and log-sum-exp, recomputes the merged
    probabilities on the main keys and subtracts rowsum(dO·out) of the merged output: exactly the gradient of
    the joint softmax restricted to those keys (what split-KV flash attention does); the diagonal terms' gradient
    is written out. Diagonal terms and the merge run in the kernel's log-sum-exp dtype (fp32; fp64 for fp64
    inputs). The work on [.., D]-sized tensors is kept to a few fused or in-place ops: on a 2-core box each
    parallel op costs a thread hand-off, which another busy process turns into milliseconds."""

    @staticmethod
    def _split(x: Tensor, m: int, n: int) -> tuple[Tensor, Tensor]:
        """[B,H,m+J·n,D] -> main [B,H,m,D], diagonal blocks [B,H,J,n,D] (views)."""
        return x[:, :, :m], x[:, :, m:].unflatten(2, (-1, n))

    @staticmethod
    def forward(ctx, q: Tensor, k: Tensor, v: Tensor, bias: Tensor, scale: float):
        m, n = bias.shape[-1], q.shape[2]
        (km, kd), (vm, vd) = _DiagonalTailAttention._split(k, m, n), _DiagonalTailAttention._split(v, m, n)
        out_main, lse_main = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
            q, km, vm, attn_mask=bias, scale=scale)
        acc = lse_main.dtype
        s_diag = (q.to(acc).unsqueeze(2) * kd.to(acc)).sum(-1) * scale    # [B,H,J,n]
        lse = torch.logaddexp(lse_main, torch.logsumexp(s_diag, dim=2))    # [B,H,n], over all m + J scores
        p_diag = (s_diag - lse.unsqueeze(2)).exp()                         # [B,H,J,n], merged probabilities
        out = out_main.to(acc) * (lse_main - lse).exp().unsqueeze(-1)     # main part, renormalised
        for j in range(kd.shape[2]):
            out.addcmul_(p_diag[:, :, j, :, None], vd[:, :, j].to(acc))
        out = out.to(q.dtype)
        ctx.save_for_backward(q, k, v, bias, out, lse, p_diag)
        ctx.scale = scale
        return out

    @staticmethod
    def backward(ctx, grad_out: Tensor):
        q, k, v, bias, out, lse, p_diag = ctx.saved_tensors
        scale, acc, m, n = ctx.scale, lse.dtype, bias.shape[-1], q.shape[2]
        (km, kd), (vm, vd) = _DiagonalTailAttention._split(k, m, n), _DiagonalTailAttention._split(v, m, n)
        grad_out = grad_out.to(q.dtype)
        dq, dkm, dvm = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward(
            grad_out, q, km, vm, out, lse, 0.0, False, attn_mask=bias, scale=scale)
        go = grad_out.to(acc)
        delta = (go * out.to(acc)).sum(-1)                                 # rowsum(dO·out) [B,H,n]
        dp = (go.unsqueeze(2) * vd.to(acc)).sum(-1)                        # dO·vd [B,H,J,n]
        ds = p_diag * (dp - delta.unsqueeze(2)) * scale                    # d(q·kd) [B,H,J,n], scale folded in
        dq = dq.to(acc)
        for j in range(kd.shape[2]):
            dq.addcmul_(ds[:, :, j, :, None], kd[:, :, j].to(acc))
        dkd = ds.unsqueeze(-1) * q.to(acc).unsqueeze(2)                    # [B,H,J,n,D]
        dvd = p_diag.unsqueeze(-1) * go.unsqueeze(2)
        dk = torch.cat([dkm, dkd.flatten(2, 3).to(k.dtype)], dim=2)
        dv = torch.cat([dvm, dvd.flatten(2, 3).to(v.dtype)], dim=2)
        return dq.to(q.dtype), dk, dv, None, None


class Attention(nn.Module):
    def __init__(self, cfg: DraftConfig):
        super().__init__()
        h, d = cfg.hidden_size, cfg.head_dim
        self.heads, self.kv_heads, self.head_dim = cfg.num_attention_heads, cfg.num_key_value_heads, d
        self.q_proj = nn.Linear(2 * h, self.heads * d, bias=False)
        self.k_proj = nn.Linear(2 * h, self.kv_heads * d, bias=False)
        self.v_proj = nn.Linear(2 * h, self.kv_heads * d, bias=False)
        self.o_proj = nn.Linear(self.heads * d, h, bias=False)

    def forward(self, x: Tensor, cos: Tensor, sin: Tensor, attn_bias: Tensor, past_kv, q_index: Tensor | None = None,
                diagonal_tail: bool = False):
        """Keys/values from every position of x; queries from all of them, or only from those at
        q_index [B,n] (training skips positions whose output no loss reads; attn_bias is then [B,1,n,keys]).
        diagonal_tail: attn_bias covers the leading keys only, the rest are diagonal blocks (module docstring)."""
        b, s, _ = x.shape
        k = self.k_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        cos, sin = cos.unsqueeze(1).to(k.dtype), sin.unsqueeze(1).to(k.dtype)
        k = k * cos + _rotate_half(k) * sin
        if q_index is not None:
            x, cos, sin = gather_rows(x, q_index), gather_heads(cos, q_index), gather_heads(sin, q_index)
        q = self.q_proj(x).view(b, x.shape[1], self.heads, self.head_dim).transpose(1, 2)
        q = q * cos + _rotate_half(q) * sin
        if past_kv is not None:  # keys are cached after RoPE, each at its own position
            k = torch.cat([past_kv[0].to(k.dtype), k], dim=2)
            v = torch.cat([past_kv[1].to(v.dtype), v], dim=2)
        rep = self.heads // self.kv_heads
        kk = k.repeat_interleave(rep, dim=1) if rep > 1 else k
        vv = v.repeat_interleave(rep, dim=1) if rep > 1 else v
        bias = attn_bias.to(q.dtype)
        if diagonal_tail and q.device.type in MERGED_DIAGONAL_DEVICES:
            out = _DiagonalTailAttention.apply(q, kk, vv, bias, self.head_dim ** -0.5)
        else:
            # elsewhere (CUDA) the same attention with the dense bias: the merge needs the CPU flash kernel's
            # log-sum-exp, and its speed-up is measured on CPU only
            if diagonal_tail:
                bias = diagonal_tail_bias(bias, (k.shape[2] - bias.shape[-1]) // q.shape[2])
            out = F.scaled_dot_product_attention(q, kk, vv, attn_mask=bias)
        out = out.transpose(1, 2).reshape(b, q.shape[2], self.heads * self.head_dim)
        return self.o_proj(out), (k, v)


class MLP(nn.Module):
    def __init__(self, cfg: DraftConfig):
        super().__init__()
        self.gate_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.up_proj = nn.Linear(cfg.hidden_size, cfg.intermediate_size, bias=False)
        self.down_proj = nn.Linear(cfg.intermediate_size, cfg.hidden_size, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class MidLayer(nn.Module):
    def __init__(self, cfg: DraftConfig):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.hidden_norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.mlp = MLP(cfg)

    def forward(self, embeds, hidden, cos, sin, attn_bias, past_kv, q_index=None, diagonal_tail=False):
        # the un-normed hidden is the residual (SGLang's llama_eagle3)
        residual = hidden if q_index is None else gather_rows(hidden, q_index)
        x = torch.cat([self.input_layernorm(embeds), self.hidden_norm(hidden)], dim=-1)
        attn, kv = self.self_attn(x, cos, sin, attn_bias, past_kv, q_index, diagonal_tail)
        h = residual + attn
        h = h + self.mlp(self.post_attention_layernorm(h))
        return h, kv


class Eagle3Draft(nn.Module):
    def __init__(self, cfg: DraftConfig, embed_tokens: nn.Embedding):
        super().__init__()
        from transformers import LlamaConfig
        from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
        self.cfg = cfg
        self.fc = nn.Linear(3 * cfg.target_hidden_size, cfg.hidden_size, bias=False)
        self.midlayer = MidLayer(cfg)
        self.norm = RMSNorm(cfg.hidden_size, cfg.rms_norm_eps)
        self.lm_head = nn.Linear(cfg.hidden_size, cfg.draft_vocab_size, bias=False)
        # Identity mapping until a vocabulary is set (set_vocab); saved and exported with the weights.
        self.register_buffer("d2t", torch.zeros(cfg.draft_vocab_size, dtype=torch.long))
        t2d = torch.zeros(cfg.vocab_size, dtype=torch.bool)
        t2d[: cfg.draft_vocab_size] = True
        self.register_buffer("t2d", t2d)
        lc = LlamaConfig(hidden_size=cfg.hidden_size, num_attention_heads=cfg.num_attention_heads,
                         head_dim=cfg.head_dim, max_position_embeddings=cfg.max_position_embeddings,
                         rope_parameters=cfg.rope_parameters())
        self.rotary = LlamaRotaryEmbedding(lc)  # inv_freq is a non-persistent buffer: not in state_dict
        self._embed = (embed_tokens,)           # a tuple hides the frozen target embedding from nn.Module
        embed_tokens.weight.requires_grad_(False)
        self.reset_parameters()

    @property
    def embed_tokens(self) -> nn.Embedding:
        return self._embed[0]

    def reset_parameters(self, std: float = 0.02) -> None:
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=std)
            elif isinstance(m, RMSNorm):
                nn.init.ones_(m.weight)

    def set_vocab(self, draft_ids: Tensor) -> None:
        """Install the draft vocabulary: sorted target ids of length draft_vocab_size."""
        draft_ids = torch.as_tensor(draft_ids, dtype=torch.long, device=self.d2t.device)
        if draft_ids.numel() != self.cfg.draft_vocab_size:
            raise ValueError(f"draft vocabulary has {draft_ids.numel()} ids, the head {self.cfg.draft_vocab_size}")
        if draft_ids.min() < 0 or draft_ids.max() >= self.cfg.vocab_size or not bool((draft_ids.diff() > 0).all()):
            raise ValueError(f"draft ids must be distinct, ascending and inside the target vocabulary "
                             f"(0..{self.cfg.vocab_size - 1})")
        self.d2t.copy_(draft_ids - torch.arange(draft_ids.numel(), device=draft_ids.device))
        self.t2d.zero_()
        self.t2d[draft_ids] = True

    def draft_ids(self) -> Tensor:
        """Target id of every draft-vocabulary entry, ascending."""
        return torch.arange(self.cfg.draft_vocab_size, device=self.d2t.device) + self.d2t

    def draft_to_target(self, draft_ids: Tensor) -> Tensor:
        return draft_ids + self.d2t[draft_ids]

    def fuse(self, aux: Tensor) -> Tensor:
        """[B,S,3*Ht] concatenated low|mid|high target states -> [B,S,H]."""
        return self.fc(aux)

    def embed(self, input_ids: Tensor, like: Tensor) -> Tensor:
        emb = self.embed_tokens
        with torch.no_grad():
            out = emb(input_ids.to(emb.weight.device))
        return out.to(device=like.device, dtype=like.dtype)

    def forward(self, hidden: Tensor, input_ids: Tensor, position_ids: Tensor, attn_bias: Tensor,
                past_kv: tuple[Tensor, Tensor] | None = None, q_index: Tensor | None = None,
                diagonal_tail: bool = False):
        """One draft step. Returns (out_hidden before `norm`, draft-vocab logits, past+current (k, v)).
        With q_index [B,n], every position gives keys/values but only those n give outputs: hidden and logits
        are [B,n,...] (the training unroll's step 0). diagonal_tail (the unroll's steps k >= 1): attn_bias
        [B,1,n,m] covers the first m keys, each later block of n keys is seen on its diagonal only."""
        cos, sin = self.rotary(hidden, position_ids)
        h, kv = self.midlayer(self.embed(input_ids, hidden), hidden, cos, sin, attn_bias, past_kv, q_index,
                              diagonal_tail)
        logits = self.lm_head(self.norm(h))
        return h, logits, kv


