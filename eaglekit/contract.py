"""The data contract in code: build Arrow schemas from the JSON files in `schemas/`, attach and read
schema-level metadata, and validate a file's schema with errors that say exactly what differs.

Also the one home of what the features metadata holds (`features_metadata`) and of the two aux-layer id
conventions (`aux_layers`, `aux_ids_hf`): featurize writes them, train and export read them here.

Imports nothing else of eaglekit (a wall worth keeping: readers outside eaglekit only need the JSON).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping

import pyarrow as pa

from schemas import SCHEMA_DIR

META_PREFIX = "eaglekit."
SCHEMA_NAMES = ("prompt", "conversation", "features")

_PRIMITIVES = {
    "bool": pa.bool_(), "int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
    "uint8": pa.uint8(), "uint16": pa.uint16(), "uint32": pa.uint32(), "uint64": pa.uint64(),
    "float16": pa.float16(), "float32": pa.float32(), "float64": pa.float64(),
    "string": pa.string(), "large_string": pa.large_string(), "binary": pa.binary(),
}
# Storage type of one hidden-state element, per codec.
HIDDEN_STORAGE = {"bf16": "uint16", "fp8_e4m3": "uint8"}


class ContractError(ValueError):
    """A file, schema or metadata does not match the eaglekit data contract."""


@lru_cache(maxsize=None)
def load_spec(name: str) -> dict:
    """The parsed JSON schema file `schemas/<name>.json`."""
    if name not in SCHEMA_NAMES:
        raise ContractError(f"unknown schema {name!r}; known: {', '.join(SCHEMA_NAMES)}")
    return json.loads((SCHEMA_DIR / f"{name}.json").read_text())


def _placeholders(meta: Mapping[str, Any]) -> dict[str, Any]:
    values = dict(meta)
    if "hidden_codec" in meta:
        values["hidden_storage"] = HIDDEN_STORAGE[meta["hidden_codec"]]
    return values


def _resolve(value: Any, values: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        m = re.fullmatch(r"\$\{(\w+)\}", value)
        if m:
            if m.group(1) not in values:
                raise ContractError(f"schema needs metadata {m.group(1)!r} to size a column")
            return values[m.group(1)]
    return value


def _arrow_type(spec: Any, values: Mapping[str, Any], optional: bool = True) -> pa.DataType:
    """The Arrow type of a schema-file type; `optional` False leaves out struct members marked optional (the
    shape of files written before those members were added)."""
    spec = _resolve(spec, values)
    if isinstance(spec, str):
        return _PRIMITIVES[spec]
    if "list" in spec:
        return pa.list_(_arrow_type(spec["list"], values, optional))
    if "fixed_size_list" in spec:
        return pa.list_(_arrow_type(spec["fixed_size_list"], values, optional), int(_resolve(spec["size"], values)))
    if "struct" in spec:
        return pa.struct([_arrow_field(f, values, optional) for f in spec["struct"]
                          if optional or not f.get("optional")])
    raise ContractError(f"bad type in schema file: {spec!r}")


def _arrow_field(spec: Mapping, values: Mapping[str, Any], optional: bool = True) -> pa.Field:
    return pa.field(spec["name"], _arrow_type(spec["type"], values, optional), nullable=spec.get("nullable", True))


def _applies(when: Mapping[str, Any] | None, meta: Mapping[str, Any]) -> bool:
    for key, want in (when or {}).items():
        allowed = want if isinstance(want, list) else [want]
        if meta.get(key) not in allowed:
            return False
    return True


def check_metadata(name: str, meta: Mapping[str, Any], where: str = "metadata") -> None:
    """Raise ContractError listing every missing, mistyped or out-of-range metadata value."""
    problems = []
    for key, rule in load_spec(name)["metadata"].items():
        if key not in meta or meta[key] is None:
            if rule.get("required"):
                problems.append(f"missing {key!r} ({rule['description']})")
            continue
        value, kind = meta[key], rule["type"]
        ok = {"string": isinstance(value, str), "int": isinstance(value, int) and not isinstance(value, bool),
              "int_list": isinstance(value, list) and all(isinstance(v, int) for v in value),
              "object_list": isinstance(value, list) and all(isinstance(v, dict) for v in value)}[kind]
        if not ok:
            problems.append(f"{key!r} should be {kind}, got {value!r}")
        elif "enum" in rule and value not in rule["enum"]:
            problems.append(f"{key!r} is {value!r}; allowed: {', '.join(rule['enum'])}")
    if problems:
        raise ContractError(f"{where}: {name} metadata does not match the contract: " + "; ".join(problems))


def arrow_schema(name: str, meta: Mapping[str, Any] | None = None) -> pa.Schema:
    """The concrete Arrow schema for `name`, with columns chosen and sized by `meta`, and `meta`
    attached as schema-level metadata (one `eaglekit.<key>` entry per value, JSON-encoded)."""
    spec = load_spec(name)
    meta = dict(meta or {})
    check_metadata(name, meta, where=f"building the {name} schema")
    values = _placeholders(meta)
    fields = [_arrow_field(f, values) for f in spec["fields"] if _applies(f.get("when"), meta)]
    encoded = {f"{META_PREFIX}{k}": json.dumps(v) for k, v in meta.items()}
    encoded[f"{META_PREFIX}schema"] = name
    encoded[f"{META_PREFIX}schema_version"] = str(spec["version"])
    return pa.schema(fields, metadata=encoded)


def read_metadata(schema: pa.Schema) -> dict[str, Any]:
    """The eaglekit metadata of an Arrow schema as plain Python values (schema name/version included)."""
    out: dict[str, Any] = {}
    for key, raw in (schema.metadata or {}).items():
        key = key.decode()
        if not key.startswith(META_PREFIX):
            continue
        key = key[len(META_PREFIX):]
        raw = raw.decode()
        out[key] = raw if key == "schema" else json.loads(raw)
    return out


def validate_schema(actual: pa.Schema, name: str, where: str = "file") -> dict[str, Any]:
    """Check that `actual` is a valid `name` schema of the current version; return its metadata.

    The error names the file (`where`) and every difference: schema name or version, metadata,
    missing, unexpected or mistyped columns.
    """
    meta = read_metadata(actual)
    got_name, got_version = meta.get("schema"), meta.get("schema_version")
    version = load_spec(name)["version"]
    if got_name is None:
        raise ContractError(f"{where}: not an eaglekit {name} file (no 'eaglekit.schema' in its Arrow metadata)")
    if got_name != name:
        raise ContractError(f"{where}: expected an eaglekit {name} file, found a {got_name} file")
    if got_version != version:
        raise ContractError(f"{where}: {name} schema version {got_version}, this eaglekit reads version {version}; "
                            f"re-create the file with this eaglekit or install the eaglekit that wrote it "
                            f"({meta.get('eaglekit_version', 'unknown')})")
    body = {k: v for k, v in meta.items() if k not in ("schema", "schema_version")}
    check_metadata(name, body, where=where)
    expected = arrow_schema(name, body)
    problems = []
    exp_fields = {f.name: f for f in expected}
    got_fields = {f.name: f for f in actual}
    for col in exp_fields.keys() - got_fields.keys():
        problems.append(f"missing column {col!r} ({exp_fields[col].type})")
    for col in got_fields.keys() - exp_fields.keys():
        problems.append(f"unexpected column {col!r}")
    # a file from before an optional struct member was added (provenance.source) is still valid
    older = {f["name"]: _arrow_type(f["type"], _placeholders(body), optional=False)
             for f in load_spec(name)["fields"] if _applies(f.get("when"), body)}
    for col in exp_fields.keys() & got_fields.keys():
        if not got_fields[col].type.equals(exp_fields[col].type) and not got_fields[col].type.equals(older[col]):
            problems.append(f"column {col!r} is {got_fields[col].type}, expected {exp_fields[col].type}")
    if problems:
        raise ContractError(f"{where}: does not match the {name} v{version} schema: " + "; ".join(sorted(problems)))
    return body


def require_same(expected: Mapping[str, Any], actual: Mapping[str, Any], keys: tuple[str, ...],
                 where: str, fix: str) -> None:
    """Raise when two metadata sets differ on any of `keys` (e.g. shards from another target)."""
    diffs = [f"{k}: found {actual.get(k)!r}, expected {expected.get(k)!r}" for k in keys if actual.get(k) != expected.get(k)]
    if diffs:
        raise ContractError(f"{where}: " + "; ".join(diffs) + f". {fix}")


# ---------------------------------------------------------------------------------------------
# Aux-layer ids come in two conventions that differ by one: SGLang/SpecForge id v = output of decoder layer
# v; HF `output_hidden_states` / vLLM / speculators id v = input of layer v. Feature shards store them in
# "hf" with the convention beside them (`aux_layer_convention`); export writes SGLang's.

@dataclass(frozen=True)
class AuxLayers:
    hf: tuple[int, int, int]       # index into HF output_hidden_states (0 = embeddings)
    sglang: tuple[int, int, int]   # 0-based decoder layer whose output is taken


def sglang_to_hf(ids) -> tuple[int, ...]:
    return tuple(int(v) + 1 for v in ids)


def hf_to_sglang(ids) -> tuple[int, ...]:
    return tuple(int(v) - 1 for v in ids)


def default_aux_layers(num_hidden_layers: int) -> AuxLayers:
    """EAGLE-3's default low/mid/high layers for an L-layer target, in both conventions."""
    L = int(num_hidden_layers)
    if L < 5:
        raise ContractError(f"EAGLE-3 needs a target with at least 5 decoder layers, this one has {L}")
    sglang = (1, L // 2 - 1, L - 4)
    return AuxLayers(hf=sglang_to_hf(sglang), sglang=sglang)


def aux_layers(ids, convention: str, num_hidden_layers: int) -> AuxLayers:
    """Custom layer ids given in `convention` ('hf' or 'sglang'), checked against the target depth."""
    if convention not in ("hf", "sglang"):
        raise ContractError(f"layer-id convention must be 'hf' or 'sglang', got {convention!r}")
    ids = tuple(int(v) for v in ids)
    if len(ids) != 3:
        raise ContractError(f"EAGLE-3 takes exactly three aux layers (low, mid, high), got {list(ids)}")
    hf = ids if convention == "hf" else sglang_to_hf(ids)
    bad = [v for v in hf if not 1 <= v <= num_hidden_layers]
    if bad:
        raise ContractError(f"aux layer ids {list(ids)} ({convention}) fall outside a {num_hidden_layers}-layer target")
    return AuxLayers(hf=hf, sglang=hf_to_sglang(hf))


def aux_ids_hf(meta: Mapping[str, Any]) -> tuple[int, ...]:
    """The aux layer ids of a features metadata set, in the hf convention whatever they were stored in."""
    ids = tuple(int(v) for v in meta["aux_layer_ids"])
    return ids if meta["aux_layer_convention"] == "hf" else sglang_to_hf(ids)


def features_metadata(target_meta: Mapping[str, Any], *, num_hidden_layers: int, hidden_size: int, vocab_size: int,
                      hidden_codec: str, teacher_kind: str, teacher_topk: int, max_length: int, eaglekit_version: str,
                      aux_layer_ids=None, aux_layer_convention: str = "hf", sources=None) -> dict[str, Any]:
    """The schema metadata of a features file (schemas/features.json): the target's identity
    (`target_meta`: model id, revision, tokenizer and chat-template hashes), its sizes, the aux layers
    (EAGLE-3's defaults, or `aux_layer_ids` given in `aux_layer_convention`; stored in hf), the codec
    and the teacher; `sources`: the sources its rows come from (eaglekit.sources.carried), left out when
    none are known. Checked against the contract before it is returned."""
    L = int(num_hidden_layers)
    aux = default_aux_layers(L) if aux_layer_ids is None else aux_layers(aux_layer_ids, aux_layer_convention, L)
    meta = {"eaglekit_version": eaglekit_version, **target_meta, "num_hidden_layers": L,
            "hidden_size": int(hidden_size), "vocab_size": int(vocab_size),
            "aux_layer_ids": list(aux.hf), "aux_layer_convention": "hf", "hidden_codec": hidden_codec,
            "teacher_kind": teacher_kind, "teacher_topk": int(teacher_topk) if teacher_kind == "topk_logprobs" else 0,
            "max_length": int(max_length)}
    if sources:
        meta["sources"] = [dict(s) for s in sources]
    check_metadata("features", meta, where="features metadata")
    return meta


# ---------------------------------------------------------------------------------------------
# Stage manifests (schemas/manifest.json): one shape for clean, generate and featurize.

@lru_cache(maxsize=None)
def manifest_spec() -> dict:
    return json.loads((SCHEMA_DIR / "manifest.json").read_text())


def _manifest_type_ok(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "object":
        return isinstance(value, dict)
    if kind == "string_list":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "object_list":
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    if kind == "step_counts":
        return isinstance(value, dict) and all(
            isinstance(c, dict) and isinstance(c.get("in"), int) and isinstance(c.get("out"), int)
            and isinstance(c.get("dropped"), dict) for c in value.values())
    raise ContractError(f"bad type {kind!r} in schemas/manifest.json")


def check_manifest(manifest: Mapping[str, Any], where: str = "manifest.json") -> None:
    """Raise ContractError naming every missing or mistyped key of a stage manifest."""
    spec = manifest_spec()
    keys = dict(spec["keys"])
    stage = manifest.get("stage")
    keys.update(spec["stage_keys"].get(stage, {}) if isinstance(stage, str) else {})
    problems = []
    for key, rule in keys.items():
        if key not in manifest:
            if rule.get("required"):
                problems.append(f"missing {key!r} ({rule['description']})")
        elif not _manifest_type_ok(manifest[key], rule["type"]):
            problems.append(f"{key!r} should be {rule['type']}")
        elif "enum" in rule and manifest[key] not in rule["enum"]:
            problems.append(f"{key!r} is {manifest[key]!r}; allowed: {', '.join(rule['enum'])}")
    if problems:
        raise ContractError(f"{where}: does not match schemas/manifest.json: " + "; ".join(problems))
