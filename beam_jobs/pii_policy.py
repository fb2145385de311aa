"""The PII policy, apart from detection: which of the candidates the detectors found are redacted.

Detection (pii_names, pii_patterns, Presidio's recognizers, the trained name model) reports every
candidate with its type, where it came from and a confidence; this module alone decides. The default is
the one a reviewer can sign: every person name found is redacted, wherever it stands, as a cloud DLP
service's person-name type does. The genre exemptions below keep names in some kinds of text; each is
opt-in (`--pii-keep-names-in`), declared here once with what it keeps and what it costs, and none of them
holds in a text that also holds contact details or says whose details it holds ("my name is", "Dear ...").
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from beam_jobs import pii_names as names
from beam_jobs.pii_names import NameCandidates


@dataclass(frozen=True)
class Exemption:
    """One opt-in genre exemption: the names it keeps, an example, and the cost a reviewer must weigh."""
    name: str
    keeps: str
    example: str
    cost: str


EXEMPTIONS: tuple[Exemption, ...] = (
    Exemption("non_english", "names in a passage written in another language than English (except after a "
              "naming cue)", "Translate German to English: Herr Vogel ruft an",
              "every private name of a non-English passage leaks"),
    Exemption("article", "names in a text of 600+ characters in 4+ sentences, except those within 100 characters "
              "of a contact detail; also street addresses standing apart from any person", "a news story",
              "a court judgment or a letter about a private person is such a text: all its names leak"),
    Exemption("word_problem", "the characters of an arithmetic exercise", "Janet has 3 apples ...",
              "a real person's name in a sentence holding two numbers leaks"),
    Exemption("roleplay", "the persona a prompt asks the model to play, with its repeats",
              "Pretend to be Sherlock Holmes", "a private person named as the persona leaks"),
    Exemption("public_role", "a name right after a public or top company office, with its repeats",
              "CEO Amy Williams", "a private person with an office word before the name leaks"),
)
EXEMPTION_NAMES: tuple[str, ...] = tuple(e.name for e in EXEMPTIONS)
DEFAULT_EXEMPTIONS: tuple[str, ...] = ()   # recall first: every name found is redacted


def check_exemptions(exemptions) -> tuple[str, ...]:
    """`exemptions` as a tuple, or ValueError naming the unknown ones and the choices."""
    exemptions = tuple(exemptions)
    bad = [n for n in exemptions if n not in EXEMPTION_NAMES]
    if bad:
        raise ValueError(f"name exemptions must be among {EXEMPTION_NAMES} (or none), got {bad}")
    return exemptions


# Contact details and self-disclosure: a text with these is about a private person, whatever its genre.
_PERSONAL = re.compile(r"(?i)\b(?:my[ \t]+name|i[ \t]+live|my[ \t]+(?:address|phone|number|email|account|card|"
                       r"ssn|social[ \t]+security|passport|licen[cs]e|date[ \t]+of[ \t]+birth|dob)|"
                       r"dear[ \t]+(?!sir|madam|all|team|customer|friend)|sincerely|regards|personal[ \t]+info)\b")
_SENTENCE = re.compile(r"[.!?][\"'”’)]*\s+(?=[A-Z\"“])")
ARTICLE_CHARS, ARTICLE_SENTENCES = 600, 4


def personal_text(text: str) -> bool:
    """Whether the text says whose details it holds: "my name", "I live", "my address", "Dear ...", ..."""
    return bool(_PERSONAL.search(text))


def is_article(text: str) -> bool:
    return len(text) >= ARTICLE_CHARS and len(_SENTENCE.findall(text)) + 1 >= ARTICLE_SENTENCES


def names_to_redact(text: str, found: NameCandidates, exemptions: tuple[str, ...],
                    contact_details: list[tuple[int, int]], langid: Callable[[str], str] | None = None
                    ) -> list[tuple[int, int]]:
    """The name spans the policy redacts: all of them unless an opted-in exemption keeps some."""
    ner, titled, cued = found.ner, found.titled, found.cued
    keep = set(exemptions)
    if keep:
        article = "article" in keep and is_article(text)
        # contact details make any text about a private person; a first-person cue ("my name") does so
        # except in an article, where it is somebody quoted
        personal = not article and (bool(contact_details) or personal_text(text))
        if not personal:
            if article:  # only the names near a contact detail (100 characters) are its owner's
                near = [(max(0, a - 100), b + 100) for a, b in contact_details]
                ner = [(s, e) for s, e in ner if any(a <= s and e <= b for a, b in near)]
                titled = [(s, e) for s, e in titled if any(a <= s and e <= b for a, b in near)]
            if (ner or titled) and "word_problem" in keep and names.is_word_problem(text):
                ner, titled = [], []
            if ner and "public_role" in keep:
                ner = names.without_cued(text, ner, names.PUBLIC_ROLE)
            if ner and "roleplay" in keep:
                ner = names.without_cued(text, ner, names.ROLE_CUE)
            if (ner or titled) and "non_english" in keep and langid is not None:
                foreign = names.non_english_ranges(text, langid)
                ner = [(s, e) for s, e in ner if not any(a <= s and e <= b for a, b in foreign)]
                titled = [(s, e) for s, e in titled if not any(a <= s and e <= b for a, b in foreign)]
    return ner + titled + cued


_RESIDENCE = re.compile(r"(?i)\b(?:home|house|houses|lives?|lived|living|resident|residents|residence|apartment|"
                        r"flat|dwelling|moved|address|neighbou?rs?)\b")
CONTACT_DETAILS = frozenset({"EMAIL_ADDRESS", "PHONE_NUMBER", "STREET_ADDRESS", "CREDIT_CARD", "IBAN_CODE", "US_SSN",
                             "US_DRIVER_LICENSE", "US_PASSPORT", "US_BANK_NUMBER", "US_ITIN", "UK_NHS"})


def public_places(text: str, person_spans: list[tuple[int, int]], results: list) -> list:
    """Under the `article` exemption: `results` without the street addresses of an article that stand apart
    from any person ("the exterior of 10 Downing Street" is a landmark). An address keeps its redaction when
    a person's name or another contact detail stands within 100 characters of it, when a word says somebody
    lives there ("home", "lives", "apartment" within 60 characters before it), or when the text says whose
    details it holds."""
    addresses = [r for r in results if r.entity_type == "STREET_ADDRESS"]
    if not addresses or personal_text(text):
        return results
    near = list(person_spans)
    near += [(r.start, r.end) for r in results if r.entity_type in CONTACT_DETAILS and r.entity_type != "STREET_ADDRESS"]
    apart = [r for r in addresses if not any(s < r.end + 100 and r.start - 100 < e for s, e in near)
             and not _RESIDENCE.search(text[max(0, r.start - 60):r.start])]
    return [r for r in results if r not in apart]
