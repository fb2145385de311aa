"""Configuration helpers shared by the CLI and the library. Each stage's typed config dataclass lives
beside its stage (CleanConfig, GenerateConfig, FeaturizeConfig, TrainConfig, BenchConfig); these build
and check them from plain mappings such as a YAML run config."""
from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from typing import Any, Mapping


class ConfigError(ValueError):
    """A configuration value is unknown or invalid; the message names it."""


def torch_dtype(name: str):
    """The torch dtype for a config's `dtype` string: float32 on CPU; bfloat16/float16 on GPU."""
    import torch
    try:
        return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]
    except KeyError:
        raise ConfigError(f"dtype must be float32, bfloat16 or float16, got {name!r}") from None


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
