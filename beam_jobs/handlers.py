"""A small Beam `ModelHandler` that loads a model once per worker and hands whole batches to a plain
function. (Beam's own HuggingFace handler does not work with transformers 5, and ours must return
per-record results with dead letters rather than fail a whole batch.)

`loader` and `runner` are module-level functions (they pickle by reference); `spec` is whatever the
loader needs (a config dataclass), so each worker builds the same model.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

from apache_beam.ml.inference.base import ModelHandler


class LoadOnceHandler(ModelHandler):
    def __init__(self, spec: Any, loader: Callable[[Any], Any], runner: Callable[[Sequence, Any, Any], Iterable],
                 max_batch_size: int = 32, namespace: str = "eaglekit", min_batch_size: int = 1):
        super().__init__()
        self._spec, self._loader, self._runner = spec, loader, runner
        self._max_batch_size = int(max_batch_size)
        self._min_batch_size = max(1, min(int(min_batch_size), self._max_batch_size))
        self._namespace = namespace

    def load_model(self):
        return self._loader(self._spec)

    def run_inference(self, batch: Sequence, model, inference_args: Mapping | None = None) -> Iterable:
        return list(self._runner(batch, model, self._spec))

    def batch_elements_kwargs(self) -> Mapping[str, Any]:
        # Batches are sorted by length and split again inside the runner; large outer batches give
        # that sort more to work with. min == max gives fixed-size batches: Beam's adaptive batching
        # otherwise keeps batches tiny when one batch takes seconds (a GPU generate step), starving the device.
        return {"min_batch_size": self._min_batch_size, "max_batch_size": self._max_batch_size}

    def get_metrics_namespace(self) -> str:
        return self._namespace

    def share_model_across_processes(self) -> bool:
        return False
