"""Normalisation, exact-dedupe keys and MinHash-LSH helpers for the clean stage (datasketch sketches).

Normalisation (NFKC, case-fold, collapsed whitespace) is for hashing only; the kept text is the original.
Near duplicates: character n-gram shingles (short prompts have too few word n-grams), a MinHash per
prompt, LSH band keys whose collisions are verified against the estimated Jaccard similarity.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def exact_key(norm: str) -> str:
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


@dataclass
class NearDupConfig:
    threshold: float = 0.8        # estimated Jaccard at or above which two prompts are near duplicates
    num_perm: int = 128
    ngram: int = 5                # character shingle length
    seed: int = 1
    max_group: int = 1000         # representatives compared per LSH bucket (bounds the pairwise work)


@lru_cache(maxsize=8)
def _template(num_perm: int, seed: int):
    from datasketch import MinHash
    return MinHash(num_perm=num_perm, seed=seed)


@lru_cache(maxsize=16)
def lsh_params(threshold: float, num_perm: int) -> tuple[int, int]:
    """(bands, rows) minimising false positives + negatives at `threshold` (datasketch's optimiser)."""
    from datasketch import MinHashLSH
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    return lsh.b, lsh.r


def shingles(norm: str, n: int) -> list[bytes]:
    if len(norm) <= n:
        return [norm.encode("utf-8")]
    return list({norm[i:i + n].encode("utf-8") for i in range(len(norm) - n + 1)})


def signature(norm: str, cfg: NearDupConfig) -> np.ndarray:
    """MinHash hash values (uint32 under datasketch's affine32 scheme)."""
    from datasketch import MinHash
    t = _template(cfg.num_perm, cfg.seed)
    m = MinHash(num_perm=cfg.num_perm, seed=cfg.seed, permutations=t.permutations, scheme=t.scheme)
    m.update_batch(shingles(norm, cfg.ngram))
    return m.hashvalues.astype(np.uint32)


def band_keys(sig: np.ndarray, bands: int, rows: int) -> list[str]:
    return [f"{b}:{hashlib.blake2b(sig[b * rows:(b + 1) * rows].tobytes(), digest_size=8).hexdigest()}"
            for b in range(bands)]


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.mean(a == b))


def bucket_pairs(members: list[tuple], threshold: float, max_group: int) -> list[tuple[str, tuple]]:
    """Near-duplicate decisions inside one LSH bucket. `members` are (order, id, sig); in `order`
    each member is compared with the bucket's representatives so far (vectorised) and either becomes
    one or is paired with the earliest similar one. Returns (dup_id, (rep_order, rep_id)) pairs;
    deterministic whatever the order the runner delivered the members in."""
    members = sorted(members, key=lambda m: (m[0], m[1]))
    reps: list[tuple] = []
    rep_sigs = None
    out = []
    for order, pid, sig in members:
        if rep_sigs is not None:
            sims = (rep_sigs == sig).mean(axis=1)
            hit = np.nonzero(sims >= threshold)[0]
            if hit.size:
                r = reps[int(hit[0])]
                out.append((pid, (r[0], r[1])))
                continue
        if len(reps) < max_group:
            reps.append((order, pid))
            rep_sigs = sig[None, :] if rep_sigs is None else np.vstack([rep_sigs, sig[None, :]])
    return out


def contamination_hits(prompts: list[tuple], evals: list[tuple], threshold: float) -> list[tuple[str, str]]:
    """(prompt_id, eval_id) for prompts in one bucket whose similarity to an eval prompt >= threshold."""
    if not prompts or not evals:
        return []
    evals = sorted(evals, key=lambda e: e[0])
    esigs = np.stack([e[1] for e in evals])
    out = []
    for _, pid, sig in prompts:
        hit = np.nonzero((esigs == sig).mean(axis=1) >= threshold)[0]
        if hit.size:
            out.append((pid, evals[int(hit[0])][0]))
    return out
