"""Typed configuration shared by the CLI and the library. Stage configs (clean, generate, featurize,
train, serve) live beside their stage and are built from these shared pieces."""
from __future__ import annotations

from dataclasses import MISSING, dataclass, fields, is_dataclass
from typing import Any, Mapping


class ConfigError(ValueError):
    """A configuration value is unknown or invalid; the message names it."""


@dataclass
class TargetConfig:
    """Which target model to load and which of its layers EAGLE-3 reads."""
    spec: str = "embedded"                       # see eaglekit.models: embedded | tiny | folder | .gguf | hub id
    dtype: str = "float32"                       # float32 on CPU; bfloat16/float16 on GPU
    device: str = "cpu"
    aux_layer_ids: tuple[int, ...] | None = None  # None: EAGLE-3 defaults for the target's depth
    aux_layer_convention: str = "hf"             # convention of aux_layer_ids: hf | sglang

    def torch_dtype(self):
        import torch
        try:
            return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[self.dtype]
        except KeyError:
            raise ConfigError(f"target.dtype must be float32, bfloat16 or float16, got {self.dtype!r}") from None


def from_mapping(cls, values: Mapping[str, Any] | None, where: str):
    """Build dataclass `cls` from a mapping, naming any unknown key (nested dataclasses included)."""
    values = dict(values or {})
    known = {f.name: f for f in fields(cls)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(known)}")
    kwargs = {}
    for name, value in values.items():
        f = known[name]
        nested = f.default_factory() if f.default_factory is not MISSING else None
        if is_dataclass(nested) and isinstance(value, Mapping):
            value = from_mapping(type(nested), value, f"{where}.{name}")
        kwargs[name] = value
    return cls(**kwargs)
