"""Person names for the clean stage's PII filter: spaCy's PERSON entities made whole and found where the
small English NER misses them, then the name policy that decides which of them are personal data.

Finding (recall): a name's initials, particles and neighbouring capitalised words join it ("Martim A
Pereira", "Maika van de Noort"); a name after a title ("Mrs. Meagan Wallace") or a naming cue ("my name is
patricia desrosiers", in any case) is a name whatever spaCy said; an entity spaCy labelled an organisation
or place is a name when it stands in a person's slot (after a title or cue, before "said"); in text written
all in lower case, the NER also reads a copy with capitalised words, since the model keys on capitals.
The small and medium English NERs miss or mislabel many names of other languages ("Tomomi" ORG, "Aniela"
nothing), so the English dictionary the spaCy pipeline ships (WordNet's lemma index) is a second opinion:
an organisation or place entity, or a capitalised word outside every entity, whose words no dictionary
holds is a name where it stands like one; and what a sentence says of somebody ("X is a kind person",
"X's daughter", "X and <a found name>") makes X a name.

Deciding is not done here: `find_names` returns the candidates by how they were found, and
beam_jobs/pii_policy.py decides which are redacted (by default all of them).
"""
from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass
from functools import lru_cache

from beam_jobs.pii_name_rules import rule_names
from beam_jobs.pii_rules_common import (DIGRAPH_INITIAL, HONORIFIC_SUFFIX, INITIALS_RUN, MODALS, NAME_GAP, NUMBER_NEXT,
                                        POSSESSIVE, REFERRED_AS, UPPER, WORD_START)
from beam_jobs.pii_rules_court import INITIALS_STAND_AFTER
from beam_jobs.pii_rules_mail import message_ends
from beam_jobs.pii_rules_news import company_reporting, declared_things
from beam_jobs.pii_rules_notes import PERSON_DOES_AFTER
from beam_jobs.pii_words import (AFTER_A_VERB, CARE_ROLES, DEVICE_WORDS, ENGLISH_FUNCTION_WORDS, ENGLISH_LOCALES,
                                 ENGLISH_NICKNAMES, EPONYM_DEVICES, GIVEN_NAME_LOCALES,
                                 GIVEN_NAME_SYLLABLES, GREETINGS, INITIAL_ACTOR_VERBS,
                                 INITIAL_ROLES,
                                 INSTITUTION_HEADS, KNOWN_PRODUCTS, LINE_LABELS, LOWER_CASE_WORDS, MONTHS, MOVE_VERBS,
                                 NAME_STOPS, NAME_SUFFIXES, NEVER_A_NAME, NOTE_LABELS, NOTE_SHORTHAND, NOT_INITIALS,
                                 NOT_VOCATIVE, OFFICE_WORDS, PERSON_HEADINGS, PLACE_AFTER, PLACE_NOUNS, PLACE_OF,
                                 PLACE_VERBS, SHORT_CLOSINGS, SIGNATURE_LOCALES, WEEKDAYS, country_names,
                                 cue_alternation, given_names, in_name_lists, place_names, surnames)
from beam_jobs.presidio_loader import import_spacy

_spacy = import_spacy()
STOP_WORDS = _spacy.lang.en.stop_words.STOP_WORDS
Span = _spacy.tokens.Span

# (a priest's "Fr", never a catheter's size: "16 Fr Foley")
# (and other languages' forms of address, in running text often in lower case: "señora Ortega", "Herrn Eberle")
TITLES = (r"(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Madam|Mme|Mlle|Herrn?|Frau|Sr|Sra|Srta|Dott|Sig|Sra|Rev|Revd|"
          r"[Ss]eñora|[Ss]eñorita|[Ss]eñor|Doña|[Ss]ignora|Signor|Monsieur|Madame|Mademoiselle|Profe|Profa|"
          r"[Mm]aestra|[Mm]aestro|Profesora?|Doctora|"
          r"Lord|Lady|Baroness|Fr(?<!\d[ \t]Fr)(?<!\dFr))")
_CAP = r"[^\W\d_a-z][\w'’\-]*"                  # a capitalised word (non-ASCII capitals included)
# (and the patronymic links: Turkic, Arabic, Kalenjin, Kikuyu, Welsh: "Gulnara Rafig qizi Aliyeva", "Ali Rza oglu
# Mammadov", "Fatima bint Ali", "Daniel arap Moi", "Njoroge wa Kamau", "Rhys ap Gruffydd", "Naveed ul-Haq")
_PARTICLE = (r"(?:van|von|de|der|den|da|das|do|dos|di|del|della|dela|du|le|la|ten|ter|bin|ibn|al|el|mac|mc|"
             r"qizi|qızı|gizi|kizi|oglu|oğlu|ogly|kyzy|uulu|bint|arap|wa|ap|ul|ud|"
             r"y|e)")  # Spanish, Filipino and Portuguese names join two surnames: "Ramos y Salazar", "Silva e Costa"
# a particle glued to the surname by a hyphen or apostrophe: "al-Zarqawi", "el-Sisi", "d'Alembert"
_PARTICLE_WORD = re.compile(_PARTICLE)
_GLUED_PARTICLE = rf"(?:{_PARTICLE}[-'’]|[dl]['’])[A-Z][\w'’\-]*"  # ... and "d'Aubigny", "l'Estrange"
_TITLE_NAME = re.compile(rf"(?<![\w&]){TITLES}\.?[ \t]+((?:{UPPER}\.?[ \t]+)?{_CAP}(?:[ \t]+(?:{_PARTICLE}[ \t]+)*{_CAP}){{0,2}})")
# Cues after which the next one to three words are a name in any case. Weak cues ("I'm", "called") are
# left out: "I'm happy", "a process called osmosis".
_NAME_CUES = (
    ("", "my", r"[ \t]+name[ \t]+is"),
    ("", "his her their your the", r"[ \t]+name[ \t]+is"),
    # a relative's or a patient's name, as notes give it ("Wife's name is Dolores")
    ("", "wife's husband's son's daughter's mother's father's brother's sister's partner's friend's pt's patient's "
         "boyfriend's girlfriend's", r"[ \t]+name[ \t]+is"),
    ("", "maiden", r"[ \t]+name[ \t]+is"),
    (r"(?<!file[ \t])", "name", r"[ \t]*[:?]"),
    ("", "under", r"[ \t]+(?:my|the|his|her)[ \t]+name"),
    ("", "signed sincerely regards cheers best", r"[ \t]*,[ \t]*\n"),
    (r"(?<![\w ])", "dear", ""),
    ("", "née", ""),  # a maiden name: "Dzhamila GASANOVA (née ALIEVA)"
)
_NAME_CUE = re.compile(r"(?i)\b" + cue_alternation(_NAME_CUES) + r"[ \t]*\n?[ \t]*")
# Person slots around an entity spaCy labelled as something else
_SLOT_BEFORE = re.compile(rf"(?:\b{TITLES}\.?|(?i:\b(?:my[ \t]+name[ \t]+is|named|dear|hi|hello|thanks|thank[ \t]+you|"
                          r"contact|ask|call|email|tell|met|meet|married|said[ \t]+to|add|appointed|hired|thanked|"
                          r"interviewed|invited|visited|phoned|texted|kissed|hugged|"
                          r"customer|client|patient|employee|colleague|friend|wife|husband|son|daughter|mother|"
                          r"father|brother|sister|partner|guardian|beneficiary)))[ \t,]*\Z")
# verbs of thinking, feeling and a life's events: what people do, not organisations or places
_SLOT_AFTER = re.compile(r"^(?:[ \t]+(?:said|says|told|asked|replied|wrote|was[ \t]+born|had[ \t]+given|lives|works|"
                         r"noticed|thought|believed|felt|wanted|smiled|laughed|cried|died|married|spent|studied|"
                         r"graduated|recalled|remembered|reali[sz]ed|insisted|admitted|loved|hated|knew|argued|"
                         r"explained|looks|looked|wondered|himself|herself)\b|"
                         r"[ \t]*:[ \t]*\")")
_OTHER_LABELS = {"ORG", "GPE", "LOC", "FAC", "PRODUCT", "WORK_OF_ART"}  # not NORP/LANGUAGE: "English", "Dutch"
_QUANTITY = re.compile(r"(?i)\b(?:how[ \t]+(?:many|much|long|far|old|fast|often)|what[ \t]+(?:is|was|will|would)[ \t]+"
                       r"the[ \t]+(?:total|sum|number|cost|price|average|difference|percentage|area|value|amount)|"
                       r"calculate|compute|find|determine|solve|work[ \t]+out|what[ \t]+percent(?:age)?|in[ \t]+total)\b")


@dataclass
class NameCandidates:
    """Person-name candidates of one text, by how they were found. `ner`: the NER model, the dictionary
    backstop and the structural rules; `titled`: after a title ("Mrs. Wallace"); `cued`: after a naming cue
    ("my name is ..."), which no exemption ever keeps."""
    ner: list[tuple[int, int]]
    titled: list[tuple[int, int]]
    cued: list[tuple[int, int]]


class SpanIndex:
    """Answers "does (s, e) overlap any of these spans?" in log time: sorted starts and, for each prefix, the
    furthest end. A long text has thousands of candidates, and testing each against every other cost the
    square of their number (a 160,000-character note in lower case: 24 million tests)."""

    def __init__(self, spans):
        ordered = sorted(spans)
        self._starts = [a for a, _ in ordered]
        self._reach, furthest = [], -1
        for _, b in ordered:
            furthest = max(furthest, b)
            self._reach.append(furthest)

    def overlaps(self, s: int, e: int) -> bool:
        k = bisect.bisect_left(self._starts, e)  # the spans starting before e ...
        return k > 0 and self._reach[k - 1] > s   # ... one of which ends after s


def _intersections(spans, others) -> list[tuple[int, int]]:
    """The parts of `spans` that lie inside some span of `others` (which do not overlap one another, as a doc's
    entities do not): one bisection per span, not a test against every other."""
    others = sorted(others)
    ends = [b for _, b in others]  # sorted too: the spans do not overlap
    out = []
    for s, e in spans:
        k = bisect.bisect_right(ends, s)
        while k < len(others) and others[k][0] < e:
            a, b = others[k]
            out.append((max(s, a), min(e, b)))
            k += 1
    return out


def union_spans(spans) -> list[tuple[int, int]]:
    """Sorted, merged (start, end) spans: overlapping or touching ones become one; empty ones are dropped."""
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]


_NEXT_NAME_WORD = re.compile(rf"{NAME_GAP}(?:(?:{UPPER}\.?|{_PARTICLE}(?:{NAME_GAP}{_PARTICLE})?){NAME_GAP})?({_CAP}|{_GLUED_PARTICLE})")
_PREVIOUS_NAME_WORD = re.compile(rf"(?:^|(?<=[\s(\"“]))({DIGRAPH_INITIAL}|{_CAP}|{UPPER}\.?){NAME_GAP}(?:{_PARTICLE}{NAME_GAP})*\Z")


_HYPHENATED_REST = re.compile(r"[-‐][^\W\d_a-z][\w'’]+")
# a Korean or Chinese given name's second syllable in lower case ("Jae" + "-won", "Min" + "-seo")
_SYLLABLE = re.compile(r"(?<![\w'’\-])[A-Z][a-z]{1,3}\Z")
_SYLLABLE_REST = re.compile(r"-[a-z]{2,4}(?![\w'’\-])")
_HYPHENATED_START = re.compile(r"(?<![\w'’\-‐])[^\W\d_a-z][\w'’]*[-‐]\Z")  # "Linos-" before "Alexandre"


def complete(text: str, s: int, e: int) -> tuple[int, int]:
    """Grow a name span over adjacent initials, particles and capitalised words on its line, and over the
    rest of a hyphenated name the tokenizer split ("Barnaby Fitch" + "-Hollis", "Linos-" + "Alexandre")."""
    while True:
        m = _HYPHENATED_REST.match(text, e)
        if not m and _SYLLABLE.search(text, s, e):
            m = _SYLLABLE_REST.match(text, e)
        if m:
            e = m.end()
            continue
        m = _NEXT_NAME_WORD.match(text[e:])
        if m and m.group(1).lower() not in NAME_STOPS and not _is_sentence_start(text, e + m.start(1)) \
                and (not _acronym(m.group(1)) or _capitals_surname(text, s, e, m.group(1))
                     or text[s:e].isupper() and _caps_name_word(m.group(1))):
            # (in a name in capitals, the next word in capitals of the name lists: "SUMMER ROSE PETRAKIS")
            e += m.end()
            continue
        m = re.match(rf"[ \t]+{UPPER}\.(?![\w])", text[e:])  # trailing initial: "Smith J."
        if m:
            e += m.end()
        elif m := _COMMA_INITIALS.match(text, e):  # a list's "Barrett, T. J."
            e = m.end()
        break
    while True:
        window = max(0, s - 40)
        before = text[window:s]
        m = _HYPHENATED_START.search(before)
        if m:
            s = window + m.start()
            continue
        m = _PREVIOUS_NAME_WORD.search(before)
        if not m or m.group(1).lower() in NAME_STOPS:
            break
        caps_name = text[s:e].isupper() and _caps_name_word(m.group(1))
        if _acronym(m.group(1)) and not caps_name:
            break
        if _is_sentence_start(text, window + m.start(1)):
            # a sentence's first word is no name's ("Yesterday Smith said"), except a given name of the English
            # lists opening a line that holds the name alone or before a comma, as a signature does ("Drew
            # Fossum\nVice President", "Faith Oyelowo, Office Coordinator")
            if _NAME_LINE_END.match(text, e) and text[:window + m.start(1)].rstrip(" \t")[-1:] in ("", "\n") \
                    and m.group(1) in given_names(ENGLISH_LOCALES):
                s = window + m.start(1)
            # ... or an English given name right before a surname found ("Hope Castillo will lead"): a word the
            # dictionary holds too, but before a person's surname it is the given name, and taking it costs
            # one word next to a redaction
            elif caps_name and m.group(1).capitalize() in given_names(ENGLISH_LOCALES):
                s = window + m.start(1)  # "SUMMER ROSE PETRAKIS" opening its line
            elif m.group(1) in given_names(ENGLISH_LOCALES) and m.group(1).lower() not in MONTHS \
                    and " " not in text[s:e].strip() and text[s:e].strip() in surnames() \
                    and text[window + m.end(1):s].strip(" \t") == "":
                s = window + m.start(1)
            break
        s = window + m.start(1)
    return s, e


_NAME_LINE_END = re.compile(r"[ \t]*(?:,|\n|\Z)")
# a surname's initials after a comma, ending its line, cell or list item or before a credential ("Barrett, T. J.\n",
# "Haddad, M. (!)", "Hollister, J. RN")
_COMMA_INITIALS = re.compile(rf",[ \t]*{UPPER}\.(?:[ \t]?{UPPER}\.){{0,2}}"
                             r"(?=[ \t]*(?:[(;|/]|\n|\Z|(?:RN|LPN|NP|MD|RRT|RT|CNA)\b))")


def _caps_name_word(word: str) -> bool:
    """A word in capitals that a name in capitals grows over: an English given name or a surname of the lists,
    no function word or month ("SUMMER ROSE PETRAKIS"; not "... AND HASEK MADE 28 SAVES", "WILL", "MAY")."""
    w = word.capitalize()
    return len(word) >= 3 and word.isupper() and word.lower() not in STOP_WORDS and word.lower() not in MONTHS \
        and (w in given_names(ENGLISH_LOCALES) or w in surnames()) and not _NOT_A_NAME_WORD.match(w)


def _capitals_surname(text: str, s: int, e: int, word: str) -> bool:
    """A surname in capitals after a given name written as prose writes it, as judgments and registers put it
    ("Artur ISMAILOV"); not a role's or an agency's letters ("Amy Cole CEO": three letters, "Mary Ng NASA"), nor
    after a name in capitals: in a line of capitals the next word may be anything ("SMITH STREET", "OKONJO SIGNS")."""
    last = text[s:e].split()[-1] if text[s:e].split() else ""
    return len(word) >= 5 and word.isalpha() and last[:1].isupper() and last[1:].islower()


def after_office(text: str, s: int, e: int) -> tuple[int, int]:
    """The span from the word after its last office, rank or role word (OFFICE_WORDS), when capitalised words
    follow it: the NER runs a place or an office into the name ("United States President Ronald Reagan" ->
    "Ronald Reagan", "Chelsea boss Jose Mourinho" -> "Jose Mourinho"), and a found span's words repeat as
    names ("States", "Chelsea"). The name itself is still redacted whole."""
    words = list(_SPAN_WORD.finditer(text, s, e))
    only_suffixes = True  # whether every word after position i is a suffix ("Jr", "III"); kept from the end
    for i in range(len(words) - 2, -1, -1):
        only_suffixes = only_suffixes and words[i + 1].group(0).lower() in NAME_SUFFIXES
        if _is_office(words[i].group(0)) and words[i + 1].group(0)[:1].isupper() and not only_suffixes:
            return words[i + 1].start(), e
    return s, e


_SPAN_WORD = re.compile(r"[^\s,;:()]+")


def _is_office(word: str) -> bool:
    """An office, rank or role word (OFFICE_WORDS), possessive or abbreviated ("President's", "Gen.")."""
    return re.sub(r"['’]s\Z", "", word).rstrip(".").lower() in OFFICE_WORDS


def _grown(text: str, s: int, e: int) -> tuple[int, int]:
    """The span made whole (complete), from the word after its last office (after_office); where the growth
    ran over an office into another name and the cut lost all of the span found, the span found itself. In
    the capitalised copy of a lower-case text every word is capitalised: "Prime Minister Benjamin Netanyahu
    Met ... President Yasser Arafat" grew into one run, and the cut kept "Yasser Arafat" alone."""
    a, b = after_office(text, *complete(text, s, e))
    between = _SPAN_WORD.findall(text, e, a) if e <= a else []
    if a < e and s < b or all(_is_office(w) for w in between):
        return a, b  # the cut holds some of the span found, or only offices part them ("Brigadier General")
    return after_office(text, s, e)


# a given name that ends a long line, and the capitalised word that opens the next: a wrapped name ("Linesmen -
# Barry Novak, Ron\nAshby.", "9 - Rhys\nHowells (Bridgend)"); lines of results hold no lower-case word to tell
# wrapped prose by (pii_wrapped), and the NER reads the break as a word of its own
_WRAPPED_SURNAME = re.compile(rf"[ \t]*\n[ \t]*({_CAP})(?![\w'’\-]|[ \t]*:)")
_WRAPPED_LINE = 40  # characters: a signature's or a list's short lines end with a given name of their own


def _over_wrap(text: str, s: int, e: int, vocabulary: frozenset[str]) -> tuple[int, int]:
    """The span grown over a line break onto the surname that opens the next line (_WRAPPED_SURNAME): when the
    span ends a line of _WRAPPED_LINE characters or more with a given name of the lists, and the next word is
    no dictionary word (but a surname of the lists: WordNet holds "Howells"), acronym or place."""
    m = _WRAPPED_SURNAME.match(text, e)
    if not m or e - (text.rfind("\n", 0, s) + 1) < _WRAPPED_LINE:
        return s, e
    last, word = text[s:e].split()[-1], m.group(1)
    if last in given_names() and not _acronym(word) and word.lower() not in NAME_STOPS \
            and (not in_vocabulary(word, vocabulary) or word in surnames() and word not in given_names()) \
            and word not in place_names() and word not in country_names():
        return s, m.end(1)
    return s, e


def _without_function_words(text: str, s: int, e: int) -> tuple[int, int] | None:
    """The span of a text written in lower case without the function words at either end, which the
    capitalised copy let a name grow over ("and anna" -> "anna"). Dictionary words stay: in lower-case chat
    "trump" or "sterling" is as often a name (measured: trimming them too leaked 4 more of 374 WNUT-17 dev
    records)."""
    words = list(re.finditer(r"\S+", text[s:e]))
    while words and words[0].group(0).strip(".,;:!?'’\"()").lower() in STOP_WORDS:  # "I lost" -> "lost"
        words.pop(0)
    while words and words[-1].group(0).strip(".,;:!?'’\"()").lower() in STOP_WORDS:
        words.pop()
    return (s + words[0].start(), s + words[-1].end()) if words else None


def _without_lower_lead(text: str, s: int, e: int) -> tuple[int, int]:
    """The span without its leading lower-case words ("ex-Zombie Ogasahara" -> "Ogasahara")."""
    m = re.match(r"(?:[a-z][\w'’\-]*[ \t]+)+", text[s:e])
    return (s + m.end(), e) if m and s + m.end() < e else (s, e)


_SPACED_DASH = re.compile(r"[ \t]+[-–—][ \t]+")


def _dash_parts(text: str, s: int, e: int, vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """An entity the NER ran over a spaced dash from a mail acronym or a field's label ("FYI - Hunter",
    "Reviewer - Kwame Mensah"): the part after it, which the cut to the leading capitalised words would lose
    with the label; from a name, both names when the second opens with a given name ("Paulo - Helen Zhao has
    been unable", a greeting before a mail's first sentence); from a side before its scorer and the minute, the
    scorer ("Vitesse - de Jong 34"). Any other entity as it is."""
    m = _SPACED_DASH.search(text, s, e)
    if m:
        if NUMBER_NEXT.match(text, e):
            return [(m.end(), e)]
        before = text[s:m.start()].strip()
        if before.lower() in NOT_INITIALS or " " not in before and in_vocabulary(before, vocabulary) \
                and not in_name_lists(before):
            return [(m.end(), e)]
        after = text[m.end():e].split()
        if after and after[0] in given_names() and after[0] not in place_names():  # not "Chiang Mai - Bangkok"
            return [(s, s + len(text[s:m.start()].rstrip())), (m.end(), e)]
    return [(s, e)]


def _capitalised_prefix(text: str, s: int, e: int) -> tuple[int, int]:
    """The span cut after its last leading capitalised word, initial or particle: the NER sometimes runs a
    name into the verb or number after it ("John drink", "Richard 5 seconds")."""
    end = s
    for m in re.finditer(r"[^\s]+", text[s:e]):
        w = m.group(0)
        if not (w[:1].isupper() or re.fullmatch(_PARTICLE, w) or re.fullmatch(_GLUED_PARTICLE, w.rstrip(".,;:!?"))):
            break
        end = s + m.end()
    return (s, end)


_CUE_WORDS = frozenset("per fyi cc re attn ask tell let thanks thx".split())


def _name_after_cue_word(text: str, s: int, e: int, prefix: tuple[int, int]) -> tuple[int, int] | None:
    """An entity whose capitalised part is a cue or function word alone and whose next word is in lower case
    ("Per kay's note", "Ask joe"): the lower-case given name after it; a cue before any other word is no name."""
    word = text[prefix[0]:prefix[1]]
    if " " in word or word.lower() not in _CUE_WORDS and word.lower() not in STOP_WORDS:
        return prefix
    nxt = re.match(r"[ \t]+([a-z][\w\-]*)", text[prefix[1]:e])
    if not nxt:
        return prefix  # "Son Will to visit": the entity ends there, and "Will" is the name
    if nxt.group(1).capitalize() in given_names():
        return prefix[1] + nxt.start(1), prefix[1] + nxt.end(1)
    return None if word.lower() in _CUE_WORDS else prefix


def _acronym(word: str) -> bool:
    # "CEO", "NCIS": a role or a title, not part of the name; "OBCs", "VBIEDs": an acronym's plural
    return len(word) > 1 and (word.isupper() or len(word) > 2 and word[-1] == "s" and word[:-1].isupper())


def _is_sentence_start(text: str, i: int) -> bool:
    """Nothing but spaces and tabs stand between text[i] and the text's start, a sentence's end, a colon, a line
    break or an opening quote (a walk back over the blanks: slicing the text before i cost a copy of it per call)."""
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    return i == 0 or text[i - 1] in ".!?:\n\"“"


def _inside_sentence(text: str, start: int) -> bool:
    """Whether a word at `start` stands inside a sentence: after a word in lower case, a comma or a bracket on its
    line (within 40 characters of blanks), not at a line's, a sentence's or a label's start; the same walk back as
    _is_sentence_start's, with a stricter test of what stands there."""
    i, stop = start, max(0, start - 40)
    while i > stop and text[i - 1] in " \t":
        i -= 1
    return i > stop and (text[i - 1].islower() or text[i - 1] in ",(")


# Cues after which capitalised words are a name ("was called Crystal Murdock", "says Navrátilová"), as rows of
# cue_alternation
_WEAK_CUES = (
    ("", "said says shouted yelled whispered cried", r"[ \t]+(?:\S+[ \t]+)?(?:to|at)"),
    ("", "call called", r"[ \t]+(?:me|him|her)"),
    ("", "was is were be", r"[ \t]+called"),
    ("", "named", r"(?:[ \t]+(?:him|her))?"),
    ("", "says said asked replied", ""),
    ("", "shouted", r"[ \t]+at"),
    ("", "told married", ""),
    ("", "thank thanks assistant speak talk write reply", r"[ \t]+to"),
    ("", "directed written produced composed performed painted authored created signed approved reviewed prepared",
     r"[ \t]+by[ \t]*:?"),
    ("", "caught bowled stumped", r"[ \t]+by"),  # a cricket report's fielder and bowler ("caught by Long")
    ("", "loop looping looped", r"[ \t]+in"),  # mail's "Looping in Sunni."
    ("", "say", r"[ \t]+(?:hi|hello|hey)[ \t]+to"),  # "Say hi to Angus and tell him"
    ("", "off", r"[ \t]+the[ \t]+bowling[ \t]+of"),
    ("", "my", r"[ \t]+(?:kid|son|daughter|child|wife|husband|partner|spouse|fianc[ée]e?|friend|colleague|boss|"
     r"manager|mother|mom|mum|father|dad|brother|sister|grandson|granddaughter|grandmother|grandfather|"
     r"nephew|niece|cousin|aunt|uncle|neighbou?r|tenant|landlord|doctor|lawyer|client|patient)"),
    (r"(?<![\w ])", "hi hello hey", ""),
    (r"(?<![\w ])", "good", r"[ \t]+(?:morning|afternoon|evening)"),
    ("", "producer director singer songwriter author writer editor founder commenter actor actress artist coach "
     "professor nurse officer agent customer user resident employee applicant candidate tenant guardian "
     "beneficiary attorney", ""),
)
# (cue_alternation's look-ahead rejects most positions before the rows are tried one by one: alone they cost
# ~95 µs a prompt)
_WEAK_CUE = re.compile(r"(?i:\b" + cue_alternation(_WEAK_CUES) + r")[ \t]+")
_SAID_NAME = re.compile(rf"\b(?:said|says|shouted|yelled|whispered|cried)[ \t]+({_CAP})[ \t]+(?:to|at)\b")  # "said Maslin to"
# a word addressed after "you" and a comma, before the sentence ends ("I know it was you, Hardy.", "Thank you, Grace!")
_YOU_VOCATIVE = re.compile(rf"(?i:\byou),[ \t]+({_CAP})(?=[ \t]*[.!?]|[ \t]*$)", re.MULTILINE)
# the subject of a verb only people do: "Enrico shouted at Gary" (organisations say, explain and write)
_SPEAKING = re.compile(rf"(?<![\w'’\-])({_CAP}(?:[ \t]+{_CAP})?)[ \t]+(?:shouted|yelled|whispered|screamed|cried|sighed|"
                       r"smiled|laughed|giggled|noticed|thought|believed|felt|wondered|reali[sz]ed|recalled|"
                       r"remembered|insisted|admitted|nodded|shrugged|frowned|grinned|muttered)\b")
# ... and an English given name that is also a word before a verb only a person's subject takes, anywhere ("Grace
# needs your approval", "Faith asked for the volumes", "Rose phoned at 10"): a word the dictionary holds is
# a name where it does what people do (months are not: "May said" is left to the NER)
_GIVEN_WORD_ACTS = re.compile(rf"(?<![\w'’\-])({_CAP})[ \t]+(?:(?:has|had|just|also|already)[ \t]+)?"
                              r"(?:(said|says|asked|asks|told|tells|called|phoned|emailed|e-mailed|texted|agreed|agrees|"
                              r"explained|mentioned|suggested|wrote)|needs|needed|wants|wanted|rang|thinks|knows|visited|"
                              r"arrived|drove|joined|retired|resigned)\b")
# ... or "has" written "'s", before a participle that no possession takes ("Grant's approved your expense report")
_GIVEN_WORD_HAS = re.compile(rf"(?<![\w'’\-])({_CAP})['’]s[ \t]+(?:just[ \t]+|already[ \t]+)?(?:approved|signed|"
                             r"sent|called|asked|agreed|e-?mailed|left|gone|booked|confirmed)\b")
# (a surname of the lists that is a word, before the verbs of saying and asking only: "Price has called Colleen
# twice", "Wood said"; not "Bell rang", "Little knows")
_WEAK_NAME = re.compile(rf"{_CAP}(?:{NAME_GAP}(?:{UPPER}\.?{NAME_GAP})?(?:{_PARTICLE}{NAME_GAP})*{_CAP}){{0,2}}")
# "Danial, can I please speak to your boss?": a word addressed at the start of a line
_VOCATIVE = re.compile(rf"^[ \t\"“]*({_CAP}),[ \t]+(?:can|could|would|will|please|do|did|are|is|have|I|you|we|"
                       r"what|where|when|why|how)\b", re.MULTILINE)
# ... or opening a sentence inside a line ("That's Jerry and Anita. Sully, you owe Tanisha $20"), where an adverb
# stands as often ("Overall, you"): a given name of the lists or a word no dictionary holds
_SENTENCE_VOCATIVE = re.compile(rf"(?:(?<=[.!?][ \t])|(?<=[ \t][-–][ \t]))[\"“]?({_CAP}),[ \t]+(?:can|could|would|will|"
                                r"please|pls|do|did|are|is|have|I|you|we|what|where|when|why|how)\b")  # or after a dash
# ... or without the comma when it is an English given name before "I" or "you" ("Lily I love your videos",
# "Kay you were right"); never a verb that opens such a line ("Hope you are well", "Will you", "May I")
_BARE_VOCATIVE = re.compile(rf"^[ \t\"“]*({_CAP})[ \t]+(?:I|you|u|ur|your|you're|you’re|youre)\b", re.MULTILINE)
_NOT_BARE_VOCATIVE = frozenset("hope love will may miss wish trust bless thank pray can mark grant bill pat".split())
# A given name addressed: after a greeting or a thanks, or set off by a comma at a sentence's end ("Thanks for
# the follow, Kent!", "Hi Harry", "love you Miranda")
# (after a comma only before "!", "?", the line's end or a quote's: "in Paris, Jordan, Victoria" is a list of places;
# 'he told me "it's all team effort, Rosa"' addresses her)
_ADDRESSING = (
    ("", "hi hey hello hiya yo thanks morning evening", ""), ("", "thank", r"[ \t]+you"), ("", "thx ty", ""),
    ("", "love", r"[ \t]+you"),
    ("", "miss", r"[ \t]+you"), ("", "congrats congratulations", r"(?:[ \t]+to)?"),
    ("", "happy", r"[ \t]+(?:birthday|bday|b-day|new[ \t]+year)"), ("", "merry", r"[ \t]+christmas"), ("", "good", r"[ \t]+luck"),
    ("", "bye goodnight", ""), ("", "good", r"[ \t]+night"), ("", "welcome sorry dear go", ""),
)
_ADDRESSED = re.compile(r"(?i:\b" + cue_alternation(_ADDRESSING) + r"),?[ \t]+"
                        r"([A-Za-z][a-z'’\-]+|[A-Z]{2,})(?![\w'’\-])|"
                        r",[ \t]*([A-Z][a-z'’\-]+|[A-Z]{2,})(?=[ \t]*(?:[!?]|$|[.!?,]?[\"”]))|"
                        # (or before the full stop that ends a clause in lower case: "sorry about the ankle, Paddy.";
                        # a list's last item follows a capitalised one: "in Paris, Jordan.")
                        r"(?<=[a-z]),[ \t]*([A-Z][a-z'’\-]+)(?=\.(?:[ \t]+(?!\d)|$))", re.MULTILINE)


def _may_be_addressed(word: str) -> bool:
    """A capitalised word a sentence addresses that may be a name: no function word, sentence adverb ("Overall"),
    interjection, title or country."""
    return word.lower() not in NAME_STOPS and word.lower() not in NOT_VOCATIVE and not NEVER_A_NAME.match(word) \
        and word not in country_names()


def weak_cue_names(text: str, vocabulary: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """Capitalised words after a speech or naming verb or a salutation, a capitalised word addressed at a
    line start, and the subject of a verb only people do."""
    spans = []
    for m in _WEAK_CUE.finditer(text):
        n = _WEAK_NAME.match(text, m.end())
        # "said Essex Police would": an organisation or place word makes it no person
        if n and n.group(0).split()[0].lower() not in NAME_STOPS and not _acronym(n.group(0).split()[0]) \
                and not any(w[:1].isupper() and _NOT_A_NAME_WORD.match(w) for w in n.group(0).split()):
            spans.append((n.start(), n.end()))
    spans += [(m.start(1), m.end(1)) for m in _VOCATIVE.finditer(text)
              if m.group(1).lower() not in NOT_VOCATIVE and m.group(1).lower() not in NAME_STOPS]
    spans += [m.span(1) for m in _SENTENCE_VOCATIVE.finditer(text) if _may_be_addressed(m.group(1))
              and (m.group(1) in given_names() or not in_vocabulary(m.group(1), vocabulary))]
    spans += [(m.start(1), m.end(1)) for m in _BARE_VOCATIVE.finditer(text)
              if m.group(1).lower() not in _NOT_BARE_VOCATIVE and m.group(1) in given_names(ENGLISH_LOCALES)]
    spans += [(m.start(1), m.end(1)) for m in _SAID_NAME.finditer(text) if m.group(1).lower() not in NAME_STOPS]
    spans += [m.span(1) for m in _YOU_VOCATIVE.finditer(text)
              if _may_be_addressed(m.group(1)) and not _acronym(m.group(1))]
    names = given_names()
    english = given_names(ENGLISH_LOCALES)
    for m in _ADDRESSED.finditer(text):
        g = m.lastindex
        w = m.group(g)
        if g == 3 and (w in country_names() or w in place_names() or w.lower() in WEEKDAYS or w.lower() in MONTHS
                       or w.lower() in _SHORT_DATES or w not in english and in_vocabulary(w, vocabulary)):
            # ("speaks Polish, German.", "opens Friday, Jan. 24")
            continue
        # a greeting's name in any case ("hey tanner", "VLOGS ESTEE!"); in lower case an English given name only
        if w.lower() not in MONTHS and w.lower() not in STOP_WORDS and (
                w.capitalize() in english if w.islower() else w.capitalize() in names):
            spans.append((m.start(g), m.end(g)))
    # (a month's or a modal's name only before a verb of saying or asking, which neither takes: "Will said",
    # "April asked")
    acts = itertools.chain(_GIVEN_WORD_ACTS.finditer(text), _GIVEN_WORD_HAS.finditer(text))
    spans += [(m.start(1), m.end(1)) for m in acts for saying in [m.lastindex == 2]
              if (m.group(1) in english or saying and m.group(1) in surnames())
              and (m.group(1).lower() not in MONTHS and m.group(1).lower() not in STOP_WORDS or saying)
              and m.group(1) not in place_names() and not _NOT_A_NAME_WORD.match(m.group(1))  # "Street"
              and not _DETERMINER_BEFORE.search(text[max(0, m.start(1) - 12):m.start(1)].rstrip(" \t"))
              and not (saying and company_reporting(text, m.start(1), m.end(1)))]  # "Brokerage Nomura said"
    # (nor after an article or where a place stands: "the office in Geneva also said")
    for m in _SPEAKING.finditer(text):
        first = m.group(1).split()[0]
        if first.lower() in NAME_STOPS | NOT_VOCATIVE or first.lower() in STOP_WORDS or _acronym(first):
            continue
        # opening a sentence a dictionary word is as likely a common noun ("Critics believed", "Mother smiled")
        if _is_sentence_start(text, m.start(1)) and " " not in m.group(1).strip() \
                and in_vocabulary(first, vocabulary) and first not in given_names(ENGLISH_LOCALES):
            continue
        spans.append((m.start(1), m.end(1)))
    return spans


def title_names(text: str) -> list[tuple[int, int]]:
    """Names after a title ("Mrs. Meagan Wallace", "Dr. Berta Szöllössy")."""
    return [(m.start(1), m.end(1) - (2 if m.group(1)[-2:] in ("'s", "’s") else 0)) for m in _TITLE_NAME.finditer(text)
            if (m.group(1).split()[0].lower() not in NAME_STOPS or m.group(1).split()[0] in SHORT_SURNAMES  # "Rev. Oh"
                or m.group(1) in ("A", "I") and _LETTER_ENDS_NAME.match(text, m.end(1)))
            and not all(_is_office(w) for w in m.group(1).split())]  # "Lord Chancellor", "Lord Mayor"


# after "Mr A" or "Ms I" as judgments and reports name people by a letter: punctuation or a verb, not a noun the
# letter would be the article of
_LETTER_ENDS_NAME = re.compile(r"[ \t]*(?:[,.;:!?)\]'’]|\n|\Z)|[ \t]+(?:who|is|was|has|had|said|says|told|and|did|does|"
                               r"will|would|stated|gave|asked|replied)\b")


def cue_names(text: str) -> list[tuple[int, int]]:
    """Names after a naming cue, in any case ("my name is patricia desrosiers", "Dear Anna")."""
    spans = []
    for m in _NAME_CUE.finditer(text):
        words = list(re.finditer(r"[^\W\d_][\w'’\-]*\.?", text[m.end():m.end() + 60]))
        taken = []
        for w in words[:3]:
            gap = text[m.end() + taken[-1].end():m.end() + w.start()] if taken else ""
            if w.group(0).lower().rstrip(".") in NAME_STOPS or gap.strip(" \t") or not re.fullmatch(NAME_GAP, gap or " "):
                break  # a name stops at a function word, a line break, punctuation or a table's column gap
            taken.append(w)
        if taken:
            spans.append((m.end() + taken[0].start(), m.end() + taken[-1].end()))
    return spans


_INITIALLED = re.compile(rf"(?<![\w.])({_CAP}[ \t]+{UPPER}\.?[ \t]+{_CAP})(?![\w])")  # "Ravil G Yefimov"
_LINE_NAME = re.compile(rf"^[ \t>?*\-]*((?:{_CAP}|{UPPER}\.?)(?:[ \t]+(?:{_PARTICLE}[ \t]+)*(?:{_CAP}|{UPPER}\.?)){{1,3}})[ \t]*$",
                        re.MULTILINE)
# (a name alone on its line; the line under it opens with a contact detail, maybe after a label: "Tel: ")
_NAME_ALONE_LINE = re.compile(rf"[ \t>\-]*({_CAP})[ \t]*\Z")
_CONTACT_LABEL = re.compile(r"[ \t>]*(?:[A-Za-z.]{1,6}:?[ \t]*)?\Z")
# "Nicole: Remember me, Mary?": a speaker, then a line of speech (3+ words ending a sentence)
_SPEAKER = re.compile(rf"^[ \t>]*({_CAP}):[ \t]*[\"“]?[^\W\d][^\n]*?\s\S+\s[^\n]*[.!?\"”][ \t]*$", re.MULTILINE)
# ... or a chat's speaker, maybe two words after an emoji or a bullet, over any line of two words or more ("💬 Dee
# O'Connor: Tom got 2", "Kit: ok but more importantly the landlord's guy"): a name of the lists or no dictionary word
_CHAT_SPEAKER = re.compile(rf"^[ \t>]*(?:[^\w\s]{{1,3}}[ \t]*)?({_CAP}(?:[ \t]+{_CAP})?):[ \t]+\S+[ \t]+\S", re.MULTILINE)
_LIST = re.compile(rf"(?:{_CAP},[ \t]+){{1,}}{_CAP},?[ \t]+(?:and|or|&)[ \t]+{_CAP}")
# a list without "and", as team sheets and line-ups write it ("Kowalski , Brzeczek , Jaroszewicz ;"), a golf
# pairing or a seating plan with slashes or bars ("Ng / Okafor / Lindström", "Garza | Whitlock | Oduya"), an office
# pool's entries with their counts ("Abernathy x2, Mendoza, Ng")
_BARE_ITEM = rf"{_CAP}(?:[ \t]+{_CAP})?"
_BARE_LIST = re.compile(rf"(?<![\w'’\-/])(?:{_BARE_ITEM}(?:[ \t]+x\d)?(?:[ \t]*[,;|][ \t]*|[ \t]+/[ \t]+)){{2,}}{_BARE_ITEM}"
                        r"(?![\w'’\-/@])")  # (a slash between spaces: "Anna Lee/HOU/ECT@ECT" is a mail address)
# "Akram 45", "Mullally 4-78", a bowling analysis "Cork 25-3-82-1", a batting average "Burks .350", a basketball
# box score's shooting and points "Oakes 1-2 0-0 2"
_SCORE_ITEM = re.compile(rf"{WORD_START}({_CAP}(?:[ \t]+{_CAP})?)[ \t]+(?:(?:pen|og)[ \t]+)?(?:\d{{1,3}}(?:-\d{{1,3}}){{0,3}}|\.\d{{3}})"
                         r"(?:[ \t]+\d{1,3}-\d{1,3}){0,2}(?:[ \t]+\d{1,3}(?![\w-]))?"
                         r"(?:[ \t]*\*)?")  # (a penalty's or an own goal's mark before the minute: "Wise pen 90")
_AGED = re.compile(rf"(?<![\w'’\-,][ \t])(?<![\w'’\-])({_CAP}(?:[ \t]+{_CAP}){{0,2}}),[ \t]+\d{{1,2}},[ \t]+(?=[a-z])(?!(?:and|or|nor|then|etc)\b)")
# ... and after the person it says who ("the driver, Milo Hope, 41, had been", "his wife, Ada Lamb, 38,"),
# where the comma before the name keeps _AGED off (a list's items stand so too), whatever the words are
_ROLE_AGED = re.compile(rf"\b(?:driver|victim|suspect|man|woman|boy|girl|teenager|pensioner|teacher|officer|"
                        rf"nurse|doctor|mother|father|wife|husband|son|daughter|owner|passenger|pilot|worker|"
                        rf"resident|student|friend|neighbou?r|applicant|defendant|witness|patient|partner|"
                        rf"brother|sister|manager|director),[ \t]+({_CAP}(?:[ \t]+{_CAP}){{0,2}}),[ \t]+"
                        rf"\d{{1,3}},")
# ... and after who the text says the person is ("Police identified the man as Jorge Luis Moreira, 26, wanted for")
_AS_AGED = re.compile(rf"(?i:\b(?:as|named|identified))[ \t]+({_CAP}(?:[ \t]+{_CAP}){{0,3}}),[ \t]+\d{{1,2}},")
# a person whom a relative clause tells of: "Wood, who scored twice, said ..." (a team or a country takes
# "who" too in sports news: those are left by the lists of countries and places)
# (a question's "Snap, who is that lady?" is no such clause)
_WHO = re.compile(rf"(?<![\w'’\-])({_CAP}(?:[ \t]+{_CAP}){{0,2}}),[ \t]+who[ \t]+(?![^.!?\n]*\?)")
# A leaders' list: "7 - Shearer (Newcastle); 6 - Fowler (Liverpool), Yorke (Aston Villa)"
_LEADER_ITEM = re.compile(rf"{WORD_START}(?:\d{{1,3}}[ \t]+-[ \t]+)?({_CAP}(?:[ \t]+{_CAP})?)[ \t]*\([^)\n]{{2,30}}\)")
_LEADER_LIST = re.compile(rf"\d{{1,3}}[ \t]+-[ \t]+{_LEADER_ITEM.pattern}(?:[ \t]*[,;][ \t]*{_LEADER_ITEM.pattern})+")
# (a box score's list wraps after its comma: "Oakes 1-2 0-0 2,\nDumas 3-6 1-1 7")
_SCORE_LIST = re.compile(rf"{_SCORE_ITEM.pattern}(?:[ \t]*[,;][ \t]*\n?[ \t]*{_SCORE_ITEM.pattern})+")
_RESULT = re.compile(rf"{WORD_START}({_CAP}(?:[ \t]+{_CAP})?)(?:[ \t]+\([^)\n]{{2,30}}\))?[ \t]+(?:beat|beats|defeated|def\.|edged|"
                     rf"downed|ousted|overcame|outlasted|thrashed|upset)[ \t]+({_CAP}(?:[ \t]+{_CAP})?)"
                     r"(?=(?:[ \t]+\([^)\n]{2,30}\))?[ \t]+\d{1,2}-\d{1,2}|[ \t]+\([^)\n]{2,30}\)[ \t]*$)", re.MULTILINE)
# (or a line that ends on the loser's bracket: a sumo day's bouts, "Konishimaru (yokozuna) beat Takatoriyama (komusubi)")
_SETS = re.compile(r"(?:[ \t]+\([^)\n]{2,30}\))?[ \t]+[0-7]-[0-7](?:[ \t]*\(\d{1,2}(?:-\d{1,2})?\))?[ \t,]+[0-7]-[0-7]")
# "Park and Mann", and as chat and a ward's log write it, "Bob n Renee", "Kasia + Florin"; "Carter or Price"
# (alternatives are as often things:
# "MCat or Meow", so with "or" only a word of the name lists)
_PAIR = re.compile(rf"(?<![\w'’\-])({_CAP})[ \t]+(?:and|&|n|['’]n['’]?|\+)[ \t]+({_CAP})(?![\w'’\-])")
_OR_PAIR = re.compile(rf"(?<![\w'’\-])({_CAP})[ \t]+or[ \t]+({_CAP})(?![\w'’\-])")
_LOWER_PAIR = re.compile(r"(?<![\w'’\-])([a-z][a-z'’\-]+)[ \t]+(?:and|&)[ \t]+([a-z][a-z'’\-]+)(?![\w'’\-])")
_ROMAN = re.compile(r"[IVXLC]+")  # a stage, a grade, a chapter: "stage II, Duoderm applied"
# a doubles pair, each maybe with the country in brackets ("Woodbridge (Australia) / Drew Cash (Australia) beat"; a
# slash between spaces or after a bracket: "Anna Lee/HOU/ECT" is a mail address)
_SLASH_PAIR = re.compile(rf"(?<![\w'’\-/])(?!(?i:{GREETINGS})[ \t])({_CAP}(?:[ \t]+{_CAP})?)"  # ("Hi Linda / Mercy,")
                         rf"(?:[ \t]+\([^)\n]{{2,30}}\)[ \t]*|[ \t]+)/[ \t]+"
                         rf"({_CAP}(?:[ \t]+{_CAP})?)(?=[ \t]+\([^)\n]{{2,30}}\)|[ \t]*[,;\n)]|[ \t]+[-–][ \t]|[ \t]+(?:beat|def\.|lost|won)\b)")
# ... or in brackets, each maybe with initials, as a racecard gives a winner's jockey and trainer ("(E. LACROIX / D.
# HILL)")
_BRACKET_SLASH = re.compile(rf"\((?:{UPPER}\.[ \t]?){{0,3}}({_CAP}(?:[ \t]+{_CAP})?)[ \t]*/[ \t]*"
                            rf"(?:{UPPER}\.[ \t]?){{0,3}}({_CAP}(?:[ \t]+{_CAP})?)\)")
# a shift's handover, who gave it and who took it ("(Okafor -> Stone)", "days: Priya → Hale")
_ARROW_PAIR = re.compile(rf"(?<![\w'’\-])({_CAP}(?:[ \t]+{_CAP})?)[ \t]*(?:->|→|=>)[ \t]*({_CAP}(?:[ \t]+{_CAP})?)"
                         r"(?=[ \t]*(?:[)\],;\n]|$))", re.M)
# two people in brackets, as slides and minutes credit them ("(Okafor, Cash)")
_BRACKET_PAIR = re.compile(rf"\(({_CAP}(?:[ \t]+{_CAP})?),[ \t]+({_CAP}(?:[ \t]+{_CAP})?)\)")
# a line-up's substitute, in brackets with the minute after the player he replaced ("Tiemens (Rose 78)")
_SUBSTITUTE = re.compile(rf"(?<![\w'’\-])({_CAP}(?:[ \t]+{_CAP})?)[ \t]*\([ \t]*((?=[^\W\d_]{{2}}){_CAP}(?:[ \t]+{_CAP})?)[ \t]+"
                         r"\d{1,3}(?:\+\d)?['’]?[ \t]*\)")
# a table's cell "Last, First" ("| Stone, Maeve |")
_CELL_LAST_FIRST = re.compile(rf"(?<=\|)[ \t]*(?:(?:Mr|Mrs|Ms|Miss|Mx|Dr)\.?[ \t]+)?({_CAP}),[ \t]+({_CAP}(?:[ \t]+{_CAP})?)"
                              r"(?:[ \t]*\(\d{1,3}\))?[ \t]*(?=\|)")  # (with a title and an age: "| Miss WILL, Amelia (23) |")
# a register's or a table's "SURNAME, Given names" ("DZHABRAILOVA, Kheda", "YUSUPOV, Islam Ruslanovich")
_SURNAME_COMMA = re.compile(rf"(?<![\w'’\-])({UPPER}{{2,}}(?:-{UPPER}{{2,}})?),[ \t]+({_CAP}(?:[ \t]+{_CAP}){{0,2}})(?![\w'’\-])")
# What a sentence says a person is: "Scott is a very sympathetic person", "Ana was my best friend"
_PERSON_PREDICATE = re.compile(
    rf"(?<![\w'’\-])({_CAP}(?:[ \t]+{_CAP}){{0,2}})[ \t]+(?:is|was|seems|became|has[ \t]+been)[ \t]+"
    r"(?:a|an|such[ \t]+a|my|our|your|his|her|their)[ \t]+(?:[a-z\-]+[ \t]+){0,3}"
    r"(?:person|man|woman|boy|girl|guy|lady|gentleman|kid|child|friend|colleague|co-?worker|neighbou?r|"
    r"listener|classmate|roommate|flatmate|mother|father|sister|brother|wife|husband|son|daughter|cousin|"
    r"uncle|aunt|boss|employee)\b")
_PREDICATE_VERB = re.compile(r"\b(?:is|was|seems|became|been)[ \t]")  # a cheap test before _PERSON_PREDICATE
# Whose relative: "I'm Daniel's daughter", "Mette's husband"
_KIN_POSSESSOR = re.compile(
    rf"(?<![\w'’\-])({_CAP}(?:[ \t]+{_CAP})?)['’]s[ \t]+(?:(?:late|new|former|ex-?|older|younger|eldest|"
    r"youngest|twin|step-?)[ \t]*)?(?:daughter|son|wife|husband|mother|father|mom|mum|dad|sister|brother|"
    r"child|children|kids?|parents?|grand(?:mother|father|son|daughter|ma|pa)|cousin|uncle|aunt|niece|nephew|"
    r"fianc[ée]e?|girlfriend|boyfriend|partner|widow|widower)\b"
    # not a compound noun ("Earth's sister planet", "Apple's parent company"): the sentence goes on
    r"(?=[ \t]*(?:[^\w \t]|$)|[ \t]+(?:[A-Z]|(?:is|was|has|had|and|or|who|whom|whose|said|says|told|called|"
    r"named|lives|lived|works|worked)\b))")

# ... or whose home it is ("At Vane's villa I met", "police searched Dorn's flat"): where a private person lives
_HOME_POSSESSOR = re.compile(
    rf"(?<![\w'’\-])({_CAP}(?:[ \t]+{_CAP})?)['’]s[ \t]+(?:house|home|flat|apartment|villa|cottage|bungalow|"
    r"farmhouse|bedroom|funeral|wedding|grave)\b(?![ \t]+(?:page|screen|button|team|office|secretary|"
    r"minister|affairs|improvement|loan|market|run)\b)")


_GIVEN_IN_BRACKETS_AFTER = re.compile(r"[ \t]*\([ \t]*([^\W\d_][\w'’\-]+)[ \t]*\)")
_SURNAME_AFTER_NICKNAME = re.compile(r"[^\W\d_][\w'’\-]+(?![\w'’\-])")
# (group 1: a bracket opening; 2: the nickname in quotes; 3: in the bracket, the words after it; 4: without a
# bracket, the end of a line or a list's cell after it; else the spaces before the next word)
_QUOTED_NICKNAME_AFTER = re.compile(r"[ \t]+(\([ \t]*)?[\"“]([^\W\d_][\w'’.\-]*(?:[ \t]+[^\W\d_][\w'’.\-]*)?)[\"”]"
                                    r"(?(1)(?:[ \t]*[),;]|([ \t]+[^()\n]{1,40}\)))"
                                    r"|(?:([ \t]*(?:\n|\Z|\t|[ ]{2,}))|[ \t]+))")
_OWN_SCRIPT_AFTER = re.compile(r"[ \t]*[(（][ \t]*([\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af]"
                               r"(?:[\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af・· ]{0,10}"
                               r"[\u3400-\u4dbf\u4e00-\u9fff\u3040-\u30ff\uac00-\ud7af])?)[ \t]*[)）]")


def _no_place_or_acronym(words: str) -> bool:
    """A pair's other half may be a person: it opens with no function word, and no word of it is a place, a
    country or an acronym ("Houston / Dallas", "ICU -> Floor")."""
    return words.split()[0].lower() not in NAME_STOPS and not any(
        w in country_names() or w in place_names() or _acronym(w) for w in words.split())


def structural_names(text: str, contact_details: list[tuple[int, int]], found: list[tuple[int, int]],
                     vocabulary: frozenset[str] = frozenset(),
                     sure: list[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Names found by where they stand, not by the NER: first name, initial and surname; the name line of a
    contact block (a line of 2-4 capitalised words in a text with contact details) and of a contact list
    (`contact_details`: where a recognizer found a phone, an e-mail or an address); speakers of a dialogue
    (two or more different 'Name:' line starts that are not ordinary labels); who a sentence says is a person
    ("Scott is a very sympathetic person") or a relative of ("Daniel's daughter"); the other members of a list
    or a pair ("Park and Mann") of names one of which is known; and every other occurrence of a found name or
    of its words."""
    spans = [(m.start(1), m.end(1)) for m in _INITIALLED.finditer(text)
             if m.group(1).split()[0].lower() not in NAME_STOPS and not _common_words(m.group(1), vocabulary)
             and m.group(1).split()[-1].lower() not in STOP_WORDS]  # "World War I. The book": a sentence's start
    if contact_details:
        spans += [(m.start(1), m.end(1)) for m in _LINE_NAME.finditer(text)
                  if not any(w.lower() in LINE_LABELS for w in m.group(1).split())]
        # ... and a given name alone on the line right above a phone number, as a short signature gives it
        # ("Stay dry.\n\nHoward\n(281) 555-0134 home")
        spans += [span for a, _ in contact_details for span in [_name_above(text, a)]
                  if span and text[span[0]:span[1]] in given_names(ENGLISH_LOCALES)
                  and text[span[0]:span[1]].lower() not in STOP_WORDS]
        spans += _contact_line_names(text, contact_details, vocabulary)
    speakers = [m for m in _SPEAKER.finditer(text) if m.group(1).lower() not in LINE_LABELS
                and m.group(1).lower() not in NOTE_LABELS] if ":" in text else []  # a note's "Resp:", "GU:"
    if len({m.group(1) for m in speakers}) >= 2:
        spans += [(m.start(1), m.end(1)) for m in speakers]
    chatting = [m for m in _CHAT_SPEAKER.finditer(text) if m.group(1).lower() not in LINE_LABELS
                and m.group(1).lower() not in NOTE_LABELS and all(w.lower() not in NAME_STOPS for w in m.group(1).split())
                and any(in_name_lists(w) or not in_vocabulary(w, vocabulary) for w in m.group(1).split())
                and not any(w in place_names() or w in country_names() for w in m.group(1).split())] \
        if text.count(":") >= 3 else []
    if len({m.group(1) for m in chatting}) >= 2 and len(chatting) >= 3:
        spans += [(m.start(1), m.end(1)) for m in chatting]
    said = []  # what a sentence says of somebody, each pattern run only where its cheap test holds
    if _PREDICATE_VERB.search(text):
        said += _PERSON_PREDICATE.finditer(text)
    if "'s " in text or "’s " in text:
        said += _KIN_POSSESSOR.finditer(text)
        said += [m for m in _HOME_POSSESSOR.finditer(text) if not any(
            w in country_names() or w in place_names() or w.lower() in KNOWN_PRODUCTS or w.lower() in OFFICE_WORDS
            for w in m.group(1).split())]
    for m in said:
        s, words = m.start(1), m.group(1).split()
        if len(words) == 2 and words[0].lower() in NAME_STOPS:  # "At Vane's villa": the sentence's first word
            s, words = m.end(1) - len(words[1]), words[1:]
        if words[0].lower() not in NAME_STOPS and not _acronym(words[0]):
            spans.append((s, m.end(1)))
    known = found + spans
    # the partner of a known name in "X and Y" (with "or" a word of the name lists); in lower case only a
    # given name ("mark and louise")
    english = given_names(ENGLISH_LOCALES)
    is_known = _containment(known)
    for pair, may_be_name in ((_PAIR, lambda w: w.lower() not in NAME_STOPS and not _acronym(w) and w not in country_names()),
                              (_OR_PAIR, lambda w: (in_name_lists(w) or not in_vocabulary(w, vocabulary)
                                                    and w not in place_names() and w not in country_names())
                                                   and not _place_not_name(w) and not _acronym(w)),
                              (_LOWER_PAIR, lambda w: w.capitalize() in english and w not in STOP_WORDS),
                              (_SLASH_PAIR, _no_place_or_acronym), (_ARROW_PAIR, _no_place_or_acronym),
                              (_BRACKET_PAIR, _no_place_or_acronym),
                              (_BRACKET_SLASH, lambda w: w.split()[0].lower() not in NAME_STOPS and not any(
                                  x.capitalize() in country_names() or x.capitalize() in place_names()
                                  for x in w.split())),
                              (_SUBSTITUTE, lambda w: _no_place_or_acronym(w) or all(
                                  in_name_lists(x) and x not in country_names() for x in w.split())),
                              (_CELL_LAST_FIRST, lambda w: w.split()[0].lower() not in NAME_STOPS and not any(
                                  x in country_names() or x in place_names() and x not in given_names()
                                  for x in w.split())),
                              (_SURNAME_COMMA, lambda w: w.split()[0].lower() not in NAME_STOPS and not any(
                                  x.capitalize() in country_names() or x.capitalize() in place_names()
                                  for x in w.split()) and not (w.isupper() and (
                                      _ROMAN.fullmatch(w) or w.lower() in NOT_INITIALS
                                      or in_vocabulary(w, vocabulary) and w.capitalize() not in surnames())))):
        for m in pair.finditer(text):
            for mine, other in ((1, 2), (2, 1)):
                if is_known(m.start(other), m.end(other)) and may_be_name(m.group(mine)):
                    spans.append((m.start(mine), m.end(mine)))
    for m in _LIST.finditer(text):
        items = list(re.finditer(_CAP, m.group(0)))
        # ... unless a member is a place that is nobody's name: a list of places with one misread
        # ("spreads for Chicago, Socal and Permian")
        # ... or a list of words that are mostly no names ("tones include Formal, Assertive, ..., and Sad")
        common = sum(in_vocabulary(w.group(0), vocabulary) and not in_name_lists(w.group(0)) for w in items)
        if any(any(s <= m.start() + w.start() < e for s, e in known) for w in items) and not any(
                _place_not_name(w.group(0)) for w in items) and 2 * common < len(items):
            spans += [(m.start() + w.start(), m.start() + w.end()) for w in items if w.group(0).lower() not in NAME_STOPS]
    # a list without "and": its members no dictionary holds go when two of them are known names and none is
    # a country (a list of places with one misread, "Bhutan, India, Maldives", must not spread)
    for m in _BARE_LIST.finditer(text) if sum(map(text.count, ",;/|")) >= 2 else ():
        items = [(m.start() + i.start(), m.start() + i.end()) for i in re.finditer(_BARE_ITEM, m.group(0))]
        named = sum(any(s < b and a < e for s, e in known) for a, b in items)
        if named >= 2 and not any(text[a:b] in country_names() for a, b in items):
            # "Date, Open, High" are no names; a dictionary word is, in a list of three or more names that are at
            # least half of it, or when it is a surname ("St Helens: Prescott; Arnold, Haigh, Martyn")
            # (a pairing's or a seating plan's slashes and bars hold people or nothing: there two will do)
            line_up = (named >= 3 or named >= 2 and ("/" in m.group(0) or "|" in m.group(0))) and 2 * named >= len(items)
            spans += [(a, b) for a, b in items if text[a:b].split()[0].lower() not in NAME_STOPS
                      and (line_up or not any(in_vocabulary(w, vocabulary) and w not in surnames()
                                              and w not in SHORT_SURNAMES and w not in given_names()
                                              for w in text[a:b].split()))]  # "X, Raj, Y:": a given name
    # a score list ("Inzamam 148, Akram 45; Mullally 4-78"): its names go with any one of them known, or
    # when none is a dictionary word, a country or a known product
    for m in _SCORE_LIST.finditer(text):
        items = [(i.start(1) + m.start(), i.end(1) + m.start()) for i in _SCORE_ITEM.finditer(m.group(0))]
        words = [w for a, b in items for w in text[a:b].split()]
        if any(any(s < b and a < e for s, e in known) for a, b in items) or all(
                not in_vocabulary(w, vocabulary) and w.lower() not in KNOWN_PRODUCTS and w not in country_names()
                and not _acronym(w) for w in words):
            spans += items
    # a name and an age set off by commas, as news gives a person ("Wood, 28, joined the club")
    spans += [(m.start(1), m.end(1)) for m in _AGED.finditer(text) if m.group(1) not in country_names()
              and m.group(1).split()[0].lower() not in NAME_STOPS and m.group(1).lower() not in MONTHS
              and not all(in_vocabulary(w, vocabulary) and not in_name_lists(w) for w in m.group(1).split())]  # "Girl, 15, killed", "Man, 59, held"
    spans += [(m.start(1), m.end(1)) for m in _ROLE_AGED.finditer(text) if m.group(1) not in country_names()]
    spans += [m.span(1) for m in _AS_AGED.finditer(text) if m.group(1) not in country_names()
              and m.group(1).split()[0].lower() not in NAME_STOPS]
    spans += [(m.start(1), m.end(1)) for m in (_WHO.finditer(text) if "who" in text else ())
              if m.group(1) not in country_names() and not any(
                  w.lower() in NAME_STOPS or w.lower() in MONTHS or w in country_names() or w in place_names()
                  or _acronym(w) for w in m.group(1).split())]
    # a leaders' list ("7 - Shearer (Newcastle); 6 - Fowler (Liverpool)"): its names go with any one of them known
    for m in _LEADER_LIST.finditer(text):
        items = [(i.start(1) + m.start(), i.end(1) + m.start()) for i in _LEADER_ITEM.finditer(m.group(0))]
        if any(any(s < b and a < e for s, e in known) for a, b in items):
            spans += items
    # a match result ("Halvorsen beat Kowalski 6-4 3-6"): both players, unless a side is a country or a
    # dictionary word (a team: "Germany beat France 2-1")
    for m in _RESULT.finditer(text):
        # sets ("6-1 6-4"): a player's match, whatever the words (teams score once: "Germany beat France 2-1")
        sets = _SETS.match(text, m.end())
        for g in (1, 2):
            side = m.group(g)
            if side not in country_names() and (sets or not any(in_vocabulary(w, vocabulary) and not in_name_lists(w)
                                                    for w in side.split())):  # "beat Black"
                spans.append((m.start(g), m.end(g)))
    # a name written again in its own script in brackets after it, as Hong Kong and Taiwan judgments and
    # Chinese, Japanese and Korean sources give a party ("Lam Ka-fai (林家輝)", "Kim Min-jun (김민준)")
    if "(" in text or "（" in text:
        spans += [m.span(1) for s, e in known + spans for m in [_OWN_SCRIPT_AFTER.match(text, e)] if m]
        # ... and a given name of the lists in brackets right after a found name, in any case: the name the person
        # goes by ("Dr. Ilse Brandt (mark) aware" writes who paged whom, "Tom Obi (Sully)   +2.10"); not a role, a
        # weekday or a month ("(Chair)", "(Monday)")
        spans += [m.span(1) for s, e in known + spans for m in [_GIVEN_IN_BRACKETS_AFTER.match(text, e)]
                  if m and (m.group(1).capitalize() in given_names(ENGLISH_LOCALES) or m.group(1) in given_names())
                  and m.group(1).lower() not in STOP_WORDS and m.group(1).lower() not in MONTHS
                  and m.group(1).lower() not in WEEKDAYS and m.group(1).lower() not in NOT_VOCATIVE]
        # (the person's initials there: beam_jobs.pii_repeats.aliases_of, once the names are chosen)
        # ... and a capitalised word no dictionary holds there: the surname an initial or a title stood for ("Dr.
        # V. (Vukovic) notified"); not a place or a country ("Ana Ruiz (Tuscaloosa)")
        spans += [m.span(1) for s, e in known + spans for m in [_GIVEN_IN_BRACKETS_AFTER.match(text, e)]
                  if m and re.fullmatch(r"[A-Z][a-z'’\-]+", m.group(1)) and not in_vocabulary(m.group(1), vocabulary)
                  and m.group(1) not in place_names() and m.group(1) not in country_names()
                  and m.group(1).lower() not in MONTHS and m.group(1).lower() not in WEEKDAYS]
        # ... in capitals too, as a note's header gives the surname ("MR. VENKATARAMAN (RAJAGOPAL)"), and after a whole
        # found name a surname of the lists, a dictionary word though it be: a maiden or a former name ("Rivka
        # Feldman (Gold)")
        spans += [m.span(1) for s, e in known + spans for m in [_GIVEN_IN_BRACKETS_AFTER.match(text, e)]
                  if m and (re.fullmatch(r"[A-Z][A-Z'’\-]{2,}", m.group(1)) and not in_vocabulary(m.group(1), vocabulary)
                            and m.group(1).lower() not in NOT_INITIALS and len(m.group(1)) >= 5
                            or re.fullmatch(r"[A-Z][a-z'’\-]+", m.group(1)) and m.group(1) in surnames()
                            and len(text[s:e].split()) >= 2 and text[s:e].split()[-1][:1].isupper())
                  and m.group(1).capitalize() not in place_names() and m.group(1).capitalize() not in country_names()
                  and m.group(1).lower() not in MONTHS and m.group(1).lower() not in WEEKDAYS]
    # a nickname in quotes right after a found name: before a found surname or one of the lists or no dictionary
    # word, whatever its words ('darnell "D-Money" pritchett'), opening a bracket ('Teddy Runningwater ("Hoops" to
    # most of you)'), or ending a list's cell or a line ('Ron Bartell "Bart"   3-4410')
    if '"' in text or "“" in text:
        found_at = SpanIndex(known + spans)
        for s, e in known + spans:
            m = _QUOTED_NICKNAME_AFTER.match(text, e)
            nick = m.group(2) if m else ""
            # (a bracket that holds the nickname alone holds a name or no dictionary word: 'Rusu ("Applicant")' is a
            # defined term)
            if not m or nick.split()[0].lower() in STOP_WORDS:
                continue
            surname = None if m.group(1) or m.group(4) is not None else _SURNAME_AFTER_NICKNAME.match(text, m.end())
            if m.group(3) or m.group(1) and (nick in given_names()
                                             or not all(in_vocabulary(w, vocabulary) for w in nick.split())):
                spans.append(m.span(2))
            elif found_at.overlaps(m.end(), m.end() + 1) or m.group(4) is not None and nick[:1].isupper() \
                    and " " not in nick:
                spans.append(m.span(2))
            elif surname and surname.group(0).lower() not in STOP_WORDS and (
                    surname.group(0).capitalize() in surnames() or not in_vocabulary(surname.group(0), vocabulary)):
                spans += [m.span(2), surname.span()]  # ('terrell "T-Bone" whitaker': the surname the model missed)
    rows = _rows_of_people(text, known + spans, vocabulary)
    spans += rows
    known += rows
    # a found name's words repeat as the name: "Edi Živković's Tales" ... "early Živković" (without the
    # possessive); a dictionary word only from a sure name (the model's PERSON of two or more words, a titled
    # or cued one: "Gordon Brown ... Brown said"), since one misread span ("The Tower") must not spread, and
    # never a country ("Sanaa, Yemen" read as a name spread over a whole article)
    words, sure_words, initials = set(), set(), set()
    sure_index = SpanIndex(sure)
    # (the initials of the part the model called a person too, where a candidate grew beyond it: "Priya Venkataraman
    # Client's QS ... (PV)")
    initials |= {mark for s, e in sure for mark in [initials_of(text[s:e])] if mark}
    # (and the finds of the rules after `known`, a list's partners, a name with an age: "Comfort Adebayo-Ilori, 71,"
    # ... "Mama Comfort"; not a word in capitals alone, as a list of formats gives them: "DVD, Blu-ray, D-VHS and
    # HD DVD", nor their initials)
    in_known = set(known)
    later = [(s, e) for s, e in spans if (s, e) not in in_known]
    for k, (s, e) in enumerate(known + later):
        late = k >= len(known)
        sure_name = _given_and_listed_surname(text[s:e]) or _given_and_unknown_word(text[s:e], vocabulary) \
            or _listed_beside_unknown_words(text[s:e], vocabulary)
        if not late and (sure_name or sure_index.overlaps(s, e)) and (mark := initials_of(text[s:e])):
            initials.add(mark)
        for m in _SPREADING_WORD.finditer(text[s:e]):
            if late and not any(c.islower() for c in m.group(0)):
                continue
            # a word is sure where the name it stands in is, not where the span grew beyond it: "Lemony Snicket"
            # grown over "... of Unfortunate Events" must not spread "Unfortunate" through the text
            from_sure = sure_name or sure_index.overlaps(s + m.start(), s + m.end())
            w = re.sub(r"['’]s\Z", "", m.group(0))
            if re.fullmatch(_GLUED_PARTICLE, w):  # "al-Zarqawi" repeats as "Zarqawi" too
                w = re.split(r"[-'’]", w, maxsplit=1)[1]
            if w[0].isupper() and w.lower() not in NAME_STOPS and not NEVER_A_NAME.match(w) \
                    and (from_sure and w not in country_names() or not in_vocabulary(w, vocabulary)
                         or w in SHORT_SURNAMES):
                words.add(w)
                if from_sure and (not w.isupper() or len(text[s:e].split()) >= 2):
                    sure_words.add(w.capitalize() if w.isupper() else w)  # a whole name in capitals, not "ESSEX v"
    # ... and of a "Last, First" name found as its two words ("OPENED BY: ROSS, ALISTAIR" ... "07:32  AR  called")
    ordered = sorted(known)
    for (s1, e1), (s2, e2) in zip(ordered, ordered[1:]):
        if _COMMA_GAP.fullmatch(text, e1, s2) and (sure_index.overlaps(s1, e2) or _surname_and_given(
                text[s1:e1], text[s2:e2], vocabulary)) and (mark := initials_of(text[s1:e2])):
            initials.add(mark)
    # a given name found in lower case that no dictionary holds repeats as written ("mum (akiko)" ... "with akiko"),
    # and any name found in lower case that no dictionary holds repeats capitalised ("good luck ashok" ... "Ashok is")
    found_lower = {w for s, e in known for w in [text[s:e]] if w.islower() and _LOWER_NAME.fullmatch(w) and len(w) >= 3
                   and w not in STOP_WORDS and not in_vocabulary(w, vocabulary)}
    words |= {w for w in found_lower if w.capitalize() in given_names()} | {w.capitalize() for w in found_lower}
    # a name no dictionary holds repeats in lower case too ("Kay" ... "kay will call")
    words |= {w.lower() for w in words if len(w) >= 3 and w.lower() not in STOP_WORDS and not in_vocabulary(w, vocabulary)}
    # ... and in capitals, as headlines and note headers write it ("STRIKER OKONJO SIGNS" over "Chidi Okonjo"), and
    # a name found in capitals as prose writes it ("DANIEL MARK YOUNG" ... "Young was sentenced")
    words |= {w.upper() for w in words if len(w) >= 3 and w[:1].isupper() and w.lower() not in STOP_WORDS}
    # (of a sure name only: "TILBURG" misread in a headline stays there)
    words |= {w for w in sure_words if w.lower() not in STOP_WORDS and w not in country_names()}
    # ... and a family by its name, as a possessive writes it ("the Orlovs' flat"; not "the Xs": "the Houthis")
    words |= {w + "s" for w in sure_words if len(w) >= 3 and not w.endswith("s")
              and (w + "s'" in text or w + "s’" in text)}
    words |= {text[s:e] for s, e in known if " " in text[s:e].strip()}  # a whole found name repeats as it is
    # ... and a sure given name's short form, its first three or four letters, as friends and colleagues speak
    # ("Kevin Olsen" ... "Kev said", "Alexander" ... "Alex agreed"): one of the English short forms or given names
    # ("San" of a place misread as a name, "Santa Cruz", is none); never a month's or a weekday's ("Dec", "Sat") or
    # a function word
    shorts = {w[:k] for w in sure_words if w.isalpha() and w[:1].isupper() and not w.isupper() and len(w) >= 5
              and w in given_names() for k in (3, 4) if k <= len(w) - 2}
    words |= {short for short in shorts
              if short.lower() not in NAME_STOPS and short.lower() not in STOP_WORDS and short.lower() not in MONTHS
              and short.lower() not in _SHORT_DATES and short.lower() not in NOT_INITIALS
              and (short in ENGLISH_NICKNAMES or short in english)}
    # ... and so do its initials, as minutes and notes write the person ("Nadia Rahman" ... "ACTION: NR to confirm"):
    # a sure name's, so only the acronyms of NOT_INITIALS are refused, not the wider list pii_repeats.may_be_initials
    # refuses for every chosen name (its function words, shifts, care roles, shorthand: "IS", "SO", "AS", "GP", "TB"
    # are a sure name's initials often enough; that list here made 32 of 3,420 blind texts leak more, 24 of them
    # leaking nothing before)
    words |= {m for m in initials if m.lower() not in NOT_INITIALS}
    # a sure name written in lower case, a dictionary word, repeats where a note says what its person does ("paged
    # dr hunter" ... "hunter aware"): elsewhere the word is the word ("bp rose", not "dr rose")
    lower_sure = {w for s, e in known if sure_index.overlaps(s, e) for w in text[s:e].split()
                  if w.islower() and w.isalpha() and len(w) >= 3 and w not in STOP_WORDS and w not in MODALS}
    spans += [(s, e) for s, e in _occurrences(text, lower_sure) if PERSON_DOES_AFTER.match(text, e)]
    # ... and any found name's word in lower case as a signature after a dash, alone on its line ("From: Shiv Raman"
    # ... "-shiv"): there a dictionary word is the writer's name too
    if "\n-" in text or "\n~" in text or text.startswith(("-", "~")) or " -" in text or " ~" in text:
        # (a found name's words in lower case too: "-rick\nrick castellano")
        # (and a found name's initials in lower case: "From: Thuy Vo" ... "-tv")
        names = {w.lower() for w in words if w[:1].isupper()} | {
            w for s, e in known + later if text[s:e].islower() for w in text[s:e].split() if len(w) >= 3} | {
            m.lower() for m in initials if m.lower() not in STOP_WORDS}  # (an acronym's letters too: "-tv" is Thuy)
        spans += [m.span(1) for m in _LOWER_DASH_SIGNATURE.finditer(text) if m.group(1) in names]
        # ... and a sure given name's short form of any kind (`shorts`, above) signing after a dash, a dictionary word
        # though it be ("From: Desmond Achterberg" ... "- Des")
        spans += [m.span(1) for m in _CAPITAL_DASH_SIGNATURE.finditer(text) if m.group(1) in shorts
                  and m.group(1).lower() not in STOP_WORDS and m.group(1).lower() not in _SHORT_DATES]
    return spans + _occurrences(text, words)


_LOWER_NAME = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?")  # "akiko", "jo-ann"
# the short forms of months and weekdays, which a given name's first letters may spell ("Dec" of "Declan", "Sat")
_SHORT_DATES = frozenset("jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thur thurs fri sat "
                         "sun".split())
# (alone on its line, or after the last sentence of its line: "you're buying.  -maya")
_LOWER_DASH_SIGNATURE = re.compile(r"(?m)(?:^|(?<=[.!?)])[ \t]+)[ \t]*[-–~]{1,2}[ \t]*([a-z][a-z'’\-]+)[ \t]*$")
_CAPITAL_DASH_SIGNATURE = re.compile(r"(?m)(?:^|(?<=[.!?)])[ \t]+)[ \t]*[-–~]{1,2}[ \t]*([A-Z][a-z]{2,3})[ \t]*$")


# A contact list's line: a role, a spaced dash or a colon, and who to reach right before the number ("confirms - PATTY
# O'HARE 918 555 0122", "credit - d. wojcik (918) 555-0130")
_CONTACT_LINE = re.compile(r"(?:\A|\n)[ \t>*•\-]*[A-Za-z][A-Za-z /&]{0,30}?(?:[ \t]+[-–][ \t]+|[ \t]*:[ \t]*)"
                           r"((?:[A-Za-z][\w.'’\-]*[ \t]+){0,2}[A-Za-z][\w'’\-]*)[ \t,:]*\Z")


def _name_above(text: str, a: int) -> tuple[int, int] | None:
    """The capitalised word alone on the line above the one where a contact detail starts at `a` (only a label
    before it on its line), or None."""
    line_start = text.rfind("\n", 0, a) + 1
    if line_start == 0 or not _CONTACT_LABEL.match(text, line_start, a):
        return None
    above = text.rfind("\n", 0, line_start - 1) + 1
    m = _NAME_ALONE_LINE.search(text, above, line_start - 1)
    return m.span(1) if m and m.start() == above else None


def _contact_line_names(text: str, contact_details: list[tuple[int, int]],
                        vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """Who a contact list's line names before a number (_CONTACT_LINE): words not all in the dictionary
    ("their gas control" stays), no label ("Phone", "Fax")."""
    out = []
    for a, _ in contact_details:
        line_start = text.rfind("\n", 0, a) + 1
        m = _CONTACT_LINE.search(text, max(0, line_start - 1), a)
        if not m:
            continue
        words = [w for w in m.group(1).split() if not re.fullmatch(r"[A-Za-z]\.?", w)]
        if words and not all(in_vocabulary(w, vocabulary) for w in words) and not any(
                w.lower() in LINE_LABELS or w.lower() in NAME_STOPS or w.isupper() and len(w) <= 3 for w in words):
            out.append(m.span(1))
    return out


# A list's item mark ("- ", "3. ", "(b) ", " 10  Declan Moss" as a team sheet numbers players) and a table's column gap
_ROW_MARK = re.compile(r"[ \t]*(?:[-*•–]|\d{1,3}[.)]|\(?[a-z]\)|\d{1,3}(?=[ \t]+[^\W\d_]))[ \t]+")
# (or a spaced dash, as a list gives each person's role: "Ji-hoon Park  - Coal trading"; two spaces are read as one;
# or a dot leader, as an agenda gives each session's speaker: "Benefits Overview ........ Nkechi Obi, Benefits")
_COLUMN_GAP = re.compile(r"[ ]{3,}|\t+|[ \t]*\|[ \t]*|[ ](?=[-–][ \t])|[ \t]*\.{4,}[ \t]*")
_SLASH_GAP = re.compile(r"[ \t]+/[ \t]+")
_SLASH_BEFORE = re.compile(r"[ \t]+/[ \t]+\Z")
_ROW_NAME = re.compile(rf"(?:(?:{UPPER}\.[ \t]?)+)?{_CAP}(?:{NAME_GAP}(?:(?:{UPPER}\.|{_PARTICLE}){NAME_GAP})*{_CAP}){{0,3}}")
_LAST_FIRST_CELL = re.compile(rf",[ \t]*({_CAP})")
# (in a list written all in lower case, a cell's first word or two up to a dash, a colon, a bracket or a column gap:
# " 3 kai - p", " 4 big mo (mohammed) - 1b", "- hunter: keg"; not a line's words alone: "1 avocado")
_LOWER_ROW_NAME = re.compile(r"[a-z][a-z'’\-]+(?:[ \t][a-z][a-z'’\-]*)?(?=[ \t]*(?:[-–:(]|[ ]{2,}|\t))")
_CELL_END = re.compile(r"[ \t]*(?:\Z|[ ]{2,}|\t|\()")  # (a bracket after it: "Park, Ji-hoon (JH)")


def _row_cells(line: str) -> list[tuple[int, int]]:
    """The name-shaped start of each cell of a table row (cells parted by _COLUMN_GAP), of a list item after its
    mark, or of an indented short line; (-1, -1) for a cell that opens with no capitalised word."""
    m = _ROW_MARK.match(line)
    indent = len(line) - len(line.lstrip(" \t"))  # an indented table's first cell starts after its indent
    starts = [m.end()] if m else [indent] + [g.end() for g in _COLUMN_GAP.finditer(line) if g.start() > indent]
    # a slash with a space each side parts the cells too, as pairings and foursomes are listed ("Young / Rahman")
    starts += [g.end() for g in _SLASH_GAP.finditer(line, starts[0])
               if line.count("(", 0, g.start()) <= line.count(")", 0, g.start())]  # not inside a bracket: "(Ana / Li)"
    starts.sort()
    if not m and len(starts) < 2 and not (indent and len(line.strip()) <= 40):
        return []  # (an indented short line is a list's item too: "Who's in so far:\n  Ahmad\n  Olumide\n  Siew Ling")
    if m:  # a list item's first bracket is a column of its own ("2. Da Refinery (Rusty) 6-3": a team's owner)
        bracket = line.find("(", m.end())
        starts.append(bracket + 1 if bracket > 0 else len(line))
    cells = []
    for a in starts:
        n = _ROW_NAME.match(line, a) or (_LOWER_ROW_NAME.match(line, a) if not any(c.isupper() for c in line) else None)
        if not n:
            cells.append((-1, -1))
            continue
        end = n.end()
        # "Ng, Wai-Lun": a given name after the comma, or any word that ends the cell after one surname ("Obi,
        # Tolu"; not "Lotus Notes, TAGG")
        lf = _LAST_FIRST_CELL.match(line, end)
        if lf and (lf.group(1) in given_names() or _CELL_END.match(line, lf.end()) and " " not in line[a:end]
                   and not _acronym(lf.group(1))):
            end = lf.end()
        cells.append((a, end))
    return cells


# the words of a found name that spread to their repeats: three letters or more, or a surname of two that is
# no English word ("Mark Ng" ... "the weather desk (Ng / Okafor)")
SHORT_SURNAMES = frozenset("Ng Wu Li Xu Yu Oh Ho Ko Lo Hu Ly Vo Yi Ye Go Ma".split())
_SPREADING_WORD = re.compile(r"[^\W\d_][\w'’\-]{2,}|(?<![\w'’\-])(?:" + "|".join(sorted(SHORT_SURNAMES)) + r")(?![\w'’\-])")


def _rows_of_people(text: str, known: list[tuple[int, int]], vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """A list's or a table's rows of people: in a block of three or more rows (lines with as many cells, or list
    items), the cell at the same place (a list item's leading capitalised words; a table's column) holds a
    name in every row when two or more of those cells, and at least half of them, hold a found name ("- Zoran
    Ilić;" among co-accused the NER found; "Sorensen" in a column of analysts). Not the heading's cell
    ("Analyst"), a total's ("Total", "Extras"), a firm's, a place's, a month's or a weekday's."""
    if text.count("\n") < 2:
        return []
    is_known = SpanIndex(known)
    out = []
    pos, block = 0, []
    for line in text.split("\n") + [""]:
        cells = _row_cells(line) if line.strip() else []
        if cells and (not block or len(cells) == len(block[0][1])):
            block.append((pos, cells))
        else:
            if len(block) >= 3:
                out += _people_in_block(text, block, is_known, vocabulary)
            block = [(pos, cells)] if cells else []
        pos += len(line) + 1
    return out


def _people_in_block(text: str, block: list, is_known: SpanIndex, vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """The cells of one block of rows (_rows_of_people) that hold a name by their column's count."""
    def may_be_name(a, b):
        words = re.findall(r"[^\W\d_][\w'’\-]*", text[a:b])
        # (a month or a weekday is a given name after a roster's comma: "Frost, April")
        given_after_comma = words[1:] if len(words) >= 2 and _LAST_FIRST_CELL.search(text, a, b) else []
        if text[a:b].islower() and any(w in STOP_WORDS for w in words):
            return False  # a lower-case list's "me + ximena", "the okonkwos", "wes and"
        return words and not (len(words) == 1 and words[0].lower() in _TABLE_WORDS) and not any(
            w in country_names() or w in place_names() and not in_name_lists(w) or w.lower() in NAME_STOPS
            or (w.lower() in MONTHS or w.lower() in WEEKDAYS) and w not in given_after_comma
            or _NOT_A_NAME_WORD.match(w) and not (len(words) >= 2 and w in surnames()) for w in words)  # "Ji-hoon Park"
    out = []
    heading_end = text.find("\n", block[0][0])  # where the block's first line ends
    if heading_end < 0:
        heading_end = len(text)
    if _DATA_CELL.search(text, block[0][0], heading_end) or _NUMBERED_ITEM.match(text, block[0][0]):
        heading_end = block[0][0]  # a first line with a number or a phone is a row, no heading ("Gas Logistics   Ebony
        # Washington   (713) 853-3317"), and so is a numbered list's first item (" 1 deshawn - ss")
    width = len(block[0][1])
    # columns a slash parts in every row are one column of people ("Young / Rahman / Kowalczyk / Strand")
    slashed = [k > 0 and all(cells[k][0] >= 0 and _SLASH_BEFORE.search(text, 0, p + cells[k][0]) for p, cells in block)
               for k in range(width)]
    groups = []
    for k in range(width):
        if slashed[k] and groups:
            groups[-1].append(k)
        else:
            groups.append([k])
    for group in groups:
        cells = [(p + a, p + b) for p, cells in block for k in group for a, b in [cells[k]] if a >= 0]
        # the rows that may hold a name: not the heading's ("Analyst"), nor a firm's or a place's cell, which a
        # found name of the NER's misreading does not spread over ("Aquila Merchant", "Westar Energy")
        rows = [c for c in cells if may_be_name(*c)
                and not (c[0] < heading_end and len(group) == 1 and not is_known.overlaps(*c))]
        found = {c for c in rows if is_known.overlaps(*c)}
        if len(found) < 2 or 2 * len(found) < len(rows):
            continue
        # every row's cell, whole: one where a word alone was found is the whole name too ("48. Welcome
        # Mthethwa", "Gbadamosi, Tolu")
        out += rows
    return out


_NUMBERED_ITEM = re.compile(r"[ \t]*\d{1,3}[.)]?[ \t]+[^\W\d_]")
_DATA_CELL = re.compile(r"\d{3}")  # (a heading holds no number of three digits: "Name   Ext   Desk")
# a cell that is no row's person, in a column of people ("Total", "Vacant", "TBD")
_TABLE_WORDS = PERSON_HEADINGS | frozenset("total totals subtotal sum average mean vacant tbd tba none nobody other "
                                           "others unknown open closed yes no na n/a extras wickets overs bowling "
                                           "batting".split())


def _containment(spans: list[tuple[int, int]]):
    """is_inside(a, b): whether some span holds [a, b); by bisection over the spans sorted by start, with the
    largest end so far (a text with thousands of names must not cost their square)."""
    from bisect import bisect_right
    ordered = sorted(spans)
    starts = [s for s, _ in ordered]
    reach, furthest = [], -1
    for _, e in ordered:
        furthest = max(furthest, e)
        reach.append(furthest)

    def is_inside(a: int, b: int) -> bool:
        k = bisect_right(starts, a)
        return k > 0 and reach[k - 1] >= b
    return is_inside


_DATE_NUMBER_BEFORE = re.compile(r"\d{1,2}\.?\Z")


def _date_number_before(text: str, i: int) -> bool:
    """A day's number, maybe with its dot, right before text[i] but for spaces ("am 27. Mai"): read in the few
    characters there, not by a search over all the text before."""
    end = i
    while end and text[end - 1] in " \t":
        end -= 1
    return _DATE_NUMBER_BEFORE.search(text, max(0, end - 3), end) is not None


_GIVEN_THEN_CAPITALISED = re.compile(rf"{WORD_START}({_CAP})((?:[ \t]+{_CAP}){{0,2}})")


def _listed_given_names(text: str, a: int, b: int, vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """In text[a:b], a passage in another language: each given name of the lists that no English dictionary
    holds, with the capitalised words after it ("Adjuntos los horarios de Cristina y Beatriz", "den Einsatz von
    Nicolai Müller"); no brand ("Mercedes Benz"), no month after a date's number ("am 27. Mai")."""
    out = []
    for m in _GIVEN_THEN_CAPITALISED.finditer(text, a, b):
        first = m.group(1)
        if first in given_names() and not in_vocabulary(first, vocabulary) and first.lower() not in KNOWN_PRODUCTS \
                and not _date_number_before(text, m.start()):
            if not any(w.lower() in KNOWN_PRODUCTS for w in m.group(2).split()):  # "Mercedes Benz"
                out.append((m.start(1), m.end(2)))
    return out


_COMMA_GAP = re.compile(r",[ \t]*")
_SURNAME_FIRST = re.compile(r"[ \t]*([^,]+?),[ \t]*([^,]+?)[ \t]*")


def initials_of(span: str, inner: bool = True) -> str | None:
    """The initials of a name of two or three capitalised words, a particle left out ("Nadia Rahman": "NR",
    "Jan van der Berg": "JB"), in the order the person writes them when a header or a list puts the surname
    first ("Kaminski, Pawel": "PK", "ROSS, ALISTAIR": "AR", "Hale, John Robert": "JRH"), or None."""
    if m := _SURNAME_FIRST.fullmatch(span):
        span = f"{m.group(2)} {m.group(1)}"
    # (a nickname in quotes inside the name gives no initial: 'Tomasz "Tom" Zieliński' is "TZ"; nor does a mail
    # system's tail: "Thuy Vo/HOU/ECT" is "TV")
    span = _NOTES_TAIL.sub("", _QUOTED_INSIDE.sub(" ", span))
    words = [w for w in span.split() if not re.fullmatch(_PARTICLE, w)]
    if not 2 <= len(words) <= 3 or not all(_INITIALLED_WORD.fullmatch(w) for w in words):
        return None
    # a word's part after an apostrophe or a hyphen gives its own initial ("Sean O'Rourke": "SOR", "Sarah-Jane
    # Mills": "SJM"; with `inner` off, "SOR" is "SO" and "SJM" "SM", as some write theirs), and a word of any
    # alphabet its first letter ("Wiesław Nowicki": "WN")
    return "".join(w[0] + ("".join(_INNER_INITIAL.findall(w)) if inner else "") for w in words)


_INITIALLED_WORD = re.compile(rf"{UPPER}(?:[^\W\d_]|['’\-](?=[^\W\d_]))+|{UPPER}\.?")
_NOTES_TAIL = re.compile(r"/[A-Z]{2,}(?:/[A-Z]{2,})*(?:@[A-Z]+)?\Z")
_QUOTED_INSIDE = re.compile(r"[ \t]+[\"“'‘][^\"“”'‘’]{1,30}[\"”'’](?=[ \t])")
_INNER_INITIAL = re.compile(rf"(?<=['’\-])({UPPER})")


def _given_and_listed_surname(span: str) -> bool:
    """'Carl Hope', 'Dean Wing': a given name, then a surname of the lists that is also a word. Found by any
    rule, such a name is sure enough for its surname to spread ("Hope's lawyer said"); a given name before a
    word that is no surname ("Rose Garden") is not."""
    words = span.split()
    return len(words) == 2 and words[0] in given_names() and _POSSESSIVE_END.sub("", words[1]) in surnames()


def _listed_beside_unknown_words(span: str, vocabulary: frozenset[str]) -> bool:
    """'Comfort Adebayo-Ilori', 'Park Jung-ho': two or three capitalised words, each a name of the lists or a word no
    dictionary holds, and one of each. Found by any rule, such a name is sure enough for its listed word to spread,
    though a dictionary holds it ("Mama Comfort never missed", "Park had headed"); "Rose Garden" is not."""
    words = [_POSSESSIVE_END.sub("", w) for w in span.split()]
    if not 2 <= len(words) <= 3 or not all(re.fullmatch(_CAP, w) for w in words):
        return False
    unknown = [not in_vocabulary(w, vocabulary) for w in words]
    return any(unknown) and all(u or in_name_lists(w) for w, u in zip(words, unknown)) \
        and any(not u for u in unknown)


def _surname_and_given(last: str, first: str, vocabulary: frozenset[str]) -> bool:
    """'ROSS', 'ALISTAIR': a surname of the lists or a word no dictionary holds, and a given name of the lists
    (in capitals too), as a "Last, First" header writes a person."""
    last, first = last.strip().capitalize(), first.split()[0].capitalize() if first.split() else ""
    return first in given_names() and (last in surnames() or not in_vocabulary(last, vocabulary))


def _given_and_unknown_word(span: str, vocabulary: frozenset[str]) -> bool:
    """'Faith Oyelowo': an English given name, then a capitalised word no dictionary holds. Such a name is sure
    enough for its given name to spread ("- Faith\nFaith Oyelowo, Office Coordinator"); "Rose Garden" is not."""
    words = span.split()
    if len(words) != 2 or words[0] not in given_names(ENGLISH_LOCALES):
        return False
    surname = _POSSESSIVE_END.sub("", words[1])
    return bool(re.fullmatch(rf"{_CAP}", surname)) and not in_vocabulary(surname, vocabulary)  # not "Rogers@Ect"


_POSSESSIVE_END = re.compile(r"['’]s?\Z")


def _signing_dash(text: str, i: int) -> bool:
    """Whether the "-" right before position `i` opens a line or follows a space, as a signature's does ("-PK",
    "thanks --Dee"); glued to a word it joins a compound ("Smith-Jones", "X-ray")."""
    k = i - 1
    while k > 0 and text[k - 1] == "-" and i - k < 2:
        k -= 1
    return k == 0 or text[k - 1].isspace()


def _occurrences(text: str, words: set[str]) -> list[tuple[int, int]]:
    """Where each of `words` stands in `text` as a whole word: no letter, digit, "_", "-" (but a signature's:
    "\n-PK") or apostrophe before it, no letter, digit, "_" or "-" after it ("Smith" in "Smith's", not in
    "Smithson") but an honorific ("Hashimoto-san"). A scan per word, not one regex of them all: a pattern built
    per text would push the constant ones out of re's cache."""
    out = []
    for w in words:
        i = text.find(w)
        while i >= 0:
            j = i + len(w)
            before = text[i - 1] if i else " "
            after = text[j] if j < len(text) else " "
            if not (before.isalnum() or before in "_'’" or before == "-" and not _signing_dash(text, i)) and (
                    not (after.isalnum() or after in "_-") or after == "-" and HONORIFIC_SUFFIX.match(text, j)):
                out.append((i, j))
            i = text.find(w, i + 1)
    return out


# a capitalised word of four letters or more with a vowel, no capital after its first: "Marites", not "Rm", "Tmrw"
_CAPITALISED_NAME = re.compile(r"[A-Z](?=[^\W\d_]*[aeiouyáéíóúàèìòùäëïöüâêîôû])[a-zà-ÿ'’\-]{3,}")


def lowercase_text(text: str) -> bool:
    """Written without capitals (a chat message, a lower-cased form): no word but "I" starts upper case."""
    words = re.findall(r"[^\W\d_]+", text)
    return sum(len(w) > 2 for w in words) >= 4 and not any(w[0].isupper() and w != "I" for w in words)


def uppercase_text(text: str) -> bool:
    """Written all in capitals (a nursing note, a telex, a shouted post): no lower-case letter, and enough
    words to be prose rather than a heading (4: "ANNA,\n\nSEE ATTACHED.\n\nTHANKS,\nJOHN" is a message)."""
    words = re.findall(r"[^\W\d_]+", text)
    return sum(len(w) > 2 for w in words) >= 4 and not any(c.islower() for c in text)


def lowered_copy(text: str) -> str | None:
    """`text` in lower case, same length (None where a letter's lower case is longer: "İ")."""
    low = text.lower()
    return low if len(low) == len(text) else None


def merge_candidates(a: "NameCandidates", b: "NameCandidates") -> "NameCandidates":
    """The candidates of two readings of one text of the same length (a text in capitals and its lower-case
    copy): a name either found."""
    return NameCandidates(union_spans(a.ner + b.ner), union_spans(a.titled + b.titled),
                          union_spans(a.cued + b.cued))


def truecased_copy(text: str, vocabulary: frozenset[str]) -> str | None:
    """`text` (written in lower case) as ordinary prose writes it, same length: a capital opening each sentence
    and line, and on each name of the lists that no dictionary holds or that is a surname and no given name
    ("wood, 28, joined" -> "Wood, 28, joined"; "will", "hope" stay, as common as they are given names; chat's
    "rt", "bae" stay: the capitalised copy reads unknown words already)."""
    def cased(m):
        w = m.group(0)
        name = w.capitalize()
        # a sentence's first word only when it is a word or a name ("def f():", "oop" stay: the backstop would
        # take a capitalised unknown word for a name)
        opens = _is_sentence_start(text, m.start()) and len(w) > 2 and w not in NOT_INITIALS and (
            in_vocabulary(w, vocabulary) or name in given_names() or name in surnames())
        name_like = w not in STOP_WORDS and len(w) > 2 and (
            (name in given_names() or name in surnames()) and not in_vocabulary(w, vocabulary)
            or name in surnames() and name not in given_names())
        return w[:1].upper() + w[1:] if opens or name_like else w
    out = re.sub(r"[^\W\d_][\w'’\-]*", cased, text)
    return out if len(out) == len(text) else None


def capitalised_copy(text: str) -> str | None:
    """`text` with every word that is not a function word capitalised, same length; None if it changes."""
    out = re.sub(r"[^\W\d_][\w'’\-]*", lambda m: m.group(0) if m.group(0) in NAME_STOPS else m.group(0)[:1].upper() + m.group(0)[1:], text)
    return out if len(out) == len(text) else None


_TRANSLATE_FROM = re.compile(r"(?i)\btranslate[ \t]+(?:(?:this|the[ \t]+following)[ \t]+(?:text[ \t]+|sentence[ \t]+)?)?"
                             r"(?:from[ \t]+)?([a-z]+)[ \t]+(?:in)?to[ \t]+[a-z]+[ \t]*:")


def non_english_ranges(text: str, langid, names: list[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """Character ranges of `text` written in another language: lines and the part after an instruction's
    colon ("Translate German to English: ..."), each of 5 words or more with few English function words,
    confirmed by the language identifier `langid(str) -> code`. The `names` (persons of two or more words the
    NER found) are left out of a line before it is judged: a line of foreign names is a list of people, not
    a passage in their language ("attendees: priya natarajan, tomasz wolski, obi nwosu")."""
    if names:
        chars = list(text)
        for s, e in names:
            chars[s:e] = " " * (e - s)
        text_judged = "".join(chars)
    else:
        text_judged = text
    out = []
    # "Translate German to English: Revolutionäres Werk der Kirchenmusik": the instruction names the
    # payload's language, however short the payload
    for m in _TRANSLATE_FROM.finditer(text):
        if m.group(1).lower() != "english":
            end = text.find("\n\n", m.end())
            out.append((m.end(), len(text) if end < 0 else end))
    # each line, and a line's text after its first colon (an instruction's payload) as one chunk
    chunks = []
    for line in re.finditer(r"[^\n]+", text_judged):
        colon = line.group(0).find(":")
        if colon < 0:
            chunks.append((line.start(), line.group(0)))
        else:
            chunks += [(line.start(), line.group(0)[:colon]), (line.start() + colon + 1, line.group(0)[colon + 1:])]
    for start, chunk in chunks:
        words = re.findall(r"[^\W\d_]+", chunk)
        if len(words) < 5 or sum(w.lower() in ENGLISH_FUNCTION_WORDS for w in words) >= 0.12 * len(words) + 1:
            continue  # (a language identifier guesses wildly on fewer words)
        if sum(w[0].islower() and len(w) > 1 and w not in ENGLISH_FUNCTION_WORDS for w in words) < 2:
            continue  # a line of capitalised words ("Maja S Hermansen") is a name, not a sentence of a language
        if langid(chunk) != "en":
            out.append((start, start + len(chunk)))
    return out


_NUMBER = re.compile(r"(?i)(?<![#\w])\$?\d[\d,.]*%?|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                     r"twenty|thirty|forty|fifty|hundred|thousand|dozen|half|twice|triple|double)\b")


def is_word_problem(text: str) -> bool:
    """An arithmetic exercise: two or more quantities and a question or an instruction to work one out."""
    n = len(_NUMBER.findall(text))
    return n >= 2 and ("?" in text or bool(_QUANTITY.search(text))) or n >= 1 and bool(_QUANTITY.search(text))


# "the city of Vega", "Lake Louise": a place, whatever the NER says
_PLACE_BEFORE = re.compile(r"(?i:\b(?:city|town|village|hamlet|parish|borough|township|suburb|state|county|province|"
                           r"republic|kingdom|university|port|island|isle|river|lake|mount|bay|gulf|region|district|"
                           r"municipality|north|south|east|west|(?:north|south)-?(?:east|west)|liberation|siege|"
                           r"shelling|bombardment|recapture)[ \t]+of|"
                           r"\b(?:lake|mount|river|cape))[ \t]+\Z|"
                           # a storm's given name ("hurricane Irma", "Cyclone Phailin") names no person
                           r"(?i:\b(?:hurricane|typhoon|cyclone|tropical[ \t]+storm|storm))[ \t]+\Z|"
                           # "Near" opening a sentence or a list item says where ("Near Ayn Isa, one strike ...")
                           r"(?:[.!?\n]|\A)[ \t.\-•*]*Near[ \t]+\Z|"
                           # where somebody lives, works or goes ("lives in Ankara", "practising in Braga",
                           # "flew to Espoo", "the state of Punjab", "R/o Sahaspuriya")
                           rf"(?i:\b(?:{PLACE_VERBS})[ \t]+(?:in|at|near)|\b(?:{MOVE_VERBS})[ \t]+(?:back[ \t]+)?"
                           rf"(?:to|from|in|at|into)|(?<![\w/])(?:{PLACE_OF})(?:[ \t]+of|(?<=o)\.?))[ \t]*\Z")
_PLACE_AFTER = re.compile(r"[ \t]+(" + "|".join(sorted(PLACE_AFTER)) + r")\b", re.IGNORECASE)
_PLACE_NOUN_AFTER = re.compile(r"[ \t]+(?:" + "|".join(sorted(PLACE_NOUNS)) + r")\b", re.IGNORECASE)
# either closing the candidate itself ("Hancock Brook", "Mullen Siding", "Howard County")
_INSTITUTION_LAST = re.compile(r"(?:[ \t]+|(?<=\.))(" + "|".join(sorted(INSTITUTION_HEADS)) + r")\.?[ \t]*\Z",
                               re.IGNORECASE)
_PLACE_LAST = re.compile(r"[ \t]+(?:" + "|".join(sorted(PLACE_AFTER | PLACE_NOUNS)) + r")[ \t]*\Z", re.IGNORECASE)


def _institution(text: str, s: int, e: int) -> bool:
    """A span of two words or more that an institution's or a street's word closes, whatever word opens it
    ("Thomas Road", "Vijaya Bank", "M.G.Road"; pii_words.INSTITUTION_HEADS, none a surname of the lists)."""
    head = _INSTITUTION_LAST.search(text, s, e)
    return bool(head and text[s:head.start()].strip() and head.group(1).capitalize() not in surnames())


def _named_place(text: str, s: int, e: int) -> bool:
    """A candidate that a place or body word closes or follows, and that opens with no given name where the
    word could be a person's ("Hancock Brook", "Wayne County"; not "Joe Brook")."""
    last = _PLACE_LAST.search(text, s, e)
    if _PLACE_AFTER.match(text, e) or last and last.group(0).strip().lower() in PLACE_AFTER:
        return True
    return bool(last or _PLACE_NOUN_AFTER.match(text, e)) and not _opens_with_given_name(text[s:e])


def _opens_with_given_name(span: str) -> bool:
    """The span's first word, as written or capitalised, is a given name of any list."""
    first = span.split()[0]
    return first in given_names() or first.capitalize() in given_names()


# "in X": where something is or happens ("floods in Garissa", "a plant in Sutton Coldfield"), unless X is cited,
# owned or paired ("in Sarla Verma (supra)", "in Moran and Pyle", "in Tyler's mind", "the judgment in X")
_IN_BEFORE = re.compile(r"(?<![\w'’\-])(?:in|In)[ \t]+\Z")
_CITED_BEFORE = re.compile(r"(?i)\b(?:judg(?:e)?ments?|decisions?|case|held|observed|ruling|court|bench|reported|"
                           r"opinion|dictum|view|laid[ \t]+down|interest|belief|faith|trust|confidence|believe|"
                           r"loop(?:s|ed|ing)?|"  # mail's "looping in Sunni": a person brought into the thread
                           r"believed|believes)[ \t]+in[ \t]+\Z")
_NOT_A_PLACE_AFTER = re.compile(r"['’](?:s\b|(?=[\s,.;:!?)]))|[ \t]*\((?:supra|ibid)|[ \t]+(?:v\.?|vs\.?|versus|and|&|n)[ \t]|"
                                r"[ \t]+case\b|,[ \t]+[^\W\d_][\w'’\-]*[ \t]+(?:and|&|case)\b")


def _in_a_place(text: str, s: int, e: int) -> bool:
    """A candidate after "in" that stands for a place: not cited, owned or paired with another name, and
    not opening with a given name of any list ("in Chelsea", "in Florence" stay names: a person may be meant).
    On the train and dev splits 151 of the filter's wrong redactions stood so; of the labelled names only a
    museum ("in Madame Tussauds Museum") and a character ("in Batman: The Animated Series")."""
    if not _IN_BEFORE.search(text, max(0, s - 4), s) or _CITED_BEFORE.search(text, max(0, s - 30), s):
        return False
    if _NOT_A_PLACE_AFTER.match(text, e):
        return False
    return not _opens_with_given_name(text[s:e])


# A match result's line: two sides, each with its score and perhaps its scorers in brackets ("Barnsley 2
# Charlton 0", "Bayern Munich 2 ( Klinsmann 10 ) Hamburg 1"): the sides are teams (players' results are
# written "X beat Y 6-3 6-2"), the scorers in brackets are found as any name
_SIDE = rf"{_CAP}(?:[ \t]+{_CAP}){{0,3}}"
_RESULT_LINE = re.compile(rf"(?m)^[ \t]*({_SIDE})[ \t]+\d{{1,2}}(?:[ \t]*\([^)\n]*\))?[ \t]+({_SIDE})[ \t]+\d{{1,2}}"
                          r"(?:[ \t]*\([^)\n]*\))?[ \t]*$")


# A club before the role of its staff or players ("Chelsea boss Jose Mourinho", "Aston Villa striker")
_CLUB_ROLE = re.compile(rf"(?<![\w'’\-])({_CAP}(?:[ \t]+{_CAP}){{0,2}})(?<!['’]s)(?<!['’])[ \t]+"
                        r"(?:boss|manager|coach|striker|midfielder|defender|goalkeeper|winger|full-back|centre-back|"
                        r"playmaker|squad)\b")


# A team by its place and its nickname, the plural of a common noun ("Boston Bruins", "Vancouver Canucks", "St.
# Louis Eagles", "New York Giants"): the place's words are in the dictionary and no given name or surname, and the
# nickname is no surname of the lists ("Brown Rivers", "Chelsea Stones" stay names); never opening a sentence, where
# the first word may be any word ("Damn Athenas daughter")
_TEAM = re.compile(rf"(?<![\w'’\-])((?:St\.?[ \t]+)?{_CAP}(?:[ \t]+{_CAP})?)[ \t]+((?:{_CAP}[ \t]+)?{_CAP}s)(?![\w'’\-])")


def _team(m: re.Match, vocabulary: frozenset[str]) -> bool:
    place = [w for w in m.group(1).split() if w.rstrip(".") != "St"]
    nickname = m.group(2).split()[-1]
    return bool(place) and place[0].lower() not in NAME_STOPS and not _is_sentence_start(m.string, m.start()) and all(
        in_vocabulary(w, vocabulary) and w not in given_names() and w not in surnames() for w in place) \
        and in_vocabulary(nickname, vocabulary) and not any(w in surnames() or w in given_names()
                                                            for w in (nickname, nickname[:-1]))  # "Athenas daughter"


_LIST_PLACE = rf"{_CAP}(?:[ \t]+{_CAP})?"
_IN_LIST = re.compile(rf"(?<![\w'’\-])[Ii]n[ \t]+{_LIST_PLACE}(?:,[ \t]*{_LIST_PLACE})+,?[ \t]+and[ \t]+{_LIST_PLACE}"
                      r"(?![\w'’\-])")


# A town and its state or country after a preposition of place ("stayed a night in Eugene, Oregon", "a citizen of
# San Francisco, California"): the town is no person, whatever its word. Not a state that is a given name too
# ("of Smith, Virginia" may be a "Last, First"), and only before punctuation ("from Okafor, Texas office")
_TOWN_AND_STATE = re.compile(rf"(?<![\w'’\-])(?:in|of|near|outside|at|from)[ \t]+({_CAP}(?:[ \t]+{_CAP}){{0,2}}),[ \t]+"
                             rf"({_CAP}(?:[ \t]+{_CAP})?)(?=[ \t]*[,.;:)\n]|\Z)")


# A league table's row: a side's name, then its games played, won, drawn, lost, goals and points ("Chelsea 3 2 1 0
# 5 2 7", "Philadelphia 45 23 14 104 240 198"), six counts or more. Players' tables hold as many (a season's
# batting, a golf card with its total), so the rows count only in a text that calls itself standings
_STANDINGS = re.compile(r"(?i)\bstandings\b")
_STANDINGS_ROW = re.compile(rf"(?m)^[ \t]*({_SIDE})(?:[ \t]+\d{{1,4}}){{6,}}[ \t]*$")


# A numbered heading alone on its line ("A. Damage", "B. Costs and expenses", "II. RELEVANT DOMESTIC LAW"): of
# dictionary words only, it is no initial and surname
_HEADING = re.compile(r"(?m)^[ \t]*((?:[A-Z]|[IVX]{1,4}|\d{1,2})\.[ \t]+([^\n]{1,60}?))[ \t.:]*$")
# A label that opens two lines or more before a number and a colon ("Milepost 0.8: ...\nMilepost 1: ...", "Exhibit
# 3:"): a list's word, nobody's name (a person's lines are "Okafor: ...", with no number)
_NUMBERED_LABEL = re.compile(r"(?:^|(?<=\n)|(?<=[.!?][ \t]))[ \t]*([A-Z][a-z]+)[ \t]+\d+(?:\.\d+)?[a-z]?[ \t]*:(?!\d)")


# A news-wire dateline: the place in capitals, then the date ("STUTTGART 1996-08-24", "COMMACK, New York
# 1996-08-22", "LONDON, Aug 23 (Reuters) -")
_DATELINE = re.compile(r"(?m)^[ \t]*([A-Z][A-Z.'’\-]*(?:[ \t]+[A-Z][A-Z.'’\-]*){0,3}"
                       r"(?:[ \t]*,[ \t]*[A-Z][a-z]{2,8}\.?[ \t]+\d{1,2}|[ \t]*,(?:[ \t]+[A-Z][\w.]*){1,3})?"
                       r"(?:[ \t]+\d{4}-\d{2}-\d{2}[ \t]*$|"
                       r"[ \t]*\((?:Reuters?|AP|AFP|UPI|dpa|PTI|IANS)\)))")


def numbered_labels(text: str) -> list[tuple[int, int]]:
    """A label that opens two lines or more before a number and a colon (_NUMBERED_LABEL)."""
    labels = list(_NUMBERED_LABEL.finditer(text)) if ":" in text else []
    return [m.span(1) for m in labels if sum(n.group(1) == m.group(1) for n in labels) >= 2]


def no_name_parts(text: str, vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """The parts of `text` where no candidate of the model or the backstops is a name: a dateline's place, a
    numbered heading of dictionary words that are nobody's name of the lists, the two sides of a match result,
    the sides of a league table (three rows or more, in a text that says "standings"), and those sides wherever
    the text names them again."""
    parts = [(m.start(1), m.end(1)) for m in _DATELINE.finditer(text)]
    parts += [(m.start(1), m.end(1)) for m in _HEADING.finditer(text) if all(
        (in_vocabulary(w, vocabulary) or w.lower() in STOP_WORDS) and not in_name_lists(w.capitalize())
        for w in _LETTER_WORD.findall(m.group(2)))]
    # the members of a list of three places or more after "in", none of them a given name or a surname of the lists,
    # nor cited ("attacks in Qamenas, Sarmin and Talamenes"; not "in Moran and Pyle", "in Maria, Tom and Joe", "as
    # held in Okafor, Lindqvist and Moran")
    for m in _IN_LIST.finditer(text) if " and " in text else ():
        items = list(re.finditer(_LIST_PLACE, m.group(0)[2:]))
        if len(items) >= 3 and not _CITED_BEFORE.search(text, max(0, m.start() - 30), m.start() + 3) \
                and not any(_opens_with_given_name(i.group(0)) or any(w in surnames() for w in i.group(0).split())
                            for i in items) and not _NOT_A_PLACE_AFTER.match(text, m.end()):
            parts += [(m.start() + 2 + i.start(), m.start() + 2 + i.end()) for i in items]
    # a town before its state (_TOWN_AND_STATE); one of two words or more opens with no given name ("from Edwina
    # Okafor, Texas." is a person's)
    parts += [m.span(1) for m in _TOWN_AND_STATE.finditer(text)
              if (m.group(2) in place_names() or m.group(2) in country_names()) and m.group(2) not in given_names()
              and not (" " in m.group(1) and _opens_with_given_name(m.group(1)))]
    sides = [m.group(g) for m in _RESULT_LINE.finditer(text) for g in (1, 2)]
    if _STANDINGS.search(text):
        rows = list(_STANDINGS_ROW.finditer(text))
        sides += [m.group(1) for m in rows] if len(rows) >= 3 else []
    # ... and so is a club a team's staff or players are named by ("Chelsea boss", "Atletico Madrid midfielder";
    # not "Mourinho's side", "the Chelsea boss": there the club's words are someone's or the sentence's)
    sides += [m.group(1) for m in _CLUB_ROLE.finditer(text) if m.group(1).split()[0].lower() not in NAME_STOPS
              and not _DETERMINER_BEFORE.search(text, max(0, m.start(1) - 8), m.start(1))]
    # ... and so is a team named by its place and nickname, and "the" nickname ("the Bruins")
    for m in _TEAM.finditer(text):
        if _team(m, vocabulary):
            sides += [m.group(0), "the " + m.group(2), "The " + m.group(2)]
    # a side is a team wherever the text names it ("Panathinaikos 2 Olympiakos 1" ... "Panathinaikos coach")
    return parts + _occurrences(text, set(sides))


def thing_parts(text: str) -> list[tuple[int, int]]:
    """Where `text` names what it says is a place, a body or a work ("Atwick is a village", "Thyrza, a series of
    elegies"; pii_rules_news.declared_things), with the other names it is given in brackets there ("Athens (Greek:
    Αθήνα, Athína), is the capital"), a storm by its given name and a town by its name: every occurrence. No
    found name's words grow back there."""
    declared = declared_things(text)
    brackets = [m.span() for s, e in declared for m in [_BRACKET_AFTER.match(text, e)] if m]
    # ... and a storm's given name, which the report repeats alone ("Cyclone Phailin ... Phailin's winds"), and a town
    # the text calls one ("the town of Bridgton ... the Bridgton Hinkleys")
    storms = {m.group(1) for m in _STORM_NAME.finditer(text)}
    towns = {m.group(1) for m in _TOWN_OF.finditer(text) if not _opens_with_given_name(m.group(1))} \
        if " of " in text else set()
    return brackets + _occurrences(text, {text[s:e] for s, e in declared} | storms | towns)


def title_and_dish_parts(text: str) -> list[tuple[int, int]]:
    """A work's title after the word for it, in quotes or before its year ('the single "Baby Turpentine"', "their
    album Velvet Orchid (1988)"), and a dish a recipe is for ("a recipe for Kubdari?", not a cook's "the recipe for
    Nana Okafor's stew"): no candidate of the model there, though a found name may repeat there (a song may be
    called "Jolene"; a memo book's note '"CB – credibility?"' holds a witness's initials)."""
    parts = [m.span(1) if m.group(1) else m.span(2) for m in _WORK_TITLE.finditer(text)] \
        if _WORK_WORD.search(text) else []
    return parts + ([m.span(1) for m in _RECIPE_FOR.finditer(text) if not POSSESSIVE.search(m.group(1))]
                    if "ecipe" in text else [])


_TOWN_OF = re.compile(rf"(?i:\bthe[ \t]+(?:city|town|village|hamlet|borough|parish|township|municipality)[ \t]+of)[ \t]+"
                      rf"({_CAP}(?:[ \t]+{_CAP})?)(?![\w'’\-])")
_BRACKET_AFTER = re.compile(r"[ \t]*\([^()\n]{1,80}\)")
_RECIPE_FOR = re.compile(rf"(?i:\brecipes?[ \t]+(?:for[ \t]+)?(?:(?:an?|the|some|my|our|your)[ \t]+)?)({_CAP}(?:[ \t]+{_CAP}){{0,3}})")
_WORK_WORDS = (r"(?i:\b(?:single|album|song|track|film|movie|novel|book|poem|play|opera|series|sitcom|documentary|"
               r"painting|sculpture|game|ep|lp)s?)")
_WORK_WORD = re.compile(_WORK_WORDS + r"\b")
_WORK_TITLE = re.compile(rf"{_WORK_WORDS}[ \t]+(?:[\"“]([^\"”\n]{{1,80}})[\"”]|"
                         rf"({_CAP}(?:[ \t]+{_CAP}){{0,5}})(?=[ \t]+\((?:\d{{4}}|released)))")
_STORM_NAME = re.compile(rf"(?i:\b(?:hurricane|typhoon|cyclone|tropical[ \t]+(?:storm|cyclone|depression)))[ \t]+({_CAP})"
                         r"(?![ \t]+[A-Z])")  # not "Hurricane Relief Fund", "Typhoon Haiyan Appeal"


# A character or public figure the prompt asks the model to play: kept, with every repeat of the name
ROLE_CUE = re.compile(r"(?i:\b(?:role[ \t]+of|persona[ \t]+of|pretend[ \t]+(?:yourself[ \t]+)?(?:to[ \t]+be|you[ \t]+are)|"
                       r"act[ \t]+(?:as|like)|imagine[ \t]+(?:yourself[ \t]+as|you[ \t]+are)|you[ \t]+are[ \t]+now|"
                       r"speak[ \t]+like|in[ \t]+the[ \t]+voice[ \t]+of|as[ \t]+if[ \t]+you[ \t]+were|embody))[ \t]+(?:the[ \t]+)?\Z")


# A public office or a company's top office right before a name: its holder is a public figure
PUBLIC_ROLE = re.compile(r"(?:\b(?:CEO|CFO|CTO|COO|[Cc]hief[ \t]+[Ee]xecutive|[Cc]hairman|[Cc]hairwoman|[Cc]hairperson|"
                          r"[Ff]ounder|[Cc]o-?founder|President|Vice[ \t]+President|Prime[ \t]+Minister|Chancellor|"
                          r"Senator|Congressman|Congresswoman|Governor|Mayor|Minister|Secretary|Ambassador|Pope|King|"
                          r"Queen|Prince|Princess|Emperor|Empress|Sultan|Sheikh|Justice|General|Admiral)[ \t]*,?[ \t]*)\Z")
# a list's bullet, an opening quote or bracket, or a signature's glued dash the NER ran into an entity ("* Angela
# Price", "“Hutch", "-Leah Goldberg RN")
_ENTITY_LEAD = re.compile(r"[ \t]*(?:[*•·▪◦‣+\-–][ \t]+|[\"“‘'(][ \t]*|[\-–](?=[^\W\d_]))")


def _with_last_lines(doc):
    """The doc's entities, a person's words after a number in it, and of an organisation's or a place's that the
    NER ran over a line break, its last line's words as an entity of the same label too: a heading above a
    paragraph's first word ("2.  Budget\n    Pinaki reported", ORG), whose first line alone stands for the entity
    below."""
    for ent in doc.ents:
        yield ent
        if ent.label_ in ("PERSON", "PER"):
            # a person the model ran on from a heading, a date or a number ("Rice University - Oct 3 - Jae"): the
            # words after the last number too (find_names keeps those before the first)
            digits = [i for i, t in enumerate(ent) if any(c.isdigit() for c in t.text)]
            k = digits[-1] + 1 if digits else len(ent)
            while k < len(ent) and ent[k].is_punct:
                k += 1
            if k < len(ent) and ent[k].text[:1].isupper():
                yield Span(doc, ent.start + k, ent.end, label=ent.label)
        cut = ent.text.rfind("\n")
        if cut >= 0:
            start = ent.start_char + cut + 1
            start += len(doc.text[start:ent.end_char]) - len(doc.text[start:ent.end_char].lstrip())
            tail = doc.char_span(start, ent.end_char, label=ent.label_) if start < ent.end_char else None
            if tail is not None and tail.text.strip():
                yield tail


# a day of the week alone is a date the NER misread ("police said Sunday they ..."), never a person
_WEEKDAY = re.compile(r"(?i)(?:mon|tues|wednes|thurs|fri|satur|sun)day")


def find_names(text: str, doc, contact_details: list[tuple[int, int]], cased_doc=None,
               vocabulary: frozenset[str] = frozenset(), langid=None):
    """Every person-name candidate of `text`, by how it was found (NameCandidates). `doc` is
    spaCy's parse of `text`; `cased_doc` its parse of `capitalised_copy(text)` when the text is all lower
    case; `contact_details` the spans where a pattern recognizer found an email, phone, address or ID
    number; `vocabulary` the lower-case words of an English dictionary (`english_vocabulary`), which tells
    a mislabelled name from a place or a brand; `langid(str) -> code` tells the passages in another
    language, where the English NER and dictionary read common nouns as names ("Ruhe", "Zweifel"): there
    only names after a title or a naming cue are found (a detector's limit, measured in the README)."""
    ner: list[tuple[int, int]] = []
    shouted = _shouted_lines(text)
    for d in (doc, cased_doc):
        if d is None:
            continue
        for ent in _with_last_lines(d):
            if ent.label_ in ("PERSON", "PER"):
                ent = _before_digits(ent)  # "IBAN GB82WEST1234...": no name holds a digit
                if ent is None or _shouted_words(ent, shouted, vocabulary) or all(
                        _drawn_out_word(w, vocabulary) for w in _LETTER_WORD.findall(ent.text)):
                    continue  # ... or chat's words drawn out ("HOLIDAY ROOOOAAADDD"; "SUAREZZZZ" stays a name)
            elif ent.label_ in _OTHER_LABELS and d is doc:
                ent = _without_shorthand_lead(ent)  # "w/ Ignacio" ORG: the note's shorthand is no part of it
            if company_reporting(text, ent.start_char, ent.end_char):
                continue  # "Japanese carmaker Toyota said", "Italian insurer Generali said": a company speaks
            # an entity may run over a line break ("Maika van de Noort\nEmployment manager"): its first line;
            # and over a list's bullet or an opening quote ("* Angela Price is a pediatrician"): after it
            s, e = ent.start_char, ent.end_char
            if (lead := _ENTITY_LEAD.match(text, s, e)) is not None:
                s = lead.end()  # (not a rule of dashes: "> -----Original Message" is no name)
            e = min(e, s + text[s:e].find("\n")) if "\n" in text[s:e] else e
            if ent.label_ in ("PERSON", "PER") and any(a <= s < b for a, b in shouted):
                e = _without_shouted_tail(ent, e, vocabulary)  # "OKONJO SIGNS" of "STRIKER OKONJO SIGNS FOR"
            if d is cased_doc and len(ent) == 1 and in_vocabulary(ent.text, vocabulary) \
                    and ent.text not in given_names(ENGLISH_LOCALES):
                continue  # a capitalised copy makes every word look like a name: "the Photo"
            if d is cased_doc and len(ent) > 1 and not _holds_name_word(ent.text, vocabulary):
                continue  # ... or a phrase: "was Married Twice"
            if len(ent) == 1 and text[e:e + 1] == ":" and (ent.text.lower() in NOTE_LABELS or in_vocabulary(
                    ent.text, vocabulary) and ent.text not in given_names() and not text[s - 1:s].strip()
                    and text[e + 1:].lstrip(" \t")[:1] in ("\n", "")):
                continue  # a section label ("Resp: ...", a heading "Pros:"); abbreviations ("NSR 70s") stay: 3-letter
                # capitals are names as often ("wife KIM", "JOE"), measured: dropping them cost 1.3 points of BTC
            if ent.label_ in ("PERSON", "PER") and not _common_word_alone(ent, vocabulary) and not _short_acronym(ent) \
                    and not _country_alone(ent) \
                    or ent.label_ in _OTHER_LABELS and not _country_alone(ent) \
                    and (_in_person_slot(text, s, e) or _unknown_name(ent, vocabulary)
                                                        and not _place_in_place(ent, text)
                                                        and not _known_place(ent)) \
                    or ent.label_ in ("DATE", "TIME", "EVENT") and _given_and_surname(ent):  # "Ashley Day" DATE
                ner += _dash_parts(text, s, e, vocabulary)
            elif ent.label_ in _OTHER_LABELS and (tail := _unknown_tail(ent, vocabulary)):
                ner.append(tail)  # "Frenchman Thibault Ravoire" ORG: the name after a demonym or a role
    ner += unknown_words(doc, vocabulary, lower=cased_doc is not None, shouted=shouted)
    if cased_doc is None:
        # in normally cased text a lower-case PERSON of the trained model stands (it learnt lower-case names
        # from real text: "seen by dr smith"); any other lower-case candidate is a word misread ("anna")
        lower_people = [run for ent in doc.ents if ent.label_ == "PERSON"
                        and ent.text[:1].islower() and "\n" not in ent.text and not _DIGIT.search(ent.text)
                        and not all(t.is_stop for t in ent)
                        for run in _name_word_runs(text, ent.start_char, ent.end_char, vocabulary)]
        ner = [_without_lower_lead(text, s, e) for s, e in ner]
        ner = [span for s, e in ner if text[s:s + 1].isupper()
               for span in [_name_after_cue_word(text, s, e, _capitalised_prefix(text, s, e))] if span] + lower_people
        # one word the text also writes in lower case is a common noun ("less than bananas. Bananas cost")
        if ner:
            lower = {w for w in _WORD.findall(text) if w.islower()}
            model_people = {(ent.start_char, ent.end_char) for ent in doc.ents if ent.label_ == "PERSON"}
            ner = [(s, e) for s, e in ner if " " in text[s:e].strip() or text[s:e].strip().lower() not in lower
                   or text[s:s + 1].islower() and _lower_person_stands(text, s, e, vocabulary)
                   or (in_name_lists(text[s:e].strip()) or (s, e) in model_people and _inside_sentence(text, s)
                       and _CAPITALISED_NAME.fullmatch(text[s:e].strip()))
                   and not in_vocabulary(text[s:e].strip(), vocabulary)]
            # (... nor a name that no dictionary holds, of the lists, or one the model calls a person inside a
            # sentence, where a capital is no sentence's: "Ashok ... good luck ashok", "took meds with Marites" ...
            # "marites / care asst"; not "Rm 4: ..." ... "in rm 7", "Trop repeat" ... "trop sent", nor a note's
            # abbreviation of three letters or no vowel: "(Rm 4)", "Tmrw")
    ner += lower_given_names(doc, vocabulary) + hyphenated_given_names(text)
    if cased_doc is None:
        ner += lone_given_names(doc, vocabulary) + listed_full_names(text, vocabulary)
    if ner and (short_forms := _organisation_short_forms(doc, SpanIndex(ner))):
        ner = [(s, e) for s, e in ner if text[s:e].strip() not in short_forms]
    things = thing_parts(text) if ner else []
    # (a numbered label, "Milepost 1:", is no name for the structural finds below either)
    labels = numbered_labels(text) if ner else []
    no_names = labels + no_name_parts(text, vocabulary) + things + title_and_dish_parts(text) if ner else []
    ner = [(s, e) for s, e in ner if not _PLACE_BEFORE.search(text[max(0, s - 30):s])
           and not any(a <= s and e <= b for a, b in no_names) and not _in_a_place(text, s, e)
           and not _named_place(text, s, e)
           and not re.match(r"(?:Mount|Mt\.?|Lake|River|Cape|Fort|Port|Saint|St\.|(?i:hurricane|typhoon|cyclone|"
                            r"tropical[ \t]+storm))[ \t]", text[s:e]) and not _storm(text[s:e])]
    # the rules below key on capitals: in a text written without them they read the capitalised copy
    # (same length, so every span holds for the text itself)
    view = (capitalised_copy(text) or text) if cased_doc is not None else text
    weak = weak_cue_names(view, vocabulary)
    if cased_doc is not None:  # in a capitalised copy every word stands where a vocative would: "was Married Twice,"
        weak = [(s, e) for s, e in weak if _holds_name_word(view[s:e], vocabulary)]
    ner = [_over_wrap(view, *_grown(view, s, e), vocabulary) for s, e in ner + weak if text[s:e].strip()]
    # a place cue before the completed span too ("Near Ayn" + "Qaslan", found word by word)
    ner = [(s, e) for s, e in ner if not _PLACE_BEFORE.search(text[max(0, s - 30):s])]
    titled = [complete(view, s, e) for s, e in title_names(view)] if cased_doc is None else [
        # in lower case the name after a title grew over the whole sentence ("nurse paged dr okonkwo about the
        # pump"): it starts after the title, and ends before a function word
        span for s, e in title_names(view) for span in [_without_function_words(text, s, complete(view, s, e)[1])]
        if span]
    cued = [complete(view, s, e) if text[s:s + 1].isupper() else (s, e) for s, e in cue_names(text)]
    # where a name stands in letters, headers and notes (pii_name_rules' table): never exempted, like a cue
    ruled, letters = rule_names(
        text, lambda w: w.lower() in NAME_STOPS or w.lower() in STOP_WORDS or in_vocabulary(w, vocabulary))
    cued += [after_office(text, s, e) for s, e in ruled]
    # whatever found it, a span an institution's or a street's word closes is a place or a body ("Gopal Reddy Layout",
    # "Samarth Ashram School", "M.G.Road"), however it grew; its words then spread as no name's
    ner, titled, cued = ([span for span in spans if not _institution(view, *span)] for spans in (ner, titled, cued))
    people = [(ent.start_char, ent.end_char) for ent in doc.ents if ent.label_ == "PERSON" and len(ent) >= 2]
    # sure: the part of a candidate that the model called a person, not the neighbours it grew over
    sure = _intersections(ner, people) + titled + cued
    # (a found name's words repeat as the name, but not inside what the text says is a place, a body or a work:
    # "Mangal" of "Mangal Shobhajatra, an annual procession"; a side's or a heading's words may be a person's)
    ner += [_over_wrap(view, s, e, vocabulary) for s, e in
            structural_names(view, contact_details, ner + titled + cued, vocabulary, sure)
            if not any(a <= s and e <= b for a, b in things)]
    if cased_doc is not None:
        ner = [span for s, e in ner for span in [_without_function_words(text, s, e)] if span]
    if ner and langid is not None:
        cased_people = [(ent.start_char, ent.end_char) for ent in (cased_doc.ents if cased_doc is not None else ())
                        if ent.label_ == "PERSON" and len(ent) >= 2]
        foreign = non_english_ranges(text, langid, people + cased_people)
        # (a bout's result line stands in any language: "Konishimaru (yokozuna) beat Takatoriyama (komusubi)")
        bouts = SpanIndex([m.span(g) for m in _RESULT.finditer(view) for g in (1, 2)]) if foreign else None
        # ... and there a name of the given-name lists that no English dictionary holds stands too ("Adjuntos los
        # horarios de Cristina y Beatriz" in an English thread)
        ner = [(s, e) for s, e in ner if not any(a <= s and e <= b for a, b in foreign) or bouts.overlaps(s, e)]
        ner += [span for a, b in foreign for span in _listed_given_names(text, a, b, vocabulary)]
    # ... and a drug before its dose, drip or route ("Lopressor 25mg PO", "Fentanyl gtt", "Zosyn IV") is no person
    ner = [(s, e) for s, e in ner if not _note_phrase(text[s:e], vocabulary)
           and not (" " not in text[s:e].strip() and _DOSE_AFTER.match(text, e)) and not eponym_device(text, s, e)
           and not eponym_concept(text, s, e)
           and not _lower_compound(text, s, e)]
    if labels:  # (the backstops and the structure read those labels too: "Milepost 1:" ... "Milepost 2:")
        ner = [(s, e) for s, e in ner if not any(a <= s and e <= b for a, b in labels)]
    return NameCandidates(_clean(text, ner), _clean(text, titled, titled=True),
                          _clean(text, cued, cued=True, letters=letters))


_DOSE_AFTER = re.compile(r"(?i)[ \t]*\d+(?:\.\d+)?[ \t]*(?:mg|mcg|µg|gm?|ml|cc|units?|u|meq|mmol|%|l/min)(?![a-z])|"
                         r"[ \t]+(?:(?i:gtt|drip|infusion|po|sq|prn|q\d{1,2}h|qhs)|SC|IVPB?)\b")  # not IV, IM, PR: "Henry IV"


_DEVICE_BEFORE = re.compile(r"(?i)(?:\b(?:a|the|new|indwelling|pt['’]s|his|her|\d+[ \t]*fr(?:ench)?)|\d)[ \t]*\Z")
_NEXT_WORD = re.compile(r"[ \t]+([\w/']+)")


def _lower_compound(text: str, s: int, e: int) -> bool:
    """A lower-case word glued by a hyphen to another lower-case word: a compound ("rose-tint", "mark-up"),
    no name (a hyphenated name is one span: "anne-marie")."""
    return text[s:e].islower() and (re.match(r"-[a-z]", text[e:e + 2]) is not None
                                     or re.search(r"[a-z]-\Z", text[max(0, s - 2):s]) is not None)


def eponym_device(text: str, s: int, e: int) -> bool:
    """A device named after its inventor, as notes name it ("Foley draining", "the Foley", "16 Fr Foley"): its
    name is a surname too, so only where a device word follows or an article, possessive or size stands before
    ("Dr Foley" is a titled name, found apart; "Foley said" stays a name)."""
    glued = re.search(r"[^\W\d_]+-\Z", text[max(0, s - 20):s])  # "Swan-" of "Swan-Ganz", split by the tokenizer
    if glued:
        s -= len(glued.group(0))
    words = text[s:e].lower().split()
    if not words or words[-1] not in EPONYM_DEVICES or any(w not in ("fr", "fr.", "french") for w in words[:-1]):
        return False  # the device's name, perhaps after its size ("Fr Foley" of "16 Fr Foley")
    s = e - len(words[-1])
    nxt = _NEXT_WORD.match(text, e)
    return bool(nxt and nxt.group(1).lower() in DEVICE_WORDS) or bool(_DEVICE_BEFORE.search(text, max(0, s - 20), s))


# A result of science named after the one who found it ("the Drake equation", "Fermat's theorem", "the Calabi
# conjecture"): a public name of the field, no private person's. Not a law, a rule, a test or a disease: "Anna's rule
# is", "Okafor's disease progressed" are a person's
_CONCEPT_AFTER = re.compile(r"(['’]s)?[ \t]+(?:equations?|theorems?|conjectures?|lemmas?|constants?|paradox|"
                            r"hypothesis|inequality|transforms?|algorithms?)\b")
_ARTICLE_JUST_BEFORE = re.compile(r"(?i)\b(?:the|a|an)[ \t]+\Z")


def eponym_concept(text: str, s: int, e: int) -> bool:
    """The span names a result of science (`_CONCEPT_AFTER`): after "the" ("the Drake equation"), or as its
    possessor when it is no given name of the lists ("Fermat's theorem"; "Anna's hypothesis" is a person's)."""
    after = _CONCEPT_AFTER.match(text, e)
    if not after:
        return False
    if after.group(1):
        return text[s:e].split()[0] not in given_names()
    return bool(_ARTICLE_JUST_BEFORE.search(text, max(0, s - 6), s))


def _note_phrase(span: str, vocabulary: frozenset[str]) -> bool:
    """A note's shorthand with dictionary words or short capitals around it ("abd soft", "Bilat LE edema"),
    which the NER and the dictionary rule read as names: no word of it could be one."""
    words = re.findall(r"[^\W\d_][\w'’/]*", span)
    if any(w[:1].isupper() and w[1:].islower() and w.lower() in NOTE_SHORTHAND and w in given_names(ENGLISH_LOCALES)
           for w in words):
        return False  # a given name written as one, though a note's letters spell it ("Lucy-Mae": "MAE")
    return any(w.lower() in NOTE_SHORTHAND for w in words) and all(
        w.lower() in NOTE_SHORTHAND or in_vocabulary(w, vocabulary) or w.isupper() and len(w) <= 3 for w in words)


def warm_word_lists() -> None:
    """Read the cached word lists the finders load on first use."""
    given_names(), given_names(ENGLISH_LOCALES), given_names(SIGNATURE_LOCALES), _lower_given(), country_names()
    surnames(), place_names()


@lru_cache(maxsize=1)
def _lower_given() -> frozenset[str]:
    # every language's names ("gaby", "gunther" in an English message): in a passage of another language, where
    # its names are words ("einer", "del"), only titled names are kept (find_names' language check)
    return frozenset(w for n in given_names() if n.isalpha() and len(n) >= 4
                     for w in [n.lower()] if w not in LOWER_CASE_WORDS)


_CODE_NEIGHBOUR = frozenset("#@_./\\=(:<>[{$")


_HYPHENATED_GIVEN = re.compile(r"(?<![\w'’\-])([A-Za-z][a-z]{0,5})-([a-z]{1,5})(?![\w'’\-])")


_DOUBLE_GIVEN = re.compile(r"(?<![\w'’\-])([A-Z][a-z]+)-([A-Z][a-z]+)(?![\w'’\-])")


def hyphenated_given_names(text: str) -> list[tuple[int, int]]:
    """East Asian given names written with a hyphen, two different syllables of GIVEN_NAME_SYLLABLES ("Sung-min",
    "joon-ho", "Ka-fai"), in any case: a word of two such syllables is no English compound; and a double given
    name, both parts given names of the English lists ("Lily-Mae", "Lucy-Mae", "Anne-Marie"; not "Mercedes-Benz",
    "Lloyd-Evans"), which the model reads as two words or as an organisation."""
    if "-" not in text:
        return []
    english = given_names(ENGLISH_LOCALES)
    return [m.span() for m in _HYPHENATED_GIVEN.finditer(text) if m.group(1).lower() != m.group(2)
            and m.group(1).lower() in GIVEN_NAME_SYLLABLES and m.group(2) in GIVEN_NAME_SYLLABLES] + [
        m.span() for m in _DOUBLE_GIVEN.finditer(text) if m.group(1) in english and m.group(2) in english]


def lower_given_names(doc, vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """Given names written in lower case ("that moment when casey has", "when does lana get back"): a known
    given name of 4+ letters that no English dictionary holds (not "will", "rose", "mark") and that is no
    part of code, a handle, a hashtag or an address (one the dictionary holds after a verb that takes a person
    is pii_rules_chat's _reached_names)."""
    if not vocabulary:
        return []
    names, text, out = _lower_given(), doc.text, []
    for m in _LOWER_WORD.finditer(text):  # a scan of the text: iterating spaCy's tokens cost 0.1 ms a prompt
        w = m.group(0)
        if w not in names or w in STOP_WORDS or in_vocabulary(w, vocabulary):
            continue
        s, e = m.span()
        after = text[e:e + 1]
        bracketed = text[s - 2:s] in (" (", "\t(") and after == ")"  # "daughter in atlanta (keisha) not answering"
        if not bracketed and (text[s - 1:s] in _CODE_NEIGHBOUR or after and after in _CODE_NEIGHBOUR and not (
                after == "." and not text[e + 1:e + 2].strip())):  # "not ronaldo." ends a sentence; "lana.py" is code
            continue
        out.append((s, e))
    return out


# A given name and a surname of the English lists, both maybe words too ("- Grant Young's group is asking", "Hope
# Baker called"): such a pair is a person's name wherever it stands, unless a place or a body's word follows
_GIVEN_SURNAME = re.compile(rf"{WORD_START}([A-Z][a-z]+)[ \t]+([A-Z][a-z]+(?:-[A-Z][a-z]+)?)(?:['’]s)?(?![\w\-])(?![ \t]+[A-Z])")
_NOT_A_SURNAME_HERE = frozenset("""church chapel street lane road park hill hall house court gate field fields green wood
woods ford bridge cross square garden gardens place row way mill mills ridge grove heath moor bank banks""".split())


def listed_full_names(text: str, vocabulary: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """A given name of the English lists and a surname of the lists or a word no dictionary (`vocabulary`) holds
    (_GIVEN_SURNAME; "Alan Leung"), neither a month, a weekday, a place or a country, the surname no place's or
    institution's word ("Grace Church", "Rose Hill"), not after an article or a place's first word ("the Saint
    Thomas Christian families")."""
    out = []
    for m in _GIVEN_SURNAME.finditer(text):
        first, last = m.group(1), m.group(2)
        # (a word no dictionary holds only of 4+ letters, not an abbreviation, and not where a place stands:
        # "Via Christi St. Francis", "won at Roland Garros")
        surname = last in surnames() or bool(vocabulary) and len(last) >= 4 and not in_vocabulary(last, vocabulary) \
            and text[m.end(2):m.end(2) + 1] != "." and not _AT_A_PLACE.search(text, max(0, m.start() - 6), m.start())
        # (a given name of another country's lists too, where no dictionary holds it and the surname is a listed
        # one, a town's name though the given name be: "Ravi Shenoy", "Lukas Hoffmann")
        other = bool(vocabulary) and first in given_names() and not in_vocabulary(first, vocabulary) \
            and last in surnames(GIVEN_NAME_LOCALES) and first.lower() not in STOP_WORDS
        if first not in given_names(ENGLISH_LOCALES) and not other or not (surname or other) \
                or first.lower() in MONTHS or first.lower() in WEEKDAYS or last.lower() in _NOT_A_SURNAME_HERE \
                or first in place_names() and not other \
                or last in place_names() or first in country_names() or last in country_names() \
                or _ARTICLE_BEFORE.search(text, max(0, m.start() - 8), m.start()):
            continue
        out.append((m.start(1), m.end(2)))
    return out


_ARTICLE_BEFORE = re.compile(r"(?i)\b(?:the|a|an|saint|st\.?|san|santa|fort|mount|mt\.?|lake|port|cape)[ \t]+\Z")
_AT_A_PLACE = re.compile(r"(?i)\b(?:at|in|into|near|from|to|on)[ \t]+\Z")


_LOWER_WORD = re.compile(r"(?<![^\W\d_])[a-z]{4,}(?![^\W\d_])")
_LONE_CAPITAL = re.compile(r"(?<![\w'’\-.@#/])[A-Z][a-z]+(?![\w\-@/])")
# a word that the NER put in an entity of another kind is that kind's ("to Jordan" GPE, "Hunter College" ORG)
_NOT_PERSON_ENTITY = frozenset("GPE LOC FAC ORG NORP PRODUCT WORK_OF_ART EVENT DATE TIME LAW LANGUAGE".split())


def lone_given_names(doc, vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """An English given name that is also a dictionary word ("Grant", "Hope", "Bill"), capitalised alone
    inside a sentence of ordinary case and in no entity of another kind ("Per my talk with Grant, ...",
    "his wife Hope"): there the capital makes it a name; so does a surname of the lists that is a word
    ("Green", "Hill") where a person stands, after "with", "to", "told" and the like and before the clause
    ends. Words no dictionary holds the backstop finds already; a months' or places' name ("May", "Georgia")
    and a word opening a sentence or a run of capitals stay."""
    text, names, family, out = doc.text, given_names(ENGLISH_LOCALES), surnames(), []
    starts = None
    for m in _LONE_CAPITAL.finditer(text):
        w = m.group(0)
        s, e = m.span()
        before = text[max(0, s - 80):s].rstrip(" \t")  # a window: the patterns below look at its end only
        if w == "Will" and (_PERSON_BEFORE.search(before) and not _CAPITALISED_AFTER.match(text, e)
                            or (_NO_MODAL_AFTER.match(text, e) or _inflected_verb_after(text, e, vocabulary))
                            and not _DOCUMENT_BEFORE.search(before)):  # "The Will is", "his last Will was"
            out.append((s, e))  # a modal takes no object, partner or verb: "tell Will the", "Will and I", "Will is out",
            continue  # "Will disagrees", "Will called"
        if w not in names and w not in family or not in_vocabulary(w, vocabulary) or w.lower() in MONTHS \
                or w.lower() in STOP_WORDS or w in country_names() or w in place_names() or w.lower() in NAME_STOPS:
            continue
        cued = w not in names
        if cued and not (_PERSON_BEFORE.search(before) and _CLAUSE_END_AFTER.match(text, e)):
            continue  # a surname that is a word only where a person stands: "left the premises with Green."
        if not before or before[-1] in ".!?:;\n\"“”'‘(-–—•*>|&" \
                or _capitalised_before(text, s, before) and not _PERSON_BEFORE.search(before) \
                or _CAPITALISED_AFTER.match(text, e) or _DETERMINER_BEFORE.search(before):
            continue  # a sentence's first word; "Research Grant", "Grant Park": a run of capitals is a proper
            # noun (not after a sentence's "Per", "Thanks"); "the Lewis structure", "Stones of Florence": after an
            # article a thing, after "in", "of" a place
        if starts is None:
            starts = {t.idx: t for t in doc}
        tok = starts.get(s)
        if tok is not None and tok.ent_type_ in _NOT_PERSON_ENTITY and not (cued and tok.ent_type_ == "PRODUCT") \
                and not (not cued and tok.ent_type_ == "ORG" and tok.ent_iob_ == "B" and _PERSON_BEFORE.search(before)
                         and (tok.i + 1 == len(doc) or doc[tok.i + 1].ent_iob_ != "I")):
            continue  # where a person stands the NER's "product" is a misread surname ("with Green" PRODUCT), its
            # one-word "organisation" a misread given name ("Per Carol's note" ORG)
        out.append((s, e))
    return out


_PERSON_BEFORE = re.compile(r"(?i)(?<![\w'’\-])(?:with|to|told|asked|ask|tell|by|from|against|beat|beats|cc|thank|"
                            r"thanks|call|called|email|emailed|per|and|or)\Z")
_CLAUSE_END_AFTER = re.compile(r"['’]s\b|[ \t]*(?:[,.;:!?)]|$|[ \t](?:and|or|about|on|who|that|if|to|for)\b)",
                               re.MULTILINE)
_DETERMINER_BEFORE = re.compile(r"(?i)(?<![\w'’\-])(?:the|a|an|this|that|these|those|each|every|its|our|your|their|"
                                r"in|of|at|near)\Z")
# what no modal "will" stands before: a partner ("and I"), a verb, a negation, a possessive ("Will's account")
_NO_MODAL_AFTER = re.compile(r"[ \t]+(?:(?:and|&)[ \t]+(?:I|me)|is|was|has|had|(?:is|was|has|had|does|did)n['’]t)\b|"
                             r"['’]s[ \t]+(?:out|off|in|back|on|not|[a-z]+|[A-Z]{2,})\b")  # ("Will's BM submissions")
# ... and before a will as a document: an article, a possessive or "said", "last", "new" ("that Will had been" is
# the person: "that" opens the clause)
_DOCUMENT_BEFORE = re.compile(r"(?i)(?<![\w'’\-])(?:the|a|an|this|these|those|each|every|its|our|your|their|his|her|"
                              r"my|in|of|at|near|said|last|new|original|valid|written)\Z")
_INFLECTED_AFTER = re.compile(r"[ \t]+([a-z]{3,}(?:s|ed))\b([^.!?\n]*)([.!?\n]|\Z)")


def _inflected_verb_after(text: str, e: int, vocabulary: frozenset[str]) -> bool:
    """A verb's third person or past form after the word ending at `e`, in a sentence that asks nothing: no
    modal stands before one ("Will disagrees, wants to wait", "Will called"; "Will prices rise?" asks)."""
    m = _INFLECTED_AFTER.match(text, e)
    if not m or m.group(3) == "?" or m.group(1) in STOP_WORDS:
        return False
    w = m.group(1)
    stems = (w[:-1], w[:-2]) if w.endswith("s") else (w[:-2], w[:-1])  # "wants", "disagrees"; "called", "used"
    return any(len(x) >= 3 and x in vocabulary for x in stems)


_CAPITALISED_BEFORE = re.compile(rf"(?<![\w'’\-]){_CAP}\Z")
_CAPITALISED_AFTER = re.compile(rf"[ \t]+{_CAP}")


def _capitalised_before(text: str, s: int, before: str) -> bool:
    """A capitalised word right before `s` (`before` the window ending there, stripped), so that the word at `s`
    is in a run of capitals ("Research Grant"); a function word opening the sentence is none ("If Grant keyed
    it", "When Hope calls")."""
    m = _CAPITALISED_BEFORE.search(before)
    return bool(m) and not (m.group(0).lower() in STOP_WORDS
                            and _is_sentence_start(text, text.rfind(m.group(0), 0, s)))


def _never_a_name(span: str, titled: bool = False, cued: bool = False) -> bool:
    """Words that are never a name alone ("lol", "Secretary", "Pt"); after a title or a rule's cue, a surname of the
    lists that is one of them is a name ("Dr. King", "Ms Judge", "dr. king"); where a rule's cue stands, a
    capitalised note's word is one
    ("lbw b Swan": a "swan" in a note is its catheter)."""
    words = re.findall(r"[^\W\d_][\w'’]*", span)
    if (titled or cued) and words and all(w.capitalize() in surnames() or w in SHORT_SURNAMES for w in words):
        return False  # ... and a short one that is an interjection too ("Rev. Oh")
    if len(words) == 1 and len(words[0]) >= 4 and words[0].lower() in CARE_ROLES \
            and words[0].capitalize() not in surnames():
        return True  # a care team's role alone ("(Carer: Joy)", "Physio: mobilised"; "Porter" is a surname too)
    return bool(words) and all(NEVER_A_NAME.match(w) or w.lower() in KNOWN_PRODUCTS or w.lower() in NOTE_SHORTHAND
                               and not (cued and w[:1].isupper() and w[1:].islower()) for w in words)


def _clean(text: str, spans: list[tuple[int, int]], titled: bool = False,
           cued: bool = False, letters: set[tuple[int, int]] = frozenset()) -> list[tuple[int, int]]:
    """Merged spans without a weekday alone (a date the NER misread: "police said Sunday"), initials only
    ("the father of B. B is": letters) unless a title or a role stands before them ("Mrs K.", "investigator
    S.", as judgments name parties), a verb after a lone one ("G. told"), it signs a message off or a rule found
    it where initials stand for a person ("K (aged 7)", "B O A .... APPELLANT": pii_rules_court.INITIALS_STAND_AFTER),
    or words
    that are never a name; the `letters` a rule found standing for a person ("the mother as M") are kept."""
    return [(s, e) for s, e in union_spans(spans) if not _WEEKDAY.fullmatch(text[s:e])
            and not (_INITIALS_ONLY.fullmatch(text[s:e]) and not _INITIAL_CUE_BEFORE.search(text[max(0, s - 60):s])
                     and not _INITIAL_VERB_AFTER.match(text, e) and not _signs_off(text, s, e)
                     and not (cued and INITIALS_STAND_AFTER.match(text, e)))
            and not _never_a_name(text[s:e], titled, cued) and not _PRONOUN_CONTRACTION.fullmatch(text[s:e])
            and (_PLAIN_WORD.search(text[s:e]) or _INITIAL_CUE_BEFORE.search(text[max(0, s - 60):s])
                 or _INITIAL_VERB_AFTER.match(text, e) or _signs_off(text, s, e)
                 or cued and INITIALS_STAND_AFTER.match(text, e)) or (s, e) in letters]


def _signs_off(text: str, s: int, e: int) -> bool:
    """One letter that ends a message, alone on its line or after a dash or a closing's comma: its writer's
    initial ("Call me when you land.\nD", "call me if questions.  -d", "thx, s"), at the text's end or above the
    next message of a thread (pii_rules_mail.message_ends)."""
    if e - s != 1 or not _SIGN_OFF_BEFORE.search(text[max(0, s - 20):s]):
        return False
    if not text[e:].strip(" \t\n."):
        return True
    return "\n" in text[e:] and any(0 <= end - e <= 2 for end in message_ends(text))


# what stands before a one-letter signature: a line break (maybe a dash after it), or a dash or a closing's comma
# after the last sentence ("...questions.  -d", "thx, s"), or the last sentence itself ("Thanks.  O.")
_SIGN_OFF_BEFORE = re.compile(r"\n[ \t]*(?:[-–~]{1,2}[ \t]*)?\Z|(?:[.!?,]|\A)[ \t]*[-–~]{1,2}[ \t]*\Z|[.!?][ \t]{1,3}\Z|"
                              rf"(?i:\b(?:{SHORT_CLOSINGS}))[ \t]*,[ \t]*\Z")


# a name holds at least one word of letters only: "A&O x3", "wean O2" are a note's shorthand
_DIGIT = re.compile(r"\d")
_PLAIN_WORD = re.compile(rf"(?<![^\W_])(?<!&)[^\W\d_]{{2,}}(?![^\W_])(?!&)|(?:{UPPER}\.[ \t]?){{2,}}")  # or dotted initials
# ("J.P."); an underscore parts words as a space does ("pasha_ural", a blogger's pseudonym)


_PRONOUN_CONTRACTION = re.compile(r"(?i)(?:i|you|he|she|we|they|it|that|there)['’](?:m|d|ll|ve|re|s)")


# a title, a role or a kin word before an initial, or the words a judgment names people by letters with, then maybe
# more initials of the same role ("officers B. and " before "D.", "referred to in these proceedings as T and " before K)
_INITIAL_CUE_BEFORE = re.compile(rf"(?:\b{TITLES}\.?|(?i:\b(?:{INITIAL_ROLES})s?),?|{REFERRED_AS})[ \t]+"
                                 rf"(?:{UPPER}\.?,?[ \t]+(?:(?:and|&)[ \t]+)?)*\Z")


# ... or a verb after a lone initial, saying what the person it stands for did ("G. told the police")
_INITIAL_VERB_AFTER = re.compile(rf"[ \t]+(?:{INITIAL_ACTOR_VERBS})\b")


def without_cued(text: str, ner: list[tuple[int, int]], cue: re.Pattern) -> list[tuple[int, int]]:
    """`ner` without the names `cue` stands right before (within 40 characters) and every repeat of them or
    of their words."""
    kept = {text[s:e] for s, e in ner if cue.search(text[max(0, s - 40):s])}
    words = {w for name in kept for w in name.split()}
    return [(s, e) for s, e in ner if text[s:e] not in kept and not set(text[s:e].split()) <= words]




_IRREGULAR_PLURALS = frozenset("women men people children police folks".split())
_KIN_NOUNS = frozenset("""daughter son wife husband mom mum dad mother father sister brother baby kid kids boyfriend
girlfriend bf gf family friend house car dog cat""".split())


def _plural_noun(word: str, vocabulary: frozenset[str]) -> bool:
    """The plural of a dictionary noun that is no English surname or given name ("Founders", "Muscles",
    "Women"; not "Banks", "Woods", "Adams")."""
    w = word.lower()
    name = word.capitalize() if word.isupper() else word  # "DOLORES" as "Dolores"
    if name in surnames() or name in given_names():  # any list's given name: "Dolores" is no plural of "dolor"
        return False
    return w in _IRREGULAR_PLURALS or len(w) > 4 and w.endswith("s") and not w.endswith("ss") and (
        in_vocabulary(w[:-1], vocabulary) or w.endswith("es") and in_vocabulary(w[:-2], vocabulary))


def _lower_person_stands(text: str, s: int, e: int, vocabulary: frozenset[str]) -> bool:
    """Whether a lower-case one-word PERSON of the model in a normally cased text is taken, though the text writes
    it in lower case (as it does, being one): a given name of the lists, dictionary word or not, unless a copula or
    a word of degree or colour stands before it ("tell jordan", "thank you joy"; not "talks were frank", "clear
    amber"); or a word no dictionary holds, nor a note's shorthand, that is shaped like no inflected or derived word
    ("lebron started laughing"; not "the claret and blue", "remixed")."""
    word = text[s:e].strip()
    if word in NOTE_SHORTHAND or word in LOWER_CASE_WORDS or word in CARE_ROLES:
        return False  # a note's "mgmt"
    if word.capitalize() in given_names():
        before = _WORD_BEFORE.search(text, max(0, s - 40), s)
        return not (before and before.group(1).lower() in _QUALITY_BEFORE)  # "talks were frank", "clear amber"
    return not in_vocabulary(word, vocabulary) and 4 <= len(word) <= 20 and not _INFLECTED.search(word) \
        and not _WORD_SHAPED.search(word) and not _REPEATED.search(word) and _NAME_SHAPED.fullmatch(word) is not None


def _name_word_runs(text: str, s: int, e: int, vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """The parts of a lower-case PERSON the model found in a normally cased text that may be a name: the runs of
    words each a given name or surname of the lists, a name's particle, or a word no dictionary holds ("seen by
    dr smith", "chris tucker", "ishawna" of "ishawna tink"). A dictionary word of no name list is a phrase the
    model read into it ("think retinoid", "kindly asking", "married twice"). One word alone is judged later, as
    every lower-case word is (_lower_person_stands); an initial alone keeps the words the model read with it,
    as no later step would take it ("judge h. hates long briefs")."""
    words = list(_NAME_WORD.finditer(text[s:e]))
    if len(words) < 2:
        return [(s, e)]
    runs, start, end = [], None, None
    for m in words:
        word = m.group(0)
        if _may_be_name_word(word, vocabulary):
            start = s + m.start() if start is None else start
            end = s + m.end()
        elif start is not None:
            runs.append((start, end))
            start = None
    runs += [(start, end)] if start is not None else []
    return [(s, e)] if any(b - a == 1 for a, b in runs) else runs


def _may_be_name_word(word: str, vocabulary: frozenset[str]) -> bool:
    """A word that may be part of a name: a given name or surname of the lists ("della"), an initial or a short word
    (a particle: "de", "van"; and the lists miss many short given names that are also words: "wei", "raj"), or a
    word no dictionary holds ("smith", "b", "ngozi"; not "twice", "asking", "the")."""
    return word.lower() not in STOP_WORDS and (
        len(word) <= 3 or in_name_lists(word.capitalize()) or not in_vocabulary(word, vocabulary))


def _holds_name_word(span: str, vocabulary: frozenset[str]) -> bool:
    """Whether any word of `span` may be part of a name (_may_be_name_word): a phrase of dictionary words holds none
    ("Married Twice")."""
    return any(_may_be_name_word(w, vocabulary) for w in _NAME_WORD.findall(span))


_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_REPEATED = re.compile(r"(\w{1,3})\1\1")  # "lalala", "hahaha": a sound, no name
# a name's letters (a handle's too, "righthererachel"): a vowel, no run of five consonants ("svgttufqjnpd...")
_NAME_SHAPED = re.compile(r"(?i)(?=[a-z]*[aeiouy])(?![a-z]*[bcdfghjklmnpqrstvwxz]{5})[a-z]+")


_WORD_BEFORE = re.compile(r"([^\W\d_]+)[ \t]+\Z")
# words before an adjective or a colour, not a name: "were frank", "clear amber", "so earnest"
_QUALITY_BEFORE = frozenset("""is was were are be been being am seems seemed looks looked sounds sounded very so too
quite more most less rather fairly clear pale dark light bright deep""".split())


_INFLECTED = re.compile(r"(?i)(?:ed|ing|ies|ism|ity|tion|sion|ness|ment|phony|ally|ers)\Z")


def _storm(span: str) -> bool:
    """A storm by its name ("Storm Ciara", "storm Desmond"): "Storm" is a given name too, so only before one
    given name of the lists ("Storm Haldorsen from Treasury" is a person)."""
    words = span.split()
    return len(words) == 2 and words[0].lower() == "storm" and words[1] in given_names()


def _organisation_short_forms(doc, candidates: "SpanIndex") -> set[str]:
    """The first word of an organisation the model reads whole ("Atletico Madrid", "Aston Villa FC") and no
    name candidate overlaps: where the text writes that word alone it is the organisation's short form
    ("during Atletico's 2-1 win"), unless the model also reads the word inside a full person's name there
    ("Morgan Stanley" and "Dexter Morgan"). A firm the filter reads as people stays people ("officers Dlamini
    & Pereira"). Measured on the dev splits: no leak more, 36 fewer wrong redactions; the model's one-word
    ORG labels were tried too and refused (it labels "Amanda" and "Floyd" so: 7 more leaks)."""
    person_words = {t.text for e in doc.ents if e.label_ == "PERSON" and len(e) >= 2 for t in e}
    return {e[0].text for e in doc.ents if e.label_ == "ORG" and len(e) >= 2 and e[0].is_title
            and not candidates.overlaps(e.start_char, e.end_char)} - person_words


_INDEFINITE = frozenset({"a", "an", "another", "every", "each", "any"})


def _common_word_alone(ent, vocabulary: frozenset[str]) -> bool:
    """A one-word PERSON that is more likely a capitalised common word: a dictionary word opening its sentence
    or line, or after a field label, before an article, preposition or pronoun ("Embark on a journey",
    "Embrace the role"), or alone on its line (a list item), and written nowhere else in the text inside a
    longer entity (the "Smith" of an earlier "Anna Smith" stays a name); or two dictionary words of no name
    list around a comma, a list's items run together."""
    if len(ent) == 1 and _WORD_SHAPED.search(ent.text):
        return True  # "Hemodynamically stable", "Cholecystitis": no name ends so
    if len(ent) == 1 and ent.start and ent.doc[ent.start - 1].lower_ in _INDEFINITE and vocabulary \
            and in_vocabulary(ent.text, vocabulary) and not in_name_lists(ent.text) \
            and (ent.end == len(ent.doc) or ent.doc[ent.end].is_punct or ent.doc[ent.end].is_stop):
        return True  # a thing after an indefinite article ("a Microwave, a toaster"; not "a Kowalczyk", nor a
        # name as a noun's attribute: "a Trump supporter")
    if len(ent) == 3 and ent[1].text == "," and vocabulary and all(
            in_vocabulary(t.text, vocabulary) and not in_name_lists(t.text) for t in (ent[0], ent[2])):
        return True  # two items of a list of words the NER ran together ("tones include Formal, Assertive, ...")
    if len(ent) != 1 or not vocabulary or not in_vocabulary(ent.text, vocabulary):
        return False
    nxt = ent.doc[ent.end].lower_ if ent.end < len(ent.doc) else ""
    # "Women defy ...", "our Founders": a plural is nobody's name; before a kin word it is a possessive
    # written without its apostrophe ("Athenas daughter")
    if _plural_noun(ent.text, vocabulary) and nxt not in _KIN_NOUNS:
        return ent.text not in _words_of_longer_entities(ent.doc)
    text, s, e = _text_of(ent.doc), ent.start_char, ent.end_char
    line_start = text.rfind("\n", 0, s) + 1
    line_end = text.find("\n", e)
    line = text[line_start:len(text) if line_end < 0 else line_end]
    opening = _is_sentence_start(text, s) or re.search(r":[ \t]*\Z", text[line_start:s]) is not None
    alone = _LIST_MARK.sub("", line).strip(" \t.,;!?)]") == ent.text
    # opening a sentence, a word before an article, preposition or pronoun reads as a verb ("Embark on",
    # "Embrace the"); before a verb it is the subject and may well be a name ("Anna is", "Dexter lives")
    if not (alone or opening and nxt in AFTER_A_VERB):
        return False
    return ent.text not in _words_of_longer_entities(ent.doc)


def _text_of(doc) -> str:
    """The doc's text, kept on the doc: spaCy joins its tokens again at each `doc.text`, and the entity
    checks ask for it once per entity (a text with thousands of names must not cost their square)."""
    text = doc.user_data.get("eaglekit_text")
    if text is None:
        text = doc.user_data["eaglekit_text"] = doc.text
    return text


def _words_of_longer_entities(doc) -> frozenset[str]:
    """The words of the doc's entities of two or more tokens, kept on the doc (asked once per entity)."""
    words = doc.user_data.get("eaglekit_long_entity_words")
    if words is None:
        words = frozenset(w for other in doc.ents if len(other) > 1 for w in other.text.split())
        doc.user_data["eaglekit_long_entity_words"] = words
    return words


_IN_A_PLACE = re.compile(r"(?i)\b(?:at|near|across|throughout|outside|inside|within)[ \t]+\Z")


# (tokens as spaCy's tokenizer keeps them whole, in lower case only: "Via Rail" is a name's own word; "c/o", "s/p"
# and "re:" it splits into letters and marks, so they are not among them)
_SHORTHAND_LEAD = frozenset("w/ w/o per via re cc fyi".split())


def _without_shorthand_lead(ent):
    """The entity without a shorthand the NER ran into it ("w/ Ignacio", "per Anneliese"), as a Span of the same
    label (the entity itself when none opens it)."""
    k = 0
    while k < len(ent) - 1 and ent[k].text in _SHORTHAND_LEAD:
        k += 1
    return Span(ent.doc, ent.start + k, ent.end, label=ent.label) if k else ent


def _before_digits(ent):
    """The entity's words before its first word with a digit, as a Span (None when it opens with one); but after
    the codes of letters and digits it opens with, as a table's row runs a room or an account into the name
    ("EB30C1   Faisal Al-Harbi")."""
    if _CODE.fullmatch(ent[0].text):  # (asked of every PERSON: the first token first)
        lead = next((i for i, t in enumerate(ent) if not (_CODE.fullmatch(t.text) or t.is_space)), len(ent))
        if lead < len(ent):
            ent = Span(ent.doc, ent.start + lead, ent.end, label=ent.label)
    cut = next((i for i, t in enumerate(ent) if any(c.isdigit() for c in t.text)), None)
    if cut is None:
        return ent
    return Span(ent.doc, ent.start, ent.start + cut, label=ent.label) if cut else None


_CODE = re.compile(r"(?=[^\W_]*\d)(?=[^\W_]*[^\W\d_])[^\W_]{3,}")  # "EB30C1", "KB3321": letters and digits


def _shouted_words(ent, shouted: list[tuple[int, int]], vocabulary: frozenset[str]) -> bool:
    """A PERSON on a line written all in capitals whose every word is a dictionary word or a note's shorthand
    and none an English given name or surname ("SX FOR THICK TAN SPUTUM"): capitals tell the model nothing
    there; the unknown words of such a line are names by the dictionary rule, "SON BARTHOLOMEW" by the kin rule.
    So is a PERSON of two or more words in capitals in any line ("...in months... SEND A PIC!", "CAN I SPEAK TO A
    REAL PERSON"): on the train and dev splits 49 such spans were wrong, and each of the 6 right ones held a name
    of the lists or a word no dictionary holds ("ODELL BECKHAM JR")."""
    words = _LETTER_WORD.findall(ent.text)
    if not any(a <= ent.start_char < b for a, b in shouted) and not (len(words) >= 2 and ent.text.isupper()):
        return False
    if len(words) >= 3 and words[0].lower() in ("van", "von") and _PARTICLE_WORD.fullmatch(words[1].lower()):
        return False  # "PSV SIGN VAN DEN BOSCH": two particles open a Dutch or German surname, whatever its words
    return bool(words) and all(in_vocabulary(w, vocabulary) or w.lower() in NOTE_SHORTHAND for w in words) \
        and not any(w.capitalize() in given_names(ENGLISH_LOCALES) or w.capitalize() in surnames() for w in words)


def _without_shouted_tail(ent, end: int, vocabulary: frozenset[str]) -> int:
    """The end of a PERSON on a line in capitals without its last words that are dictionary words and nobody's
    name of the lists: the model runs a headline's verb into the name ("OKONJO SIGNS")."""
    for tok in reversed(ent[1:]):
        w = tok.text
        if tok.idx >= end or not w.isalpha():
            continue
        if not in_vocabulary(w, vocabulary) or in_name_lists(w.capitalize()):
            break
        end = tok.idx
    return ent.start_char + len(_text_of(ent.doc)[ent.start_char:end].rstrip()) if end > ent.start_char else end


def _common_words(span: str, vocabulary: frozenset[str]) -> bool:
    """Words that are all dictionary words, none a name of the lists: "SEND A PIC", or a capitalised copy's
    "Hours I Can", is no "Ravil G Yefimov" (a first name, an initial and a surname)."""
    words = _LETTER_WORD.findall(span)
    return bool(words) and all(in_vocabulary(w, vocabulary) for w in words) and not any(
        in_name_lists(w.capitalize()) for w in words)


def _place_not_name(word: str) -> bool:
    """A country's or a city's name (Faker's address lists) that is nobody's of the name lists."""
    return (word in country_names() or word in place_names()) and not in_name_lists(word)


def _country_alone(ent) -> bool:
    """An entity that is a country's name and nobody's of the lists ("China said on Monday", which the slot
    after it would make a person); "Jordan", "Chad", "Georgia" stay names."""
    return ent.text in country_names() and not in_name_lists(ent.text)


def _short_acronym(ent) -> bool:
    """One word of 2-4 capitals that no Faker name list holds, before a number or a code ("ISBN is 978-3...",
    "FIFA 23", "IBAN GB82..."): an acronym the NER, trained on names in capitals, reads as one. Elsewhere such
    a word stays a name: initials and nicknames in capitals are ("JD", "REMY"), and so are "KIM", "JOE"."""
    w = ent.text
    return len(ent) == 1 and 2 <= len(w) <= 4 and w.isupper() and w.isalpha() and \
        _CODE_AFTER.match(_text_of(ent.doc), ent.end_char) is not None and \
        not in_name_lists(w.capitalize())


_CODE_AFTER = re.compile(r"[ \t]*(?:(?:is|was|:|#|no\.?|number)[ \t]*)?[^\s\d]{0,4}\d")


def _known_place(ent) -> bool:
    """A place entity that Faker's address lists name ("San Francisco", "Haryana"): a place, not a person."""
    return ent.label_ in ("GPE", "LOC", "FAC") and re.sub(r"(?i)^the\s+", "", ent.text) in place_names()


def _place_in_place(ent, text: str) -> bool:
    """A place entity where a place stands ("High Court at Bengaluru", "near Rohtak"): the NER's label holds
    there, whatever the dictionary says. Not after "in": "set out in Moran and Pyle" cites a case (measured:
    "in" cost a leak on GUM's court transcripts, dev)."""
    return ent.label_ in ("GPE", "LOC", "FAC") and bool(_IN_A_PLACE.search(text[max(0, ent.start_char - 12):ent.start_char]))


def _in_person_slot(text: str, s: int, e: int) -> bool:
    """An organisation or place entity standing where a person stands ("Mrs. Ivy", "Chen said"); never one
    with an acronym ("CNN said"), an organisation or place word ("Staffordshire Police said") or "The"
    before it ("The Interior Ministry said"): in news those are sources, not people."""
    words = text[s:e].split()
    if not 1 <= len(words) <= 4 or not all(w[:1].isupper() for w in words):
        return False
    if any(_acronym(w.rstrip(".,")) or _NOT_A_NAME_WORD.match(w.rstrip(".,")) for w in words) \
            or re.search(r"(?i)\bthe[ \t]+\Z", text[max(0, s - 5):s]):
        return False
    return bool(_SLOT_BEFORE.search(text[max(0, s - 30):s]) or _SLOT_AFTER.match(text[e:e + 20]))



# Endings no name has, of words the dictionary lacks: adverbs ("Hemodynamically", "Unsurprisingly") and a
# note's terms for conditions, procedures and studies ("Cholecystitis", "Thoracotomy", "Hyponatremia")
_WORD_SHAPED = re.compile(r"(?i)(?:ically|ously|ively|fully|lessly|ingly|itis|ectomy|otomy|ostomy|emia|aemia|"
                          r"opathy|algia|plasty|oscopy|ography|ologist|ology)\Z")
# Words that make an entity an organisation, a place or a thing, whatever the rest of it is
_NOT_A_NAME_WORD = re.compile(
    r"(?i)^(?:inc|ltd|llc|plc|corp|co|gmbh|ag|sa|company|group|bank|university|college|institute|school|academy|"
    r"hospital|clinic|church|museum|club|association|society|foundation|party|council|committee|ministry|"
    r"department|agency|office|court|union|league|team|fc|records|police|administration|army|navy|force|forces|"
    r"patrol|guard|airport|station|online|daily|post|herald|tribune|radio|tv|channel|studios?|press|airlines?|airways|motors|"
    r"systems|technologies|tech|labs?|solutions|services|partners|holdings|capital|media|news|times|journal|"
    r"energy|petroleum|resources|utilities|industries|enterprises|ventures|logistics|pharmaceuticals|trading|"
    r"network|hotel|restaurant|cafe|café|bar|shop|store|market|park|street|road|avenue|square|bridge|river|lake|"
    r"mountains?|island|islands|valley|city|county|state|republic|kingdom|center|centre|international|"
    r"national|global|of|the|and|for|in|on|at|to|de|del|des|du|la|le|les|el|los|las|der|die|das|von|van)$")


@lru_cache(maxsize=4)  # per pipeline: the analyzer's address recognizer and the PII filter share one
def english_vocabulary(nlp) -> frozenset[str]:
    """The lower-case lemmas of WordNet's noun, verb, adjective and adverb index, as spaCy's English rule
    lemmatizer ships them (83k words; empty where the pipeline has no such lemmatizer). Common words and
    the famous proper names of WordNet ("earth", "britain", "socrates", "amazon") are in it; private
    persons' names ("tomomi", "guðmundsdóttir") are not."""
    try:
        lookups = nlp.get_pipe("lemmatizer").lookups
        table = lookups.get_table("lemma_index")
    except (KeyError, ValueError, AttributeError):
        return frozenset()
    words = {w for pos in table.keys() for w in table[pos] if isinstance(w, str)}
    # irregular forms ("told", "men", "better"), which no suffix rule of in_vocabulary takes back to a lemma
    if lookups.has_table("lemma_exc"):
        exc = lookups.get_table("lemma_exc")
        words |= {w for pos in ("noun", "verb", "adj", "adv") if pos in exc for w in exc[pos] if isinstance(w, str)}
    return frozenset(words)


def in_vocabulary(word: str, vocabulary: frozenset[str]) -> bool:
    """Whether the word, or its stem under English inflection (-s, -es, -ies, -ing, -ed, -ness, and the plurals
    spaCy's lemmatizer takes back by rule: "Women", "Wolves"), is in the vocabulary: WordNet's index holds
    lemmas only ("apply", not "Applying"). Not -er: "Walker" is a walk-er and a name."""
    w = word.lower()
    forms = {w}
    for suffix, repl in (("ies", "y"), ("es", ""), ("s", ""), ("ing", ""), ("ing", "e"), ("ied", "y"), ("ed", ""),
                         ("ed", "e"), ("iness", "y"), ("ness", ""), ("men", "man"), ("ves", "f"), ("ves", "fe")):
        if w.endswith(suffix) and len(w) - len(suffix) + len(repl) >= 3:  # "died" -> "die"
            stem = w[:-len(suffix)]
            forms.add(stem + repl)
            if repl == "" and suffix in ("ing", "ed") and len(stem) > 3 and stem[-1] == stem[-2]:  # "running"
                forms.add(stem[:-1])
    return any(f in vocabulary for f in forms)


def _given_and_surname(ent) -> bool:
    """Two or three capitalised words, the first a given name, none an acronym, a brand, an organisation or
    place word, a month or a possessive ("Valentine's Day"): "Ewan Richards", "Ashley Day"."""
    if any(t.text in ("'s", "’s") or t.is_digit for t in ent):
        return False
    words = [t.text for t in ent if not t.is_punct]
    return 2 <= len(words) <= 3 and words[0] in given_names() and words[0].lower() not in MONTHS and all(
        w[:1].isupper() and not _acronym(w.rstrip(".")) and not _DIGIT_OR_CAMEL.search(w)
        and not _NOT_A_NAME_WORD.match(w) and w.lower() not in KNOWN_PRODUCTS for w in words[1:])


def _unknown_name(ent, vocabulary: frozenset[str]) -> bool:
    """An entity the NER labelled an organisation or a place that reads as a person's name. The small and
    medium English NERs label many names of other languages so ("Tomomi is from ..." ORG, "Hedvig
    Arvidsson" ORG, "Mette" GPE): one to three capitalised words, none an acronym, a CamelCase brand, an
    organisation or place word, nor a word of the English dictionary (which holds common nouns and famous
    places and people: "Oranges", "Britain", "Amazon"). Without a dictionary nothing is taken."""
    if not vocabulary or ent.label_ == "WORK_OF_ART":
        return False
    if _given_and_surname(ent):
        return True  # a given name and a surname the dictionary may hold ("Ewan Richards" ORG, "Rose Walker" GPE)
    words = [t.text for t in ent if not t.is_punct and t.text not in ("'s", "’s") and not t.is_digit]
    # a particle inside the name is no word of the test ("Yves de Noirmont" ORG)
    words = [w for i, w in enumerate(words) if not (0 < i < len(words) - 1 and _PARTICLE_WORD.fullmatch(w))]
    return 1 <= len(words) <= 3 and all(_unknown_name_word(w, vocabulary) for w in words)


def _unknown_name_word(w: str, vocabulary: frozenset[str]) -> bool:
    """A capitalised word that could be a private person's name: no acronym, brand, organisation or place
    word, known product, nor a word of the English dictionary."""
    return w[:1].isupper() and not _acronym(w.rstrip(".")) and not _DIGIT_OR_CAMEL.search(w) \
        and not _NOT_A_NAME_WORD.match(w) and not in_vocabulary(w, vocabulary) and w.lower() not in KNOWN_PRODUCTS


# the words before a name that say who the person is: a demonym ("Frenchman", "Swedish"), a role ("champion"),
# or whatever follows "ex-" or "former" ("ex-Zombie": a former member)
_ROLE_OR_DEMONYM = re.compile(r"(?i)(?:\w+(?:man|woman|men|women|ian|ians|ish|ese|ean|i)|champion|"
                              r"teammate|compatriot|rival|veteran|rookie|newcomer|holder|runner-up|seed|"
                              + "|".join(sorted(OFFICE_WORDS)) + r")\Z")


_LABEL_BEFORE = re.compile(r"(?:[ \t][-–]|:)[ \t]*\Z")  # a field's label before its value: "Owner - ", "Owner: "


def _unknown_tail(ent, vocabulary: frozenset[str]) -> tuple[int, int] | None:
    """The last one to three words of an organisation or place entity when they would make an unknown name
    (`_unknown_name`'s test) and the words before them are dictionary words: a demonym or a role the NER ran
    into the name ("Frenchman Thibault Ravoire" ORG, "Swedish champion Ilse Vorn" ORG), or a person slot such as
    a verb that takes a person ("Call Anselma Quillfeather at ..." ORG)."""
    words = [t for t in ent if not t.is_punct]
    for i in range(max(1, len(words) - 3), len(words)):
        head, tail = words[:i], words[i:]
        # an initial ends no tail ("Frenchman J. Ravoire" keeps "J." out); a given name may open it ("PS - Mark Ng")
        if (all(not _acronym(t.text) and _unknown_name_word(t.text, vocabulary) for t in tail)
                or len(tail) == 2 and tail[0].text in given_names() and not _acronym(tail[1].text)
                and (_unknown_name_word(tail[1].text, vocabulary) or tail[1].text in SHORT_SURNAMES)) and (all(
                _ROLE_OR_DEMONYM.match(t.text) and in_vocabulary(t.text, vocabulary) or t.lower_ in ("ex", "former")
                or j and head[j - 1].lower_ in ("ex", "former") for j, t in enumerate(head))
                or tail[0].text in given_names() and all(t.text.islower() for t in head)  # a role in another
                # language, lower case: "directeur sportif Walter Verbeke" ORG
                or _SLOT_BEFORE.search(_text_of(ent.doc)[ent.start_char:tail[0].idx])  # "Call Anselma Quillfeather" ORG
                or _LABEL_BEFORE.search(_text_of(ent.doc)[ent.start_char:tail[0].idx])
                and all(in_vocabulary(t.text, vocabulary) or _acronym(t.text) for t in head)):
            # "Owner - Sunniva Haugland" ORG, "FYI - Greenspan cut" ORG
            return tail[0].idx, tail[-1].idx + len(tail[-1].text)
    return None


_NUMERIC_LABELS = {"DATE", "TIME", "CARDINAL", "ORDINAL", "MONEY", "PERCENT", "QUANTITY"}
# constant patterns compiled once: the per-text patterns above would push them out of re's cache
_WORD = re.compile(r"[^\W\d_][\w'’\-]*")
_INITIALS_ONLY = re.compile(rf"{UPPER}\.?(?:[ \t]+{UPPER}\.?)*")
_DIGIT_OR_CAMEL = re.compile(r"\d|[a-z][A-Z]")
# ... but a surname's prefix is written so too ("MacAllister", "McAllister", "DiMaggio", "LaToya", "FitzGerald")
_CAMEL_SURNAME = re.compile(r"(?:Mc|Mac|Fitz|De|Di|Da|Du|La|Le|Van|Von)(?:[A-Z][a-z]{2,}|[A-Z]{3,})")  # "MacDONALD" in a note's header
_NOT_WORDLIKE = re.compile(r"[^\w'’\-]")
_DRAWN_OUT = re.compile(r"([^\W\d_])\1\1+")


def _drawn_out_word(word: str, vocabulary: frozenset[str]) -> bool:
    """A dictionary word with a letter drawn out, as chat writes it ("ROOOOAAADDD", "Pleaseee", "DIRTYYYY"): the
    run of a letter read once or twice is the word. A name drawn out ("SUAREZZZZ", "Jonyeee") is none."""
    if not _DRAWN_OUT.search(word):
        return False
    return any(in_vocabulary(_DRAWN_OUT.sub(r"\1" * k, word), vocabulary) for k in (1, 2))
# "Ubuntu 22.04", "Photoshop 2023": a product's version; not a score ("Ravoire 6-2")
_VERSION = re.compile(r"[ \t]+v?\d+(?:\.\d+)*\b(?![-–]\d)")
_LIST_MARK = re.compile(r"^[ \t>*\-•(\[]*(?:[A-Za-z0-9][.)\]][ \t]*)?")
_DETERMINER = re.compile(r"(?i)\b(?:the|a|an|this|that|these|those|each|every|any|some|no|your|my|our|their|its)[ \t\[(\"“]*\Z")


def _shouted_lines(text: str) -> list[tuple[int, int]]:
    """The lines written all in capitals, of 2+ words: headlines, a table's headings ("EASTERN CONFERENCE") and
    shouted posts."""
    out, start = [], 0
    for line in text.split("\n"):
        words = _LETTER_WORD.findall(line)
        if len(words) >= 2 and all(w.isupper() for w in words):
            out.append((start, start + len(line)))
        start += len(line) + 1
    return out


_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")


def _before_spaced_dash(ent) -> int:
    """How many of the entity's tokens stand before a dash set off by spaces in it: the NER runs an entity over
    one ("last night - Emre" TIME, "Nadia - Marchand" ORG), and what follows the dash is read on its own."""
    for i, t in enumerate(ent):
        if 0 < i < len(ent) - 1 and t.text in ("-", "–", "—", "--") and t.whitespace_ and ent[i - 1].whitespace_:
            return i
    return len(ent)


def unknown_words(doc, vocabulary: frozenset[str], lower: bool = False,
                  shouted: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """Capitalised words (any words of 4+ letters in a text written all in lower case: `lower`; on a line
    written all in capitals, its words of 4+ letters) outside every entity of the NER that no English
    dictionary holds, in a name's place: not after an article or a determiner ("the nth Fibonacci number"),
    not a field label ("Loc:"), not a lone word on its line (a list item: "Burpees"), not before a version
    number ("Ubuntu 22.04"). `shouted`: the text's lines written all in capitals, when the caller has them."""
    if not vocabulary:  # without a dictionary every capitalised word would look unknown
        return []
    out = []
    text = doc.text
    shouted = _shouted_lines(text) if shouted is None else shouted  # find_names passes the lines it found
    # in a text written all in lower case, or a line all in capitals, the NER's labels say little ("bertram"
    # ORG, "SOCCER - KLINSMANN" ORG): only its numbers, dates and amounts hold there
    inside = {t.i for e in doc.ents for t in e[:_before_spaced_dash(e)] if e.label_ in _NUMERIC_LABELS or not lower
              and not any(a <= e.start_char < b for a, b in shouted)}
    for t in doc:
        w, s = t.text, t.idx
        e = s + len(w)
        # a line written all in capitals ("TENNIS - OKONKWO BEATS LINDQVIST") has no acronym shape to go by:
        # there an unknown word of 4+ letters is a name like any other
        caps_word = len(w) >= 4 and w.isalpha() and any(a <= s < b for a, b in shouted)
        if t.i in inside or not (w[:1].isupper() or lower and len(w) >= 4 and w.isalpha()) or len(w) < 3 \
                or _acronym(w) and not caps_word \
                or _DIGIT_OR_CAMEL.search(w) and not _CAMEL_SURNAME.fullmatch(w) or _NOT_WORDLIKE.search(w) \
                or _drawn_out_word(w, vocabulary) \
                or w.lower() in STOP_WORDS or _NOT_A_NAME_WORD.match(w) or in_vocabulary(w, vocabulary) \
                or in_vocabulary(w.strip("-'’"), vocabulary) \
                or w.lower() in KNOWN_PRODUCTS or w.lower() in NOTE_SHORTHAND or _WORD_SHAPED.search(w):
            continue
        if _DETERMINER.search(text[max(0, s - 12):s]) or text[e:e + 1] == ":" or _VERSION.match(text, e) \
                or _IN_A_PLACE.search(text[max(0, s - 12):s]):
            continue  # ... or where a place stands ("Near Tal Afar, three strikes")
        line_start = text.rfind("\n", 0, s) + 1
        line_end = text.find("\n", e)
        line = text[line_start:len(text) if line_end < 0 else line_end]
        if _LIST_MARK.sub("", line).strip(" \t.,;!?)]") == w:
            continue
        out.append((s, e))
    return out
