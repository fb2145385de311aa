"""Where featurize's time goes: a clock per phase of the model thread (host time, or CUDA events on the
device's own timeline, so timing never adds a sync), Beam metrics per phase, and the one-line summary
that ends a run (also used by bench/featurize.py).

Model thread, per forward batch: collate (pad, host->device), forward (the target with the capture
hooks), teacher (lm_head + top-k + logsumexp; top-k teacher only), encode (bf16 bits / fp8 + scale, the
top-k's int32/fp16, NaN/Inf flags; on the device), copy (device->host into pinned buffers; on the CPU
the encoded tensors already are the host arrays), rows (one storage row per record: views of the
batch's host buffers; on a GPU it also waits for the copy to land), wait (the model thread blocked
because the shard writer was two batches behind).
Writer thread (overlapped with the next forward): arrow (record batches), write (IPC write, compression
included), checksum (sha256 + rename of each finished shard), upload (object stores only).
"""
from __future__ import annotations

import contextlib
import time

MODEL_PHASES = ("collate", "forward", "teacher", "encode", "copy", "rows", "wait")
WRITER_PHASES = ("encode", "arrow", "write", "checksum", "upload")
NAMESPACE = "eaglekit.featurize"


class PhaseClock:
    """Seconds per model-thread phase. On CUDA, device phases are timed with events resolved in
    `settle()` (after the batch's results are on the host anyway), host phases with the host clock."""

    def __init__(self, device="cpu"):
        import torch
        self.cuda = torch.device(device).type == "cuda"
        self.seconds = dict.fromkeys(MODEL_PHASES, 0.0)
        self._events: list = []

    @contextlib.contextmanager
    def phase(self, name: str, host: bool = False):
        if self.cuda and not host:
            import torch
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()  # on the current stream: the copy phase is entered on the copy stream
            yield
            end.record()
            self._events.append((name, start, end))
            return
        t0 = time.perf_counter()
        yield
        self.seconds[name] += time.perf_counter() - t0

    def settle(self) -> dict[str, float]:
        """Seconds per phase so far (waits for the recorded device events to complete)."""
        for name, start, end in self._events:
            end.synchronize()
            self.seconds[name] += start.elapsed_time(end) / 1000.0
        self._events.clear()
        return dict(self.seconds)


def publish(prefix: str, seconds: dict[str, float], tokens: int | None = None) -> None:
    """Beam metrics for one batch (model) or bundle (writer): a distribution per phase in microseconds
    (sum: the run's total; count: batches; min/max: the spread), and the tokens done."""
    from apache_beam.metrics import Metrics
    for name, s in seconds.items():
        Metrics.distribution(NAMESPACE, f"{prefix}_{name}_us").update(int(round(s * 1e6)))
    if tokens is not None:
        Metrics.counter(NAMESPACE, f"{prefix}_tokens").inc(int(tokens))


def query(result) -> dict:
    """{"model": {phase: s}, "writer": {phase: s}, "tokens": n} from a finished run's metrics ({} on a
    runner without metrics)."""
    from apache_beam.metrics.metric import MetricsFilter
    try:
        found = result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))
    except Exception:  # noqa: BLE001 - a runner without metrics: the run goes without the breakdown
        return {}
    out: dict = {"model": {}, "writer": {}, "tokens": 0}
    for d in found.get("distributions", []):
        prefix, _, name = d.key.metric.name.partition("_")
        value = d.committed if d.committed is not None else d.attempted
        if prefix in ("model", "writer") and name.endswith("_us") and value is not None:
            phase = name[:-3]
            out[prefix][phase] = out[prefix].get(phase, 0.0) + value.sum / 1e6
    for c in found.get("counters", []):
        if c.key.metric.name == "model_tokens":
            out["tokens"] += int((c.committed if c.committed is not None else c.attempted) or 0)
    return out


def shares(seconds: dict[str, float]) -> dict[str, float]:
    """Each phase's share of the phases' sum."""
    total = sum(seconds.values())
    return {k: (v / total if total > 0 else 0.0) for k, v in seconds.items()}


def summary(tokens: int, wall_s: float, model: dict[str, float], writer: dict[str, float]) -> str:
    """The run's one line: tokens/s, the model thread's phases as shares, the writer's seconds."""
    ordered = {k: model.get(k, 0.0) for k in MODEL_PHASES}
    model_part = " | ".join(f"{k} {v:.0%}" for k, v in shares(ordered).items() if ordered[k] > 0 or k == "wait")
    writer_part = ", ".join(f"{k} {writer[k]:.2f}s" for k in WRITER_PHASES if writer.get(k))
    return (f"featurize: {tokens} tokens in {wall_s:.1f} s ({tokens / max(wall_s, 1e-9):.0f} tok/s); "
            f"model thread {sum(ordered.values()):.2f}s: {model_part}; "
            f"writer thread (overlapped): {writer_part or 'idle'}")
