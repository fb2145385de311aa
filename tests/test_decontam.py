"""Decontamination by word similarity (dedupe.WordNear, issue 28 item 5): a short evaluation prompt with one
word substituted, inserted or deleted, a clause moved, or embedded in a longer prompt is caught; an ordinary
prompt that shares common words with one is kept; the keys find every candidate the score would drop; the
clean stage drops such a prompt with a dead letter naming the evaluation prompt and the score.
All examples are written for this file (none is copied from a benchmark)."""
from __future__ import annotations

import json
import os
import random

import pytest

from beam_jobs.dedupe import (Contained, EvalIndex, Letters, WordNear, candidate_word_codes, decontam_match,
                              normalise)

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

EVALS = ["Which river flows through the old town of Avignon?",            # 9 words, 3 content words
         "Why do cats purr when they are happy?",                          # 8 words
         "Name three uses of copper in electrical wiring.",
         "How does a heat pump warm a house in winter?",
         "Summarise the plot of a novel about a lighthouse keeper, in two sentences."]
NEAR = 0.72


def _score(ev: str, text: str) -> float:
    return WordNear(normalise(ev)).score(Letters.of(normalise(text)))


def _caught(ev: str, text: str) -> bool:
    c = Contained(normalise(ev))
    return decontam_match(c, WordNear(normalise(ev), c.letters), Letters.of(normalise(text)), 0.8, NEAR) is not None


@pytest.mark.parametrize("ev,edited", [
    (EVALS[0], "Which stream flows through the old town of Avignon?"),           # substituted
    (EVALS[1], "Why do cats purr when they are content?"),
    (EVALS[2], "Name three applications of copper in electrical wiring."),
    (EVALS[3], "How does a heat pump heat a house in winter?"),
])
def test_one_word_substituted_is_caught(ev, edited):
    c = Contained(normalise(ev))
    assert c.score(Letters.of(normalise(edited))) < 0.8        # what containment alone let through
    assert _score(ev, edited) >= NEAR and _caught(ev, edited)


@pytest.mark.parametrize("ev,edited", [
    (EVALS[0], "Which river flows through the old walled town of Avignon?"),     # inserted
    (EVALS[1], "Why do cats purr when they are really happy?"),
    (EVALS[0], "Which river flows through the town of Avignon?"),                # deleted
    (EVALS[3], "How does a heat pump warm a house in?"),
    (EVALS[2], "Name three uses of copper in wiring."),
])
def test_one_word_inserted_or_deleted_is_caught(ev, edited):
    assert _caught(ev, edited)


def test_embedded_in_a_longer_prompt_with_an_edit_is_caught():
    text = ("I am preparing a pub quiz for Friday and need a few geography rounds. Here is one I drafted: "
            "which river runs through the old town of Avignon? Please check it and suggest four more like it.")
    assert _caught(EVALS[0], text)
    assert _score(EVALS[0], text) >= NEAR


def test_clause_moved_and_case_punctuation_are_caught():
    assert _caught(EVALS[4], "In two sentences, summarise the plot of a novel about a lighthouse keeper")
    assert _caught(EVALS[3], "in winter, how does a heat pump warm a house")   # moved without a comma in the eval
    assert _caught(EVALS[1], "WHY DO CATS PURR -- WHEN THEY ARE HAPPY")


@pytest.mark.parametrize("ev,ordinary", [
    (EVALS[0], "Which bridge in the old town is the most photographed?"),        # common words, not the subject
    (EVALS[0], "Which river flows through the capital of Hungary?"),             # same frame, another question
    (EVALS[1], "Why do dogs wag their tails when they are happy?"),
    (EVALS[2], "Name three uses of vinegar in cleaning the kitchen."),
    (EVALS[3], "How does a bicycle pump work, and why does it get warm?"),
    (EVALS[3], "A house in winter needs heating: compare a gas boiler with electric radiators."),
    # the evaluation prompt's words scattered through a passage, out of order
    (EVALS[1], "My happy cats sleep all day. When they are awake they purr, and why do they do it so loudly?"),
])
def test_ordinary_prompt_sharing_common_words_is_kept(ev, ordinary):
    assert not _caught(ev, ordinary), _score(ev, ordinary)


def test_word_weights_favour_content_words():
    near = WordNear(normalise("What is the boiling point of ethanol?"))
    w = dict(zip(normalise("What is the boiling point of ethanol?").replace("?", "").split(), near.words.weights))
    assert w["the"] < w["what"] < w["point"] <= w["boiling"] == w["ethanol"] == 1.0
    # too little content to judge by words: only containment decides
    assert not WordNear(normalise("What is it?")).applies and len(WordNear(normalise("What is it?")).keys()) == 0


def test_keys_find_every_candidate_the_score_drops():
    """Random one- and two-word edits of each evaluation prompt, inside random text: whenever the word score
    reaches the threshold, the candidate shares a word key with the prompt."""
    rng = random.Random(1)
    filler = "lorem ipsum carrot window seventeen quickly orange marble".split()
    checked = 0
    for ev in EVALS:
        near = WordNear(normalise(ev))
        keys = set(near.keys().tolist())
        words = ev.split()
        for _ in range(80):
            w = list(words)
            for _ in range(rng.choice([1, 2])):
                op, i = rng.choice(["sub", "ins", "del"]), rng.randrange(len(w))
                if op == "sub":
                    w[i] = rng.choice(filler)
                elif op == "ins":
                    w.insert(i, rng.choice(filler))
                elif len(w) > 2:
                    del w[i]
            text = " ".join(rng.sample(filler, 3) + w + rng.sample(filler, 2))
            letters = Letters.of(normalise(text))
            if near.score(letters) >= NEAR:
                checked += 1
                assert keys & set(candidate_word_codes(letters).tolist()), (ev, text)
    assert checked > 100


def test_eval_index_matches_like_the_pairwise_check():
    ordinary = ["Which bridge in the old town is the most photographed?", "Tell me a joke about penguins.",
                "Why do dogs wag their tails when they are happy?"]
    planted = ["Which stream flows through the old town of Avignon?", "why do cats purr when they're happy",
               "Quick question. Name three uses of copper in electrical wires. Thanks!"]
    index = EvalIndex(EVALS, 0.8, NEAR)
    assert [index.match(t) for t in ordinary] == [None] * 3
    found = [index.match(t) for t in planted]
    assert [f[0] for f in found] == [0, 1, 2] and all(f[1] in ("near", "contained") for f in found)
    off = EvalIndex(EVALS, 0.8, None)   # word similarity off: containment alone misses the substitution
    assert off.match(planted[0]) is None


def _write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    return str(path)


def _dead(out):
    rows = []
    for name in os.listdir(out):
        if name.startswith("dead_letters"):
            with open(os.path.join(out, name), encoding="utf-8") as fh:
                rows += [json.loads(line) for line in fh if line.strip()]
    return rows


def test_clean_drops_a_one_word_substitution_naming_the_eval_prompt(tmp_path):
    from beam_jobs.clean import CleanConfig, run_clean
    ev = _write_jsonl(tmp_path / "evals.jsonl", [{"id": f"ev-{i}", "question": q} for i, q in enumerate(EVALS)])
    inputs = ["Which stream flows through the old town of Avignon?",        # near: one word substituted
              "Why do dogs wag their tails when they are happy?",           # ordinary
              "Name three uses of copper in electrical wiring. Keep it brief."]  # contained
    inp = _write_jsonl(tmp_path / "in.jsonl", [{"id": f"in-{i}", "prompt": t} for i, t in enumerate(inputs)])
    run_clean(CleanConfig(inputs=[inp], output=str(tmp_path / "out"), pii_enabled=False, decontaminate=[ev]))
    dead = {d["record"]: d for d in _dead(tmp_path / "out")}
    assert sorted(dead) == [0, 2] and {d["reason"] for d in dead.values()} == {"contaminated"}
    assert dead[0]["detail"].startswith(f"nearly holds evaluation prompt {ev}:0 (id ev-0): word similarity ")
    assert ">= 0.72" in dead[0]["detail"] and "Avignon" not in dead[0]["detail"]
    assert f"{ev}:2 (id ev-2): containment 1.00" in dead[2]["detail"]
    # switched off: the substitution survives (containment alone), the copy is still dropped
    run_clean(CleanConfig(inputs=[inp], output=str(tmp_path / "off"), pii_enabled=False, decontaminate=[ev],
                          decontam_near=False))
    assert sorted(d["record"] for d in _dead(tmp_path / "off")) == [2]
