"""bench/pii_eval.py's scoring and loaders, on small inline samples of each public set's format (the sets
themselves are fetched by the bench, never shipped)."""
from __future__ import annotations

import importlib.util
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def ev():
    spec = importlib.util.spec_from_file_location("pii_eval", os.path.join(ROOT, "bench", "pii_eval.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_leak_free_strict_and_recall(ev):
    text = "Call Ann Lee at 555-0100 now"
    rec = {"text": text, "spans": [("PERSON", 5, 12), ("PHONE_NUMBER", 16, 24)]}
    full = ev.Result("Call <PERSON> at <PHONE_NUMBER> now", [("PERSON", 5, 12), ("PHONE_NUMBER", 16, 24)])
    part = ev.Result("Call <PERSON> Lee at <PHONE_NUMBER> now", [("PERSON", 5, 8), ("PHONE_NUMBER", 16, 24)])
    none = ev.Result(text, [])
    got = ev.score_labelled([rec, rec, rec], [full, part, none])
    # the partly redacted name does not survive verbatim (leak-free) but is not fully removed (strict)
    assert got["leak_free"] == round(2 / 3, 4) and got["strict"] == round(1 / 3, 4)
    assert got["recall"] == {"PERSON": round(2 / 3, 4), "PHONE_NUMBER": round(2 / 3, 4)}
    assert [v for _, v, _ in got["leaks"]] == ["Ann Lee", "555-0100"]


def test_retention_counts_touched_prompts_and_types(ev):
    sets = {"a": ["plain", "has Bob"], "b": ["also plain"]}
    run = lambda texts: [ev.Result(t, [("PERSON", 4, 7)] if "Bob" in t else []) for t in texts]  # noqa: E731
    got = ev.score_retention(sets, run)
    assert got["retention"] == round(2 / 3, 4) and got["by_set"] == {"a": 0.5, "b": 1.0}
    assert got["redactions"] == {"PERSON": 1}


def test_loaders_read_each_public_format(ev, tmp_path):
    docs = [{"full_text": "I am Ann, ann@x.org", "spans": [
        {"entity_type": "PERSON", "start_position": 5, "end_position": 8},
        {"entity_type": "EMAIL_ADDRESS", "start_position": 10, "end_position": 19},
        {"entity_type": "ORGANIZATION", "start_position": 0, "end_position": 1}]},
        {"full_text": "nothing here", "spans": [{"entity_type": "GPE", "start_position": 0, "end_position": 7}]}]
    (tmp_path / "d.json").write_text(json.dumps(docs))
    loaded = ev.load_docs(str(tmp_path / "d.json"))
    assert len(loaded) == 1 and [t for t, _, _ in loaded[0]["spans"]] == ["PERSON", "EMAIL_ADDRESS"]

    (tmp_path / "w.conll").write_text("hi\tO\nJohn\tB-person\nSmith\tI-person\n!\tO\n\nno\tO\nname\tO\n")
    wnut = ev.load_wnut_persons(str(tmp_path / "w.conll"))
    assert len(wnut) == 1 and [wnut[0]["text"][s:e] for _, s, e in wnut[0]["spans"]] == ["John Smith"]

    (tmp_path / "af").mkdir()
    (tmp_path / "af" / "xx.yaml").write_text(
        "---\ncomponents:\n  house_number: 12\n  road: Main Street\n  city: Springfield\n"
        "expected: |\n  12 Main Street\n  Springfield\n---\ncomponents:\n  city: Nowhere\nexpected: |\n  Nowhere\n")
    addr = ev.load_addresses(str(tmp_path / "af"))
    assert len(addr) == 1
    (_, s, e), = addr[0]["spans"]
    assert "12 Main Street" in addr[0]["text"][s:e] and "Springfield" in addr[0]["text"][s:e]

    phones = ev.load_phones()
    assert len(phones) > 400 and all(t == "PHONE_NUMBER" for p in phones for t, _, _ in p["spans"])
