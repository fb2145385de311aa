"""The pieces every name-finding rule of beam_jobs/pii_name_rules.py is written with: the word shapes its
patterns match and the word tests they share.
"""
from __future__ import annotations

import re

from beam_jobs.pii_words import (CARE_ROLES, ENGLISH_LOCALES, KIN_WORDS, MONTHS, NOT_ACTORS, NOT_ADDRESSED,
                                 NOTE_SHORTHAND, given_names)
from beam_jobs.presidio_loader import import_spacy

STOP_WORDS = import_spacy().lang.en.stop_words.STOP_WORDS

CAPWORD = r"[^\W\d_a-z][\w'’\-]*"          # a capitalised word, any script
ANYWORD = r"[^\W\d_][\w'’\-]*"              # a word in any case
# one capital letter of the Latin, Greek or Cyrillic alphabets, as an initial is written: "İ.K.", "Ş. Yılmaz",
# "Ž. Novak", "Ю. Петров" (an ASCII-only class missed the initials of every Turkish or Czech applicant)
UPPER = "[A-ZÀ-ÖØ-ÞĀĂĄĆĈĊČĎĐĒĔĖĘĚĜĞĠĢĤĦĨĪĬĮİĲĴĶĹĻĽĿŁŃŅŇŊŌŎŐŒŔŖŘŚŜŞŠŢŤŦŨŪŬŮŰŲŴŶŸŹŻŽƏȘȚΑ-ΩЀ-Я]"
INITIAL = rf"{UPPER}\.?"
# a person's initials run together: in capitals, or with a surname's particle in lower case ("JMH", "TdV", "BMcA")
INITIALS_RUN = r"[A-Z](?:[A-Z]{1,3}|(?=[A-Z]*[a-z])(?:[a-z]{1,2}[A-Z]|[A-Z]){1,3})"
# an initial of one sound in two letters, as names transliterated from Cyrillic and Hungarian, Serbian and Croatian
# names write one ("Sh. Huseynov", "Zh. Ivanova", "Zs.K.", "Gy. Tóth", "Lj. Babić")
DIGRAPH_INITIAL = r"(?:Zs|Sz|Cs|Gy|Ny|Ty|Dž|Dz|Lj|Nj|Sh|Ch|Zh|Kh|Ts|Yu|Ya|Ye|Yo)\."
# the space between a name's words: one or two spaces or a tab; three or more are a table's column gap
NAME_GAP = r"(?:[ ]{1,2}|\t)(?![ \t])"
# where a word starts: no letter, digit, "_" or "-" before, nor a word's apostrophe ("O'Neill"); a quote mark may
# stand before ("To: 'Gerhard Vosskamp'"). A pattern that opens on a word tries only there, not at every letter
# of a long word (a run of 10,000 letters took 11 s)
WORD_START = r"(?<![\w\-])(?<!\w['’])"

# the honorifics glued to a name by a hyphen in Japanese, Korean, Indian and Chinese English ("Tanaka-san",
# "Gandhi-ji", "Kim-ssi")
HONORIFIC_SUFFIX = re.compile(r"-(?:san|sama|kun|chan|sensei|senpai|sempai|dono|ssi|nim|ji|saab|sahib)(?![\w'’\-])")

MODALS = frozenset("will may can must might shall should would could".split())  # given names too: Will, May

POSSESSIVE = re.compile(r"['’]s\Z")
CONTRACTION = re.compile(r"(?i)['’](?:m|d|ll|ve|re|t)\Z|n['’]t\Z|^i['’]")  # "wouldn't", "I'm", "you'd"


def lower_given_name(word: str) -> bool:
    """A word in lower case that stands for a person where a message addresses or reports one ("dawn - can you",
    "sandy wants"): an English given name of the lists, dictionary word or not, but never a function word, a
    modal, a month, a word of address to a group ("all", "team") or a contraction."""
    return word.capitalize() in given_names(ENGLISH_LOCALES) and word not in STOP_WORDS and word not in MODALS \
        and word not in MONTHS and word not in NOT_ADDRESSED and not CONTRACTION.search(word)


def is_function_word(word: str) -> bool:
    """A pronoun, preposition, auxiliary or the like (spaCy's English stop words): never a name in lower case."""
    return word.lower() in STOP_WORDS


KIN_SET = frozenset(KIN_WORDS)

# how a judgment or a post says it names people by letters ("referred to in these proceedings as", "known as",
# "let's call him", "whom I shall call K", a post's "(call him K)", "a guy I'll call D")
REFERRED_AS = (r"(?i:\b(?:referred[ \t]+to|known)(?:[ \t]+(?:in|throughout)[ \t]+(?:these|the|this)[ \t]+"
               r"(?:proceedings|judgment|inquiry|investigation|report|decision|hearing|case|appeal|statement))?[ \t]+as|\b(?:let['’]s|we['’]ll|i['’]ll)[ \t]+(?:keep[ \t]+)?call(?:ing)?[ \t]+"
               r"(?:him|her|them)|\b(?:i['’]ll|we['’]ll|let['’]s)[ \t]+call|(?<![\w'’])call[ \t]+(?:him|her)|"
               r"\b(?:whom[ \t]+)?(?:i|we)[ \t]+(?:shall|will)[ \t]+(?:call|refer[ \t]+(?:to[ \t]+)?as))")

# a number next: a minute after a scorer, a year after "A.D." ("Vitesse - de Jong 34", "A.D. 1066")
NUMBER_NEXT = re.compile(r"[ \t]*\d")


def may_act(mark: str) -> bool:
    """Letters that may be a person's initials where they own a task: no department, team, body or note's acronym
    (pii_words.NOT_ACTORS), care role or note's shorthand."""
    low = mark.lower()
    return low not in NOT_ACTORS and low not in CARE_ROLES and low not in NOTE_SHORTHAND
