"""`eaglekit beam run featurize`: one target forward pass over each conversation's exact ids, capturing
the three aux-layer hidden states and the teacher signal, written as Arrow feature shards.

Input: a generate output dir (`conversations-*.parquet`). Output: `shard-*.arrow` + `manifest.json`
(eaglekit.shards layout) and `dead_letters-*.jsonl`, staged then renamed into place.

What is captured: aux states are HF `output_hidden_states[i]` for the hf-convention ids
(input of decoder layer i, residual stream before any norm; id == L is the last layer's output before
the final norm, which HF itself returns *after* the norm, so it is taken from a hook instead).
Teacher: `final_hidden_prenorm` (hook on the final norm's input), `final_hidden_postnorm` (the model's
last_hidden_state, after the norm) or `topk_logprobs` (top-k of the full-vocab log-softmax).
"""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass
from typing import Sequence

import apache_beam as beam
import torch

from eaglekit import __version__
from eaglekit.chat import join_turns
from eaglekit.config import ConfigError, setting
from eaglekit.contract import features_metadata, require_same, validate_schema

STAGE = "featurize"
TEACHERS = ("final_hidden_prenorm", "final_hidden_postnorm", "topk_logprobs")
CODEC_ALIASES = {"bf16": "bf16", "fp8": "fp8_e4m3", "fp8_e4m3": "fp8_e4m3"}


@dataclass
class FeaturizeConfig:
    input: str = setting(help="Generate output dir (conversations-*.parquet) or a glob of such files.")
    output: str = setting(help="Output dir for shard-*.arrow + manifest.json.")
    target: str = setting("embedded", "Target spec; the model that generated the conversations.")
    aux_layer_ids: tuple[int, ...] | None = setting(None, "Three comma-separated layer ids (default: EAGLE-3's).",
                                                    flag="--aux-layers")
    aux_layer_convention: str = setting("hf", "Convention of the aux layer ids given here (hf = output_hidden_states "
                                              "index; sglang = hf - 1); shards store hf.",
                                        choices=("hf", "sglang"), flag="--aux-convention")
    hidden_codec: str = setting("bf16", "bf16, or fp8 (e4m3 + a per-token scale).", choices=("bf16", "fp8"),
                                flag="--codec")
    teacher: str = setting("final_hidden_prenorm", "What the head learns from.", choices=TEACHERS)
    topk: int = setting(32, "Log-probs kept per position (teacher topk_logprobs).")
    max_length: int = setting(2048, "Longest row in tokens.")
    overflow: str = setting("truncate", "Rows longer than max_length: truncate or drop.", choices=("truncate", "drop"))
    batch_tokens: int = setting(4096, "Padded tokens per forward pass.")
    max_shard_tokens: int | None = setting(None, "Tokens per shard (default: ~256 MB of features per shard).")
    compression: str | None = setting("auto", "Shard compression (none: off).", choices=("auto", "zstd", "none"))
    dtype: str = setting("float32", "Model dtype.")
    device: str = setting("cpu", "cpu or cuda.")
    accelerator: str | None = setting(None, "Beam resource hint for the model step (Dataflow GPU workers), e.g. "
                                            "type:nvidia-l4;count:1;install-nvidia-driver.", cli=False)
    max_dead_letter_share: float = setting(0.5, "Fail (exit 1) when more than this share of conversations become dead "
                                                "letters (1: never); a run that writes no rows from a non-empty input "
                                                "always fails.", low=0.0, high=1.0)

    def __post_init__(self):
        if self.compression == "none":  # the CLI's and YAML's word for no compression
            self.compression = None

    def codec(self) -> str:
        if self.hidden_codec not in CODEC_ALIASES:
            raise ConfigError(f"--codec must be bf16 or fp8, got {self.hidden_codec!r}")
        return CODEC_ALIASES[self.hidden_codec]

    def check(self) -> None:
        self.codec()
        if self.teacher not in TEACHERS:
            raise ConfigError(f"--teacher must be one of {', '.join(TEACHERS)}, got {self.teacher!r}")
        if self.overflow not in ("truncate", "drop"):
            raise ConfigError(f"--overflow must be truncate or drop, got {self.overflow!r}")
        if self.teacher == "topk_logprobs" and self.topk < 1:
            raise ConfigError("--topk must be >= 1")
        if not 0.0 <= self.max_dead_letter_share <= 1.0:
            raise ConfigError(f"--max-dead-letter-share must be within [0, 1], got {self.max_dead_letter_share}")


# ---------------------------------------------------------------------------------------------
# Rows and the forward pass (plain functions: the pipeline and bench/featurize.py share them)

def conversation_row(rec: dict, max_length: int, overflow: str) -> dict:
    """{"row": {...ids, mask, truncated}} or {"dead": reason/detail} for one conversation record."""
    from beam_jobs.io import dead_letter
    turns = rec.get("turns") or []
    r = join_turns([t["prompt_ids"] for t in turns], [t["response_ids"] for t in turns])
    ids, mask, truncated = r.input_ids, r.loss_mask, False
    if len(ids) > max_length:
        if overflow == "drop":
            return {"dead": dead_letter(STAGE, "too_long", rec.get("id"), detail=f"{len(ids)} tokens > "
                                        f"--max-length {max_length} (use --overflow truncate to keep a prefix)")}
        ids, mask, truncated = ids[:max_length], mask[:max_length], True
    if not any(mask):
        return {"dead": dead_letter(STAGE, "no_supervised_tokens", rec.get("id"),
                                    detail=f"{len(ids)} tokens, none from a response (after truncation)")}
    return {"row": {"id": rec["id"], "source": rec["source"], "category": rec.get("category"),
                    "input_ids": ids, "loss_mask": mask, "truncated": truncated}}


class FeatureExtractor:
    """Runs the target over batches of rows and returns rows with aux/teacher tensors attached."""

    def __init__(self, target, aux_hf: Sequence[int], teacher: str, topk: int = 32, batch_tokens: int = 4096):
        self.target, self.model = target, target.model
        self.aux_hf, self.teacher, self.topk, self.batch_tokens = tuple(aux_hf), teacher, int(topk), batch_tokens
        self.L = int(target.config.num_hidden_layers)
        self.pad_id = int(target.tokenizer.pad_token_id or 0)
        self._prenorm = None
        self.model.model.norm.register_forward_pre_hook(self._capture)

    def _capture(self, module, args):
        self._prenorm = args[0]

    def forward(self, ids: torch.Tensor, attn: torch.Tensor) -> dict[str, torch.Tensor]:
        """Batched capture: {"aux_low/mid/high": [B,S,H], "teacher_hidden" [B,S,H] | "topk_ids"/"topk_logprobs" [B,S,k]}."""
        with torch.no_grad():
            out = self.model.model(input_ids=ids, attention_mask=attn, output_hidden_states=True, use_cache=False)
            prenorm = self._prenorm
            hs = out.hidden_states
            res = {name: (prenorm if i == self.L else hs[i])
                   for name, i in zip(("aux_low", "aux_mid", "aux_high"), self.aux_hf)}
            if self.teacher == "final_hidden_prenorm":
                res["teacher_hidden"] = prenorm
            elif self.teacher == "final_hidden_postnorm":
                res["teacher_hidden"] = out.last_hidden_state
            else:
                # top-k of the logits minus their logsumexp = top-k of the log-softmax, without
                # writing a full [B,S,V] log-softmax (the vocab axis dominates this path's cost)
                logits = self.model.lm_head(out.last_hidden_state).float()
                values, ids = logits.topk(self.topk, dim=-1)
                res["topk_logprobs"] = values - torch.logsumexp(logits, dim=-1, keepdim=True)
                res["topk_ids"] = ids
        self._prenorm = None
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

    def __call__(self, rows: Sequence[dict]) -> list[dict]:
        """Feature rows with tensors attached (sorted by length, not in input order)."""
        results = []
        device = self.model.device
        for batch in self.batches(rows):
            width = max(len(r["input_ids"]) for r in batch)
            ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
            attn = torch.zeros((len(batch), width), dtype=torch.long)
            for i, r in enumerate(batch):  # right padding: positions of real tokens are 0..S-1
                ids[i, : len(r["input_ids"])] = torch.tensor(r["input_ids"], dtype=torch.long)
                attn[i, : len(r["input_ids"])] = 1
            feats = self.forward(ids.to(device), attn.to(device))
            for i, r in enumerate(batch):
                S = len(r["input_ids"])
                row = dict(r)
                for name, t in feats.items():
                    row[name] = t[i, :S].cpu() if name == "topk_ids" else t[i, :S].float().cpu()
                results.append(row)
        return results


def nonfinite(row: dict) -> str | None:
    for name in ("aux_low", "aux_mid", "aux_high", "teacher_hidden"):
        t = row.get(name)
        if t is not None and not torch.isfinite(t).all():
            return name
    return None


def feature_meta(target, cfg: FeaturizeConfig) -> dict:
    c = target.config
    return features_metadata(target.metadata(), num_hidden_layers=c.num_hidden_layers, hidden_size=c.hidden_size,
                             vocab_size=c.vocab_size, hidden_codec=cfg.codec(), teacher_kind=cfg.teacher,
                             teacher_topk=cfg.topk, max_length=cfg.max_length, eaglekit_version=__version__,
                             aux_layer_ids=cfg.aux_layer_ids, aux_layer_convention=cfg.aux_layer_convention)


# ---------------------------------------------------------------------------------------------
# Beam pieces

def _load_extractor(cfg: FeaturizeConfig) -> FeatureExtractor:
    from eaglekit.config import torch_dtype
    from eaglekit.models import load_target
    target = load_target(cfg.target, dtype=torch_dtype(cfg.dtype), device=cfg.device)
    meta = feature_meta(target, cfg)
    return FeatureExtractor(target, meta["aux_layer_ids"], cfg.teacher, cfg.topk, cfg.batch_tokens)


def _run_extractor(batch, extractor: FeatureExtractor, cfg):
    from beam_jobs.io import dead_letter
    try:
        rows = extractor(batch)
    except Exception as err:  # noqa: BLE001 - the batch's records become dead letters with the reason
        return [{"dead": dead_letter(STAGE, "forward_error", r["id"], detail=f"{type(err).__name__}: {err}")}
                for r in batch]
    out = []
    for row in rows:
        bad = nonfinite(row)
        out.append({"dead": dead_letter(STAGE, "nonfinite_hidden", row["id"], detail=f"NaN/Inf in {bad}")}
                   if bad else {"row": row})
    return out


class WriteShardsFn(beam.DoFn):
    """Writes a bundle's rows into its own shards; the bundle's shard list goes to `.parts/` last, so
    shards of a failed (retried) bundle are never listed. On a local staging folder the shards are written
    in place; on an object store (gs://) into the worker's temp folder first, then copied up whole."""

    def __init__(self, staging: str, meta: dict, max_shard_tokens, compression):
        self.staging, self.meta = staging, meta
        self.max_shard_tokens, self.compression = max_shard_tokens, compression

    def start_bundle(self):
        import tempfile

        from beam_jobs.io import is_local
        from eaglekit.shards import ShardWriter
        self.local_dir = self.staging if is_local(self.staging) else tempfile.mkdtemp(prefix="eaglekit-shards-")
        self.writer = ShardWriter(self.local_dir, self.meta, self.max_shard_tokens, compression=self.compression)
        self.truncated = 0

    def process(self, row):
        self.truncated += int(bool(row.get("truncated")))
        self.writer.add(row)

    def finish_bundle(self):
        from apache_beam.io.filesystems import FileSystems

        from beam_jobs import io
        shards = self.writer.close()
        if self.local_dir != self.staging:  # upload the finished shards, then forget the local copies
            for shard in shards:
                local = os.path.join(self.local_dir, shard["file"])
                with open(local, "rb") as src, FileSystems.create(FileSystems.join(self.staging, shard["file"])) as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            shutil.rmtree(self.local_dir, ignore_errors=True)
        io.write_json(FileSystems.join(self.staging, ".parts", f"{self.writer.tag}.json"),
                      {"shards": shards, "truncated": self.truncated})


def conversation_files(path: str) -> list[str]:
    from beam_jobs import io
    files = io.stage_files(path, "conversations-*.parquet")
    if not files:
        raise ConfigError(f"no conversations-*.parquet under {path!r}: point --input at a generate "
                          f"output dir (eaglekit beam run generate --output DIR)")
    return files


def check_inputs(files: list[str], target_meta: dict) -> int:
    """Validate each conversation file against the contract and the target; return the row count."""
    from beam_jobs import io
    n = 0
    for f in files:
        meta = validate_schema(io.parquet_schema(f), "conversation", where=f)
        require_same(target_meta, meta, ("tokenizer_hash", "chat_template_hash"), where=f,
                     fix="featurize with the target (and tokenizer) that generated these conversations (--target)")
        n += io.parquet_rows(f)
    return n


def _read(path: str):
    from beam_jobs import io
    yield from io.parquet_records(path, columns=["id", "source", "category", "turns"])


def run_featurize(cfg: FeaturizeConfig, runner: str = "DirectRunner", beam_args=()) -> dict:
    from beam_jobs import io
    from eaglekit.models import load_target

    cfg.check()
    files = conversation_files(cfg.input)
    target = load_target(cfg.target)
    meta = feature_meta(target, cfg)
    count_in = check_inputs(files, target.metadata())
    del target
    staging = io.staging_path(cfg.output)
    try:
        return _run_featurize(cfg, runner, beam_args, files, meta, count_in, staging)
    except io.YieldError:
        raise  # the staging folder keeps the dead letters the message points at
    except BaseException:
        io.discard_staging(staging)
        raise


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
    feats | "WriteShards" >> beam.ParDo(WriteShardsFn(staging, meta, cfg.max_shard_tokens, cfg.compression))
    dead = ((prepared | "Dead0" >> beam.FlatMap(lambda r: [r["dead"]] if "dead" in r else []),
             results | "Dead1" >> beam.FlatMap(lambda r: [r["dead"]] if "dead" in r else []))
            | beam.Flatten())
    (dead | "DeadJson" >> beam.Map(json.dumps)
     | "WriteDead" >> beam.io.WriteToText(FileSystems.join(staging, "dead_letters"), file_name_suffix=".jsonl"))


def _run_featurize(cfg: FeaturizeConfig, runner, beam_args, files, meta, count_in, staging) -> dict:
    from apache_beam.io.filesystems import FileSystems

    from beam_jobs import io
    from beam_jobs.handlers import LoadOnceHandler
    from eaglekit.shards import build_manifest

    handler = LoadOnceHandler(cfg, _load_extractor, _run_extractor, max_batch_size=64,
                              namespace="eaglekit.featurize")
    with io.pipeline(runner, beam_args) as p:
        build_pipeline(p, cfg, files, handler, meta, staging)
    shards, truncated = [], 0
    parts = io.list_files(FileSystems.join(staging, ".parts", "*.json"))
    for part in parts:
        info = json.loads(io.read_text(part))
        shards.extend(info["shards"])
        truncated += info["truncated"]
    listed = {s["file"] for s in shards}
    unlisted = [f for f in io.list_files(FileSystems.join(staging, "shard-*.arrow"))
                + io.list_files(FileSystems.join(staging, ".tmp-shard-*")) if FileSystems.split(f)[1] not in listed]
    if unlisted or parts:  # shards of a failed bundle are never part of the output; nor are the bundle lists
        FileSystems.delete(unlisted + parts)
    if io.is_local(staging):
        shutil.rmtree(os.path.join(staging, ".parts"), ignore_errors=True)
    dropped = io.tally_dead_letters(staging)
    out = sum(s["rows"] for s in shards)
    counts = {STAGE: io.stage_counts(count_in, out, dropped)}
    io.check_counts(counts)
    io.check_yield(STAGE, count_in, out, dropped, cfg.max_dead_letter_share,
                   where=FileSystems.join(staging, "dead_letters-*.jsonl"))
    files_out = [f[len(staging) + 1:] for f in io.list_files(FileSystems.join(staging, "*"))]
    manifest = build_manifest(meta, shards, {**io.manifest_header(STAGE, asdict(cfg), io.runner_name(runner, beam_args)),
                                             "stages": counts, "counts": counts, "truncated": truncated,
                                             "files": files_out})
    return io.finish(staging, cfg.output, manifest)
