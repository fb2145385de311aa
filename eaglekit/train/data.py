"""Training data: stream feature rows (held-out split by row-id hash), pack them into fixed-length rows,
cut global batches across ranks, and prefetch them in a thread. `Cursor` is the data position a
checkpoint resumes from."""
from __future__ import annotations

import hashlib
import math
import queue
import threading
import zlib
from typing import NamedTuple

import torch


class Cursor(NamedTuple):
    """Data position: first token not yet consumed (epoch, shard, row within shard, token offset). With a
    shuffled order, shard and row are positions in that epoch's order (epoch_order), not stored indices."""
    epoch: int = 0
    shard: int = 0
    row: int = 0
    offset: int = 0


def is_heldout(row_id: str, fraction: float) -> bool:
    h = int(hashlib.sha1(row_id.encode()).hexdigest()[:8], 16)
    return h % 100000 < fraction * 100000


def epoch_order(shard_rows: list[int], seed: int, epoch: int) -> tuple[list[int], list[list[int]]]:
    """The data order of one epoch: a permutation of the shards, and of the rows within each shard, drawn from
    (seed, epoch) alone, so every rank and a resumed run see the same order and each epoch a different one.
    Returns (shard visiting order, per stored shard: its rows' visiting order)."""
    import numpy as np
    rng = np.random.default_rng([int(seed) & 0xFFFFFFFF, int(epoch), 0x5EED])
    shards = rng.permutation(len(shard_rows)).tolist()
    rows = [rng.permutation(int(n)).tolist() for n in shard_rows]
    return shards, rows


def iter_docs(ds, start: Cursor, keep, loop: bool = True, shuffle_seed: int | None = None):
    """(cursor of the row, FeatureRow) from `start` on; loops over epochs when `loop`. With `shuffle_seed`,
    each epoch visits shards and rows in epoch_order(seed, epoch); the cursor counts positions in that order."""
    if shuffle_seed is not None:
        yield from _iter_shuffled(ds, start, keep, loop, int(shuffle_seed))
        return
    rows_per_shard = ds.shard_rows
    epoch, si, ri, off = start
    while True:
        for row in ds.iter_rows(si, ri):
            while ri >= rows_per_shard[si]:  # iter_rows moved on to the next non-empty shard
                si, ri = si + 1, 0
            if keep(row.id):
                yield Cursor(epoch, si, ri, off), row
            ri, off = ri + 1, 0
        if not loop:
            return
        epoch, si, ri, off = epoch + 1, 0, 0, 0


def _iter_shuffled(ds, start: Cursor, keep, loop: bool, seed: int):
    epoch, si, ri, off = start
    while True:
        shard_order, row_orders = epoch_order(ds.shard_rows, seed, epoch)
        for pos in range(si, len(shard_order)):
            stored = shard_order[pos]
            order = row_orders[stored]
            first = ri if pos == si else 0
            for k, row in enumerate(ds.iter_shard_rows(stored, order[first:]), start=first):
                if keep(row.id):
                    yield Cursor(epoch, pos, k, off), row
                off = 0
        if not loop:
            return
        epoch, si, ri, off = epoch + 1, 0, 0, 0


def pack(docs, seq_len: int, meta: dict):
    """Greedy packing of documents (split into <= seq_len chunks) into rows of exactly seq_len tokens.
    Yields (row dict of tensors, cursor of the first token not in this or an earlier row)."""
    pieces, fill = [], 0
    cur = None
    for cur, row in docs:
        n_tok, off = len(row.input_ids), cur.offset
        while off < n_tok:
            n = min(seq_len, n_tok - off)
            if fill + n > seq_len:
                yield _make_row(pieces, seq_len, meta), cur._replace(offset=off)
                pieces, fill = [], 0
            pieces.append((row, off, n))
            fill, off = fill + n, off + n
    if pieces:  # only reached by a finite stream
        yield _make_row(pieces, seq_len, meta), None


def _make_row(pieces, L: int, meta: dict) -> dict:
    H = int(meta["hidden_size"])
    topk = meta["teacher_kind"] == "topk_logprobs"
    k = int(meta["teacher_topk"])
    out = {"ids": torch.zeros(L, dtype=torch.long), "mask": torch.zeros(L, dtype=torch.bool),
           "seg": torch.full((L,), -1, dtype=torch.long), "pos": torch.zeros(L, dtype=torch.long),
           "aux": torch.zeros(L, 3 * H)}
    if topk:
        out["topk_ids"], out["topk_lp"] = torch.zeros(L, k, dtype=torch.long), torch.full((L, k), -math.inf)
    else:
        out["teacher"] = torch.zeros(L, H)
    at = 0
    for i, (row, off, n) in enumerate(pieces):
        sl, src = slice(at, at + n), slice(off, off + n)
        out["ids"][sl], out["mask"][sl], out["aux"][sl] = row.input_ids[src], row.loss_mask[src], row.aux[src]
        out["seg"][sl], out["pos"][sl] = i, torch.arange(off, off + n)
        if topk:
            out["topk_ids"][sl], out["topk_lp"][sl] = row.topk_ids[src], row.topk_logprobs[src]
        else:
            out["teacher"][sl] = row.teacher_hidden[src]
        at += n
    out["doc_ids"] = [row.id for row, _, _ in pieces]
    # what identifies a document's content (the teacher's argmax cache): its id and a checksum of its tokens
    out["doc_keys"] = [f"{row.id}:{zlib.crc32(row.input_ids.numpy().tobytes()):08x}" for row, _, _ in pieces]
    return out


def collate(rows: list[dict]) -> dict:
    out = {k: torch.stack([r[k] for r in rows]) for k in rows[0] if k not in ("doc_ids", "doc_keys")}
    out["doc_ids"] = [d for r in rows for d in r["doc_ids"]]
    out["doc_keys"] = [d for r in rows for d in r["doc_keys"]]
    return out


def global_batches(packed, per_rank: int, world: int, rank: int, empty_row):
    """Group packed rows into global batches; yield (this rank's batch, cursor after the global batch)."""
    group, cursor = [], None
    for row, cursor in packed:
        group.append(row)
        if len(group) == per_rank * world:
            yield collate(group[rank * per_rank:(rank + 1) * per_rank]), cursor
            group = []
    if group:  # finite stream: pad the last global batch with empty rows so every rank steps
        group += [empty_row() for _ in range(per_rank * world - len(group))]
        yield collate(group[rank * per_rank:(rank + 1) * per_rank]), cursor


def prefetch(it, depth: int):
    """Run an iterator in a background thread (decoding overlaps the step); re-raise its errors here."""
    if depth <= 0:
        yield from it
        return
    q: queue.Queue = queue.Queue(maxsize=depth)
    stop = threading.Event()
    end = object()

    def put(item) -> bool:
        """Hand `item` over unless the consumer has gone; False once it has."""
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def work():
        try:
            for item in it:
                if not put(item):
                    return
            put(end)
        except BaseException as err:  # noqa: BLE001 - handed to the consumer
            put(err)

    t = threading.Thread(target=work, name="eaglekit-prefetch", daemon=True)
    t.start()
    try:
        while True:
            item = q.get()
            if item is end:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        # Wait for the worker to notice: a daemon thread still inside a torch/pyarrow call when the
        # interpreter exits aborts the process ("terminate called without an active exception", exit 134)
        # after a run that had finished and saved everything.
        stop.set()
        t.join(timeout=120)


def count_packed_rows(ds, keep, seq_len: int) -> int:
    """Rows one epoch packs into (same greedy rule as `pack`, on lengths only)."""
    rows, fill = 0, 0
    for _, batch in ds.iter_tables(0):
        ids = batch.column(batch.schema.names.index("id")).to_pylist()
        offs = batch.column(batch.schema.names.index("input_ids")).offsets.to_numpy()
        for i, rid in enumerate(ids):
            if not keep(rid):
                continue
            left = int(offs[i + 1] - offs[i])
            while left > 0:
                n = min(seq_len, left)
                if fill + n > seq_len:
                    rows, fill = rows + 1, 0
                fill, left = fill + n, left - n
    return rows + (1 if fill else 0)
