"""Click options generated from a typed config (eaglekit.config): the flag, type, choices, range, default,
help and environment variable of each option come from the field's declaration, so the CLI, the YAML keys,
the help text and the checks cannot drift apart.

Every command built this way also takes `--config FILE.yaml` (the command's keys, as in its JSON schema);
a value comes from the flag given on the command line, else from that file, else from the field's default
(flag > YAML file > default), and the whole config is checked once, when it is built (`build`).
"""
from __future__ import annotations

import typing
from dataclasses import MISSING
from typing import Any, Callable, Mapping

import click
from click.core import ParameterSource

from eaglekit.config import ConfigError, Setting, base_type, from_mapping, settings_of

CONFIG_FILE = "config_file"   # the --config option's parameter name
_SEP = "__"                   # a nested field's parameter name: section__field


def _int_tuple(value: str):
    try:
        return tuple(int(v) for v in value.split(","))
    except ValueError:
        raise ValueError(f"{value!r}: give comma-separated integers, e.g. 2,15,27") from None


def _parsing(parse: Callable[[str], Any], many: bool):
    def callback(ctx, param, value):
        if value in (None, "", ()):
            return value
        try:
            return tuple(parse(v) for v in value) if many else parse(value)
        except ValueError as err:
            raise click.BadParameter(str(err), ctx, param) from None
    return callback


def _shown(value) -> str:
    """A default as the user would type it: 2,15,27 for a tuple, repeated forms for a list of them."""
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, (list, tuple)) for v in value):
        return " ".join(",".join(map(str, v)) for v in value)
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def option_for(s: Setting, flag: str | None = None, dest: str | None = None, parse: Callable | None = None):
    """The click option of config field `s` (named `flag`, received as `dest`; `parse` for its own syntax)."""
    name = flag or s.flag or "--" + s.name.replace("_", "-")
    dest = dest or s.name
    parse = parse or s.parse
    base, _ = base_type(s.hint)
    origin, args = typing.get_origin(base), typing.get_args(base)
    default = None if s.default is MISSING else s.default
    kw = dict(default=default, help=s.help, show_default=default is not None and default != (),
              envvar=s.envvar, show_envvar=bool(s.envvar))
    if base is bool:
        return click.option(f"{name}/--no-{name[2:]}", dest, **kw)
    many = origin is list or (origin is tuple and args[:1] != (int,) and not parse)
    if origin is tuple and args[:1] == (int,) and not parse:  # layer ids: 2,15,27
        parse = _int_tuple
    if parse:  # given values are parsed; the default is the config's own (shown, not parsed)
        kw.update(callback=_parsing(parse, many), default=() if many else None,
                  show_default=_shown(default) if default not in (None, (), []) else False)
        kind = str
    elif s.choices:
        kind = click.Choice([str(c) for c in s.choices])
    elif s.bounds and base in (int, float):
        b = s.bounds
        kind = (click.FloatRange if base is float else click.IntRange)(
            b.get("ge", b.get("gt")), b.get("le", b.get("lt")), min_open="gt" in b, max_open="lt" in b)
    else:
        item = args[0] if origin in (list, tuple) and args else base
        kind = {int: int, float: float}.get(item, str)
    if many and not parse:
        kw.update(multiple=True, default=tuple(default or ()), show_default=bool(default))
    elif many:
        kw["multiple"] = True
    return click.option(name, dest, type=kind, **kw)


def _find(cls, path: str) -> Setting:
    head, _, rest = path.partition(".")
    s = next((s for s in settings_of(cls) if s.name == head), None)
    if s is None:
        raise KeyError(f"{cls.__name__} has no field {head!r}")
    return _find(s.section, rest) if rest else s


def config_options(cls, skip: typing.Iterable[str] = (), nested: Mapping[str, Any] | None = None,
                   config_file: bool = True):
    """Decorate a click command with one option per CLI field of config `cls` (fields declared `cli=False`
    or named in `skip` left out), plus `nested`: {"section.field": "--flag" or ("--flag", parse)} options for
    fields of nested sections; and `--config FILE` unless `config_file` is False. The command receives them
    as keyword arguments (a nested one as `section__field`); `build` turns them into the config."""
    skip = set(skip)
    opts = [option_for(s) for s in settings_of(cls) if s.cli and s.name not in skip and s.section is None]
    for path, spec in (nested or {}).items():
        flag, parse = (spec, None) if isinstance(spec, str) else spec
        opts.append(option_for(_find(cls, path), flag, path.replace(".", _SEP), parse))
    if config_file:
        opts.append(click.option("--config", CONFIG_FILE, default=None, type=click.Path(dir_okay=False),
                                 help="YAML file of this command's keys (see --help); flags given here override it."))

    def decorate(func):
        for o in reversed(opts):
            func = o(func)
        return func
    return decorate


def load_yaml(path: str, where: str = "--config") -> dict:
    import os

    import yaml
    if not os.path.isfile(path):
        raise click.BadParameter(f"config file not found: {path}", param_hint=where)
    try:
        raw = yaml.safe_load(open(path, encoding="utf-8").read()) or {}
    except yaml.YAMLError as err:
        raise click.BadParameter(f"{path}: not valid YAML: {err}", param_hint=where) from None
    if not isinstance(raw, dict):
        raise click.BadParameter(f"{path}: the top level must be a mapping of keys", param_hint=where)
    return raw


def given(ctx: click.Context, name: str) -> bool:
    """Whether option `name` was given (command line or environment), not left at its default."""
    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT,
                                              ParameterSource.PROMPT)


def _put(values: dict, key: str, value) -> None:
    """values[a][b] = value for the dotted key "a.b" (sections made as needed)."""
    *parents, leaf = key.split(".")
    for part in parents:
        values = values.setdefault(part, {})
    values[leaf] = value


def build(cls, ctx: click.Context, params: Mapping[str, Any], where: str = "",
          overrides: Mapping[str, Any] | None = None):
    """Config `cls` from a command's parameters: the --config file's keys, then every option given on the
    command line (flag > YAML file > default), then `overrides` (values the command sets itself, by
    dotted key). A bad value is a click usage error naming the flag and the key. Parameters that are not
    config fields are ignored."""
    values: dict[str, Any] = {}
    if params.get(CONFIG_FILE):
        values = load_yaml(params[CONFIG_FILE])
    flags = {}
    fields = {s.name for s in settings_of(cls)}
    for p in ctx.command.params:
        if p.name == CONFIG_FILE or p.name not in params or p.name.split(_SEP)[0] not in fields:
            continue
        key = p.name.replace(_SEP, ".")
        flags[key] = p.opts[0]
        if given(ctx, p.name):
            _put(values, key, params[p.name])
    for key, value in (overrides or {}).items():
        _put(values, key, value)
    try:
        return from_mapping(cls, values, where)
    except ConfigError as err:
        flag = flags.get(err.key or "")
        if str(err).endswith(": required") and flag:
            raise click.UsageError(f"Missing option '{flag}' (or key {err.key} in --config).", ctx) from None
        raise click.BadParameter(str(err), ctx, param_hint=f"'{flag}'" if flag else None) from None
