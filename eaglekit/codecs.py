"""Hidden-state and teacher codecs, and zero-copy views of one row of a feature column.

Arrow has no bfloat16 or float8 type, so hidden states are stored as their raw bits (uint16 for bf16,
uint8 for fp8 e4m3 plus a float32 scale per token) inside `list<fixed_size_list<uintN, H>>` columns:
one list entry per token, H wide. A row's values are one contiguous buffer, so a reader can view it
as a [S, H] numpy array and a torch bf16 tensor without copying.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import torch

CODECS = ("bf16", "fp8_e4m3")
FP8_MAX = 448.0  # largest finite float8 e4m3fn value


@dataclass
class Encoded:
    """One [S, H] hidden-state tensor in storage form."""
    bits: np.ndarray            # [S, H] uint16 (bf16) or uint8 (fp8_e4m3)
    scale: np.ndarray | None    # [S] float32 for fp8_e4m3, else None


def encode_hidden(x: torch.Tensor, codec: str) -> Encoded:
    """Encode a float [S, H] tensor. bf16 is exact for bf16 input; fp8 uses a per-token absmax scale."""
    x = x.detach()
    if codec == "bf16":
        return Encoded(x.to(torch.bfloat16).contiguous().view(torch.int16).cpu().numpy().view(np.uint16), None)
    if codec == "fp8_e4m3":
        xf = x.float()
        scale = (xf.abs().amax(dim=-1, keepdim=True) / FP8_MAX).clamp_min(1e-12)
        q = (xf / scale).to(torch.float8_e4m3fn).view(torch.uint8)
        return Encoded(q.cpu().numpy(), scale.squeeze(-1).cpu().numpy().astype(np.float32))
    raise ValueError(f"unknown hidden codec {codec!r}; choose one of {', '.join(CODECS)}")


def decode_hidden(bits: np.ndarray, scale: np.ndarray | None, codec: str,
                  dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Inverse of encode_hidden. For bf16 with dtype=torch.bfloat16 this is a zero-copy view."""
    t = _as_tensor(bits)
    if codec == "bf16":
        out = t.view(torch.bfloat16)
        return out if dtype == torch.bfloat16 else out.to(dtype)
    if codec == "fp8_e4m3":
        if scale is None:
            raise ValueError("fp8_e4m3 needs its per-token scale")
        return (t.view(torch.float8_e4m3fn).to(torch.float32) * _as_tensor(scale).unsqueeze(-1)).to(dtype)
    raise ValueError(f"unknown hidden codec {codec!r}; choose one of {', '.join(CODECS)}")


def _as_tensor(a: np.ndarray) -> torch.Tensor:
    # Arrow buffers are read-only; torch warns about that but never writes through these views.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        if a.dtype == np.uint16:
            return torch.from_numpy(a.view(np.int16))
        return torch.from_numpy(a)


def hidden_column(rows: list[np.ndarray], width: int) -> pa.Array:
    """Build a `list<fixed_size_list<T, width>>` column from per-row [S_i, width] arrays."""
    lengths = np.array([r.shape[0] for r in rows], dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    flat = np.concatenate([r.reshape(-1) for r in rows]) if rows else np.zeros(0, dtype=np.uint16)
    inner = pa.FixedSizeListArray.from_arrays(pa.array(flat), width)
    return pa.ListArray.from_arrays(pa.array(offsets), inner)


def row_values(column: pa.ChunkedArray | pa.Array, i: int) -> np.ndarray:
    """Zero-copy numpy view of row i of a list<fixed_size_list<T, W>> (-> [S, W]) or list<T> (-> [S])."""
    if isinstance(column, pa.ChunkedArray):
        for chunk in column.chunks:
            if i < len(chunk):
                column = chunk
                break
            i -= len(chunk)
        else:
            raise IndexError(i)
    start, end = column.offsets[i].as_py(), column.offsets[i + 1].as_py()
    child = column.values
    if pa.types.is_fixed_size_list(child.type):
        width = child.type.list_size
        flat = child.slice(start, end - start).flatten()
        return flat.to_numpy(zero_copy_only=True).reshape(-1, width)
    return child.slice(start, end - start).to_numpy(zero_copy_only=True)


def topk_teacher(logits: torch.Tensor, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Top-k ids (int32, most likely first) and full-vocab log-probs (float16) of [S, V] logits."""
    logprobs = torch.log_softmax(logits.float(), dim=-1)
    values, ids = logprobs.topk(k, dim=-1)
    return ids.to(torch.int32).cpu().numpy(), values.to(torch.float16).cpu().numpy()
