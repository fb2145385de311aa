"""The one config system: every command's settings are one typed config, checked when it is built.

A config is a class decorated with `@config` whose fields are declared with `setting(default, help)`:

    @config
    class TrainConfig:
        nan_policy: Literal["skip", "stop"] = setting("skip", "Non-finite batch or gradient: skip or stop.")
        heldout_fraction: float = setting(0.05, "Fraction of rows held out.", ge=0.0, le=1.0)

`@config` makes it a pydantic dataclass with `extra="forbid"`: building one (from keyword arguments, a
YAML mapping through `from_mapping`, or the CLI) checks every key, type, `Literal` choice and `Field`
range at once, and a failure is a ConfigError whose message starts with the key (`train.nan_policy:
must be one of skip, stop; got 'explode'`). Scalars are strict (no "5" for an int, no True for a
number); containers are lax (a YAML list fills a tuple).

Why pydantic *dataclasses* rather than BaseModel: the configs stay dataclasses, so `dataclasses.fields`,
`asdict` and `replace` (used by the stages, the manifests and the tests) keep working, and `setting()`
stays a plain `dataclasses.field`, so the sections declared as plain dataclasses elsewhere (PiiConfig,
NearDupConfig) keep working unchanged; when such a section is nested in a config, its own `setting`
choices and ranges are checked by the same rules (`check_section`).

From the one declaration come: the CLI options (eaglekit/cli/options.py), the YAML keys (`from_mapping`),
the `--help` text (`describe`) and a JSON schema (`json_schema`).
"""
from __future__ import annotations

import functools
import os
import types
import typing
from dataclasses import MISSING, Field, field, fields, is_dataclass
from typing import Annotated, Any, Literal, Mapping, NamedTuple, Sequence

import pydantic.dataclasses
from pydantic import AfterValidator, BeforeValidator, ConfigDict, Strict, TypeAdapter, ValidationError


class ConfigError(ValueError):
    """A configuration value is unknown or invalid; the message names it. `key`: the dotted key, when known."""

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key


_RANGE_KEYS = ("gt", "ge", "lt", "le")


def setting(default: Any = MISSING, help: str = "", *, factory: Any = MISSING, choices: Sequence[str] | None = None,
            flag: str | None = None, cli: bool = True, low: float | None = None, high: float | None = None,
            gt: float | None = None, ge: float | None = None, lt: float | None = None,
            le: float | None = None, envvar: str | None = None, parse: Any = None) -> Field:
    """A config field with its documentation. `help`: the meaning (CLI --help, the YAML key list, the JSON
    schema); `choices`: the allowed values (in a `@config` class prefer a `Literal` type); `flag`: the CLI
    option's name when it is not `--field-name`; `cli`: False for keys only a config file sets;
    `gt`/`ge`/`lt`/`le`: the allowed range of a number (`low`/`high`: the same as `ge`/`le`); `envvar`: an
    environment variable the CLI option also reads; `parse`: for a CLI option written in its own syntax
    (`3,1,4`), the function turning one given string into the value (ValueError: a message for the user)."""
    meta = {"help": help, "choices": tuple(choices) if choices else None, "flag": flag, "cli": cli,
            "gt": gt, "ge": low if ge is None else ge, "lt": lt, "le": high if le is None else le,
            "envvar": envvar, "parse": parse}
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


DTYPES = Literal["float32", "bfloat16", "float16"]


# ---------------------------------------------------------------------------------------------
# What a field declares, read the same way for @config classes and plain dataclasses

def base_type(hint) -> tuple[Any, bool]:
    """(the type without None, whether None is allowed); Annotated wrappers removed."""
    while typing.get_origin(hint) is Annotated:
        hint = typing.get_args(hint)[0]
    args = typing.get_args(hint)
    if typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]), True
    return hint, False


class Setting(NamedTuple):
    """One field of a config: everything the CLI, the help, the YAML reader and the checks need."""
    name: str
    hint: Any
    default: Any          # MISSING when required
    help: str
    choices: tuple | None
    bounds: dict          # {gt/ge/lt/le: number} given
    flag: str | None
    cli: bool
    envvar: str | None = None
    parse: Any = None

    @property
    def section(self):
        """The nested config class of a section field (reader, near, pii), else None."""
        base, _ = base_type(self.hint)
        return base if isinstance(base, type) and is_dataclass(base) else None


def hints_of(cls) -> dict[str, Any]:
    """The declared type of each field (as written, before @config added its checks)."""
    return dict(getattr(cls, "__config_hints__", None) or typing.get_type_hints(cls))


def settings_of(cls) -> list[Setting]:
    """The fields of config class `cls`, in declaration order."""
    hints, out = hints_of(cls), []
    for f in fields(cls):
        meta, hint = f.metadata, hints[f.name]
        base, _ = base_type(hint)
        choices = meta.get("choices")
        if typing.get_origin(base) is Literal:
            choices = typing.get_args(base)
        bounds = {k: meta[k] for k in _RANGE_KEYS if meta.get(k) is not None}
        out.append(Setting(f.name, hint, default_of(f), meta.get("help") or "", choices, bounds, meta.get("flag"),
                           meta.get("cli", True), meta.get("envvar"), meta.get("parse")))
    return out


def type_name(hint) -> str:
    """A type as a user reads it: `int | None`, `list[str]`, `str` for a choice of strings."""
    while typing.get_origin(hint) is Annotated:
        hint = typing.get_args(hint)[0]
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return " | ".join(sorted({type(a).__name__ for a in args}))
    if origin in (typing.Union, types.UnionType):
        return " | ".join(dict.fromkeys(type_name(a) for a in args))
    if origin is not None and args:
        return f"{origin.__name__}[{', '.join('...' if a is Ellipsis else type_name(a) for a in args)}]"
    if hint is type(None):
        return "None"
    return hint.__name__ if isinstance(hint, type) else str(hint)


def _range_text(bounds: dict) -> str:
    lo = next(((k, bounds[k]) for k in ("gt", "ge") if k in bounds), None)
    hi = next(((k, bounds[k]) for k in ("lt", "le") if k in bounds), None)
    if lo and hi:
        return f"within {'(' if lo[0] == 'gt' else '['}{lo[1]:g}, {hi[1]:g}{')' if hi[0] == 'lt' else ']'}"
    if lo:
        return f"{'>' if lo[0] == 'gt' else '>='} {lo[1]:g}"
    return f"{'<' if hi[0] == 'lt' else '<='} {hi[1]:g}"


def _in_range(value, bounds: dict) -> bool:
    ops = {"gt": lambda v, b: v > b, "ge": lambda v, b: v >= b, "lt": lambda v, b: v < b, "le": lambda v, b: v <= b}
    return all(ops[k](value, b) for k, b in bounds.items())


def check_section(obj):
    """Check a plain-dataclass section (one declared with `setting()` but not `@config`, e.g. PiiConfig)
    by its declared choices and ranges; raise ConfigError naming the field. Returns `obj`."""
    for s in settings_of(type(obj)):
        value = getattr(obj, s.name)
        if s.choices and isinstance(value, str) and value not in s.choices:
            raise ConfigError(f"must be one of {', '.join(map(str, s.choices))}; got {value!r}", key=s.name)
        if s.bounds and isinstance(value, (int, float)) and not isinstance(value, bool) and \
                not _in_range(value, s.bounds):
            raise ConfigError(f"must be {_range_text(s.bounds)}, got {value!r}", key=s.name)
    return obj


# ---------------------------------------------------------------------------------------------
# @config: a pydantic dataclass, strict scalars, errors as ConfigError naming the key

def _fspath(value):
    return os.fspath(value) if isinstance(value, os.PathLike) else value


def _strict(hint):
    """`hint` with strict scalars inside (int, float, bool, str; paths accepted for str) and lax containers."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is bool:
        return Annotated[bool, Strict()]
    if hint is int:
        return Annotated[int, Strict()]
    if hint is float:
        return Annotated[float, Strict()]
    if hint is str:
        return Annotated[str, Strict(), BeforeValidator(_fspath)]
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(_strict(a) for a in args)]
    if origin in (list, tuple, dict) and args:
        return origin[tuple(a if a is Ellipsis else _strict(a) for a in args)]
    if isinstance(hint, type) and is_dataclass(hint) and not hasattr(hint, "__pydantic_fields__"):
        return Annotated[hint, AfterValidator(check_section)]
    return hint


def config(cls):
    """Make `cls` (fields declared with `setting`) a config: a pydantic dataclass with `extra="forbid"`,
    strict scalars, the declared choices (`Literal` types or `choices=`) and ranges (`ge`, `gt`, ...)
    checked when an instance is built; a failure raises ConfigError naming the key."""
    hints = typing.get_type_hints(cls, include_extras=True)
    cls.__config_hints__ = typing.get_type_hints(cls)
    for name in list(cls.__dict__.get("__annotations__", {})):
        f = cls.__dict__.get(name)
        meta = f.metadata if isinstance(f, Field) else {}
        hint = _strict(hints[name])
        base, optional = base_type(hints[name])
        if meta.get("choices") and base is str:
            hint = Literal[tuple(meta["choices"])]
            hint = typing.Optional[hint] if optional else hint
        bounds = {k: meta[k] for k in _RANGE_KEYS if meta.get(k) is not None}
        cls.__annotations__[name] = Annotated[hint, pydantic.Field(description=meta.get("help") or None, **bounds)]
    cls = pydantic.dataclasses.dataclass(cls, config=ConfigDict(extra="forbid", arbitrary_types_allowed=True))
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        try:
            init(self, *args, **kwargs)
        except ValidationError as err:
            raise config_error(err, type(self), kwargs) from None
    cls.__init__ = __init__
    return cls


def is_config(cls) -> bool:
    return isinstance(cls, type) and is_dataclass(cls) and hasattr(cls, "__pydantic_fields__")


_TYPE_ERRORS = ("_type", "_parsing", "dataclass_exact_type", "is_instance_of", "dataclass_type", "union_tag")


def config_error(err: ValidationError, cls, values: Mapping | None = None, where: str = "") -> ConfigError:
    """The first problem of a pydantic ValidationError as a ConfigError whose message starts with the
    dotted key (`where.section.key: ...`)."""
    e = err.errors(include_url=False)[0]
    loc, kind = e["loc"], e["type"]
    path, hint, cur, owner, value = [], None, cls, cls, values if values is not None else {}
    for part in loc:
        if not (isinstance(part, str) and isinstance(cur, type) and is_dataclass(cur)
                and part in {f.name for f in fields(cur)}):
            break
        path.append(part)
        owner, hint = cur, hints_of(cur)[part]
        cur = base_type(hint)[0]
        value = value.get(part, MISSING) if isinstance(value, Mapping) else getattr(value, part, MISSING)

    def key_of(parts):
        return ".".join(p for p in (where, *parts) if p)
    if kind in ("unexpected_keyword_argument", "extra_forbidden"):
        unknown = loc[len(path)] if len(loc) > len(path) else loc[-1]
        known = sorted(f.name for f in fields(cur)) if isinstance(cur, type) and is_dataclass(cur) else []
        section = key_of(path)
        return ConfigError(f"{section + ': ' if section else ''}unknown key {unknown!r}; known: {', '.join(known)}",
                           key=".".join((*path, str(unknown))))
    if kind in ("value_error", "assertion_error"):
        cause = (e.get("ctx") or {}).get("error")
        inner = getattr(cause, "key", None)
        parts = [*path, *inner.split(".")] if inner else path
        msg = str(cause) if cause is not None else e["msg"]
        key = key_of(parts)
        return ConfigError(f"{key}: {msg}" if key else msg, key=".".join(parts) or None)
    key = key_of(path)
    got = e.get("input") if value is MISSING else value
    if kind in ("missing", "missing_argument", "missing_keyword_only_argument", "missing_positional_only_argument"):
        return ConfigError(f"{key}: required", key=".".join(path))
    if kind == "literal_error":
        choices = typing.get_args(base_type(hint)[0]) if hint is not None else ()
        return ConfigError(f"{key}: must be one of {', '.join(map(str, choices))}; got {got!r}", key=".".join(path))
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        bounds = {k: v for k, v in (e.get("ctx") or {}).items() if k in _RANGE_KEYS}
        if path:  # both ends of the declared range, not only the one broken
            bounds.update(next((s.bounds for s in settings_of(owner) if s.name == path[-1]), {}))
        return ConfigError(f"{key}: must be {_range_text(bounds)}, got {got!r}", key=".".join(path))
    if hint is not None and any(t in kind for t in _TYPE_ERRORS):
        return ConfigError(f"{key}: expected {type_name(hint)}, got {got!r}", key=".".join(path))
    return ConfigError(f"{key}: {e['msg']}" if key else e["msg"], key=".".join(path) or None)


# ---------------------------------------------------------------------------------------------
# Mappings (a YAML run config) -> typed configs, every key and value checked

def from_mapping(cls, values: Mapping[str, Any] | None, where: str = ""):
    """Build config `cls` (a `@config` class) from a mapping (a YAML section), naming any unknown key,
    mistyped value, value outside its choices or number out of range as `where.key` in a ConfigError."""
    values = dict(values or {})
    try:
        return cls.__pydantic_validator__.validate_python(values)
    except ValidationError as err:
        raise config_error(err, cls, values, where) from None


def json_schema(cls, skip: Sequence[str] = ()) -> dict:
    """The JSON schema of config `cls` as a YAML/JSON mapping (fields in `skip` left out)."""
    schema = TypeAdapter(cls).json_schema()
    for name in skip:
        schema.get("properties", {}).pop(name, None)
        if name in schema.get("required", []):
            schema["required"].remove(name)
    if not schema.get("required"):
        schema.pop("required", None)
    return schema


def describe(cls, prefix: str = "", skip: Sequence[str] = ()) -> list[str]:
    """One line per key of `cls` (nested sections walked): `key (type, default X): meaning (choices, range)`."""
    lines = []
    for s in settings_of(cls):
        if s.name in skip:
            continue
        if s.section is not None:
            lines += describe(s.section, f"{prefix}{s.name}.")
            continue
        doc = s.help
        extra = [" | ".join(map(str, s.choices))] if s.choices else []
        if s.bounds:
            extra.append(_range_text(s.bounds))
        if extra:
            doc = f"{doc} ({'; '.join(extra)})" if doc else "; ".join(extra)
        lines.append(f"{prefix}{s.name} ({type_name(s.hint)}, "
                     + ("required" if s.default is MISSING else f"default {s.default!r}") + ")"
                     + (f": {doc}" if doc else ""))
    return lines
