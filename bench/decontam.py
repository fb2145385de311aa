"""Benchmark of `eaglekit beam run clean --decontaminate`: do benchmark prompts planted with a small edit
survive, and how many ordinary prompts are dropped by mistake?

Evaluation sets (public benchmarks): MT-bench, Spec-Bench, HumanEval, GSM8K test, AlpacaEval. Ordinary
prompts (public instruction sets that are not these benchmarks): GSM8K *train* (the same genre as GSM8K
test: the hardest negatives), the self-instruct seed tasks and user-oriented instructions, and a sample of
the P3/T0 training prompts shipped in the self-instruct repository (the Dolly and Alpaca-52k files are
Git LFS / too large for the mirror this was built with). Planted: 120 evaluation prompts, each with one
perturbation drawn in turn from: one word substituted by a random word of the ordinary prompts'
vocabulary (no synonym list: any word), one word inserted, one deleted, a clause moved, case and
punctuation changed, and the prompt embedded in a longer prompt with one word substituted. A stress pass
applies every perturbation to every evaluation prompt and reports recall by kind and by prompt length.

Data: read from --data-dir (~/.cache/eaglekit/bench-data/decontam, never the repo); a missing file is
named with the repository and path to fetch it from; `--mirror DIR` copies it from bare git mirrors
DIR/<owner>+<name>/repo. Ordinary prompts that match because their source feeds a benchmark (AlpacaEval
draws 252 prompts from self-instruct's user-oriented set) are reported apart as genuine duplicates, with
the pairs, not counted as mistakes.

    python bench/decontam.py [--quick] [--pipeline] [--mirror /work/.mirror]

Ends with one JSON line: {"bench": "decontam", "targets": {...}, "figures": {...}}.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import subprocess
import sys
import time

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from beam_jobs.dedupe import FUNCTION_WORDS, EvalIndex, normalise  # noqa: E402

# cache file -> (repository, path in it); "*" paths are folders of which T0_PER_FILE lines of each file are kept
SOURCES = {
    "mt_bench_question.jsonl": ("lm-sys/FastChat", "fastchat/llm_judge/data/mt_bench/question.jsonl"),
    "spec_bench_question.jsonl": ("hemingkx/Spec-Bench", "data/spec_bench/question.jsonl"),
    "HumanEval.jsonl.gz": ("openai/human-eval", "data/HumanEval.jsonl.gz"),
    "gsm8k_test.jsonl": ("openai/grade-school-math", "grade_school_math/data/test.jsonl"),
    "alpaca_eval.json": ("tatsu-lab/alpaca_eval", "example/outputs.json"),
    "gsm8k_train.jsonl": ("openai/grade-school-math", "grade_school_math/data/train.jsonl"),
    "self_instruct_seed_tasks.jsonl": ("yizhongw/self-instruct", "data/seed_tasks.jsonl"),
    "self_instruct_user_oriented.jsonl": ("yizhongw/self-instruct", "human_eval/user_oriented_instructions.jsonl"),
    "t0_sample.jsonl": ("yizhongw/self-instruct", "data/finetuning/t0_train_50k/data_per_template/*"),
}
T0_PER_FILE = 40
N_PLANTED = 120
KINDS = ("substitute", "insert", "delete", "move_clause", "case_punct", "embed_substitute")


def _git_show(git_dir: str, path: str) -> bytes:
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"HEAD:{path}"], check=True, capture_output=True).stdout


def ensure_data(data_dir: str, mirror: str | None) -> None:
    os.makedirs(data_dir, exist_ok=True)
    for name, (repo, path) in SOURCES.items():
        dest = os.path.join(data_dir, name)
        if os.path.exists(dest) and os.path.getsize(dest):
            continue
        git_dir = os.path.join(mirror, repo.replace("/", "+"), "repo") if mirror else None
        if not git_dir or not os.path.isdir(git_dir):
            sys.exit(f"decontam bench: {dest} is missing: fetch github:{repo} and save its {path} there "
                     f"(or pass --mirror DIR holding a bare clone at DIR/{repo.replace('/', '+')}/repo)")
        if path.endswith("*"):
            files = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD", path[:-1]],
                                   check=True, capture_output=True, text=True).stdout.split()
            lines = []
            for f in sorted(files):
                lines += _git_show(git_dir, f).decode("utf-8").splitlines()[:T0_PER_FILE]
            data = ("\n".join(lines) + "\n").encode("utf-8")
        else:
            data = _git_show(git_dir, path)
        with open(dest + ".tmp", "wb") as fh:
            fh.write(data)
        os.replace(dest + ".tmp", dest)


def _jsonl(path: str):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _unique_texts(rows: list[dict]) -> list[dict]:
    """`rows` without the later ones whose text an earlier row already holds, in order."""
    seen, unique = set(), []
    for row in rows:
        if row["text"] not in seen:
            seen.add(row["text"])
            unique.append(row)
    return unique


def load_evals(d: str) -> list[dict]:
    """Evaluation prompts, one per user turn (as the clean stage reads them), first occurrence of each text."""
    out = []
    for q in _jsonl(os.path.join(d, "mt_bench_question.jsonl")):
        out += [{"set": "mt_bench", "id": f"{q['question_id']}/{t}", "text": x} for t, x in enumerate(q["turns"])]
    for q in _jsonl(os.path.join(d, "spec_bench_question.jsonl")):
        out += [{"set": f"spec_bench/{q['category']}", "id": f"{q['question_id']}/{t}", "text": x}
                for t, x in enumerate(q["turns"])]
    out += [{"set": "humaneval", "id": q["task_id"], "text": q["prompt"]}
            for q in _jsonl(os.path.join(d, "HumanEval.jsonl.gz"))]
    out += [{"set": "gsm8k_test", "id": str(i), "text": q["question"]}
            for i, q in enumerate(_jsonl(os.path.join(d, "gsm8k_test.jsonl")))]
    with open(os.path.join(d, "alpaca_eval.json"), encoding="utf-8") as fh:
        out += [{"set": f"alpaca_eval/{q['dataset']}", "id": str(i), "text": q["instruction"]}
                for i, q in enumerate(json.load(fh))]
    return _unique_texts(out)


def load_ordinary(d: str) -> list[dict]:
    out = [{"set": "gsm8k_train", "text": q["question"]} for q in _jsonl(os.path.join(d, "gsm8k_train.jsonl"))]
    for name in ("self_instruct_seed_tasks.jsonl", "self_instruct_user_oriented.jsonl"):
        for q in _jsonl(os.path.join(d, name)):
            for inst in q.get("instances") or [{"input": ""}]:
                text = q["instruction"] + ("\n\n" + inst["input"] if inst.get("input") else "")
                out.append({"set": name.split(".")[0], "text": text})
    out += [{"set": "t0_train", "text": q["prompt"]} for q in _jsonl(os.path.join(d, "t0_sample.jsonl"))]
    return _unique_texts(out)


_TOKEN = re.compile(r"\S+")


def _content_positions(tokens: list[str]) -> list[int]:
    """Tokens that hold a content word (what a synonym replacer changes); all tokens when there is none."""
    pos = [i for i, t in enumerate(tokens) if re.sub(r"\W", "", t).casefold() not in FUNCTION_WORDS and re.search(r"\w", t)]
    return pos or list(range(len(tokens)))


def _swap_word(token: str, word: str) -> str:
    """`token` with its word replaced by `word`, keeping surrounding punctuation and a leading capital."""
    m = re.match(r"^(\W*)(.*?)(\W*)$", token)
    lead, core, tail = m.groups()
    if core[:1].isupper():
        word = word[:1].upper() + word[1:]
    return lead + word + tail


def perturb(text: str, kind: str, rng: random.Random, vocab: list[str], fillers: list[str]) -> str:
    tokens = _TOKEN.findall(text)
    if not tokens:
        return text
    if kind in ("substitute", "embed_substitute"):
        i = rng.choice(_content_positions(tokens))
        core = re.sub(r"\W", "", tokens[i]).casefold()
        word = rng.choice(vocab)
        while word == core:
            word = rng.choice(vocab)
        tokens[i] = _swap_word(tokens[i], word)
        out = " ".join(tokens)
        if kind == "embed_substitute":
            out = f"{rng.choice(fillers)}\n\n{out}\n\n{rng.choice(fillers)}"
        return out
    if kind == "insert":
        tokens.insert(rng.randrange(len(tokens) + 1), rng.choice(vocab))
        return " ".join(tokens)
    if kind == "delete":
        if len(tokens) > 1:
            del tokens[rng.choice(_content_positions(tokens))]
        return " ".join(tokens)
    if kind == "move_clause":
        # a clause boundary (comma, semicolon, sentence end) in the middle; else the last third of the words
        cuts = [i + 1 for i, t in enumerate(tokens[:-1]) if t[-1:] in ",;:.?!"]
        cut = min(cuts, key=lambda i: abs(i - len(tokens) / 2)) if cuts else max(1, 2 * len(tokens) // 3)
        head, tail = tokens[:cut], tokens[cut:]
        return " ".join(tail + head)
    if kind == "case_punct":
        flip = rng.choice([str.upper, str.lower, str.title])
        out = re.sub(r"[,;:.?!]", lambda m: rng.choice(["", " ", m.group(0) * 2, " - "]), text)
        return flip(out)
    raise ValueError(kind)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a quarter of the ordinary prompts; the stress pass on 500 evaluation prompts")
    ap.add_argument("--data-dir", default=os.path.expanduser("~/.cache/eaglekit/bench-data/decontam"))
    ap.add_argument("--mirror", default=None, help="folder of bare git mirrors (<owner>+<name>/repo) to fill the cache from")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threshold", type=float, default=None, help="containment threshold (default: CleanConfig's)")
    ap.add_argument("--near-threshold", type=float, default=None, help="word-similarity threshold (default: CleanConfig's)")
    ap.add_argument("--pipeline", action="store_true",
                    help="also run `eaglekit beam run clean` (DirectRunner, PII off) on the planted input and check "
                         "it drops the same prompts")
    ap.add_argument("--show", type=int, default=15, help="print up to this many misses and mistaken drops")
    args = ap.parse_args(argv)

    from beam_jobs.clean import CleanConfig
    import dataclasses
    defaults = {f.name: f.default for f in dataclasses.fields(CleanConfig)}
    threshold = defaults["decontam_threshold"] if args.threshold is None else args.threshold
    near_threshold = defaults["decontam_near_threshold"] if args.near_threshold is None else args.near_threshold

    ensure_data(args.data_dir, args.mirror)
    rng = random.Random(args.seed)
    evals = load_evals(args.data_dir)
    ordinary = load_ordinary(args.data_dir)
    if args.quick:
        ordinary = rng.sample(ordinary, len(ordinary) // 4)
    vocab = sorted({w for o in ordinary[:3000] for w in re.findall(r"[a-z]{3,}", o["text"].lower())})
    fillers = [o["text"] for o in ordinary if 40 <= len(o["text"]) <= 400]

    t0 = time.perf_counter()
    index = EvalIndex([e["text"] for e in evals], threshold, near_threshold)
    build_s = time.perf_counter() - t0

    planted = []
    for k, i in enumerate(rng.sample(range(len(evals)), N_PLANTED)):
        kind = KINDS[k % len(KINDS)]
        planted.append({"eval": i, "kind": kind, "text": perturb(evals[i]["text"], kind, rng, vocab, fillers)})

    texts = [o["text"] for o in ordinary] + [p["text"] for p in planted]
    t0 = time.perf_counter()
    matches = [index.match(t) for t in texts]
    score_s = time.perf_counter() - t0
    ord_matches, planted_matches = matches[:len(ordinary)], matches[len(ordinary):]

    # the same scoring with containment alone (the method before the word score): speed and planted misses
    base = EvalIndex([e["text"] for e in evals], threshold, None)
    t0 = time.perf_counter()
    base_matches = [base.match(t) for t in texts]
    base_s = time.perf_counter() - t0
    base_survived = sum(m is None for m in base_matches[len(ordinary):])
    base_dropped = sum(m is not None for o, m in zip(ordinary, base_matches) if not o["set"].startswith("self_instruct"))

    survived = [p for p, m in zip(planted, planted_matches) if m is None]
    dropped = [(o, m) for o, m in zip(ordinary, ord_matches) if m is not None]
    # an ordinary prompt whose source feeds the benchmark it matched (AlpacaEval's self-instruct part)
    genuine = [(o, m) for o, m in dropped if o["set"].startswith("self_instruct")
               and evals[m[0]]["set"] == "alpaca_eval/selfinstruct"]
    mistaken = [(o, m) for o, m in dropped if (o, m) not in genuine]
    counted = len(ordinary) - len(genuine)

    # stress: every perturbation of every evaluation prompt (or 500 with --quick)
    stress_ids = range(len(evals)) if not args.quick else rng.sample(range(len(evals)), 500)
    by_kind = {k: [0, 0] for k in KINDS}
    by_len: dict[str, list[int]] = {}
    missed_examples = []
    for i in stress_ids:
        n_words = len(re.findall(r"[^\W_]+", evals[i]["text"]))
        bucket = "1-5" if n_words <= 5 else "6-10" if n_words <= 10 else "11-20" if n_words <= 20 else "21+"
        for kind in KINDS:
            text = perturb(evals[i]["text"], kind, rng, vocab, fillers)
            caught = index.match(text) is not None
            by_kind[kind][0] += caught
            by_kind[kind][1] += 1
            by_len.setdefault(bucket, [0, 0])
            by_len[bucket][0] += caught
            by_len[bucket][1] += 1
            if not caught and len(missed_examples) < args.show:
                missed_examples.append((kind, evals[i]["text"][:120], text[:120]))

    pipeline = None
    if args.pipeline:
        pipeline = run_pipeline(evals, ordinary, planted, threshold, near_threshold, matches)

    for p in survived[:args.show]:
        print(f"SURVIVED {p['kind']}: {p['text'][:150]!r} (eval {evals[p['eval']]['set']}: {evals[p['eval']]['text'][:150]!r})", file=sys.stderr)
    for o, m in mistaken[:args.show]:
        print(f"DROPPED {o['set']}: {o['text'][:150]!r} ~ {evals[m[0]]['set']}: {evals[m[0]]['text'][:150]!r} ({m[1]} {m[2]:.2f})", file=sys.stderr)
    for o, m in genuine[:args.show]:
        print(f"GENUINE {o['set']}: {o['text'][:100]!r} = {evals[m[0]]['set']} {evals[m[0]]['id']} ({m[1]} {m[2]:.2f})", file=sys.stderr)
    for kind, ev, text in missed_examples:
        print(f"STRESS MISS {kind}: {text!r} (eval {ev!r})", file=sys.stderr)

    rate = len(mistaken) / max(1, counted)
    figures = {
        "eval_prompts": len(evals), "ordinary_prompts": len(ordinary), "planted": len(planted),
        "planted_survived": len(survived),
        "planted_survived_by_kind": {k: sum(p["kind"] == k for p in survived) for k in KINDS},
        "ordinary_dropped": len(mistaken), "ordinary_dropped_rate": round(rate, 6),
        "ordinary_dropped_by_set": {s: sum(o["set"] == s for o, _ in mistaken) for s in sorted({o["set"] for o in ordinary})},
        "genuine_duplicates": len(genuine),
        "genuine_duplicate_pairs": [[o["set"], evals[m[0]]["set"] + ":" + evals[m[0]]["id"], m[1], round(m[2], 3)]
                                    for o, m in genuine],
        "stress_recall_by_kind": {k: round(c / n, 4) for k, (c, n) in by_kind.items()},
        "stress_recall_by_words": {k: round(c / n, 4) for k, (c, n) in sorted(by_len.items())},
        "prompts_per_s": round(len(texts) / score_s, 1), "index_build_s": round(build_s, 2),
        "containment_only": {"planted_survived": base_survived, "ordinary_dropped_not_self_instruct": base_dropped,
                             "prompts_per_s": round(len(texts) / base_s, 1)},
        "index_keys": len(index.keys),
        "threshold": threshold, "near_threshold": near_threshold,
    }
    if pipeline is not None:
        figures["pipeline"] = pipeline
    result = {"bench": "decontam",
              "targets": {"planted_survived": {"value": len(survived), "op": "<=", "goal": 0},
                          "ordinary_dropped_rate": {"value": round(rate, 6), "op": "<=", "goal": 0.001}},
              "figures": figures}
    print(json.dumps(result))
    return result


def run_pipeline(evals, ordinary, planted, threshold, near_threshold, matches) -> dict:
    """The clean stage itself on the planted input (PII and near dedupe off): its decontamination drops must be
    the in-memory index's."""
    import tempfile

    from beam_jobs.clean import CleanConfig, run_clean
    from eaglekit.sources import TermsPolicy
    with tempfile.TemporaryDirectory() as tmp:
        inp, ev = os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "evals.jsonl")
        texts = [o["text"] for o in ordinary] + [p["text"] for p in planted]
        with open(inp, "w", encoding="utf-8") as fh:
            for i, t in enumerate(texts):
                fh.write(json.dumps({"id": f"in-{i}", "prompt": t}) + "\n")
        with open(ev, "w", encoding="utf-8") as fh:
            for e in evals:
                fh.write(json.dumps({"id": e["set"] + ":" + e["id"], "prompt": e["text"]}) + "\n")
        cfg = CleanConfig(inputs=[inp], output=os.path.join(tmp, "out"), pii_enabled=False, near_dedupe=False,
                          decontaminate=[ev], decontam_threshold=threshold, decontam_near_threshold=near_threshold,
                          max_dead_letter_share=None,
                          # public benchmark and instruction prompts under several terms, read here only to
                          # measure decontamination: accepted explicitly, nothing is trained on them
                          terms=TermsPolicy(allow_unknown=True))
        t0 = time.perf_counter()
        run_clean(cfg)
        wall = time.perf_counter() - t0
        dead = []
        for name in os.listdir(os.path.join(tmp, "out")):
            if name.startswith("dead_letters"):
                with open(os.path.join(tmp, "out", name), encoding="utf-8") as fh:
                    dead += [json.loads(line) for line in fh if line.strip()]
    dropped = {d["record"] for d in dead if d["reason"] == "contaminated"}
    expected = {i for i, m in enumerate(matches) if m is not None}
    return {"dropped": len(dropped), "same_as_index": dropped == expected, "wall_s": round(wall, 1),
            "example_detail": next((d["detail"] for d in dead if d["reason"] == "contaminated"), None)}


if __name__ == "__main__":
    main()
