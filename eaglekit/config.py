"""The one config system. Each stage's typed config is a dataclass (CleanConfig, GenerateConfig,
FeaturizeConfig, TrainConfig, RunConfig, ...) whose fields are declared with `setting(default, help)`;
from that one declaration come the YAML keys (`from_mapping`, with every value type-checked), the
`--help` text of `eaglekit beam run` (`describe`) and the CLI options (eaglekit/cli/options.py)."""
from __future__ import annotations

import re
import types
import typing
from dataclasses import MISSING, Field, field, fields, is_dataclass
from typing import Any, Mapping, Sequence


class ConfigError(ValueError):
    """A configuration value is unknown or invalid; the message names it."""


def setting(default: Any = MISSING, help: str = "", *, factory: Any = MISSING, choices: Sequence[str] | None = None,
            flag: str | None = None, cli: bool = True, low: float | None = None, high: float | None = None) -> Field:
    """A config field with its documentation. `help`: the meaning (CLI --help and the YAML key list);
    `choices`: the allowed values; `flag`: the CLI option's name when it is not `--field-name`; `cli`:
    False for keys only a config file sets; `low`/`high`: the allowed range of a number."""
    meta = {"help": help, "choices": tuple(choices) if choices else None, "flag": flag, "cli": cli,
            "low": low, "high": high}
    if factory is not MISSING:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def default_of(f: Field) -> Any:
    if f.default is not MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not MISSING else MISSING


def torch_dtype(name: str):
    """The torch dtype for a config's `dtype` string: float32 on CPU; bfloat16/float16 on GPU."""
    import torch
    try:
        return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]
    except KeyError:
        raise ConfigError(f"dtype must be float32, bfloat16 or float16, got {name!r}") from None


# ---------------------------------------------------------------------------------------------
# Mappings (a YAML run config) -> typed configs, every key and value checked

def _type_ok(value: Any, hint: Any) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_type_ok(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin in (list, tuple):
        return isinstance(value, (list, tuple)) and all(_type_ok(v, args[0]) for v in value) if args else \
            isinstance(value, (list, tuple))
    if origin is dict or hint is dict:
        return isinstance(value, dict)
    if is_dataclass(hint):
        return isinstance(value, Mapping) or isinstance(value, hint)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True


def type_name(hint) -> str:
    return re.sub(r"typing\.|<class '([^']+)'>", r"\1", str(hint))


def check_types(cls, values: Mapping[str, Any], where: str) -> None:
    """Raise ConfigError naming the first unknown key or value of the wrong type (nested sections too)."""
    hints = typing.get_type_hints(cls)
    known = {f.name: f for f in fields(cls)}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(f"{where}: unknown key {key!r}; known: {', '.join(sorted(known))}")
        hint = hints[key]
        if is_dataclass(hint) and isinstance(value, Mapping):
            check_types(hint, value, f"{where}.{key}")
        elif not _type_ok(value, hint):
            raise ConfigError(f"{where}.{key}: expected {type_name(hint)}, got {value!r}")


def from_mapping(cls, values: Mapping[str, Any] | None, where: str):
    """Build dataclass `cls` from a mapping, naming any unknown key or mistyped value (nested dataclasses
    included)."""
    values = dict(values or {})
    check_types(cls, values, where)
    known = {f.name: f for f in fields(cls)}
    kwargs = {}
    for name, value in values.items():
        f = known[name]
        nested = f.default_factory() if f.default_factory is not MISSING else None
        if is_dataclass(nested) and isinstance(value, Mapping):
            value = from_mapping(type(nested), value, f"{where}.{name}")
        kwargs[name] = value
    return cls(**kwargs)


def describe(cls, prefix: str = "", skip: Sequence[str] = ()) -> list[str]:
    """One line per key of `cls` (nested configs walked): `key (type, default X): meaning`."""
    lines, hints = [], typing.get_type_hints(cls)
    for f in fields(cls):
        if f.name in skip:
            continue
        hint = hints[f.name]
        if is_dataclass(hint):
            lines += describe(hint, f"{prefix}{f.name}.")
            continue
        default = default_of(f)
        doc = f.metadata.get("help") or ""
        choices = f.metadata.get("choices")
        if choices and doc:
            doc = f"{doc} ({' | '.join(choices)})"
        elif choices:
            doc = " | ".join(choices)
        lines.append(f"{prefix}{f.name} ({type_name(hint)}, " + ("required" if default is MISSING else f"default {default!r}")
                     + ")" + (f": {doc}" if doc else ""))
    return lines
