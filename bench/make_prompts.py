"""Write a larger, varied prompt set for training a draft head on the embedded target (bench/serve.py's data).

The quickstart set (eaglekit/data/prompts.jsonl) has ~80 prompts: too few for a head that accepts well.
This script crosses hand-written topics with task templates (chat, how-to, code, math, lists,
explanations, writing, knowledge) and writes a deterministic JSONL of {"id", "category", "messages"}.
All text here was written for this project. (Templates give narrow prompts: a head trained only on
them accepts far less on natural questions. `eaglekit data synth-prompts` samples varied ones from the
target itself.) The bench prompts (serving/bench.py BUILTIN_PROMPTS) are
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
EXTRA_TOPICS = [
    # used only with --extended: more subjects, so a new seed yields prompts that are not near duplicates of earlier sets
    "woodworking", "learning to swim as an adult", "negotiating a salary", "writing a cover letter",
    "planning a wedding", "raising chickens", "keeping a sourdough starter", "buying a used car",
    "decluttering a garage", "teaching a child to ride a bike", "hiking with kids", "running a book club",
    "starting a podcast", "learning to draw", "making homemade pizza", "fermenting vegetables",
    "preparing for a job fair", "working night shifts", "caring for elderly parents", "first aid basics",
    "choosing a laptop", "backing up photos", "setting up a home office", "writing a novel",
    "learning the piano", "ice skating", "rock climbing", "growing herbs indoors", "bird feeding in winter",
    "keeping a fish tank", "renting out a spare room", "paying off debt", "preparing taxes", "mentoring a junior colleague",
    "giving feedback at work", "running effective one-on-ones", "writing documentation", "traveling on a budget",
    "learning to cook rice", "meal prepping for the week", "hosting a board game night", "planting a tree",
    "reducing food waste", "staying safe online", "choosing a password manager", "learning sign language",
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
EXTRA_SCIENCE = [
    "glaciers", "coral reefs", "the ozone layer", "wind turbines", "nuclear fusion", "antibiotics", "the nervous system",
    "the periodic table", "friction", "buoyancy", "the Doppler effect", "greenhouse gases", "deserts", "rainforests",
    "hurricanes", "the Silk Road", "the Industrial Revolution", "the Renaissance", "ancient Greece", "the telephone",
    "the steam engine", "GPS satellites", "radio waves", "microwaves", "the human eye", "the lungs", "muscles",
    "bones", "honeybees", "migration of birds", "dinosaurs", "fossils", "the solar system", "comets", "Mars",
    "the Milky Way", "lightning", "snowflakes", "the carbon cycle", "recycling plastics", "compound interest",
    "taxes", "trade between countries", "the scientific method", "probability", "prime numbers",
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
EXTRA_CODE_TASKS = [
    "checks whether a year is a leap year", "counts how many times each character appears in a string",
    "returns the intersection of two lists", "finds the most common element in a list",
    "converts a string to title case without using built-ins", "computes the power set of a small list",
    "checks whether a list is sorted", "removes all whitespace from a string", "returns the median of a list",
    "computes the dot product of two vectors", "generates the first n prime numbers", "reverses the words in a sentence",
    "converts Roman numerals to integers", "finds all pairs in a list that sum to a target",
    "returns the index of the first repeated character", "computes the Hamming distance between two strings",
    "zips two lists into a dictionary", "clamps a number between a minimum and a maximum",
]
LANGS = ["Python", "JavaScript", "Python", "Java", "C", "Go", "Rust", "Python"]

CODE_CONCEPTS = [
    "recursion", "a hash map", "a linked list", "a stack", "a queue", "big-O notation", "a class in Python",
    "a Python decorator", "a generator in Python", "exception handling", "unit testing", "version control with git",
    "an API", "a database index", "SQL joins", "a binary tree", "sorting algorithms", "a closure",
    "immutable data", "type hints in Python", "async and await", "a REST endpoint", "a regular expression",
]
EXTRA_CODE_CONCEPTS = [
    "a heap", "a graph", "dynamic programming", "memoization", "an interface", "inheritance", "polymorphism",
    "a virtual environment", "a package manager", "continuous integration", "a Docker container", "a pointer",
    "garbage collection", "a thread", "a mutex", "JSON", "a lambda function", "pure functions",
]

NAMES = ["Alice", "Ben", "Chen", "Dana", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Julia", "Kofi", "Lena"]
ITEMS = ["apples", "pencils", "books", "marbles", "cookies", "stickers", "oranges", "cards"]

CHAT = [
    "Give me some tips for {t}.", "I want to get better at {t}. Where should I start?",
    "What are common mistakes people make with {t}?", "Can you help me make a plan for {t}?",
    "What are the benefits of {t}?", "I'm feeling unmotivated about {t}. Any advice?",
]
EXTRA_CHAT = [
    "My friend wants to try {t}. What should I tell them?", "Is {t} worth the effort? Be honest.",
    "What does a good first week of {t} look like?",
]
HOWTO = [
    "How do I get started with {t}?", "Explain step by step how to approach {t} as a beginner.",
    "What equipment or resources do I need for {t}?", "How can I stay consistent with {t}?",
]
EXTRA_HOWTO = [
    "How much time should I set aside for {t} each week?", "How do I measure progress in {t}?",
]
LISTS = [
    "List five things to know about {t}.", "Give me a checklist for {t}.",
    "List three pros and three cons of {t}.", "What are seven quick ideas related to {t}?",
]
EXTRA_LISTS = [
    "Name four myths about {t} and correct them.", "Give me a packing or shopping list for {t}.",
]
EXPLAIN = [
    "Explain {s} in simple terms.", "How does {s} work?", "Why is {s} important?",
    "Explain {s} to a ten-year-old.", "What are the key facts about {s}?", "Give a short summary of {s}.",
]
EXTRA_EXPLAIN = [
    "What is a common misconception about {s}?", "Compare {s} and {s2} in a few sentences.",
]
WRITING = [
    "Write a short poem about {t}.", "Write a short story that involves {t}.",
    "Write a friendly email inviting a friend to try {t}.", "Write a haiku about {s}.",
    "Write a two-sentence advertisement for a class on {t}.", "Write a short paragraph describing {s}.",
]
EXTRA_WRITING = [
    "Write a limerick about {t}.", "Write a diary entry from someone who just discovered {t}.",
    "Write a short dialogue between two friends about {s}.",
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


def make_prompts(n: int, seed: int = 0, exclude=(), extended: bool = False) -> list[dict]:
    """n distinct prompts, deterministic for a seed, none equal (case-insensitive) to one in `exclude`.
    `extended` adds the EXTRA_* topics and templates; without it a seed gives what it always gave."""
    rng = random.Random(seed)
    def x(base: list[str], extra: list[str]) -> list[str]:
        return base + extra if extended else base

    topics, science = x(TOPICS, EXTRA_TOPICS), x(SCIENCE, EXTRA_SCIENCE)
    chat, howto, lists = x(CHAT, EXTRA_CHAT), x(HOWTO, EXTRA_HOWTO), x(LISTS, EXTRA_LISTS)
    explain, writing = x(EXPLAIN, EXTRA_EXPLAIN), x(WRITING, EXTRA_WRITING)
    code_tasks, concepts = x(CODE_TASKS, EXTRA_CODE_TASKS), x(CODE_CONCEPTS, EXTRA_CODE_CONCEPTS)
    banned = {e.strip().lower() for e in exclude}
    kinds = ["chat", "howto", "lists", "explain", "writing", "code", "code", "math", "math", "knowledge"]
    out, seen = [], set()
    attempts = 0
    while len(out) < n and attempts < n * 50:
        attempts += 1
        kind = kinds[attempts % len(kinds)]
        t, s = rng.choice(topics), rng.choice(science)
        if kind == "chat":
            text, cat = rng.choice(chat).format(t=t), "chat"
        elif kind == "howto":
            text, cat = rng.choice(howto).format(t=t), "how-to"
        elif kind == "lists":
            text, cat = rng.choice(lists).format(t=rng.choice([t, s])), "lists"
        elif kind == "explain":
            template = rng.choice(explain)  # a second subject is drawn only when the template has one
            s2 = rng.choice(science) if "{s2}" in template else ""
            text, cat = template.format(s=s, s2=s2), "explanation"
        elif kind == "writing":
            text, cat = rng.choice(writing).format(t=t, s=s), "writing"
        elif kind == "code":
            if rng.random() < 0.7:
                text = rng.choice(CODE).format(lang=rng.choice(LANGS), c=rng.choice(code_tasks))
            else:
                k, k2 = rng.sample(concepts, 2)
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
    ap.add_argument("--extended", action="store_true", help="add the EXTRA_* topics and templates (more distinct prompts)")
    ap.add_argument("--bench-out", default=None, help="also write the held-out bench prompts (for --decontaminate)")
    args = ap.parse_args()
    from serving.bench import BUILTIN_PROMPTS
    bench = [q for qs in BUILTIN_PROMPTS.values() for q in qs]
    rows = make_prompts(args.n, args.seed, exclude=bench, extended=args.extended)
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
