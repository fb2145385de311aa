"""Rules that find person names by where they stand, for the classes of real text that small NER models
miss (e-mail headers, greetings and signatures, titles in any case, initials), declared as one table a
reviewer can read: each rule's name, the class it covers, its pattern, and examples of our own that it must
find and must leave alone (tests/test_pii.py runs every example).

They are detection only: what is redacted is beam_jobs/pii_policy.py's decision. A rule's span is the name
alone (the title, the header label, the greeting word stay).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from beam_jobs.pii_words import (BODY_WORDS, CARE_ROLES, CLOSINGS, COMPANY_NOUNS, DOTTED_NOT_INITIALS, ENGLISH_LOCALES, GREETINGS,
                                 INITIAL_ACTOR_VERBS, INITIAL_ROLES, KIN_WORDS, LINE_LABELS, NEVER_A_NAME, NOTE_LABELS,
                                 NOT_INITIALS,
                                 MAILBOX_WORDS, MONTHS, NOT_ADDRESSED, OFFICE_WORDS, PARTY_NOISE, SENTENCE_STARTERS, SIGNATURE_LOCALES,
                                 PERSON_HEADING_PHRASES, PERSON_HEADINGS, STATE_PARTIES, TITLE_WORDS, WEEKDAYS,
                                 country_names, given_names, in_name_lists, place_names,
                                 surnames,
                                 trie_alternation)
from beam_jobs.presidio_loader import import_spacy

STOP_WORDS = import_spacy().lang.en.stop_words.STOP_WORDS

_CAPWORD = r"[^\W\d_a-z][\w'’\-]*"          # a capitalised word, any script
_ANYWORD = r"[^\W\d_][\w'’\-]*"              # a word in any case
_INITIAL = r"[A-Z]\.?"
_HEADER_LOWER = re.compile(r"(?:^|(?<=[;,]))[ \t]*([a-z][a-z'’\-]+[ \t]+[a-z][a-z'’\-]+)(?=[ \t]*(?:[;,<]|$))")
_HEADER_LOWER_LAST_FIRST = re.compile(r"(?:^|(?<=;))[ \t]*([a-z][a-z'’\-]+),[ \t]*([a-z][a-z'’\-]+)"
                                      r"(?:[ \t]+[a-z]\.?)?(?=[ \t]*(?:[;<]|$))")
# a header line; "Attn:" also mid-line, as a contract's notice clause writes it ("..., Beijing Attn: Anna Li Tel: ...")
HEADER = re.compile(r"(?im)(?:^[ \t>]*(?:from|to|cc|bcc|sent[ \t]+by|attn|attention|reply-to)|(?<![\w-])attn\.?)[ \t]*:"
                    r"[ \t]*(.+)$")
# ... and as mail clients in other languages write them ("Von: Ruud van den Heuvel", "An: ...", "De: ...", "Para:"),
# in a text that also holds such a client's subject or date line ("Betreff:", "Gesendet:", "Asunto:", "Objet:")
_FOREIGN_HEADER = re.compile(r"(?im)^[ \t>]*(?:von|an|kopie|de|para|à|a|van|aan|da|fra|från|till|til|od|do|kime|kimden)"
                             r"[ \t]*:[ \t]*(.+)$")
_FOREIGN_SUBJECT = re.compile(r"(?im)^[ \t>]*(?:betreff|gesendet|asunto|enviado|objet|envoyé|oggetto|inviato|onderwerp|"
                              r"verzonden|emne|ämne|sendt|skickat|temat|wysłane|konu|tarih)[ \t]*:")
# ... the name ends the line or stops before a separator or the next field of a notice ("Tel:", "Fax:")
_HEADER_PERSON = re.compile(rf"({_CAPWORD}(?:[ \t]+{_CAPWORD})?,[ \t]*{_CAPWORD}(?:[ \t]+{_INITIAL})?|"
                            rf"{_CAPWORD}(?:[ \t]+{_INITIAL})?(?:[ \t]+{_CAPWORD}){{1,2}})(?=[ \t]*(?:[;,<\[(/]|$)|"
                            r"[ \t]+(?i:tel|phone|fax|facsimile|e-?mail|address|mobile)\b)")
_GREETING_NAME = re.compile(rf"(?im)^[ \t>]*(?:(?:{GREETINGS})[ \t,]+)?({_ANYWORD}(?:[ \t]+{_ANYWORD})?)[ \t]*(?:[,!]+|[-–—]{{1,2}})[ \t]*$")
_CLOSING_NAME = re.compile(rf"(?im)(?:^|[.!?][ \t]+)(?:{CLOSINGS})[ \t]*[,!.\-–]*[ \t]*(?:\n[ \t]*(?:\n[ \t]*)?|[ \t]+)"
                           rf"((?:{_ANYWORD}|{_INITIAL})(?:[ \t]+(?:{_ANYWORD}|{_INITIAL})){{0,2}})[ \t.]*$")
# the closing phrases as plain words ("thanks", "best regards"), to tell a closing from a name after it
_CLOSINGS_SET = frozenset(w for w in re.sub(r"\[ \\t\]\+", " ", CLOSINGS).split("|"))
_GREETING_WORDS = frozenset("hi hello hey dear hiya yo morning greetings good".split())
_TITLE_ANY_CASE = re.compile(rf"(?i)(?<![\w/#@])(?:{TITLE_WORDS})(?:\.[ \t]*|[ \t]+)(?!(?:{TITLE_WORDS})[.\s])((?:[^\W\d_]\.[ \t]*){{0,3}}[^\W\d_][\w'’\-]+)")
_MODALS = frozenset("will may can must might shall should would could".split())  # given names too: Will, May
# A name after a kin or care role (pii_words.KIN_WORDS)
_KIN = re.compile(r"(?i)\b" + trie_alternation(KIN_WORDS) +
                  r"(?:['’]s)?(?:[ \t]*,?(?:[ \t]+|[ \t]*\([ \t]*)|([ \t]*[:=–-][ \t]*))([^\W\d_][\w'’\-]+)")
# the next names of the same kin ("2 sons (Ezekiel & Thaddeus)", "daughters Ana, Lupe and Rosa")
_KIN_MORE = re.compile(r"[ \t]*(?:,|&|\band\b)[ \t]*([^\W\d_][\w'’\-]+)")
_LAST_LINE = re.compile(r"\n[ \t]*\n[ \t>-]*([^\W\d_a-z][\w'’\-]+(?:[ \t]+[^\W\d_a-z][\w'’\-]+)?)[ \t.]*\s*\Z")
# initials and a surname, never after "/" (a note's "C/D/I. Small amt" is clean, dry and intact)
_INITIALS_SURNAME = re.compile(r"(?<![\w./])((?:[A-Z]\.[ \t]?){1,3}[^\W\d_a-z][\w'’\-]+)(?![\w])")
# honorifics only ever stand before a name; ranks and offices ("judge", "constable") also stand alone
_HONORIFIC = re.compile(r"(?i)(?:mr|mrs|ms|miss|mx|dr|prof|sri|shri|smt|kum|adv)\b")
_CARE_TITLE = re.compile(r"(?i)(?:rn|np|rt)\b")  # nurse, nurse practitioner, respiratory therapist
_NOT_A_TITLE = re.compile(r"(?i)(?:rn|np|rt)\.")  # a care title takes no dot: "RN." ends a sentence
_SLASH_TITLE = re.compile(r"(?i)[scdw]/o\b")   # "S/o Ram", "C/o Ramesh": capitalised; notes' "c/o pain": no name
_POSSESSIVE = re.compile(r"['’]s\Z")
_CONTRACTION = re.compile(r"(?i)['’](?:m|d|ll|ve|re|t)\Z|n['’]t\Z|^i['’]")  # "wouldn't", "I'm", "you'd"
_CAPITALISED_NEXT = re.compile(rf"[ \t]+{_CAPWORD}")
_DOTTED_INITIALS = re.compile(r"(?<![\w.])((?:[A-Z]\.){2,3})(?=[\s,;:)]|$)")


def is_function_word(word: str) -> bool:
    """A pronoun, preposition, auxiliary or the like (spaCy's English stop words): never a name in lower case."""
    return word.lower() in STOP_WORDS


@dataclass(frozen=True)
class NameRule:
    name: str
    covers: str            # the class of real text it is for
    find: object           # callable(text, is_word) -> [(start, end)]
    finds: tuple           # ((text, [values that must be found]), ...)
    leaves: tuple          # (text, ...) in which it finds nothing
    message_end: bool = False  # it reads the end of a message: run on every message of a thread (message_ends)


# Where a message ends inside a thread or a post with replies: the line that opens the next one. A reply is signed
# above the message it quotes ("- Raj\n\n>>> Brandon Whitfield 04/19/01 >>>", "JP\n\n-----Original Message-----",
# "Thanks in advance,\nGrant\n\n---\nReply from ...", "Deb\n\n--\nDeborah Szymanski", "-RG\n\nSent from my
# BlackBerry"), and the rules that read a signature read the text's end
_MESSAGE_OPENING = (
    r"[ \t]*(?:-{2,}[ \t]*(?:original[ \t]+message|forwarded[ \t]+(?:message|by)|reply[ \t]+message)\b|"
    r"(?:-{3,}|_{3,}|={3,}|\*{3,})[ \t]*$|>{2,}[ \t]+\S[^\n]*>{2,}|on[ \t][^\n]{4,200}\bwrote:[ \t]*$|"
    r"(?:from|sent|date):[ \t]+\S|>[^\n]*\n[ \t]*>|--[ \t]*$|sent[ \t]+from[ \t]+my\b|"
    r"(?:von|de|da|van|gesendet|envoyé|enviado):[ \t]+\S|-{2,}[ \t]*(?:ursprüngliche[ \t]+nachricht|message[ \t]+d'origine|"
    r"mensaje[ \t]+original)\b)")
_NEXT_MESSAGE = re.compile(rf"(?im)^{_MESSAGE_OPENING}")
# a message ends on its own last line, never on another's opening or a header ("-----Original Message-----",
# "From: Helga Brandt" above "Sent: Monday")
_OPENING_LINE = re.compile(rf"(?im){_MESSAGE_OPENING}|[ \t>]*[\w-]+(?:[ \t][\w-]+)?:[ \t]")


def message_ends(text: str) -> list[int]:
    """Where each message of `text` ends: before each line that opens another message or a quoted reply
    (_NEXT_MESSAGE), with the blank lines above it, then the text's end. A prefix `text[:end]` is that message
    with all above it, so a rule that reads the text's end keeps its offsets."""
    ends = {len(text)}
    for m in _NEXT_MESSAGE.finditer(text):
        end = m.start()
        while end and text[end - 1].isspace():  # the blank lines above (no copy of the text before: a thread of
            end -= 1                            # thousands of quoted lines has as many openings)
        line = text.rfind("\n", 0, end) + 1
        if end > 0 and not _OPENING_LINE.match(text, line) and not text.startswith(">", line):
            ends.add(end)  # (a quoted reply ends where its quote does: no end between two quoted lines)
        if len(ends) > MAX_MESSAGES:
            break  # a digest of hundreds: the first messages' signatures are read, and the text's end
    return sorted(ends)


MAX_MESSAGES = 50



# Mail-system addresses and forwarding lines that carry a person's name: "Anna B Smith/HOU/ACME@ACME",
# "Forwarded by Anna Smith on 10/16/2000"
_NOTES_ADDRESS = re.compile(rf"((?:{_CAPWORD}[ \t]+)(?:{_INITIAL}[ \t]+)?{_CAPWORD})(?:(?:/[A-Z][A-Z0-9]{{1,9}}){{1,3}}@[A-Za-z]+|(?:/[A-Z][A-Z0-9]{{1,9}}){{2,3}})(?![\w/])")
# ... or a surname alone before the mail system's domain, without a dot ("cc: Abernathy@ECT")
_NOTES_SURNAME = re.compile(rf"(?<![\w.@/])({_CAPWORD})@[A-Z][A-Z0-9]{{1,9}}(?![\w.@])")
_FORWARDED_BY = re.compile(rf"(?i:forwarded|sent|posted|written)[ \t]+by[ \t]+((?:{_CAPWORD}[ \t]+)(?:{_INITIAL}[ \t]+)?{_CAPWORD})")


def _header_names(text: str, is_word) -> list[tuple[int, int]]:
    """Names in From/To/Cc lines: "Smith, Anna", "Doe, John A.", "Anna Smith", several per line; in mail-system
    addresses ("Anna Smith/HOU/ACME@ACME") and forwarding lines ("Forwarded by Anna Smith on ...")."""
    out = [(m.start(1), m.end(1)) for m in _NOTES_ADDRESS.finditer(text)]
    out += [(m.start(1), m.end(1)) for m in _NOTES_SURNAME.finditer(text)]
    out += [(m.start(1), m.end(1)) for m in _FORWARDED_BY.finditer(text)]
    lines = list(HEADER.finditer(text))
    if _FOREIGN_SUBJECT.search(text):
        lines += _FOREIGN_HEADER.finditer(text)
    for line in lines:
        for m in _HEADER_PERSON.finditer(line.group(1)):
            words = re.findall(r"[^\W\d_][\w'’\-]*", m.group(1))
            if "@" in m.group(1) or all(is_word(w) for w in words) and not any(
                    (w in given_names() or w.isupper() and w.capitalize() in given_names())
                    and w.lower() not in NOT_ADDRESSED for w in words):
                continue  # "To: All Staff", "From: Customer Service"; "Doe, John A." ("DOE, JOHN A.") holds a
                # given name
            out.append((line.start(1) + m.start(1), line.start(1) + m.end(1)))
        # written in lower case, as a quick reply's "cc: rick buy, ted murphy": a given name and a word; "to: doe,
        # john a.": a word, and a given name after its comma
        for m in _HEADER_LOWER_LAST_FIRST.finditer(line.group(1)):
            if m.group(2).capitalize() in given_names(ENGLISH_LOCALES) and not is_function_word(m.group(1)):
                out.append((line.start(1) + m.start(1), line.start(1) + m.end(0)))
        for m in _HEADER_LOWER.finditer(line.group(1)):
            first, last = m.group(1).split()
            if first.capitalize() in given_names(ENGLISH_LOCALES) and not is_function_word(last) \
                    and not is_function_word(first):
                out.append((line.start(1) + m.start(1), line.start(1) + m.end(1)))
    return out


def _greeting_names(text: str, is_word) -> list[tuple[int, int]]:
    """A name alone on a line as a greeting ("Anna,", "Hi john,") or after a closing ("Thanks, John",
    "Best,\\nAnna"). Alone on its line a word counts when it is no dictionary word or a greeting stood
    before it; a capitalised one after a closing always counts."""
    out = []
    for m in _GREETING_NAME.finditer(text):
        first = m.group(1).split()[0]
        greeted = m.group(0).strip().split()[0].lower().rstrip(",") in _GREETING_WORDS
        if first.lower() in NOT_ADDRESSED or first.lower() in _CLOSINGS_SET:
            continue
        if greeted or first[:1].isupper() and (not is_word(first) or first in given_names(ENGLISH_LOCALES)) \
                or first.islower() and m.start() == 0 and first.capitalize() in given_names(ENGLISH_LOCALES) \
                and not is_function_word(first):
            out.append((m.start(1), m.end(1)))  # "Anna," though "anna" is a coin in the dictionary; a message
            # written in lower case that opens with a given name alone ("mark,\n\nattached is ...")
    for m in _CLOSING_NAME.finditer(text):
        words = m.group(1).split()
        if words[0].lower() in NOT_ADDRESSED or words[0].lower() in _CLOSINGS_SET:
            continue
        if words[0][:1].isupper() or not is_word(words[0]) or len(words) == 1 and not is_function_word(words[0]) \
                and words[0].capitalize() in given_names(SIGNATURE_LOCALES):  # "thanks much, kay"
            out.append((m.start(1), m.end(1)))
    return out



# A message that opens by addressing its readers: given names at a line's start, joined by "/", "&", "and" or
# commas, then a comma, colon or dash and what one says to a reader ("Rich, attached is", "Hope -- can you",
# "Joy/Dawn - the meeting moved"). One name needs the address words after it ("Will - the future tense" is
# a heading); two or more names so joined are addressed whatever follows
_ADDRESS_WORDS = (r"please|pls|can|could|would|will|thanks|thank|thx|attached|see|here|fyi|i|we|let|just|per|as|"
                  r"following|do|did|are|is|have|any|you|your|re|got|sorry|quick|welcome|congrats|congratulations")
_OPENING_NAMES = re.compile(
    rf"(?m)^[ \t>]*({_CAPWORD}(?:[ \t]*(?:/|&|,|\band\b)[ \t]*{_CAPWORD}){{0,4}})[ \t]*(?:,|:|-{{1,2}}|–|—)[ \t]+"
    rf"(?:((?i:{_ADDRESS_WORDS}))\b|(?<=\S[ \t])(?=\S))")


def _opening_names(text: str, is_word) -> list[tuple[int, int]]:
    """The given names a message opens by addressing (_OPENING_NAMES): English given names of the lists, in
    any number; one alone only before the words said to a reader."""
    english = given_names(ENGLISH_LOCALES)
    out = []
    for m in _OPENING_NAMES.finditer(text):
        names = list(re.finditer(_CAPWORD, m.group(1)))
        if not all(n.group(0) in english and n.group(0).lower() not in NOT_ADDRESSED for n in names):
            continue
        if len(names) == 1 and not m.group(2):  # one name alone: only before the words said to a reader
            continue
        out += [(m.start(1) + n.start(), m.start(1) + n.end()) for n in names]
    return out


def _title_names_any_case(text: str, is_word) -> list[tuple[int, int]]:
    """A word after a title written in any case ("seen by dr smith", "MR JONES", "Mr A. B. Smith")."""
    out = []
    for m in _TITLE_ANY_CASE.finditer(text):
        word = m.group(1).split()[-1]
        if word.lower() in NOT_ADDRESSED or word.lower() in ("and", "or", "the", "of", "to", "is", "was") \
                or word.lower().rstrip(".") in OFFICE_WORDS:  # a second rank or office: "Brigadier General"
            continue
        if is_function_word(word) and word.capitalize() not in given_names() or _CONTRACTION.search(word):
            continue  # "Justice. It is", "Madam Speaker"'s "It"; "Will" stays (a given name)
        if _NOT_A_TITLE.match(m.group(0)) or word.islower() and _SLASH_TITLE.match(m.group(0)):
            continue  # "updated by RN. Plan to ...": a sentence's end; a note's "c/o incisional pain" (complains of)
        if word.islower() and not _HONORIFIC.match(m.group(0)) and is_word(word) \
                and not (_CARE_TITLE.match(m.group(0)) and word.capitalize() in surnames()):
            continue  # "a police constable has won", "miss out": a rank or a verb, not a title before a name;
            # after a nurse's title a surname of the lists is one ("discussed with np williams")
        initials = re.match(r"(?:[^\W\d_]\.[ \t]*)+", m.group(1))  # any script's capitals: "Ş. Aydınlı"
        if initials and word.islower():  # "Mrs K. testified": the initials are the name, the verb is not
            out.append((m.start(1), m.start(1) + len(initials.group(0).rstrip())))
            continue
        out.append((m.start(1), m.start(1) + len(_POSSESSIVE.sub("", m.group(1)))))
    return out


def _initials_names(text: str, is_word) -> list[tuple[int, int]]:
    """Initials glued or close to a surname ("E.Radhakrishnan", "Ms T. Doe", "A. J. Abraham") and dotted
    initials alone ("a witness, J.P., said"); never a dotted abbreviation ("U.S. Army", "9 P.M."), a list
    item or heading ("A. Introduction"), or a sentence after a letter ("plan B. Then")."""
    out = []
    for m in _INITIALS_SURNAME.finditer(text):
        initials, word = re.match(r"((?:[A-Z]\.[ \t]?)+)(.*)", m.group(1)).groups()
        dots = initials.replace(" ", "").replace("\t", "")
        if dots in DOTTED_NOT_INITIALS or word.lower() in SENTENCE_STARTERS or word.isupper() and len(word) > 1:
            continue
        if len(dots) == 2 and initials.endswith((" ", "\t")) and not text[:m.start(1)].strip(" \t").endswith(
                tuple("abcdefghijklmnopqrstuvwxyz,;:(")) and is_word(word) and word not in surnames():
            continue  # one initial at a line or sentence start: a list item, a heading or "plan B. Then"; not
            # before a word no dictionary holds or a surname ("B. Lindqvist", "J. Smith" signing a letter)
        out.append((m.start(1), m.end(1)))
    out += [(m.start(1), m.end(1)) for m in _DOTTED_INITIALS.finditer(text) if m.group(1) not in DOTTED_NOT_INITIALS
            and not _STATE_OF.search(text[max(0, m.start(1) - 10):m.start(1)])
            and not _NUMBERED.match(text, m.end(1))]
    return out


# dotted letters that name a state or a numbered filing, not a person: "State of A.P.", "I.A. No. 5/2014"
_STATE_OF = re.compile(r"(?i)\bstate[ \t]+of[ \t]+\Z")
_NUMBERED = re.compile(r"[ \t]*(?:No\.?|Nos\.?|Number)[ \t]*\d")


# A case's parties: "Wade v. Jacobs", "SMITH v. THE UNITED KINGDOM", "in Brown against the United States"
_PARTY = rf"((?:{_CAPWORD}[ \t]+){{0,2}}{_CAPWORD})"
_CASE = re.compile(rf"{_PARTY}[ \t]+(?:v\.?|vs\.?|versus)[ \t]+(?:(?i:the)[ \t]+)?{_PARTY}|"
                   rf"\bin[ \t]+{_PARTY}[ \t]+against[ \t]+(?:(?i:the)[ \t]+)?{_PARTY}")


_PARTY_SKIP = PARTY_NOISE | SENTENCE_STARTERS   # words before a party's name ("In Wade v.", "CASE OF SMITH v.")


@lru_cache(maxsize=1)
def _countries() -> frozenset[str]:
    return frozenset(c.lower() for c in country_names())


def _case_parties(text: str, is_word) -> list[tuple[int, int]]:
    """The parties named in a case's title or citation, except the state and public bodies."""
    countries = _countries()
    out = []
    for m in _CASE.finditer(text):
        for g in range(1, 5):
            if m.group(g) is None:
                continue
            words = list(re.finditer(r"\S+", m.group(g)))
            while words and words[0].group(0).lower() in _PARTY_SKIP:
                words = words[1:]
            if not words:
                continue
            name = m.group(g)[words[0].start():]
            if name.lower() in countries or all(w.group(0).lower().strip(".,") in STATE_PARTIES for w in words):
                continue
            out.append((m.start(g) + words[0].start(), m.end(g)))
    return out


def _kin_names(text: str, is_word) -> list[tuple[int, int]]:
    """The word after a kin or care role: a capitalised one always ("daughter Ingrid"), one in lower case
    when no dictionary holds it ("called daughter ingrid"), and in a text written all in lower case an English
    given name though the dictionary holds it ("sister faith called", "daughter (summer)"; not a modal verb:
    "son will visit"). After a colon, an equals sign or a dash, as a note's form writes it ("Son = Ignatius"),
    only a given name of the lists, or a surname of the lists or a capitalised word of 4+ letters that no
    dictionary holds and no place list, counts ("Mother: Unknown", "Mom: Good, sweetie", "Boyfriend: Ive got";
    "PCP: Dr. Oduya" is the title rule's)."""
    out = []
    all_lower = not any(c.isupper() for c in text)
    for m in _KIN.finditer(text):
        while m:
            g = m.lastindex  # the name's group: 2 in _KIN (1 is the form's sign), 1 in _KIN_MORE
            w = m.group(g)
            named_apart = w[:1].isupper() and w in given_names() and re.match(r"[ \t]*[(,;.]", text[m.end(g):])
            if (w.lower() in SENTENCE_STARTERS or w.lower() in NOT_ADDRESSED) and not named_apart \
                    or _CONTRACTION.search(w) \
                    or w.lower() == "day" \
                    or w.isupper() and len(w) <= 3 and w.capitalize() not in given_names():  # "son ICU" / "wife KIM"
                break
            if m.re is _KIN and m.group(1) and (w.lower().rstrip(".") in OFFICE_WORDS or not (
                    w.capitalize() in given_names() or (w.capitalize() in surnames() or len(w) >= 4 and w[:1].isupper())
                    and not is_word(w) and w not in place_names() and w not in country_names())):
                break
            bracketed = text[m.start(g) - 1:m.start(g)] in "(" and text[m.end(g):m.end(g) + 1] == ")"
            nxt = _CAPITALISED_NEXT.match(text, m.end(g))
            # ... a capitalised word, then one no dictionary holds that ends the name: "sister, Blessing Olumuyiwa";
            # not an organisation's name of three words: "attending Loyola Marymount University"
            proper = nxt and (is_word(nxt.group(0).strip()) or _CAPITALISED_NEXT.match(text, nxt.end()))
            if w[:1].isupper() and is_word(w) and (w.isupper() or proper) \
                    and not bracketed and w.capitalize() not in given_names():
                # "MOTHER (ROSA)": a word in brackets after a kin role is the name; so is a given name in
                # capitals ("WIFE ROSA CALLED", though "rosa" is in the dictionary)
                break  # "the sister Indian National Congress": a capitalised dictionary word opening a proper noun
            if not (w[:1].isupper() or not is_word(w) or all_lower and w not in _MODALS
                    and w.capitalize() in given_names(ENGLISH_LOCALES)):
                break
            out.append((m.start(g), m.start(g) + len(_POSSESSIVE.sub("", w))))
            m = _KIN_MORE.match(text, m.end(g))
            if m and not m.group(1)[:1].isupper():
                break  # the next names are capitalised: "husband Jim and thier family"
    return out


# A batting card's line: the batsman, how he was out and by whom, his runs ("Smith c Jones b Brown 12",
# "White not out 33"), a line each or one after another ("Hussain c Ward b Fleming 44, Irani not out 67"), in
# any case (a scoreboard in capitals reads "T. MOODY NOT OUT 56")
_DISMISSAL = (r"(?i:(?:c|st)[ \t]+(?:&[ \t]+b[ \t]+)?\S+(?:[ \t]+b[ \t]+\S+)?|lbw[ \t]+b[ \t]+\S+|b[ \t]+\S+|"
              r"run[ \t]+out|not[ \t]+out|retired[ \t]+(?:hurt|out)|hit[ \t]+wicket)")
_BATTING_LINE = re.compile(rf"(?m)(?:^|(?<=[,;:]))[ \t]*((?:[A-Z]\.[ \t]?)*{_CAPWORD}(?:[ \t]+{_CAPWORD})?)[ \t]+"
                           rf"{_DISMISSAL}(?:[ \t]+\([^)\n]{{1,30}}\))?[ \t]+\d{{1,3}}\*?[ \t]*(?=[,;]|$)")
_CARD_WORDS = frozenset("c st b lbw run out not retired hurt hit wicket".split())


def _batting_names(text: str, is_word) -> list[tuple[int, int]]:
    """Every name of a batting card's line: the batsman and the fielder and bowler named in his dismissal."""
    out = []
    for m in _BATTING_LINE.finditer(text):
        out.append((m.start(1), m.end(1)))
        for w in re.finditer(rf"(?:[A-Z]\.[ \t]?)*{_CAPWORD}", text[m.end(1):m.end()]):
            if w.group(0).lower() not in _CARD_WORDS:
                out.append((m.end(1) + w.start(), m.end(1) + w.end()))
    return out


# A news wire headline in capitals whose subject is a person ("GOLF - NORMAN LEADS BY TWO", "SOCCER - HILL
# OUT FOR SIX WEEKS"): after the topic and its dash, a word of the name lists before what a person does or is
# in a headline. A verb in the singular: sides take the plural in British wire ("CHELSEA SIGN DUTCH DEFENDER")
_HEADLINE_SUBJECT = re.compile(
    r"(?m)^[ \t]*[A-Z][A-Z .&/]{1,30}[ \t]+-[ \t]+((?:[A-Z][A-Z'’\-]+[ \t]+)?[A-Z][A-Z'’\-]{2,})[ \t]+"
    r"(?:SAYS|LEADS|BEATS|WINS|SIGNS|JOINS|QUITS|RETIRES|STAYS|FACES|GETS|KEEPS|TAKES|SHOOTS|MOVES|HITS|"
    r"OUT|BACK|FINED|BANNED|SACKED|INJURED|HURT|CHARGED|ARRESTED|DIES|DEAD|RESIGNS|NAMED|ELECTED|TO|IN|"
    r"CLOSE|SET|READY|FIT|HAPPY|UPSET|STUNS|CRUISES|EDGES|FIRES|GRABS|LOSES|MISSES|WANTS|DENIES|ADMITS)\b"
    r"[^a-z\n]*$")


def _headline_subjects(text: str, is_word) -> list[tuple[int, int]]:
    """The person a capitals headline is about (_HEADLINE_SUBJECT): a given name or a surname of the lists
    that no country is, in any case."""
    out = []
    for m in _HEADLINE_SUBJECT.finditer(text):
        words = m.group(1).split()
        if all(w.capitalize() not in country_names() for w in words) and any(
                in_name_lists(w.capitalize()) or not is_word(w) for w in words):
            out.append((m.start(1), m.end(1)))
    return out


# A name in brackets right after a role or an office ("his assistant (Rice)", "the coach (Wenger)",
# "a witness (Okafor)"), as reports and minutes name people
_ROLE_WORDS = tuple(sorted(OFFICE_WORDS | {"assistant", "aide", "deputy", "lawyer", "attorney", "counsel", "witness",
                                           "teacher", "driver", "owner", "agent", "investigator", "employee",
                                           "supervisor", "nurse", "doctor", "physician", "surgeon", "therapist"}))
_ROLE_BRACKETED = re.compile(r"(?i)\b" + trie_alternation(_ROLE_WORDS) +
                             rf"s?[ \t]*\([ \t]*((?-i:{_CAPWORD})(?:[ \t]+(?-i:{_CAPWORD}))?)[ \t]*\)")


def _role_bracketed_names(text: str, is_word) -> list[tuple[int, int]]:
    """The name in brackets after a role (_ROLE_BRACKETED): a word of the name lists or no dictionary's, never
    a country, a place or an acronym ("the director (CEO)", "the striker (Brazil)")."""
    out = []
    for m in _ROLE_BRACKETED.finditer(text):
        words = m.group(1).split()
        if any(w in country_names() or w in place_names() or w.isupper() for w in words):
            continue
        if all(in_name_lists(w) or not is_word(w) for w in words):
            out.append((m.start(1), m.end(1)))
    return out


# A baseball line score's pitchers: the decision before the name ("W - Smoltz (22-8)", "S - Wetteland (38)") or
# in brackets after it ("Mesa (S, 30)", "Hershiser (W, 10-5)")
_PITCHER = re.compile(
    rf"(?<![\w-])(?:W|L|S|SV|Sv)[ \t]*[-:][ \t]*((?:[A-Z]\.[ \t]?)?{_CAPWORD}(?:[ \t]+{_CAPWORD})?)[ \t]*"
    r"\(\d{1,2}(?:-\d{1,2})?\)|"
    rf"((?:[A-Z]\.[ \t]?)?{_CAPWORD})[ \t]*\((?:W|L|S|H|BS)[ \t]*,[ \t]*\d{{1,2}}(?:-\d{{1,2}})?\)")


def _pitcher_names(text: str, is_word) -> list[tuple[int, int]]:
    """The pitchers a baseball report credits with a decision (_PITCHER); the decisions before the names only
    where two stand (a report gives the winner and the loser; one "S - Small (36-38)" is a size)."""
    found = list(_PITCHER.finditer(text))
    before = [m for m in found if m.group(1)]
    return [(m.start(m.lastindex), m.end(m.lastindex)) for m in found if m.group(2) or len(before) >= 2]


# A football report's scorers: every name before its minute in brackets ("Scorers: Gallacher (14th minute),
# Sherwood (67th)", an ice hockey report's "Goals : Toronto - Sundstrom ( 12 ) , Gilmour 2 ( 8 )"); a side before
# its dash is no name ("Scorers: Rovers - Hirst (80th pen)")
_SCORERS_LINE = re.compile(r"(?im)\b(?:(?:goal)?scorers?|goals)[ \t]*:([^\n]*)")
_SCORER = re.compile(rf"((?:[A-Z]\.[ \t]?)*{_CAPWORD}(?:[ \t]+{_CAPWORD}){{0,2}})(?:[ \t]+\d{{1,2}})?[ \t]*"
                     r"\((?:[ \t]*(?:pen(?:alty|\.)?|o\.?g\.?)[ \t]*)?\d{1,3}")


def _scorer_names(text: str, is_word) -> list[tuple[int, int]]:
    """Each name of a scorers' line, as news wire lists them."""
    return [(line.start(1) + m.start(1), line.start(1) + m.end(1)) for line in _SCORERS_LINE.finditer(text)
            for m in _SCORER.finditer(line.group(1))]


# A sports report's statistics: a baseball box score's list after its code ("HR - Castilla (31), Burks 2
# (28)", "SB - Lofton 2 (52)"), and a table of leaders a line each, the count before a dash and the side in
# brackets after each name ("12 - Ravanelli ( Middlesbrough )", "10 - Shearer ( Newcastle ) , Wright ( Arsenal )").
# The names may be words ("Wright", "Burks"): the line's form says they are players. (A list of leaders on one
# line, "7 - Shearer (Newcastle); 6 - Fowler (Liverpool)", is pii_names' structural rule: it needs two on a line.)
_STAT_NAME = rf"(?:[A-Z]\.[ \t]?)*{_CAPWORD}(?:[ \t]+{_CAPWORD}){{0,2}}"
_BOX_LIST = re.compile(rf"(?<![\w-])(?:HR|HRs|RBI|SB|CS|SF|SH|2B|3B|DP|E)[ \t]*[-:][ \t]*"
                       rf"({_STAT_NAME}(?:[ \t]+\d{{1,2}})?[ \t]*\([ \t]*\d{{1,3}}[ \t]*\)"
                       rf"(?:[ \t]*[,;][ \t]*{_STAT_NAME}(?:[ \t]+\d{{1,2}})?[ \t]*\([ \t]*\d{{1,3}}[ \t]*\))*)")
_BOX_ITEM = re.compile(rf"({_STAT_NAME})(?:[ \t]+\d{{1,2}})?[ \t]*\(")
_LEADER_ROW = re.compile(rf"(?m)^[ \t]*\d{{1,3}}[ \t]*[-–][ \t]*({_STAT_NAME}[ \t]*\([ \t]*{_CAPWORD}(?:[ \t]+{_CAPWORD}){{0,3}}[ \t]*\)"
                          rf"(?:[ \t]*,[ \t]*{_STAT_NAME}[ \t]*\([ \t]*{_CAPWORD}(?:[ \t]+{_CAPWORD}){{0,3}}[ \t]*\))*)[ \t]*\.?[ \t]*$")
_LEADER_ROW_ITEM = re.compile(rf"({_STAT_NAME})[ \t]*\(")


def _statistics_names(text: str, is_word) -> list[tuple[int, int]]:
    """The players of a box score's lists (_BOX_LIST, two items or a count: one "E - Smith (3)" may be
    anything) and of a table of leaders (_LEADER_ROW, two lines or more: one "3 - Paris (France)" is a list
    item)."""
    out = []
    for m in _BOX_LIST.finditer(text):
        items = list(_BOX_ITEM.finditer(m.group(1)))
        if len(items) >= 2 or len(_BOX_LIST.findall(text)) >= 2:
            out += [(m.start(1) + i.start(1), m.start(1) + i.end(1)) for i in items]
    lines = list(_LEADER_ROW.finditer(text))
    if len(lines) >= 2:
        out += [(m.start(1) + i.start(1), m.start(1) + i.end(1)) for m in lines for i in _LEADER_ROW_ITEM.finditer(m.group(1))
                if not _common_words_only(i.group(1), is_word)]
    return out


def _common_words_only(span: str, is_word) -> bool:
    """Every word of `span` is a dictionary word and none a name of the lists ("Mix", "Bake"; not "Wright")."""
    words = re.findall(r"[^\W\d_][\w'’\-]*", span)
    return all(is_word(w) and w.capitalize() not in given_names() and w.capitalize() not in surnames() for w in words)


# A surname of the lists that is also a word ("Marsh", "Law", "Cole", "Price") where a report puts a person:
# before what only people do ("Law top-scored with 67", "Banks disagreed") or after what is done to a player
# ("replaced the injured Cole", "crossed for Rush"). Elsewhere such a word is left to the model.
_PERSON_DOES = (r"said|says|told|asked|replied|disagreed|agreed|abstained|insisted|admitted|denied|argued|"
                r"scored|top-scored|netted|bowled|captained|clocked|equali[sz]ed|made[ \t]+\d{1,3}\b|"
                r"took[ \t]+(?:\w+[ \t]+)?(?:wickets?|catches)|hit[ \t]+\d{1,3}\b")
_DONE_TO_PLAYER = (r"replaced(?:[ \t]+the[ \t]+injured)?|crossed[ \t]+for|passed[ \t]+to|fouled|tackled|"
                   r"substituted[ \t]+for|pass[ \t]+from|cross[ \t]+from|ahead[ \t]+of")
_SURNAME_DOES = re.compile(rf"(?<![\w'’\-])({_CAPWORD})[ \t]+(?:{_PERSON_DOES})(?![\w\-])|"
                           rf"\b(?:{_DONE_TO_PLAYER})[ \t]+({_CAPWORD})(?![\w'’\-]*[ \t]+[A-Z])")


_COMPANY_NOUN = "(?:" + "|".join(sorted(COMPANY_NOUNS, key=len, reverse=True)) + ")"
_COMPANY_BEFORE = re.compile(rf"(?i)(?<![\w'’\-]){_COMPANY_NOUN}[ \t]+\Z")
_COMPANY_FIRST = re.compile(rf"(?i){_COMPANY_NOUN}[ \t]+(?=[A-Z])")
_REPORTS = re.compile(r"(?:['’]s)?[ \t]+(?:said|says|told|reported|announced|expects|expected|plans|planned|"
                      r"forecast|posted|warned|denied|confirmed)\b")


def company_reporting(text: str, s: int, e: int) -> bool:
    """The name at text[s:e] has a company word before it and reports ("Japanese carmaker Toyota said", "the
    rating agency Moody's said", "Brokerage Nomura said": the NER may run the word in). In news a company speaks
    there, never a person. Only before a reporting verb: "the company Smith founded" names a person."""
    return bool(_REPORTS.match(text, e)) and bool(
        _COMPANY_BEFORE.search(text[max(0, s - 30):s]) or _COMPANY_FIRST.match(text, s))


def _surname_word_names(text: str, is_word) -> list[tuple[int, int]]:
    """A surname of the lists, one that is also a word, where a report puts a person (_SURNAME_DOES)."""
    out = []
    for m in _SURNAME_DOES.finditer(text):
        g = 1 if m.group(1) else 2
        word = _POSSESSIVE.sub("", m.group(g))
        if word in surnames() and word not in country_names() and not company_reporting(text, m.start(g), m.end(g)):
            out.append((m.start(g), m.start(g) + len(word)))
    return out


# a dash, then one or two words that end the text
_DASH_SIGNED = (r"[-–—~]{1,2}[ \t]*([^\W\d_][\w'’\-]+(?:[ \t]+(?!(?:in|from|at)[ \t])[^\W\d_][\w'’\-]+)?)"
                r"(?:[ \t]+(?:in|from|at)[ \t]+[A-Z][\w&'’\-]*(?:[ \t]+[A-Z][\w&'’\-]*)?)?[ \t]*\s*\Z")  # "-Sheila in Payroll"
_DASH_SIGNATURE = re.compile(rf"(?:\A|\n)([^\n]*)\n[ \t]*{_DASH_SIGNED}")
# the same after the message's last sentence, on its line ("Call me at x4471. -Bill")
_INLINE_DASH_SIGNATURE = re.compile(rf"[.!?)][ \t]+{_DASH_SIGNED}")


def _dash_signature_names(text: str, is_word) -> list[tuple[int, int]]:
    """A message's last line, a name after a dash, as mail is signed ("-Kay", "--sally"), when the line above
    is no list item, or the same after its last sentence on one line: a word no dictionary holds, an English
    given name, or one of any list written capitalised ("- Raj")."""
    m = _DASH_SIGNATURE.search(text)
    if not m:
        m = _INLINE_DASH_SIGNATURE.search(text)
        if not m:
            return []
    elif re.match(r"[ \t]*(?:[-–—~*•]|\d+[.)])", m.group(1)):
        return []  # the last item of a list ("- Mix\n- Bake")
    name = m.lastindex  # the name is the pattern's last group
    first = m.group(name).split()[0]
    if first.lower() in NOT_ADDRESSED or first.lower() in _CLOSINGS_SET or _CONTRACTION.search(first):
        return []
    if not is_word(first) or first.capitalize() in given_names(SIGNATURE_LOCALES) \
            or first[:1].isupper() and first in given_names():  # "- Raj": a given name of any list, as written
        return [(m.start(name), m.end(name))]
    return []


# "then called anna about it": a verb of getting in touch, then a given name written in lower case
_CONTACTED = re.compile(r"\b(?:call(?:ed)?|phoned|text(?:ed)?|e-?mail(?:ed)?|messaged|told|asked|met|paged|"
                        r"notified|informed)[ \t]+([a-z][a-z'’\-]{2,})\b")
# ... and before one, as news of who got in touch: the verb closes the clause or a time or "back" follows it
_GOT_IN_TOUCH = re.compile(r"(?<![\w'’\-])([A-Za-z][a-z'’\-]+|[A-Z]{3,})[ \t]+(?i:called|phoned|rang|texted|e-?mailed|"
                           r"stopped[ \t]+by|dropped[ \t]+by)(?=[ \t]*(?:[.,;!\n]|$|(?i:back|again|twice|today|"
                           r"tonight|yesterday|this[ \t]+(?:morning|afternoon|evening)|earlier|at[ \t]+\d|x[ \t]*\d)\b))")


# ... and in a message's request or news of who was reached: "ask sally whether", "tell frank I said hi", "let joe
# know", "spoke with mark and bill this morning", "forward this to rich and frank." The name must end the clause
# or stand before a word that closes such a request ("talk to grace in prayer" stays)
_REACHED = re.compile(
    r"\b(?i:(?:ask(?:[ \t]+for)?|tell|call|e-?mail|text|ping|page|remind|cc|copy|let)|"
    r"(?:talk(?:ed|ing)?|spoke|speak(?:ing)?|meet(?:ing)?|met|check(?:ed|ing)?|chat(?:ted)?|sync(?:ed)?|"
    r"touch(?:ed)?[ \t]+base|follow(?:ed)?[ \t]+up)[ \t]+(?:to|with)|"
    r"(?:forward(?:ed)?|send|sent|give|gave|pass(?:ed)?|hand(?:ed)?|route(?:d)?)(?:[ \t]+(?:it|this|that|them|these|those))?"
    r"[ \t]+to)[ \t]+([a-z][a-z'’\-]+)(?:[ \t]+(?:and|&)[ \t]+([a-z][a-z'’\-]+))?"
    r"(?=[ \t]*(?:[.,;:!?)\n]|$|(?i:about|re|on|if|whether|know|for|tomorrow|today|tonight|when|before|after|asap|"
    r"first|too|also|directly|or|and|this|again|back|yet|yesterday|i|to)\b))")


# ... and a capitalised given name so reached, dictionary word or not ("tell Will he owes", "ask for Mo!!"); after
# "tell", "ask" or "let" no modal can stand
_REACHED_CAPITALISED = re.compile(rf"\b(?i:tell|ask(?:[ \t]+for)?|let|ping|remind|text|thank|"
                                  rf"(?:copy|copies|it|this|that|them|original|cheque|check|form|file)[ \t]+to)[ \t]+({_CAPWORD})"
                                  r"(?=[ \t]*(?:[.,;:!?)\n]|$|(?i:he|she|they|i|to|about|if|whether|know|that|from|"
                                  r"at|in|on|by|for)\b))")


def _reached_names(text: str, is_word) -> list[tuple[int, int]]:
    """The lower-case given names of the English lists that a message asks to reach or says it reached
    (_REACHED), dictionary words too ("mark", "bill", "frank"); never a modal or a month ("forward to june")."""
    names, out = given_names(ENGLISH_LOCALES), []
    for m in _REACHED.finditer(text):
        for g in (1, 2):
            w = m.group(g)
            if not w:
                continue
            bare = _POSSESSIVE.sub("", w)
            if bare.capitalize() not in names or bare in _MODALS or bare in MONTHS \
                    or is_function_word(bare) or bare in NOT_ADDRESSED or _CONTRACTION.search(w):
                break
            out.append((m.start(g), m.start(g) + len(bare)))
    for m in _REACHED_CAPITALISED.finditer(text):
        w = _POSSESSIVE.sub("", m.group(1))
        if in_name_lists(w) and w.lower() not in MONTHS and w not in place_names() \
                and w not in country_names() and (not is_function_word(w) or w.lower() in _MODALS):
            out.append((m.start(1), m.start(1) + len(w)))  # "tell Will he": no modal after "tell"
    return out


def _contacted_names(text: str, is_word) -> list[tuple[int, int]]:
    """A given name of the English-speaking lists in lower case after a verb of getting in touch ("called
    anna", "paged rose"), dictionary word or not: what follows such a verb is a person or nothing; and one
    in any case that got in touch, a message's news ("FYI - Marguerite called.", "Anselm phoned twice"; a
    company calls too, so only a given name of the lists, never a country's: "Jordan called on")."""
    names = given_names(ENGLISH_LOCALES)
    return [(m.start(1), m.end(1)) for m in _CONTACTED.finditer(text)
            if m.group(1).capitalize() in names and not is_function_word(m.group(1))
            and m.group(1) not in NOT_ADDRESSED and not _CONTRACTION.search(m.group(1))] + \
        [(m.start(1), m.end(1)) for m in _GOT_IN_TOUCH.finditer(text)
         if m.group(1).capitalize() in names and m.group(1).lower() not in _MODALS
         and not is_function_word(m.group(1)) and m.group(1).capitalize() not in country_names()] + \
        _reached_names(text, is_word)


_ROLE_INITIALS = re.compile(rf"(?i:\b(?:{INITIAL_ROLES})s?)[ \t]+((?-i:[A-Z])\.(?:,?[ \t]+(?:(?:and|&)[ \t]+)?(?-i:[A-Z])\.)*)"
                            r"(?![\w.])")


def _role_initials(text: str, is_word) -> list[tuple[int, int]]:
    """Initials that stand for a person after a role, as judgments and reports anonymise ("investigator S.",
    "officers B. and D."): each initial is that person's name."""
    return [(m.start(1) + i.start(), m.start(1) + i.end()) for m in _ROLE_INITIALS.finditer(text)
            for i in re.finditer(r"[A-Z]\.", m.group(1))]


# A ward's team members a note names by their role's letters ("SW Beverly following", "CM Dolores aware",
# "sitter (Maribel)"): the letters are also compass points and states ("SW Florida", "PA Turnpike"), so only a
# given name or surname of the English lists that no dictionary holds counts ("SW London" is a place; "SW Grace"
# is lost), and never a place's name
_CARE_ROLE = re.compile(r"(?<![\w/])(?:" + "|".join(sorted({w for r in CARE_ROLES for w in (r, r.upper(), r.capitalize())},
                                                          key=len, reverse=True)) +
                        rf")(?:[ \t]+|[ \t]*\([ \t]*)({_CAPWORD}|[a-z][\w'’\-]+)(?:[ \t]+({_CAPWORD}))?")


_CARE_ROLE_SET = frozenset(CARE_ROLES)
_PLACE_LETTERS = frozenset("sw dc cm".split())  # also a compass point, a capital, centimetres: "SW London"


def _is_sentence_start(text: str, i: int) -> bool:
    before = text[max(0, i - 4):i].rstrip(" \t(")
    return not before or before[-1] in ".!?:\n"


def _care_role_names(text: str, is_word) -> list[tuple[int, int]]:
    """The name after a care or police team member's role (_CARE_ROLE, pii_words.CARE_ROLES): a given name or
    surname of the lists no dictionary holds, any capitalised word of those lists or none, or a capitalised
    word after a role written in lower case ("aide Precious", "carer Blessing"); a given name of the lists and
    a surname after it ("SW Deb Halloran")."""
    out = []
    for m in _CARE_ROLE.finditer(text):
        w = m.group(1).capitalize()
        bracketed = "(" in m.group(0)[:m.start(1) - m.start()]
        if w in place_names() or w in country_names() or w.lower() in STOP_WORDS or w.lower() in _CARE_ROLE_SET \
                or w.lower() in MONTHS or w.lower() in WEEKDAYS or w.endswith("s") and is_word(w[:-1]) and not bracketed:
            continue  # "interpreter Services", "physio Monday"; "liaison (Mags)" is a name
        role = m.group(0)[:m.start(1) - m.start()].strip(" \t(").lower()
        if (in_name_lists(w) or role in _PLACE_LETTERS) and not is_word(w) \
                or role not in _PLACE_LETTERS and m.group(1)[0].isupper() and not m.group(2) \
                and not _is_sentence_start(text, m.start(1)) \
                and (in_name_lists(w) or not is_word(w) or m.group(0)[:1].islower()):
            out.append((m.start(1), m.start(1) + len(_POSSESSIVE.sub("", m.group(1)))))
        elif m.group(2) and w in given_names() and m.group(1)[0].isupper() \
                and (m.group(2) in surnames() or not is_word(m.group(2))):
            out.append((m.start(1), m.start(2) + len(_POSSESSIVE.sub("", m.group(2)))))  # "SW Deb Halloran"
    return out


# A nickname in quotes: inside a name ('Ernesto "El Chato" Morales', "Mr Ostap 'Ostik' Hlynka") the whole of
# it, or in brackets right after one ("conceicao ('sao')", '(prefers "Lily")', "(Danny)"), or what somebody is
# called ('family calls him "Fez"'; "known as" only where a person stands before it: things are known as something
# too, "cracks known as 'grikes'")
_QUOTED = r"[\"“'‘]([^\W\d_][\w'’\-]*(?:[ \t]+[^\W\d_][\w'’\-]*)?)[\"”'’]"
_NICKNAMED = re.compile(rf"(?<![\w'’\-])({_CAPWORD})[ \t]+{_QUOTED}[ \t]+({_CAPWORD})")
_NICKNAME_AFTER = re.compile(rf"(?<![\w'’\-])({_ANYWORD})[ \t]+\([ \t]*((?i:prefers|goes[ \t]+by|aka|a\.k\.a\.|"
                             rf"known[ \t]+as|called)[ \t]+)?(?:{_QUOTED}|({_CAPWORD}))[ \t]*\)")
_QUOTED_IN_BRACKETS = re.compile(rf"\([ \t]*{_QUOTED}(?:[ \t]+(?:per|says|to)[ \t]+[^)\n]{{1,20}})?[ \t]*\)")
_CALLED = re.compile(rf"(?i:\b(?:calls?[ \t]+(?:him|her)(?:self)?|nicknamed|goes[ \t]+by|nom[ \t]+de[ \t]+guerre|"
                     rf"alias))[ \t]+{_QUOTED}")
# ... and what a person is known as or dubbed, with a person named or meant just before ('a man known as "Smiler"',
# 'Cheung, 68, known in the local press as "Big Kei"', 'whom the press dubbed "Ivo the Terrible"')
_KNOWN_AS = re.compile(rf"(?i:\b(?:man|woman|boy|girl|he|she|who|whom|himself|herself|commander|leader|boss|enforcer|"
                       rf"gunman|killer|robber|fighter|player|striker|boxer|rider|singer|rapper|\d{{1,3}},)\b[^.!?\n]{{0,40}}?"
                       rf"\b(?:(?:known|referred[ \t]+to)(?:[ \t]+(?:on[ \t]+the[ \t]+street|locally|to[ \t]+\w+|in[ \t]+"
                       rf"[\w \t]{{1,25}}?))?[ \t]+as|dubbed))[ \t]+(?-i:[\"“'‘]((?!(?i:the|a|an)\b)[A-Z][\w'’\-]*"
                       rf"(?:[ \t]+[\w'’\-]+){{0,2}})[\"”'’])")


def _nickname_names(text: str, is_word) -> list[tuple[int, int]]:
    """A name with its nickname in quotes: a given name (of the lists, or no dictionary word), the nickname
    and the surname whole ('Darnell "Bam" Fowler'; 'Operation "Desert Storm" Begins' is no name); a nickname in
    brackets after a given name of the lists, itself a name or no dictionary word; and the nickname somebody goes
    by."""
    out = []
    if '"' not in text and "'" not in text and "“" not in text and "‘" not in text:
        return out
    for m in _NICKNAMED.finditer(text):
        first = m.group(1)
        if first.capitalize() in given_names() and first.lower() not in STOP_WORDS or not is_word(first):
            out.append((m.start(1), m.end(3)))
    for m in _NICKNAME_AFTER.finditer(text):
        before, cue, nick = m.group(1), m.group(2), m.group(3) or m.group(4)
        g = 3 if m.group(3) else 4
        if is_function_word(before) or is_function_word(nick.split()[0]):
            continue  # a defined term: 'Mr Vitalie Rusu ("the applicant")'
        named = before.capitalize() in given_names() or before[:1].isupper() and (
            before in surnames() or not is_word(before))
        if cue or named and (not is_word(nick) or nick.capitalize() in given_names()) and (
                m.group(3) or nick in given_names()):  # 'Society of Jesus ("Jesuits")', "Apple (Pie)"
            out.append((m.start(g), m.end(g)))
            if before.capitalize() in given_names():
                out.append((m.start(1), m.end(1)))
    for m in _QUOTED_IN_BRACKETS.finditer(text):
        first = m.group(1).split()[0]
        if first.lower() not in STOP_WORDS and not NEVER_A_NAME.match(first.rstrip(".")) and any(
                w.capitalize() in given_names() for w in m.group(1).split()):  # not 'River ("Fleuve Manche")'
            out.append((m.start(1), m.end(1)))  # '("Lily" per parents)', '("taffy")', '("Trix") (wife)'
    out += [(m.start(1), m.end(1)) for m in _CALLED.finditer(text)]
    out += [(m.start(1), m.end(1)) for m in _KNOWN_AS.finditer(text)]
    return out


# A log's or a task list's lines each ending with who wrote or owns them after a dash: initials ("00:15 asleep
# – KP") or a given name ("[ ] release notes - Sunny"), two or more lines so
_LINE_OWNER = re.compile(r"(?m)[ \t][-–—~][ \t]*([A-Z]{2,3}|[^\W\d_a-z][^\W\d_A-Z][\w'’\-]*)[ \t]*$")


def _line_owners(text: str, is_word) -> list[tuple[int, int]]:
    """Who two or more lines end with after a dash (_LINE_OWNER): initials that end two lines (not an acronym
    that ends lines as well: "- OK", "- N/A", pii_words.NOT_INITIALS), and capitalised words of which two or
    more, and at least half, are names of the lists or no dictionary words ("- Sunny" beside "- Hiroshi")."""
    found = [m for m in _LINE_OWNER.finditer(text) if m.group(1).lower() not in NOT_INITIALS
             and m.group(1).lower() not in STOP_WORDS and m.group(1).lower() not in MONTHS
             and m.group(1).lower() not in WEEKDAYS and m.group(1) not in place_names()
             and m.group(1) not in country_names()]
    if len(found) < 2:
        return []
    counts: dict[str, int] = {}
    for m in found:
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    words = [m for m in found if not m.group(1).isupper()]
    named = [m for m in words if in_name_lists(m.group(1)) or not is_word(m.group(1))]
    out = [(m.start(1), m.end(1)) for m in found if m.group(1).isupper() and counts[m.group(1)] >= 2]
    if len(named) >= 2 and 2 * len(named) >= len(words):
        out += [(m.start(1), m.end(1)) for m in words]
    return out


# A note's signature: a name, then a care credential, alone on a line or after a dash under the last sentence
# ("WILL CONT TO MONITOR. --T.BOATENG RN",
# "-- R. Ng RN", "-s.bettencourt rn", "Soo-ah P., RN", "Yvette Toussaint, RN"); a word of it is an initial,
# a name of the lists or no dictionary word ("Charge RN", "Night RN" are roles)
_CREDENTIAL = r"(?:RN|MD|NP|PA-?C|PA|RRT|RT|LPN|CNA|MSW|LCSW|LICSW|PharmD|DO|BSN|CCRN|APRN)"
_CREDENTIALED = re.compile(rf"(?im)(?:^[ \t>]*(?:[-–—~]{{1,2}}|/)?|(?<=[.!?])[ \t]+(?:[-–—~]{{1,2}}|/))[ \t]*((?:{_INITIAL}\.?[ \t]?)*[^\W\d_][\w'’\-]*\.?"
                           rf"(?:[ \t]+(?:{_INITIAL}\.|[^\W\d_][\w'’\-]*\.?)){{0,2}}),?[ \t]+(?-i:{_CREDENTIAL}|"
                           rf"(?i:{_CREDENTIAL}))\.?(?:[ \t]*[,/][ \t]*{_CREDENTIAL})*[ \t]*$")


def _credentialed_names(text: str, is_word) -> list[tuple[int, int]]:
    """The name a note is signed with, before a care credential on its own line (_CREDENTIALED)."""
    out = []
    for m in _CREDENTIALED.finditer(text):
        words = [w for w in re.split(r"[ \t.]+", m.group(1)) if len(w) >= 2]
        if not words or any(w.lower() in STOP_WORDS for w in words):
            continue
        if all(in_name_lists(w.capitalize()) or not is_word(w) for w in words) \
                or len(words) >= 2 and words[0].capitalize() in given_names() and words[-1][:1].isupper() \
                or re.match(r"[A-Za-z]\.", m.group(1)) and words[-1][:1].isupper():  # "R. Ng RN": "ng" is a unit
            out.append((m.start(1), m.end(1)))
    return out


# A name and the role it stands in, in brackets, as notes and minutes write it ("Drew (charge RN) aware",
# "Dr. Lindgren (attending)", "Brother Khalid (driver)")
_ROLE_IN_BRACKETS = re.compile(
    rf"(?<![\w'’\-])({_CAPWORD}(?:[ \t]+{_CAPWORD})?)[ \t]+\((?i:(?:charge|primary|night|day|float|bedside|"
    r"covering|on-call|icu|floor|agency|travel|staff|case)[ \t]+)?(?i:rn|nurse|md|np|pa|rt|attending|resident|"
    r"fellow|intern|surgeon|physician|interpreter|translator|chaplain|sw|social[ \t]+worker|case[ \t]+manager|cm|"
    r"pt|ot|slp|pharmacist|dietitian|sitter|driver|hcp|health[ \t]+care[ \t]+proxy|proxy|guardian|"
    r"son|daughter|wife|husband|mother|father|sister|brother|niece|nephew|friend|neighbou?r|"
    r"chair|chairman|chairwoman|chairperson|co-chair|vice-chair|secretary|treasurer|staff|host|moderator|"
    r"facilitator|note-?taker|minutes|guest|visitor|observer|speaker|presenter|coach|captain|"
    r"pta|ota|psych|physio|slt|salt|hca|enp|anp|cpn|amhp|pc|dc|support|tech|technician|student|student[ \t]+nurse)"
    r"[ \t]*\)")


def _role_in_brackets_names(text: str, is_word) -> list[tuple[int, int]]:
    """A name with its role in brackets after it (_ROLE_IN_BRACKETS): its words names of the lists or no
    dictionary words ("Neurosurgery (attending)" is a service)."""
    out = []
    for m in _ROLE_IN_BRACKETS.finditer(text):
        words = m.group(1).split()
        start = m.start(1)
        if len(words) == 2 and (words[0].lower() in STOP_WORDS or words[0].lower() in _KIN_SET):
            words, start = words[1:], m.start(1) + len(words[0]) + 1
        if words[0].lower() in STOP_WORDS and words[0] not in given_names():
            continue  # "The (attending)"; "Will (PTA)" is a name
        if words and all(in_name_lists(w) or not is_word(w) for w in words):
            out.append((start, m.end(1)))
    return out


# The speakers of a chat log: a time, maybe a date, then "Name:" at each line's start ("[19:03] Kwame: im in",
# "12/03/2024, 19:02 - Siobhan: ok"); two lines so written make a log
_CHAT_LINE = re.compile(r"(?m)^[ \t]*(?:\[?[^\n:\]]{0,30}?\d{1,2}:\d{2}(?::\d{2})?"
                        rf"(?:[ \t]*[AaPp]\.?[Mm]\.?)?\]?[ \t]*[-–—,]?[ \t]*)(<?({_ANYWORD}(?:[ \t]+{_ANYWORD}){{0,2}})>?)"
                        r"[ \t]*:[ \t]")
# ... and as Discord and its kind print a message's header: the display name, a dash and the time on a line of
# its own ("**Kenji | EU** — Today at 9:15 PM", "Rose 🌹 — 03/04/2024 8:02 PM", "Emre — Bugün saat 23:07")
_CHAT_HEADER = re.compile(r"(?m)^[ \t]*(?:\*\*)?([^\n—–]{1,40}?)(?:\*\*)?[ \t]+[—–-][ \t]+[^\n]{0,30}?\d{1,2}:\d{2}"
                          r"(?:[ \t]*[AaPp]\.?[Mm]\.?)?[ \t]*$")


# ... and a group chat copied without times: "Name:" opening three or more lines, two or more of the names given
# names of the lists ("Aoife: sorry babe paying now x", "Meg: can i pay half", "Greg W: Kowalski's lad did ours")
_CHAT_NAME_LINE = re.compile(rf"(?m)^[ \t]*({_CAPWORD}(?:[ \t]+(?:{_CAPWORD}|[A-Z]\.?))?):[ \t]+\S")


def _chat_speakers_untimed(text: str) -> list[tuple[int, int]]:
    lines = [m for m in _CHAT_NAME_LINE.finditer(text) if m.group(1).split()[0].lower() not in STOP_WORDS
             and m.group(1).split()[0].lower() not in LINE_LABELS and m.group(1).split()[0].lower() not in NOTE_LABELS]
    named = {m.group(1) for m in lines if m.group(1).split()[0] in given_names()}
    if len(lines) < 3 or len(named) < 2:
        return []
    return [(m.start(1), m.end(1)) for m in lines if m.group(1).split()[0] in given_names()
            or in_name_lists(m.group(1).split()[-1])]


def _chat_speakers(text: str, is_word) -> list[tuple[int, int]]:
    """Who speaks in a chat log with times (_CHAT_LINE, _CHAT_HEADER): every speaker, when two lines are so
    written."""
    out = []
    lines = list(_CHAT_LINE.finditer(text))
    if len(lines) >= 2:
        out += [(m.start(2), m.end(2)) for m in lines if m.group(2).lower() not in STOP_WORDS
                and not all(is_word(w) and w.capitalize() not in given_names() for w in m.group(2).split())]
    if ":" in text:
        out += _chat_speakers_untimed(text)
    headers = list(_CHAT_HEADER.finditer(text))
    if len(headers) >= 2:  # the display names: a person's name or handle, either of which names its holder
        for m in headers:
            for w in re.finditer(r"[^\W_][\w.'’\-]*", m.group(1)):
                if not (w.group(0).isupper() and len(w.group(0)) <= 3):  # "| EU": a region's tag
                    out.append((m.start(1) + w.start(), m.start(1) + w.end()))
    return out


# "Last, First" alone on its line, as invitations, rosters and approvals list people ("    Castellano, Vincent",
# "Santos, Maria da Graça"): the given name after the comma is one of the lists and no place, the surname no
# country and no dictionary word unless a surname of the lists (surnames are often towns: "Castellano")
_LAST_FIRST_LINE = re.compile(rf"(?m)^[ \t>*•\-]*({_CAPWORD}(?:[ \t]+{_CAPWORD})?,[ \t]*({_CAPWORD})"
                              rf"(?:[ \t]+(?:{_INITIAL}\.?|{_CAPWORD}|(?:da|de|del|van|von|der|di|la|le|du|dos|das)))*)"
                              r"[ \t]*(?:[;,(<\[][^\n]*)?$")


def _last_first_lines(text: str, is_word) -> list[tuple[int, int]]:
    """A line that holds a "Last, First" name and maybe a note after it (_LAST_FIRST_LINE)."""
    out = []
    for m in _LAST_FIRST_LINE.finditer(text):
        last, first = m.group(1).split(",")[0], m.group(2)
        if first in given_names() and first not in place_names() and first not in country_names() \
                and last not in country_names() and (not is_word(last) or last in surnames()) \
                and last.lower() not in _CLOSINGS_SET and last.lower() not in _GREETING_WORDS:
            out.append((m.start(1), m.end(1)))
    return out


# A table's column of people: its heading names who stands in it ("| Manager |", "TRADER", "Assigned to"), as
# a pipe table or columns set apart by two or more spaces or tabs write it; each cell of that column below the
# heading that reads as a name (capitalised words or initials, not "me", "TBD" or a number)
_CELL_NAME = re.compile(rf"(?:{_INITIAL}\.?[ \t]?)*{_CAPWORD}\.?(?:[ \t]+(?:{_INITIAL}\.|{_CAPWORD}|"
                        r"(?:van|von|de|der|da|del|di|la|le|du|al|bin|ibn)))*")
_COLUMN_GAP = re.compile(r"[ \t]*\|[ \t]*|\t+|[ \t]{2,}")


def _cells(line: str) -> list[tuple[int, int]]:
    """The cells of a table line as (start, end) within the line: split at "|", tabs or runs of 2+ spaces."""
    out, start = [], 0
    body = line.rstrip()
    for m in _COLUMN_GAP.finditer(body):
        if m.start() > start:
            out.append((start, m.start()))
        start = m.end()
    if start < len(body):
        out.append((start, len(body)))
    return out


def _is_person_heading(cell: str) -> bool:
    words = cell.lower().strip(" :*").replace("_", " ")
    return words in PERSON_HEADINGS or words.rstrip("s") in PERSON_HEADINGS or words in PERSON_HEADING_PHRASES


def _table_column_names(text: str, is_word) -> list[tuple[int, int]]:
    """The names in a table's column of people (PERSON_HEADINGS), in the rows under its heading that have as
    many cells as the heading has."""
    if "|" not in text and "  " not in text and "\t" not in text:
        return []
    out, column, width = [], None, 0
    pos = 0
    for line in text.split("\n"):
        cells = _cells(line)
        texts = [line[a:b] for a, b in cells]
        if len(cells) >= 2:
            heading = [k for k, c in enumerate(texts) if _is_person_heading(c)]
            if heading and sum(_is_person_heading(c) or not any(ch.isdigit() for ch in c) for c in texts) == len(texts):
                column, width = heading, len(cells)
            elif column is not None and len(cells) == width:
                for k in column:
                    a, b = cells[k]
                    cell = line[a:b]
                    words = re.findall(r"[^\W\d_][\w'’\-]*", cell)
                    if _CELL_NAME.fullmatch(cell) and cell.split()[0].lower().rstrip(".") not in STOP_WORDS \
                            and not (len(words) == 1 and is_word(words[0]) and words[0] not in given_names()
                                     and words[0] not in surnames()):  # "Total", "Vacant"; not "Big Mo"
                        out.append((pos + a, pos + b))
            elif column is not None and not re.fullmatch(r"[\s|:\-+=]*", line):
                column = None  # the table ended
        elif column is not None and not re.fullmatch(r"[\s|:\-+=]*", line):
            column = None
        pos += len(line) + 1
    return out


# An alias, as Indian and Kenyan judgments and police records join a person's names: "Munna @ Sunil Kumar Yadav",
# "MOHD. IRFAN @ GUDDU", "Otieno alias Bazu": capitalised words on both sides of an "@" set off by spaces (an
# address or a handle has none), "alias", "a/k/a", "aka" or "urf"
_ALIAS = re.compile(rf"(?<![\w'’\-.@])((?:{_CAPWORD}\.?[ \t]+){{0,3}}{_CAPWORD})[ \t]+(?:@|alias|a/k/a|aka|urf)[ \t]+"
                    rf"({_CAPWORD}(?:[ \t]+{_CAPWORD}){{0,3}})")


def _alias_names(text: str, is_word) -> list[tuple[int, int]]:
    """Both names of an alias (_ALIAS), when a word of either side is a name of the lists or no dictionary
    word ("Home @ Work" is no one)."""
    if " @ " not in text and " alias " not in text and " a/k/a " not in text and " aka " not in text \
            and " urf " not in text:
        return []
    out = []
    for m in _ALIAS.finditer(text):
        words = re.findall(r"[^\W\d_][\w'’\-]*", m.group(0))
        if any(in_name_lists(w.capitalize()) or not is_word(w) for w in words):
            out += [(m.start(1), m.end(1)), (m.start(2), m.end(2))]
    return out


# A judge by the letters after the surname, as common-law judgments name them ("Samuels J", "per Kahn-Jacobs J
# concurring", "MOLEFE-VAN WYK J:", "Okafor LJ", "Dlamini AJA")
_JUDGE_LETTERS = re.compile(rf"(?<![\w'’\-])((?:{_CAPWORD}[ \t]+)?{_CAPWORD})[ \t]+(?:J|JA|JJ|LJ|LJJ|CJ|AJ|AJA|ACJ|DCJ|JP)"
                            r"(?=[ \t]*(?:[,:;)]|$|\(|concurring|dissenting|agreeing|said|held|observed|found|"
                            r"in|and|with|at|\n))", re.M)


def _judge_names(text: str, is_word) -> list[tuple[int, int]]:
    """The surname before a judge's letters (_JUDGE_LETTERS); of two words only those that are no title or
    court word ("Mr Justice", "Court")."""
    out = []
    for m in _JUDGE_LETTERS.finditer(text):
        words = m.group(1).split()
        start = m.start(1)
        if len(words) == 2 and (words[0].lower() in STOP_WORDS or is_word(words[0])
                                and words[0].capitalize() not in surnames() and not words[0].isupper()):
            start += len(words[0]) + 1
            words = words[1:]
        if words[-1].lower() in STOP_WORDS or words[-1].upper() in ("THE", "COURT", "HIGH", "SUPREME") or len(words) == 1 \
                and is_word(words[0]) and words[0].capitalize() not in surnames() and not words[0].isupper():
            continue  # "Vitamin J"
        out.append((start, m.end(1)))
    return out


# A witness by the number the record gives (Indian and Kenyan judgments: "PW-2 Sunita", "PW1, Jane Atieno Owino",
# "DW3 Shri Ram Kishan"): the name after the prosecution's, the defence's or the court's witness number
_WITNESS_NUMBER = re.compile(rf"(?<![\w/])(?:PW|DW|CW|AW|RW|P\.W\.|D\.W\.)[-. ]?\d{{1,3}}[,:]?[ \t]+(?:(?:Smt|Shri|Sri|Dr|Mr|Mrs|Ms)"
                             rf"\.?[ \t]+)?({_CAPWORD}(?:[ \t]+{_CAPWORD}){{0,3}})")


def _witness_names(text: str, is_word) -> list[tuple[int, int]]:
    """The name after a witness number (_WITNESS_NUMBER), up to a word that is no name ("PW-2 Sunita, sister of")."""
    out = []
    for m in _WITNESS_NUMBER.finditer(text):
        words = m.group(1).split()
        keep = []
        for w in words:
            if w.lower() in STOP_WORDS or is_word(w) and not in_name_lists(w):
                break
            keep.append(w)
        if keep and keep[0].lower() not in STOP_WORDS:
            out.append((m.start(1), m.start(1) + len(" ".join(keep))))
    return out


# A party's line in a judgment's heading: the name, dotted leaders or a run of spaces, and the party's role
# ("SUNDAY OLUWASEGUN ADEKUNLE ........ APPELLANT", "ROSE NYAMBURA NDUNG'U ..... LANDLORD", "Chioma Ibe   Applicant");
# not a body's name ("A NHS FOUNDATION TRUST   Applicant", "THE STATE ..... RESPONDENT")
_PARTY_LINE = re.compile(rf"(?m)^[ \t]*(?:\d{{1,2}}[.)][ \t]*)?((?:{_CAPWORD}\.?[ \t]+){{0,5}}{_CAPWORD})[ \t]*(?:\.{{3,}}|…+|[ \t]{{2,}}|,)"
                         r"[ \t.…]*(?i:(?:the[ \t]+)?(?:appellant|respondent|petitioner|tenant|landlord|plaintiff|defendant|"
                         r"applicant|accused|complainant|claimant|opponent|intervener|deponent)s?)(?:[ \t]+No\.?[ \t]*\d+)?"
                         r"[ \t]*$")



def _party_line_names(text: str, is_word) -> list[tuple[int, int]]:
    """A party's name on its line before its role (_PARTY_LINE), unless a word of it names a body."""
    out = []
    for m in _PARTY_LINE.finditer(text):
        words = [w.rstrip(".").lower() for w in m.group(1).split()]
        if words[0] in STOP_WORDS or any(w in BODY_WORDS for w in words) or m.group(1) in country_names():
            continue
        out.append((m.start(1), m.end(1)))
    return out


# A child or a party with an age set off by commas, as judgments give them ("Amelia, now aged 9, and Jack, aged 6")
_AGED_WORDS = re.compile(rf"(?<![\w'’\-])({_CAPWORD}),[ \t]+(?:now[ \t]+|then[ \t]+)?aged[ \t]+\d{{1,3}}\b")


def _aged_words_names(text: str, is_word) -> list[tuple[int, int]]:
    return [(m.start(1), m.end(1)) for m in _AGED_WORDS.finditer(text) if m.group(1).lower() not in STOP_WORDS
            and m.group(1) not in country_names() and (in_name_lists(m.group(1)) or not is_word(m.group(1)))]


# Who was born: "Poppy was born on 28 June 2016", "Will was born in 1990": a given name or surname of the lists,
# dictionary word or not, or a word no dictionary holds
_BORN = re.compile(rf"(?<![\w'’\-])({_CAPWORD})[ \t]+(?:was|were)[ \t]+born\b")


def _born_names(text: str, is_word) -> list[tuple[int, int]]:
    return [(m.start(1), m.end(1)) for m in _BORN.finditer(text) if m.group(1).lower() not in STOP_WORDS
            and m.group(1) not in country_names() and (in_name_lists(m.group(1)) or not is_word(m.group(1)))]


# A name with an age, and maybe a sex, in brackets or after it, as notes and reports give a person ("pt (Grant,
# 19M)", "(Okafor, 45)", "Hope (7F)")
_AGED_IN_BRACKETS = re.compile(rf"\([ \t]*({_CAPWORD}(?:[ \t]+{_CAPWORD})?),?[ \t]*\d{{1,3}}[ \t]*(?:[MFmf]|y/?o|yo|yrs?)?[ \t]*\)|"
                               rf"(?<![\w'’\-])({_CAPWORD})[ \t]*\([ \t]*\d{{1,3}}[ \t]*(?:[MF]|y/?o|yo)[ \t]*\)")


def _aged_names(text: str, is_word) -> list[tuple[int, int]]:
    """A name with an age in brackets (_AGED_IN_BRACKETS): a name of the lists or no dictionary word."""
    out = []
    for m in _AGED_IN_BRACKETS.finditer(text):
        g = 1 if m.group(1) else 2
        words = m.group(g).split()
        if words[0].lower() not in STOP_WORDS and m.group(g) not in country_names() and m.group(g) not in place_names() \
                and all(in_name_lists(w) or not is_word(w) for w in words):
            out.append((m.start(g), m.end(g)))
    return out


# A chess or a doubles match's pairing line: two players and the result ("L. Abashidze - Xu Meilan 1/2",
# "Zhu Jing - T. Khurtsidze 0-1", "N. Lomineishvili - Qin Yuting 1-0"): both sides
_PLAYER = rf"(?:(?:{_INITIAL}\.|[A-Z][a-z]\.)[ \t]?)*{_CAPWORD}(?:[ \t]+{_CAPWORD}){{0,2}}"
_PAIRING = re.compile(rf"(?m)^[ \t]*(?:\d{{1,2}}[.)][ \t]*)?({_PLAYER})[ \t]+[-–][ \t]+({_PLAYER})[ \t]+"
                      r"(?:1-0|0-1|1/2(?:-1/2)?|½(?:-½)?|0\.5-0\.5|draw|adj\.?)[ \t]*$")


def _pairing_names(text: str, is_word) -> list[tuple[int, int]]:
    """Both players of each pairing line (_PAIRING), unless a side is a country ("Georgia - China 1/2")."""
    return [(m.start(g), m.end(g)) for m in _PAIRING.finditer(text)
            if m.group(1) not in country_names() and m.group(2) not in country_names() for g in (1, 2)]


# A record's name fields, as JSON, YAML, a Python dict, key=value pairs or XML write them ('"first": "Ebony"',
# 'full_name="Ingrid Lindqvist"', "<last_name>Quist</last_name>", "surname: Okafor"): whatever the value's words,
# a person's name. Only keys that hold nothing else: a bare "name" also names apps, jobs and steps ("name: CI")
_FIELD_KEY = (r"(?:(?:full|first|last|given|family|middle|maiden|sur|fore|nick|display|legal|birth|preferred|"
              r"contact|customer|client|patient|employee|person|member|guest|parent|guardian|spouse|"
              r"emergency[_ -]?contact|account[_ -]?holder|card[_ -]?holder)[_ -]?name|firstname|lastname|fullname|"
              r"surname|forename|given|first|last)")
_FIELD = re.compile(rf"(?i)(?<![\w-])[\"']?{_FIELD_KEY}[\"']?[ \t]*(?:[:=]|=>)[ \t]*(?:\"([^\"\n]{{1,60}})\"|'([^'\n]{{1,60}})'|"
                    r"(?![\"'\[{(\d])([^\s,;}\]<>\"'][^,;}\]\n<>\"']{0,59}?))[ \t]*(?=[,;}\]\n]|$)|"
                    rf"<({_FIELD_KEY})>([^<>\n]{{1,60}})</\4>")
_NOT_A_VALUE = re.compile(r"(?i)(?:null|none|nil|true|false|n/?a|unknown|tbd|-+|\?+|\{[^}]*\}|\$\w+|%\w|<[^>]*>|"
                          r"str(?:ing)?|text|varchar.*|\w+\(.*)\Z")


def _field_names(text: str, is_word) -> list[tuple[int, int]]:
    """The value of each name field of a record (_FIELD): letters, not a type, a placeholder or a null. Code
    assigns such keys too ("first = nums[0]", "first_name = user.first_name"): a value without quotes counts
    only as capitalised words with no code in them, and the bare keys "first", "last", "given" only quoted."""
    out = []
    for m in _FIELD.finditer(text):
        g = next((g for g in (1, 2, 3, 5) if m.group(g) is not None), None)
        if g is None:
            continue
        value = m.group(g).strip()
        if g == 3 and (not all(w[:1].isupper() for w in value.split()) or re.search(r"[\[\](){}.=_+*/\\|]", value)
                       or re.match(r"(?i)[\"']?(?:first|last|given)\b", m.group(0))):
            continue
        start = m.start(g) + m.group(g).find(value)
        if value and re.search(r"[^\W\d_]", value) and not _NOT_A_VALUE.match(value) and "@" not in value:
            out.append((start, start + len(value)))
    return out


# the first line of a signature block under the separator mail clients write ("--\nDeborah Szymanski\nGraduate
# Program Coordinator", "-- \nBob"): the writer's name
_SIGNATURE_BLOCK = re.compile(rf"(?m)^--[ \t]*\n[ \t]*({_CAPWORD}(?:[ \t]+(?:{_INITIAL}\.?|{_CAPWORD})){{0,3}})[ \t]*$")


def _signature_block_names(text: str, is_word) -> list[tuple[int, int]]:
    """The name on a signature block's first line (_SIGNATURE_BLOCK): a word of it a name of the lists or no
    dictionary word ("--\nSales Team" is no one)."""
    if "--" not in text:
        return []
    return [(m.start(1), m.end(1)) for m in _SIGNATURE_BLOCK.finditer(text)
            if m.group(1).split()[0].lower() not in STOP_WORDS
            and any(in_name_lists(w) or not is_word(w) for w in m.group(1).split())
            and not any(w.lower() in BODY_WORDS for w in m.group(1).split())]


def _signature_names(text: str, is_word) -> list[tuple[int, int]]:
    """A message's last line, set apart by a blank line, of one or two capitalised words that are no
    dictionary words, or open with an English given name: its signature ("...\n\nVaclav", "...\n\nKaren");
    right under the last sentence, an English given name alone ("... anything else.\nCarol")."""
    m = _LAST_LINE.search(text)
    if m and (not all(is_word(w) for w in m.group(1).split()) or m.group(1).split()[0] in given_names(ENGLISH_LOCALES)):
        return [(m.start(1), m.end(1))]
    m = _NAME_UNDER_LAST_SENTENCE.search(text)
    name = m.group(1).capitalize() if m else ""
    if m and name in given_names(ENGLISH_LOCALES) and name not in place_names() and name not in country_names() \
            and not is_function_word(m.group(1)):
        return [(m.start(1), m.end(1))]  # not a task's input: "things to do in the given city.\nParis"
    return []


# in either case: a message written in lower case signs "...\ncarol"
_NAME_UNDER_LAST_SENTENCE = re.compile(r"[.!?][ \t]*\n(?:[ \t]*\n)?[ \t>-]*([A-Za-z][a-z'’\-]+)[ \t.]*\s*\Z")


# A message signed with initials at its very end: after its last sentence on the same line ("... look at this.
# JW"), alone on the last line ("Talk tomorrow.\nDF"), or in lower case after a dash ("will do. -kb"); one
# letter alone on the last line under a sentence or a closing ("Call me.\nD", "talk soon\nk", "Thanks,\n- M").
# A note's role shorthand stays that ("SW", social worker: pii_words.NEVER_A_NAME)
_SIGNED_INITIALS = re.compile(r"(?:(?<=[.!?])[ \t]+|\n[ \t]*)([A-Z]{2,3})[ \t.]*\Z|"
                              r"(?:(?<=[.!?,])|(?<=\A)|(?<=\s))[ \t]*[-–~]{1,2}[ \t]*([a-z]{2,3}|[A-Z]{2,3})[ \t.]*\Z|"
                              rf"(?:[.!?,]|(?i:\b(?:{CLOSINGS})))[ \t]*\n(?:[ \t]*\n)?[ \t]*(?:[-–~][ \t]*)?([A-Za-z])[ \t.]*\Z")


def _signed_initials(text: str, is_word) -> list[tuple[int, int]]:
    """The initials a message is signed with (_SIGNED_INITIALS); never a chat or business acronym that ends
    a message as well ("FYI", "LOL", "ASAP", "OK", "USA": pii_words.NOT_INITIALS)."""
    m = _SIGNED_INITIALS.search(text[-40:])
    if not m:
        return []
    g = m.lastindex  # the alternative that matched holds the one group set
    if m.group(g).lower() in NOT_INITIALS:
        return []
    off = max(0, len(text) - 40)
    return [(off + m.start(g), off + m.end(g))]


_INITIAL_SUBJECT = re.compile(rf"(?<![\w.])([A-Z]\.)(?=[ \t]+(?:{INITIAL_ACTOR_VERBS})\b)")


def _initial_subjects(text: str, is_word) -> list[tuple[int, int]]:
    """A lone initial that does what a person does ("G. told the police", "K. was arrested"): judgments and
    reports name witnesses so, and an initial that ends a sentence is followed by a capital, not a verb."""
    return [(m.start(1), m.end(1)) for m in _INITIAL_SUBJECT.finditer(text)
            if not text[max(0, m.start(1) - 2):m.start(1)].rstrip().endswith(".")]  # "U.S. was": not a lone initial


_KIN_SET = frozenset(KIN_WORDS)
# "Steve and I met", "me and jenna went": who stands beside the writer is a person
_WITH_ME = re.compile(rf"(?<![\w'’\-])({_ANYWORD})[ \t]+(?:and|&|n)[ \t]+(?:I|me|myself)\b(?!['’])|"
                      rf"\b(?:[Mm]e|I)[ \t]+(?:and|&|n)[ \t]+({_ANYWORD})(?![\w'’\-])")


def _with_me_names(text: str, is_word) -> list[tuple[int, int]]:
    """The one named beside "I" or "me": a given name of any list in any case, or a capitalised word that is no
    dictionary word ("Steve and I", "me and jenna", "Okonjo and I"); "Mom and I", "you and me" are no names."""
    names = given_names()
    out = []
    for m in _WITH_ME.finditer(text):
        g = 1 if m.group(1) else 2
        w = m.group(g)
        if is_function_word(w) or w.lower() in NOT_ADDRESSED or w.lower() in _KIN_SET or _CONTRACTION.search(w):
            continue
        # in lower case only a given name that is no dictionary word ("me and jenna"; not "a job and I")
        if w[0].isupper() and (w in names or not is_word(w)) or w.islower() and w.capitalize() in names and not is_word(w):
            out.append((m.start(g), m.end(g)))
    return out


_EMAIL = re.compile(r"(?<![\w.+-])([A-Za-z][\w.+-]*)@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_CAP_RUN = re.compile(rf"{_CAPWORD}(?:[ \t]+{_CAPWORD})*")


def _email_owner_names(text: str, is_word) -> list[tuple[int, int]]:
    """The words of an e-mail address's local part written out as capitalised words anywhere in the text:
    the address is its owner's name ("Lena Okafor lena.okafor@example.org", "jsmith@..." with "J. Smith"
    nearby is left to the NER). Words of 3+ letters of a personal address only: a shared mailbox's words
    ("info", "sales", "support") name a function."""
    words: set[str] = set()
    joined: set[str] = set()
    for m in _EMAIL.finditer(text):
        local = m.group(1).lower().split("+")[0]
        parts = [w for w in re.split(r"[._\-\d]+", local) if w]
        if any(w in MAILBOX_WORDS for w in parts):
            continue
        words.update(w for w in parts if len(w) >= 3 and w not in STOP_WORDS)
        if len(parts) == 1 and len(local) >= 6:
            joined.add(local)  # "lenaokafor": a pair of words written together
    if not words and not joined:
        return []
    spans = []
    for run in _CAP_RUN.finditer(text):
        toks = list(re.finditer(r"\S+", run.group(0)))
        hits = [t for t in toks if t.group(0).lower() in words]
        for i in range(len(toks) - 1):
            if (toks[i].group(0) + toks[i + 1].group(0)).lower() in joined:
                hits += [toks[i], toks[i + 1]]
        spans += [(run.start() + t.start(), run.start() + t.end()) for t in hits]
    return sorted(set(spans))


NAME_RULES: tuple[NameRule, ...] = (
    NameRule("header", "'Last, First' and 'First Last' in e-mail From/To/Cc lines", _header_names,
             finds=(("From: Okafor, Chidi\nTo: Lindqvist, Maja A.; Brennan, Tom", ["Okafor, Chidi", "Lindqvist, Maja A.", "Brennan, Tom"]),
                    ("Cc: Priya Raman <p.raman@example.org>", ["Priya Raman"]),
                    ("---- Forwarded by Dagny K Olafsdottir/LON/NORTHCO on 03/02/2001 ----\nTo: Teodor Vasilescu/LON/NORTHCO@NORTHCO",
                     ["Dagny K Olafsdottir", "Teodor Vasilescu"]),
                    ("cc: Abernathy@NORTHCO, Mirela Dragomir/LON/NORTHCO@NORTHCO", ["Abernathy", "Mirela Dragomir"]),
                    ("From: Crane, Grace\nTo: Doe, John A.", ["Crane, Grace", "Doe, John A."]),
                    ("FROM: CRANE, GRACE\nto: doe, john a.", ["CRANE, GRACE", "doe, john a."]),
                    ("If to the Lender: 12 Quay Road, Leith Attn: Morag Tennant Fax: 0131 496 0000",
                     ["Morag Tennant"]),
                    ("to: glenda prowse; cc: hal vickery, oksana b", ["glenda prowse", "hal vickery"]),
                    ("Von: Ruud van den Heuvel\nGesendet: Montag, 6. April 2009\nAn: Katrin Vogelsang\nCc: Schmitt, "
                     "Jürgen\nBetreff: Termin", ["Ruud van den Heuvel", "Katrin Vogelsang", "Schmitt, Jürgen"])),
             leaves=("To: All Staff\nSubject: Holiday party", "From: Customer Service", "To: Sales Team", "Read Input/Output and TCP/IP",
                     "to: all staff; cc: sales team", "from: the desk",
                     "Write to Support@Example.com")),
    NameRule("greeting", "a first name alone as a greeting or signature", _greeting_names,
             finds=(("Siobhan,\n\nThe files are attached.\n\nThanks,\nDariusz", ["Siobhan", "Dariusz"]),
                    ("See you soon.\n\nYours,\n\nBill", ["Bill"]),
                    ("hi kemal,\nsee you at 5. cheers, oskar", ["kemal", "oskar"]),
                    ("Jen--\nCan you resend it?\nthanks much, kay", ["Jen", "kay"]),
                    ("Anna,\nsee attached.", ["Anna"]), ("mark,\n\nattached is the draft.", ["mark"])),
             leaves=("Hi all,\nThe meeting moved.\n\nThanks!", "Ingredients:\nFlour, sugar\nSteps:",
                     "well,\n\nthat was fun.", "ok,\nsee you then.",
                     "Sounds good. Thanks, will do.", "Notes --\nbring the form")),
    NameRule("opening_address", "the given names a message opens by addressing", _opening_names,
             finds=(("Rich, attached is the memo we discussed.", ["Rich"]),
                    ("Hope -- can you call me when you land?", ["Hope"]),
                    ("Joy/Dawn - the meeting moved to 3pm.", ["Joy", "Dawn"]),
                    ("Will - thanks for the quick turnaround.", ["Will"])),
             leaves=("Will - the future tense in English", "Hope: a short story", "Summer - write a poem about it",
                     "Rich, creamy and sweet: the best fudge.", "May - June: the dry season")),
    NameRule("title_any_case", "a title in any case before a name, with initials", _title_names_any_case,
             finds=(("pt seen by dr okonkwo this am", ["okonkwo"]), ("MR JANKOWSKI REFUSED MEDS", ["JANKOWSKI"]),
                    ("Per dr patel, hold heparin. Discussed with np williams.", ["patel", "williams"]),
                    ("RT Marisol in to suction. Vent weaned per rt kowalski.", ["Marisol", "kowalski"]),
                    ("Mr A. B. Harrington appeared.", ["A. B. Harrington"]), ("Mrs K. testified.", ["K."]),
                    ("By Advs. Sri.K.Venugopalan, Smt.Anjali Menon", ["K.Venugopalan", "Anjali"]),
                    ("R1 By Adv. Sri.P.Suresh (Sr.)", ["P.Suresh"]),
                    ("a statement by Colonel Ç. Yıldızoğlu and Lt. Mirela Dragomir", ["Ç. Yıldızoğlu", "Mirela Dragomir"])),
             leaves=("Use 'Mr.' and 'Mrs.' correctly.", "The drone flew 3 mi to the dr.",
                     "Family called, updated by RN. Plan to meet tomorrow.", "Pain: c/o incisional pain 6/10",
                     "rt arm swollen, RT @drive_safe", "Follow all the #RT ers",
                     "A police constable has won his case.", "He will miss out on the final.")),
    NameRule("initials", "initials glued to a surname, and dotted initials alone", _initials_names,
             finds=(("Counsel: E.Varadarajan and A.J.Mathew", ["E.Varadarajan", "A.J.Mathew"]),
                    ("The report was signed by Ms T. Okoye.", ["T. Okoye"]),
                    ("a witness, K.T., who had worked there", ["K.T."]),
                    ("Counsel:\nA. Kowalczyk\nB. Lindqvist\n\nSigned\nJ. Smith", ["B. Lindqvist", "J. Smith"])),
             leaves=("The U.S. Army and the U.K. met at 9 A.M.", "A. Introduction\nB. Methods", "A. Damage\n\nB. Costs", "We chose plan B. Then it rained.",
                     "Respondent: State of U.P.", "the application I.A. No. 5/2014 was allowed",
                     "Incision with staples, C/D/I. Small amt serous drainage.")),
    NameRule("kin", "a name after a kin or care role in notes and letters", _kin_names,
             finds=(("Spoke with pt's daughter Ingrid re: discharge.", ["Ingrid"]),
                    ("wife JOLANTA at bedside, called son tadeusz", ["JOLANTA", "tadeusz"]),
                    ("happy birthday to my cousin zenobiax and my bestie Marisol", ["zenobiax", "Marisol"]),
                    ("visited by wife and 2 sons (Ezekiel & Thaddeus)", ["Ezekiel", "Thaddeus"]),
                    ("MOTHER (ROSA) AT BEDSIDE, UPDATED BY THIS RN", ["ROSA"]),
                    ("WIFE ROSA CALLED, UPDATED. SON MIGUEL TO VISIT.", ["ROSA", "MIGUEL"]),
                    ("Husband- Gregor, updated. Son = Okonkwo, lives out of state. Daughter: Marisela", ["Gregor", "Okonkwo", "Marisela"])),
             leaves=("My sister is a nurse at the clinic.", "His daughter called twice.", "Her mom wouldn't let her.",
                     "Mom I'm awake now.",
                     "years after his mother died there", "a neighbour told reporters",
                     "a member of the sister Indian National Congress", "Mother: Unknown. Father - Deceased.", "Mom: Good, sweetie!",
                     "the father-son bond")),
    NameRule("case_parties", "the private parties of a case's title or citation", _case_parties,
             finds=(("In Okoro v. Lindqvist the court held", ["Okoro", "Lindqvist"]),
                    ("CASE OF BRZOZOWSKI v. POLAND", ["BRZOZOWSKI"]),
                    ("as in Hurst against the United States", ["Hurst"])),
             leaves=("the fight against Malaria", "United States v. State", "the match Brazil v. Germany")),
    NameRule("signed_initials", "the initials a message is signed with", _signed_initials, message_end=True,
             finds=(("Ray - please look at this. JW", ["JW"]), ("Sounds good. Talk tomorrow.\nDF", ["DF"]),
                    ("ok - will do. -kb", ["kb"]), ("Call me when you land.\nD", ["D"]),
                    ("ok will do. talk soon\n- K", ["K"]),
                    ("OK for Tuesday.\n\nTW\n\n-----Original Message-----\nFrom: Halvard Moe\nSent: Monday",
                     ["TW"])),
             leaves=("I agree with the plan. FYI", "See the attached file. Let me know ASAP.", "that was hilarious LOL",
                     "We moved to the USA.", "Call me. OK", "Chapter 2 - IT", "so tired. -_-", "its hilarious! XD",
                     "Which is the answer?\nA\nB\nC\nD", "Pick one: A, B, C or\nD")),
    NameRule("dash_signature", "a name alone on its line after a dash, as mail is signed", _dash_signature_names,
             message_end=True,
             finds=(("Sounds good, see you then.\n-Kasimira", ["Kasimira"]), ("Out Friday.\n\n--sally", ["sally"]),
                    ("Call me at x4471. -Bill", ["Bill"]), ("Congrats to all.\n\n-Moira in Payroll", ["Moira"]),
                    ("Count me in.\n- Tomasz\n\n>>> Ilse Brandt <ib@example.org> 04/19/01 10:12AM >>>\nTee at noon.",
                     ["Tomasz"])),
             leaves=("Steps:\n- Mix\n- Bake", "Options:\n-- none --", "Pros and cons:\n- cheap\n- fast",
                     "Add the flour. -- Optional")),
    NameRule("contacted", "a given name in lower case after a verb of getting in touch", _contacted_names,
             finds=(("Pt seen, then called anna about discharge.", ["anna"]),
                    ("texted lena and paged rose twice", ["lena", "rose"]),
                    ("FYI - Marguerite called. She wants the ISDA.", ["Marguerite"]),
                    ("ANSELM PHONED TWICE, anna rang back", ["ANSELM", "anna"]),
                    ("I spoke with mark and bill this morning. Please ask sally whether it closed, and let joe know.",
                     ["mark", "bill", "sally", "joe"]),
                    ("Forward this to rich and frank. Tell grant I said hi.", ["rich", "frank", "grant"]),
                    ("yo can u tell Will he owes £40", ["Will"]), ("Would buy again. Ask for Tamsin!!", ["Tamsin"]),
                    ("next to the copier, ask for ronan.", ["ronan"]),
                    ("I'll get the signed copy to Will by Friday; a copy to Ffion for the file.", ["Will", "Ffion"])),
             leaves=("She called back later.", "We called home.", "I asked will he come", "Then we called it a day.",
                     "He told me so.", "asked for help", "my phone bill will rise",
                     "Jordan called on Israel to stop.", "The bank called.", "Will called it off", "so called.",
                     "I look forward to june.", "let me know", "ask will he come",
                     "Tell the truth.", "talk to sales about it", "pass it to legal")),
    NameRule("care_role", "a name after a ward team member's role letters in notes", _care_role_names,
             finds=(("Pt seen by ortho. SW Beverly following re: placement. CM Dolores aware.", ["Beverly", "Dolores"]),
                    ("Sitter (Maribel) at bedside.", ["Maribel"]), ("sw beverly to call family", ["beverly"]),
                    ("Met w/ team, SW Joy Okereke and this RN.", ["Joy Okereke"]),
                    ("Belt logged (witnessed HCA Radoslaw). Seen with PC Hughes, hospice aide Precious.",
                     ["Radoslaw", "Hughes", "Precious"]),
                    ("Police informed (DC Okwuosa). Alcohol liaison (Mags) not on until 0800.", ["Okwuosa", "Mags"])),
             leaves=("Flooding in SW Florida", "SW London rents rose", "sw of the city", "CM is 2.54 inches",
                     "the sitter will stay", "1200 SW Main St", "read DC Comics at the GP Surgery",
                     "called interpreter Services on Monday", "RN Case Manager visit")),
    NameRule("role_initial", "an initial standing for a person after a role", _role_initials,
             finds=(("investigator S. questioned the neighbour", ["S."]),
                    ("he had seen officers B. and D. beating him", ["B.", "D."])),
             leaves=("the officer's A. form", "the witness stand", "see Annex A. Then", "a major A.D. 1200 site")),
    NameRule("batting_card", "the batsman, fielder and bowler of a cricket scorecard's line", _batting_names,
             finds=(("Okonjo c Lindqvist b Haverford 12\nWhite not out 33", ["Okonjo", "Lindqvist", "Haverford", "White"]),
                    ("M. Kowalczyk lbw b Brennan 4", ["M. Kowalczyk", "Brennan"]),
                    ("Kent first innings: Okoro c Dale b Frost 21, Amberley not out 40",
                     ["Okoro", "Dale", "Frost", "Amberley"]),
                    ("T. MOODY NOT OUT 56\nOKORO C DALE B FROST 21", ["T. MOODY", "OKORO", "DALE", "FROST"])),
             leaves=("Extras (b 4, lb 2) 6", "Total (for 5 wickets) 233", "Step 2 c add 4")),
    NameRule("headline_subject", "the person a news wire headline in capitals is about", _headline_subjects,
             finds=(("GOLF - NORMAN LEADS BY TWO AT SUN CITY.", ["NORMAN"]),
                    ("SOCCER - HILL OUT FOR SIX WEEKS.", ["HILL"]),
                    ("BOXING - MIKE TYSON SAYS HE WILL FIGHT AGAIN.", ["MIKE TYSON"])),
             leaves=("SOCCER - CHELSEA SIGN DUTCH DEFENDER.", "RUGBY - FRANCE BEAT WALES 28-19.",
                     "CRICKET - ENGLAND SET FOR SERIES.", "Update - Power out in the east")),
    NameRule("role_bracketed", "a name in brackets after a role or an office", _role_bracketed_names,
             finds=(("The coach and his assistant (Rice) watched from the stand.", ["Rice"]),
                    ("a witness (Okonjo) told the court", ["Okonjo"])),
             leaves=("the director (CEO) resigned", "the striker (Brazil) scored", "the judge (retired) spoke",
                     "the manager (see above)", "the teacher (Grade 4)")),
    NameRule("pitchers", "the pitchers of a baseball report's decisions", _pitcher_names,
             finds=(("W - Okonjo (22-8). L - Lindqvist (15-11). S - Hale (38).", ["Okonjo", "Lindqvist", "Hale"]),
                    ("Pitching: Brennan (W, 10-5) 7 innings; Mesa (S, 30) 1 inning.", ["Brennan", "Mesa"])),
             leaves=("Size: S - Small (36-38)", "Table 2 (W, 10-5) shows", "Option L - Large")),
    NameRule("scorers", "the names of a football report's scorers' line", _scorer_names,
             finds=(("Scorers: Okonjo (14th minute), Lindqvist (67th). Rovers - Hale (80th pen)",
                     ["Okonjo", "Lindqvist", "Hale"]),
                    ("Goalscorers: Di Marzio (pen 23), K. Brennan (51)", ["Di Marzio", "K. Brennan"]),
                    ("Goals : Rovers - Okonjo ( 12 ) , Lindqvist 2 ( 8 )", ["Okonjo", "Lindqvist"])),
             leaves=("Top scorers: see table (page 4)", "Scorers: none", "Scorers:\nRovers 2 United 1")),
    NameRule("statistics", "the players of a sports report's box score and table of leaders", _statistics_names,
             finds=(("HR - Okonjo (31), Lindqvist 2 (28). SB - Hale (12).", ["Okonjo", "Lindqvist", "Hale"]),
                    ("Leading goalscorers :\n12 - Brandsma ( Twente )\n10 - Wright ( Vitesse ) , K. Oosthoek ( Ajax )",
                     ["Brandsma", "Wright", "K. Oosthoek"])),
             leaves=("E - Energy (J)", "3 - Paris (France)", "Steps:\n1 - Mix (Bowl)\n2 - Bake (Oven) for an hour", "1 - Mix (Bowl)\n2 - Stir (Spoon)",
                     "HR - Human Resources (2)")),
    NameRule("surname_does", "a surname that is a word, where a report puts a person", _surname_word_names,
             finds=(("Marsh took three wickets as Victoria bowled out Queensland. Law top-scored with 67.",
                     ["Marsh", "Law"]),
                    ("Banks disagreed, and Woods abstained.", ["Banks", "Woods"]),
                    ("Hale replaced the injured Cole after an hour; Shore crossed for Rush to head home.",
                     ["Cole", "Rush"])),
             leaves=("Law and order", "The Price of Freedom", "Price rose 4 percent", "ahead of Christmas",
                     "Victoria said on Monday", "ahead of Green Park")),
    NameRule("initial_subject", "a lone initial that does what a person does, as judgments name witnesses",
             _initial_subjects,
             finds=(("On 3 May 2002 G. told the police that she had been threatened.", ["G."]),
                    ("The next day K. was arrested at his home; M. confirmed it.", ["K.", "M."])),
             leaves=("The U.S. was not a party.", "We chose plan B. Then it rained.", "Annex A. Methods",
                     "see J.P. said nothing")),
    NameRule("with_me", "the person named beside 'I' or 'me'", _with_me_names,
             finds=(("Jeff - Steve and I met with them today.", ["Steve"]),
                    ("lol me and jenna went to the mall", ["jenna"]), ("Okonjo and I disagreed.", ["Okonjo"])),
             leaves=("You and I know it.", "Mom and I went home.", "between him and me", "Then me and the team left.",
                     "Coffee and I are friends.", "I now have a full time job and I start Monday")),
    NameRule("email_owner", "a name written out beside (or anywhere with) the e-mail address made of it",
             _email_owner_names,
             finds=(("Jan Pols j.pols@uva.nl University of Amsterdam Marit Okonjo marit.okonjo@kb.nl National Library",
                     ["Marit", "Okonjo", "Pols"]),
                    ("Reach me at tereza_novakova@example.cz any time. Tereza Novakova", ["Tereza", "Novakova"]),
                    ("Write to kwamemensah@example.com.\nKwame Mensah, Accra", ["Kwame", "Mensah"])),
             leaves=("Write to info@example.com about Info Sessions.", "Mail support.team@acme.io; the Support Team answers.",
                     "Email j.doe@example.com for the Annual Report.")),
    NameRule("record_field", "the value of a record's name field (JSON, YAML, a dict, key=value, XML)", _field_names,
             finds=(("{'first': 'Ebony', 'last': 'Cartwright'}", ["Ebony", "Cartwright"]),
                    ('user=ingrid.l; full_name="Ingrid Lindqvist"; role=admin', ["Ingrid Lindqvist"]),
                    ("patient:\n  first_name: marisela\n  surname: Delgado-Pham\n", ["marisela", "Delgado-Pham"]),
                    ("<contact><last_name>Quist</last_name></contact>", ["Quist"])),
             leaves=("name: CI\non: push", '{"first_name": null, "last_name": "{last}"}', "first: 1, last: 10",
                     "last_name VARCHAR(50) NOT NULL,", 'setup(name="eaglekit")', "first_name = str(input())",
                     "surname: <your surname>", "first = nums[0]", "first_name = user.first_name",
                     "const p = { firstName: props.first };", "for first in items: last = first")),
    NameRule("nickname", "a name with its nickname in quotes, and the nickname somebody goes by", _nickname_names,
             finds=(('champion Teodoro "El Flaco" Ibarra of Peru', ['Teodoro "El Flaco" Ibarra']),
                    ("Mr Bohdan 'Bodya' Kravets filmed it", ["Bohdan 'Bodya' Kravets"]),
                    ("linebacker Tyrell \"Tank\" Odom was released", ['Tyrell "Tank" Odom']),
                    ('2. MIKE "THE BRAIN" BALDUCCI 59-33', ['MIKE "THE BRAIN" BALDUCCI']),
                    ("dtr graciete ('gigi') at bedside", ["graciete", "gigi"]),
                    ('Pt Anwar Saleh, family calls him "Nono".', ["Nono"]),
                    ('Pt: Mrs Wu Mei-Ling (prefers "Amy"), 83', ["Amy"]), ("pt: Cormac O'Dwyer (Danny)", ["Danny"]),
                    ('A man known as "Grinner" stabbed a father of three', ["Grinner"]),
                    ('Tse, 71, known in the local press as "Big Wah", started out', ["Big Wah"]),
                    ('led by Farai Gumbo, who calls himself "Comrade Red"', ["Comrade Red"]),
                    ('Baby Girl Tran ("Mai" per parents), 29+3 wks', ["Mai"]), ('pt mr evans ("bobby") unsettled', ["bobby"])),
             leaves=('Operation "Desert Storm" Begins', 'the word "Hope" means', 'The "Big Apple" Store',
                     'members of the Society of Jesus ("Jesuits")', "cracks known as 'grikes'", "Apple (Pie) recipe",
                     'the states, also known as "the Confederacy"', 'a dish known as "Welsh Rarebit"',
                     "an area of England dubbed ‘Britain’s Dallas’", 'worried re: cat ("Mr. Whiskers")',
                     'the word ("hello") is', 'the Channel River ("Fleuve Manche") passed',
                     'a national, Mr Ilie Vrabie ("the applicant")',
                     "pt's 'baseline' (per wife)")),
    NameRule("line_owners", "who a log's or a task list's lines are signed or owned by, after a dash", _line_owners,
             finds=(("00:00 asleep, resp seen  – KQ\n00:15 asleep  – KQ\n00:30 awake – JT", ["KQ"]),
                    ("[ ] translations - Amélie\n[ ] release notes - Sunny\n[x] crash fix - Hiroshi", ["Sunny", "Hiroshi"])),
             leaves=("Step 1 - OK\nStep 2 - OK", "Mon - TBD\nTue - TBD", "Step 1 - Mix\nStep 2 - Bake",
                     "Deadline - June\nReview - Monday")),
    NameRule("credentialed", "the name a note is signed with, before a care credential", _credentialed_names,
             finds=(("WILL CONT TO MONITOR.\n--K.MENSAH RN", ["K.MENSAH"]), ("D/w Dr. Ruiz.  -- P. Vo RN", ["P. Vo"]), ("Plan as above.\n-- T. Vo RN", ["T. Vo"]),
                    ("npo, ivf.\n-r.quaresma rn", ["r.quaresma"]), ("Pt resting.\nLiesl Amundsen, RN", ["Liesl Amundsen"]),
                    ("Son at bedside.\nMin-seo K., RN", ["Min-seo K."])),
             leaves=("Report given to\nCharge RN", "Seen by\nNight RN", "paged covering MD", "Neuro: intact\nNeuro MD")),
    NameRule("role_in_brackets", "a name with its role in brackets after it", _role_in_brackets_names,
             finds=(("Drew (charge RN) aware.", ["Drew"]), ("seen w/ Will (PTA), Hope Eriksen (psych)", ["Will", "Hope Eriksen"]), ("Present: Ngozi (chair), Ines Park (staff)", ["Ngozi", "Ines Park"]),
                    ("w/ Dr. Solberg (attending), Dr. Amadi (fellow)",
                                                          ["Solberg", "Amadi"]),
                    ("Brother Tariq (driver) stable", ["Tariq"])),
             leaves=("Seen by Neurosurgery (attending) today", "Call Security (charge RN aware)", "Plan (per MD)")),
    NameRule("chat_speakers", "the speakers of a chat log with times", _chat_speakers,
             finds=(("[19:02] Oisin: who is coming tonight\n[19:03] Kwabena: im in\n[19:05] Oisin: ok",
                     ["Oisin", "Kwabena"]),
                    ("12/03/2024, 19:02 - Maura: on my way\n12/03/2024, 19:04 - dev: same", ["Maura", "dev"]),
                    ("2024년 5월 3일 오후 9:12, Ji-ho : home ok?\n2024년 5월 3일 오후 9:30, Hyun-woo : yes!!",
                     ["Ji-ho", "Hyun-woo"]),
                    ("**Kenta | EU** — Today at 9:15 PM\nya im here\nLilou 🌹 — Today at 9:16 PM\nsame",
                     ["Kenta", "Lilou"]),
                    ("Aisling: sorry babe paying now x\nMeg: can i pay half now\nChloe: yes fine meg\nMe: ok",
                     ["Aisling", "Meg", "Chloe"])),
             leaves=("[10:02] Note: backup started\n[10:05] Note: done", "10:00 Agenda: budget\n11:00 Lunch: canteen",
                     "Input: 3\nOutput: 4\nExplanation: sum", "Plan: rest\nDiet: soft\nActivity: walk")),
    NameRule("last_first_line", "a 'Last, First' name alone on its line, as invitations and rosters list people",
             _last_first_lines,
             finds=(("Required attendees:\n    Quaresma, Vincent\n    Oduya, Ngozi\n    Santos, Maria da Luz",
                     ["Quaresma, Vincent", "Oduya, Ngozi", "Santos, Maria da Luz"]),),
             leaves=("Offices:\nParis, France\nAustin, Texas", "Ingredients:\nSugar, Flour", "Atlanta, Georgia",
                     "Works for me.\nThanks, Oskar", "Best, Maren", "Hello, Dagny")),
    NameRule("table_column", "the names in a table's column of people, under its heading", _table_column_names,
             finds=(("| Rank | Team | Manager | W-L |\n|---|---|---|---|\n| 1 | Sofa Kings | Big Mo | 7-4 |\n"
                     "| 2 | Turtles | Dagny Sollie | 6-5 |", ["Big Mo", "Dagny Sollie"]),
                    ("DESK            TRADER              BOOK\nERCOT           J. Okafor           ERC-FIN\n"
                     "East Power      Dawn Price          EPW-PHY", ["J. Okafor", "Dawn Price"])),
             leaves=("| Name | Value |\n|---|---|\n| Total | 12 |", "| Team | Points |\n| Chelsea | 12 |",
                     "Player   Score\nme       12")),
    NameRule("alias", "both names of an alias joined by ' @ ', as Indian judgments write them", _alias_names,
             finds=(("the appellants, namely Ramcharan and his son Bablu @ Sunil Kumar Yadav, intercepted them",
                     ["Bablu", "Sunil Kumar Yadav"]), ("MOHD. ASLAM @ PAPPU ..... Petitioner", ["ASLAM", "PAPPU"]),
                    ("He blamed one Ochieng alias Bazu, a neighbour", ["Ochieng", "Bazu"])),
             leaves=("Meet me @ Home", "Stock @ Work Ltd", "email me @ 5pm", "Python alias Py")),
    NameRule("judge_letters", "a judge named by the letters after the surname", _judge_names,
             finds=(("held per Sekgobela J (Van Tonder AJA concurring) that", ["Sekgobela", "Van Tonder"]),
                    ("MOKOENA-VAN ROOYEN J:\n\n[87] I have read", ["MOKOENA-VAN ROOYEN"]),
                    ("As Okonjo LJ said in that case", ["Okonjo"])),
             leaves=("Vitamin J, not the HIGH COURT J", "See Form J and Schedule JA.")),
    NameRule("witness_number", "a witness named after the number the record gives", _witness_names,
             finds=(("PW-2 Sunita, sister of the deceased, corroborated him.", ["Sunita"]),
                    ("PW1, Akinyi Atieno Owino, the mother of the deceased, testified", ["Akinyi Atieno Owino"]),
                    ("DW3 Shri Ram Kishan stated", ["Ram Kishan"])),
             leaves=("PW-2 The witness was declared hostile", "Exhibit PW1 Statement")),
    NameRule("party_line", "a party's name on its line before its role, in a judgment's heading", _party_line_names,
             finds=(("BETWEEN:\nMONDAY OLUWASEUN ADEBAYO ................ APPELLANT\nAND\nTHE STATE ......... RESPONDENT",
                     ["MONDAY OLUWASEUN ADEBAYO"]),
                    ("ROSE WANJIRU NDUNG'U .................. LANDLORD", ["ROSE WANJIRU NDUNG'U"])),
             leaves=("A NHS FOUNDATION TRUST   Applicant", "THE STATE ......... RESPONDENT",
                     "KENYA POWER AND LIGHTING COMPANY LTD ....... RESPONDENT")),
    NameRule("aged_words", "a child or a party with an age set off by commas", _aged_words_names,
             finds=(("in respect of Amelie, now aged 9, and Jago, aged 6. The mother", ["Amelie", "Jago"]),),
             leaves=("the Company, aged 9 years,", "Section, aged 12")),
    NameRule("born", "who was born, given name or surname of the lists", _born_names,
             finds=(("1. Poppy was born on 28 June 2016 at St Aidan's Hospital.", ["Poppy"]),),
             leaves=("The Republic was born in 1991.", "Jazz was born in New Orleans.")),
    NameRule("aged", "a name with an age in brackets, as notes and reports give a person", _aged_names,
             finds=(("ED RN note 1612: pt (Grant, 19M) left before being seen", ["Grant"]),
                    ("Hope (7F) and Tobias (9M) seen", ["Hope", "Tobias"])),
             leaves=("(Table, 12)", "(Section 3, 12)", "Room (12M) was booked")),
    NameRule("pairing", "both players of a chess pairing line with its result", _pairing_names,
             finds=((" L. Abramia - Xu Meiqin 1/2\n Zhu Lan - T. Gogoladze 0-1\n Ye. Markina - E. Kovacs 1-0",
                     ["L. Abramia", "Xu Meiqin", "Zhu Lan", "T. Gogoladze", "Ye. Markina", "E. Kovacs"]),),
             leaves=("Georgia - China 1/2", "Hungary - Russia 1-0")),
    NameRule("signature_block", "the name on a signature block's first line, under '--'", _signature_block_names,
             finds=(("Sorry, fall it is.\n\nDeb\n\n--\nDeborah Szymanowska\nGraduate Program Coordinator",
                     ["Deborah Szymanowska"]), ("ok\n-- \nBob\n", ["Bob"])),
             leaves=("ok\n--\nSales Team\n", "Options:\n--\nNone")),
    NameRule("signature", "a message's signature on its last line", _signature_names, message_end=True,
             finds=(("The contract is attached.\n\nVaclav", ["Vaclav"]),
                    ("I talked to her about the offsite. Please call me.\n\nKaren", ["Karen"]),
                    ("I have added her comments. Let me know if you need more.\nCarol", ["Carol"]),
                    ("i have added her comments. let me know if you need more.\n\ncarol", ["carol"])),
             leaves=("Steps:\n1. Mix.\n\nEnjoy", "Ingredients are listed above.\n\nConclusion",
                     "Bake for an hour.\nEnjoy", "That is all.\nSummary",
                     "Make a list of things to do in the given city.\nParis")),
)


def rule_names(text: str, is_word) -> list[tuple[int, int]]:
    """Every span any rule of NAME_RULES finds; `is_word(w)` says whether w is an English dictionary word. The
    rules that read a message's end read every message of a thread."""
    ends = message_ends(text)
    return [span for rule in NAME_RULES
            for end in (ends if rule.message_end else (len(text),))
            for span in rule.find(text[:end] if end < len(text) else text, is_word)]
