"""`eaglekit beam run clean`: raw prompt sets -> clean, deduplicated, decontaminated, PII-filtered prompt
records (schemas/prompt.json), with dead letters and a manifest whose counts add up.

The pipeline is one named composite per step (build_pipeline): Read (read -> extract: records to prompts
with provenance) -> Dedupe (exact_dedupe, then near-duplicate candidates) -> Decontaminate (containment
of the evaluation sets' prompts, read by EvalSets, and the decision per prompt) -> Pii -> Write. Near
dedupe is symmetric (shingle Jaccard between input prompts); decontamination scores how much of an
evaluation prompt a prompt contains (dedupe.Contained), so a benchmark item with a sentence added still
counts. Every drop is a dead letter (id + reason, never text) and a count; survivors are chosen by
provenance order (file, record, turn), so the output is the same whatever the runner or worker count. The
stage runner (beam_jobs.stage) stages, checks the counts, writes the manifest last and publishes.
"""
from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import logging
import os
from typing import Iterable, Literal, get_args

import apache_beam as beam
import numpy as np
from apache_beam.io.filesystems import FileSystems
from apache_beam.transforms.window import GlobalWindows

from beam_jobs import io as bio
from beam_jobs import pii as pii_lib
from beam_jobs.dedupe import (CONTAIN_CHARS, BandBatcher, Contained, ExactCheck, Letters, NearDupConfig, WordNear,
                              band_keys, bucket_pairs, decontam_match, exact_key, group_bands, lsh_params, normalise,
                              signature)
from beam_jobs.forkserver import ForkingFnApiRunner, WarmWorkers
from beam_jobs.pii import PiiConfig, warm_filter
from beam_jobs.readers import ReaderConfig, file_format, read_file, source_stem
from beam_jobs.stage import Stage, Tally, run_stage
from eaglekit.checksums import file_sha256
from eaglekit.config import ConfigError, config, setting
from eaglekit import sources as sources_lib
from eaglekit.sources import TermsPolicy

STAGE = "clean"
STAGES = ("read", "extract", "exact_dedupe", "near_dedupe", "decontaminate", "pii")
OutputFormat = Literal["parquet", "jsonl"]
OUTPUT_FORMATS = get_args(OutputFormat)
PII_STEP = "Pii/Filter"  # the transform whose workers the fork server starts with the PII engine loaded


@config
class CleanConfig:
    """Everything `eaglekit beam run clean` does; the CLI builds exactly this."""
    output: str = setting(help="output folder (replaced atomically)")
    inputs: list[str] = setting(factory=list, help="prompt files, globs or gs:// paths (JSONL, ShareGPT JSON, "
                                "Parquet; .gz too)", flag="--input")
    # where the inputs came from and under which terms (eaglekit.sources; docs/sources.md): checked against
    # `terms` before any work, recorded per source in the manifest and on every prompt's provenance
    sources: str | None = setting(None, "YAML file naming each input (path or glob) with its url, SPDX licence and "
                                        "terms (docs/sources.md); its files are inputs too")
    licence: str | None = setting(None, "SPDX licence id of the --input files the sources file does not name "
                                        "(one-off runs); default: unknown, which the terms policy refuses")
    terms: TermsPolicy = setting(factory=TermsPolicy)
    reader: ReaderConfig = setting(factory=ReaderConfig)
    near: NearDupConfig = setting(factory=NearDupConfig)
    near_dedupe: bool = setting(True, "drop near duplicates (MinHash LSH candidates, verified by exact Jaccard)")
    decontaminate: list[str] = setting(factory=list, help="evaluation prompt set(s): input prompts that contain one of "
                                       "their prompts (also with text around it or case, spacing or punctuation "
                                       "edits) are dropped (repeatable)")
    # Containment (share of an evaluation prompt's n-letter grams found in a prompt) at or above which the prompt
    # is dropped. Planted copies (text added around it; whitespace, case, punctuation edits) score 1.0; on 19k
    # ordinary prompts against 94 evaluation prompts none scored above 0.43 (shared template openings), so 0.8
    # leaves room on both sides, and still drops a copy of a long evaluation prompt with a word edited.
    decontam_threshold: float = setting(0.8, "containment (share of an evaluation prompt's n-letter grams in a "
                                              "prompt) at or above which the prompt is dropped", gt=0.0, le=1.0)
    decontam_chars: int = setting(CONTAIN_CHARS, "containment n-gram length, in letters and digits", ge=1, cli=False)
    # Word similarity (dedupe.WordNear: weighted share of an evaluation prompt's words in a window of the prompt),
    # for what containment misses: a short or medium prompt with one word substituted, inserted or deleted, or a
    # clause moved. bench/decontam.py measures the threshold against planted edits and ordinary prompts.
    decontam_near: bool = setting(True, "also drop prompts that nearly hold an evaluation prompt (word similarity)")
    decontam_near_threshold: float = setting(0.72, "word similarity (weighted share of an evaluation prompt's words "
                                                   "found in a window of the prompt) at or above which the prompt "
                                                   "is dropped", gt=0.0, le=1.0)
    pii: PiiConfig = setting(factory=PiiConfig)
    pii_enabled: bool = setting(True, "find and redact / drop PII (see pii); --no-pii: skip it (not recommended)",
                                flag="--pii")
    pii_keep: list[str] = setting(factory=list, help="entity types --pii-policy X=keep took out (checked too)",
                                  cli=False)
    pii_batch: int = setting(256, "prompts per PII batch (BatchElements max)", ge=1, cli=False)
    output_format: OutputFormat = setting("parquet", "output files: parquet or jsonl", flag="--format")
    # a run fails when more than this share of records were unreadable (malformed, no user turn, ...);
    # duplicates, contamination and PII drops are the stage working and never count
    max_dead_letter_share: float | None = setting(bio.DEFAULT_MAX_DEAD_LETTER_SHARE, "fail when more than this share of "
                                                  "records were unreadable (duplicates and PII drops never count)",
                                                  ge=0.0, le=1.0)

    def __post_init__(self):
        if not self.inputs and not self.sources:
            raise ConfigError("clean needs at least one --input (or --sources FILE)", key="inputs")
        if self.licence is not None:
            sources_lib.check_licence(self.licence)
        if not 0.0 < self.near.threshold <= 1.0:  # the near section's own declaration has no range
            raise ConfigError(f"similarity thresholds must be in (0, 1], got {self.near.threshold}", key="near.threshold")


def _user_text(p: dict) -> str:
    return p["messages"][-1]["content"]


def _order(p: dict) -> tuple:
    prov = p["provenance"]
    return (prov["file"], prov["record"], prov["turn"])


class Counting(beam.DoFn):
    """A DoFn whose count events (stage/in, stage/out, stage/dropped/reason, pii_entities/TYPE) are summed
    per bundle and emitted on the "event" output in finish_bundle: a handful of elements per bundle
    instead of several per prompt (per-element Beam overhead was a large share of the run), and still
    exact, since a retried bundle's outputs are discarded with it (unlike attempted metrics)."""
    def start_bundle(self):
        self._counts: dict[str, int] = {}

    def count(self, key: str, n: int = 1) -> None:
        self._counts[key] = self._counts.get(key, 0) + n

    def dead(self, stage: str, reason: str, p: dict, detail: str):
        self.count(f"{stage}/dropped/{reason}")
        prov = p["provenance"]
        return beam.pvalue.TaggedOutput("dead", bio.dead_letter(stage, reason, p["id"], prov["file"], prov["record"], detail))

    def finish_bundle(self):
        for kv in sorted(self._counts.items()):
            yield beam.pvalue.TaggedOutput("event", GlobalWindows.windowed_value(kv))
        self._counts = {}


class Prewarm(Counting):
    """Counting DoFn that, on a worker's first contact, starts loading the PII engine in the background
    (see pii.prewarm), so model loading overlaps reading and deduplication."""
    pii: PiiConfig | None = None

    def setup(self):
        if self.pii is not None:
            from beam_jobs.pii import prewarm
            prewarm(self.pii)


class ReadPrompts(Prewarm):
    """Each file's records as prompts. `names`: each input's source name (on its prompts' provenance) and
    `index`: its place in the manifest's inputs, under which its records in are counted (`input/<i>/in`)."""
    def __init__(self, reader: ReaderConfig, checksums: dict[str, str], pii: PiiConfig | None = None,
                 names: dict[str, str] | None = None, index: dict[str, int] | None = None):
        self.reader, self.checksums, self.pii = reader, checksums, pii
        self.names, self.index = names or {}, index or {}

    def process(self, path):
        i = self.index.get(path)
        for kind, item in read_file(path, self.checksums.get(path), self.reader, self.names.get(path)):
            if kind == "prompt":
                yield item
            elif kind == "event":
                self.count(*item)
                if i is not None and item[0] == "read/in":
                    self.count(f"input/{i}/in", item[1])
            else:
                yield beam.pvalue.TaggedOutput(kind, item)


class KeepFirst(Prewarm):
    """Exact duplicates: the earliest prompt (provenance order) survives, the others are dead letters."""
    def __init__(self, pii: PiiConfig | None = None):
        self.pii = pii

    def process(self, kv):
        _, group = kv
        group = sorted(group, key=_order)
        self.count("exact_dedupe/in", len(group))
        self.count("exact_dedupe/out")
        yield group[0]
        for p in group[1:]:
            yield self.dead("exact_dedupe", "exact_duplicate", p, f"exact duplicate (after normalisation) of {group[0]['id']}")


def _sketch(text: str, near: NearDupConfig, threshold: float) -> tuple[str, list[str]]:
    """(normalised text, LSH band keys). Only the text travels with the band entries (candidates are
    verified with the exact shingle Jaccard inside the bucket); the signature does not: most buckets
    hold one prompt, and re-hashing the few that collide is cheaper than shuffling 512 bytes per band."""
    norm = normalise(text)
    bands, rows = lsh_params(threshold, near.num_perm, near.lsh_recall, near.lsh_spurious)
    return norm, band_keys(signature(norm, near, num_perm=bands * rows), bands, rows)


class BatchedBands(beam.DoFn):
    """A DoFn (with a `near` NearDupConfig) that sends its LSH band entries as (shard, [(band key, entry), ...])
    batches (see NearDupConfig.shards) on `band_tag` (None: the main output), when full and at bundle end."""
    band_tag: str | None = None

    def start_bundle(self):
        self._bands = BandBatcher(self.near.shards)

    def _add_bands(self, keys, entry):
        for key in keys:
            self._bands.add(key, entry)
        if self._bands.size >= self.near.batch_entries:
            yield from self._emit(self._bands.drain(), windowed=False)

    def _emit(self, batches, windowed: bool):
        for kv in batches:
            value = GlobalWindows.windowed_value(kv) if windowed else kv
            yield beam.pvalue.TaggedOutput(self.band_tag, value) if self.band_tag else value

    def finish_bundle(self):
        yield from self._emit(self._bands.drain(), windowed=True)


class Sketch(BatchedBands):
    """(id, prompt) plus its LSH band entries (band key, ('p', order, id, normalised text)), batched, when near
    dedupe is on; with an evaluation index (side input, see eval_index), also ('contain' output) (key,
    (order, id, normalised text)) for each key of an evaluation prompt this prompt may contain."""
    band_tag = "bands"

    def __init__(self, near: NearDupConfig, near_on: bool = True, contain_chars: int = CONTAIN_CHARS):
        self.near, self.near_on, self.contain_chars = near, near_on, contain_chars

    def process(self, p, index=None):
        yield (p["id"], p)
        text = _user_text(p)
        norm = None
        if self.near_on:
            norm, keys = _sketch(text, self.near, self.near.threshold)
            yield from self._add_bands(keys, ("p", _order(p), p["id"], norm))
        if index is not None and len(index[0]):
            norm = norm or normalise(text)
            codes = Letters.of(norm).candidate_codes(self.contain_chars, short=index[1])
            for key in np.intersect1d(codes, index[0], assume_unique=True).view(np.int64).tolist():
                yield beam.pvalue.TaggedOutput("contain", (key, (_order(p), p["id"], norm)))


def _eval_ref(p: dict) -> tuple:
    prov = p["provenance"]
    return (prov["file"], prov["record"], prov["turn"], p.get("source_id"))


class EvalKeys(beam.DoFn):
    """Each evaluation prompt under each of its keys (Contained.keys): (key, (ref, normalised text)); and on
    'index', (key, letters + 1 for a short prompt else 0) for eval_index. With a `near` threshold, also under
    its word keys (WordNear.keys: a prompt nearly holding it, one word changed, shares one)."""
    def __init__(self, chars: int, threshold: float, near: float | None = None):
        self.chars, self.threshold, self.near = chars, threshold, near

    def process(self, p):
        norm = normalise(_user_text(p))
        c = Contained(norm, self.chars)
        short = len(c.letters.stream) + 1 if c.short else 0
        keys = np.array(c.keys(self.threshold), np.uint64)
        if self.near is not None:
            keys = np.union1d(keys, WordNear(norm, c.letters).keys())
        for key in keys.view(np.int64).tolist():
            yield (key, (_eval_ref(p), norm))
            yield beam.pvalue.TaggedOutput("index", (key, short))


def _near(cfg: CleanConfig) -> float | None:
    """The word-similarity threshold of decontamination, None when it is off."""
    return cfg.decontam_near_threshold if cfg.decontam_near else None


def eval_index(entries: list) -> tuple[np.ndarray, int]:
    """(sorted distinct keys, the longest short prompt's letters + 1 (0: none)): what Sketch looks prompts up
    in. Holds only the keys (~1/5 of the evaluation sets' letters x 8 bytes), not their text."""
    keys = np.unique(np.array([k for k, _ in entries], np.int64).view(np.uint64))
    return keys, max((s for _, s in entries), default=0)


class ContainCheck(beam.DoFn):
    """Prompts and evaluation prompts that share a key -> (id, ('contam', (-score, eval file, record, turn,
    detail))) for each pair whose containment reaches the threshold, or else whose word similarity reaches
    `near` (dedupe.decontam_match, exact, on the texts). Each pair's result depends on the pair alone, so
    neither the order of a group nor a pair met under several keys changes the decision: DecideNear keeps the
    highest score, then the first evaluation prompt."""
    def __init__(self, chars: int, threshold: float, near: float | None = None, max_items: int = 100_000):
        self.chars, self.threshold, self.near, self.max_items = chars, threshold, near, max_items

    def setup(self):
        self.evals: dict = {}
        self.letters: dict = {}

    def _memo(self, cache: dict, key, make):
        if key not in cache:
            if len(cache) >= self.max_items:
                cache.clear()
            cache[key] = make()
        return cache[key]

    def process(self, kv):
        _, joined = kv
        evals = list(joined["e"])  # a few per key; the prompts may be many (a common phrase) and stream past
        for _, pid, norm in joined["q"]:
            letters = self._memo(self.letters, pid, lambda: Letters.of(norm))
            for ref, enorm in evals:
                contained, near = self._memo(self.evals, ref, lambda: self._eval(enorm))
                match = decontam_match(contained, near, letters, self.threshold, self.near)
                if match is not None:
                    yield (pid, ("contam", (-match[1], *ref[:3], self._detail(ref, match[1], contained, match[0]))))

    def _eval(self, norm: str) -> tuple[Contained, WordNear]:
        contained = Contained(norm, self.chars)
        return contained, WordNear(norm, contained.letters)

    def _detail(self, ref, score: float, contained: Contained, kind: str = "contained") -> str:
        file, record, turn, sid = ref
        where = f"{file}:{record}" + (f" turn {turn}" if turn else "") + (f" (id {sid})" if sid is not None else "")
        if kind == "near":
            return (f"nearly holds evaluation prompt {where}: word similarity {score:.2f} >= {self.near} (weighted "
                    f"share of its words found in order in a window here)")
        if contained.short:
            return (f"contains evaluation prompt {where} whole (containment 1.00; under {self.chars} letters, "
                    f"so it must appear whole)")
        return (f"contains evaluation prompt {where}: containment {score:.2f} >= {self.threshold} "
                f"(share of its {self.chars}-letter n-grams found here)")


class Bucket(beam.DoFn):
    """One shard of LSH buckets -> (id, ('near', (rep_order, rep_id))) decisions, each verified with the exact
    shingle Jaccard. Which members share a bucket does not depend on how the entries were batched, and each
    bucket sorts its members: the decisions are deterministic."""
    def __init__(self, near: NearDupConfig):
        self.near = near

    def setup(self):
        self.check = ExactCheck(self.near)

    def process(self, kv):
        _, batches = kv
        for members in group_bands(batches).values():
            if len(members) > 1:  # a bucket of one has nothing to compare: the common case
                sig = self.check.signature
                prompts = [(m[1], m[2], sig(("p", m[2]), m[3]), m[3]) for m in members]
                for pid, rep in bucket_pairs(prompts, self.near, self.check):
                    yield (pid, ("near", rep))


class DecideNear(Counting):
    """Join a prompt with its bucket decisions: near duplicate (of the earliest similar representative),
    contaminated (the evaluation prompt it contains most, the first of equals), or kept."""
    def process(self, kv):
        _, joined = kv
        prompts, marks = joined["prompt"], joined["marks"]
        if not prompts:
            return
        p = prompts[0]
        near = sorted(v for kind, v in marks if kind == "near")
        contam = sorted(v for kind, v in marks if kind == "contam")  # highest containment, then first eval
        self.count("near_dedupe/in")
        if near:
            yield self.dead("near_dedupe", "near_duplicate", p, f"near duplicate of {near[0][1]}")
            return
        self.count("near_dedupe/out")
        self.count("decontaminate/in")
        if contam:
            yield self.dead("decontaminate", "contaminated", p, contam[0][-1])
            return
        self.count("decontaminate/out")
        yield p


class PiiDoFn(Counting):
    """PII over a batch of prompts: the engine is built once per worker in setup(); one nlp.pipe per batch."""
    def __init__(self, cfg: PiiConfig, enabled: bool = True):
        self.cfg, self.enabled = cfg, enabled
        self.filter = None

    def setup(self):
        if self.enabled:
            from beam_jobs.pii import claim_filter
            self.filter = claim_filter(self.cfg)

    def process(self, batch):
        batch = list(batch)
        self.count("pii/in", len(batch))
        if not self.enabled:
            self.count("pii/out", len(batch))
            yield from batch
            return
        texts = [m["content"] for p in batch for m in p["messages"]]
        results = iter(self.filter.process(texts))
        for p in batch:
            found = [next(results) for _ in p["messages"]]
            reasons = sorted(r.drop_reason for r in found if r.drop_reason)
            counts: dict[str, int] = {}
            for r in found:
                for k, v in r.counts.items():
                    counts[k] = counts.get(k, 0) + v
            for k, v in counts.items():
                self.count(f"pii_entities/{k}", v)
            if reasons:
                ents = ", ".join(sorted(counts))
                yield self.dead("pii", reasons[0], p, f"holds PII ({ents}) under a drop policy")
                continue
            out = dict(p)
            out["messages"] = [{"role": m["role"], "content": r.text} for m, r in zip(p["messages"], found)]
            out["pii"] = [{"entity_type": k, "count": int(v)} for k, v in sorted(counts.items())]
            self.count("pii/out")
            yield out


def _sum_events(kvs: Iterable[tuple[str, int]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for k, v in kvs:
        out[k] = out.get(k, 0) + int(v)
    return out


class ReadInputs(beam.PTransform):
    """read -> extract: each input file's records (any reader format) as prompts with provenance; outputs
    `prompts`, `dead`, `event`. Also used for the evaluation sets (Decontaminate)."""
    def __init__(self, files: list[str], reader: ReaderConfig, checksums: dict[str, str], pii: PiiConfig | None = None,
                 names: dict[str, str] | None = None):
        super().__init__()
        self.files, self.reader, self.checksums, self.pii, self.names = files, reader, checksums, pii, names

    def expand(self, pbegin):
        index = {f: i for i, f in enumerate(self.files)} if self.names else None
        return (pbegin | "Files" >> beam.Create(self.files)
                | "Records" >> beam.ParDo(ReadPrompts(self.reader, self.checksums, self.pii, self.names, index))
                .with_outputs("dead", "event", main="prompts"))


class EvalIndex(beam.PTransform):
    """The evaluation sets' prompts keyed for containment (`keyed`) and the key index Dedupe's sketch looks
    prompts up in (`index`, a singleton)."""
    def __init__(self, files: list[str], cfg: CleanConfig):
        super().__init__()
        self.files, self.cfg = files, cfg

    def expand(self, pbegin):
        cfg = self.cfg
        reader = dataclasses.replace(cfg.reader, all_user_turns=True, max_chars=10 ** 9)
        evals = pbegin | "ReadEval" >> ReadInputs(self.files, reader, {})
        keys = (evals.prompts | "EvalKeys" >> beam.ParDo(EvalKeys(cfg.decontam_chars, cfg.decontam_threshold, _near(cfg)))
                .with_outputs("index", main="keyed"))
        index = keys.index | "EvalKeyList" >> beam.combiners.ToList() | "Index" >> beam.Map(eval_index)
        return {"keyed": keys.keyed, "index": index}


class Dedupe(beam.PTransform):
    """exact_dedupe (normalised text, earliest kept) -> near-dedupe candidates (MinHash LSH bands, grouped and
    verified by exact Jaccard in each bucket). Outputs `keyed` (id, prompt), `marks` (near-duplicate
    decisions), `contain` (prompts under the evaluation keys they may contain, when an index is given),
    `dead` and `event`. The near-duplicate drops are applied by Decontaminate's decision step, which joins
    them with the contamination marks in one shuffle."""
    def __init__(self, cfg: CleanConfig, pii: PiiConfig | None, index=None):
        super().__init__()
        self.cfg, self.pii, self.index = cfg, pii, index

    def expand(self, prompts):
        cfg = self.cfg
        exact = (prompts
                 | "ExactKey" >> beam.Map(lambda pr: (exact_key(normalise(_user_text(pr))), pr))
                 | "GroupExact" >> beam.GroupByKey()
                 | "KeepFirst" >> beam.ParDo(KeepFirst(self.pii)).with_outputs("dead", "event", main="prompts"))
        sketch = Sketch(cfg.near, cfg.near_dedupe, cfg.decontam_chars)
        if self.index is not None:
            sk = (exact.prompts | "Sketch" >> beam.ParDo(sketch, index=beam.pvalue.AsSingleton(self.index))
                  .with_outputs("bands", "contain", main="keyed"))
        else:
            sk = exact.prompts | "Sketch" >> beam.ParDo(sketch).with_outputs("bands", main="keyed")
        marks = sk.bands | "GroupBands" >> beam.GroupByKey() | "Buckets" >> beam.ParDo(Bucket(cfg.near))
        out = {"keyed": sk.keyed, "marks": marks, "dead": exact.dead, "event": exact.event}
        if self.index is not None:
            out["contain"] = sk.contain
        return out


class Decontaminate(beam.PTransform):
    """Prompts that contain an evaluation prompt (containment checked exactly on the texts that share a key),
    then the decision per prompt: near duplicate, contaminated or kept (DecideNear). Input: Dedupe's
    outputs; outputs `prompts`, `dead`, `event`."""
    def __init__(self, cfg: CleanConfig, evals: dict | None):
        super().__init__()
        self.cfg, self.evals = cfg, evals

    def expand(self, dedupe: dict):
        cfg, marks = self.cfg, [dedupe["marks"]]
        if self.evals is not None:
            marks.append({"q": dedupe["contain"], "e": self.evals["keyed"]} | "JoinEvalKeys" >> beam.CoGroupByKey()
                         | "Contained" >> beam.ParDo(ContainCheck(cfg.decontam_chars, cfg.decontam_threshold,
                                                                  _near(cfg))))
        marks = marks | "AllMarks" >> beam.Flatten()
        return ({"prompt": dedupe["keyed"], "marks": marks} | "JoinMarks" >> beam.CoGroupByKey()
                | "Decide" >> beam.ParDo(DecideNear()).with_outputs("dead", "event", main="prompts"))


class FilterPii(beam.PTransform):
    """PII found and redacted (or the prompt dropped, by policy) over batches of prompts."""
    def __init__(self, cfg: CleanConfig):
        super().__init__()
        self.cfg = cfg

    def expand(self, prompts):
        cfg = self.cfg
        return (prompts
                | "Batch" >> beam.BatchElements(min_batch_size=min(32, cfg.pii_batch), max_batch_size=cfg.pii_batch)
                | PII_STEP.split("/")[-1] >> beam.ParDo(PiiDoFn(cfg.pii, cfg.pii_enabled))
                .with_outputs("dead", "event", main="prompts"))


class WriteOutputs(beam.PTransform):
    """The prompt records (Parquet or JSONL), every step's dead letters and count events into `staging`."""
    def __init__(self, cfg: CleanConfig, staging: str, schema):
        super().__init__()
        self.cfg, self.staging, self.schema = cfg, staging, schema

    def expand(self, outputs: dict):
        """`outputs`: {"prompts": records, "dead<i>": each step's dead letters, "event<i>": its count events}."""
        prefix = FileSystems.join(self.staging, "prompts")
        if self.cfg.output_format == "parquet":
            _ = outputs["prompts"] | "Prompts" >> beam.io.WriteToParquet(prefix, self.schema, file_name_suffix=".parquet")
        else:
            _ = (outputs["prompts"] | "PromptJson" >> beam.Map(lambda r: json.dumps(r, ensure_ascii=False, sort_keys=True))
                 | "Prompts" >> beam.io.WriteToText(prefix, file_name_suffix=".jsonl"))
        _ = ([v for k, v in sorted(outputs.items()) if k.startswith("dead")] | "AllDead" >> beam.Flatten()
             | "DeadJson" >> beam.Map(lambda d: json.dumps(d, sort_keys=True))
             | "DeadLetters" >> beam.io.WriteToText(FileSystems.join(self.staging, "dead_letters"), file_name_suffix=".jsonl"))
        # A few per-bundle partial counts per worker: summed after the run (tally), which saves the pipeline
        # two shuffles and the stages behind them
        return ([v for k, v in sorted(outputs.items()) if k.startswith("event")] | "AllEvents" >> beam.Flatten()
                | "EventJson" >> beam.Map(json.dumps)
                | "Events" >> beam.io.WriteToText(FileSystems.join(self.staging, "_events"), file_name_suffix=".jsonl"))


def build_pipeline(p: beam.Pipeline, cfg: CleanConfig, files: list[str], eval_files: list[str],
                   checksums: dict[str, str], staging: str, schema, prewarm_pii: bool = True,
                   names: dict[str, str] | None = None) -> None:
    """read -> extract -> dedupe -> decontaminate -> PII -> write, one named composite per step. `names`:
    each input's source name (eaglekit.sources)."""
    pii_cfg = cfg.pii if cfg.pii_enabled and prewarm_pii else None  # for the Prewarm DoFns
    read = p | "Read" >> ReadInputs(files, cfg.reader, checksums, pii_cfg, names)
    evals = p | "EvalSets" >> EvalIndex(eval_files, cfg) if eval_files else None
    dedupe = read.prompts | "Dedupe" >> Dedupe(cfg, pii_cfg, evals["index"] if evals else None)
    kept = dedupe | "Decontaminate" >> Decontaminate(cfg, evals)
    pii = kept.prompts | "Pii" >> FilterPii(cfg)
    outputs = {"prompts": pii.prompts}
    for i, step in enumerate((read, dedupe, kept, pii)):
        outputs[f"dead{i}"], outputs[f"event{i}"] = step["dead"], step["event"]
    _ = outputs | "Write" >> WriteOutputs(cfg, staging, schema)


def counts_from_events(events: dict[str, int]) -> tuple[dict, dict]:
    """Per-stage {in, out, dropped{reason}} and PII entity counts from the summed pipeline events."""
    stages: dict[str, dict] = {s: {"in": 0, "out": 0, "dropped": {}} for s in STAGES}
    pii: dict[str, int] = {}
    for key, n in events.items():
        parts = key.split("/")
        if parts[0] == "input":  # records in per input file (tally's per-source counts)
            continue
        if parts[0] == "pii_entities":
            pii[parts[1]] = n
        elif parts[1] == "dropped":
            stages[parts[0]]["dropped"][parts[2]] = n
        else:
            stages[parts[0]][parts[1]] = n
    stages = {s: bio.stage_counts(c["in"], c["out"], c["dropped"]) for s, c in stages.items()}
    return stages, dict(sorted(pii.items()))


def _options(cfg: CleanConfig) -> dict:
    d = dataclasses.asdict(cfg)
    d.pop("inputs"), d.pop("output")
    return json.loads(json.dumps(d, default=list))


def _close_names(name: str, known: Iterable[str]) -> list[str]:
    """The known entity types a mistyped one may have meant: those it is a whole part of (EMAIL ->
    EMAIL_ADDRESS, which difflib's ratio ranks low for short names), then difflib's nearest (EMAIL_ADRESS ->
    EMAIL_ADDRESS, not also IP_ADDRESS: only names within 0.1 of the best ratio); at most 3."""
    key, known = name.strip().upper().replace(" ", "_"), sorted(known)
    parts = [k for k in known if key in k.split("_") or key == k]
    ratios = sorted(((difflib.SequenceMatcher(None, key, k).ratio(), k) for k in known), key=lambda rk: -rk[0])
    best = ratios[0][0] if ratios else 0.0
    near = [k for r, k in ratios if r >= max(0.5, best - 0.1)]
    return list(dict.fromkeys(parts + near))[:3]


def check_pii_policies(cfg: CleanConfig) -> None:
    """Raise ValueError naming each --pii-policy entity type the PII engine cannot report (with its close
    matches and the valid names): a policy for a type no recognizer emits would silently do nothing, and an
    unknown type only failed later, inside a worker. The default policies are the pii module's own (tested
    there), so a run that names no other type skips building the analyzer (a few seconds of model loading)."""
    if not cfg.pii_enabled:
        return
    named = sorted(set(cfg.pii.policies) | set(cfg.pii_keep))
    extra = [e for e in named if e not in pii_lib.DEFAULT_POLICIES]
    if not extra:
        return
    try:
        known = set(pii_lib.loaded_entities(cfg.pii.model))
    except OSError as e:  # the model is not on this machine: a remote run whose workers install it
        logging.getLogger(__name__).warning("--pii-policy names not checked here (%s); the workers will", e)
        return
    bad = [e for e in extra if e not in known]
    if bad:
        def hint(e):
            close = _close_names(e, known)
            return f"{e!r} (did you mean {' or '.join(close)}?)" if close else f"{e!r}"
        raise ValueError(f"--pii-policy: no PII recognizer reports {', '.join(hint(e) for e in bad)}; "
                         f"entity types of --pii-model {cfg.pii.model}: {', '.join(sorted(known))}")


def _local_path(path: str) -> str:
    """The absolute path of a local file (provenance joins must not depend on the working directory);
    URIs (gs://...) as given."""
    return path if "://" in path else os.path.abspath(path)


def expand_flag(flag: str, patterns: Iterable[str]) -> list[str]:
    """The sorted files matching `patterns`, absolute; a pattern matching nothing is a FileNotFoundError
    naming the option it came from."""
    files = []
    for pattern in patterns:
        try:
            files.extend(bio.expand_inputs([pattern]))
        except FileNotFoundError:
            raise FileNotFoundError(f"{flag}: no file matches {pattern!r}; check the path or glob") from None
    return sorted({_local_path(f) for f in files})


def resolve_sources(cfg: CleanConfig) -> tuple[list[str], list[dict]]:
    """(the input files, their sources allowed by the terms policy): --input files and those the sources file
    names, each under its source (eaglekit.sources); a refused source is a SourcesError naming its files.
    Reads nothing but the sources file and the file listings: the first check of a run."""
    declared = []
    if cfg.sources:
        for src in sources_lib.load_sources(cfg.sources):
            declared.append((src, expand_flag(f"--sources {cfg.sources} (source {src.name!r})", [src.path])))
    files = sorted(set(expand_flag("--input", cfg.inputs)) | {f for _, fs in declared for f in fs})
    resolved = sources_lib.resolve(files, declared, cfg.licence, lambda f: cfg.reader.source_name or source_stem(f))
    return files, sources_lib.check_terms(resolved, cfg.terms)


def prepare(cfg: CleanConfig, runner: str, beam_args) -> dict:
    """Everything checked before any work: the inputs' sources against the terms policy (first: a refused
    input stops the run before anything is read), the PII model and policies, the inputs and evaluation sets
    (present, known formats), and the inputs' checksums for the manifest."""
    from eaglekit import __version__
    from eaglekit.contract import arrow_schema

    files, sources = resolve_sources(cfg)

    model = cfg.pii.model
    local = bio.runs_locally(bio.pipeline_options(runner, beam_args))
    if cfg.pii_enabled and local and not (os.path.isdir(model) or model.startswith("blank:")):
        # here, not deep in a worker's setup: a missing model is a typo or an install step, not a traceback
        # (remote workers may have models this machine lacks)
        from eaglekit.doctor import check_spacy_model
        check = check_spacy_model(model)
        if check.status == "fail":
            raise ValueError(f"--pii-model: {check.detail}; fix: {check.fix}, or pass the model's folder")
    check_pii_policies(cfg)
    eval_files = expand_flag("--decontaminate", cfg.decontaminate)
    for f in files + eval_files:
        file_format(f)  # unknown extensions stop the run here, naming the file
    # local multi-process workers are forked with Beam imported, and the PII step's from a process that
    # built the PII engine once (forkserver.py); their own loading in the background is then not needed
    warm = WarmWorkers(functools.partial(warm_filter, cfg.pii), (PII_STEP,)) if cfg.pii_enabled else WarmWorkers()
    names = {f: s["name"] for s in sources for f in s["files"]}
    return {"files": files, "eval_files": eval_files, "checksums": {f: file_sha256(f, FileSystems.open) for f in files},
            "schema": arrow_schema("prompt", {"eaglekit_version": __version__,
                                              "sources": sources_lib.carried(sources)}),
            "warm_workers": warm, "options": _options(cfg), "sources": sources, "names": names}


def _build(p, cfg: CleanConfig, prep: dict, staging: str) -> None:
    build_pipeline(p, cfg, prep["files"], prep["eval_files"], prep["checksums"], staging, prep["schema"],
                   prewarm_pii=not isinstance(p.runner, ForkingFnApiRunner), names=prep["names"])


def _rows_out(outputs: list[str], fmt: str) -> dict[str, int]:
    """Prompts written per input file (their provenance), from the finished output files."""
    out: dict[str, int] = {}
    for path in outputs:
        name = os.path.basename(path)
        if fmt == "parquet" and name.startswith("prompts") and name.endswith(".parquet"):
            rows = (r["provenance"]["file"] for r in bio.parquet_records(path, columns=["provenance"]))
        elif fmt == "jsonl" and name.startswith("prompts") and name.endswith(".jsonl"):
            rows = (json.loads(line)["provenance"]["file"] for line in bio.read_text(path).splitlines() if line)
        else:
            continue
        for f in rows:
            out[f] = out.get(f, 0) + 1
    return out


def source_counts(prep: dict, events: dict[str, int], outputs: list[str], fmt: str) -> tuple[list[dict], list[dict]]:
    """(the manifest's inputs, its sources): each input file with its sha256, source and rows (records) in
    and prompts out, and each source with its files and their totals."""
    out = _rows_out(outputs, fmt)
    inputs = [{"file": f, "sha256": prep["checksums"][f], "source": prep["names"][f],
               "rows_in": int(events.get(f"input/{i}/in", 0)), "rows_out": out.get(f, 0)}
              for i, f in enumerate(prep["files"])]
    by_file = {i["file"]: i for i in inputs}
    sources = []
    for s in prep["sources"]:
        files = [{k: by_file[f][k] for k in ("file", "sha256", "rows_in", "rows_out")} for f in s["files"]]
        sources.append({**sources_lib.carried([s])[0], "files": files,
                        "rows_in": sum(f["rows_in"] for f in files), "rows_out": sum(f["rows_out"] for f in files)})
    return inputs, sources


def tally(cfg: CleanConfig, prep: dict, staging: str, info) -> Tally:
    """Per-step counts from the summed count events (then removed), and the manifest's clean keys."""
    event_files = bio.list_files(FileSystems.join(staging, "_events*"))
    events = _sum_events(json.loads(line) for path in event_files for line in bio.read_text(path).splitlines() if line)
    FileSystems.delete(event_files)
    stages, pii = counts_from_events(events)
    if stages["read"]["in"] == 0:
        # nothing read is a wrong path or a failed export upstream, not an empty prompt set to publish
        files = prep["files"]
        named = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        raise ValueError(f"clean: the inputs hold no records ({named}); check --input and the export that "
                         f"wrote them")
    for a, b in zip(STAGES, STAGES[1:]):
        if stages[a]["out"] != stages[b]["in"]:
            raise AssertionError(f"stage {b!r} saw {stages[b]['in']} prompts but {a!r} passed {stages[a]['out']}")
    outputs = bio.list_files(FileSystems.join(staging, "*"))
    inputs, sources = source_counts(prep, events, outputs, cfg.output_format)
    if sum(s["rows_in"] for s in sources) != stages["read"]["in"] or \
            sum(s["rows_out"] for s in sources) != stages["pii"]["out"]:
        raise AssertionError(f"per-source rows do not add up to the run's: {sources} vs read in "
                             f"{stages['read']['in']}, out {stages['pii']['out']}")
    dropped: dict[str, int] = {}
    for c in stages.values():
        for reason, n in c["dropped"].items():
            dropped[reason] = dropped.get(reason, 0) + n
    return Tally(stages, stages["read"]["in"], stages["pii"]["out"], dropped,
                 # only unreadable records count as errors: duplicates, contamination and PII drops are the
                 # stage working
                 count_reasons={r for s in ("read", "extract") for r in stages[s]["dropped"]},
                 manifest={"inputs": inputs, "sources": sources,
                           "decontaminate_sets": prep["eval_files"],
                           "counts": {"records_in": stages["read"]["in"], "prompts_in": stages["extract"]["in"],
                                      "prompts_out": stages["pii"]["out"], "dropped": dict(sorted(dropped.items()))},
                           "pii_entities": pii,
                           "files": [os.path.basename(o) for o in outputs]})


def _summary(m: dict) -> str:
    c = m["counts"]
    return (f"{c['records_in']} records, {c['prompts_in']} prompts in, {c['prompts_out']} out; "
            f"dropped {json.dumps(c['dropped'])}")


CLEAN = Stage(STAGE, "clean", CleanConfig, prepare, _build, tally, _summary)


def run_clean(cfg: CleanConfig, runner: str = "DirectRunner", beam_args: Iterable[str] = ()) -> dict:
    """Run the clean pipeline and return the manifest (also written to `<output>/manifest.json`)."""
    return run_stage(CLEAN, cfg, runner, beam_args)
