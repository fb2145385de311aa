"""Where prompt sets came from and the terms they are under: the sources file (YAML) that clean reads, the
terms policy checked before any work, and the sources record every later stage carries (manifests, the
files' schema metadata, the head's folder) so a shard or a head says which terms its rows fall under.

A sources file (paths and globs relative to the file's own folder; gs:// as given):

    sources:
      - name: quickstart
        path: prompts.jsonl
        url: https://github.com/eaglekit/eaglekit
        licence: Apache-2.0          # an SPDX id, or unknown
        terms: written for eaglekit; no third-party text

Library code: no click. Errors are SourcesError (a ValueError) naming the file, the record and the fix.
"""
from __future__ import annotations

import os
import re
from typing import Any, Iterable, Mapping

from eaglekit.config import ConfigError, config, from_mapping, setting

UNKNOWN = "unknown"
# The explicit allowance of inputs without declared terms for a whole environment (a CI box with
# fixtures), recorded in the manifest and the data card like --allow-unknown-terms.
ALLOW_UNKNOWN_ENV = "EAGLEKIT_ALLOW_UNKNOWN_TERMS"
# SPDX licence ids and expressions (MIT, Apache-2.0, CC-BY-4.0, LicenseRef-x, "MIT OR Apache-2.0")
_SPDX = re.compile(r"[A-Za-z0-9][A-Za-z0-9.+-]*(?: (?:AND|OR|WITH) [A-Za-z0-9][A-Za-z0-9.+-]*)*")
# Licences that let anyone train and ship a model on the text; anything else needs a decision
# (terms.allowed_licences, or terms.allow_sources for one source).
PERMISSIVE = ("Apache-2.0", "MIT", "BSD-2-Clause", "BSD-3-Clause", "ISC", "CC0-1.0", "CC-BY-3.0", "CC-BY-4.0",
              "CC-BY-SA-3.0", "CC-BY-SA-4.0", "ODC-By-1.0", "ODbL-1.0", "PDDL-1.0", "Unlicense")
# Phrases in a source's terms (or its licence id) that refuse it: non-commercial use, and the terms of
# model providers that forbid training models that compete with theirs.
REFUSING_TERMS = ("non-commercial", "noncommercial", "non commercial", "-NC-", "competing model",
                  "compete with", "competitive model")


class SourcesError(ValueError):
    """A sources file, a licence or the terms policy stops the run; the message names the file and the fix."""


@config
class Source:
    """One entry of a sources file."""
    name: str = setting(help="the data set's name (on every prompt row's provenance)")
    path: str = setting(help="file or glob, relative to the sources file's folder (gs:// as given)")
    url: str | None = setting(None, "where the data set came from")
    licence: str = setting(UNKNOWN, "an SPDX licence id (Apache-2.0, CC-BY-4.0, ...) or unknown")
    terms: str = setting("", "free-text terms of use, e.g. 'written by model X, whose terms forbid training "
                             "competing models'")

    def __post_init__(self):
        if not self.name.strip():
            raise ConfigError("must not be empty", key="name")
        check_licence(self.licence, key="licence")


@config
class TermsPolicy:
    """Which terms clean accepts; checked before any work. An input outside them is refused, naming the file.
    The lists replace the defaults in a config file; the flags add to them (a flag given to accept one more
    licence must not silently drop the others, nor one more refusing phrase the defaults)."""
    allowed_licences: list[str] = setting(factory=lambda: list(PERMISSIVE),
                                          help="SPDX licence ids accepted (the list; the default: permissive licences)",
                                          cli=False)
    also_allowed: list[str] = setting(factory=list, help="SPDX licence ids accepted besides allowed_licences "
                                                         "(repeatable)", flag="--allow-licence")
    refuse_terms: list[str] = setting(factory=lambda: list(REFUSING_TERMS),
                                      help="phrases that refuse a source when its licence or terms hold them "
                                           "(case-insensitive; the list)", cli=False)
    also_refused: list[str] = setting(factory=list, help="phrases that refuse a source besides refuse_terms "
                                                         "(repeatable)", flag="--refuse-terms")
    allow_unknown: bool = setting(False, "accept inputs whose licence is unknown (recorded as such in the "
                                         "manifest and data card)", flag="--allow-unknown-terms")
    allow_sources: list[str] = setting(factory=list, help="source names accepted whatever their licence or terms "
                                                          "(an explicit decision, recorded; repeatable)",
                                       flag="--allow-source")


def check_licence(licence: str, key: str = "licence") -> None:
    if licence != UNKNOWN and not _SPDX.fullmatch(licence):
        raise ConfigError(f"{licence!r} is not an SPDX licence id (e.g. Apache-2.0, MIT, CC-BY-4.0) or "
                          f"'{UNKNOWN}'", key=key)


def _join(folder: str, path: str) -> str:
    return path if "://" in path or os.path.isabs(path) else os.path.join(folder, path)


def load_sources(path: str) -> list[Source]:
    """The entries of sources file `path` (YAML: a `sources:` list, or a bare list), each checked; relative
    paths are made relative to the file's folder."""
    import yaml
    from apache_beam.io.filesystems import FileSystems  # any Beam filesystem: gs:// sources files too
    try:
        with FileSystems.open(path) as f:
            raw = yaml.safe_load(f.read().decode("utf-8"))
    except (OSError, IOError) as err:
        raise SourcesError(f"--sources {path}: cannot read it ({err}); check the path") from None
    except yaml.YAMLError as err:
        raise SourcesError(f"{path}: not valid YAML: {err}") from None
    entries = raw.get("sources") if isinstance(raw, dict) else raw
    if not isinstance(entries, list) or not entries:
        raise SourcesError(f"{path}: expected a `sources:` list of entries (name, path, url, licence, terms); "
                           f"see docs/sources.md")
    folder = os.path.dirname(path) if "://" not in path else path.rsplit("/", 1)[0]
    out, seen = [], {}
    for i, entry in enumerate(entries):
        label = entry.get("name") if isinstance(entry, dict) else None
        where = f"{path}: sources[{i}]" + (f" ({label})" if label else "")
        if not isinstance(entry, dict):
            raise SourcesError(f"{where}: expected a mapping with name, path, url, licence, terms")
        try:
            src = from_mapping(Source, entry, where)
        except ConfigError as err:
            raise SourcesError(f"{err}; fix the entry") from None
        if src.name in seen:
            raise SourcesError(f"{where}: name {src.name!r} is also sources[{seen[src.name]}]; names must differ")
        seen[src.name] = i
        out.append(Source(name=src.name, path=_join(folder, src.path), url=src.url, licence=src.licence,
                          terms=src.terms))
    return out


def resolve(files: list[str], declared: list[tuple[Source, list[str]]], licence: str | None,
            default_name) -> list[dict]:
    """The sources of a clean run: each declared source with the files its path matched, then the other input
    files, grouped by `default_name(file)` (their stem, or --source-name), under `licence` or unknown. A file
    two sources claim, or an input named like a declared source, is an error naming both. Returns records
    {name, url, licence, terms, files: [file, ...]}."""
    if licence is not None:
        check_licence(licence, key="licence")
    owner: dict[str, str] = {}
    out = []
    for src, matched in declared:
        for f in matched:
            if f in owner:
                raise SourcesError(f"{f}: claimed by sources {owner[f]!r} and {src.name!r}; give each file one source")
            owner[f] = src.name
        out.append({"name": src.name, "url": src.url, "licence": src.licence, "terms": src.terms,
                    "files": sorted(matched)})
    undeclared: dict[str, list[str]] = {}
    for f in files:
        if f not in owner:
            undeclared.setdefault(default_name(f), []).append(f)
    for name, group in sorted(undeclared.items()):
        if name in {s["name"] for s in out}:
            raise SourcesError(f"{group[0]}: named {name!r} like a source of the sources file, but not one of its "
                               f"files; add it to that source's path, or name it otherwise (--source-name)")
        out.append({"name": name, "url": None, "licence": licence or UNKNOWN, "terms": "", "files": sorted(group)})
    return out


def _refusing(src: Mapping, phrases: Iterable[str]) -> str | None:
    text = f"{src.get('licence') or ''} {src.get('terms') or ''}".lower()
    return next((p for p in phrases if p.lower() in text), None)


def check_terms(sources: list[dict], policy: TermsPolicy, env: Mapping[str, str] | None = None) -> list[dict]:
    """Apply the terms policy to resolved sources (see `resolve`): return them with `allowed_by` (policy,
    terms.allow_sources, terms.allow_unknown or the environment variable), or raise SourcesError listing
    every refused source with its files and the fix. Called before any work."""
    env = os.environ if env is None else env
    env_unknown = env.get(ALLOW_UNKNOWN_ENV, "").strip().lower() in ("1", "true", "yes")
    allowed = {a.lower() for a in (*policy.allowed_licences, *policy.also_allowed)}
    phrases = (*policy.refuse_terms, *policy.also_refused)
    refused, out = [], []
    for src in sources:
        files = ", ".join(src["files"]) or "(no file)"
        phrase = _refusing(src, phrases)
        if src["name"] in policy.allow_sources:
            by = "terms.allow_sources"
        elif src["licence"] == UNKNOWN:
            if policy.allow_unknown:
                by = "terms.allow_unknown"
            elif env_unknown:
                by = f"{ALLOW_UNKNOWN_ENV}=1"
            else:
                refused.append(f"{files}: no licence declared (source {src['name']!r}); fix: declare it in a "
                               f"sources file (--sources FILE; clean.sources in run.yaml) or with --licence SPDX-ID "
                               f"(clean.licence), or accept unknown terms explicitly with --allow-unknown-terms "
                               f"(clean.terms.allow_unknown)")
                continue
            if phrase:  # unknown licence, but the terms given say enough to refuse it
                refused.append(_refused_by_terms(files, src, phrase))
                continue
        elif phrase:
            refused.append(_refused_by_terms(files, src, phrase))
            continue
        elif src["licence"].lower() not in allowed and not _expression_allowed(src["licence"], allowed):
            refused.append(f"{files}: licence {src['licence']} is not among the allowed licences (source "
                           f"{src['name']!r}); fix: leave it out, accept the licence with --allow-licence "
                           f"{src['licence']} (clean.terms.also_allowed), or this source with --allow-source "
                           f"{src['name']} (clean.terms.allow_sources)")
            continue
        else:
            by = "policy"
        out.append({**src, "allowed_by": by})
    if refused:
        raise SourcesError("terms policy refuses " + ("this input" if len(refused) == 1 else
                                                       f"{len(refused)} inputs") + ": " + "; ".join(refused))
    return out


def _refused_by_terms(files: str, src: Mapping, phrase: str) -> str:
    return (f"{files}: its licence or terms say {phrase!r} (source {src['name']!r}, licence {src['licence']}); fix: "
            f"leave it out, or accept it explicitly with --allow-source {src['name']} (clean.terms.allow_sources)")


def _expression_allowed(expr: str, allowed: set[str]) -> bool:
    """`A OR B`: allowed when either is; `A AND B`: when both are (an SPDX expression's meaning)."""
    if " OR " in expr:
        return any(p.strip().lower() in allowed for p in expr.split(" OR "))
    if " AND " in expr:
        return all(p.strip().lower() in allowed for p in expr.split(" AND "))
    return False


def carried(sources: Iterable[Mapping]) -> list[dict]:
    """What later stages carry of a clean run's sources (schema metadata, manifests, the head's folder): name,
    url, licence, terms and how each was allowed; no per-file counts (those stay in the clean manifest)."""
    keys = ("name", "url", "licence", "terms", "allowed_by")
    return [{k: s.get(k) for k in keys} for s in sources]


def merge(*lists: Iterable[Mapping] | None) -> list[dict]:
    """The union of several sources lists (input files of one stage, several feature folders), by name;
    the same name under different licences or terms is an error (rows would have two sets of terms)."""
    by_name: dict[str, dict] = {}
    for items in lists:
        for s in items or ():
            s = carried([s])[0]
            have = by_name.setdefault(s["name"], s)
            if (have["licence"], have["terms"]) != (s["licence"], s["terms"]):
                raise SourcesError(f"source {s['name']!r} comes under two sets of terms ({have['licence']!r} and "
                                   f"{s['licence']!r}); re-run clean for one of the inputs with one sources file")
    return [by_name[k] for k in sorted(by_name)]


def from_metadata(metas: Iterable[Mapping[str, Any]]) -> list[dict]:
    """The merged `sources` of several files' schema metadata (files from before sources were recorded: none)."""
    return merge(*(m.get("sources") for m in metas))
