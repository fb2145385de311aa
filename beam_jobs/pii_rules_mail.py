"""Name-finding rules for e-mail and letters: header lines ("From: Smith, Anna"), mail-system addresses,
greetings, the name a message opens by addressing, signatures, initials and dashes a message is signed with, the
owner of an address, and where each message of a thread ends (every message is signed). Their examples are in
beam_jobs/pii_name_rules.py's table, which runs them on every text.
"""
from __future__ import annotations

import functools
import itertools
import re

from beam_jobs.pii_words import (BODY_WORDS, CLOSING_ADDRESSEES, CLOSINGS, COMPANY_NOUNS, DEPARTMENTS, ENGLISH_LOCALES,
                                 ENGLISH_NICKNAMES, GREETING_FIRST_WORDS, GREETINGS, MAIL_FOLDER_WORDS, MAILBOX_WORDS, MONTHS, WEEKDAYS,
                                 NOT_ADDRESSED, NOT_INITIALS, NOT_MIXED_INITIALS, SHORT_CLOSINGS, SIGNATURE_LOCALES, country_names,
                                 given_names, in_name_lists, place_names, surnames)
from beam_jobs.pii_rules_common import (ANYWORD, CAPWORD, CONTRACTION, INITIAL, INITIALS_RUN, MODALS, NAME_GAP,
                                        STOP_WORDS, UPPER, WORD_START, is_function_word, lower_given_name, may_act)

_HEADER_LOWER = re.compile(r"(?:^|(?<=[;,]))[ \t]*([a-z][a-z'’\-]+[ \t]+[a-z][a-z'’\-]+)(?=[ \t]*(?:[;,<]|$))")
_SUBJECT_LINE = re.compile(r"(?im)^[ \t>]*(?:subject|sent|date)[ \t]*:")
_HEADER_LOWER_ONE = re.compile(r"[ \t]*([a-z][a-z'’\-]{1,20})[ \t]*")
_HEADER_LOWER_LAST_FIRST = re.compile(r"(?:^|(?<=;))[ \t]*([a-z][a-z'’\-]+),[ \t]*([a-z][a-z'’\-]+)"
                                      r"(?:[ \t]+[a-z]\.?)?(?=[ \t]*(?:[;<]|$))")
# a header line; "Attn:" also mid-line, as a contract's notice clause writes it ("..., Beijing Attn: Anna Li Tel: ...")
HEADER = re.compile(r"(?im)(?:^[ \t>]*(?:x-)?(?:from|to|cc|bcc|sent[ \t]+by|attn|attention|reply-to)|(?<![\w-])attn\.?)[ \t]*:"
                    r"[ \t]*(.+)$")
# ... and as mail clients in other languages write them ("Von: Ruud van den Heuvel", "An: ...", "De: ...", "Para:"),
# in a text that also holds such a client's subject or date line ("Betreff:", "Gesendet:", "Asunto:", "Objet:")
_FOREIGN_HEADER = re.compile(r"(?im)^[ \t>]*(?:von|an|kopie|de|para|à|a|van|aan|da|fra|från|till|til|od|do|kime|kimden)"
                             r"[ \t]*:[ \t]*(.+)$")
_FOREIGN_SUBJECT = re.compile(r"(?im)^[ \t>]*(?:betreff|gesendet|asunto|enviado|objet|envoyé|oggetto|inviato|onderwerp|"
                              r"verzonden|emne|ämne|sendt|skickat|temat|wysłane|konu|tarih)[ \t]*:")
# ... the name ends the line or stops before a separator or the next field of a notice ("Tel:", "Fax:")
_HEADER_PERSON = re.compile(rf"{WORD_START}({CAPWORD}(?:[ \t]+{CAPWORD})?,[ \t]*{CAPWORD}(?:[ \t]+{INITIAL})?|"
                            rf"{CAPWORD}(?:[ \t]+{INITIAL})?(?:[ \t]+{CAPWORD}){{1,2}})(?=[ \t]*(?:[;,<\[(/]|$)|"
                            r"[ \t]+(?i:tel|phone|fax|facsimile|e-?mail|address|mobile)\b)")
_GREETING_NAME = re.compile(rf"(?im)^[ \t>]*(?:(?:{GREETINGS})[ \t,]+)?({ANYWORD}(?:[ \t]+{ANYWORD})?)[ \t]*(?:[,!]+|[-–—]{{1,2}})[ \t]*$")
_CLOSING_NAME = re.compile(rf"(?im)(?:^|[.!?][ \t]+)(?:{CLOSINGS})[ \t]*[,!.\-–]*[ \t]*(?:\n[ \t]*(?:\n[ \t]*)?|[ \t]+)"
                           rf"((?:{ANYWORD}|{INITIAL})(?:[ \t]+(?:{ANYWORD}|{INITIAL})){{0,2}}"
                           # (two who sign together: "All our love,\nHope & Will xx")
                           rf"(?:[ \t]*(?:&|\+|[ \t]and)[ \t]*{ANYWORD}(?:[ \t]+x+)?)?)[ \t.]*$")
# the closing phrases as plain words ("thanks", "best regards"), to tell a closing from a name after it
_CLOSINGS_SET = frozenset(w for w in re.sub(r"\[ \\t\]\+", " ", CLOSINGS).split("|"))
_SHORT_CLOSINGS_SET = frozenset(SHORT_CLOSINGS.split("|")) | {"love", "hugs", "luv", "lots", "night", "morning", "bye"}

_LAST_LINE = re.compile(r"\n[ \t]*\n[ \t>-]*([^\W\d_a-z][\w'’\-]+(?:[ \t]+[^\W\d_a-z][\w'’\-]+)?)[ \t.]*\s*\Z")
# ... with a kiss after it ("...\n\nHarps x"): a sign-off whatever the word, but a closing ("Love x", "Thanks xx")
_KISSED_LAST_LINE = re.compile(r"\n[ \t]*\n[ \t>-]*([^\W\d_a-z][\w'’\-]+)[ \t]+[xX]{1,3}!?[ \t]*\s*\Z")

# Where a message ends inside a thread or a post with replies: the line that opens the next one. A reply is signed
# above the message it quotes ("- Raj\n\n>>> Brandon Whitfield 04/19/01 >>>", "JP\n\n-----Original Message-----",
# "Thanks in advance,\nGrant\n\n---\nReply from ...", "Deb\n\n--\nDeborah Szymanski", "-RG\n\nSent from my
# BlackBerry"), or a postscript follows it, and the rules that read a signature read the text's end
_MESSAGE_OPENING = (
    r"[ \t]*(?:-{2,}[ \t]*(?:original[ \t]+message|forwarded[ \t]+(?:message|by|to)|reply[ \t]+message)\b|"
    r"(?:-{3,}|_{3,}|={3,}|\*{3,})[ \t]*$|>{2,}[ \t]+\S[^\n]*>{2,}|on[ \t][^\n]{4,200}\bwrote:[ \t]*$|"
    r"(?:from|sent|date|cc):[ \t]+\S|>[^\n]*\n[ \t]*>|--[ \t]*$|sent[ \t]+from[ \t]+my\b|"
    # (a mail app's footer: "Sent from Yahoo Mail for iPhone", "Sent from Outlook for Android", "Get Outlook for iOS")
    r"(?:sent[ \t]+from|get)[ \t]+(?:yahoo[ \t]+mail|outlook|gmail|mail|aol|proton[ \t]?mail)[^\n]{0,30}$|"
    # (or the device alone: "sent from mobile", "Sent from iPhone")
    r"sent[ \t]+from[ \t]+(?:an?[ \t]+)?(?:mobile|phone|iphone|ipad|android|samsung|galaxy|blackberry)\b[^\n]{0,30}$|"
    r"(?:von|de|da|van|gesendet|envoyé|enviado):[ \t]+\S|-{2,}[ \t]*(?:ursprüngliche[ \t]+nachricht|message[ \t]+d'origine|"
    r"mensaje[ \t]+original)\b|"
    # (a postscript under the signature: "- Vlad\n\np.s. Conor, you're in on this")
    r"p\.[ \t]?s\.|ps[ \t]*[:\-]|"
    # (Lotus Notes: the sender's line over the date's, or both on one: "Desmond Oyelaran@ENRON\n03/13/2001 05:40 PM",
    # '"Lyle Fenwick" <lf@ridgeline.com> on 03/12/2001 02:17:55 PM')
    r"[^\n]{2,80}\n[ \t]*\d{1,2}/\d{1,2}/\d{2,4}[ \t]+\d{1,2}:\d{2}(?::\d{2})?[ \t]*(?:am|pm)?[ \t]*$|"
    r"[^\n]{2,100}[ \t]on[ \t]+\d{1,2}/\d{1,2}/\d{2,4}[ \t]+\d{1,2}:\d{2}(?::\d{2})?[ \t]*(?:am|pm)?[ \t]*$)")
_NEXT_MESSAGE = re.compile(rf"(?im)^{_MESSAGE_OPENING}")
# a message ends on its own last line, never on another's opening or a header ("-----Original Message-----",
# "From: Helga Brandt" above "Sent: Monday")
_OPENING_LINE = re.compile(rf"(?im){_MESSAGE_OPENING}|[ \t>]*[\w-]+(?:[ \t][\w-]+)?:[ \t]")


@functools.lru_cache(maxsize=4)  # the rules read it once per text, each one-letter sign-off again (pii_names)
def message_ends(text: str) -> tuple[int, ...]:
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
    # a signature's phone or extension lines under its name ("Derrick\nx3-4471"): the message ends above them
    number_lines = _NUMBER_LINES.search(text, max(0, len(text) - 80))
    if number_lines and number_lines.start() > 0:
        ends.add(number_lines.start())
    return tuple(sorted(ends))


_NUMBER_LINES = re.compile(r"(?:\n[ \t]*(?:(?i:x|ext\.?|tel\.?|ph\.?|phone|cell|mobile|office)[: \t]*)?"
                           r"\+?[\d(][\d() .\-/]{2,}\d[ \t]*(?:\((?i:o|c|h|w|m|cell|office|home|work|mobile)\))?[ \t]*)+\s*\Z")


MAX_MESSAGES = 50



# Mail-system addresses and forwarding lines that carry a person's name: "Anna B Smith/HOU/ACME@ACME",
# "Forwarded by Anna Smith on 10/16/2000"
_NOTES_ADDRESS = re.compile(rf"{WORD_START}((?:{CAPWORD}[ \t]+)(?:{INITIAL}[ \t]+)?{CAPWORD})(?:(?:/[A-Z][A-Z0-9]{{1,9}}){{1,3}}@[A-Za-z]+|(?:/[A-Z][A-Z0-9]{{1,9}}){{2,3}})(?![\w/])")
# ... or a surname alone before the mail system's domain, without a dot ("cc: Abernathy@ECT")
_NOTES_SURNAME = re.compile(rf"(?<![\w.@/])({CAPWORD})@[A-Z][A-Z0-9]{{1,9}}(?![\w.@])")
_FORWARDED_BY = re.compile(rf"(?i:forwarded|sent|posted|written)[ \t]+by[ \t]+((?:{CAPWORD}[ \t]+)(?:{INITIAL}[ \t]+)?{CAPWORD})")


# An archived mailbox's own header lines name its owner ("X-Folder: \\Okafor, Chidi\\Inbox", "X-Folder:
# \\Phillip_Allen_Dec2000\\Notes Folders", "X-Origin: OKAFOR-C", "X-FileName: cokafor.nsf"): the folder's first
# part, the surname before the initial, and the file's stem (a login made of the name)
_ARCHIVE_FOLDER = re.compile(r"(?im)^x-folder:[ \t]*\\?([^\\\n]+?)[ \t]*(?:\\|$)")
_ARCHIVE_ORIGIN = re.compile(r"(?im)^x-origin:[ \t]*([^\W\d_][\w'’.\-]*?)-[A-Za-z]{1,2}[ \t]*$")
_ARCHIVE_FILE = re.compile(r"(?im)^x-filename:[ \t]*([^\W\d_][\w.\-]*?)(?=[ \t]*(?:\([^)\n]*\))?[ \t]*\.(?:nsf|pst|mbox))")
_FOLDER_PART = re.compile(r"[^\W\d_][\w'’\-]*")


def archive_header_names(text: str, is_word) -> list[tuple[int, int]]:
    """The mailbox owner an archive's X-Folder, X-Origin and X-FileName lines name (_ARCHIVE_FOLDER): the
    folder's first part when it is a "Last, First" name or a name of the lists run together with "_" (not
    "Inbox", "All documents"), the surname of "X-Origin: OKAFOR-C", the login of "X-FileName"."""
    if "x-" not in text and "X-" not in text:
        return []
    out = []
    for m in _ARCHIVE_FOLDER.finditer(text):
        part, start = m.group(1), m.start(1)
        if " - " in part:  # an export tool's prefix: "ExMerge - Arnold, John"
            cut = part.rindex(" - ") + 3
            part, start = part[cut:], start + cut
        pieces = list(_FOLDER_PART.finditer(part.replace("_", " ")))
        words = [p.group(0) for p in pieces]
        if not words or any(w.lower() in MAIL_FOLDER_WORDS or w.lower() in MAILBOX_WORDS for w in words):
            continue
        if "," in part or "_" not in part and (in_name_lists(part.capitalize()) or not is_word(part)):
            out.append((start, start + len(part)))
        elif "_" in part and any(in_name_lists(w.capitalize()) or not is_word(w) for w in words[:2]):
            # each part alone: "Phillip_Allen" is one word to the patterns that tell a name from a code
            out += [(start + p.start(), start + p.end()) for p in pieces[:2]]
    out += [(m.start(1), m.end(1)) for m in _ARCHIVE_ORIGIN.finditer(text)]
    out += [(m.start(1), m.end(1)) for m in _ARCHIVE_FILE.finditer(text)]
    return out


def header_names(text: str, is_word) -> list[tuple[int, int]]:
    """Names in From/To/Cc lines: "Smith, Anna", "Doe, John A.", "Anna Smith", several per line; in mail-system
    addresses ("Anna Smith/HOU/ACME@ACME") and forwarding lines ("Forwarded by Anna Smith on ...")."""
    out = [(m.start(1), m.end(1)) for m in _NOTES_ADDRESS.finditer(text)]
    out += [(m.start(1), m.end(1)) for m in _NOTES_SURNAME.finditer(text)]
    out += [(m.start(1), m.end(1)) for m in _FORWARDED_BY.finditer(text)]
    lines = list(HEADER.finditer(text))
    if _FOREIGN_SUBJECT.search(text):
        lines += _FOREIGN_HEADER.finditer(text)
    for line in lines:
        people = list(_HEADER_PERSON.finditer(line.group(1)))
        # a "Last, First" among people a line parts with ";" is one whatever its words ("To: Ng, Erik; Zhou, Wei")
        listed = ";" in line.group(1) and sum("," in m.group(1) for m in people) >= 2
        for m in people:
            words = re.findall(r"[^\W\d_][\w'’\-]*", m.group(1))
            given = any((w in given_names() or w.isupper() and w.capitalize() in given_names())
                        and w.lower() not in NOT_ADDRESSED for w in words)
            if "@" in m.group(1) or (all(is_word(w) for w in words) or any(
                    w.lower() in _MAILBOX_OR_GROUP for w in words)) and not given \
                    and not (listed and "," in m.group(1)):
                continue  # "To: All Staff", "From: Customer Service", "To: ERCOT desk"; "Doe, John A." ("DOE, JOHN
                # A.") holds a given name
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
        # ... or one word in lower case alone in the line, as a friend's quick note is addressed ("To: tomos"): a
        # given name of the lists or no dictionary word ("To: parts" is a mailbox), in a message's header block (a
        # translation prompt's "From: en\nTo: fr" has no subject line)
        if (m := _HEADER_LOWER_ONE.fullmatch(line.group(1))) and _SUBJECT_LINE.search(text) and (
                m.group(1).capitalize() in given_names() or not is_word(m.group(1))) \
                and m.group(1) not in NOT_ADDRESSED and not is_function_word(m.group(1)):
            out.append((line.start(1) + m.start(1), line.start(1) + m.end(1)))
    # the sender's display name in quotes before the address is whoever sent it, in any words ('From: "Big Tuna"
    # <bt@example.com>'), unless it names a mailbox or a group ('"Sales Desk"', '"The Team"')
    out += [m.span(1) for m in _QUOTED_DISPLAY_NAME.finditer(text)
            if not any(w.lower() in _MAILBOX_OR_GROUP for w in re.findall(r"[^\W\d_]+", m.group(1)))]
    return out


_QUOTED_DISPLAY_NAME = re.compile(r"(?im)^[ \t>]*from:[ \t]*[\"“]([^\W\d_][^\"”\n<>@]{0,40}?)[ \t]*[\"”][ \t]*<[^<>\s@]+@")


# who a mail addresses that is no person ("Gentlemen,", "Traders -")
GROUPS = frozenset("""gentlemen ladies people members partners traders desk staff hello hi hey greetings dear all
colleagues""".split())
_MAILBOX_OR_GROUP = MAILBOX_WORDS | GROUPS  # a sender, an addressee or a signature that is no person


def _body_start(text: str) -> int:
    """Where a message's first line after its header block starts (0 when it has none)."""
    m = _HEADER_BLOCK.match(text)
    return m.end() if m else 0


_HEADER_BLOCK = re.compile(r"(?:[ \t]*[\w-]+(?:[ \t][\w-]+)?:[^\n]*\n)+[ \t]*\n(?:[ \t]*\n)*")


def greeting_names(text: str, is_word) -> list[tuple[int, int]]:
    """A name alone on a line as a greeting ("Anna,", "Hi john,") or after a closing ("Thanks, John",
    "Best,\\nAnna"). Alone on its line a word counts when it is no dictionary word or a greeting stood
    before it; a capitalised one after a closing always counts."""
    out = []
    for m in _GREETING_NAME.finditer(text):
        first = m.group(1).split()[0]
        greeted = m.group(0).strip().split()[0].lower().rstrip(",") in GREETING_FIRST_WORDS
        if first.lower() in NOT_ADDRESSED or first.lower() in _CLOSINGS_SET \
                or first.lower() in GREETING_FIRST_WORDS and " " not in m.group(1):
            continue  # (nor the greeting alone: "Aloha,", "Shalom,")
        # (or a surname of the lists opening a text that is mail: "Sterling --\n\nAttached is ...")
        if greeted or first[:1].isupper() and (not is_word(first) or first in given_names(ENGLISH_LOCALES)
                                               or m.start() == _body_start(text) > 0 and " " not in m.group(1)
                                               and not is_function_word(first) and first not in place_names()
                                               and first not in country_names() and first.lower() not in GROUPS
                                               or m.start() == 0 and first in surnames() and _is_mail(text)) \
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
                  r"following|do|did|are|is|have|any|you|your|re|got|sorry|quick|welcome|congrats|congratulations|ok|okay")
_OPENING_NAMES = re.compile(
    rf"(?m)^[ \t>]*({CAPWORD}(?:[ \t]*(?:/|&|,|\band\b)[ \t]*{CAPWORD}){{0,4}})[ \t]*(?:,|:|-{{1,2}}|–|—)[ \t]+"
    rf"(?:((?i:{_ADDRESS_WORDS}))\b|(?<=\S[ \t])(?=\S))")


_DASH_AFTER = re.compile(r"[ \t]+[-–—]{1,2}[ \t]+")


def _is_mail(text: str) -> bool:
    """A text with a mail header line, a closing with a name or a dash signature."""
    return bool(HEADER.search(text) or _CLOSING_NAME.search(text) or _DASH_SIGNATURE.search(text)
                or _INLINE_DASH_SIGNATURE.search(text))


def _opens_message(text: str, i: int) -> bool:
    """Whether the line at `i` opens a message: the first line of a text that is mail (a header line, a closing
    or a dash signature in it; "Will - the future tense in English" is a prompt), or the first after a blank line
    below a header line."""
    before = text[:i]
    if not before.strip():
        return _is_mail(text)
    return before.rstrip(" \t>").endswith("\n\n") and HEADER.search(before) is not None


# ... and in a message typed in lower case, the given names before its opening dash ("dawn - can you get",
# "skip - buck says", "tom/sue - fyi"), or alone on the opening line before a dash or a comma ("drew-\n\nsold 50")
_OPENING_LOWER = re.compile(r"(?m)^[ \t>]*([a-z][a-z'’\-]*[a-z](?:[ \t]*(?:/|&|\band\b)[ \t]*[a-z][a-z'’\-]+){0,3})"
                            r"[ \t]*(?:(?:-{1,2}|–|—)[ \t]+(?=\S)|(?:-{1,2}|–|—|,)[ \t]*$)")


# A given name in lower case that calls, says or asks something at a clause's start in a mail ("el paso - faith called
# from the plant", "and sandy says no"): there the word is the person (lower_given_name: never a modal or a month)
_LOWER_REPORTER = re.compile(r"(?:^|(?<=[-;,:.!?])|(?<=\band))[ \t]*([a-z][a-z'’]+)[ \t]+(?:called|phoned|rang|emailed|"
                             r"texted|says|said|told|asked|wants|thinks|mentioned|confirmed|reckons)\b", re.M)


def reported_lower_names(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _LOWER_REPORTER.finditer(text) if lower_given_name(m.group(1))] \
        if _is_mail(text) else []


_SENTENCE_LOWER_DASH = re.compile(r"(?<=[.!?])[ \t]+([a-z][a-z'’]+)[ \t]+-[ \t]+(?=(?:can|could|would|will|pls|please|"
                                  r"fyi|did|do|are|is|have|any|let|see|call|thanks|thx)\b)")


def opening_names(text: str, is_word) -> list[tuple[int, int]]:
    """The given names a message opens by addressing (_OPENING_NAMES): English given names of the lists, in
    any number; one alone only before the words said to a reader; in lower case before a dash that opens a
    message (_OPENING_LOWER; never a modal, a month or a function word: "will - see below")."""
    english = given_names(ENGLISH_LOCALES)
    out = []
    for m in _OPENING_LOWER.finditer(text):
        names = [n for n in re.finditer(r"[a-z][a-z'’\-]+", m.group(1)) if n.group(0) != "and"]
        if all(lower_given_name(n.group(0)) for n in names) and _opens_message(text, m.start(1)):
            out += [(m.start(1) + n.start(), m.start(1) + n.end()) for n in names]
    # ... and one addressed so after a sentence of a mail ("...we need to re-confirm. mark - can you sort it")
    out += [m.span(1) for m in _SENTENCE_LOWER_DASH.finditer(text) if lower_given_name(m.group(1))] \
        if " - " in text and _is_mail(text) else []
    for m in _OPENING_NAMES.finditer(text):
        names = list(re.finditer(CAPWORD, m.group(1)))
        if not all(n.group(0) in english and n.group(0).lower() not in NOT_ADDRESSED for n in names) and not (
                # ... or one name of any list, or no dictionary word, before the words said to a reader that open a
                # message ("Olu - FYI, see below"): no place, no country, no acronym ("USA - please ship")
                len(names) == 1 and m.group(2) and _opens_message(text, m.start()) and (
                    (w := names[0].group(0)) in given_names() or not is_word(w))
                and w not in place_names() and w not in country_names() and not w.isupper()
                and w.lower() not in NOT_ADDRESSED and w.lower() not in _CLOSINGS_SET):
            continue
        if len(names) == 1 and not m.group(2) and not (_DASH_AFTER.match(text, m.end(1)) and _opens_message(text, m.start())):
            continue  # one name alone: only before the words said to a reader, or with a dash opening a message
            # ("Will - Grant's group is asking for the curves")
        out += [(m.start(1) + n.start(), m.start(1) + n.end()) for n in names]
    return out


# a dash (or a slash, as notes sign: "... cluster care. /Renee"), then one or two words that end the text
_DASH_SIGNED = (rf"(?:[-–—~]{{1,2}}|/)[ \t]*([^\W\d_][\w'’\-]+(?:[ \t]+(?!(?:in|from|at)[ \t])[^\W\d_][\w'’\-]+|[ \t]+{UPPER}\.?)?)"
                r"(?:[ \t]+(?:in|from|at)[ \t]+[A-Z][\w&'’\-]*(?:[ \t]+[A-Z][\w&'’\-]*)?|"
                r"[ \t]*(?:&|and)[ \t]+(?:the[ \t]+)?(?i:gang|team|crew|co\.?|family|kids|everyone))?"
                # (the end of the text, or of a paragraph: a post quoted in a report, a card's message among others)
                r"[ \t.!]*(?:\s*\Z|[ \t]*\n(?=[ \t]*\n))")  # "-Sheila in Payroll", "-Tina & the gang"
_DASH_SIGNATURE = re.compile(rf"(?:\A|\n)([^\n]*)\n[ \t]*{_DASH_SIGNED}")
# the same after the message's last sentence, on its line ("Call me at x4471. -Bill")
_INLINE_DASH_SIGNATURE = re.compile(rf"(?:[.!?)]|(?i:\b(?:thanks|thx|cheers|ty)))[ \t]+{_DASH_SIGNED}")  # "Thanks -Jens"


def dash_signature_names(text: str, is_word) -> list[tuple[int, int]]:
    """A message's or a paragraph's last line, a name after a dash, as mail is signed ("-Kay", "--sally"), when
    the line above is no list item, or the same after its last sentence on one line: a word no dictionary holds,
    an English given name, or one of any list written capitalised ("- Raj")."""
    out = []
    lines = list(_DASH_SIGNATURE.finditer(text))
    for m in lines + [m for m in _INLINE_DASH_SIGNATURE.finditer(text)
                      if not any(a <= m.start() < b for a, b in (x.span() for x in lines))]:
        if m.re is _DASH_SIGNATURE and re.match(r"[ \t]*(?:[-–—~*•]|\d+[.)])", m.group(1)):
            continue  # the last item of a list ("- Mix\n- Bake")
        name = m.lastindex  # the name is the pattern's last group
        first = m.group(name).split()[0]
        if first.lower() in NOT_ADDRESSED or first.lower() in _CLOSINGS_SET or CONTRACTION.search(first):
            continue
        # (a capitalised word glued to the dash signs too, a dictionary's or a place's though it be: "-Bern")
        glued = text[m.start(name) - 1] in "-–—~/" and re.fullmatch(r"[A-Z][a-z'’\-]+", first) is not None \
            and first.lower() not in _NOT_GLUED_SIGNERS
        if not is_word(first) or first.capitalize() in given_names(SIGNATURE_LOCALES) or glued \
                or first[:1].isupper() and (first in given_names() or first in ENGLISH_NICKNAMES):
            out.append((m.start(name), m.end(name)))  # "- Raj": a given name of any list, as written; "-Kat B."
    return out


_NOT_GLUED_SIGNERS = frozenset("end done fin out over me us all team everyone management admin"
                               " hr it ops staff".split())


# "Last, First" alone on its line or its table row's first cell, as invitations, rosters and approvals list people
# ("    Castellano, Vincent", "Sato, Kenji           Market Risk        Y",
# "Santos, Maria da Graça"): the given name after the comma is one of the lists and no place, the surname no
# country and no dictionary word unless a surname of the lists (surnames are often towns: "Castellano")
_LAST_FIRST_LINE = re.compile(rf"(?m)^[ \t>*•\-]*((?:(?i:de|del|della|van|von|der|den|da|di|la|le|du|dos|das|al|el|st\.?)"
                              rf"{NAME_GAP}){{0,2}}{CAPWORD}(?:{NAME_GAP}{CAPWORD})?,[ \t]*({CAPWORD})"
                              rf"(?:{NAME_GAP}(?:{INITIAL}\.?|{CAPWORD}|(?:da|de|del|van|von|der|di|la|le|du|dos|das)))*)"
                              r"(?:[ \t]*(?:[;,(<\[][^\n]*)?|(?:[ ]{3,}|\t)[^\n]*)$")  # ... or a table's next columns


# ... and a roster of surnames and initials, in lower case or in capitals ("  mcallister, j.      31-05", "   GRACE, T.
# NGL"), three lines or more; where three are surnames, any word so written in the roster is one. A row may open
# with its bed's, room's or slot's code ("B2  SITHOLE, T    Dr Lee", as a ward's bed board lists patients), and
# an initial without its dot ends at a column's gap or the line's end
_ROW_CODE = r"(?:[A-Za-z]{0,3}\d{1,3}[A-Za-z]?[ \t]+)?"
_LOWER_LAST_INITIAL_LINE = re.compile(r"(?m)^[ \t>*•\-]*" + _ROW_CODE +
                                      r"((?:(?:de|del|da|van|von|der|den|di|la|le|du|dos|al|el)[ \t]+){0,2}"
                                      r"[a-z][a-z'’\-]+,[ \t]*[a-z](?:\.|(?=[ \t]{2,}|[ \t]*$))(?:[ \t]?[a-z]\.)?)"
                                      r"(?:[ \t]{2,}[^\n]*)?[ \t]*$")
_UPPER_LAST_INITIAL_LINE = re.compile(r"(?m)^[ \t>*•\-]*" + _ROW_CODE +
                                      r"((?:(?:DE|DEL|DA|VAN|VON|DER|DEN|DI|LA|LE|DU|DOS|AL|EL)[ \t]+){0,2}"
                                      r"[A-Z][A-Z'’\-]+,[ \t]*[A-Z](?:\.|(?=[ \t]{2,}|[ \t]*$))(?:[ \t]?[A-Z]\.)?)"
                                      r"(?:[ \t]{2,}[^\n]*)?[ \t]*$")


def last_first_lines(text: str, is_word) -> list[tuple[int, int]]:
    """A line that holds a "Last, First" name and maybe a note after it (_LAST_FIRST_LINE); a roster in lower
    case of surnames and initials (_LOWER_LAST_INITIAL_LINE, three lines or more)."""
    out = []
    for regex in (_LOWER_LAST_INITIAL_LINE, _UPPER_LAST_INITIAL_LINE) if ",\t" in text or ", " in text else ():
        lines = list(regex.finditer(text))
        rows = [m for m in lines for surname in [m.group(1).split(",")[0]]  # "van der meer"; not "see, e.g."
                if " " in surname or not is_word(surname) or surname.capitalize() in surnames()]
        if len(rows) >= 3:
            out += [(m.start(1), m.end(1)) for m in lines if m.group(1).split(",")[0].lower() not in STOP_WORDS]
    for m in _LAST_FIRST_LINE.finditer(text):
        last, first = m.group(1).split(",")[0], m.group(2)
        first = first.capitalize() if first.isupper() else first  # a roster in capitals: "ADEYEMI, ROSE"
        # a given name of the lists, or two words no dictionary holds ("O'BRIEN-SAKAI, KEIKO")
        if (first in given_names() or not is_word(first) and not is_word(last.split()[-1]) and last not in place_names())\
                and not (first in place_names() and (last in place_names() or is_word(last))) \
                and first not in country_names() \
                and last not in country_names() and (not is_word(last) or last in surnames()) \
                and last.lower() not in _CLOSINGS_SET and last.lower() not in GREETING_FIRST_WORDS:
            out.append((m.start(1), m.end(1)))
    return out


# the first line of a signature block under the separator mail clients write ("--\nDeborah Szymanski\nGraduate
# Program Coordinator", "-- \nBob"): the writer's name
_SIGNATURE_BLOCK = re.compile(rf"(?m)^--[ \t]*\n[ \t]*({CAPWORD}(?:[ \t]+(?:{INITIAL}\.?|{CAPWORD})){{0,3}})[ \t]*$")


def signature_block_names(text: str, is_word) -> list[tuple[int, int]]:
    """The name on a signature block's first line (_SIGNATURE_BLOCK): a word of it a name of the lists or no
    dictionary word ("--\nSales Team" is no one)."""
    if "--" not in text:
        return []
    return [(m.start(1), m.end(1)) for m in _SIGNATURE_BLOCK.finditer(text)
            if m.group(1).split()[0].lower() not in STOP_WORDS
            and any(in_name_lists(w) or not is_word(w) for w in m.group(1).split())
            and not any(w.lower() in BODY_WORDS for w in m.group(1).split())]


# ... or right under a short closing of any words that ends with a comma ("God bless,\nCarol", "Happy
# Thanksgiving,\nMarguerite")
_NAME_UNDER_CLOSING = re.compile(r"(?:\A|\n)[ \t]*([A-Z][^\n,.!?]{1,30}),[ \t]*\n[ \t>-]*([A-Z][a-z'’\-]+(?:[ \t]+[A-Z][a-z'’\-]+)?)"
                                 r"[ \t.]*\s*\Z")


def signature_names(text: str, is_word) -> list[tuple[int, int]]:
    """A message's last line, set apart by a blank line, of one or two capitalised words that are no
    dictionary words, or open with a given name: its signature ("...\n\nVaclav", "...\n\nKaren", "...\n\nDieter");
    right under the last sentence, an English given name alone ("... anything else.\nCarol")."""
    m = _KISSED_LAST_LINE.search(text[-60:])
    if m and m.group(1).lower() not in _CLOSINGS_SET and m.group(1).lower() not in NOT_ADDRESSED \
            and not is_function_word(m.group(1)) and m.group(1).lower() not in _SHORT_CLOSINGS_SET:
        off = max(0, len(text) - 60)
        return [(off + m.start(1), off + m.end(1))]
    m = _LAST_LINE.search(text)
    first = m.group(1).split()[0] if m else ""
    if m and (not all(is_word(w) for w in m.group(1).split()) or first in given_names(ENGLISH_LOCALES)
              or first in given_names() and first not in place_names() and first not in country_names()
              and first.lower() not in _CLOSINGS_SET and first.lower() not in NOT_ADDRESSED):  # "Dieter", a word too
        return [(m.start(1), m.end(1))]
    # ... under a mail's header block, one short capitalised word alone is its writer whatever the word ("Aga", a
    # title too), but a closing, a greeting's word, a mailbox's or a function word ("Thanks", "All", "Team")
    if m and " " not in m.group(1) and len(first) <= 7 and _SUBJECT_LINE.search(text) and first[1:].islower() \
            and first.lower() not in _MAIL_FURNITURE and first.lower() not in _CLOSINGS_SET \
            and first.lower() not in _SHORT_CLOSINGS_SET \
            and first.lower() not in NOT_ADDRESSED and first.lower() not in _MAILBOX_OR_GROUP \
            and not is_function_word(first) and first not in place_names() \
            and first not in country_names():
        return [(m.start(1), m.end(1))]
    m = _NAME_UNDER_CLOSING.search(text[-120:])
    if m and len(m.group(1).split()) <= 4 and m.group(2).split()[0] in given_names() \
            and m.group(2).split()[0] not in place_names():
        off = max(0, len(text) - 120)
        return [(off + m.start(2), off + m.end(2))]
    m = _NAME_UNDER_LAST_SENTENCE.search(text)
    name = m.group(1).capitalize() if m else ""
    if m and name in given_names(ENGLISH_LOCALES) and name not in place_names() and name not in country_names() \
            and (not is_function_word(m.group(1)) or m.group(1)[0].isupper() and m.group(1).lower() in MODALS):
        # (not a task's input: "things to do in the given city.\nParis"; a modal alone on its line is a name: "Will")
        return [(m.start(1), m.end(1))]
    # ... or a short name right under the last sentence, over the signature block that gives it in full
    # ("I owe you both a coffee.\nSandy\n\nSandra Kellett\nSecretary to ...")
    if (m := _NAME_OVER_BLOCK.search(text)) and m.group(1) in given_names(ENGLISH_LOCALES) \
            and m.group(1) not in place_names() and m.group(1) not in country_names():
        return [m.span(1)]
    return []


# what else a message's last line may say alone
_MAIL_FURNITURE = frozenset("""attached attachment attachments enclosed enclosure enclosures encl draft drafts urgent
confidential private note notes sent reply forward fwd fw re ps later soon asap tbd tba tbc pending done noted ok""".split())


# a signature block: a line of two to four capitalised words, then a line or two of role, firm or number at the end
_NAME_OVER_BLOCK = re.compile(rf"(?:[.!?)]|(?i:\b(?:{CLOSINGS})),)[ \t]*\n[ \t]*([A-Z][a-z'’\-]+)[ \t]*\n[ \t]*\n[ \t]*"
                              r"[A-Z][\w'’\-]+(?:[ \t]+[A-Z][\w.'’\-]*){1,3}[ \t]*\n[^\n]{2,80}(?:\n[^\n]{2,80})?\s*\Z")


# in either case: a message written in lower case signs "...\ncarol"
_NAME_UNDER_LAST_SENTENCE = re.compile(r"[.!?][ \t]*\n(?:[ \t]*\n)?[ \t>-]*([A-Za-z][a-z'’\-]+)[ \t.]*\s*\Z")


# A message signed with initials at its very end: after its last sentence on the same line ("... look at this.
# JW", in lower case two letters: "merry xmas.  em", one capital with its dot: "Thanks.  O."), alone on the last line ("Talk tomorrow.\nDF"), after a dash
# ("will do. -kb", "call me if questions.  -d") or a closing and its comma ("thx, dg"); a particle's initial inside
# ("SdV", "JvB") too; one letter alone on the last
# line under a sentence, a smiley or a closing ("Call me.\nD", "coming?  :)\n\nF.", "talk soon\nk", "Thanks,\n- M") or
# under a line that ends in words in lower case ("call me tonite\nj", "...at 4. i am freaking out a little\n\nm",
# "see you there\n\nd."), a capital and its dot alone under words in lower case ("Love you\nN."), or one letter after a
# kiss ("xo J").
# A note's role shorthand stays that ("SW", social worker: pii_words.NEVER_A_NAME)
_SIGNED_INITIALS = re.compile(r"(?:(?<=[.!?])[ \t]+|\n[ \t]*)(?P<caps>[A-Z]{2,3}|[A-Z][a-z][A-Z])[ \t.]*\s*\Z|"
                              r"(?<=[.!?])[ \t]{1,3}(?P<after_sentence>[a-z]{2}|[A-Z](?=\.))[ \t.]*\s*\Z|"
                              r"(?:(?<=[.!?,])|(?<=\A)|(?<=\s))[ \t]*[-–—~]{1,2}[ \t]*(?P<dashed>[a-z]{1,3}|[A-Z]{1,3})[ \t.]*\s*\Z|"
                              rf"(?i:\b(?:{SHORT_CLOSINGS}))[ \t]*,[ \t]*"
                              r"(?P<closed>(?-i:[a-z]{1,3}|[A-Z]{1,3}))[ \t.]*\s*\Z|"
                              # (capitals after a closing need no comma: "Can we be flexible tmrw? Cheers B")
                              rf"(?<=[.!?])[ \t]+(?i:\b(?:{SHORT_CLOSINGS}))[ \t]+"
                              r"(?P<closed_caps>(?-i:[A-Z]{1,3}))[ \t.]*\s*\Z|"
                              # (or a word in lower case there: the writer's name or nickname, "thx, whit")
                              rf"(?i:\b(?:{SHORT_CLOSINGS}))[ \t]*,[ \t]*"
                              r"(?P<closed_word>(?-i:[a-z][a-z'’\-]{3,14}))[ \t.!]*\s*\Z|"
                              rf"(?:[.!?,][)\"'’”]?|[:;]-?[)D]|(?i:\b(?:{CLOSINGS})))[ \t]*\n(?:[ \t]*\n)?[ \t]*(?:[-–~][ \t]*)?"
                              r"(?P<letter>[A-Za-z])[ \t.]*(?:[ \t]+[xX]{1,3}!?)?\s*\Z|"  # "T x": with a kiss
                              # (one capital after the last sentence on its line, or alone under a line that ends in a
                              # word: "go ahead for today only. T", "I'd rather sit by the kitchen. S x", "will
                              # update Mon\n\nS")
                              r"(?<=[.!?])[ \t]{1,3}(?P<sentence_letter>(?!I\b)[A-Z])[ \t]*(?:[ \t]+[xX]{1,3}!?)?\s*\Z|"
                              r"\b(?!(?:or|and|of|to|the|an|vs|nor)[ \t]*\n)[A-Za-z][a-z]+[ \t]*\n(?:[ \t]*\n)?[ \t]*"
                              r"(?P<line_letter>(?!I\b)[A-Z])[ \t]*"
                              r"(?:[ \t]+[xX]{1,3}!?)?\s*\Z|"
                              r"[a-z'’][ \t]+[a-z][a-z'’]*[ \t]*\n(?:[ \t]*\n)?[ \t]*(?P<lower_letter>[a-z])[ \t.]*\s*\Z|"
                              # in lower case alone on the last line under a sentence, no word ("...salt.\n\ndpm"),
                              # or a paragraph of its own under words ("...look off\n\ngp" above a quoted reply)
                              r"(?:[.!?][ \t]*\n(?:[ \t]*\n)?|[a-z][ \t]*\n[ \t]*\n)[ \t]*(?P<lower>[a-z]{2,3})[ \t]*\s*\Z|"
                              # a capital and its dot alone under words in lower case ("Love you\nN."), or one letter
                              # after a kiss ("what's the final on the groomsmen. xo J")
                              r"[a-z'’][ \t]*\n(?:[ \t]*\n)?[ \t]*(?P<dotted>[A-Z])\.[ \t]*\s*\Z|"
                              r"(?<![\w'’])(?i:xo|xoxo|xx{0,2})[ \t]+(?P<kissed>[A-Za-z])[ \t.]*\s*\Z|"
                              # dotted initials after a dash on the last line, as a note is signed ("\n-- g.o.")
                              r"(?:(?<=\n)|(?<=[.!?][ \t]))[ \t]*[-–—~]{1,2}[ \t]*(?P<dotted_initials>(?:[A-Za-z]\.[ \t]?){2,3})"
                              r"[ \t]*\s*\Z|"
                              # capitals alone on the last line before the date and the time, as a file note is signed
                              # ("\n\nHW 4/10 17:40")
                              r"\n[ \t]*(?P<dated>[A-Z]{2,3})[ \t]+\d{1,2}/\d{1,2}(?:/\d{2,4})?(?:[ \t]+\d{1,2}[:.]\d{2})?"
                              r"[ \t]*\s*\Z|"
                              # a digraph's initial and its dot alone under the last sentence ("...isn't his.\nZs.")
                              r"[.!?)][ \t]*\n(?:[ \t]*\n)?[ \t]*(?P<digraph>(?:Zs|Sz|Cs|Gy|Ny|Ty|Dz|Ch|Sh|Th|Kh|Zh|Ts)\.)"
                              r"[ \t]*\s*\Z")


# what a message ends on in lower case that is no one's letters ("...see you there\n\nhi", "\n\nta")
_LOWER_CASE_LAST_WORDS = frozenset("ta tx kk hi yo cu ya ye oh ah eh um hm".split())


def signed_initials(text: str, is_word) -> list[tuple[int, int]]:
    """The initials a message is signed with (_SIGNED_INITIALS); never a chat or business acronym that ends
    a message as well ("FYI", "LOL", "ASAP", "OK", "USA": pii_words.NOT_INITIALS), nor a word of three letters
    alone on the last line ("...\nyes"; two letters there are initials though the dictionary holds them: "bk",
    "em", "dg"), nor a word after a closing's comma that addresses no one ("thanks, guys")."""
    m = _SIGNED_INITIALS.search(text[-40:])
    if not m:
        return []
    g = m.lastgroup  # the alternative that matched holds the one group set
    mark = m.group(g)
    if mark.lower() in NOT_INITIALS or is_function_word(mark) and g not in ("letter", "sentence_letter", "line_letter") \
            or g == "lower" and (len(mark) == 3 and is_word(mark) or mark in _LOWER_CASE_LAST_WORDS) \
            or g == "closed_word" and (mark in STOP_WORDS or mark in GROUPS or mark in CLOSING_ADDRESSEES):
        return []
    off = max(0, len(text) - 40)
    return [(off + m.start(g), off + m.end(g))]


# A brand's support agent signs each post with initials or a given name after a caret, at the post's end ("we'll take
# a look. ^KM", "I'll DM you shortly. ^Lou")
_CARET_SIGNED = re.compile(r"(?m)(?<=[.!?)\s])\^([A-Z]{2,3}|[A-Z][a-z]{2,12})[ \t]*$")


def caret_initials(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _CARET_SIGNED.finditer(text) if m.group(1).lower() not in NOT_INITIALS] \
        if "^" in text else []


# Initials alone on a line after a signature's dash, wherever the message goes on below them ("--JT\nnight metro
# ed.", "-DS" over a forwarded note, "-JMc" with a Mc or Mac surname's); not a list's item ("- IT") or a word ("-- END")
# (or after the line's last sentence, the full name in brackets after them: "in Korea. --MJ (Marta Jung)")
_DASHED_INITIALS_LINE = re.compile(r"(?m)(?:^[ \t]*(?:--|[–~]|-(?=[A-Z]))|(?<=[.!?])[ \t]+--)[ \t]*"
                                   r"([A-Z]{2,3}|[A-Z]{1,2}Ma?c[A-Z]?)(?:[ \t]+\([^()\n]{1,40}\))?[ \t]*$")
# ... and a given name and an initial there ("slept well. --Florin T.")
_DASHED_GIVEN_INITIAL = re.compile(rf"(?m)(?:^[ \t]*|(?<=[.!?])[ \t]+)--[ \t]*({CAPWORD}[ \t]+[A-Z]\.?)[ \t]*$")


def dashed_initial_lines(text: str, is_word) -> list[tuple[int, int]]:
    if "-" not in text and "~" not in text:
        return []
    return [m.span(1) for m in _DASHED_INITIALS_LINE.finditer(text) if m.group(1).lower() not in NOT_INITIALS
            and (len(m.group(1)) == 2 or not is_word(m.group(1)))] + \
        [m.span(1) for m in _DASHED_GIVEN_INITIAL.finditer(text) if (m.group(1).split()[0] in given_names()
                                                                     or not is_word(m.group(1).split()[0]))
         and m.group(1).split()[0].lower() not in STOP_WORDS]


# A message signed with a letter or initials alone on a line, the signature's full name below it ("...stock
# shot?\n\nT\n\nTamsin Rowe | Senior Reporter", "statement that'd help.\n\nJ\n\nJolene Whitaker QFA"): the letters
# open the name's words, the first of them a given name of the lists or no dictionary word
_LETTER_OVER_NAME = re.compile(rf"(?m)^[ \t]*([A-Z]{{1,3}})\.?[ \t]*\n(?:[ \t]*\n)?[ \t]*"
                               rf"({CAPWORD}(?:[ \t]+{CAPWORD}){{1,2}})")


def letter_over_name_lines(text: str, is_word) -> list[tuple[int, int]]:
    out = []
    for m in _LETTER_OVER_NAME.finditer(text):
        letters, words = m.group(1), m.group(2).split()
        if (words[0] in given_names() or not is_word(words[0])) and "".join(w[0] for w in words).startswith(letters) \
                and letters.lower() not in NOT_INITIALS:
            out.append(m.span(1))
    return out


_EMAIL = re.compile(r"(?<![\w.+-])([A-Za-z][\w.+-]*)@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_CAP_RUN = re.compile(rf"{CAPWORD}(?:[ \t]+{CAPWORD})*")


def email_owner_names(text: str, is_word) -> list[tuple[int, int]]:
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


# Who is from a department or a firm, as mail introduces colleagues and callers ("Young from HR will handle the
# paperwork", "pat from HR called", "Court reporter: Jan from Lone Star Reporting", "Moira in Payroll")
_FIRM_WORDS = "|".join(sorted(COMPANY_NOUNS | {"inc", "ltd", "llc", "plc", "corp", "co", "reporting", "partners",
                                               "associates", "services", "solutions", "consulting", "systems",
                                               "energy", "bank", "capital", "llp", "lp"}, key=len, reverse=True))
_FROM_DEPARTMENT = re.compile(
    rf"(?<![\w'’\-.@])({ANYWORD})[ \t]+(?:from|in|at)[ \t]+(?:the[ \t]+)?(?:"
    rf"(?i:{'|'.join(sorted(DEPARTMENTS, key=len, reverse=True))})(?:[ \t]+(?i:dept|department|team|desk|group))?"
    rf"|(?:{CAPWORD}[ \t]+){{0,3}}(?i:{_FIRM_WORDS})\.?)(?![\w'’\-])")


_ARTICLE_BEFORE = re.compile(r"(?i)\b(?:the|a|an|my|your|his|her|our|their|this|that)[ \t]+\Z")
# ... or from where friends know each other, as chat says who is meant ("grace from ur work", "Mike from church")
_FROM_SOCIAL = re.compile(rf"(?<![\w'’\-.@])({ANYWORD})[ \t]+from[ \t]+(?:(?:my|ur|your|his|her|our|their|the)[ \t]+)?"
                          r"(?i:work|school|college|uni|church|class|the[ \t]+gym|gym|next[ \t]+door|upstairs|"
                          r"downstairs|the[ \t]+office|book[ \t]+club|yoga|choir|daycare|nursery|football|soccer|"
                          r"rugby|netball|karate|swim(?:ming)?|scouts|youth[ \t]+group|mosque|temple|synagogue)\b")


def from_department_names(text: str, is_word) -> list[tuple[int, int]]:
    """A given name or surname of the lists before 'from', 'in' or 'at' and a department or a firm
    (_FROM_DEPARTMENT): capitalised, or a given name in lower case ("pat from HR"); never a function word, a
    modal, a month or a weekday ("will from IT on", "May in Finance" is May)."""
    out = []
    for m in itertools.chain(_FROM_DEPARTMENT.finditer(text), _FROM_SOCIAL.finditer(text) if "from" in text else ()):
        w = m.group(1)
        if is_function_word(w) or w.lower() in MONTHS or w.lower() in WEEKDAYS or CONTRACTION.search(w) \
                or _ARTICLE_BEFORE.search(text, max(0, m.start(1) - 8), m.start(1)):
            continue  # (after an article a word is the word: "the bill from school")
        name = w if w[0].isupper() else w.capitalize()
        if w.isupper() and len(w) > 3:
            name = w.capitalize()
        if w[0].isupper() and (name in given_names() or name in surnames()) or \
                w.islower() and name in given_names() and w not in MODALS:
            # (a place is no colleague, unless it is an English given name too: "Mark from facilities")
            if name not in country_names() and (name not in place_names() or name in given_names(ENGLISH_LOCALES)):
                out.append((m.start(1), m.end(1)))
    return out


# Whose view, approval or desk a message asks for: a given name's possessive before what a colleague has ("Need
# Grant's view on Mirant", "get Hope's sign-off"); a kin word after it is pii_names' _KIN_POSSESSOR
_WHOSE = re.compile(rf"(?<![\w'’\-])({CAPWORD})['’]s[ \t]+(?:(?:\d{{1,2}}(?:st|nd|rd|th)|first|last|big|new)[ \t]+)?"
                    r"(view|views|approval|sign-?off|ok|okay|input|comments|"
                    r"feedback|call|e-?mail|note|notes|memo|desk|office|team|group|book|numbers|model|deal|deals|trades|"
                    r"position|positions|assistant|secretary|boss|number|cell|extension|birthday|wedding|retirement|"
                    r"leaving|farewell|promotion|request|idea|question|questions|concerns|decision|signature|opinion|"
                    r"thoughts|take|vm|voicemail|voice[ \t]+mail|schedule|calendar|"
                    # (and a family's occasions, as personal mail names them: "Lily's recital", "Maya's 7th birthday")
                    r"recital|lesson|game|party|shower|graduation|funeral|surgery|baby|kids|son|daughter|house|"
                    r"bday|b-day|stag|hen|bachelor|bachelorette)\b")


def whose_names(text: str, is_word) -> list[tuple[int, int]]:
    """A given name of the lists whose view, approval or desk a message speaks of (_WHOSE), or a word no dictionary
    holds whose cell, boss or birthday it is, which no firm has ("Paulsen's cell is"), written as prose writes
    it; never a month, a weekday, a place or a firm's word ("May's numbers", "Chase's desk": a bank)."""
    return [(m.start(1), m.end(1)) for m in _WHOSE.finditer(text)
            if (m.group(1) in given_names() or not is_word(m.group(1)) and _PERSONAL_THING.fullmatch(m.group(2))
                or _OCCASION.fullmatch(m.group(2)))  # a nickname's birthday is a person's ("Moose's bday")
            and not m.group(1).isupper() and m.group(1).lower() not in MONTHS
            and m.group(1).lower() not in WEEKDAYS and m.group(1) not in place_names()
            and m.group(1) not in country_names() and m.group(1).lower() not in _FIRM_GIVEN_NAMES
            and not re.search(r"(?i)\bthe[ \t]+\Z", text[max(0, m.start(1) - 5):m.start(1)])]


_PERSONAL_THING = re.compile(r"cell|extension|farewell|promotion|assistant|secretary|boss|"
                             r"vm|voicemail|voice[ \t]+mail|calendar|signature")
# the occasions only a person has, whatever word names them (a dictionary word too: _PERSONAL_THING's others need a
# word no dictionary holds)
_OCCASION = re.compile(r"birthday|bday|b-day|wedding|funeral|retirement|stag|hen|bachelor|bachelorette")
_FIRM_GIVEN_NAMES = frozenset("chase morgan wells lloyd ford dell merrill lehman barclay goldman".split())


# Who attended, as minutes list them by initials ("Present: PA (chair), DWH, BO, AQ; by phone: LEH (London)",
# "Absent: TL"), and who a role's field names by initials ("Reviewer: HS"): each set of initials, wherever the
# text writes it again ("AQ to circulate memo", "RV explained")
_ATTENDANCE = re.compile(r"(?im)^[ \t]*(?:present|attendees|attending|in[ \t]+attendance|also[ \t]+present|absent|"
                         r"apologies|regrets|by[ \t]+phone|on[ \t]+the[ \t]+phone|dial-?in)[ \t]*:([^\n]*)")
_ROLE_FIELD_INITIALS = re.compile(r"(?i:\b(?:analyst|reviewer|approver|approved[ \t]+by|checked[ \t]+by|prepared[ \t]+by|"
                                  r"owner|trader|author|initials|signed|chair|minutes|scribe|note[ \t]+taker|"
                                  # (a form's signature and sign-off fields: "Signature: WP", "Witnessed by: KT")
                                  r"signature|sig|countersigned(?:[ \t]+by)?|witnessed[ \t]+by|completed[ \t]+by|"
                                  r"reported[ \t]+by|reviewed[ \t]+by|verified[ \t]+by|authori[sz]ed[ \t]+by|"
                                  r"taken[ \t]+by|logged[ \t]+by|recorded[ \t]+by|proposer|seconder|"
                                  r"handover[ \t]+(?:to|from)|handed[ \t]+over[ \t]+to|(?<![^\n])(?:to|cc|from)|"
                                  r"sign|case[ \t]+manager|interviewer|moderator|key[ \t]*worker|allocated[ \t]+worker|"
                                  r"named[ \t]+nurse))[ \t]*:"
                                  rf"[ \t]*({INITIALS_RUN})(?![\w.])|"
                                  # (and a motion's proposer and seconder in minutes: "Proposed JB, seconded HR.")
                                  rf"(?i:\b(?:proposed|seconded)(?:[ \t]+by)?)[ \t]+({INITIALS_RUN})(?!\w|\.\w)")
_INITIALS_TOKEN = re.compile(rf"(?<![\w.]){INITIALS_RUN}(?!\w|\.\w)")
_ROLE_NEXT = re.compile(r"[ \t]*\((?i:chair|minutes|notes|secretary|treasurer|host|lead|dial-?in|remote|online|sick|"
                        r"leave|late|part)\b")  # (a sentence may end after them: "seconded KT.")


def attendance_initials(text: str, is_word) -> list[tuple[int, int]]:
    """The initials of an attendance line (_ATTENDANCE: two sets or more) and of a role's field
    (_ROLE_FIELD_INITIALS), and every other place the text writes them; never an acronym of NOT_INITIALS
    ("FYI", "USA", "TBD") or a function word in capitals ("IT", "NO")."""
    found = set()
    for m in _ATTENDANCE.finditer(text):
        # (there a chat's acronym is someone's initials, "Apologies: PR (sick)", and so is a function word in
        # capitals with the person's role in brackets, "Attendees: AN (chair)")
        marks = list(_INITIALS_TOKEN.finditer(m.group(1)))
        tokens = [t.group(0) for t in marks if may_act(t.group(0))
                  and t.group(0).lower() not in NOT_MIXED_INITIALS
                  and (not is_function_word(t.group(0)) or _ROLE_NEXT.match(m.group(1), t.end()))]
        # (WordNet holds "pa", "tl": no test of a word for initials)
        if len(tokens) >= 2 or len(tokens) == 1 and len(marks) == 1:
            found.update(tokens)
    for m in _ROLE_FIELD_INITIALS.finditer(text):
        g = m.group(1) or m.group(2)
        # (a motion's proposer and seconder is a person, whatever acronym the letters are too: "seconded HF")
        if (may_act(g) if m.group(2) else g.lower() not in NOT_INITIALS) and g.lower() not in NOT_MIXED_INITIALS \
                and not is_function_word(g):
            found.add(g)
    return [(m.start(), m.end()) for m in _INITIALS_TOKEN.finditer(text) if m.group(0) in found] if found else []



# A contact list's line: a role and dot leaders or a wide gap, the person, and an extension ("Darkroom ..... Sunny
# x240", "Deputy    Ama Mensah   ext. 232"); a word of it is a name of the lists or no dictionary word ("Switchboard
# ..... Main Desk x100" holds nobody)
_EXTENSION_LINE = re.compile(rf"(?m)(?:\.{{3,}}|…+|[ \t]{{2,}}|:)[ \t]*((?:{INITIAL}\.[ \t]?)*{CAPWORD}(?:[ \t]+{CAPWORD}){{0,2}})"
                             r"[ \t]+(?:x|ext\.?|extn\.?|Ext\.?)[ \t]?\d{2,5}[ \t]*$")


def extension_names(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _EXTENSION_LINE.finditer(text)
            if any(in_name_lists(w) or not is_word(w) for w in m.group(1).replace(".", " ").split())] \
        if "x" in text or "ext" in text.lower() else []


# A family by its surname in the plural after "the" ("the Fitzpatricks have the bounce house", "dinner w/ the
# Drummonds?", "the Grants can't make it"), as personal mail names neighbours and friends; or before a word for its
# members ("the Mavrogordato brothers", "the Okonkwo twins", "the Baker family"; not "the Helvetica family of fonts")
_FAMILY = re.compile(r"(?<![\w'’\-])[Tt]he[ \t]+([A-Z][a-z]+(?:[A-Z][a-z]+)?s)(?![\w\-])")
_FAMILY_NOUN = re.compile(rf"(?<![\w'’\-])[Tt]he[ \t]+({CAPWORD})[ \t]+(?:brothers|sisters|family|families|twins|triplets|"
                          r"siblings|household|clan|wh[aā]nau|famiglia|familia)\b(?![ \t]+of\b)")
# ... and a person an obituary or a letter names after "the late" ("Loved brother of Mere and the late Pita")
# (not an age or a period: "the late Victorian era", "the late Middle Ages")
_THE_LATE = re.compile(rf"(?<![\w'’\-])[Tt]he[ \t]+late[ \t]+(?:(?:Mr|Mrs|Ms|Dr|Miss)\.?[ \t]+)?({CAPWORD}(?:[ \t]+{CAPWORD})?)"
                       r"(?![ \t]+(?:era|period|age|ages|style|century|centuries|years|times|empire|dynasty|reign|phase|"
                       r"stage|season|game|quarter|innings|edition|[A-Z][a-z]+[ \t]+(?:era|period|ages?)))(?![\w'’\-])")
_FAMILY_DOES = re.compile(r"[ \t]+(?:are|were|have|had|can|can['’]?t|cannot|could|couldn['’]t|will|won['’]t|would|"
                          r"invited|came|come|said|say|live|lived|moved|sent|got|went|just|also)\b|['’](?:re|ll|ve)\b")


def family_names(text: str, is_word) -> list[tuple[int, int]]:
    """A family named by its surname in the plural (_FAMILY): a surname of the lists that no dictionary holds
    ("the Drummonds"), or an English given name that is a word before what a family does ("the Grants can't
    make it"); never a word's plural in a dictionary ("the Yankees", "the Philippines") or a place's."""
    out = []
    for m in _FAMILY.finditer(text):
        word = m.group(1)
        stem = next((s for s in (word[:-1], word[:-2] if word.endswith("es") else None, word)
                     if s and s in surnames()), None)
        if stem is None or stem in place_names() or stem in country_names():
            continue
        if not is_word(stem) and not is_word(word) \
                or stem in given_names(ENGLISH_LOCALES) and _FAMILY_DOES.match(text, m.end()):
            out.append(m.span(1))
    out += [m.span(1) for m in _THE_LATE.finditer(text)
            if m.group(1).split()[0].lower() not in MONTHS and m.group(1).split()[0] not in country_names()
            and m.group(1).split()[0] not in place_names() and not is_function_word(m.group(1).split()[0])]
    # (before a word for its members, a surname of the lists or a word no dictionary holds; never a place's)
    out += [m.span(1) for m in _FAMILY_NOUN.finditer(text)
            if (m.group(1) in surnames() or not is_word(m.group(1))) and m.group(1) not in place_names()
            and m.group(1) not in country_names() and m.group(1).lower() not in STOP_WORDS]
    return out


# A reply's quoted header as GroupWise and its kin write it: the sender between ">>>" and the date, quoted or before
# an address (">>> "Grant, Rusty" 06/12/01 08:14AM >>>", ">>> Hope Baker <hb@example.com> 04/19/01 10:12AM >>>")
_QUOTED_SENDER = re.compile(r'(?m)^[ \t>]*>{2,}[ \t]*(?:"([^"\n]{2,60})"|([^<>"\n]{2,60}?))[ \t]*(?:<[^>\n]*>[ \t]*)?'
                            r"\d{1,2}/\d{1,2}/\d{2,4}\b")


def quoted_sender_names(text: str, is_word) -> list[tuple[int, int]]:
    """The sender of a reply's quoted header (_QUOTED_SENDER): one to four capitalised words, none a mailbox's or
    a department's ("Help Desk", "Payroll")."""
    out = []
    for m in _QUOTED_SENDER.finditer(text):
        g = 1 if m.group(1) else 2
        words = re.findall(r"[^\W\d_][\w'’\-]*", m.group(g))
        if 1 <= len(words) <= 4 and all(w[:1].isupper() for w in words) \
                and not any(w.lower() in MAILBOX_WORDS or w.lower() in DEPARTMENTS for w in words):
            out.append(m.span(g))
    return out
