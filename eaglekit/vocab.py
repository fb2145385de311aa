"""The draft vocabulary: the N target ids the draft head predicts.

Ids are chosen by frequency over *supervised* tokens (loss_mask == 1) of the training shards, ties broken
by the smaller id, then stored sorted ascending; when fewer than N ids occur the rest is filled with the
smallest unused ids so the head always has exactly N rows. N comes from an option or from a coverage
target (the smallest N whose ids cover that fraction of supervised tokens). The frequency table is
hashed so a checkpoint records exactly which counts it was built from.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np
import torch

from eaglekit.codecs import row_values


@dataclass
class DraftVocab:
    draft_ids: torch.Tensor     # [N] int64 target ids, ascending
    coverage: float             # fraction of supervised tokens whose id is in the vocabulary
    occurring: int              # distinct supervised ids seen
    padded: int                 # ids added only to reach N
    freq_hash: str              # sha256 of the int64 frequency table
    supervised_tokens: int

    @property
    def size(self) -> int:
        return int(self.draft_ids.numel())

    def d2t(self) -> torch.Tensor:
        """Offsets: target id of draft id i = i + d2t[i]."""
        return self.draft_ids - torch.arange(self.size)

    def t2d(self, vocab_size: int) -> torch.Tensor:
        out = torch.zeros(vocab_size, dtype=torch.bool)
        out[self.draft_ids] = True
        return out

    def report(self) -> dict:
        return {"draft_vocab_size": self.size, "coverage": round(self.coverage, 6), "occurring_ids": self.occurring,
                "padded_ids": self.padded, "supervised_tokens": self.supervised_tokens, "freq_hash": self.freq_hash}


def count_supervised(dataset, vocab_size: int, keep=None) -> np.ndarray:
    """Frequency of every target id over supervised tokens, reading only the id/mask columns.
    `keep(row_id) -> bool` selects rows (e.g. the training split)."""
    counts = np.zeros(vocab_size, dtype=np.int64)
    for _, batch in dataset.iter_tables(0):
        names = batch.schema.names
        ids_col, mask_col, id_col = (batch.column(names.index(n)) for n in ("input_ids", "loss_mask", "id"))
        rows = range(batch.num_rows)
        if keep is not None:
            row_ids = id_col.to_pylist()
            rows = [i for i in rows if keep(row_ids[i])]
        for i in rows:
            ids = row_values(ids_col, i)
            sel = ids[row_values(mask_col, i).astype(bool)]
            if sel.size and (sel.max() >= vocab_size or sel.min() < 0):
                raise ValueError(f"row {id_col[i].as_py()!r}: token id {int(sel.max())} outside the target "
                                 f"vocabulary of {vocab_size}; the shards come from another tokenizer")
            counts += np.bincount(sel, minlength=vocab_size)
    return counts


def freq_hash(counts: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(counts, dtype="<i8").tobytes()).hexdigest()


def build_vocab(counts: np.ndarray, size: int | None = None, coverage: float | None = None) -> DraftVocab:
    """Top-`size` ids by frequency (or the fewest ids reaching `coverage`), padded, sorted ascending."""
    counts = np.asarray(counts, dtype=np.int64)
    V = counts.size
    total = int(counts.sum())
    if total == 0:
        raise ValueError("no supervised tokens in the training data (every loss_mask is 0): check the "
                         "featurize run's assistant-mask settings")
    # Stable sort on -count keeps ascending id order among equal counts: the deterministic tie-break.
    order = np.argsort(-counts, kind="stable")
    cum = np.cumsum(counts[order])
    if size is None:
        if coverage is None:
            raise ValueError("give a draft vocabulary size or a coverage target")
        if not 0 < coverage <= 1:
            raise ValueError(f"coverage must be in (0, 1], got {coverage}")
        size = int(np.searchsorted(cum, coverage * total - 1e-9) + 1)
    size = int(size)
    if not 0 < size <= V:
        raise ValueError(f"draft vocabulary size must be in 1..{V} (the target vocabulary), got {size}")
    chosen = order[:size]
    occurring = int((counts > 0).sum())
    padded = max(0, size - occurring)  # zero-count ids were already picked smallest-first by the stable sort
    ids = torch.as_tensor(np.sort(chosen), dtype=torch.long)
    covered = int(counts[chosen].sum())
    return DraftVocab(ids, covered / total, occurring, padded, freq_hash(counts), total)
