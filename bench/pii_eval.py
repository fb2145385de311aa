"""Independent evaluation of the clean stage's PII filter, on public labelled data the project did not make.

Each set is named with where it comes from; the bench reads it from --data-dir (default
~/.cache/eaglekit/bench-data) and downloads it there when it is missing and the network allows:

  docs        presidio-research data/synth_dataset_v2.json (Microsoft, MIT): 1,500 labelled synthetic
              documents; the records holding one of the nine default types are scored
  names       WNUT-17 emerging entities, test split (leondz/emerging_entities_17, CC-BY 4.0): person
              mentions in user-written text, many of them lower case
  addresses   OpenCage address-formatting testcases/countries/*.yaml (MIT): real addresses of ~250
              countries; those with a house number and a road are rendered as their expected lines
  phones      libphonenumber's example numbers (the `phonenumbers` package, Apache-2.0): fixed-line and
              mobile numbers of every region, in national and international format
  retention   Spec-Bench data/spec_bench/question.jsonl (480 prompts: MT-bench, translation, summarisation,
              QA, math, RAG), GSM8K test (openai/grade-school-math), self-instruct seed tasks
              (yizhongw/self-instruct): prompts taken to hold no PII of a private person

Figures: leak-free (records where no labelled value of the nine types survives verbatim), strict (records
where every character of every labelled span was redacted, whitespace and punctuation aside), recall per
type (labelled values that do not survive), retention (prompts left untouched), redactions of ordinary
prompts per type, prompts/s of the filter. `--baseline` adds plain Presidio (same spaCy model, its default
recognizers, every entity redacted) on the same sets; `--compare-ner` the table of NER models.

    python bench/pii_eval.py [--quick] [--baseline] [--compare-ner] [--data-dir DIR] [--show-leaks 20]
                             [--model M] [--keep-names-in none]
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import random
import sys
import time
import urllib.request

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

NINE = ("EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "IBAN_CODE", "US_SSN", "US_DRIVER_LICENSE", "IP_ADDRESS",
        "PERSON", "STREET_ADDRESS")
GH = "https://raw.githubusercontent.com/"
SOURCES = {
    "presidio_synth_dataset_v2.json": GH + "microsoft/presidio-research/master/data/synth_dataset_v2.json",
    "wnut17_test.annotated": GH + "leondz/emerging_entities_17/master/emerging.test.annotated",
    "spec_bench_question.jsonl": GH + "hemingkx/Spec-Bench/main/data/spec_bench/question.jsonl",
    "gsm8k_test.jsonl": GH + "openai/grade-school-math/master/grade_school_math/data/test.jsonl",
    "self_instruct_seed_tasks.jsonl": GH + "yizhongw/self-instruct/main/data/seed_tasks.jsonl",
}
ADDRESS_DIR = "address_formatting"  # OpenCageData/address-formatting testcases/countries/*.yaml
TARGETS = {"leak_free": 0.99, "strict": 0.95, "min_type_recall": 0.95, "retention": 0.98}


def data_path(data_dir: str, name: str) -> str | None:
    """The local copy of a named set, downloaded on first use where the network allows; None if unavailable."""
    path = os.path.join(data_dir, name)
    if os.path.exists(path):
        return path
    url = SOURCES.get(name)
    if url is None:
        return None
    try:
        os.makedirs(data_dir, exist_ok=True)
        with urllib.request.urlopen(url, timeout=20) as r, open(path + ".part", "wb") as f:
            f.write(r.read())
        os.replace(path + ".part", path)
        return path
    except OSError as e:
        print(f"pii_eval: {name} is not in {data_dir} and could not be fetched from {url} ({e}); skipped",
              file=sys.stderr)
        return None


# ---- the labelled sets -------------------------------------------------------------------------------

def load_docs(path: str) -> list[dict]:
    """presidio-research records holding at least one of the nine types: {text, spans: [(type, start, end)]}."""
    out = []
    for r in json.load(open(path)):
        spans = [(s["entity_type"], s["start_position"], s["end_position"]) for s in r["spans"]
                 if s["entity_type"] in NINE]
        if spans:
            out.append({"text": r["full_text"], "spans": spans})
    return out


def load_wnut_persons(path: str) -> list[dict]:
    """WNUT-17 test sentences with person mentions, detokenised with spaces, spans over the joined text."""
    out, toks, tags = [], [], []

    def flush():
        if not toks:
            return
        text, spans, cur = "", [], None
        for tok, tag in zip(toks, tags):
            start = len(text) + (1 if text else 0)
            text = (text + " " + tok) if text else tok
            if tag == "B-person":
                cur = [start, len(text)]
                spans.append(cur)
            elif tag == "I-person" and cur is not None:
                cur[1] = len(text)
            else:
                cur = None
        if spans:
            out.append({"text": text, "spans": [("PERSON", s, e) for s, e in spans]})
        toks.clear(), tags.clear()

    for line in open(path, encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 2 or not parts[0]:
            flush()
            continue
        toks.append(parts[0]), tags.append(parts[1])
    flush()
    return out


def load_addresses(folder: str) -> list[dict]:
    """OpenCage testcases with a house number and a road: the expected rendering in a request to send mail
    there; the labelled span is the whole rendered address."""
    import yaml
    frames = ["Please send the package to:\n{}\nThanks!", "Our new address is {}.", "Ship to {}"]
    out, rng = [], random.Random(0)
    for path in sorted(glob.glob(os.path.join(folder, "*.yaml"))):
        for case in yaml.safe_load_all(open(path, encoding="utf-8")):
            comp = (case or {}).get("components") or {}
            if "house_number" not in comp or "road" not in comp or not case.get("expected"):
                continue
            lines = [ln.strip() for ln in case["expected"].strip().splitlines() if ln.strip()]
            frame = rng.choice(frames)
            addr = "\n".join(lines) if frame.startswith("Please") else ", ".join(lines)
            start = frame.index("{}")
            out.append({"text": frame.format(addr), "spans": [("STREET_ADDRESS", start, start + len(addr))],
                        "street": f"{comp['road']}"})
    return out


def load_phones() -> list[dict]:
    """libphonenumber's example fixed-line and mobile numbers of every region, national and international."""
    import phonenumbers
    from phonenumbers import PhoneNumberFormat as F, PhoneNumberType as T
    frames = ["You can reach me at {} after six.", "Phone: {}", "Call {} to book a table."]
    out, rng = [], random.Random(0)
    for region in sorted(phonenumbers.SUPPORTED_REGIONS):
        for kind in (T.FIXED_LINE, T.MOBILE):
            num = phonenumbers.example_number_for_type(region, kind)
            if num is None:
                continue
            for fmt in (F.NATIONAL, F.INTERNATIONAL):
                value = phonenumbers.format_number(num, fmt)
                frame = rng.choice(frames)
                start = frame.index("{}")
                out.append({"text": frame.format(value), "spans": [("PHONE_NUMBER", start, start + len(value))]})
    return out


def load_retention(data_dir: str, quick: bool) -> dict[str, list[str]]:
    sets: dict[str, list[str]] = {}
    p = data_path(data_dir, "spec_bench_question.jsonl")
    if p:
        for r in map(json.loads, open(p, encoding="utf-8")):
            sets.setdefault(f"spec_bench/{r['category']}", []).append(r["turns"][0])
    p = data_path(data_dir, "gsm8k_test.jsonl")
    if p:
        sets["gsm8k_test"] = [json.loads(line)["question"] for line in open(p, encoding="utf-8")]
    p = data_path(data_dir, "self_instruct_seed_tasks.jsonl")
    if p:
        sets["self_instruct_seeds"] = [
            (r["instruction"] + ("\n" + r["instances"][0]["input"] if r["instances"][0]["input"] else ""))
            for r in map(json.loads, open(p, encoding="utf-8"))]
    if quick:
        sets = {k: v[: max(10, len(v) // 8)] for k, v in sets.items()}
    return sets


# ---- scoring -----------------------------------------------------------------------------------------

def _covered(text: str, spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Every non-space, non-punctuation character of text[start:end] lies in a redacted span."""
    for i in range(start, end):
        ch = text[i]
        if ch.isalnum() and not any(s <= i < e for s, e in spans):
            return False
    return True


def score_labelled(records: list[dict], results) -> dict:
    """Leak-free, strict and per-type recall of one system's results on labelled records."""
    leak_free = strict = 0
    per_type: dict[str, list[int]] = {}
    leaks = []
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
        leak_free += not rec_leak
        strict += rec_strict
    n = max(1, len(records))
    return {"n": len(records), "leak_free": round(leak_free / n, 4), "strict": round(strict / n, 4),
            "recall": {t: round(h[0] / h[1], 4) for t, h in sorted(per_type.items())}, "leaks": leaks}


def score_retention(sets: dict[str, list[str]], run) -> dict:
    touched, total, by_type, by_set, examples = 0, 0, {}, {}, []
    for name, texts in sets.items():
        results = run(texts)
        k = 0
        for text, res in zip(texts, results):
            if res.spans:
                k += 1
                for etype, s, e in res.spans:
                    by_type[etype] = by_type.get(etype, 0) + 1
                    examples.append((name, etype, f"{text[s:e]!r} in {text[max(0, s - 60):e + 40]!r}"))
        by_set[name] = round(1 - k / max(1, len(texts)), 4)
        touched += k
        total += len(texts)
    return {"n": total, "retention": round(1 - touched / max(1, total), 4), "by_set": by_set,
            "redactions": dict(sorted(by_type.items())), "examples": examples}


# ---- systems -----------------------------------------------------------------------------------------

class Result:
    def __init__(self, text: str, spans: list[tuple[str, int, int]]):
        self.text, self.spans = text, spans


def eaglekit_system(model: str | None = None, keep_names_in: str | None = None):
    from beam_jobs.pii import PiiConfig, PiiFilter
    kw = {"model": model} if model else {}
    if keep_names_in is not None:
        kw["name_exemptions"] = () if keep_names_in == "none" else tuple(keep_names_in.split(","))
    f = PiiFilter(PiiConfig(**kw))
    return lambda texts: [Result(r.text, r.spans) for r in f.process(texts)]


def presidio_system(model: str | None = None):
    """Plain Presidio as a new user sets it up offline: explicit spaCy engine (the small model unless
    --baseline-model names another), default recognizers,
    every entity it reports replaced (the anonymizer's default)."""
    from beam_jobs.pii import SM_MODEL, import_presidio, spacy_model
    import_presidio()
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import SpacyNlpEngine
    engine = SpacyNlpEngine(models=[{"lang_code": "en", "model_name": spacy_model(model or SM_MODEL)}])
    engine.load()
    analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])

    def run(texts):
        out = []
        for text in texts:
            spans, taken = [], []
            for r in sorted(analyzer.analyze(text, language="en"), key=lambda r: (-(r.end - r.start), r.start)):
                if all(r.end <= s or r.start >= e for s, e in taken):
                    taken.append((r.start, r.end))
                    spans.append((r.entity_type, r.start, r.end))
            spans.sort(key=lambda s: s[1])
            red, pos = [], 0
            for t, s, e in spans:
                red += [text[pos:s], f"<{t}>"]
                pos = e
            out.append(Result("".join(red) + text[pos:], spans))
        return out
    return run


def evaluate(name: str, run, labelled: dict, retention: dict, show_leaks: int) -> dict:
    fig: dict = {}
    t0, n_texts = time.perf_counter(), 0
    for set_name, records in labelled.items():
        res = run([r["text"] for r in records])
        n_texts += len(records)
        fig[set_name] = score_labelled(records, res)
    ret = score_retention(retention, run)
    n_texts += ret["n"]
    fig["prompts_per_s"] = round(n_texts / (time.perf_counter() - t0), 1)
    fig["retention"] = ret
    if show_leaks:
        for set_name in labelled:
            for etype, value, text in fig[set_name]["leaks"][:show_leaks]:
                print(f"[{name}] leak {set_name} {etype}: {value!r} in {text[:160]!r}", file=sys.stderr)
        shown: dict[str, int] = {}
        for set_name, etype, value in ret["examples"]:
            shown[set_name] = shown.get(set_name, 0) + 1
            if shown[set_name] <= show_leaks:
                print(f"[{name}] damage {set_name} {etype}: {value}", file=sys.stderr)
    for set_name in labelled:
        fig[set_name].pop("leaks")
    ret.pop("examples")
    return fig


def compare_ner(docs: list[dict], names: list[dict], retention: dict) -> list[dict]:
    """PERSON recall of each NER model that installs from the registries, before any policy: on the labelled
    documents, on WNUT-17, and the share of ordinary prompts where it finds a person; CPU ms per prompt."""
    import spacy
    from beam_jobs.pii import NON_NER_COMPONENTS, ner_models
    ordinary = [t for v in retention.values() for t in v]
    rows = []
    for label, model in ner_models():
        try:
            nlp = spacy.load(model, exclude=list(NON_NER_COMPONENTS))
        except (OSError, ImportError) as e:
            rows.append({"model": label, "error": str(e).splitlines()[0][:100]})
            continue
        row = {"model": label}
        for set_name, recs in (("docs", docs), ("wnut17", names)):
            recs = [r for r in recs if any(t == "PERSON" for t, _, _ in r["spans"])]
            hit = total = 0
            for rec, doc in zip(recs, nlp.pipe([r["text"] for r in recs], batch_size=64)):
                ents = [(e.start_char, e.end_char) for e in doc.ents if e.label_ == "PERSON"]
                for t, s, e in rec["spans"]:
                    if t == "PERSON":
                        total += 1
                        hit += any(a < e and s < b for a, b in ents)
            row[f"person_recall_{set_name}"] = round(hit / max(1, total), 3)
        t0 = time.process_time()
        found = sum(any(e.label_ == "PERSON" for e in d.ents) for d in nlp.pipe(ordinary, batch_size=64))
        row["cpu_ms_per_prompt"] = round(1000 * (time.process_time() - t0) / max(1, len(ordinary)), 2)
        row["ordinary_prompts_with_person"] = round(found / max(1, len(ordinary)), 3)
        rows.append(row)
    return rows


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="an eighth of every set (under a minute)")
    ap.add_argument("--data-dir", default=os.path.expanduser("~/.cache/eaglekit/bench-data"))
    ap.add_argument("--baseline", action="store_true", help="also score plain Presidio on the same sets")
    ap.add_argument("--compare-ner", action="store_true", help="PERSON recall and CPU cost of each NER model")
    ap.add_argument("--model", default=None, help="spaCy model for eaglekit's filter (default: the package's)")
    ap.add_argument("--keep-names-in", default=None,
                    help="the filter's name exemptions (as clean --pii-keep-names-in; default: the package's)")
    ap.add_argument("--show-leaks", type=int, default=0, help="print up to N leaks and damages per set")
    args = ap.parse_args(argv)
    import logging
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)

    labelled: dict[str, list[dict]] = {}
    p = data_path(args.data_dir, "presidio_synth_dataset_v2.json")
    if p:
        labelled["docs"] = load_docs(p)
    p = data_path(args.data_dir, "wnut17_test.annotated")
    if p:
        labelled["wnut17_persons"] = load_wnut_persons(p)
    folder = os.path.join(args.data_dir, ADDRESS_DIR)
    if os.path.isdir(folder):
        labelled["addresses"] = load_addresses(folder)
    labelled["phones"] = load_phones()
    if args.quick:
        labelled = {k: v[: max(20, len(v) // 8)] for k, v in labelled.items()}
    retention = load_retention(args.data_dir, args.quick)

    figures = {"sets": {k: len(v) for k, v in labelled.items()} | {"retention": sum(map(len, retention.values()))}}
    figures["eaglekit"] = evaluate("eaglekit", eaglekit_system(args.model, args.keep_names_in), labelled, retention, args.show_leaks)
    if args.baseline:
        figures["presidio"] = evaluate("presidio", presidio_system(), labelled, retention, args.show_leaks)
    if args.compare_ner:
        figures["ner"] = compare_ner(labelled.get("docs", []), labelled.get("wnut17_persons", []), retention)
        for row in figures["ner"]:
            print("ner " + json.dumps(row), file=sys.stderr)

    ek = figures["eaglekit"]
    docs = ek.get("docs", {"leak_free": 0.0, "strict": 0.0, "recall": {}})
    type_recall = {t: docs["recall"].get(t, 0.0) for t in NINE if t in docs["recall"]}
    fp = {t: ek["retention"]["redactions"].get(t, 0) for t in ("US_DRIVER_LICENSE", "PHONE_NUMBER", "STREET_ADDRESS")}
    targets = {
        "docs_leak_free": {"value": docs["leak_free"], "op": ">=", "goal": TARGETS["leak_free"]},
        "docs_strict": {"value": docs["strict"], "op": ">=", "goal": TARGETS["strict"]},
        "docs_min_type_recall": {"value": min(type_recall.values(), default=0.0), "op": ">=",
                                 "goal": TARGETS["min_type_recall"]},
        "retention_untouched": {"value": ek["retention"]["retention"], "op": ">=", "goal": TARGETS["retention"]},
        "ordinary_redactions_dl_phone_address": {"value": sum(fp.values()), "op": "<=", "goal": 0},
    }
    for set_name in ("addresses", "phones"):
        if set_name in ek:
            t = "STREET_ADDRESS" if set_name == "addresses" else "PHONE_NUMBER"
            targets[f"{set_name}_recall"] = {"value": ek[set_name]["recall"].get(t, 0.0), "op": ">=",
                                             "goal": TARGETS["min_type_recall"]}
    line = {"bench": "pii_eval", "targets": targets, "figures": figures}
    print(json.dumps(line))
    return line


if __name__ == "__main__":
    main()
