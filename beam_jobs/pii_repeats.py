"""What a found name brings with it: what the person is also called right after it (initials, a nickname, an
account), the names written beside it in a pair, the holder's name after a found account, the other places a text
writes that name or account, the logins a system makes of it, and the number written right after it. Run once the
name finders and the policy have chosen the names to redact (beam_jobs.pii.PiiFilter), so that every finder's names
get the same companions."""
from __future__ import annotations

import re

from beam_jobs.pii_rules_common import INITIALS_RUN
from beam_jobs.pii_words import NOT_OWNER_WORDS, SAYING_VERBS, SHIFTS_AND_OFFICES


def what_names_bring(text: str, names: list[tuple[int, int]], results: list, vocabulary: frozenset[str],
                     repeats: bool = True) -> list:
    """The numbers after `names` (ID_NUMBER), their aliases and partners (aliases_of, partners_of), the holder's
    name after a found account, and, with `repeats`, every repeat and login of a found name or account (`results`
    holds the names and what the other recognizers found; none of it is found twice).
    Repeats are off while a genre exemption is on: an exempted name must not come back through its repeats."""
    from presidio_analyzer import RecognizerResult  # imported late: presidio_loader sets it up offline first
    out = [RecognizerResult("ID_NUMBER", s, e, 0.85) for s, e in numbers_after_names(text, names)]
    taken = [(r.start, r.end) for r in results]
    accounts = [(r.start, r.end) for r in results if r.entity_type == "USERNAME"]
    aliases = aliases_of(text, names, vocabulary) + [("PERSON", s, e, False) for s, e in partners_of(text, names,
                                                                                                     vocabulary)]
    aliases += [("PERSON", *m.span(1), False) for s, e in accounts for m in [_NAME_AFTER_ACCOUNT.match(text, e)]
                if m and not any(w.lower() in NOT_OWNER_WORDS for w in m.group(1).split())]
    aliases += [("PERSON", *m.span(1), False) for s, e in accounts
                for m in [_NAME_BEFORE_ACCOUNT.search(text, max(0, s - 40), s)] if m and _holder_name(m.group(1),
                                                                                                       vocabulary)]
    out += [RecognizerResult(entity, s, e, 0.85) for entity, s, e, _ in aliases
            if not any(a < e and s < b for a, b in taken)]
    if repeats:
        out += repeats_of(text, results + out, vocabulary)
        # (an alias of letters is a person's wherever the text writes it again: "Agent: Rowan (RH)" ... "RH:
        # Good morning"; repeats_of repeats no letters, which elsewhere are a court's or a case's)
        done = taken + [(r.start, r.end) for r in out]
        for letters in {text[s:e] for _, s, e, again in aliases if again}:
            for m in re.finditer(r"(?<![\w.'’\-])" + re.escape(letters) + r"(?![\w\-]|\.\w)", text):
                if not any(a < m.end() and m.start() < b for a, b in done):
                    out.append(RecognizerResult("PERSON", m.start(), m.end(), 0.85))
        done = taken + [(r.start, r.end) for r in out]
        out += [RecognizerResult("PERSON", s, e, 0.85) for s, e in initials_of_names(text, names)
                if not any(a < e and s < b for a, b in done)]
    # (after the repeats: a login made of a found name may be the list's found account)
    found = taken + [(r.start, r.end) for r in out]
    out += [RecognizerResult("USERNAME", s, e, 0.85)
            for s, e in listed_logins(text, accounts + [(r.start, r.end) for r in out if r.entity_type == "USERNAME"],
                                      vocabulary) if not any(a < e and s < b for a, b in found)]
    return out


# A found name's initials, written alone elsewhere in the text: minutes, notes, rotas and desks write a person out
# once and by initials after ("Hamid Rezaei" ... "Proposed AB, seconded HR"; "Priya S." ... "Sign: PS (RN)"): the
# letters of a name of two or three capitalised words as its person writes them (pii_names.initials_of: "Kaminski,
# Pawel" is "PK", "Jan van der Berg" "JB", "Fatima Al-Harbi" "FAH" or "FA"; an initial counts: "H. Rautenbach" is
# "HR"); never a name written all in capitals, never letters that may_be_initials refuses, and a vital sign's
# letters not before its number ("HR 76")
_NUMBER_AFTER = re.compile(r"[ \t]*:?[ \t]*\d")
# (acronyms a chosen name's letters spell by chance, kept apart from NOT_INITIALS, which the signature, legend and
# sure-name rules read too: there "SN", "GP" or "TB" standing alone are initials often enough)
_COMMON_ACRONYMS = frozenset("""qa ml ai ap app api tb cc bcc rpd ui ux ta sn gp tv pa ra""".split())  # (RA: room air)
# (of the chat and business acronyms that end a message, those that are initials far more often beside a name)
_INITIALS_THOUGH_ACRONYMS = frozenset("hr pr ps".split())


def may_be_initials(mark: str) -> bool:
    """Whether letters a found name spells may stand for its person alone in the text: not a word of function in
    capitals ("IT WAS"), a title, a shift or an office ("AM"), a care role ("RN"), a note's shorthand, a common
    acronym ("QA", "ML", "CC") or one of the acronyms of NOT_INITIALS, all of which a name's letters spell by chance;
    "HR", "PR" and "PS" are a person's far more often beside a name. The test for every chosen name's initials
    (initials_of_names); a sure name's spread in pii_names refuses only NOT_INITIALS, as measured there."""
    from beam_jobs.pii_rules_common import STOP_WORDS
    from beam_jobs.pii_words import CARE_ROLES, NEVER_A_NAME, NOT_INITIALS, NOTE_SHORTHAND
    low = mark.lower()
    return mark.isascii() and low not in STOP_WORDS and low not in SHIFTS_AND_OFFICES and low not in CARE_ROLES \
        and low not in NOTE_SHORTHAND and low not in _COMMON_ACRONYMS and not NEVER_A_NAME.match(low) \
        and (low not in NOT_INITIALS or low in _INITIALS_THOUGH_ACRONYMS)


def initials_of_names(text: str, names: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Where the text writes the initials of one of `names` alone (see above)."""
    from beam_jobs.pii_names import initials_of
    from beam_jobs.pii_words import VITAL_SIGNS
    letters = {mark for s, e in names if not text[s:e].isupper() for inner in (True, False)
               for mark in [initials_of(text[s:e].strip(), inner)] if mark and may_be_initials(mark)}
    out = []
    for mark in letters:
        for m in re.finditer(r"(?<![\w.'’&\-])" + re.escape(mark) + r"(?![\w'’&\-]|\.\w)", text):
            if mark.lower() in VITAL_SIGNS and _NUMBER_AFTER.match(text, m.end()):
                continue  # "HR 76" by Hamid Rezaei's name
            out.append(m.span())
    return out


# What a person is also called, written right after their found name: their initials in brackets, which open with
# the given name's letter ("Priya Sharma (PS)", "Rowan (RH)", "Jo McGrath (JMcG)", "Noah Kerr-Byrne (N.K-B)"; "Ana
# Ruiz (SNP)" is a party), a hyphenated nickname in brackets ("Kwame Mensah (K-Dog)"), a nickname in quotes that is
# a given name or no dictionary word ('CALLOWAY, Reginald "Reggie,"'), and an account named so in brackets ("Tor Bakke
# (user: tbakke)"). (Given names and surnames in brackets after a name, and nicknames in quotes before a surname, are
# found with the names: pii_names.structural_names.)
_ALIAS_AFTER = re.compile(rf"[ \t]*(?:\([ \t]*(?P<initials>{INITIALS_RUN}|[A-Z](?:[.\-][A-Z]){{1,3}}\.?)[ \t]*\)|"
                          r"\((?P<bracketed>[A-Z][a-z]{0,14}-[A-Z][a-z]{1,14})\)|"
                          r"[\"“](?P<quoted>[A-Z][\w'’\-]{1,14}(?:[ \t][A-Z][\w'’\-]{1,14})?)[,.]?[\"”]|"
                          r"\((?i:user(?:name)?|login|handle|user[ \t]?id|aka|a\.k\.a\.?)[ \t]*[:=]?[ \t]*"
                          r"(?P<account>[\w][\w.\-]{2,30})\))")
# The full name of an account's holder in brackets after the account ("Reporter: hbeaumont (Hugo Beaumont)",
# "@ofolarin (Femi Folarin)"): two or three capitalised words, no team's or office's ("(Service Desk)")
_NAME_AFTER_ACCOUNT = re.compile(r"[ \t]*\(([A-Z][a-z'’\-]+(?:[ \t]+[A-Z][a-z'’\-]+){1,2})\)")
# ... and before it, the account in brackets after the name ("Treasurer - Lowri (@lowri_c)", "Kemi Ade (kemi_writes)")
_NAME_BEFORE_ACCOUNT = re.compile(r"(?<![\w'’\-])([A-Z][a-z'’\-]+(?:[ \t]+[A-Z][a-z'’\-]+){0,2})[ \t]*\(@?\Z")


def aliases_of(text: str, names: list[tuple[int, int]], vocabulary: frozenset[str]) \
        -> list[tuple[str, int, int, bool]]:
    """The aliases written right after each of `names` (_ALIAS_AFTER), as (entity, start, end, whether the text's
    other places that write them are the person's too: initials, unless a role's or a shift's that the name happens
    to spell, "Rita Nolan (RN)", whose other "RN" are nurses). Never a role's or a body's letters ("(RN)", "(HR)"),
    a place, a month or a day; initials only where they open with the given name's letter (a "Last, First" name's
    too: "Sharma, Priya (PS)")."""
    from beam_jobs.pii_names import in_vocabulary
    from beam_jobs.pii_rules_common import is_function_word
    from beam_jobs.pii_words import (CARE_ROLES, DEPARTMENTS, MONTHS, NEVER_A_NAME, NOT_INITIALS, TEAMS_THAT_ACT,
                                     WEEKDAYS, country_names, given_names, place_names)
    out = []
    for s, e in names:
        m = _ALIAS_AFTER.match(text, e)
        if not m:
            continue
        kind, alias = m.lastgroup, m.group(m.lastgroup)
        plain = alias.replace(".", "").replace("-", "").lower()
        given = text[s:e].split(",")[-1].split() + text[s:e].split(",")[0].split() if "," in text[s:e] \
            else text[s:e].split()
        spelled = "".join(w[0] for w in given).lower() == plain  # "Aurelia Mensah (AM)": her initials, no shift
        if (plain in CARE_ROLES or plain in SHIFTS_AND_OFFICES) and not spelled or plain in DEPARTMENTS \
                or plain in TEAMS_THAT_ACT or alias.lower() in MONTHS or alias.lower() in WEEKDAYS \
                or alias in place_names() or alias in country_names() or kind != "initials" and (
                    plain in NOT_INITIALS or NEVER_A_NAME.match(alias) or is_function_word(alias)):
            continue
        if kind == "initials" and (not given or alias[0] != given[0][0].upper()):
            continue
        if kind == "quoted" and "-" not in alias and in_vocabulary(alias.split()[0], vocabulary) \
                and alias.split()[0] not in given_names():
            continue  # ('Room "Fjord"', 'Ana "No"': a word that is no given name)
        role = plain in CARE_ROLES or plain in SHIFTS_AND_OFFICES
        again = kind == "initials" and (not role or spelled and plain not in CARE_ROLES)
        out.append(("USERNAME" if kind == "account" else "PERSON", *m.span(kind), again))
    return out


# A name written beside a found name in a pair or a short list, joined by "and", "&" or "+", or as a shift is
# handed over, by an arrow ("(Grace Obi and Mercy)", "x2 staff (Hope M. + Dariusz Zielinski)", "Handed over: Ana
# Ruiz → Ravi"): a capitalised given name of the lists, with the capitalised
# words after it or an initial; never a place's first word ("Ana Ruiz and Miller Park")
_PARTNER_NAME = r"([A-Z][a-z'’\-]+(?:[ \t]+[A-Z][a-z'’\-]+)?(?:[ \t]+[A-Z]\.?)?)(?![\w'’\-])"
_PARTNER_AFTER = re.compile(r"[ \t]*(?:and|&|\+|→|->)[ \t]*" + _PARTNER_NAME)
# ... and the one a shift is handed to, after "from" and a found name ("night h/o from Ana Ruiz to Summer")
_HANDED_TO = re.compile(r"[ \t]+to[ \t]+" + _PARTNER_NAME)
_FROM_BEFORE = re.compile(r"(?i:\bfrom)[ \t]+\Z")
_PARTNER_BEFORE = re.compile(r"(?<![\w'’\-])([A-Z][a-z'’\-]+(?:[ \t]+[A-Z][a-z'’\-]+)?)[ \t]*"
                             r"(?:and|&|\+|→|->)[ \t]*\Z")


# ... and inside a bracket, initials joined so to a found name ("2 staff (AM + Dumisani K)", "(Conrad Whitaker /
# MS)"); not a shift's or a role's letters ("(Ana Ruiz / RN)")
_INITIALS_PARTNER_AFTER = re.compile(r"[ \t]*(?:&|\+|/)[ \t]*([A-Z]{2,3})(?=[ \t]*\))")
_INITIALS_PARTNER_BEFORE = re.compile(r"\([ \t]*([A-Z]{2,3})[ \t]*(?:&|\+|/)[ \t]*\Z")
# ... and the given name or the initial before a found nickname in quotes ('Daniel "Danny Boy" Okafor', 'T. "Tiger"
# Walsh')
_BEFORE_NICKNAME = re.compile(r"(?<![\w'’\-])([A-Z][a-z'’\-]+|[A-Z]\.)[ \t]+[\"“]\Z")
# ... and the surname after a found name and its found nickname, in brackets or quotes ("Dorothy (Dot) Hargreaves",
# "WILHELMINA (MINA) KETTLEWELL", "dorothy 'dot' fairweather"): a word written in the given name's case, a surname
# of the lists or no dictionary word (in capitals a note's verbs follow a name so: "ROSA (DAUGHTER) PRESENT"), never
# a header's label, a firm's suffix, a room, a bed, a day or a note's word
_AFTER_NICKNAME = re.compile(r"[ \t]*(?:\([ \t]*([^()\n]{1,25}?)[ \t]*\)|([\"“'‘])([^\"”'’\n]{1,25})[\"”'’])[ \t]+"
                             r"([A-Za-z][a-z'’\-]+|[A-Z][A-Z'’\-]+)(?![\w'’\-]|[ \t]*[\"“'‘(:])")
# (a greeting's day too: "Happy (Valentines) Day"; the weekdays are pii_words.WEEKDAYS, read beside this list)
_NOT_AFTER_NICKNAME = frozenset("""room rm bed bay flat unit ward today tonight tomorrow yesterday am pm dob nhs mrn age
aged ltd llc inc plc gmbh co corp day days night week weekend morning evening eve party""".split())


def partners_of(text: str, names: list[tuple[int, int]], vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """The names joined to each of `names` (_PARTNER_AFTER, _PARTNER_BEFORE): the first word a given name of the
    lists, a dictionary word though it be ("Ana Reyes and Mercy": the pair is the cue), no place, country, month or
    day ("Ana and Paris"); the word after it kept where no dictionary holds it or it is a surname, and no place's
    noun ("Grace and Hope Street"). And the initials joined to one inside a bracket, and the given name or initial
    before a found nickname in quotes."""
    from beam_jobs.pii_names import in_vocabulary
    from beam_jobs.pii_rules_common import is_function_word
    from beam_jobs.pii_words import (CARE_ROLES, INSTITUTION_HEADS, MONTHS, NOT_INITIALS, NOTE_LABELS, NOTE_SHORTHAND,
                                     PLACE_NOUNS, THING_KINDS, WEEKDAYS, country_names, given_names, place_names,
                                     surnames)
    out = []
    for s, e in names:
        for m in (_INITIALS_PARTNER_AFTER.match(text, e), _INITIALS_PARTNER_BEFORE.search(text, max(0, s - 12), s)):
            if m and m.group(1).lower() not in CARE_ROLES and m.group(1).lower() not in SHIFTS_AND_OFFICES \
                    and m.group(1).lower() not in NOT_INITIALS:
                out.append(m.span(1))
        after = _AFTER_NICKNAME.match(text, e)
        if after:
            given, nickname, surname = text[s:e].split()[0], after.group(1) or after.group(3), after.group(4)
            nick_start = after.start(1) if after.group(1) else after.start(3)
            same_case = surname.isupper() if given.isupper() else surname.islower() if given.islower() \
                else surname[:1].isupper() and not surname.isupper()
            low = surname.lower()
            if same_case and any(a <= nick_start and nick_start + len(nickname) <= b for a, b in names) \
                    and low not in _NOT_AFTER_NICKNAME and low not in MONTHS and low not in WEEKDAYS \
                    and low not in CARE_ROLES and low not in NOTE_LABELS and low not in NOTE_SHORTHAND \
                    and low not in PLACE_NOUNS and not is_function_word(surname) \
                    and (surname.capitalize() in surnames() or not in_vocabulary(surname, vocabulary)):
                out.append(after.span(4))
        nick = _BEFORE_NICKNAME.search(text, max(0, s - 30), s)
        if nick and (nick.group(1).endswith(".") or nick.group(1) in given_names()
                     and not is_function_word(nick.group(1))):
            out.append(nick.span(1))
        handed = _HANDED_TO.match(text, e) if _FROM_BEFORE.search(text, max(0, s - 8), s) else None
        for m in (_PARTNER_AFTER.match(text, e), _PARTNER_BEFORE.search(text, max(0, s - 40), s), handed):
            if not m:
                continue
            words = m.group(1).split()
            first = words[0]
            if first not in given_names() or first.lower() in MONTHS or first.lower() in WEEKDAYS \
                    or is_function_word(first) or first in place_names() or first in country_names():
                continue
            end = m.start(1) + len(first)
            for w in words[1:]:
                if w.lower() in PLACE_NOUNS or w.lower() in INSTITUTION_HEADS or w.lower() in THING_KINDS \
                        or w in place_names() or (
                        in_vocabulary(w, vocabulary) and w not in surnames() and len(w.rstrip(".")) > 1):
                    break
                end = text.index(w, end) + len(w)
            after = re.match(r"[ \t]+([A-Z][a-z]+)", text[end:end + 30])
            if after and after.group(1).lower() in PLACE_NOUNS | INSTITUTION_HEADS | THING_KINDS:
                continue
            out.append((m.start(1), end))
    return out


def repeats_of(text: str, results: list, vocabulary: frozenset[str]) -> list:
    """Every other place `text` writes a name or an account that was found somewhere in it: the same string,
    word-bounded, in the same case, or in any case when no dictionary holds it ("Tolu" found as a speaker, "tolu"
    in a reply). A name is a name wherever the text repeats it, whether or not its cue stands there too; and so
    is the login a system makes of it (_logins_of)."""
    from presidio_analyzer import RecognizerResult
    from beam_jobs.pii_names import STOP_WORDS
    from beam_jobs.pii_words import country_names, place_names
    taken = sorted((r.start, r.end) for r in results)
    strings = {text[r.start:r.end].strip(" .,"): r.entity_type for r in results
               if r.entity_type in ("PERSON", "USERNAME")}
    # ... and each word of a found name that no dictionary holds, in any case ("Ngozi Tolu" ... "tolu")
    strings.update({w: "PERSON" for found, entity in list(strings.items()) if entity == "PERSON" and " " in found
                    for w in re.findall(r"[^\W\d_][\w'’\-]{2,}", found) if w.lower() not in vocabulary
                    and w not in strings})
    out = [RecognizerResult("USERNAME", a, b, 0.85) for a, b in _logins_of(text, strings, vocabulary)
           if not any(x < b and a < y for x, y in taken)]
    for found, entity in strings.items():
        # (not initials or an abbreviation, "W.P.", "T.C": a court's and a case's letters repeat as those; not a place
        # the finders took for a name once, "Manchester City", "Genoa": one wrong redaction is not made many)
        if not re.search(r"[^\W\d_]{3}", found) or found.lower() in STOP_WORDS or found in country_names() \
                or found in place_names() or any(w in place_names() for w in found.split()[1:2]):
            continue
        flags = re.I if found.lower() not in vocabulary and " " not in found else 0
        for m in re.finditer(r"(?<![\w@])" + re.escape(found) + r"(?![\w])", text, flags):
            if not any(a < m.end() and m.start() < b for a, b in taken):
                out.append(RecognizerResult(entity, m.start(), m.end(), 0.85))
    # ... and a found full name's surname that is a word, where the text writes it alone as a person acts or is
    # addressed ("defence lawyer Marcus Tell" ... "Tell said his client", "Mr Tell")
    for found, entity in strings.items():
        words = found.split()
        if entity != "PERSON" or len(words) < 2 or not re.fullmatch(r"[A-Z][a-z]{2,}", words[-1]) \
                or words[-1].lower() in STOP_WORDS or words[-1] in place_names():
            continue
        said = rf"(?<=\b(?:Mr|Ms|Dr)[ .])[ ]?{words[-1]}\b|(?<![\w@]){words[-1]}(?=[ \t]+{SAYING_VERBS}\b)"
        for m in re.finditer(said, text):
            if not any(a < m.end() and m.start() < b for a, b in taken):
                out.append(RecognizerResult("PERSON", m.start() + (text[m.start()] == " "), m.end(), 0.85))
    return out


# A number right after a person's name is theirs: an officer's badge or a call-taker's number ("Ofc. Ana Ruiz #4471",
# "Call-taker: Bo Li (#312)"), a patient's hospital number ("Pt: Ana Ruiz 00938821"), a witness's warrant number
# ("Witnessed: PC Bo Li 31877F"): "#" and its digits, or five to ten digits, maybe with a letter
_NUMBER_AFTER_NAME = re.compile(r"[ \t]*,?[ \t]*(?:\(#[ \t]?(\d{2,6})\)|#[ \t]?(\d{3,6})\b|"
                                r"(\d{5,10}[A-Z]?)(?![\w/.:,\-]))")


def numbers_after_names(text: str, names: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The numbers that follow a found name at once (_NUMBER_AFTER_NAME); never a year."""
    out = []
    for _, e in names:
        m = _NUMBER_AFTER_NAME.match(text, e)
        if m and not re.fullmatch(r"(?:19|20)\d\d", m.group(m.lastindex)):
            out.append(m.span(m.lastindex))
    return out


def _logins_of(text: str, strings: dict[str, str], vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """The logins a system makes of a found name's first and last word, which a text lists beside the names
    ("Peter Mazur" ... "pmazur", "p.mazur", "peter_mazur2", "mazurp"), in any case: of a name written capitalised
    ("GMC van" found once makes no "vans"), and no login is a word or a plural ("Shiite Houthi" makes no
    "Houthis")."""
    from beam_jobs.pii_names import in_vocabulary
    forms = set()
    for found, entity in strings.items():
        written = found.replace(",", " ").split()
        words = [w.lower() for w in written if w.isalpha()] if entity == "PERSON" else []
        if len(words) < 2 or not all(w[:1].isupper() for w in written):
            continue
        for g, last in ((words[0], words[-1]), (words[-1], words[0])):  # ("Mazur, Peter" too)
            if len(last) >= 3:
                forms |= {g[0] + last, g + last, last + g[0]} | {g + sep + last for sep in "._-"} \
                    | {g[0] + sep + last for sep in "._"}
        forms -= {w + "s" for w in words}
    forms = {f for f in forms if not in_vocabulary(f, vocabulary)}
    if not forms:
        return []
    alternatives = "|".join(map(re.escape, sorted(forms, key=len, reverse=True)))
    pattern = r"(?<![\w@./\-])(?:" + alternatives + r")\d{0,4}_?(?![\w@])"
    return [m.span() for m in re.finditer(pattern, text, re.I)]


def _holder_name(words: str, vocabulary: frozenset[str]) -> bool:
    """Capitalised words before a found account that name its holder: the first a given name of the lists or no
    dictionary word, none a team's or an office's ("Events (@events_team)", "Service Desk (@it_ops)" stay)."""
    from beam_jobs.pii_names import in_vocabulary
    from beam_jobs.pii_rules_common import is_function_word
    from beam_jobs.pii_words import given_names
    first = words.split()[0]
    return not is_function_word(first) and not any(w.lower() in NOT_OWNER_WORDS for w in words.split()) and (
        first in given_names() or not in_vocabulary(first, vocabulary))


# A list of logins in brackets in which one was found ("granted for all four users (rquintero7, cokonkwo, jlee,
# tpuketapu)"): its other items in lower case that no dictionary holds are logins too
_LOGIN_ITEM = re.compile(r"[a-z][a-z.\-]{3,30}")


def listed_logins(text: str, accounts: list[tuple[int, int]], vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """The comma-separated items of the bracket a found account stands in (on its line) that are one lower-case
    token, no dictionary, code or mailbox word ("(jlee_2, admin, reports, cokonkwo)": "cokonkwo" only)."""
    from beam_jobs.pii_names import in_vocabulary
    from beam_jobs.pii_words import CODE_WORDS, MAILBOX_WORDS
    out = []
    for s, e in accounts:
        line_start = text.rfind("\n", 0, s) + 1
        line_end = text.find("\n", e) if "\n" in text[e:] else len(text)
        open_at, close_at = text.rfind("(", line_start, s), text.find(")", e, line_end)
        if open_at < 0 or close_at < 0 or ")" in text[open_at:s] or "," not in text[open_at:close_at]:
            continue
        pos = open_at + 1
        for item in text[open_at + 1:close_at].split(","):
            word = item.strip()
            if _LOGIN_ITEM.fullmatch(word) and not in_vocabulary(word, vocabulary) and word not in CODE_WORDS \
                    and word not in MAILBOX_WORDS:
                start = pos + item.index(word)
                out.append((start, start + len(word)))
            pos += len(item) + 1
    return out
