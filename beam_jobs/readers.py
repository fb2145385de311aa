"""Prompt readers for the clean stage: JSONL, JSON (ShareGPT `conversations` with from/value or
role/content, or flat records) and Parquet, on any Beam filesystem (local, globs, gs://, .gz).

Each input record becomes zero or more prompt dicts (the first user turn, or every user turn) with
provenance, or a dead letter naming the file, record and reason (never quoting the text).
"""
from __future__ import annotations

import hashlib
import io
import json
import os
from typing import Any, Iterator

from beam_jobs import io as bio
from eaglekit.config import config, setting

STAGE_READ = "read"
STAGE_EXTRACT = "extract"
USER_ROLES = ("user", "human")
SYSTEM_ROLES = ("system",)
FORMATS = ("jsonl", "json", "parquet")


@config
class ReaderConfig:
    """Where the prompt lives in a record. Chat records (`messages_field`, role/content or from/value)
    win over flat ones (`prompt_field`); the first matching field name is used."""
    prompt_fields: tuple[str, ...] = setting(("prompt", "text", "instruction", "question", "input"),
                                             "field(s) holding a flat prompt, the first present wins (repeatable)")
    messages_fields: tuple[str, ...] = setting(("conversations", "messages"),
                                               "field(s) holding chat messages (repeatable)")
    category_field: str = setting("category", "field holding the prompt's category")
    id_fields: tuple[str, ...] = setting(("id", "question_id", "_id", "uid", "idx"), "the record's own id: the first present")
    system_field: str = setting("system")
    all_user_turns: bool = setting(False, "every user turn as its own prompt (default: the first only)")
    keep_system: bool = setting(True, "keep a leading system turn in the prompt's messages")
    max_chars: int = setting(16000, "longer prompts are dead letters (reason prompt_too_long)", ge=1)
    source_name: str | None = setting(None, "data set name; default: the file's stem")


def file_format(path: str) -> str:
    name = path.lower()
    for suffix in (".gz", ".bz2", ".zst", ".deflate"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    for fmt, exts in (("jsonl", (".jsonl", ".ndjson")), ("json", (".json",)), ("parquet", (".parquet", ".pq"))):
        if name.endswith(exts):
            return fmt
    raise ValueError(f"{path}: unknown input format; use .jsonl, .json (ShareGPT) or .parquet (optionally .gz)")


def source_stem(path: str) -> str:
    base = os.path.basename(path.rstrip("/"))
    return base.split(".")[0] or base


def prompt_id(file: str, record: int, turn: int) -> str:
    return hashlib.sha256(f"{file}\x00{record}\x00{turn}".encode()).hexdigest()[:16]


def _role_content(msg: Any) -> tuple[str | None, Any]:
    if not isinstance(msg, dict):
        return None, None
    role = msg.get("role", msg.get("from"))
    content = msg.get("content", msg.get("value"))
    return (role.lower() if isinstance(role, str) else None), content


def _first(rec: dict, names) -> tuple[str | None, Any]:
    for n in names:
        if n in rec and rec[n] is not None:
            return n, rec[n]
    return None, None


def source_id(rec: dict, names) -> str | None:
    """The record's own id as a string (the first of `names` holding a scalar; JSON spelling for true/false),
    kept beside the stable hash id so outputs join back to the input's ids; None when it has none."""
    for n in names:
        v = rec.get(n)
        if v is None or isinstance(v, (dict, list, tuple)):
            continue
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (bytes, bytearray)):
            return bytes(v).decode("utf-8", errors="backslashreplace")
        return v if isinstance(v, str) else str(v)
    return None


def extract_prompts(rec: Any, file: str, record: int, sha: str | None, cfg: ReaderConfig) -> Iterator[tuple[str, dict]]:
    """('prompt', dict) / ('dead', dead letter) / ('event', (key, n)) items for one parsed record."""
    def dead(stage, reason, detail, turn=None):
        rid = prompt_id(file, record, turn if turn is not None else -1)
        yield "dead", bio.dead_letter(stage, reason, rid, file, record, detail)
        yield "event", (f"{stage}/dropped/{reason}", 1)

    yield "event", (f"{STAGE_READ}/in", 1)
    if not isinstance(rec, dict):
        yield from dead(STAGE_READ, "not_an_object", f"record is a JSON {type(rec).__name__}, expected an object")
        return
    system = rec.get(cfg.system_field) if isinstance(rec.get(cfg.system_field), str) else None
    mfield, messages = _first(rec, cfg.messages_fields)
    turns: list[str | Any] = []
    if mfield is not None:
        if not isinstance(messages, list):
            yield from dead(STAGE_READ, "no_user_turn", f"field {mfield!r} is not a list of messages")
            return
        for m in messages:
            role, content = _role_content(m)
            if role in SYSTEM_ROLES and isinstance(content, str) and system is None and not turns:
                system = content
            elif role in USER_ROLES:
                turns.append(content)
    else:
        pfield, prompt = _first(rec, cfg.prompt_fields)
        if pfield is not None:
            turns.append(prompt)
    if not turns:
        names = ", ".join((*cfg.messages_fields, *cfg.prompt_fields))
        yield from dead(STAGE_READ, "no_user_turn", f"no user turn (looked for fields {names}; map others with --prompt-field/--messages-field)")
        return
    yield "event", (f"{STAGE_READ}/out", 1)
    category = rec.get(cfg.category_field)
    category = None if category is None else str(category)
    source = cfg.source_name or source_stem(file)
    sid = source_id(rec, cfg.id_fields)
    for turn, content in enumerate(turns if cfg.all_user_turns else turns[:1]):
        yield "event", (f"{STAGE_EXTRACT}/in", 1)
        if isinstance(content, (bytes, bytearray)):
            try:
                content = bytes(content).decode("utf-8")
            except UnicodeDecodeError as e:
                yield from dead(STAGE_EXTRACT, "invalid_utf8", f"user turn {turn} is not valid UTF-8 at byte {e.start}", turn)
                continue
        if isinstance(content, str) and not _encodable(content):
            yield from dead(STAGE_EXTRACT, "invalid_utf8", f"user turn {turn} holds unpaired surrogates (not valid UTF-8)", turn)
            continue
        if not isinstance(content, str) or not content.strip():
            yield from dead(STAGE_EXTRACT, "empty_prompt", f"user turn {turn} is empty or not a string", turn)
            continue
        if len(content) > cfg.max_chars:
            yield from dead(STAGE_EXTRACT, "prompt_too_long", f"user turn {turn} has {len(content)} characters > max_chars {cfg.max_chars}", turn)
            continue
        messages = ([{"role": "system", "content": system}] if system and cfg.keep_system else [])
        messages.append({"role": "user", "content": content})
        yield "event", (f"{STAGE_EXTRACT}/out", 1)
        yield "prompt", {
            "id": prompt_id(file, record, turn), "source_id": sid, "source": source, "category": category, "messages": messages,
            "provenance": {"file": file, "file_sha256": sha, "record": int(record), "turn": int(turn), "source": None},
            "pii": [],
        }


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _open(path: str):
    from apache_beam.io.filesystems import FileSystems
    return FileSystems.open(path)


def read_file(path: str, sha: str | None, cfg: ReaderConfig, source: str | None = None) -> Iterator[tuple[str, Any]]:
    """All items of one input file; a file that cannot be read at all is one dead letter. `source`: the name
    of the source the file belongs to (eaglekit.sources), put on each prompt and its provenance."""
    for kind, item in _read_file(path, sha, cfg):
        if kind == "prompt" and source is not None:
            item["source"] = item["provenance"]["source"] = source
        yield kind, item


def _read_file(path: str, sha: str | None, cfg: ReaderConfig) -> Iterator[tuple[str, Any]]:
    fmt = file_format(path)
    try:
        if fmt == "jsonl":
            yield from _read_jsonl(path, sha, cfg)
        elif fmt == "json":
            with _open(path) as f:
                raw = f.read()
            try:
                doc = json.loads(raw.decode("utf-8"))
            except UnicodeDecodeError as e:
                yield from _file_dead(path, "invalid_utf8", f"file is not valid UTF-8 at byte {e.start}")
                return
            except json.JSONDecodeError as e:
                yield from _file_dead(path, "malformed_json", f"file is not one JSON document ({e.msg} at line {e.lineno}); JSON Lines files need the .jsonl extension")
                return
            if isinstance(doc, dict):  # {"data": [...]} wrappers, or a single record
                lists = [v for v in doc.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
                doc = lists[0] if len(lists) == 1 and not any(k in doc for k in cfg.messages_fields) else [doc]
            if not isinstance(doc, list):
                yield from _file_dead(path, "not_an_object", "top level is neither a list of records nor an object")
                return
            for i, rec in enumerate(doc):
                yield from extract_prompts(rec, path, i, sha, cfg)
        else:
            yield from _read_parquet(path, sha, cfg)
    except OSError as e:
        yield from _file_dead(path, "unreadable_file", f"{type(e).__name__}: {e}")


def _file_dead(path: str, reason: str, detail: str):
    yield "event", (f"{STAGE_READ}/in", 1)
    yield "event", (f"{STAGE_READ}/dropped/{reason}", 1)
    yield "dead", bio.dead_letter(STAGE_READ, reason, prompt_id(path, -1, -1), path, None, detail)


def _read_jsonl(path, sha, cfg):
    with _open(path) as f:
        for i, line in enumerate(f):
            if not line.strip():
                continue  # blank lines are layout, not records
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as e:
                yield "event", (f"{STAGE_READ}/in", 1)
                yield "event", (f"{STAGE_READ}/dropped/invalid_utf8", 1)
                yield "dead", bio.dead_letter(STAGE_READ, "invalid_utf8", prompt_id(path, i, -1), path, i,
                                          f"line {i + 1} is not valid UTF-8 at byte {e.start}")
                continue
            try:
                rec = json.loads(text)
            except json.JSONDecodeError as e:
                yield "event", (f"{STAGE_READ}/in", 1)
                yield "event", (f"{STAGE_READ}/dropped/malformed_json", 1)
                yield "dead", bio.dead_letter(STAGE_READ, "malformed_json", prompt_id(path, i, -1), path, i,
                                          f"line {i + 1}: {e.msg} at column {e.colno}")
                continue
            yield from extract_prompts(rec, path, i, sha, cfg)


def _read_parquet(path, sha, cfg):
    import pyarrow.parquet as pq
    with _open(path) as f:
        data = f.read()
    try:
        pf = pq.ParquetFile(io.BytesIO(data))
    except Exception as e:  # pyarrow raises ArrowInvalid and friends for corrupt files
        yield from _file_dead(path, "unreadable_file", f"not a readable Parquet file: {e}")
        return
    row = 0
    for batch in pf.iter_batches(batch_size=4096):
        try:
            records = batch.to_pylist()
        except Exception as e:  # e.g. invalid UTF-8 inside a string column
            for _ in range(batch.num_rows):
                yield "event", (f"{STAGE_READ}/in", 1)
                yield "event", (f"{STAGE_READ}/dropped/invalid_utf8", 1)
                yield "dead", bio.dead_letter(STAGE_READ, "invalid_utf8", prompt_id(path, row, -1), path, row, str(e)[:200])
                row += 1
            continue
        for rec in records:
            yield from extract_prompts(rec, path, row, sha, cfg)
            row += 1
