"""Write a larger, varied prompt set for training a draft head on the embedded target (bench/serve.py's data).

The quickstart set (eaglekit/data/prompts.jsonl) has ~80 prompts: too few for a head that accepts well.
This script crosses hand-written topics with task templates (chat, how-to, code, math, lists,
explanations, writing, knowledge) and writes a deterministic JSONL of {"id", "category", "messages"}.
All text here was written for this project. The bench prompts (serving/bench.py BUILTIN_PROMPTS) are
held out: any generated prompt equal to one of them (case-insensitive) is skipped, and `eaglekit beam run
clean --decontaminate` on the file written by --bench-out removes near duplicates as well.

  python bench/make_prompts.py --out ~/.cache/eaglekit/speedup/prompts.jsonl --n 1500 \
      --bench-out ~/.cache/eaglekit/speedup/bench_prompts.jsonl
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TOPICS = [
    "gardening", "cooking pasta", "baking bread", "running a marathon", "learning guitar", "saving money",
    "planning a vacation", "writing a resume", "public speaking", "time management", "studying for exams",
    "keeping houseplants alive", "training a puppy", "cycling to work", "meditation", "drinking enough water",
    "learning a new language", "painting with watercolors", "photography", "camping in the mountains",
    "recycling at home", "starting a small business", "job interviews", "making friends in a new city",
    "reading more books", "reducing screen time", "cleaning the kitchen", "moving to a new apartment",
    "birdwatching", "composting", "brewing coffee", "making tea", "swimming", "yoga", "chess",
    "knitting", "home workouts", "healthy breakfast ideas", "budgeting for groceries", "volunteering",
    "organising a closet", "hosting a dinner party", "writing a thank-you note", "learning to code",
    "fixing a flat bike tire", "growing tomatoes", "caring for a cat", "night sky observation",
    "journaling", "team meetings", "remote work", "saving energy at home", "packing for a flight",
]

SCIENCE = [
    "photosynthesis", "gravity", "the water cycle", "volcanoes", "earthquakes", "black holes", "rainbows",
    "the immune system", "vaccines", "electricity", "magnets", "the moon's phases", "tides", "seasons",
    "climate change", "plate tectonics", "DNA", "evolution", "the human heart", "sound waves",
    "the speed of light", "atoms", "chemical reactions", "batteries", "solar panels", "clouds",
    "thunderstorms", "bacteria", "viruses", "the digestive system", "sleep", "memory", "the internet",
    "computers", "airplanes flying", "rockets", "the stock market", "inflation", "interest rates",
    "supply and demand", "democracy", "the printing press", "the Roman Empire", "the pyramids of Egypt",
]

CODE_TASKS = [
    "reverses a string", "counts the vowels in a string", "returns the largest number in a list",
    "removes duplicates from a list while keeping order", "checks whether a number is prime",
    "computes the factorial of n", "merges two sorted lists", "flattens a nested list",
    "counts word frequencies in a text", "converts Celsius to Fahrenheit", "finds the second smallest number in a list",
    "checks whether two strings are anagrams", "computes the greatest common divisor of two numbers",
    "returns the sum of the digits of an integer", "splits a list into chunks of size k",
    "reads a text file and returns the number of lines", "validates that a string is a valid email address",
    "sorts a list of dictionaries by a given key", "computes the average of a list of numbers",
    "returns the n-th row of Pascal's triangle", "implements binary search on a sorted list",
    "capitalises the first letter of every word", "rotates a list by k positions",
    "finds the longest word in a sentence", "converts a decimal number to binary",
    "checks whether parentheses in a string are balanced", "transposes a matrix given as a list of lists",
    "returns all even numbers from a list", "computes the running total of a list",
    "groups words by their first letter",
]
LANGS = ["Python", "JavaScript", "Python", "Java", "C", "Go", "Rust", "Python"]

CODE_CONCEPTS = [
    "recursion", "a hash map", "a linked list", "a stack", "a queue", "big-O notation", "a class in Python",
    "a Python decorator", "a generator in Python", "exception handling", "unit testing", "version control with git",
    "an API", "a database index", "SQL joins", "a binary tree", "sorting algorithms", "a closure",
    "immutable data", "type hints in Python", "async and await", "a REST endpoint", "a regular expression",
]

NAMES = ["Alice", "Ben", "Chen", "Dana", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Julia", "Kofi", "Lena"]
ITEMS = ["apples", "pencils", "books", "marbles", "cookies", "stickers", "oranges", "cards"]

CHAT = [
    "Give me some tips for {t}.", "I want to get better at {t}. Where should I start?",
    "What are common mistakes people make with {t}?", "Can you help me make a plan for {t}?",
    "What are the benefits of {t}?", "I'm feeling unmotivated about {t}. Any advice?",
]
HOWTO = [
    "How do I get started with {t}?", "Explain step by step how to approach {t} as a beginner.",
    "What equipment or resources do I need for {t}?", "How can I stay consistent with {t}?",
]
LISTS = [
    "List five things to know about {t}.", "Give me a checklist for {t}.",
    "List three pros and three cons of {t}.", "What are seven quick ideas related to {t}?",
]
EXPLAIN = [
    "Explain {s} in simple terms.", "How does {s} work?", "Why is {s} important?",
    "Explain {s} to a ten-year-old.", "What are the key facts about {s}?", "Give a short summary of {s}.",
]
WRITING = [
    "Write a short poem about {t}.", "Write a short story that involves {t}.",
    "Write a friendly email inviting a friend to try {t}.", "Write a haiku about {s}.",
    "Write a two-sentence advertisement for a class on {t}.", "Write a short paragraph describing {s}.",
]
CODE = [
    "Write a {lang} function that {c}.", "Write a {lang} function that {c}, and explain how it works.",
    "Show me how to write a function in {lang} that {c}.",
]
CODE_EXPLAIN = ["Explain {k} with a short code example.", "What is {k} and when should I use it?",
                "What is the difference between {k} and {k2}?"]


MATH = [
    "What is {a} plus {b}? Show your work.",
    "What is {a} times {c}? Explain step by step.",
    "Solve for x: {c}x + {a} = {a_cb}.",
    "{n} has {a_b} {item} and gives away {b}. How many are left?",
    "A car travels {a2} km in {c} hours. What is its average speed?",
    "What is {c}% of {a10}?",
    "Is {a2_1} a prime number? Explain.",
    "A rectangle is {a} cm long and {c} cm wide. What are its area and perimeter?",
    "What is the average of {a}, {b} and {c}?",
    "{n} buys {c} {item} at {b} cents each. How much does {n} spend in total?",
]


def _math(rng: random.Random) -> str:
    a, b, c = rng.randint(2, 99), rng.randint(2, 99), rng.randint(2, 30)
    n, item = rng.choice(NAMES), rng.choice(ITEMS)
    return MATH[rng.randrange(len(MATH))].format(a=a, b=b, c=c, n=n, item=item, a_b=a + b, a_cb=a + c * b,
                                                 a2=a * 2, a10=a * 10, a2_1=a * 2 + 1)


def make_prompts(n: int, seed: int = 0, exclude=()) -> list[dict]:
    """n distinct prompts, deterministic for a seed, none equal (case-insensitive) to one in `exclude`."""
    rng = random.Random(seed)
    banned = {e.strip().lower() for e in exclude}
    kinds = ["chat", "howto", "lists", "explain", "writing", "code", "code", "math", "math", "knowledge"]
    out, seen = [], set()
    attempts = 0
    while len(out) < n and attempts < n * 50:
        attempts += 1
        kind = kinds[attempts % len(kinds)]
        t, s = rng.choice(TOPICS), rng.choice(SCIENCE)
        if kind == "chat":
            text, cat = rng.choice(CHAT).format(t=t), "chat"
        elif kind == "howto":
            text, cat = rng.choice(HOWTO).format(t=t), "how-to"
        elif kind == "lists":
            text, cat = rng.choice(LISTS).format(t=rng.choice([t, s])), "lists"
        elif kind == "explain":
            text, cat = rng.choice(EXPLAIN).format(s=s), "explanation"
        elif kind == "writing":
            text, cat = rng.choice(WRITING).format(t=t, s=s), "writing"
        elif kind == "code":
            if rng.random() < 0.7:
                text = rng.choice(CODE).format(lang=rng.choice(LANGS), c=rng.choice(CODE_TASKS))
            else:
                k, k2 = rng.sample(CODE_CONCEPTS, 2)
                text = rng.choice(CODE_EXPLAIN).format(k=k, k2=k2)
            cat = "code"
        elif kind == "math":
            text, cat = _math(rng), "math"
        else:
            text, cat = rng.choice(["What is {s}?", "Tell me an interesting fact about {s}.",
                                    "Who discovered or invented things related to {s}?"]).format(s=s), "knowledge"
        key = text.lower()
        if key in seen or key in banned:
            continue
        seen.add(key)
        out.append({"id": f"sp-{len(out):05d}", "category": cat, "messages": [{"role": "user", "content": text}]})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bench-out", default=None, help="also write the held-out bench prompts (for --decontaminate)")
    args = ap.parse_args()
    from serving.bench import BUILTIN_PROMPTS
    bench = [q for qs in BUILTIN_PROMPTS.values() for q in qs]
    rows = make_prompts(args.n, args.seed, exclude=bench)
    out = Path(args.out).expanduser()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if args.bench_out:
        Path(args.bench_out).expanduser().write_text(
            "".join(json.dumps({"id": f"bench-{i}", "prompt": q}) + "\n" for i, q in enumerate(bench)))
    cats: dict[str, int] = {}
    for r in rows:
        cats[r["category"]] = cats.get(r["category"], 0) + 1
    print(json.dumps({"written": len(rows), "out": str(out), "categories": cats}))


if __name__ == "__main__":
    main()
