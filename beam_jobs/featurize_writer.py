"""Featurize's shard writer in a background thread, so the next forward pass never waits on Arrow
encoding, compression, checksums or file writes.

The model thread hands finished rows (storage form, see `ShardWriter.add_encoded`) to a queue bounded in
tokens; one writer thread takes them in order and runs the `ShardWriter`. The bound is counted in tokens,
not rows, because rows come a whole forward batch at a time: a bound of two batches' tokens lets the
model thread queue batch N and go on to batch N+1's forward while the writer works, and holds at most
two batches in memory beyond the writer's own record batch. A failure in the writer thread is never lost:
the thread keeps its error (with the shard and row it was writing) and stops, and the next `add` or
`close` in the model thread raises it as a ShardWriteError, instead of waiting on a queue nobody takes
from any more.
"""
from __future__ import annotations

import queue
import threading
import time

from eaglekit.shards import ShardWriter

_CLOSE = object()  # the queue's last item: finish the open shard and stop


class ShardWriteError(RuntimeError):
    """The background shard writer failed; the message names the shard and the row."""


class BackgroundShardWriter:
    """A `ShardWriter` fed from the calling thread and run in its own thread.

    `add(row)` returns as soon as the row is queued (it blocks only while `max_pending_tokens` tokens wait
    to be written, and that time is `wait_s`: the time the forward waited on the writer); `close()` waits for every row to be written and returns the shard entries, or
    raises the writer's error. `seconds` is the writer's own time per phase (`ShardWriter.seconds`),
    read after `close()`. `encoded=False` takes rows with tensors, encoded in the writer thread."""

    def __init__(self, writer: ShardWriter, max_pending_tokens: int, encoded: bool = True):
        self.writer, self.encoded = writer, encoded
        self.max_pending_tokens = max(1, int(max_pending_tokens))
        self.wait_s = 0.0
        self.rows_in = 0
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._room = threading.Condition()
        self._pending = 0  # tokens queued and not yet written
        self._error: ShardWriteError | None = None
        self._shards: list[dict] = []
        self._thread = threading.Thread(target=self._run, name=f"shard-writer-{writer.tag}", daemon=True)
        self._thread.start()

    @property
    def seconds(self) -> dict:
        return self.writer.seconds

    def add(self, row: dict) -> None:
        self._put(row, len(row["input_ids"]))
        self.rows_in += 1

    def close(self) -> list[dict]:
        """Wait for the writer to finish; the shard entries, or the writer's error."""
        self._stop()
        return self._shards

    def abort(self) -> None:
        """Stop the writer and drop the shard in progress (an error path: the caller fails anyway)."""
        try:
            self._stop()
        except ShardWriteError:
            pass
        self.writer.abort()

    def _stop(self) -> None:
        if self._thread.is_alive():
            self._put(_CLOSE, 0)
            self._thread.join()
        self._raise_if_failed()

    def _put(self, item, tokens: int) -> None:
        """Queue `item` once there is room for its tokens (a row larger than the whole bound still goes in
        alone), unless the writer thread has failed: it no longer takes rows, so raise its error instead
        of waiting for room that never comes."""
        t0 = time.perf_counter()
        with self._room:
            while self._pending and self._pending + tokens > self.max_pending_tokens:
                self._raise_if_failed()
                self._room.wait(0.05)
            self._raise_if_failed()
            self._pending += tokens
        self._queue.put(item)
        self.wait_s += time.perf_counter() - t0

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error

    def _run(self) -> None:
        add = self.writer.add_encoded if self.encoded else self.writer.add
        row = None
        try:
            while (row := self._queue.get()) is not _CLOSE:
                add(row)
                self._written(len(row["input_ids"]))
            row = None
            self._shards = self.writer.close()
        except BaseException as err:  # noqa: BLE001 - kept, and raised in the model thread
            error = self._describe(err, row)
            error.__cause__ = err
            self.writer.abort()
            self._error = error  # the model thread raises it from here on
            self._written(0)     # wake a model thread waiting for room

    def _written(self, tokens: int) -> None:
        with self._room:
            self._pending -= tokens
            self._room.notify_all()

    def _describe(self, err: BaseException, row: dict | None) -> ShardWriteError:
        shard = self.writer.out_dir / f"shard-{self.writer.tag}-{len(self.writer.shards):05d}.arrow"
        what = f"row {row.get('id', '?')}" if row is not None else "closing it"
        return ShardWriteError(f"writing {shard} failed at {what}: {type(err).__name__}: {err}")
