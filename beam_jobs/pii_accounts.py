"""Accounts a text writes without an "@": a login or a handle spelled from a person's name ("lmartinez_",
"RQUINTERO7", "nikhil.verma", "e.okoro", "grace_oyelaran"), wherever it stands, and, in a text where one account
is found, the other words written as accounts are written ("babayaga_blitz", "quietqueen77"). HandleRecognizer
(beam_jobs/pii_patterns.py) reports both as USERNAME.

An account is one token of letters and digits joined by "_", "." or "-", with an underscore, a dot between
letters or digits at its end: a word of prose never has that shape, code does ("max_len", "sys.argv"). So a text
that reads as code (two lines or more opening as code does) is left to the other finders, and a token that is
called, indexed, assigned or read as an attribute is no account.

The forms a name takes inside an account are declared once, in ACCOUNT_FORMS, with examples of our own that
tests/test_pii.py runs through the whole filter.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

from beam_jobs.pii_rules_common import is_function_word
from beam_jobs.pii_words import CODE_WORDS, FILE_ENDINGS, KNOWN_PRODUCTS, NOT_HANDLES, given_names, surnames

# One token shaped as accounts are: not inside an address, a path, a hashtag, a quoted word's contraction; not a
# call, an index or an assignment ("max_len(", "row_id=", "names["; "nikhil.verma (NV)" is an account)
_TOKEN = re.compile(r"(?<![\w@./\\#:\-'’])([A-Za-z][A-Za-z0-9]*(?:[._\-][A-Za-z0-9]+)*_*)"
                    r"(?![\w@]|[./\\:\-]\w|\(|[ \t]*[\[=])")
_ACCOUNT_SHAPE = re.compile(r"_|[A-Za-z]\.[A-Za-z]|[A-Za-z]\d{1,4}_*$")
# (a one-letter ending is a C file's only in code: "torstein.h" is a person's initial)
_FILE = re.compile(r"\.(?:" + "|".join(sorted(e for e in FILE_ENDINGS if len(e) > 1))
                   + r"|com|org|net|io|co|uk|de|edu|gov|ai|app|dev)$", re.I)
# A title glued to a name ("Mr.Rohan", "Smt.Kamala") is a name's, found by the name finders, not an account
_TITLE_PART = re.compile(r"(?i)(?:mr|mrs|ms|dr|sri|shri|smt|md|prof|st|mt|ft|no|nos|vs|v)$")
# Lines that open as code opens: two of them make a text code, whose identifiers are not accounts
_CODE_LINE = re.compile(r"(?m)^[ \t]*(?:def |class |import |from \S+ import|return\b|#include|public |private |"
                        r"function\b|var |let |const |for[ \t]*\(|if[ \t]*\(|[{}])")


def _parts(token: str) -> list[str]:
    return [p for p in re.split(r"[._\-\d]+", token) if p]


@dataclass(frozen=True)
class AccountForm:
    name: str
    covers: str
    test: Callable          # (token, parts, in_vocabulary) -> bool
    examples: tuple         # ((text, account), ...): found by the whole filter
    leaves: tuple           # texts in which the form finds nothing


def _word(part: str, in_vocabulary: Callable) -> bool:
    """A word of the dictionary (WordNet holds no function word: "since", "into"), of code or a product's name."""
    return in_vocabulary(part) or is_function_word(part) or part.lower() in CODE_WORDS \
        or part.lower() in KNOWN_PRODUCTS


def _name_word(part: str, names: Callable, in_vocabulary: Callable) -> bool:
    """A name of the lists that is no word."""
    return part.capitalize() in names() and not _word(part, in_vocabulary)


def _unknown_word(part: str, in_vocabulary: Callable) -> bool:
    return len(part) >= 4 and not _word(part, in_vocabulary)


def _two_names(token, parts, in_vocabulary) -> bool:
    return sum(len(p) >= 3 and (_name_word(p, given_names, in_vocabulary) or _name_word(p, surnames, in_vocabulary))
               for p in parts) >= 2


def _given_name(token, parts, in_vocabulary) -> bool:
    return any(len(p) >= 4 and _name_word(p, given_names, in_vocabulary) for p in parts)


def _name_and_unknown(token, parts, in_vocabulary) -> bool:
    # (a given name that is a word too, "grace", "dominic", or a surname beside a word no dictionary holds)
    return len(parts) >= 2 and any(
        len(p) >= 4 and p.capitalize() in given_names() or len(p) >= 3 and _name_word(p, surnames, in_vocabulary)
        for p in parts) and any(_unknown_word(p, in_vocabulary) and p.capitalize() not in given_names()
                                for p in parts)


def _initial_and_surname(token, parts, in_vocabulary) -> bool:
    # an initial glued to a surname of the lists, one case throughout, the whole no word ("lmartinez", "RQUINTERO7",
    # "tkim47"; a surname may be a word too: "tparker_it"), three letters of it only with digits after
    no_vocabulary = lambda w: False  # noqa: E731
    return any((p.islower() or p.isupper()) and not _word(p, in_vocabulary) and q.capitalize() in surnames()
               and not _word(q, no_vocabulary) and (len(q) >= 4 or len(q) == 3 and re.search(r"\d", token))
               for p in parts for q in [p[1:]])


_LETTER_AND_WORD = re.compile(r"[A-Za-z][._]([a-z]{4,})|([a-z]{4,})[._][a-z]")


def _letter_and_unknown(token, parts, in_vocabulary) -> bool:
    # one letter and a word no dictionary holds, either way round ("e.okoro", "torstein.h")
    m = _LETTER_AND_WORD.fullmatch(token)
    return m is not None and _unknown_word(m.group(1) or m.group(2), in_vocabulary)


ACCOUNT_FORMS: tuple[AccountForm, ...] = (
    AccountForm("two names", "two parts that are names of the lists", _two_names,
                (("week of 7 April: nikhil.verma on call", "nikhil.verma"),
                 ("| 14 | sasha_pearce | judging |", "sasha_pearce")),
                ("see np.linspace in the docs",)),
    AccountForm("a given name", "a given name of four letters or more that no dictionary holds", _given_name,
                (("sent from alt account oksana_t", "oksana_t"), ("kofi_b_ent just subscribed", "kofi_b_ent")),
                ("the max_len setting", "set sys.argv first")),
    AccountForm("a name and an unknown word", "a given name or a surname beside a word no dictionary holds",
                _name_and_unknown,
                (("the thread was started by grace_oyelaran last May", "grace_oyelaran"),
                 ("tanvir.hossain_ replied within the hour", "tanvir.hossain_")),
                ("grace_period applies",)),
    AccountForm("an initial and a surname", "an initial glued to a surname, one case throughout",
                _initial_and_surname,
                (("22:07 < lmartinez_> had the same with mine", "lmartinez_"),
                 ("Participants: JPARK214, RQUINTERO7", "RQUINTERO7"), ("mine's tkim47 at the school", "tkim47")),
                ("the member_since field", "an A4 sheet")),
    AccountForm("a letter and an unknown word", "one letter and a word no dictionary holds", _letter_and_unknown,
                (("2025-04-14  e.okoro (Emeka)", "e.okoro"), ("handover to torstein.h on Friday", "torstein.h")),
                ("a C.diff sample was sent", "i.e. the rest")),
)


@lru_cache(maxsize=64)  # the USERNAME gate, named_accounts and fellow_accounts read the same text
def _candidates(text: str) -> tuple[tuple[int, int, str], ...]:
    if len(_CODE_LINE.findall(text)) >= 2:
        return ()
    return tuple((m.start(1), m.end(1), m.group(1)) for m in _TOKEN.finditer(text)
                 if _ACCOUNT_SHAPE.search(m.group(1)) and not _FILE.search(m.group(1))
                 and m.group(1).lower() not in NOT_HANDLES)


def named_accounts(text: str, in_vocabulary: Callable) -> list[tuple[int, int]]:
    """The accounts of `text` that a form of ACCOUNT_FORMS finds a person's name in."""
    out = []
    for s, e, token in _candidates(text):
        bare = token.strip("_")
        parts = _parts(bare)
        if not parts or len(parts) > 1 and _TITLE_PART.match(parts[0]):
            continue
        glued = re.search(r"\.([A-Z][a-z]*)$", bare)
        if glued and (in_vocabulary(glued.group(1)) or is_function_word(glued.group(1))):
            continue  # a sentence run on without its space ("Julie Gautier.It takes place")
        if any(form.test(bare, parts, in_vocabulary) for form in ACCOUNT_FORMS):
            out.append((s, e))
    return out


def fellow_accounts(text: str, in_vocabulary: Callable) -> list[tuple[int, int]]:
    """In a text where an account was found, the other tokens written as accounts are: an underscore inside or at
    the end ("babayaga_blitz", "fenrir_"), a dot between lower-case words ("santi.gg"), letters then two digits or
    more ("quietqueen77"); with a digit, an underscore at its end or a part that no dictionary holds ("week_of"
    over a table stays). A car's or a part's code ("E46", "P0401") has one letter before its digits."""
    return [(s, e) for s, e, token in _candidates(text)
            if ("_" in token or re.fullmatch(r"[a-z]{2,}(?:\.[a-z]{2,})+", token)
                or re.fullmatch(r"[A-Za-z]*[a-z]{3,}\d{2,4}", token))
            and (re.search(r"\d|_$", token) or any(len(p) >= 3 and not in_vocabulary(p) for p in _parts(token)))
            and not all(p.lower() in CODE_WORDS for p in _parts(token))]


def may_name_accounts(text: str) -> bool:
    """A cheap gate before the USERNAME recognizer, true wherever a form of ACCOUNT_FORMS may hold: some token
    shaped as an account has a part of the name lists, a surname after its first letter, or is one letter and a
    word ("e.okoro"). Any token of that shape would let Presidio's whole analysis run on most prompts ("e.g.")."""
    for _, _, token in _candidates(text):
        bare = token.strip("_")
        if _LETTER_AND_WORD.fullmatch(bare) or any(
                len(p) >= 3 and (p.capitalize() in given_names() or p.capitalize() in surnames())
                or len(p) >= 4 and p[1:].capitalize() in surnames() for p in _parts(bare)):
            return True
    return False
