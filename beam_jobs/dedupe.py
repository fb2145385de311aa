"""Normalisation, exact-dedupe keys, MinHash-LSH helpers (numpy-vectorised sketches) and the containment
scores of decontamination, for the clean stage.

Normalisation (NFKC, case-fold, collapsed whitespace) is for hashing only; the kept text is the original.
Near duplicates (between input prompts): shingles (character 3-grams by default: a one-word edit of a
short prompt keeps most of its 3-grams, while word n-grams of a 20-word prompt lose a large share of
theirs), a MinHash per prompt, and LSH band keys. The bands are sized for recall at the threshold (a pair exactly at it collides with
probability >= `lsh_recall`), so they yield extra candidates; every candidate is then verified with the
exact Jaccard similarity of the two shingle sets, so the MinHash estimate never decides on its own.

Decontamination is not symmetric: a training prompt that holds an evaluation prompt plus a sentence of its
own has a low Jaccard similarity with it, yet carries the whole benchmark item. It scores instead how much
of the evaluation prompt the candidate contains (as GPT-3's and Llama 2's decontamination do), on the
"letter stream" (letters and digits only, case-folded), so whitespace, case and punctuation edits change
nothing: see `Contained`. Containment misses a short or medium evaluation prompt with one word changed (one
edited letter costs up to 25 grams), so a second score, `WordNear`, counts the weighted share of the
evaluation prompt's words that a window of the candidate holds in order; `decontam_match` applies both.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from eaglekit.config import setting

_WS = re.compile(r"\s+")
_WORD = re.compile(r"\w+")
_ALNUM = re.compile(r"[^\W_]+")  # letters and digits: the units of the containment letter stream
SHINGLE_KINDS = ("char", "word")


def normalise(text: str) -> str:
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def exact_key(norm: str) -> str:
    return hashlib.sha256(norm.encode("utf-8")).hexdigest()


@dataclass
class NearDupConfig:
    threshold: float = setting(0.8, "exact Jaccard of the shingle sets at or above which two prompts are near duplicates")
    num_perm: int = setting(128, "MinHash permutations (candidate generation only; pairs are verified exactly)")
    shingle: str = setting("char", "shingle kind: char (n-grams of characters) or word (n-grams of words)", choices=("char", "word"))
    ngram: int = setting(3, "shingle length (characters or words)")
    seed: int = setting(1)
    lsh_recall: float = setting(0.995, "LSH bands are chosen so a pair at the threshold becomes a candidate with this probability")
    lsh_spurious: float = setting(0.25, "... and a pair at half the threshold at most with this one (fewer bands, more checks)")
    max_group: int = setting(1000, "representatives compared per LSH bucket (bounds the pairwise work)")
    # Band entries travel to the bucket stage in batches, one per shard of the band-key space, instead of one
    # element per (prompt, band): Beam's per-element cost was most of the stage. A shard holds about
    # prompts x bands / shards entries in one worker's memory: raise it for very large inputs (~200k a shard).
    shards: int = setting(256, "shards of the LSH band space, each grouped in one worker's memory: raise it for "
                                    "inputs of millions of prompts (about prompts x 11 bands / 200k)")
    batch_entries: int = setting(20_000, "a sketching worker sends its batches once it holds this many entries")

    def __post_init__(self):
        if self.shingle not in SHINGLE_KINDS:
            raise ValueError(f"near.shingle must be one of {SHINGLE_KINDS}, got {self.shingle!r}")
        if self.ngram < 1 or self.num_perm < 2:
            raise ValueError("near.ngram must be >= 1 and near.num_perm >= 2")
        if self.shards < 1 or self.batch_entries < 1:
            raise ValueError("near.shards and near.batch_entries must be >= 1")
        if not (0.0 < self.lsh_recall < 1.0 and 0.0 < self.lsh_spurious <= 1.0):
            raise ValueError("near.lsh_recall must be in (0, 1) and near.lsh_spurious in (0, 1]")


def collision_probability(j: float, bands: int, rows: int) -> float:
    """Probability that two sets of Jaccard `j` share at least one LSH band."""
    return 1.0 - (1.0 - j ** rows) ** bands


@lru_cache(maxsize=16)
def lsh_params(threshold: float, num_perm: int, recall: float = 0.995, spurious: float = 0.25) -> tuple[int, int]:
    """(bands, rows) for candidate generation: the fewest bands (each band is one shuffled element per
    prompt, the main Beam cost of near dedupe) such that a pair exactly at `threshold` collides with
    probability >= `recall` while a pair at half the threshold collides with probability <= `spurious`
    (candidates are verified exactly, so spurious ones only cost time). Falls back to the most recall
    `num_perm` allows. (datasketch's optimiser balances false positives against false negatives instead:
    at 0.8 with 128 permutations it catches a pair at the threshold only 40% of the time.)"""
    options = []  # (P(collision at threshold/2), bands, rows)
    for rows in range(1, num_perm + 1):
        # the fewest bands reaching `recall` with this many rows, if num_perm has that many
        bands = next((b for b in range(1, num_perm // rows + 1)
                      if collision_probability(threshold, b, rows) >= recall), None)
        if bands is not None:
            options.append((collision_probability(threshold / 2, bands, rows), bands, rows))
    if not options:
        return num_perm, 1
    ok = [o for o in options if o[0] <= spurious]
    if ok:
        _, bands, rows = min(ok, key=lambda o: (o[1], -o[2]))
    else:  # too few permutations for both: keep recall, with the fewest spurious candidates
        _, bands, rows = min(options)
    return bands, rows


def shingles(norm: str, cfg: NearDupConfig) -> set[str]:
    """The shingle set of a normalised text; a text shorter than one shingle is its own single shingle."""
    n = cfg.ngram
    if cfg.shingle == "word":
        words = _WORD.findall(norm) or [norm]
        return {" ".join(words[i:i + n]) for i in range(max(1, len(words) - n + 1))}
    if len(norm) <= n:
        return {norm}
    return {norm[i:i + n] for i in range(len(norm) - n + 1)}


def jaccard(a: set, b: set) -> float:
    if not a and not b:
        return 1.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: spreads polynomial n-gram codes over all 64 bits (uint64, wrapping)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _ngram_codes(units: np.ndarray, n: int) -> np.ndarray:
    """64-bit codes of every n-gram of `units` (code points or word hashes), vectorised."""
    if len(units) <= n:
        n = max(1, len(units))
        units = units if len(units) else np.zeros(1, np.uint64)
    m = len(units) - n + 1
    code = np.zeros(m, np.uint64)
    for k in range(n):  # Horner over the window; uint64 arithmetic wraps, which is what a hash wants
        code = code * np.uint64(1_000_003) + units[k:k + m]
    return _mix64(code)


def _shingle_code_list(norm: str, cfg: NearDupConfig) -> np.ndarray:
    """64-bit codes of the text's shingles in text order, repeats included."""
    if cfg.shingle == "word":
        words = _WORD.findall(norm) or [norm]
        units = np.array([zlib.crc32(w.encode("utf-8")) for w in words], np.uint64)
    else:
        units = np.frombuffer(norm.encode("utf-32-le"), np.uint32).astype(np.uint64)
    with np.errstate(over="ignore"):
        return _ngram_codes(units, cfg.ngram)


def shingle_codes(norm: str, cfg: NearDupConfig) -> np.ndarray:
    """The distinct 64-bit codes of the text's shingles (same shingles as `shingles`)."""
    return np.unique(_shingle_code_list(norm, cfg))


@lru_cache(maxsize=8)
def _permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Multiply-add-shift hash functions ((a*x + b) mod 2^64) >> 32, one per permutation."""
    rng = np.random.Generator(np.random.PCG64(seed))
    a = rng.integers(1, 2 ** 63, num_perm, dtype=np.uint64, endpoint=False) | np.uint64(1)
    b = rng.integers(0, 2 ** 63, num_perm, dtype=np.uint64, endpoint=False)
    return a[:, None], b[:, None]


def signature(norm: str, cfg: NearDupConfig, codes: np.ndarray | None = None, num_perm: int | None = None) -> np.ndarray:
    """MinHash signature (uint32 per permutation), vectorised over shingles and permutations with numpy
    (datasketch hashes shingle by shingle in Python, which dominated the sketch stage). `num_perm` < cfg.num_perm
    gives the first `num_perm` values of the full signature: LSH band keys read only bands x rows of them
    (44 of 128 at the default threshold), so the sketch stage computes no more."""
    k = cfg.num_perm if num_perm is None else num_perm
    # repeated shingles cannot change a minimum, so the codes need no np.unique here
    codes = _shingle_code_list(norm, cfg) if codes is None else codes
    a, b = _permutations(cfg.num_perm, cfg.seed)
    a, b = a[:k], b[:k]
    x = (codes >> np.uint64(32)) ^ (codes & np.uint64(0xFFFFFFFF))   # fold to 32 bits for multiply-shift
    low = None
    step = max(1, (1 << 20) // k)                              # bounds the (perm x shingle) block
    with np.errstate(over="ignore"):
        for i in range(0, len(x), step):
            h = a * x[None, i:i + step]
            h += b
            block = h.min(axis=1)
            low = block if low is None else np.minimum(low, block)
    # min before the shift: `>> 32` is monotonic, so the minima are the same and two full passes are saved
    return (low >> np.uint64(32)).astype(np.uint32)


def band_keys(sig: np.ndarray, bands: int, rows: int) -> list[str]:
    return [f"{b}:{hashlib.blake2b(sig[b * rows:(b + 1) * rows].tobytes(), digest_size=8).hexdigest()}"
            for b in range(bands)]


def band_shard(key: str, shards: int) -> int:
    """The shard of a band key (its last 32 hash bits: band keys are already uniform hashes)."""
    return int(key[-8:], 16) % shards


class BandBatcher:
    """Collects (band key, entry) pairs by shard; `drain` hands out (shard, [pairs]) batches."""
    def __init__(self, shards: int):
        self.shards, self.by_shard, self.size = shards, {}, 0

    def add(self, key: str, entry) -> None:
        self.by_shard.setdefault(band_shard(key, self.shards), []).append((key, entry))
        self.size += 1

    def drain(self) -> list[tuple[int, list]]:
        out, self.by_shard, self.size = sorted(self.by_shard.items()), {}, 0
        return out


def group_bands(batches) -> dict[str, list]:
    """{band key: [entries]} from an iterable of [(band key, entry), ...] batches (one shard's)."""
    groups: dict[str, list] = {}
    for batch in batches:
        for key, entry in batch:
            groups.setdefault(key, []).append(entry)
    return groups


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """MinHash estimate of the Jaccard similarity (used to pre-screen candidates, never to decide)."""
    return float(np.mean(a == b))


def _screen(num_perm: int) -> float:
    """How far below the threshold a MinHash estimate may fall and still be verified: 5 standard
    deviations of the estimate at J=0.5 (its widest), so the screen drops a true pair with probability
    < 1e-6 while sparing the exact check for clearly different prompts."""
    return 5 * (0.25 / num_perm) ** 0.5


class ExactCheck:
    """Exact-Jaccard verification with memory: shingle sets and signatures are built on first use (most
    bucket members never reach the check), and a pair that collides in several bands is verified once. One instance
    may serve many buckets (a DoFn keeps one); it forgets everything past `max_items` entries."""
    def __init__(self, cfg: NearDupConfig, max_items: int = 200_000):
        self.cfg, self.max_items = cfg, max_items
        self.sets: dict = {}
        self.sigs: dict = {}
        self.pairs: dict = {}

    def _memo(self, cache: dict, key, make):
        value = cache.get(key)
        if value is None:
            if len(cache) >= self.max_items:
                cache.clear()
            value = cache[key] = make()
        return value

    def _set(self, key, norm: str) -> set[str]:
        return self._memo(self.sets, key, lambda: shingles(norm, self.cfg))

    def signature(self, key, norm: str) -> np.ndarray:
        """The MinHash signature of `norm` (bucket members arrive without one: see clean._sketch)."""
        return self._memo(self.sigs, key, lambda: signature(norm, self.cfg))

    def at_least(self, a, norm_a: str, b, norm_b: str, threshold: float) -> bool:
        return self._memo(self.pairs, (a, b, threshold),
                          lambda: jaccard(self._set(a, norm_a), self._set(b, norm_b)) >= threshold)


def bucket_pairs(members: list[tuple], cfg: NearDupConfig, check: ExactCheck | None = None) -> list[tuple[str, tuple]]:
    """Near-duplicate decisions inside one LSH bucket. `members` are (order, id, sig, norm); in `order`
    each member is compared with the bucket's representatives so far and either becomes one or is
    paired with the earliest representative whose exact shingle Jaccard reaches the threshold (the
    MinHash estimate only pre-screens, vectorised). Returns (dup_id, (rep_order, rep_id)) pairs;
    deterministic whatever order the runner delivered the members in."""
    members = sorted(members, key=lambda m: (m[0], m[1]))
    floor = cfg.threshold - _screen(cfg.num_perm)
    check = check or ExactCheck(cfg)
    reps: list[tuple] = []
    rep_sigs = None
    out = []
    for order, pid, sig, norm in members:
        rep = None
        if rep_sigs is not None:
            for k in np.nonzero((rep_sigs == sig).mean(axis=1) >= floor)[0]:
                r = reps[int(k)]
                if check.at_least(("p", pid), norm, ("p", r[1]), r[2], cfg.threshold):
                    rep = r
                    break
        if rep is not None:
            out.append((pid, (rep[0], rep[1])))
        elif len(reps) < cfg.max_group:
            reps.append((order, pid, norm))
            rep_sigs = sig[None, :] if rep_sigs is None else np.vstack([rep_sigs, sig[None, :]])
    return out


# --- decontamination: containment of evaluation prompts ----------------------------------------------

CONTAIN_CHARS = 25   # containment n-gram length, in letters and digits (about 5 words; see Contained)
_P = np.uint64(1_000_003)
_P_INV = np.uint64(pow(1_000_003, -1, 1 << 64))   # odd, so invertible modulo 2^64: prefix sums give any span's hash
_LEN_MIX = np.uint64(0x9E3779B97F4A7C15)


_POWERS: list[np.ndarray] = [np.ones(1, np.uint64), np.ones(1, np.uint64)]  # [P^-k], [P^k], grown on demand


def _powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(P^-k, P^k) for k = 0..n (modulo 2^64), from a table grown by doubling."""
    inv, pw = _POWERS
    if len(pw) <= n:
        size = max(n + 1, 2 * len(pw), 4096)
        with np.errstate(over="ignore"):
            inv = np.cumprod(np.concatenate([[np.uint64(1)], np.full(size - 1, _P_INV, np.uint64)]))
            pw = np.cumprod(np.concatenate([[np.uint64(1)], np.full(size - 1, _P, np.uint64)]))
        _POWERS[:] = [inv, pw]
    return inv, pw


@dataclass
class Letters:
    """A text's letter stream (its letters and digits, in order: normalise() first) and where its words
    start and end in it."""
    stream: str
    starts: np.ndarray
    ends: np.ndarray

    @classmethod
    def of(cls, norm: str) -> Letters:
        words = _ALNUM.findall(norm)
        lengths = np.array([len(w) for w in words], np.int64)
        ends = np.cumsum(lengths)
        return cls("".join(words), ends - lengths, ends)

    def codes(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """64-bit codes of the spans stream[i:j]: a polynomial hash from prefix sums (C[k] = sum_{t<k} u_t P^-t,
        so the hash of stream[i:j] is (C[j] - C[i]) P^(j-1)), the span's length mixed in, then splitmix64."""
        prefix = getattr(self, "_prefix", None)
        if prefix is None:
            units = np.frombuffer(self.stream.encode("utf-32-le"), np.uint32).astype(np.uint64)
            inv, _ = _powers(len(units))
            with np.errstate(over="ignore"):
                sums = np.cumsum(units * inv[:len(units)], dtype=np.uint64)
            prefix = self._prefix = np.concatenate([[np.uint64(0)], sums])
        _, pw = _powers(len(self.stream))
        with np.errstate(over="ignore"):
            h = (prefix[j] - prefix[i]) * pw[j - 1] + (j - i).astype(np.uint64) * _LEN_MIX
        return _mix64(h)

    def gram_codes(self, n: int = CONTAIN_CHARS) -> np.ndarray:
        """Codes of every n-letter gram (none when the stream is shorter)."""
        if len(self.stream) < n:
            return np.zeros(0, np.uint64)
        i = np.arange(len(self.stream) - n + 1)
        return self.codes(i, i + n)

    def gram_set(self, n: int = CONTAIN_CHARS) -> np.ndarray:
        """The distinct codes of gram_codes(n), computed once per text."""
        cached = getattr(self, "_gram_set", None)
        if cached is None or cached[0] != n:
            cached = self._gram_set = (n, np.unique(self.gram_codes(n)))
        return cached[1]

    def span_codes(self, n: int = CONTAIN_CHARS) -> np.ndarray:
        """Codes of every run of whole words shorter than n letters (what a short evaluation prompt is
        matched against: it must appear whole, starting and ending at word boundaries)."""
        starts, ends = self.starts, self.ends
        # for each first word, the last word a run under n letters can end with; then every (first, last) pair
        last = np.searchsorted(ends, starts + n - 1, side="right") - 1
        counts = np.maximum(last - np.arange(len(starts)) + 1, 0)
        if not counts.sum():
            return np.zeros(0, np.uint64)
        first = np.repeat(np.arange(len(starts)), counts)
        offset = np.arange(len(first)) - np.repeat(np.cumsum(counts) - counts, counts)
        return self.codes(starts[first], ends[first + offset])

    def candidate_codes(self, n: int = CONTAIN_CHARS, short: int | None = None, words: bool = True) -> np.ndarray:
        """Every code under which this text may meet an evaluation prompt it contains (sorted, distinct):
        its n-letter grams, its word runs shorter than `short` letters (default n; 0: none, when no
        evaluation prompt is short), and with `words` its word keys (candidate_word_codes: what finds an
        evaluation prompt it nearly holds, one word changed)."""
        short = n if short is None else short
        spans = self.span_codes(short) if short > 0 else np.zeros(0, np.uint64)
        word_keys = candidate_word_codes(self) if words else np.zeros(0, np.uint64)
        return np.unique(np.concatenate([self.gram_set(n), spans, word_keys]))

    def holds_words(self, other: str) -> bool:
        """Whether `other` (a letter stream) occurs here starting at a word start and ending at a word end."""
        starts, ends = set(self.starts.tolist()), set(self.ends.tolist())
        i = self.stream.find(other)
        while i >= 0:
            if i in starts and i + len(other) in ends:
                return True
            i = self.stream.find(other, i + 1)
        return False


def _needed(m: int, threshold: float) -> int:
    """The fewest of m n-grams a candidate must contain to score >= threshold (c / m >= threshold, computed
    as the check computes it: 0.7 * 10 is 7.000000000000001 in floating point)."""
    c = max(0, min(m, int(np.ceil(threshold * m)) - 1))
    while c < m and c / m < threshold:
        c += 1
    return c


class Contained:
    """One evaluation prompt, ready to score candidates by containment: the share of its distinct n-letter
    grams (`n` letters and digits, about 5 words at 25) that occur in the candidate's letter stream.

    Planted copies (the prompt with text before or after it, or whitespace, case or punctuation edits) score
    1.0; each edited letter costs at most n grams. An evaluation prompt shorter than n letters ("Why is the
    sky blue?") has no gram: it counts as contained (1.0) only where it occurs whole at word boundaries
    ("what is ai" is not in "what is air pollution"), else 0.

    `keys()` are codes every candidate reaching the threshold shares with it, so an index of them finds all
    such candidates (no LSH miss rate): a candidate holding at least c of the m grams misses at most m - c,
    so it holds one of any m - c + 1 of them; the smallest codes are taken, the same choice on every worker.
    A short prompt's key is its own code, found among the candidate's word spans (`Letters.span_codes`)."""
    def __init__(self, norm: str, n: int = CONTAIN_CHARS):
        self.n = n
        self.letters = Letters.of(norm)
        stream = self.letters.stream
        self.short = len(stream) < n
        self.grams = [] if self.short else sorted({stream[i:i + n] for i in range(len(stream) - n + 1)})

    def keys(self, threshold: float) -> list[int]:
        stream = self.letters.stream
        if not stream:
            return []  # nothing a candidate could contain (an all-punctuation prompt)
        if self.short:
            return [int(self.letters.codes(np.array([0]), np.array([len(stream)]))[0])]
        codes = np.unique(self.letters.gram_codes(self.n))
        m = len(self.grams)
        return [int(x) for x in codes[: m - _needed(m, threshold) + 1]]

    def score(self, candidate: Letters) -> float:
        if not self.letters.stream:
            return 0.0
        if self.short:
            return 1.0 if candidate.holds_words(self.letters.stream) else 0.0
        # the distinct grams' codes against the candidate's (both cached): the same share as testing each gram
        # string in the candidate's stream, vectorised (a word key brings long evaluation prompts to many pairs)
        mine = getattr(self, "_codes", None)
        if mine is None:
            mine = self._codes = np.unique(self.letters.gram_codes(self.n))
        return float(in_sorted(mine, candidate.gram_set(self.n)).mean())


# --- decontamination: near-duplicate similarity on words ---------------------------------------------
#
# Letter-gram containment misses a short or medium evaluation prompt with one word changed: each edited
# letter costs up to 25 grams, so one synonym in a 12-word question removes about half of them. The word
# score below counts instead how much of the evaluation prompt's *words* a window of the candidate holds,
# each word weighted by how much it says (function words little, short common words less than long ones),
# so that one changed word costs one word's weight, while an ordinary prompt that shares "what is the ...
# of" with an evaluation prompt but none of its subject matter scores low.

# Closed-class English words: they carry little of what makes a prompt a particular benchmark item (one place
# for the list; the letters-only forms `normalise` gives), and the scaffolding of task prompts ("answer the
# following question", which thousands of prompts share). Instruction verbs (write, explain, use, tell) are
# not in it: on the bench, counting them as content dropped fewer ordinary prompts and missed fewer edits.
FUNCTION_WORDS = frozenset("""
a about above after again against all also am an and any are as at be been before being below between both
but by can could did do does doing done down during each either else ever every few for from further had has
have having he her here hers herself him himself his how however i if in into is it its itself just least
less let like many may me might more most much must my myself neither no nor not now of off often on once
one only or other others our ours ourselves out over own per please rather same shall she should since so
some such than that the their theirs them themselves then there these they this those through thus to too
under until up upon us very via was we were what whatever when where whether which while who whom whose why
will with within without would yet you your yours yourself yourselves s t d ll m re ve don doesn didn isn
aren wasn weren won wouldn shouldn couldn can cannot
following given above below question questions answer answers
""".split())
# Question words weigh more than other function words: "What is the largest ocean?" is not "the largest
# ocean ..." in a passage that states it, though no content word differs.
QUESTION_WORDS = frozenset("what how why who whom whose where when which".split())
LIGHT_WEIGHT = 0.2      # a function word's weight
QUESTION_WEIGHT = 0.5   # a question word's
FULL_LETTERS = 7        # a content word of this many letters or more weighs 1, a shorter one less (CONTENT_BASE)
NEAR_MIN_CONTENT = 1.0  # an evaluation prompt whose content words weigh less is matched by containment only
NEAR_MAX_WORDS = 100    # ... and one of more words too: one edited word costs it under 20% of its letter grams
ROTATE_MAX_WORDS = 40   # prompts up to this many words may be read rotated at any word (WordNear)
CONTENT_BASE = 0.5      # a content word weighs CONTENT_BASE + (1 - CONTENT_BASE) * min(1, letters / FULL_LETTERS)
_PAIR_SALT = np.uint64(0x632BE59BD9B4E019)    # keeps word keys apart from letter-gram and whole-span codes
_MIXED_SALT = np.uint64(0xA0761D6478BD642F)


@lru_cache(maxsize=2)
def _word_codes(words: frozenset) -> np.ndarray:
    letters = Letters.of(" ".join(sorted(words)))
    return np.unique(letters.codes(letters.starts, letters.ends))


@dataclass
class Words:
    """A text's words (letters-and-digits runs of its normalised form) as 64-bit codes, with weights and a
    flag for content words (three characters or more, not in FUNCTION_WORDS or QUESTION_WORDS), all numpy
    arrays in text order."""
    codes: np.ndarray
    weights: np.ndarray
    content: np.ndarray

    @classmethod
    def of(cls, letters: Letters) -> Words:
        cached = getattr(letters, "_words", None)
        if cached is not None:
            return cached
        if not len(letters.starts):
            words = cls(np.zeros(0, np.uint64), np.zeros(0), np.zeros(0, bool))
        else:
            codes = letters.codes(letters.starts, letters.ends)
            length = (letters.ends - letters.starts).astype(float)
            # words of one or two characters ("x", "10", "th") are as common as function words: no keys from them
            content = ~np.isin(codes, _word_codes(FUNCTION_WORDS | QUESTION_WORDS)) & (length >= 3)
            light = np.where(np.isin(codes, _word_codes(QUESTION_WORDS)), QUESTION_WEIGHT, LIGHT_WEIGHT)
            weights = np.where(content, CONTENT_BASE + (1 - CONTENT_BASE) * np.minimum(1.0, length / FULL_LETTERS),
                               light)
            words = cls(codes, weights, content)
        letters._words = words
        return words

    def keys(self, content_only: bool) -> np.ndarray:
        """Retrieval codes: the unordered pairs of words at most two apart, either in the sequence of content
        words alone (`content_only`), or in the whole text with at least one content word in the pair. One
        word substituted, inserted or deleted leaves a prompt of three or more content words one pair of the
        first kind, and a prompt of three or more words one of the second (see WordNear.keys)."""
        if content_only:
            c, salt = self.codes[self.content], _PAIR_SALT
            keep = lambda gap: slice(None)  # noqa: E731
        else:
            c, salt = self.codes, _MIXED_SALT
            keep = lambda gap: self.content[:-gap] | self.content[gap:]  # noqa: E731
        out = []
        with np.errstate(over="ignore"):
            for gap in (1, 2):
                if len(c) > gap:
                    lo, hi = np.minimum(c[:-gap], c[gap:]), np.maximum(c[:-gap], c[gap:])
                    out.append(_mix64(_mix64(lo ^ salt) + hi)[keep(gap)])
        return np.unique(np.concatenate(out)) if out else np.zeros(0, np.uint64)


def candidate_word_codes(letters: Letters) -> np.ndarray:
    """Every word key under which a candidate may meet an evaluation prompt it nearly holds (sorted,
    distinct): both kinds of Words.keys."""
    words = Words.of(letters)
    return np.union1d(words.keys(True), words.keys(False))


class WordNear:
    """One evaluation prompt, ready to score candidates by word similarity: the largest weighted share of its
    words that a window of the candidate `len(words) + slack` words long (slack = 1 + words // 10: room for an
    inserted word or a few) holds *in the prompt's order* (a weighted longest common subsequence), where the
    prompt may also be read rotated at one of its clause boundaries (a comma, colon, semicolon or sentence end:
    "In 1990, who won?" read as "who won? In 1990"). A substituted or deleted word costs its weight; an
    inserted word, text around the window, case and punctuation cost nothing. Order matters because a bag of
    words lets a passage match a short question whose words it scatters ("the Indian Ocean is the third
    largest of the world" is not "What is the largest ocean in the world?").

    The weighted share of the prompt's words in the window taken as a bag bounds the ordered one from above,
    so it is computed first, for every window at once (prefix sums), and only the few best windows reaching
    the threshold are aligned.

    Keys: a prompt with three or more content words is found through the unordered pairs of content words
    at most two apart (one edit breaks at most the pairs through one word, or the adjacencies at one place;
    a moved clause breaks three adjacencies: the prompt needs five content words for a pair to survive
    that); a prompt with fewer through the pairs of any words at most two apart that hold a content word. A prompt whose content words
    weigh under NEAR_MIN_CONTENT ("What is it?") or longer than NEAR_MAX_WORDS has no word key and scores 0:
    only containment can match it."""
    ALIGN_WINDOWS = 4   # windows aligned per candidate (the best by the bag bound)

    def __init__(self, norm: str, letters: Letters | None = None):
        letters = Letters.of(norm) if letters is None else letters
        self.words = Words.of(letters)
        codes, weights = self.words.codes, self.words.weights
        self.m = len(codes)
        self.total = float(weights.sum())
        self.types, inverse, self.counts = np.unique(codes, return_inverse=True, return_counts=True)
        self.type_weights = np.zeros(len(self.types))
        np.maximum.at(self.type_weights, inverse, weights)
        self.window = self.m + 1 + self.m // 10
        self.content = int(self.words.content.sum())
        self.applies = (self.m <= NEAR_MAX_WORDS
                        and float(self.words.weights[self.words.content].sum()) >= NEAR_MIN_CONTENT)
        # the prompt's readings: as written, and rotated at each clause boundary (the word after , ; : . ? !)
        cuts = sorted({len(_ALNUM.findall(norm[:m.end()])) for m in _CLAUSE_END.finditer(norm)} - {0, self.m})
        seq = list(zip(codes.tolist(), weights.tolist()))
        # (reading, cost): free at a clause boundary; a short prompt may also be read rotated at any word, for
        # the cost of a question word (a clause moved without punctuation, "at home, how do I ..." for "how
        # do I ... at home"), which a scattered match of a few of its words cannot pay
        self.readings = [(seq, 0.0)] + [(seq[c:] + seq[:c], 0.0) for c in cuts]
        if self.m <= ROTATE_MAX_WORDS:
            self.readings += [(seq[c:] + seq[:c], QUESTION_WEIGHT) for c in range(1, self.m) if c not in cuts]

    def keys(self) -> np.ndarray:
        if not self.applies:
            return np.zeros(0, np.uint64)
        # a prompt with few content words: pairs with a function word too ("metabolism work", "does _ work"
        # for "How does metabolism work?"), not each content word alone, which half the prompts hold
        return self.words.keys(content_only=self.content >= 3)

    def score(self, candidate: Letters, threshold: float = 0.0) -> float:
        """The weighted share of this prompt's words that the best window of the candidate holds in order
        (0..1); 0 for a prompt the word score does not apply to. Windows whose bag share is under `threshold`
        are not aligned: with a threshold the result is exact at or above it, and below it a lower bound."""
        if not self.applies:
            return 0.0
        cw = Words.of(candidate).codes
        if not len(cw):
            return 0.0
        pos = np.searchsorted(self.types, cw)
        pos[pos >= len(self.types)] = 0
        hit = self.types[pos] == cw
        if not hit.any():
            return 0.0
        present, t_of = np.unique(pos[hit], return_inverse=True)
        w, k = self.type_weights[present], self.counts[present]
        # bag bound for the whole candidate as one window first: most candidates stop here
        totals = np.bincount(t_of, minlength=len(present))
        if float((w * np.minimum(k, totals)).sum()) < threshold * self.total:
            return 0.0
        n = len(cw)
        if n <= self.window:
            starts = np.zeros(1, np.int64)
        else:
            where = np.nonzero(hit)[0]
            # counts of each present type in every window [s, s + window): prefix sums over the hit positions
            onehot = np.zeros((len(present), n + 1), np.int32)
            onehot[t_of, where + 1] = 1
            prefix = np.cumsum(onehot, axis=1)
            inside = prefix[:, self.window:] - prefix[:, :n + 1 - self.window]
            bag = (w[:, None] * np.minimum(k[:, None], inside)).sum(axis=0)
            order = np.argsort(-bag, kind="stable")[:self.ALIGN_WINDOWS]
            starts = order[bag[order] >= threshold * self.total]
        cand = cw.tolist()
        best = 0.0
        for s0 in starts.tolist():
            win = cand[s0:s0 + self.window]
            for reading, cost in self.readings:
                best = max(best, _ordered_weight(reading, win) - cost)
        return best / self.total


_CLAUSE_END = re.compile(r"[,;:.?!](?=\s)")


def _ordered_weight(seq: list[tuple[int, float]], window: list[int]) -> float:
    """The largest total weight of a subsequence of `seq` ((code, weight) pairs) that is also a subsequence of
    `window` (codes): a weighted longest common subsequence, one row at a time."""
    prev = [0.0] * (len(window) + 1)
    for code, weight in seq:
        cur = [0.0]
        for j, c in enumerate(window):
            best = prev[j] + weight if c == code else 0.0
            if prev[j + 1] > best:
                best = prev[j + 1]
            if cur[j] > best:
                best = cur[j]
            cur.append(best)
        prev = cur
    return prev[-1]


def decontam_match(contained: Contained, near: WordNear, candidate: Letters, threshold: float,
                   near_threshold: float | None) -> tuple[str, float] | None:
    """Whether a candidate carries an evaluation prompt: ("contained", containment) when the share of the
    prompt's letter grams it holds reaches `threshold` (for a prompt under n letters: "whole", it appears
    whole), else ("near", similarity) when the word similarity (WordNear) reaches `near_threshold`
    (None: off), else None."""
    score = contained.score(candidate)
    if score >= threshold:
        return ("whole" if contained.short else "contained"), score
    if near_threshold is not None:
        sim = near.score(candidate, near_threshold)
        if sim >= near_threshold:
            return "near", sim
    return None


def in_sorted(codes: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Which of `codes` are in the sorted array `keys`: a binary search per code (intersect1d would sort the
    whole index again for every prompt)."""
    if not len(keys):
        return np.zeros(len(codes), bool)
    return keys[np.minimum(np.searchsorted(keys, codes), len(keys) - 1)] == codes


class EvalIndex:
    """Evaluation prompts in memory, indexed by their containment and word keys: what the clean pipeline
    does with a shuffle (Sketch, EvalKeys, ContainCheck), for the bench and the tests. `match(text)` gives
    (eval index, kind, score) of the best match (highest score, then first prompt), or None."""
    def __init__(self, texts: list[str], threshold: float = 0.8, near_threshold: float | None = 0.72,
                 chars: int = CONTAIN_CHARS):
        self.threshold, self.near_threshold, self.chars = threshold, near_threshold, chars
        self.evals = []
        self.index: dict[int, list[int]] = {}
        self.short = 0
        for i, text in enumerate(texts):
            c = Contained(normalise(text), chars)
            near = WordNear(normalise(text), c.letters)
            self.evals.append((c, near))
            if c.short:
                self.short = max(self.short, len(c.letters.stream) + 1)
            keys = np.array(c.keys(threshold), np.uint64)
            if near_threshold is not None:
                keys = np.union1d(keys, near.keys())
            for key in keys.tolist():
                self.index.setdefault(key, []).append(i)
        self.keys = np.array(sorted(self.index), np.uint64)

    def candidates(self, letters: Letters) -> list[int]:
        codes = letters.candidate_codes(self.chars, short=self.short, words=self.near_threshold is not None)
        found = codes[in_sorted(codes, self.keys)].tolist()
        return sorted({i for key in found for i in self.index[key]})

    def match(self, text: str) -> tuple[int, str, float] | None:
        letters = Letters.of(normalise(text))
        best = None
        for i in self.candidates(letters):
            c, near = self.evals[i]
            m = decontam_match(c, near, letters, self.threshold, self.near_threshold)
            if m is not None and (best is None or m[1] > best[2]):
                best = (i, *m)
        return best
