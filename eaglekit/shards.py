"""Feature shards: write size-bounded Arrow IPC shards of EAGLE-3 training rows (temp name + rename,
manifest with a sha256 per shard, written last) and stream them back as torch tensors.

Layout of a features directory:
  shard-<tag>-<n>.arrow   Arrow IPC *file* format, schema `contract.arrow_schema("features", meta)`,
                          record batches of a bounded token count (so a reader never holds a whole shard)
  manifest.json           {"schema": "features", "meta": {...}, "shards": [{"file", "rows", "tokens",
                          "bytes", "sha256"}], "num_rows", "num_tokens", ...}; a shard that is not
                          listed here does not exist as far as readers are concerned.

The shards open without eaglekit: `pyarrow.dataset.dataset(dir, format="arrow")`, DuckDB over that
dataset, or HF `datasets.load_dataset("arrow", data_files=...)`.
"""
from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa
import torch

from eaglekit import codecs
from eaglekit.contract import ContractError, arrow_schema, check_metadata, require_same, validate_schema
from eaglekit.checksums import file_sha256

MANIFEST = "manifest.json"
SHARD_GLOB = "shard-*.arrow"
DEFAULT_SHARD_BYTES = 256 << 20     # ~256 MB per shard, turned into a token budget from the metadata
DEFAULT_BATCH_TOKENS = 16384        # tokens per record batch: the unit a reader decodes at once
AUX_COLUMNS = ("aux_low", "aux_mid", "aux_high")
# Metadata that must agree between shards of one data set (and between a data set and its trainer).
SAME_KEYS = ("target_model_id", "target_revision", "tokenizer_hash", "chat_template_hash", "hidden_size",
             "num_hidden_layers", "aux_layer_ids", "aux_layer_convention", "hidden_codec", "teacher_kind",
             "teacher_topk")


@dataclass
class FeatureRow:
    id: str
    input_ids: torch.Tensor               # [S] int64
    loss_mask: torch.Tensor               # [S] bool
    aux: torch.Tensor                     # [S, 3*H] float32 (aux_low | aux_mid | aux_high)
    teacher_hidden: torch.Tensor | None   # [S, H] float32
    topk_ids: torch.Tensor | None         # [S, k] int64
    topk_logprobs: torch.Tensor | None    # [S, k] float32
    source: str = ""
    category: str | None = None


# ---------------------------------------------------------------------------------------------
# Writing

def bytes_per_token(meta: dict) -> int:
    """Approximate stored bytes per token for `meta` (used to turn a byte budget into tokens)."""
    h = int(meta["hidden_size"])
    per = 4 + 1                                          # int32 id + uint8 mask
    width = 2 if meta["hidden_codec"] == "bf16" else 1
    scale = 4 if meta["hidden_codec"] == "fp8_e4m3" else 0
    per += 3 * (h * width + scale)
    if meta["teacher_kind"] == "topk_logprobs":
        per += int(meta["teacher_topk"]) * (4 + 2)
    else:
        per += h * width + scale
    return per


def _encode_row(row: dict, meta: dict) -> dict:
    """Turn one input row (tensors) into storage arrays for each column of the features schema."""
    codec, kind, k = meta["hidden_codec"], meta["teacher_kind"], int(meta["teacher_topk"])
    rid = row.get("id", "?")
    ids = np.asarray(row["input_ids"], dtype=np.int64)
    mask = np.asarray(row["loss_mask"], dtype=np.int64)
    S, H = len(ids), int(meta["hidden_size"])
    if ids.ndim != 1 or mask.shape != ids.shape:
        raise ContractError(f"row {rid}: input_ids and loss_mask must be 1-D of equal length, "
                            f"got {ids.shape} and {mask.shape}")
    if not np.isin(mask, (0, 1)).all():
        raise ContractError(f"row {rid}: loss_mask must hold only 0/1")
    out = {"id": str(rid), "source": str(row.get("source", "")), "category": row.get("category"),
           "input_ids": ids.astype(np.int32), "loss_mask": mask.astype(np.uint8)}

    def hidden(name: str, x) -> None:
        x = torch.as_tensor(x)
        if tuple(x.shape) != (S, H):
            raise ContractError(f"row {rid}: {name} has shape {tuple(x.shape)}, expected [{S}, {H}]")
        enc = codecs.encode_hidden(x, codec)
        out[name] = enc.bits
        if enc.scale is not None:
            out[f"{name}_scale"] = enc.scale

    for name in AUX_COLUMNS:
        hidden(name, row[name])
    if kind == "topk_logprobs":
        if "teacher_logits" in row and row["teacher_logits"] is not None:
            tids, tlp = codecs.topk_teacher(torch.as_tensor(row["teacher_logits"]), k)
        else:
            tids = np.asarray(torch.as_tensor(row["topk_ids"]).cpu().numpy(), dtype=np.int32)
            tlp = np.asarray(torch.as_tensor(row["topk_logprobs"]).float().cpu().numpy(), dtype=np.float16)
        if tids.shape != (S, k) or tlp.shape != (S, k):
            raise ContractError(f"row {rid}: top-k teacher has shape {tids.shape}, expected [{S}, {k}]")
        out["teacher_topk_ids"], out["teacher_topk_logprobs"] = tids, tlp
    else:
        hidden("teacher_hidden", row["teacher_hidden"])
    return out


def check_encoded(enc: dict, meta: dict) -> None:
    """Raise ContractError unless `enc` holds every storage column of the features schema with the dtype
    and shape `_encode_row` gives it (a wrong dtype would otherwise be cast silently into the column)."""
    rid = enc.get("id", "?")
    S, H, k = len(enc["input_ids"]), int(meta["hidden_size"]), int(meta["teacher_topk"])
    want = {"input_ids": (np.int32, (S,)), "loss_mask": (np.uint8, (S,))}
    bits = np.uint16 if meta["hidden_codec"] == "bf16" else np.uint8
    hidden = AUX_COLUMNS + (() if meta["teacher_kind"] == "topk_logprobs" else ("teacher_hidden",))
    for name in hidden:
        want[name] = (bits, (S, H))
        if meta["hidden_codec"] == "fp8_e4m3":
            want[f"{name}_scale"] = (np.float32, (S,))
    if meta["teacher_kind"] == "topk_logprobs":
        want.update(teacher_topk_ids=(np.int32, (S, k)), teacher_topk_logprobs=(np.float16, (S, k)))
    for name, (dtype, shape) in want.items():
        a = enc.get(name)
        if not isinstance(a, np.ndarray) or a.dtype != dtype or a.shape != shape:
            got = f"{a.dtype} {a.shape}" if isinstance(a, np.ndarray) else type(a).__name__
            raise ContractError(f"row {rid}: encoded column {name} is {got}, expected {np.dtype(dtype)} {shape}")


def _list_column(arrays: list[np.ndarray], typ: pa.DataType) -> pa.Array:
    """list<T> or list<fixed_size_list<T, W>> column from per-row arrays, built without Python loops."""
    value_type = typ.value_type
    if pa.types.is_fixed_size_list(value_type):
        return codecs.hidden_column(arrays, value_type.list_size).cast(typ)
    lengths = np.array([len(a) for a in arrays], dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    flat = pa.array(np.concatenate(arrays)) if arrays else pa.array([], type=value_type)
    return pa.ListArray.from_arrays(pa.array(offsets), flat.cast(value_type))


def _batch(encoded: list[dict], schema: pa.Schema) -> pa.RecordBatch:
    cols = []
    for field in schema:
        values = [r[field.name] for r in encoded]
        if pa.types.is_list(field.type):
            cols.append(_list_column(values, field.type))
        else:
            cols.append(pa.array(values, type=field.type))
    return pa.RecordBatch.from_arrays(cols, schema=schema)


class ShardWriter:
    """Streams encoded rows into token-bounded shards in `out_dir`.

    Each shard is written under a hidden temp name and renamed to `shard-<tag>-<n>.arrow` only once
    closed and checksummed, so a crash never leaves a half shard that looks whole. `close()` returns
    the shard entries for the manifest (the caller, or `write_feature_shards`, writes it last).
    compression: "auto" (zstd when it saves >= 10% on the first batch of a shard), "zstd" or None.
    """

    def __init__(self, out_dir: str | os.PathLike, meta: dict, max_shard_tokens: int | None = None,
                 batch_tokens: int = DEFAULT_BATCH_TOKENS, compression: str | None = "auto",
                 tag: str | None = None):
        check_metadata("features", meta, where="write_feature_shards")
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.meta = dict(meta)
        self.schema = arrow_schema("features", self.meta)
        self.max_shard_tokens = int(max_shard_tokens or max(1, DEFAULT_SHARD_BYTES // bytes_per_token(meta)))
        self.batch_tokens = int(batch_tokens)
        if compression not in ("auto", "zstd", None):
            raise ValueError(f"compression must be 'auto', 'zstd' or None, got {compression!r}")
        self.compression = compression
        self.tag = tag or uuid.uuid4().hex[:8]
        self.shards: list[dict] = []
        self._pending: list[dict] = []
        self._pending_tokens = 0
        self._writer = None
        self._tmp: Path | None = None
        self._rows = self._tokens = 0
        # where the writer's time goes (featurize reports it): row encoding, Arrow record batches, IPC
        # write (compression included), checksum + rename of finished shards
        self.seconds = {"encode": 0.0, "arrow": 0.0, "write": 0.0, "checksum": 0.0}

    def add(self, row: dict) -> None:
        """Add one row with tensors for the hidden states; they are encoded here with the data set's codec."""
        t0 = time.perf_counter()
        enc = _encode_row(row, self.meta)
        self.seconds["encode"] += time.perf_counter() - t0
        self.add_encoded(enc)

    def add_encoded(self, enc: dict) -> None:
        """Add one row already in storage form, as `_encode_row` returns it (featurize encodes whole batches
        on the device); only the column dtypes and shapes are checked here."""
        check_encoded(enc, self.meta)
        n = len(enc["input_ids"])
        in_shard = self._tokens + self._pending_tokens
        if in_shard > 0 and in_shard + n > self.max_shard_tokens:
            self._finish_shard()
        self._pending.append(enc)
        self._pending_tokens += n
        if self._pending_tokens >= self.batch_tokens:
            self._flush()

    def _open(self, batch: pa.RecordBatch) -> None:
        compression = self.compression
        if compression == "auto":
            plain = _ipc_size(batch, None)
            compression = "zstd" if _ipc_size(batch, "zstd") <= 0.9 * plain else None
        self._tmp = self.out_dir / f".tmp-shard-{self.tag}-{len(self.shards):05d}-{uuid.uuid4().hex[:6]}"
        options = pa.ipc.IpcWriteOptions(compression=compression)
        self._sink = pa.OSFile(str(self._tmp), "wb")
        self._writer = pa.ipc.new_file(self._sink, self.schema, options=options)
        self._compression_used = compression

    def _flush(self) -> None:
        if not self._pending:
            return
        t0 = time.perf_counter()
        batch = _batch(self._pending, self.schema)
        t1 = time.perf_counter()
        if self._writer is None:
            self._open(batch)
        self._writer.write_batch(batch)
        self.seconds["arrow"] += t1 - t0
        self.seconds["write"] += time.perf_counter() - t1
        self._rows += batch.num_rows
        self._tokens += self._pending_tokens
        self._pending, self._pending_tokens = [], 0

    def _finish_shard(self) -> None:
        self._flush()
        if self._writer is None:
            return
        t0 = time.perf_counter()
        self._writer.close()
        self._sink.close()
        t1 = time.perf_counter()
        final = self.out_dir / f"shard-{self.tag}-{len(self.shards):05d}.arrow"
        entry = {"file": final.name, "rows": self._rows, "tokens": self._tokens,
                 "bytes": self._tmp.stat().st_size, "sha256": file_sha256(self._tmp),
                 "compression": self._compression_used}
        os.replace(self._tmp, final)
        self.seconds["write"] += t1 - t0
        self.seconds["checksum"] += time.perf_counter() - t1
        self.shards.append(entry)
        self._writer, self._tmp, self._rows, self._tokens = None, None, 0, 0

    def close(self) -> list[dict]:
        self._finish_shard()
        return self.shards

    def abort(self) -> None:
        """Drop the shard being written (its temp file); finished shards stay on disk but unlisted."""
        if self._writer is not None:
            try:
                self._writer.close()
                self._sink.close()
            except Exception:  # noqa: BLE001 - best effort on an error path
                pass
            if self._tmp is not None and self._tmp.exists():
                self._tmp.unlink()
        self._writer, self._pending = None, []


def _ipc_size(batch: pa.RecordBatch, compression: str | None) -> int:
    sink = pa.MockOutputStream()
    with pa.ipc.new_stream(sink, batch.schema, options=pa.ipc.IpcWriteOptions(compression=compression)) as w:
        w.write_batch(batch)
    return sink.size()


def build_manifest(meta: dict, shards: list[dict], extra: dict | None = None) -> dict:
    shards = sorted(shards, key=lambda s: s["file"])
    manifest = {"schema": "features", "meta": dict(meta), "shards": shards,
                "num_rows": sum(s["rows"] for s in shards), "num_tokens": sum(s["tokens"] for s in shards)}
    manifest.update(extra or {})
    return manifest


def write_manifest(out_dir: str | os.PathLike, manifest: dict) -> None:
    """Write manifest.json atomically (temp + rename): it is the commit point of a features dir."""
    path = Path(out_dir) / MANIFEST
    tmp = path.with_name(f".{MANIFEST}.tmp-{uuid.uuid4().hex[:6]}")
    tmp.write_text(json.dumps(manifest, indent=1) + "\n")
    os.replace(tmp, path)


def write_feature_shards(out_dir: str | os.PathLike, meta: dict, rows: Iterable[dict],
                         max_shard_tokens: int | None = None, *, batch_tokens: int = DEFAULT_BATCH_TOKENS,
                         compression: str | None = "auto", extra: dict | None = None) -> dict:
    """Encode `rows` (dicts of the columns of schemas/features.json, tensors for the hidden states: ShardWriter.add) into shards in `out_dir`,
    then write manifest.json last; return the manifest. If `rows` raises, the shard in progress is
    removed and no manifest is written, so the directory never looks complete."""
    writer = ShardWriter(out_dir, meta, max_shard_tokens, batch_tokens=batch_tokens, compression=compression)
    try:
        for row in rows:
            writer.add(row)
        shards = writer.close()
    except BaseException:
        writer.abort()
        raise
    manifest = build_manifest(meta, shards, extra)
    write_manifest(out_dir, manifest)
    return manifest


# ---------------------------------------------------------------------------------------------
# Reading

class FeatureDataset:
    """One or more validated features directories read as one: shards in the order given, rows streamed
    one record batch at a time from memory-mapped shards. `path`/`manifest` are the first directory's."""

    def __init__(self, path: Path, manifest: dict, meta: dict, more: Sequence[tuple[Path, dict]] = ()):
        self.path = path
        self.manifest = manifest
        self.meta = meta
        entries = [(root, s) for root, m in [(path, manifest), *more] for s in m["shards"]]
        self.shards = [str(root / s["file"]) for root, s in entries]
        self.shard_sha256 = [s.get("sha256") for _, s in entries]
        self.shard_rows = [int(s["rows"]) for _, s in entries]
        self.num_rows = sum(self.shard_rows)
        self.num_tokens = int(sum(s["tokens"] for _, s in entries))
        # the terms every directory's rows come under (eaglekit.sources), merged: training records them
        from eaglekit.sources import from_metadata
        self.sources = from_metadata(m.get("meta", {}) for m in [manifest, *(m for _, m in more)])

    def __len__(self) -> int:
        return self.num_rows

    def iter_tables(self, shard_index: int = 0) -> Iterator[tuple[int, pa.RecordBatch]]:
        """(shard index, record batch) from `shard_index` on; each shard memory-mapped while read."""
        for si in range(shard_index, len(self.shards)):
            try:
                with pa.memory_map(self.shards[si], "r") as source:
                    reader = pa.ipc.open_file(source)
                    for b in range(reader.num_record_batches):
                        batch = reader.get_batch(b)
                        yield si, batch
            except (pa.ArrowException, OSError) as err:  # any read error: one line naming the shard
                raise ContractError(unreadable(self.shards[si], err)) from err

    def verify_checksums(self, echo=None) -> None:
        """Check every shard's sha256 against its manifest (streamed; remembered per file size and mtime,
        so a run re-reads only shards that changed); raise ContractError naming the first bad shard."""
        verify_checksums(list(zip(self.shards, self.shard_sha256)), echo=echo)

    def iter_rows(self, shard_index: int = 0, row_index: int = 0) -> Iterator[FeatureRow]:
        """Rows from (shard_index, row_index within that shard) on, decoded to float32 tensors."""
        skip = int(row_index)
        for si, batch in self.iter_tables(shard_index):
            if si != shard_index:
                skip = 0
            if skip >= batch.num_rows:
                skip -= batch.num_rows
                continue
            for i in range(skip, batch.num_rows):
                yield decode_row(batch, i, self.meta)
            skip = 0


    def iter_shard_rows(self, shard_index: int, order: Sequence[int]) -> Iterator[FeatureRow]:
        """Rows of one shard in the given order (row numbers within the shard), read from the memory-mapped
        shard (random access: only the rows' own bytes are touched)."""
        import bisect
        path = self.shards[shard_index]
        try:
            with pa.memory_map(path, "r") as source:
                reader = pa.ipc.open_file(source)
                batches = [reader.get_batch(b) for b in range(reader.num_record_batches)]
                starts, n = [], 0
                for b in batches:
                    starts.append(n)
                    n += b.num_rows
                for i in order:
                    b = bisect.bisect_right(starts, int(i)) - 1
                    yield decode_row(batches[b], int(i) - starts[b], self.meta)
        except (pa.ArrowException, OSError) as err:
            raise ContractError(unreadable(path, err)) from err


def decode_row(batch: pa.RecordBatch, i: int, meta: dict) -> FeatureRow:
    """Row i of a features record batch as tensors (hidden states decoded to float32)."""
    codec = meta["hidden_codec"]
    names = batch.schema.names

    def col(name):
        return batch.column(names.index(name))

    def hidden(name):
        scale = codecs.row_values(col(f"{name}_scale"), i) if codec == "fp8_e4m3" else None
        return codecs.decode_hidden(codecs.row_values(col(name), i), scale, codec)

    ids = torch.from_numpy(codecs.row_values(col("input_ids"), i).astype(np.int64))
    mask = torch.from_numpy(codecs.row_values(col("loss_mask"), i).astype(bool))
    aux = torch.cat([hidden(n) for n in AUX_COLUMNS], dim=-1)
    teacher = tids = tlp = None
    if meta["teacher_kind"] == "topk_logprobs":
        tids = torch.from_numpy(codecs.row_values(col("teacher_topk_ids"), i).astype(np.int64))
        tlp = torch.from_numpy(codecs.row_values(col("teacher_topk_logprobs"), i).astype(np.float32))
    else:
        teacher = hidden("teacher_hidden")
    return FeatureRow(id=col("id")[i].as_py(), input_ids=ids, loss_mask=mask, aux=aux, teacher_hidden=teacher,
                      topk_ids=tids, topk_logprobs=tlp, source=col("source")[i].as_py(),
                      category=col("category")[i].as_py())


def read_manifest(path: str | os.PathLike) -> tuple[Path, dict]:
    root = Path(path)
    if root.name == MANIFEST:
        root = root.parent
    mpath = root / MANIFEST
    if not root.is_dir():
        raise ContractError(f"{root}: no such features directory")
    if not mpath.is_file():
        raise ContractError(f"{root}: no {MANIFEST}; the featurize run did not finish (or this is not a "
                            f"features directory). Re-run `eaglekit beam run featurize` into it")
    try:
        manifest = json.loads(mpath.read_text())
    except json.JSONDecodeError as err:
        raise ContractError(f"{mpath}: not valid JSON ({err}); re-run featurize") from err
    if manifest.get("schema") != "features" or not isinstance(manifest.get("shards"), list):
        raise ContractError(f"{mpath}: not a features manifest (needs 'schema': 'features' and a 'shards' list)")
    return root, manifest


def open_features(path: "str | os.PathLike | Sequence[str | os.PathLike]") -> FeatureDataset:
    """Open a features directory, or several read as one (each from its own featurize run; they must
    agree on target, tokenizer and what was captured). Checks each manifest, that every listed shard
    exists with its recorded size, and that each shard's schema and metadata match the contract and each
    other. Checksums are checked by `verify_features` (reads every byte)."""
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    if not paths:
        raise ContractError("no features directory given")
    parts = [_open_one(p) for p in paths]
    (root, manifest, meta), rest = parts[0], parts[1:]
    for other_root, _, other_meta in rest:
        require_same(meta, other_meta, SAME_KEYS, where=str(other_root),
                     fix=f"features read together must come from the same target and capture as {root}")
    return FeatureDataset(root, manifest, meta, [(r, m) for r, m, _ in rest])


def _open_one(path: str | os.PathLike) -> tuple[Path, dict, dict]:
    root, manifest = read_manifest(path)
    meta = None
    for entry in manifest["shards"]:
        shard = root / entry["file"]
        if not shard.is_file():
            raise ContractError(f"{shard}: listed in {MANIFEST} but missing; restore it or re-run featurize")
        if "bytes" in entry and shard.stat().st_size != entry["bytes"]:
            raise ContractError(f"{shard}: {shard.stat().st_size} bytes, manifest says {entry['bytes']}; "
                                f"the shard was modified or truncated — re-run featurize")
        try:
            with pa.memory_map(str(shard), "r") as source:
                schema = pa.ipc.open_file(source).schema
        except (pa.ArrowException, OSError) as err:  # ArrowInvalid, and OSError for a damaged footer
            raise ContractError(unreadable(shard, err)) from err
        shard_meta = validate_schema(schema, "features", where=str(shard))
        if meta is None:
            meta = shard_meta
        else:
            require_same(meta, shard_meta, SAME_KEYS, where=str(shard),
                         fix="all shards of one features directory must come from one featurize run")
    if meta is None:
        meta = {k: v for k, v in manifest.get("meta", {}).items() if k not in ("schema", "schema_version")}
        check_metadata("features", meta, where=f"{root / MANIFEST}")
    return root, manifest, meta


def unreadable(shard, err: BaseException) -> str:
    """One line for a shard pyarrow cannot read (bad magic, damaged footer, truncated batch, ...)."""
    detail = " ".join(str(err).split())[:200]
    return (f"{shard}: not a readable Arrow IPC file ({type(err).__name__}: {detail}); the shard is damaged — "
            f"restore it or re-run featurize (`eaglekit data verify` checks every shard)")


def _checksum_cache_path() -> Path:
    from eaglekit.models import cache_dir
    return cache_dir() / "shard-checksums.json"


def _load_checksum_cache() -> dict:
    try:
        data = json.loads(_checksum_cache_path().read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _save_checksum_cache(new: dict) -> None:
    """Merge `new` into the cache file (re-read first: other runs may have added entries), atomically."""
    path = _checksum_cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        data = _load_checksum_cache()
        data.update(new)
        data = {k: v for k, v in data.items() if os.path.exists(k)}  # forget files that are gone
        tmp = path.with_name(f".{path.name}.tmp-{uuid.uuid4().hex[:6]}")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, path)
    except OSError:  # a read-only cache only costs re-hashing next time
        pass


def verify_checksums(shards: Sequence[tuple[str, str | None]], echo=None) -> None:
    """Check each (shard path, manifest sha256); raise ContractError naming the first mismatch.

    A shard's digest is computed by streaming it once and remembered in the eaglekit cache
    (shard-checksums.json) with the file's size and mtime; the remembered digest is used only while both
    are unchanged, so a rewritten or truncated file is always hashed again. A shard whose manifest has no
    sha256 (hand-made manifests) is not checked."""
    cache = _load_checksum_cache()
    fresh = {}
    for shard, want in shards:
        if not want:
            continue
        key = str(Path(shard).resolve())
        try:
            st = os.stat(key)
        except OSError as err:
            raise ContractError(f"{shard}: cannot read it ({err}); restore it or re-run featurize") from err
        hit = cache.get(key)
        if isinstance(hit, dict) and hit.get("size") == st.st_size and hit.get("mtime_ns") == st.st_mtime_ns:
            digest = hit.get("sha256")
        else:
            if echo is not None:
                echo(f"checking sha256 of {shard}")
            digest = file_sha256(Path(key))
            fresh[key] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest}
        if digest != want:
            if fresh:
                _save_checksum_cache(fresh)
            raise ContractError(f"{shard}: sha256 {str(digest)[:16]}… does not match its manifest ({str(want)[:16]}…): "
                                f"the shard is corrupt — restore it or re-run featurize")
    if fresh:
        _save_checksum_cache(fresh)


def verify_features(path: str | os.PathLike) -> list[str]:
    """Every problem found in a features directory (empty list = all good): missing/unlisted shards,
    checksum or size mismatches, schema errors, row/token counts that differ from the manifest."""
    problems: list[str] = []
    try:
        root, manifest = read_manifest(path)
    except ContractError as err:
        return [str(err)]
    meta = None
    listed = set()
    for entry in manifest["shards"]:
        shard = root / entry["file"]
        listed.add(entry["file"])
        if not shard.is_file():
            problems.append(f"{shard}: listed in the manifest but missing")
            continue
        digest = file_sha256(shard)
        if digest != entry.get("sha256"):
            problems.append(f"{shard}: sha256 {digest[:16]}… does not match the manifest "
                            f"({str(entry.get('sha256'))[:16]}…): the shard is corrupt")
            continue
        try:
            with pa.memory_map(str(shard), "r") as source:
                reader = pa.ipc.open_file(source)
                shard_meta = validate_schema(reader.schema, "features", where=str(shard))
                rows = tokens = 0
                for b in range(reader.num_record_batches):
                    batch = reader.get_batch(b)
                    rows += batch.num_rows
                    tokens += len(batch.column(batch.schema.names.index("input_ids")).values)
            if meta is None:
                meta = shard_meta
            else:
                require_same(meta, shard_meta, SAME_KEYS, where=str(shard),
                             fix="all shards must come from one featurize run")
            if rows != entry["rows"] or tokens != entry["tokens"]:
                problems.append(f"{shard}: {rows} rows / {tokens} tokens, manifest says "
                                f"{entry['rows']} / {entry['tokens']}")
        except ContractError as err:
            problems.append(f"{shard}: {err}")
        except (pa.ArrowException, OSError) as err:
            problems.append(unreadable(shard, err))
    if manifest.get("num_rows") is not None and manifest["num_rows"] != sum(s["rows"] for s in manifest["shards"]):
        problems.append(f"{root / MANIFEST}: num_rows does not equal the sum over shards")
    for stray in sorted(p.name for p in root.glob(SHARD_GLOB) if p.name not in listed):
        problems.append(f"{root / stray}: shard file not listed in the manifest (left by an interrupted run?); "
                        f"delete it")
    return problems
