"""Click options generated from a typed config (eaglekit.config.setting): the flag, type, choices, range,
default and help of each option come from the field's declaration, so the CLI, the YAML keys and the help
text cannot drift apart."""
from __future__ import annotations

import typing
from dataclasses import MISSING, fields

import click

from eaglekit.config import default_of


def _base(hint):
    """(the type without None, whether None is allowed)."""
    args = typing.get_args(hint)
    if type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return (rest[0] if len(rest) == 1 else str), True
    return hint, False


def _int_tuple(ctx, param, value):
    if value in (None, ""):
        return None
    try:
        return tuple(int(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter(f"{value!r}: give comma-separated integers, e.g. 2,15,27") from None


def _option(f, hint, name: str | None = None, dest: str | None = None):
    meta = f.metadata
    name = name or meta.get("flag") or "--" + f.name.replace("_", "-")
    dest = dest or f.name
    default = default_of(f)
    required = default is MISSING
    kw = dict(default=None if required else default, required=required, help=meta.get("help") or "",
              show_default=not required and default is not None)
    base, optional = _base(hint)
    origin = typing.get_origin(base)
    if base is bool:
        return click.option(f"{name}/--no-{name[2:]}", dest, **kw)
    if origin is list:
        kw.update(multiple=True, default=tuple(default or ()), show_default=bool(default))
        return click.option(name, dest, **kw)
    if origin is tuple:
        return click.option(name, dest, type=str, callback=_int_tuple, **kw)
    if meta.get("choices"):
        kind = click.Choice(list(meta["choices"]))
    elif meta.get("low") is not None or meta.get("high") is not None:
        kind = (click.FloatRange if base is float else click.IntRange)(meta.get("low"), meta.get("high"))
    else:
        kind = {int: int, float: float}.get(base, str)
    return click.option(name, dest, type=kind, **kw)


def field_option(cls, field_name: str, flag: str, dest: str):
    """One click option `flag` (received as `dest`) whose type, default, choices, range and help come from
    the field `field_name` of the dataclass `cls`: for commands whose flags are not the config's own field
    names (clean's flat flags over its nested reader/near/pii sections)."""
    f = next(f for f in fields(cls) if f.name == field_name)
    return _option(f, typing.get_type_hints(cls)[field_name], name=flag, dest=dest)


def config_options(cls, skip: typing.Iterable[str] = ()):
    """Decorate a click command with one option per CLI field of the dataclass `cls` (fields declared
    with `cli=False`, or named in `skip`, left out); the command receives them as keyword arguments named
    like the fields."""
    hints = typing.get_type_hints(cls)
    chosen = [f for f in fields(cls) if f.metadata.get("cli", True) and f.name not in set(skip)]

    def decorate(func):
        for f in reversed(chosen):
            func = _option(f, hints[f.name])(func)
        return func
    return decorate
