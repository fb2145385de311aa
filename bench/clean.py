"""Benchmark of `eaglekit beam run clean` against a naive baseline, in one run.

Makes N prompts (Faker) with planted exact duplicates, near duplicates (one small edit) and PII values
(names, emails, valid US phone numbers, credit cards, IBANs, SSNs, IPs, street addresses), runs the
clean pipeline on DirectRunner and a naive baseline (a Python set for exact dupes + one Presidio
`analyze()` per prompt with the full spaCy pipeline), and reports throughput of both, their ratio, PII
recall (prompt level: no planted value survives) and near-dup recall/precision against the plants.

    python bench/clean.py [--quick] [--n 5000] [--beam-args="--direct_running_mode=in_memory"]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import sys
import tempfile
import time
from importlib.metadata import version

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import pyarrow.parquet as pq  # noqa: E402

TEMPLATES = [
    "Write a short story about {}.", "Explain in simple terms: {}", "Summarise the following idea: {}",
    "Give me three arguments for and against this claim: {}", "Translate into French: {}",
    "What would a historian say about this? {}", "Turn this into a haiku: {}", "Critique this plan: {}",
]
# DirectRunner as a user would set it on this 2-core machine: one worker process per core. The baseline
# is a naive single-process loop, as the issue asks.
DEFAULT_BEAM_ARGS = "--direct_running_mode=multi_processing --direct_num_workers=2"
PII_KINDS = ("PERSON", "EMAIL", "PHONE", "CREDIT_CARD", "IBAN", "SSN", "IP", "ADDRESS")


def valid_phone(fake, rng) -> str:
    import phonenumbers
    while True:
        area = rng.choice([201, 212, 305, 312, 415, 503, 617, 646, 702, 713, 808, 919])
        num = f"({area}) {rng.randint(200, 999)}-{rng.randint(0, 9999):04d}"
        if phonenumbers.is_valid_number(phonenumbers.parse(num, "US")):
            return num


def pii_prompt(fake, rng, kind: str) -> tuple[str, str]:
    value = {
        "PERSON": fake.name, "EMAIL": fake.email, "PHONE": lambda: valid_phone(fake, rng),
        "CREDIT_CARD": lambda: fake.credit_card_number(card_type=rng.choice(["visa16", "mastercard", "amex", "discover"])),
        "IBAN": fake.iban, "SSN": fake.ssn, "IP": fake.ipv4_public, "ADDRESS": fake.street_address,
    }[kind]()
    frame = {
        "PERSON": ["Please write a birthday message for {v}, who loves {t}.", "My colleague {v} asked me: {t}"],
        "EMAIL": ["Draft a reply to {v} about {t}", "Send the notes on {t} to {v} tomorrow."],
        "PHONE": ["Call me at {v} to discuss {t}", "My number is {v}; remind me about {t}"],
        "CREDIT_CARD": ["My card {v} was charged twice for {t}, write a complaint.", "Is card number {v} valid? Also {t}"],
        "IBAN": ["Transfer the refund to IBAN {v} and mention {t}", "Our account {v} needs a memo about {t}"],
        "SSN": ["My SSN is {v}, fill in the form about {t}", "Social security number {v}: explain {t}"],
        "IP": ["The server at {v} is down, help me debug {t}", "Block traffic from {v} and explain {t}"],
        "ADDRESS": ["I live at {v} and want advice on {t}", "Deliver the parcel to {v}, it contains {t}"],
    }[kind]
    return rng.choice(frame).format(v=value, t=fake.sentence(nb_words=8).rstrip(".").lower()), value


def near_edit(text: str, rng) -> str:
    """One small edit: swap a word for another, or change punctuation and add a filler word."""
    words = text.split()
    i = rng.randrange(len(words))
    if rng.random() < 0.5:
        words[i] = rng.choice(["really", "quite", "very", "the", "some"])
    else:
        words.insert(i, rng.choice(["please", "kindly", "now"]))
    return " ".join(words)


def make_data(n: int, seed: int = 0):
    from faker import Faker
    fake, rng = Faker("en_US"), random.Random(seed)
    Faker.seed(seed)
    n_exact, n_near, n_pii = n // 10, n // 10, n // 5
    n_base = n - n_exact - n_near - n_pii
    rows, truth = [], {"exact": set(), "near": set(), "pii": {}}
    base, base_idx = [], []
    for i in range(n_base):
        base_idx.append(len(rows))
        t = rng.choice(TEMPLATES).format(fake.paragraph(nb_sentences=3).rstrip(".").lower())
        base.append(t)
        rows.append({"prompt": t, "category": rng.choice(["chat", "code", "writing"])})
    for i in range(n_pii):
        text, value = pii_prompt(fake, rng, PII_KINDS[i % len(PII_KINDS)])
        truth["pii"][len(rows)] = (PII_KINDS[i % len(PII_KINDS)], value)
        rows.append({"prompt": text})
    for _ in range(n_exact):
        j = rng.randrange(n_base)
        truth["exact"].add((len(rows), base_idx[j]))
        rows.append({"prompt": "  " + base[j].upper() if rng.random() < 0.3 else base[j]})
    for _ in range(n_near):
        j = rng.randrange(n_base)
        truth["near"].add((len(rows), base_idx[j]))
        rows.append({"prompt": near_edit(base[j], rng)})
    order = list(range(len(rows)))
    rng.shuffle(order)  # plants anywhere in the file; the earliest copy is the deterministic survivor
    rows = [rows[i] for i in order]
    remap = {old: new for new, old in enumerate(order)}
    truth = {"exact": {(remap[i], remap[j]) for i, j in truth["exact"]},
             "near": {(remap[i], remap[j]) for i, j in truth["near"]},
             "pii": {remap[i]: v for i, v in truth["pii"].items()}}
    return rows, truth


def run_baseline(texts: list[str]) -> tuple[float, int]:
    """The naive way: a Python set for exact dupes, one full-pipeline analyze() per prompt, on spaCy's own
    en_core_web_md (sm where md is not installed) as a Presidio user would load it. Not on eaglekit's
    shipped name model: that folder holds only an NER, so its "full pipeline" would be the fast path."""
    from beam_jobs.pii import (DEFAULT_POLICIES, MD_MODEL, SM_MODEL, _installed, apply_policy, build_analyzer,
                               spacy_model)
    analyzer = build_analyzer(spacy_model(MD_MODEL) if _installed(MD_MODEL) else SM_MODEL, fast=False)
    entities = sorted(DEFAULT_POLICIES)
    t0 = time.perf_counter()
    seen, kept = set(), 0
    for text in texts:
        if text in seen:
            continue
        seen.add(text)
        apply_policy(text, analyzer.analyze(text, language="en", entities=entities), DEFAULT_POLICIES)
        kept += 1
    return time.perf_counter() - t0, kept


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="N=1500, baseline on 300 prompts")
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--baseline-n", type=int, default=None, help="prompts the baseline rate is measured on")
    ap.add_argument("--beam-args", default=DEFAULT_BEAM_ARGS,
                    help="Beam flags for the pipeline run (default: what a user runs on a 2-core box)")
    ap.add_argument("-v", "--verbose", action="count", default=0,
                    help="also show the libraries' warnings (Beam's worker WARN lines, transformers' bars)")
    args = ap.parse_args(argv)
    from eaglekit.cli import quiet
    quiet(args.verbose)
    n = args.n or (1500 if args.quick else 5000)
    bn = min(n, args.baseline_n or (300 if args.quick else 1500))
    import logging
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    from beam_jobs.clean import CleanConfig, run_clean

    rows, truth = make_data(n)
    tmp = tempfile.mkdtemp(prefix="bench-clean-")
    src = os.path.join(tmp, "prompts.jsonl")
    with open(src, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")

    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    # the prompts are this script's own (make_data), under eaglekit's licence
    manifest = run_clean(CleanConfig(inputs=[src], output=os.path.join(tmp, "out"), licence="Apache-2.0"),
                         beam_args=shlex.split(args.beam_args))
    pipe_s = time.perf_counter() - t0

    base_s, _ = run_baseline([r["prompt"] for r in rows[:bn]])

    import glob
    out = [r for fn in sorted(glob.glob(os.path.join(tmp, "out", "prompts-*.parquet"))) for r in pq.read_table(fn).to_pylist()]
    kept = {o["provenance"]["record"]: o["messages"][-1]["content"] for o in out}
    dead = [json.loads(line) for fn in sorted(os.listdir(os.path.join(tmp, "out"))) if fn.startswith("dead_letters")
            for line in open(os.path.join(tmp, "out", fn))]
    dropped_dup = {d["record"] for d in dead if d["reason"] in ("near_duplicate", "exact_duplicate")}
    dropped_near = {d["record"] for d in dead if d["reason"] == "near_duplicate"}
    # a planted pair is caught when either copy was dropped (the earlier one in the file survives)
    near_recall = sum(a in dropped_dup or b in dropped_dup for a, b in truth["near"]) / max(1, len(truth["near"]))
    exact_recall = sum(a in dropped_dup or b in dropped_dup for a, b in truth["exact"]) / max(1, len(truth["exact"]))
    # base prompts are copied several times: every copy of a planted family counts as a true duplicate
    family = {i for pair in truth["near"] | truth["exact"] for i in pair}
    near_precision = len(dropped_near & family) / max(1, len(dropped_near))
    pii_checked = {i: v for i, v in truth["pii"].items() if i in kept}
    leaks = {i: (kind, v) for i, (kind, v) in pii_checked.items() if v in kept[i]}
    pii_recall = 1 - len(leaks) / max(1, len(pii_checked))
    pipe_rate, base_rate = n / pipe_s, bn / base_s
    figures = {
        "n": n, "pipeline_s": round(pipe_s, 2), "pipeline_prompts_per_s": round(pipe_rate, 1),
        "baseline_n": bn, "baseline_s": round(base_s, 2), "baseline_prompts_per_s": round(base_rate, 1),
        "prompts_out": manifest["counts"]["prompts_out"], "dropped": manifest["counts"]["dropped"],
        "pii_prompts_checked": len(pii_checked), "pii_leaks": sorted(leaks.values()),
        "exact_dup_recall": round(exact_recall, 4), "near_dup_dropped": len(dropped_near),
        "pii_entities": manifest["pii_entities"], "beam_args": args.beam_args,
        "spacy": version("spacy"),  # 3.8.8+ runs the NER ~2.8x slower (setup.cfg)
        # the machine is shared: a busy box slows both runs, but not necessarily equally
        "load_avg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    result = {"bench": "clean", "targets": {
        "speedup_vs_baseline": {"value": round(pipe_rate / base_rate, 2), "op": ">=", "goal": 5},
        "pii_recall": {"value": round(pii_recall, 4), "op": ">=", "goal": 0.99},
        "near_dup_recall": {"value": round(near_recall, 4), "op": ">=", "goal": 0.9},
        "near_dup_precision": {"value": round(near_precision, 4), "op": ">=", "goal": 0.99},
    }, "figures": figures}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
