"""The EAGLE-3 draft head: one Llama decoder layer over [token embedding ; fused target features].

Parameter and buffer names are exactly those SGLang's `LlamaForCausalLMEagle3` loads:
`fc`, `midlayer.*`, `norm`, `lm_head`, buffers `d2t` / `t2d`. The target's token embedding is reused and
held frozen; it is deliberately not a registered submodule, so it never appears in `state_dict()`,
`parameters()` (optimizer, DDP) or an exported checkpoint.

One call of `forward` is one draft step over a block of positions. Keys/values are returned concatenated
with the past ones, so a caller builds any attention pattern (training-time-test diagonals, draft trees)
from an additive bias over [past ; current] keys.
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


class Attention(nn.Module):
    def __init__(self, cfg: DraftConfig):
        super().__init__()
        h, d = cfg.hidden_size, cfg.head_dim
        self.heads, self.kv_heads, self.head_dim = cfg.num_attention_heads, cfg.num_key_value_heads, d
        self.q_proj = nn.Linear(2 * h, self.heads * d, bias=False)
        self.k_proj = nn.Linear(2 * h, self.kv_heads * d, bias=False)
        self.v_proj = nn.Linear(2 * h, self.kv_heads * d, bias=False)
        self.o_proj = nn.Linear(self.heads * d, h, bias=False)

    def forward(self, x: Tensor, cos: Tensor, sin: Tensor, attn_bias: Tensor, past_kv, q_index: Tensor | None = None):
        """Keys/values from every position of x; queries from all of them, or only from those at
        q_index [B,n] (training skips positions whose output no loss reads; attn_bias is then [B,1,n,keys])."""
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
        out = F.scaled_dot_product_attention(q, kk, vv, attn_mask=attn_bias.to(q.dtype))
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

    def forward(self, embeds, hidden, cos, sin, attn_bias, past_kv, q_index=None):
        # the un-normed hidden is the residual (SGLang's llama_eagle3)
        residual = hidden if q_index is None else gather_rows(hidden, q_index)
        x = torch.cat([self.input_layernorm(embeds), self.hidden_norm(hidden)], dim=-1)
        attn, kv = self.self_attn(x, cos, sin, attn_bias, past_kv, q_index)
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
                past_kv: tuple[Tensor, Tensor] | None = None, q_index: Tensor | None = None):
        """One draft step. Returns (out_hidden before `norm`, draft-vocab logits, past+current (k, v)).
        With q_index [B,n], every position gives keys/values but only those n give outputs: hidden and logits
        are [B,n,...] (the training unroll's step 0)."""
        cos, sin = self.rotary(hidden, position_ids)
        h, kv = self.midlayer(self.embed(input_ids, hidden), hidden, cos, sin, attn_bias, past_kv, q_index)
        logits = self.lm_head(self.norm(h))
        return h, logits, kv


