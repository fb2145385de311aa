"""Tests of the clean stage: readers, source ids and dead letters, counts, exact/near dedupe determinism
across DirectRunner modes, decontamination by containment, PII policies, manifest, atomic output, CLI
pass-through."""
import glob
import json
import os

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from beam_jobs.clean import CleanConfig, run_clean
from eaglekit.cli.beam import clean_command
from beam_jobs.dedupe import BandBatcher, NearDupConfig, band_shard, group_bands, normalise, signature, similarity
from beam_jobs.readers import ReaderConfig, read_file
from eaglekit.contract import validate_schema

LONG_A = ("Explain the difference between a list and a tuple in Python, with an example of when each one "
          "is the better choice for storing records.")
LONG_B = ("Write a limerick about a cat who learns to play the piano at midnight and wakes up the whole "
          "apartment building with its music.")
LONG_C = "Describe how photosynthesis converts sunlight into chemical energy in plant cells, step by step."


def _write_jsonl(path, rows, raw_lines=()):
    with open(path, "wb") as f:
        for r in rows:
            f.write((json.dumps(r) + "\n").encode())
        for line in raw_lines:
            f.write(line + b"\n")
    return str(path)


def _items(path, cfg=None):
    items = list(read_file(str(path), None, cfg or ReaderConfig()))
    return [i for k, i in items if k == "prompt"], [i for k, i in items if k == "dead"]


def _outputs(out):
    rows = [r for fn in sorted(glob.glob(os.path.join(out, "prompts-*.parquet"))) for r in pq.read_table(fn).to_pylist()]
    dead = [json.loads(line) for fn in sorted(glob.glob(os.path.join(out, "dead_letters-*.jsonl"))) for line in open(fn)]
    return sorted(rows, key=lambda r: r["id"]), sorted(dead, key=lambda d: (d["id"], d["reason"]))


def test_jsonl_reader_dead_letter_reasons(tmp_path):
    path = _write_jsonl(tmp_path / "a.jsonl", [{"prompt": "hello there", "category": "chat"}, {"foo": 1}, {"prompt": ""},
                                              {"prompt": "x" * 50}, [1, 2]],
                        raw_lines=[b"{not json", b'{"prompt": "caf\xe9"}', b'{"prompt": "lone \\udc80 surrogate"}'])
    prompts, dead = _items(path, ReaderConfig(max_chars=40))
    assert [p["messages"][-1]["content"] for p in prompts] == ["hello there"]
    assert prompts[0]["category"] == "chat" and prompts[0]["provenance"]["record"] == 0
    reasons = {(d["record"], d["reason"]) for d in dead}
    assert reasons == {(1, "no_user_turn"), (2, "empty_prompt"), (3, "prompt_too_long"), (4, "not_an_object"),
                       (5, "malformed_json"), (6, "invalid_utf8"), (7, "invalid_utf8")}
    assert all("xxxx" not in d["detail"] and "hello" not in d["detail"] for d in dead)  # never the text


def test_sharegpt_json_and_parquet_readers(tmp_path):
    convs = [{"conversations": [{"from": "system", "value": "Be brief."}, {"from": "human", "value": "first question"},
                                {"from": "gpt", "value": "answer"}, {"from": "human", "value": "second question"}]},
             {"messages": [{"role": "user", "content": "role/content style"}], "category": "qa"},
             {"messages": [{"role": "assistant", "content": "no user here"}]}]
    (tmp_path / "s.json").write_text(json.dumps(convs))
    prompts, dead = _items(tmp_path / "s.json")
    assert [p["messages"] for p in prompts] == [[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "first question"}],
                                               [{"role": "user", "content": "role/content style"}]]
    assert [d["reason"] for d in dead] == ["no_user_turn"]
    every, _ = _items(tmp_path / "s.json", ReaderConfig(all_user_turns=True))
    assert [(p["provenance"]["record"], p["provenance"]["turn"]) for p in every] == [(0, 0), (0, 1), (1, 0)]
    assert len({p["id"] for p in every}) == 3

    pq.write_table(pa.table({"question": ["from parquet", None], "topic": ["t1", "t2"]}), tmp_path / "p.parquet")
    prompts, dead = _items(tmp_path / "p.parquet", ReaderConfig(prompt_fields=("question",), category_field="topic"))
    assert [(p["messages"][-1]["content"], p["category"], p["source"]) for p in prompts] == [("from parquet", "t1", "p")]
    assert [d["reason"] for d in dead] == ["no_user_turn"]
    (tmp_path / "bad.parquet").write_bytes(b"not a parquet file")
    _, dead = _items(tmp_path / "bad.parquet")
    assert [d["reason"] for d in dead] == ["unreadable_file"]


def test_source_id_is_the_records_own_id(tmp_path):
    rows = [{"id": "q-1", "prompt": "a"}, {"question_id": 81, "prompt": "b"}, {"_id": {"$oid": "x"}, "uid": 7.5, "prompt": "c"},
            {"idx": True, "prompt": "d"}, {"id": None, "prompt": "e"}, {"prompt": "f"}]
    prompts, _ = _items(_write_jsonl(tmp_path / "ids.jsonl", rows))
    assert [p["source_id"] for p in prompts] == ["q-1", "81", "7.5", "true", None, None]
    assert len({p["id"] for p in prompts}) == 6                   # the stable hash id stays beside it
    pq.write_table(pa.table({"question_id": [3, None], "prompt": ["from parquet", "no id"]}), tmp_path / "ids.parquet")
    prompts, _ = _items(tmp_path / "ids.parquet")
    assert [p["source_id"] for p in prompts] == ["3", None]


def test_output_keeps_source_id_and_absolute_provenance(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    _write_jsonl(tmp_path / "data" / "in.jsonl", [{"id": 12, "prompt": LONG_A}, {"prompt": LONG_B}])
    monkeypatch.chdir(tmp_path)                                   # a relative --input
    run_clean(CleanConfig(inputs=["data/*.jsonl"], output="out", pii_enabled=False))
    rows, _ = _outputs(tmp_path / "out")
    want = str(tmp_path / "data" / "in.jsonl")
    assert sorted((r["provenance"]["record"], r["source_id"], r["provenance"]["file"]) for r in rows) == \
        [(0, "12", want), (1, None, want)]
    manifest = json.load(open(tmp_path / "out" / "manifest.json"))
    assert [i["file"] for i in manifest["inputs"]] == [want]


def test_minhash_similarity_orders_pairs():
    cfg = NearDupConfig()
    a, b, c = (signature(normalise(t), cfg) for t in (LONG_A, LONG_A.replace("better", "best"), LONG_B))
    assert similarity(a, b) >= 0.8 > similarity(a, c)


@pytest.fixture(scope="module")
def dedupe_input(tmp_path_factory):
    d = tmp_path_factory.mktemp("dedupe")
    rows = [{"prompt": LONG_A}, {"prompt": LONG_B}, {"prompt": "  " + LONG_A.upper()},   # exact dup after normalising
            {"prompt": LONG_A.replace("better", "best")},                               # near dup of record 0
            {"prompt": LONG_C}, {"prompt": LONG_B + "!"}]
    _write_jsonl(d / "b.jsonl", rows[3:], raw_lines=[b"oops"])
    _write_jsonl(d / "a.jsonl", rows[:3])
    return d


def _run(src, out, **kw):
    beam_args = kw.pop("beam_args", ())
    cfg = CleanConfig(inputs=[os.path.join(src, "*.jsonl")], output=str(out), pii_enabled=False, **kw)
    return run_clean(cfg, beam_args=beam_args)


def test_dedupe_counts_manifest_and_atomic_output(dedupe_input, tmp_path):
    out = tmp_path / "out"
    m = _run(dedupe_input, out)
    rows, dead = _outputs(out)
    texts = sorted(r["messages"][-1]["content"] for r in rows)
    assert texts == sorted([LONG_A, LONG_B, LONG_C])          # survivors: earliest by (file, record, turn)
    assert {d["reason"] for d in dead} == {"exact_duplicate", "near_duplicate", "malformed_json"}
    assert m["counts"]["dropped"] == {"exact_duplicate": 1, "malformed_json": 1, "near_duplicate": 2}
    assert m["counts"]["records_in"] == 7 and m["counts"]["prompts_out"] == 3
    for s in m["stages"].values():
        assert s["in"] == s["out"] + sum(s["dropped"].values())
    assert [i["sha256"] for i in m["inputs"]] and all(len(i["sha256"]) == 64 for i in m["inputs"])
    assert json.load(open(out / "manifest.json")) == m
    validate_schema(pq.read_schema(glob.glob(str(out / "prompts-*.parquet"))[0]), "prompt")
    # a second run replaces the output whole; no staging directories are left behind
    _run(dedupe_input, out, near_dedupe=False)
    assert len(_outputs(out)[0]) == 5  # the two near duplicates now survive
    assert sorted(os.listdir(tmp_path)) == ["out"]


@pytest.mark.slow
def test_multiprocessing_runner_gives_same_output(dedupe_input, tmp_path):
    _run(dedupe_input, tmp_path / "a")
    _run(dedupe_input, tmp_path / "b", beam_args=["--direct_running_mode=multi_processing", "--direct_num_workers=2"])
    assert _outputs(tmp_path / "a") == _outputs(tmp_path / "b")


def test_band_batching_does_not_change_decisions(dedupe_input, tmp_path):
    """Band entries sent one per batch into one shard, or in big batches over many shards: same output."""
    one = NearDupConfig(shards=1, batch_entries=1)
    _run(dedupe_input, tmp_path / "a", near=one, decontaminate=[os.path.join(dedupe_input, "a.jsonl")])
    _run(dedupe_input, tmp_path / "b", near=NearDupConfig(shards=512, batch_entries=10_000),
         decontaminate=[os.path.join(dedupe_input, "a.jsonl")])
    assert _outputs(tmp_path / "a") == _outputs(tmp_path / "b")
    assert {d["reason"] for d in _outputs(tmp_path / "a")[1]} >= {"near_duplicate", "contaminated"}


def test_band_batcher_shards_by_key_and_drains():
    b = BandBatcher(4)
    keys = [f"{band}:{h:016x}" for band in range(3) for h in (1, 2, 5, 2**40 + 3)]
    for k in keys:
        b.add(k, ("p", k))
    assert b.size == len(keys)
    batches = b.drain()
    assert b.size == 0 and b.drain() == []
    assert all(band_shard(k, 4) == shard for shard, batch in batches for k, _ in batch)
    grouped = group_bands(batch for _, batch in batches)
    assert sorted(grouped) == sorted(keys) and all(v == [("p", k)] for k, v in grouped.items())


def test_decontamination_drops_eval_near_duplicates(dedupe_input, tmp_path):
    ev = _write_jsonl(tmp_path / "eval.jsonl", [{"question": LONG_C.replace("step by step", "step-by-step")}])
    m = _run(dedupe_input, tmp_path / "out", decontaminate=[ev])
    rows, dead = _outputs(tmp_path / "out")
    assert LONG_C not in [r["messages"][-1]["content"] for r in rows]
    assert [d["reason"] for d in dead if d["stage"] == "decontaminate"] == ["contaminated"]
    assert m["stages"]["decontaminate"]["dropped"] == {"contaminated": 1}


# --- decontamination: containment of evaluation prompts ----------------------------------------------

EVALS = [{"id": "ev-0", "question": "Write a Python function that returns the n-th Fibonacci number iteratively, "
                                    "and explain its running time."},
         {"id": "ev-1", "question": "A train travels 60 km in 45 minutes. What is its speed in km/h?"},
         {"id": "ev-2", "question": "What is AI?"},                     # short: must appear whole
         {"id": "ev-3", "question": "Why is the sky blue?"}]
EV = [e["question"] for e in EVALS]
PLANTED = [EV[0] + " Please keep it short and add one worked example.",  # a sentence appended
           "I am studying for an exam tomorrow. " + EV[1],                # a sentence prepended
           "  " + EV[0].replace("n-th", "nth").replace(",", "").upper().replace(" ", "   "),  # ws/case/punct
           "Quick one: " + EV[2].lower().replace("?", "") + " Answer in two sentences.",
           EV[3].replace("?", " ?!") + "\nThanks."]
ORDINARY = ["Write a Java function that returns the n-th prime number, and explain its memory use.",
            "What is air pollution and how does it affect children?",   # "what is ai" + letters, not words
            "A bus travels 90 km in 2 hours. What is its average speed?",
            "Explain why the ocean looks blue from space.", LONG_A, LONG_B, LONG_C]


def test_containment_scores_planted_copies_fully():
    from beam_jobs.dedupe import Contained, Letters, jaccard, shingles
    scores = {t: max(Contained(normalise(e)).score(Letters.of(normalise(t))) for e in EV) for t in PLANTED + ORDINARY}
    assert all(scores[t] == 1.0 for t in PLANTED), scores
    assert all(scores[t] < 0.5 for t in ORDINARY), scores
    # symmetric Jaccard (the old test) let every copy with text added through: 0.18-0.70 < 0.8
    cfg = NearDupConfig()
    old = [max(jaccard(shingles(normalise(t), cfg), shingles(normalise(e), cfg)) for e in EV) for t in PLANTED]
    assert [j < 0.8 for j in old] == [True, True, False, True, True], old
    long = Contained(normalise(EV[0]))
    assert not long.short and Contained(normalise(EV[2])).short
    edited = Letters.of(normalise(EV[0].replace("running", "walking")))  # one word of 17: still caught at 0.8
    assert 0.8 <= long.score(edited) < 1.0


def test_containment_keys_find_every_candidate_over_the_threshold():
    """Whatever a candidate keeps of an evaluation prompt, if it scores >= t it holds one of the prompt's keys."""
    import random
    from beam_jobs.dedupe import Contained, Letters, _needed
    assert [_needed(10, 0.7), _needed(5, 0.8), _needed(46, 0.8), _needed(3, 1.0), _needed(7, 0.01)] == [7, 4, 37, 3, 1]
    rng = random.Random(0)
    checked = 0
    for text in (EV[0], EV[1], LONG_A, LONG_B):
        ev = Contained(normalise(text))
        words = normalise(text).split()
        for t in (0.5, 0.8, 0.95, 1.0):
            keys = set(ev.keys(t))
            assert len(keys) == len(ev.grams) - _needed(len(ev.grams), t) + 1
            for _ in range(60):
                kept = [w if rng.random() > 0.1 else rng.choice(["zz", "q"]) for w in words]
                cand = Letters.of("lead in " + " ".join(kept) + " tail")
                if ev.score(cand) >= t:
                    checked += 1
                    assert keys & set(cand.candidate_codes().tolist()), (text, t, kept)
    assert checked > 50
    for text in EV[2:]:  # short prompts: their one key is among a containing candidate's word spans
        ev = Contained(normalise(text))
        cand = Letters.of(normalise("so, " + text.upper() + " thanks"))
        assert ev.score(cand) == 1.0 and set(ev.keys(0.8)) <= set(cand.candidate_codes(short=len(ev.letters.stream) + 1).tolist())


def test_containment_drops_no_ordinary_prompts():
    """Thousands of template prompts (bench/make_prompts.py, the serving bench's prompts held out) against the
    bench and quickstart prompts as evaluation sets: no more than 0.1% may be dropped (none are)."""
    import importlib.util
    from pathlib import Path

    from beam_jobs.dedupe import Contained, Letters
    from serving.bench import BUILTIN_PROMPTS
    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("make_prompts", root / "bench" / "make_prompts.py")
    mp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mp)
    bench = [q for qs in BUILTIN_PROMPTS.values() for q in qs]
    quick = [p["messages"][-1]["content"] for k, p in read_file(str(root / "eaglekit/data/prompts.jsonl"), None,
                                                                    ReaderConfig()) if k == "prompt"]
    evals = [Contained(normalise(t)) for t in bench + quick]
    index: dict[int, list] = {}
    for e in evals:
        for key in e.keys(0.8):
            index.setdefault(key, []).append(e)
    short = max(len(e.letters.stream) + 1 for e in evals if e.short)
    ordinary = [r["messages"][-1]["content"] for r in mp.make_prompts(4000, 3, exclude=bench, extended=True)]
    dropped = []
    for text in ordinary:
        cand = Letters.of(normalise(text))
        hits = {id(e): e for key in cand.candidate_codes(short=short).tolist() for e in index.get(key, [])}
        if any(e.score(cand) >= 0.8 for e in hits.values()):
            dropped.append(text)
    assert len(dropped) <= len(ordinary) // 1000, dropped


@pytest.fixture(scope="module")
def contam_input(tmp_path_factory):
    d = tmp_path_factory.mktemp("contam")
    rows = [{"id": f"in-{i}", "prompt": t} for i, t in enumerate(ORDINARY + PLANTED)]
    _write_jsonl(d / "in.jsonl", rows)
    _write_jsonl(d / "evals.jsonl", EVALS)
    return d


def _run_contam(d, out, beam_args=(), **kw):
    cfg = CleanConfig(inputs=[str(d / "in.jsonl")], output=str(out), pii_enabled=False,
                      decontaminate=[str(d / "evals.jsonl")], **kw)
    return run_clean(cfg, beam_args=beam_args)


def test_decontamination_by_containment(contam_input, tmp_path):
    m = _run_contam(contam_input, tmp_path / "out")
    rows, dead = _outputs(tmp_path / "out")
    assert sorted(r["messages"][-1]["content"] for r in rows) == sorted(ORDINARY)
    gone = {d["record"]: d for d in dead}
    assert sorted(gone) == list(range(len(ORDINARY), len(ORDINARY) + len(PLANTED)))
    assert {d["reason"] for d in dead} == {"contaminated"} and all(d["stage"] == "decontaminate" for d in dead)
    ev = str(contam_input / "evals.jsonl")
    n = len(ORDINARY)
    assert gone[n]["detail"] == (f"contains evaluation prompt {ev}:0 (id ev-0): containment 1.00 >= 0.8 "
                                 f"(share of its 25-letter n-grams found here)")
    assert f"{ev}:1 (id ev-1): containment 1.00" in gone[n + 1]["detail"]
    assert f"{ev}:2 (id ev-2) whole" in gone[n + 3]["detail"] and f"{ev}:3 (id ev-3) whole" in gone[n + 4]["detail"]
    assert all("Fibonacci" not in d["detail"] and "train" not in d["detail"] for d in dead)   # never the text
    assert m["stages"]["decontaminate"] == {"in": n + len(PLANTED), "out": n, "dropped": {"contaminated": len(PLANTED)}}
    assert m["counts"]["prompts_in"] == m["counts"]["prompts_out"] + sum(m["counts"]["dropped"].values())
    # the same decisions with near dedupe off, and with band batches of one entry in one shard
    _run_contam(contam_input, tmp_path / "b", near_dedupe=False)
    _run_contam(contam_input, tmp_path / "c", near=NearDupConfig(shards=1, batch_entries=1))
    assert _outputs(tmp_path / "b") == _outputs(tmp_path / "c") == _outputs(tmp_path / "out")


@pytest.mark.slow
def test_decontamination_is_the_same_with_worker_processes(contam_input, tmp_path):
    _run_contam(contam_input, tmp_path / "a")
    _run_contam(contam_input, tmp_path / "b",
                beam_args=["--direct_running_mode=multi_processing", "--direct_num_workers=2"])
    assert _outputs(tmp_path / "a") == _outputs(tmp_path / "b")


@pytest.fixture(scope="module")
def pii_filter():
    from beam_jobs.pii import PiiConfig, PiiFilter
    return PiiFilter(PiiConfig())


def test_pii_default_redacts_every_safe_type(pii_filter):
    text = ("I am John Smith, email john.smith@example.com, phone (415) 555-2671, card 4111 1111 1111 1111, "
            "IBAN GB82WEST12345698765432, SSN 078-05-1121, IP 192.168.10.20, I live at 1600 Pennsylvania Avenue, "
            "my driver license is D1234567.")
    r = pii_filter.process([text])[0]
    for value in ("John Smith", "john.smith@example.com", "555-2671", "4111 1111", "GB82WEST", "078-05-1121",
                  "192.168.10.20", "1600 Pennsylvania", "D1234567"):
        assert value not in r.text, value
    assert {"PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "IP_ADDRESS",
            "STREET_ADDRESS"} <= set(r.counts)
    assert "<PERSON>" in r.text and r.drop_reason is None
    via = pii_filter.process(["Ship it to 578 Cheryl Via Suite 775 by Friday."])[0]  # every Faker suffix
    assert "Cheryl Via" not in via.text and "Suite 775" not in via.text and via.counts == {"STREET_ADDRESS": 1}
    clean = pii_filter.process(["What is the capital of France?"])[0]
    assert clean.text == "What is the capital of France?" and clean.counts == {}


def test_pii_pattern_gate_never_skips_a_match(pii_filter):
    """entities_for skips a pattern recognizer only where it cannot match: checked against Presidio's own
    IP recognizer on IPv4/IPv6 forms without digits and on colon-rich prose."""
    from presidio_analyzer.predefined_recognizers import IpRecognizer
    from beam_jobs.pii import entities_for
    texts = ["Route via fe80::abcd today", "beef:cafe:dead:face:abcd:bcde:cdef:fade is the host", "bind to ::",
             "use ::ffff:10.0.0.1 then", "server 10.1.2.3 is down", "Explain in simple terms: what is DNS?",
             "Note: a: b: c: d", "ratio 3:4 (a:b)", "What is 2+2?"]
    ip = IpRecognizer()
    for text in texts:
        found = ip.analyze(text, ["IP_ADDRESS"])
        gated = "IP_ADDRESS" in entities_for(text, ["IP_ADDRESS"])
        assert gated or not found, text
    assert not any("IP_ADDRESS" in entities_for(t, ["IP_ADDRESS"]) for t in texts[5:])
    r = pii_filter.process(["Route via fe80::abcd today and beef:cafe:dead:face:abcd:bcde:cdef:fade"])[0]
    assert "fe80" not in r.text and "beef:cafe" not in r.text and r.counts == {"IP_ADDRESS": 2}


def test_pii_digit_gate_never_skips_a_phone_number(pii_filter):
    """entities_for skips the phone recognizer only where it could not match: it needs 6 digits
    (pii_patterns.phone_score), so a text with fewer never reaches it and one with more always does."""
    from beam_jobs.pii import entities_for
    from beam_jobs.pii_patterns import AnyRegionPhoneRecognizer
    texts = ["Ruf mich an: 030 1234 5678", "phone 780 6326", "Call (37) 788-063 today", "My number is 212-555-0123",
             "It happened in 1641.", "call me at 12345 tomorrow", "What is 2+2?", "Room 12, floor 3"]
    phone = AnyRegionPhoneRecognizer()
    found_any = 0
    for text in texts:
        found = phone.analyze(text, ["PHONE_NUMBER"])
        found_any += bool(found)
        assert "PHONE_NUMBER" in entities_for(text, ["PHONE_NUMBER"]) or not found, text
    assert found_any == 4  # the first four are phone numbers: the test has teeth
    assert not any("PHONE_NUMBER" in entities_for(t, ["PHONE_NUMBER"]) for t in texts[4:])


def _iban(country, bban):
    """A checksum-valid IBAN (ISO 13616 mod-97 check digits)."""
    digits = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    return f"{country}{98 - int(digits) % 97:02d}{bban}"


def test_pii_digit_gate_never_skips_an_iban(pii_filter):
    """IBANs whose account part is letters (Qatar, Gibraltar) or mostly letters (Malta) hold 2-7 digits:
    Presidio's recognizer finds them, so the gate must let their texts through, and they are redacted."""
    from presidio_analyzer.predefined_recognizers import IbanRecognizer
    from beam_jobs.pii import entities_for
    ibans = [_iban("QA", "DOHB" + "ABCDEFGHIJKLMNOPQRSTU"), _iban("GI", "NWBK" + "ABCDEFGHIJKLMNO"),
             _iban("MT", "MALT01100" + "ABCDEFGHIJKLMNOPQR")]
    for value in ibans:
        text = f"Send the refund to {value} please"
        assert IbanRecognizer().analyze(text, ["IBAN_CODE"]), value  # real IBANs to Presidio
        assert "IBAN_CODE" in entities_for(text, ["IBAN_CODE"])
        r = pii_filter.process([text])[0]
        assert value not in r.text and r.counts.get("IBAN_CODE") == 1, r


def test_pii_drop_policy_and_pipeline(tmp_path):
    src = _write_jsonl(tmp_path / "p.jsonl", [{"prompt": "Email me at jane.doe@example.org about the report"},
                                             {"prompt": "Please tell Mary Johnson the meeting moved"},
                                             {"prompt": "How do rainbows form?"}])
    from beam_jobs.pii import DEFAULT_POLICIES, PiiConfig
    cfg = CleanConfig(inputs=[src], output=str(tmp_path / "out"),
                      pii=PiiConfig(policies={**DEFAULT_POLICIES, "EMAIL_ADDRESS": "drop"}))
    m = run_clean(cfg)
    rows, dead = _outputs(tmp_path / "out")
    assert [d["reason"] for d in dead] == ["pii_EMAIL_ADDRESS"] and "jane" not in json.dumps(dead)
    by_record = {r["provenance"]["record"]: r for r in rows}
    assert by_record[1]["messages"][-1]["content"] == "Please tell <PERSON> the meeting moved"
    assert by_record[1]["pii"] == [{"entity_type": "PERSON", "count": 1}]
    assert by_record[2]["pii"] == []
    assert m["pii_entities"]["EMAIL_ADDRESS"] == 1 and m["pii_entities"]["PERSON"] >= 1  # dropped prompts count too
    assert m["stages"]["pii"] == {"in": 3, "out": 2, "dropped": {"pii_EMAIL_ADDRESS": 1}}


def test_cli_passes_beam_flags_and_reports_missing_input(dedupe_input, tmp_path):
    runner = CliRunner()
    res = runner.invoke(clean_command, ["--input", str(dedupe_input / "*.jsonl"), "--output", str(tmp_path / "o"),
                                        "--no-pii", "--format", "jsonl", "--direct_num_workers=1"])
    assert res.exit_code == 0, res.output
    assert json.load(open(tmp_path / "o" / "manifest.json"))["counts"]["prompts_out"] == 3
    assert glob.glob(str(tmp_path / "o" / "prompts-*.jsonl"))
    res = runner.invoke(clean_command, ["--input", str(tmp_path / "missing*.jsonl"), "--output", str(tmp_path / "x")])
    assert res.exit_code != 0 and "--input: no file matches" in res.output
    for bad, says in ((["--near-threshold", "2"], "similarity thresholds must be in (0, 1]"),
                      (["--near-shards", "0"], "near.shards")):
        res = runner.invoke(clean_command, ["--input", str(dedupe_input / "*.jsonl"), "--output", str(tmp_path / "y"),
                                            "--no-pii", *bad])
        assert res.exit_code == 2 and says in res.output and res.exception.__class__ is SystemExit, res.output
    res = runner.invoke(clean_command, ["--input", str(dedupe_input / "*.jsonl"), "--output", str(tmp_path / "z"),
                                        "--pii-model", "no_such_model"])  # a typo: a message before any work
    assert res.exit_code == 1 and "--pii-model: no_such_model is not installed" in res.output, res.output
    assert res.exception.__class__ is SystemExit and not (tmp_path / "z").exists()


# --- near dedupe: recall-sized LSH bands, exact-Jaccard verification -------------------------------

def _pair_near(threshold):
    """Two prompts whose exact char-3-gram Jaccard is just above / just below `threshold`."""
    from beam_jobs.dedupe import jaccard, shingles
    cfg = NearDupConfig()
    base = normalise(LONG_A)
    words = base.split()
    above = below = None
    for k in range(1, len(words)):  # replace the last k words: similarity falls as k grows
        other = " ".join(words[:-k] + ["zq" * 3] * k)
        if jaccard(shingles(base, cfg), shingles(other, cfg)) >= threshold:
            above = (other, jaccard(shingles(base, cfg), shingles(other, cfg)))
    for k in range(1, len(words)):  # the first k words, so `below` is not near `above` either
        other = " ".join(["qz" * 3] * k + words[k:])
        j = jaccard(shingles(base, cfg), shingles(other, cfg))
        if j < threshold:
            below = (other, j)
            break
    return base, above, below


def test_lsh_bands_meet_recall_and_bound_spurious_candidates():
    from beam_jobs.dedupe import collision_probability, lsh_params
    for t in (0.6, 0.8, 0.9):
        bands, rows = lsh_params(t, 128, 0.995, 0.25)
        assert bands * rows <= 128
        assert collision_probability(t, bands, rows) >= 0.995
    bands, rows = lsh_params(0.8, 128, 0.995, 0.25)
    assert collision_probability(0.4, bands, rows) <= 0.25
    # datasketch's default optimiser for 0.8 (9 bands x 13 rows) would miss most pairs at the threshold
    assert collision_probability(0.8, 9, 13) < 0.5


def test_numpy_minhash_matches_exact_jaccard():
    from beam_jobs.dedupe import jaccard, shingle_codes, shingles
    cfg = NearDupConfig()
    texts = [normalise(t) for t in (LONG_A, LONG_B, LONG_C, LONG_A.replace("better", "best"), "hi", "")]
    for t in texts:
        assert len(shingle_codes(t, cfg)) == len(shingles(t, cfg))
    for a in texts[:4]:
        for b in texts[:4]:
            est = similarity(signature(a, cfg), signature(b, cfg))
            assert abs(est - jaccard(shingles(a, cfg), shingles(b, cfg))) < 0.2
    assert (signature(texts[0], cfg) == signature(texts[0], cfg)).all()


def test_sketch_signature_is_the_prefix_band_keys_read():
    """The sketch stage computes only the bands x rows permutations its band keys read: those values must be
    exactly the full signature's first ones, and a minimum over repeated shingles the one over distinct ones."""
    from beam_jobs.clean import _sketch
    from beam_jobs.dedupe import band_keys, lsh_params, shingle_codes
    for cfg in (NearDupConfig(), NearDupConfig(shingle="word", ngram=2, num_perm=64, seed=3)):
        for t in (normalise(LONG_A), normalise(LONG_B) * 3, "aaaa aaaa aaaa", "hi", ""):
            full = signature(t, cfg)
            assert full.dtype == np.uint32 and full.shape == (cfg.num_perm,)
            assert (signature(t, cfg, codes=shingle_codes(t, cfg)) == full).all()  # repeats change no minimum
            for k in (1, 44, cfg.num_perm):
                assert (signature(t, cfg, num_perm=k) == full[:k]).all()
            bands, rows = lsh_params(0.8, cfg.num_perm)
            assert _sketch(t, cfg, 0.8) == (t, band_keys(full, bands, rows))


def test_exact_jaccard_decides_not_the_estimate():
    from beam_jobs.dedupe import bucket_pairs
    cfg = NearDupConfig(threshold=0.8)
    base, above, below = _pair_near(0.8)
    assert above and below and above[1] >= 0.8 > below[1]
    sig = signature(base, cfg)
    fake_close = sig.copy()                        # estimate 1.0 for a pair that is really below 0.8
    fake_far = sig.copy()
    fake_far[: int(0.25 * len(sig))] += 1           # estimate 0.75 (< 0.8, above the screen) for a pair above it
    rep = (("f", 0, 0), "rep", sig, base)
    assert bucket_pairs([rep, (("f", 1, 0), "below", fake_close, below[0])], cfg) == []
    assert bucket_pairs([rep, (("f", 2, 0), "above", fake_far, above[0])], cfg) == [("above", (("f", 0, 0), "rep"))]
    # real signatures, members delivered out of order: the earliest is the representative
    real = [(("f", 2, 0), "above", signature(above[0], cfg), above[0]), rep]
    assert bucket_pairs(real, cfg) == [("above", (("f", 0, 0), "rep"))]


def test_near_dedupe_pipeline_keeps_pair_below_threshold(tmp_path):
    base, above, below = _pair_near(0.8)
    src = _write_jsonl(tmp_path / "n.jsonl", [{"prompt": base}, {"prompt": above[0]}, {"prompt": below[0]}])
    m = run_clean(CleanConfig(inputs=[src], output=str(tmp_path / "out"), pii_enabled=False))
    rows, dead = _outputs(tmp_path / "out")
    assert sorted(r["provenance"]["record"] for r in rows) == [0, 2]
    assert [(d["record"], d["reason"]) for d in dead] == [(1, "near_duplicate")]
    assert m["stages"]["near_dedupe"] == {"in": 3, "out": 2, "dropped": {"near_duplicate": 1}}


# --- PII fast path -------------------------------------------------------------------------------

def test_pattern_gate_path_matches_presidio_analyze(pii_filter):
    """Texts with no pattern precondition skip analyze(); the pattern entities found must be what analyze()
    finds over every pattern entity. (PERSON is eaglekit's own: pii_names, tested in test_pii.py.)"""
    texts = ["Please tell Mary Johnson the meeting moved", "Write a poem about Barack Obama and Paris",
             "How do rainbows form?", "My colleague Robert Brown asked me about the plan",
             "Call Alice Walker at 415-555-2671 tomorrow", "Ship it to 12 Main Street, Springfield"]
    fast = pii_filter.process(texts)
    engine = pii_filter.analyzer.nlp_engine
    for text, got in zip(texts, fast):
        art = next(iter(engine.process_batch([text], "en")))[1]
        ref = pii_filter.analyzer.analyze(text, language="en", entities=pii_filter.pattern_entities, nlp_artifacts=art,
                                          score_threshold=pii_filter.cfg.score_threshold)
        want = {(r.entity_type, r.start, r.end) for r in ref}
        assert {s for s in got.spans if s[0] != "PERSON"} <= want, text
        assert all(any(w[1] <= s[1] and s[2] <= w[2] for s in got.spans) for w in want), text
    assert "Mary Johnson" not in fast[0].text and fast[2].counts == {}
    assert fast[4].counts.get("PHONE_NUMBER") == 1 and fast[5].counts.get("STREET_ADDRESS") == 1


def test_prewarmed_filter_is_handed_out_once():
    from beam_jobs.pii import PiiConfig, PiiFilter, claim_filter, prewarm
    cfg = PiiConfig(score_threshold=0.31)  # a config of its own, so other tests' filters do not interfere
    prewarm(cfg)
    prewarm(cfg)  # idempotent
    a, b = claim_filter(cfg), claim_filter(cfg)
    assert isinstance(a, PiiFilter) and isinstance(b, PiiFilter) and a is not b
    assert "<PERSON>" in a.process(["Please tell Mary Johnson the meeting moved"])[0].text
