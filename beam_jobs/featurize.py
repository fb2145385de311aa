"""`eaglekit beam run featurize`: one target forward pass over each conversation's exact ids, capturing
the three aux-layer hidden states and the teacher signal, written as Arrow feature shards.

Input: a generate output dir (`conversations-*.parquet`). Output: `shard-*.arrow` + `manifest.json`
(eaglekit.shards layout) and `dead_letters-*.jsonl`, staged then renamed into place.

What is captured: aux states are HF `output_hidden_states[i]` for the hf-convention ids
(input of decoder layer i, residual stream before any norm; id == L is the last layer's output before
the final norm, which HF itself returns *after* the norm, so it is taken from a hook instead).
Teacher: `final_hidden_prenorm` (hook on the final norm's input), `final_hidden_postnorm` (the model's
last_hidden_state, after the norm) or `topk_logprobs` (top-k of the full-vocab log-softmax).

How it keeps up with the forward: the model step encodes each forward batch on the device (storage
dtypes, NaN/Inf flags) and copies only those bytes to the host (pinned, on a side stream); the write step
runs the shard writer in a background thread (featurize_writer), so Arrow, compression, checksums and file
writes overlap the next forward. Each phase's time is a Beam metric and ends up in the manifest's
`throughput` and one stderr line (featurize_phases).
"""
from __future__ import annotations

import json
import os
import shutil
from typing import Literal, Sequence, get_args

import apache_beam as beam
import torch

from beam_jobs import io as bio
from beam_jobs.stage import Stage, Tally, run_stage
from eaglekit import __version__
from eaglekit.chat import join_turns
from eaglekit.config import DTYPES, ConfigError, config, setting
from eaglekit.contract import features_metadata, require_same, validate_schema
from eaglekit.sources import from_metadata

STAGE = "featurize"
Teacher = Literal["final_hidden_prenorm", "final_hidden_postnorm", "topk_logprobs"]
TEACHERS = get_args(Teacher)
CODEC_ALIASES = {"bf16": "bf16", "fp8": "fp8_e4m3", "fp8_e4m3": "fp8_e4m3"}


@config
class FeaturizeConfig:
    input: str = setting(help="Generate output dir (conversations-*.parquet) or a glob of such files.")
    output: str = setting(help="Output dir for shard-*.arrow + manifest.json.")
    target: str = setting("embedded", "Target spec; the model that generated the conversations.")
    aux_layer_ids: tuple[int, ...] | None = setting(None, "Three comma-separated layer ids (default: EAGLE-3's).",
                                                    flag="--aux-layers")
    aux_layer_convention: Literal["hf", "sglang"] = setting("hf", "Convention of the aux layer ids given here (hf = output_hidden_states "
                                              "index; sglang = hf - 1); shards store hf.",
                                        flag="--aux-convention")
    hidden_codec: Literal["bf16", "fp8", "fp8_e4m3"] = setting("bf16", "bf16, or fp8 (e4m3 + a per-token scale).",
                                                               flag="--codec")
    teacher: Teacher = setting("final_hidden_prenorm", "What the head learns from.")
    topk: int = setting(32, "Log-probs kept per position (teacher topk_logprobs).", ge=1)
    max_length: int = setting(2048, "Longest row in tokens.", ge=1)
    overflow: Literal["truncate", "drop"] = setting("truncate", "Rows longer than max_length: truncate or drop.")
    batch_tokens: int = setting(4096, "Padded tokens per forward pass.", ge=1)
    max_shard_tokens: int | None = setting(None, "Tokens per shard (default: ~256 MB of features per shard).", ge=1)
    compression: Literal["auto", "zstd", "none"] | None = setting("auto", "Shard compression (none: off).")
    dtype: DTYPES = setting("float32", "Model dtype.")
    device: str = setting("cpu", "cpu or cuda.")
    accelerator: str | None = setting(None, "Beam resource hint for the model step (Dataflow GPU workers), e.g. "
                                            "type:nvidia-l4;count:1;install-nvidia-driver.", cli=False)
    max_dead_letter_share: float = setting(0.5, "Fail (exit 1) when more than this share of conversations become dead "
                                                "letters (1: never); a run that writes no rows from a non-empty input "
                                                "always fails.", ge=0.0, le=1.0)

    def __post_init__(self):
        if self.compression == "none":  # the CLI's and YAML's word for no compression
            self.compression = None

    def codec(self) -> str:
        return CODEC_ALIASES[self.hidden_codec]


# ---------------------------------------------------------------------------------------------
# Rows and the forward pass (plain functions: the pipeline and bench/featurize.py share them)

def conversation_row(rec: dict, max_length: int, overflow: str) -> dict:
    """{"row": {...ids, mask, truncated}} or {"dead": reason/detail} for one conversation record."""
    turns = rec.get("turns") or []
    r = join_turns([t["prompt_ids"] for t in turns], [t["response_ids"] for t in turns])
    ids, mask, truncated = r.input_ids, r.loss_mask, False
    if len(ids) > max_length:
        if overflow == "drop":
            return {"dead": bio.dead_letter(STAGE, "too_long", rec.get("id"), detail=f"{len(ids)} tokens > "
                                        f"--max-length {max_length} (use --overflow truncate to keep a prefix)")}
        ids, mask, truncated = ids[:max_length], mask[:max_length], True
    if not any(mask):
        return {"dead": bio.dead_letter(STAGE, "no_supervised_tokens", rec.get("id"),
                                    detail=f"{len(ids)} tokens, none from a response (after truncation)")}
    return {"row": {"id": rec["id"], "source": rec["source"], "category": rec.get("category"),
                    "input_ids": ids, "loss_mask": mask, "truncated": truncated}}


class FeatureExtractor:
    """Runs the target over batches of rows and returns rows with their aux/teacher features attached:
    `encoded(rows)` in storage form, encoded on the device (what the featurize job writes), or
    `rows(...)`/`__call__` with float tensors (the reference the storage form is checked against)."""

    def __init__(self, target, aux_hf: Sequence[int], teacher: str, topk: int = 32, batch_tokens: int = 4096,
                 codec: str = "bf16"):
        self.target, self.model = target, target.model
        self.aux_hf, self.teacher, self.topk, self.batch_tokens = tuple(aux_hf), teacher, int(topk), batch_tokens
        self.codec = CODEC_ALIASES.get(codec, codec)
        self.L = int(target.config.num_hidden_layers)
        self.pad_id = int(target.tokenizer.pad_token_id or 0)
        self.device = self.model.device
        # device->host copies run on their own stream, so batch N's copy overlaps batch N+1's forward
        self._copy_stream = torch.cuda.Stream(self.device) if self.device.type == "cuda" else None
        self._prenorm = None
        self.model.model.norm.register_forward_pre_hook(self._capture_prenorm)

    def _capture_prenorm(self, module, args):
        self._prenorm = args[0]

    def capture(self, ids: torch.Tensor, attn: torch.Tensor) -> tuple[dict[str, torch.Tensor], torch.Tensor]:
        """The target body's forward: ({"aux_low/mid/high": [B,S,H], "teacher_hidden" for the hidden teachers},
        the last hidden state after the final norm)."""
        with torch.no_grad():
            out = self.model.model(input_ids=ids, attention_mask=attn, output_hidden_states=True, use_cache=False)
        prenorm, self._prenorm = self._prenorm, None
        hs = out.hidden_states
        res = {name: (prenorm if i == self.L else hs[i])
               for name, i in zip(("aux_low", "aux_mid", "aux_high"), self.aux_hf)}
        if self.teacher == "final_hidden_prenorm":
            res["teacher_hidden"] = prenorm
        elif self.teacher == "final_hidden_postnorm":
            res["teacher_hidden"] = out.last_hidden_state
        return res, out.last_hidden_state

    def topk_teacher(self, last_hidden: torch.Tensor) -> dict[str, torch.Tensor]:
        """{"topk_logprobs", "topk_ids"} [B,S,k]: top-k of the logits minus their logsumexp = top-k of the
        log-softmax, without writing a full [B,S,V] log-softmax (the vocab axis dominates this path's cost)."""
        with torch.no_grad():
            logits = self.model.lm_head(last_hidden).float()
            values, ids = logits.topk(self.topk, dim=-1)
            return {"topk_logprobs": values - torch.logsumexp(logits, dim=-1, keepdim=True), "topk_ids": ids}

    def forward(self, ids: torch.Tensor, attn: torch.Tensor) -> dict[str, torch.Tensor]:
        """Batched capture: {"aux_low/mid/high": [B,S,H], "teacher_hidden" [B,S,H] | "topk_ids"/"topk_logprobs" [B,S,k]}."""
        res, last = self.capture(ids, attn)
        if self.teacher == "topk_logprobs":
            res.update(self.topk_teacher(last))
        return res

    def batches(self, rows: Sequence[dict]) -> list[list[dict]]:
        """Rows sorted by length and cut so each padded batch holds <= batch_tokens tokens."""
        out, cur, width = [], [], 0
        for row in sorted(rows, key=lambda r: len(r["input_ids"])):
            w = max(width, len(row["input_ids"]))
            if cur and w * (len(cur) + 1) > self.batch_tokens:
                out.append(cur)
                cur, w = [], len(row["input_ids"])
            cur.append(row)
            width = w
        if cur:
            out.append(cur)
        return out

    def collate(self, batch: Sequence[dict]) -> tuple[torch.Tensor, torch.Tensor]:
        """Right-padded ids and attention mask on the model's device (positions of real tokens are 0..S-1)."""
        width = max(len(r["input_ids"]) for r in batch)
        ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        attn = torch.zeros((len(batch), width), dtype=torch.long)
        for i, r in enumerate(batch):
            ids[i, : len(r["input_ids"])] = torch.tensor(r["input_ids"], dtype=torch.long)
            attn[i, : len(r["input_ids"])] = 1
        if self.device.type == "cuda":
            ids, attn = ids.pin_memory(), attn.pin_memory()
        return ids.to(self.device, non_blocking=True), attn.to(self.device, non_blocking=True)

    def __call__(self, rows: Sequence[dict]) -> list[dict]:
        """Feature rows with float tensors attached (sorted by length, not in input order)."""
        results = []
        for batch in self.batches(rows):
            feats = self.forward(*self.collate(batch))
            for i, r in enumerate(batch):
                S = len(r["input_ids"])
                row = dict(r)
                for name, t in feats.items():
                    row[name] = t[i, :S].cpu() if name == "topk_ids" else t[i, :S].float().cpu()
                results.append(row)
        return results

    def encoded(self, rows: Sequence[dict], clock=None) -> list[dict]:
        """Rows in storage form (`ShardWriter.add_encoded`), sorted by length, each with "nonfinite": the
        first captured tensor holding NaN/Inf, or None. The codec and top-k math runs on the device over
        whole batches, so only storage bytes cross to the host (into pinned buffers, on a side stream,
        while the next batch's forward runs); `clock` (featurize_phases.PhaseClock) times each phase."""
        from beam_jobs.featurize_phases import PhaseClock
        clock = clock or PhaseClock(self.device)
        landed = []
        for batch in self.batches(rows):
            with clock.phase("collate", host=True):
                ids, attn = self.collate(batch)
            with clock.phase("forward"):
                feats, last = self.capture(ids, attn)
            if self.teacher == "topk_logprobs":
                with clock.phase("teacher"):
                    feats.update(self.topk_teacher(last))
            with clock.phase("encode"):
                enc = encode_batch(feats, attn, self.codec)
            landed.append((batch, *self._to_host(enc, clock)))
        out = []
        for batch, host, done in landed:
            with clock.phase("rows", host=True):
                if done is not None:
                    done.synchronize()
                out.extend(storage_rows(batch, host))
        return out

    def _to_host(self, enc: dict[str, torch.Tensor], clock) -> tuple[dict[str, torch.Tensor], object]:
        """(host tensors, event to wait on before reading them); on the CPU the tensors already are."""
        if self._copy_stream is None:
            return enc, None
        stream = self._copy_stream
        stream.wait_stream(torch.cuda.current_stream(self.device))
        host = {}
        with torch.cuda.stream(stream), clock.phase("copy"):
            for name, t in enc.items():
                host[name] = torch.empty(t.shape, dtype=t.dtype, pin_memory=True)
                host[name].copy_(t, non_blocking=True)
                t.record_stream(stream)  # the compute stream must not reuse t's memory before the copy ran
        done = torch.cuda.Event()
        done.record(stream)
        return host, done


CHECKED = ("aux_low", "aux_mid", "aux_high", "teacher_hidden")  # a NaN/Inf here makes the row a dead letter


def encode_hidden_on_device(x: torch.Tensor, codec: str) -> tuple[torch.Tensor, torch.Tensor | None]:
    """codecs.encode_hidden's math on a [..., H] tensor where it lies: (bits as int16 / uint8, per-token
    float32 scale for fp8 or None). Same bits as encoding each row on the host (tested)."""
    from eaglekit.codecs import FP8_MAX
    if codec == "bf16":
        return x.to(torch.bfloat16).view(torch.int16), None
    xf = x.float()
    scale = (xf.abs().amax(dim=-1, keepdim=True) / FP8_MAX).clamp_min(1e-12)
    return (xf / scale).to(torch.float8_e4m3fn).view(torch.uint8), scale.squeeze(-1)


def encode_batch(feats: dict[str, torch.Tensor], attn: torch.Tensor, codec: str) -> dict[str, torch.Tensor]:
    """A forward batch's features in storage dtypes, named as the shard columns, plus "nonfinite" [B, n]:
    which of CHECKED (those present) hold NaN/Inf at a real (unpadded) position of each row."""
    valid = attn.bool()
    checked = [n for n in CHECKED if n in feats]
    out = {"nonfinite": torch.stack([((~torch.isfinite(feats[n])).any(-1) & valid).any(-1) for n in checked], -1)}
    for name in checked:
        out[name], scale = encode_hidden_on_device(feats[name], codec)
        if scale is not None:
            out[f"{name}_scale"] = scale
    if "topk_ids" in feats:
        out["teacher_topk_ids"] = feats["topk_ids"].to(torch.int32)
        out["teacher_topk_logprobs"] = feats["topk_logprobs"].to(torch.float16)
    return out


def storage_rows(batch: Sequence[dict], host: dict[str, torch.Tensor]) -> list[dict]:
    """One storage row per record of the batch: views of the batch's host arrays cut to the row's length."""
    import numpy as np
    arrays = {name: t.numpy() for name, t in host.items()}
    nonfinite = arrays.pop("nonfinite")
    checked = [n for n in CHECKED if n in arrays]
    for name, a in arrays.items():
        if a.dtype == np.int16:  # bf16 bits: the shards store them as uint16
            arrays[name] = a.view(np.uint16)
    rows = []
    for i, r in enumerate(batch):
        S = len(r["input_ids"])
        bad = [n for n, flag in zip(checked, nonfinite[i]) if flag]
        row = {"id": str(r["id"]), "source": str(r.get("source", "")), "category": r.get("category"),
               "truncated": bool(r.get("truncated")), "nonfinite": bad[0] if bad else None,
               "input_ids": np.asarray(r["input_ids"], dtype=np.int32),
               "loss_mask": np.asarray(r["loss_mask"], dtype=np.uint8)}
        for name, a in arrays.items():
            row[name] = a[i, :S]
        rows.append(row)
    return rows


def feature_meta(target, cfg: FeaturizeConfig, sources=None) -> dict:
    """The shards' schema metadata; `sources`: those of the conversations (eaglekit.sources), so a shard says
    which terms its rows fall under."""
    c = target.config
    return features_metadata(target.metadata(), num_hidden_layers=c.num_hidden_layers, hidden_size=c.hidden_size,
                             vocab_size=c.vocab_size, hidden_codec=cfg.codec(), teacher_kind=cfg.teacher,
                             teacher_topk=cfg.topk, max_length=cfg.max_length, eaglekit_version=__version__,
                             aux_layer_ids=cfg.aux_layer_ids, aux_layer_convention=cfg.aux_layer_convention,
                             sources=sources)


# ---------------------------------------------------------------------------------------------
# Beam pieces

def _load_extractor(cfg: FeaturizeConfig) -> FeatureExtractor:
    from eaglekit.config import torch_dtype
    from eaglekit.models import load_target
    target = load_target(cfg.target, dtype=torch_dtype(cfg.dtype), device=cfg.device)
    meta = feature_meta(target, cfg)
    return FeatureExtractor(target, meta["aux_layer_ids"], cfg.teacher, cfg.topk, cfg.batch_tokens, cfg.codec())


def _run_extractor(batch, extractor: FeatureExtractor, cfg):
    """The model step: storage rows, or dead letters (the whole batch on a forward error, a row with
    NaN/Inf in its captured states); each phase's time goes to the Beam metrics."""
    from beam_jobs import featurize_phases
    clock = featurize_phases.PhaseClock(extractor.device)
    try:
        rows = extractor.encoded(batch, clock)
    except Exception as err:  # noqa: BLE001 - the batch's records become dead letters with the reason
        return [{"dead": bio.dead_letter(STAGE, "forward_error", r["id"], detail=f"{type(err).__name__}: {err}")}
                for r in batch]
    featurize_phases.publish("model", clock.settle(), tokens=sum(len(r["input_ids"]) for r in rows))
    out = []
    for row in rows:
        bad = row.pop("nonfinite")
        out.append({"dead": bio.dead_letter(STAGE, "nonfinite_hidden", row["id"], detail=f"NaN/Inf in {bad}")}
                   if bad else {"row": row})
    return out


class WriteShardsFn(beam.DoFn):
    """Writes a bundle's rows into its own shards; the bundle's shard list goes to `.parts/` last, so
    shards of a failed (retried) bundle are never listed. On a local staging folder the shards are written
    in place; on an object store (gs://) into the worker's temp folder first, then copied up whole.

    The shard writer runs in a background thread (featurize_writer), so when this step is fused with the
    model step (DirectRunner, and Dataflow where both run on one worker) the next forward runs while the
    writer encodes, compresses and writes; `max_pending_tokens` (two forward batches) bounds what waits.
    A writer failure fails the bundle with the shard and row named; rows given = rows in its shards."""

    def __init__(self, staging: str, meta: dict, max_shard_tokens, compression, max_pending_tokens: int = 8192):
        self.staging, self.meta = staging, meta
        self.max_shard_tokens, self.compression = max_shard_tokens, compression
        self.max_pending_tokens = max_pending_tokens
        self.writer = None

    def start_bundle(self):
        import tempfile

        from beam_jobs.featurize_writer import BackgroundShardWriter
        from eaglekit.shards import ShardWriter
        self.local_dir = self.staging if bio.is_local(self.staging) else tempfile.mkdtemp(prefix="eaglekit-shards-")
        self.writer = BackgroundShardWriter(
            ShardWriter(self.local_dir, self.meta, self.max_shard_tokens, compression=self.compression),
            self.max_pending_tokens)
        self.truncated = 0

    def process(self, row):
        self.truncated += int(bool(row.get("truncated")))
        self.writer.add(row)

    def finish_bundle(self):
        import time

        from apache_beam.io.filesystems import FileSystems

        from beam_jobs import featurize_phases
        writer, self.writer = self.writer, None
        shards = writer.close()
        written = sum(s["rows"] for s in shards)
        if written != writer.rows_in:  # the counts check would catch it too, but later and without the cause
            raise RuntimeError(f"the shard writer was given {writer.rows_in} rows and wrote {written}")
        t0 = time.perf_counter()
        if self.local_dir != self.staging:  # upload the finished shards, then forget the local copies
            for shard in shards:
                local = os.path.join(self.local_dir, shard["file"])
                with open(local, "rb") as src, FileSystems.create(FileSystems.join(self.staging, shard["file"])) as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            shutil.rmtree(self.local_dir, ignore_errors=True)
        featurize_phases.publish("writer", {**writer.seconds, "upload": time.perf_counter() - t0})
        featurize_phases.publish("model", {"wait": writer.wait_s})
        bio.write_json(FileSystems.join(self.staging, ".parts", f"{writer.writer.tag}.json"),
                      {"shards": shards, "truncated": self.truncated})

    def teardown(self):
        if self.writer is not None:  # a bundle that failed: stop its writer thread, drop its open shard
            self.writer.abort()
            self.writer = None


def conversation_files(path: str) -> list[str]:
    files = bio.stage_files(path, "conversations-*.parquet")
    if not files:
        raise ConfigError(f"no conversations-*.parquet under {path!r}: point --input at a generate "
                          f"output dir (eaglekit beam run generate --output DIR)")
    return files


def check_inputs(files: list[str], target_meta: dict, metas: list | None = None) -> int:
    """Validate each conversation file against the contract and the target; return the row count. `metas`:
    a list that receives each file's schema metadata."""
    n = 0
    for f in files:
        meta = validate_schema(bio.parquet_schema(f), "conversation", where=f)
        require_same(target_meta, meta, ("tokenizer_hash", "chat_template_hash"), where=f,
                     fix="featurize with the target (and tokenizer) that generated these conversations (--target)")
        if metas is not None:
            metas.append(meta)
        n += bio.parquet_rows(f)
    return n


def _read(path: str):
    yield from bio.parquet_records(path, columns=["id", "source", "category", "turns"])


def prepare(cfg: FeaturizeConfig, runner, beam_args) -> dict:
    """The conversation files, checked against the contract and the target (tokenizer, template), their
    row count, the features metadata and the model step."""
    from beam_jobs.handlers import LoadOnceHandler
    from eaglekit.models import load_target
    files = conversation_files(cfg.input)
    target = load_target(cfg.target)
    metas: list = []
    count_in = check_inputs(files, target.metadata(), metas)
    meta = feature_meta(target, cfg, from_metadata(metas))
    del target
    handler = LoadOnceHandler(cfg, _load_extractor, _run_extractor, max_batch_size=64, namespace="eaglekit.featurize")
    return {"files": files, "meta": meta, "count_in": count_in, "handler": handler}


def _build(p, cfg: FeaturizeConfig, prep: dict, staging: str) -> None:
    build_pipeline(p, cfg, prep["files"], prep["handler"], prep["meta"], staging)


def build_pipeline(p, cfg: FeaturizeConfig, files: list[str], handler, meta: dict, staging: str) -> None:
    """The featurize job: read conversations -> rows -> the model step (RunInference; the only step with
    the GPU hint) -> shards and dead letters into `staging`."""
    from apache_beam.io.filesystems import FileSystems
    from apache_beam.ml.inference.base import RunInference
    prepared = (p | "Files" >> beam.Create(files) | "Read" >> beam.FlatMap(_read)
                | "Rows" >> beam.Map(conversation_row, cfg.max_length, cfg.overflow))
    rows = prepared | "Ok" >> beam.FlatMap(lambda r: [r["row"]] if "row" in r else [])
    model_step = RunInference(handler)
    if cfg.accelerator:  # only the model step asks for GPU workers; the rest stays on CPU
        model_step = model_step.with_resource_hints(accelerator=cfg.accelerator)
    results = rows | "Forward" >> model_step
    feats = results | "Feats" >> beam.FlatMap(lambda r: [r["row"]] if "row" in r else [])
    feats | "WriteShards" >> beam.ParDo(WriteShardsFn(staging, meta, cfg.max_shard_tokens, cfg.compression,
                                                      max_pending_tokens=2 * cfg.batch_tokens))
    dead = ((prepared | "Dead0" >> beam.FlatMap(lambda r: [r["dead"]] if "dead" in r else []),
             results | "Dead1" >> beam.FlatMap(lambda r: [r["dead"]] if "dead" in r else []))
            | beam.Flatten())
    (dead | "DeadJson" >> beam.Map(json.dumps)
     | "WriteDead" >> beam.io.WriteToText(FileSystems.join(staging, "dead_letters"), file_name_suffix=".jsonl"))


def tally(cfg: FeaturizeConfig, prep: dict, staging: str, info) -> Tally:
    """The shards the bundles listed (shards of a failed bundle, and the lists, removed), the rows and
    tokens in them, and the manifest's features keys (eaglekit.shards.build_manifest)."""
    from apache_beam.io.filesystems import FileSystems

    from beam_jobs import featurize_phases
    from eaglekit.shards import build_manifest
    phases = featurize_phases.query(info.result) if info.result is not None else {}
    shards, truncated = [], 0
    parts = bio.list_files(FileSystems.join(staging, ".parts", "*.json"))
    for part in parts:
        part_info = json.loads(bio.read_text(part))
        shards.extend(part_info["shards"])
        truncated += part_info["truncated"]
    listed = {s["file"] for s in shards}
    unlisted = [f for f in bio.list_files(FileSystems.join(staging, "shard-*.arrow"))
                + bio.list_files(FileSystems.join(staging, ".tmp-shard-*")) if FileSystems.split(f)[1] not in listed]
    if unlisted or parts:  # shards of a failed bundle are never part of the output; nor are the bundle lists
        FileSystems.delete(unlisted + parts)
    if bio.is_local(staging):
        shutil.rmtree(os.path.join(staging, ".parts"), ignore_errors=True)
    dropped = bio.tally_dead_letters(staging)
    out = sum(s["rows"] for s in shards)
    counts = {STAGE: bio.stage_counts(prep["count_in"], out, dropped)}
    files_out = [f[len(staging) + 1:] for f in bio.list_files(FileSystems.join(staging, "*"))]
    return Tally(counts, prep["count_in"], out, dropped, manifest=build_manifest(prep["meta"], shards, {
        "counts": counts, "truncated": truncated, "files": files_out, "sources": prep["meta"].get("sources", []),
        "throughput": throughput(sum(s["tokens"] for s in shards), info.seconds, phases)}))


def _summary(m: dict) -> str:
    c = m["counts"][STAGE]
    return (f"{c['in']} conversations -> {c['out']} rows, {m['num_tokens']} tokens in {len(m['shards'])} shard(s), "
            f"dropped {c['dropped']}, truncated {m['truncated']}")


def _done(manifest: dict) -> None:
    import sys
    print(manifest["throughput"]["summary"], file=sys.stderr)


FEATURIZE = Stage(STAGE, "features", FeaturizeConfig, prepare, _build, tally, _summary, _done)


def run_featurize(cfg: FeaturizeConfig, runner: str = "DirectRunner", beam_args=()) -> dict:
    """Run the featurize job; return the features manifest (also `<output>/manifest.json`)."""
    return run_stage(FEATURIZE, cfg, runner, beam_args)


def throughput(tokens: int, seconds: float, phases: dict) -> dict:
    """The manifest's "throughput": the run's wall time and tokens/s, seconds per phase of the model and
    writer threads (from the Beam metrics; featurize_phases), and the one-line summary printed at the end."""
    from beam_jobs import featurize_phases
    model = {k: round(v, 4) for k, v in phases.get("model", {}).items()}
    writer = {k: round(v, 4) for k, v in phases.get("writer", {}).items()}
    return {"seconds": round(seconds, 3), "tokens": tokens, "tokens_per_s": round(tokens / max(seconds, 1e-9), 2),
            "model_phases_s": model, "writer_phases_s": writer,
            "summary": featurize_phases.summary(tokens, seconds, model, writer)}
