"""Name-finding rules for clinical and case notes: a title in any case ("dr okonkwo"), kin and care roles
("wife JOLANTA", "SW Beverly"), the name a note is signed with before a credential ("K.MENSAH RN"), a role in
brackets after a name, who owns a log's lines, a name with an age in brackets. Their examples are in
beam_jobs/pii_name_rules.py's table, which runs them on every text.
"""
from __future__ import annotations

import re

from beam_jobs.pii_words import (CARE_HOME_STAFF, CARE_ROLES, TEAMS_THAT_ACT, VITAL_SIGNS, ENGLISH_LOCALES, KIN_WORDS, MONTHS, NOT_ADDRESSED, NOT_INITIALS, NOTE_SHORTHAND,
                                 OFFICE_WORDS, SENTENCE_STARTERS, TITLE_WORDS, WEEKDAYS, country_names, given_names,
                                 in_name_lists, place_names, surnames, trie_alternation)
from beam_jobs.pii_rules_court import letters_alone, where_letters_stand
from beam_jobs.pii_rules_common import (CAPWORD, may_act, CONTRACTION, INITIAL, KIN_SET, MODALS, NAME_GAP, POSSESSIVE, UPPER,
                                        STOP_WORDS, is_function_word)

_TITLE_ANY_CASE = re.compile(rf"(?i)(?<![\w/#@])(?:{TITLE_WORDS})(?:\.[ \t]*|[ \t]+)(?!(?:{TITLE_WORDS})[.\s])((?:[^\W\d_]\.[ \t]*){{0,3}}[^\W\d_][\w'’\-]+)")

# A name after a kin or care role (pii_words.KIN_WORDS)
_KIN = re.compile(r"(?i)\b" + trie_alternation(KIN_WORDS) +
                  r"(?:['’]s)?(?:[ \t]*,?(?:[ \t]+|[ \t]*\([ \t]*)|([ \t]*[:=–-][ \t]*))[\"“]?([^\W\d_][\w'’\-]+)")
# the next names of the same kin ("2 sons (Ezekiel & Thaddeus)", "daughters Ana, Lupe and Rosa")
_KIN_MORE = re.compile(r"[ \t]*(?:,|&|\band\b)[ \t]*([^\W\d_][\w'’\-]+)")

# honorifics only ever stand before a name; ranks and offices ("judge", "constable") also stand alone
_HONORIFIC = re.compile(r"(?i)(?:mr|mrs|ms|miss|mx|dr|prof|sri|shri|smt|kum|adv)\b")
_CARE_TITLE = re.compile(r"(?i)(?:rn|np|rt)\b")  # nurse, nurse practitioner, respiratory therapist
_NOT_A_TITLE = re.compile(r"(?i)(?:rn|np|rt)\.")  # a care title takes no dot: "RN." ends a sentence
_SLASH_TITLE = re.compile(r"(?i)[scdw]/o\b")   # "S/o Ram", "C/o Ramesh": capitalised; notes' "c/o pain": no name

_CAPITALISED_NEXT = re.compile(rf"[ \t]+{CAPWORD}")


def title_names_any_case(text: str, is_word) -> list[tuple[int, int]]:
    """A word after a title written in any case ("seen by dr smith", "MR JONES", "Mr A. B. Smith")."""
    out = []
    for m in _TITLE_ANY_CASE.finditer(text):
        word = m.group(1).split()[-1]
        if word.lower() in NOT_ADDRESSED or word.lower() in ("and", "or", "the", "of", "to", "is", "was") \
                or word.lower().rstrip(".") in OFFICE_WORDS and not (
                    _HONORIFIC.match(m.group(0)) and word.rstrip(".").capitalize() in surnames()):
            continue  # a second rank or office: "Brigadier General"; after "Dr" a surname ("dr. bishop saw")
        if is_function_word(word) and word.capitalize() not in given_names() or CONTRACTION.search(word):
            continue  # "Justice. It is", "Madam Speaker"'s "It"; "Will" stays (a given name)
        if _NOT_A_TITLE.match(m.group(0)) or word.islower() and _SLASH_TITLE.match(m.group(0)):
            continue  # "updated by RN. Plan to ...": a sentence's end; a note's "c/o incisional pain" (complains of)
        if word.islower() and not _HONORIFIC.match(m.group(0)) and is_word(word) \
                and not (_CARE_TITLE.match(m.group(0)) and word.capitalize() in surnames()):
            continue  # "a police constable has won", "miss out": a rank or a verb, not a title before a name;
            # after a nurse's title a surname of the lists is one ("discussed with np williams")
        initials = re.match(r"(?:[^\W\d_]\.[ \t]*)+", m.group(1))  # any script's capitals: "Ş. Aydınlı"
        # "Mrs K. testified": the initials are the name, the verb is not ("dr. a. ofori-atta": no word, a surname)
        if initials and word.islower() and (is_word(word) or len(word) < 3):
            out.append((m.start(1), m.start(1) + len(initials.group(0).rstrip())))
            continue
        end = m.start(1) + len(POSSESSIVE.sub("", m.group(1)))
        more = _MORE_NAME.match(text, end) if word[:1].isupper() and not word.isupper() and end == m.end(1) else None
        if more and not any(is_function_word(w) or w.lower() in NOT_ADDRESSED for w in more.group(0).split()):
            end = m.start(1) + len(POSSESSIVE.sub("", text[m.start(1):more.end()]))  # "Corporal Tamás Pintér"
        out.append((m.start(1), end))
    return out


# the rest of a name a title opens, as prose writes it: one or two capitalised words, particles between
_MORE_NAME = re.compile(rf"(?:{NAME_GAP}(?:(?:van|von|de|der|da|dos|du|la|le|al|el|bin|ibn){NAME_GAP})*"
                        rf"[^\W\d_a-z][^\W\d_A-Z][\w'’\-]*){{1,2}}")


# A newborn a ward names by sex and surname, before a name is given ("Baby Girl NWOSU-HARTLEY", "Infant Boy Okafor",
# "BG Lindqvist"); the twin's letter after it stays ("Baby Boy Okafor B")
_NEWBORN = re.compile(rf"\b(?:(?i:baby|infant|newborn)[ \t]+(?i:girl|boy)|BG|BB)[ \t]+((?!(?i:twin|a|b|c|of|is|was|the)\b)"
                      rf"{CAPWORD}(?:-{CAPWORD})?)")


# ... and the name a birth note gives the baby in quotes ("SVD 22:14, baby girl 3.41kg "Mei"")
_NEWBORN_QUOTED = re.compile(rf"(?i:\bbaby[ \t]+(?:girl|boy)\b)[^\n\"“]{{0,40}}[\"“]({CAPWORD})[\"”]")


def newborn_names(text: str, is_word) -> list[tuple[int, int]]:
    """The surname after a newborn's sex (_NEWBORN), unless it is a dictionary word in lower case or a ward's word;
    the name in quotes a birth note gives (_NEWBORN_QUOTED)."""
    return [m.span(1) for m in _NEWBORN.finditer(text)
            if not (m.group(1).islower() and is_word(m.group(1))) and m.group(1).upper() not in _WARDS] \
        + [m.span(1) for m in _NEWBORN_QUOTED.finditer(text)]


# what a relative named in three capitals does next, which an acronym after a kin word does not ("Wife AWA on
# phone", "son OBI at bedside"; "son ICU team")
PERSON_DOES_AFTER = re.compile(r"[ \t]+(?:on[ \t]+(?:the[ \t]+)?(?:phone|tele)|at[ \t]+(?:the[ \t]+)?bedside|in[ \t]+to|"
                                r"called|calls|phoned|visit(?:ed|ing|s)?|aware|updated|notified|present|here)\b")


# a forum's family shorthand with the name in brackets ("DH (Will) and I", "MIL (Brenda)"): dear husband, wife,
# son, daughter, partner, mother-, father-, sister-, brother-in-law, ex-husband
_FORUM_KIN = re.compile(rf"\b(?:DH|DW|DS|DD|DP|MIL|FIL|SIL|BIL|XH|XW|ExH|ExW)[ \t]*\([ \t]*({CAPWORD})[ \t]*\)|"
                        # ... or after "my" ("My other SIL Precious says")
                        r"(?i:\b(?:my|his|her|our|their|your)[ \t]+(?:(?:other|older|younger|ex-?|future)[ \t]+)?)"
                        rf"(?:DH|DW|DS|DD|DP|MIL|FIL|SIL|BIL|XH|XW|ExH|ExW)[ \t]+({CAPWORD})")


def _line_in_lower_case(text: str, i: int) -> bool:
    start, end = text.rfind("\n", 0, i) + 1, text.find("\n", i)
    return not any(c.isupper() for c in text[start:end if end >= 0 else len(text)])


def kin_names(text: str, is_word) -> list[tuple[int, int]]:
    """The word after a kin or care role: a capitalised one always ("daughter Ingrid"), one in lower case
    when no dictionary holds it ("called daughter ingrid"), and in a line written all in lower case an English
    given name though the dictionary holds it ("sister faith called", "daughter (summer)", "husband rich at
    bedside" in a note whose other lines hold "V4-V6"; not a modal verb: "son will visit"). After a colon, an
    equals sign or a dash, as a note's form writes it ("Son = Ignatius"),
    only a given name of the lists, or a surname of the lists or a capitalised word of 4+ letters that no
    dictionary holds and no place list, counts ("Mother: Unknown", "Mom: Good, sweetie", "Boyfriend: Ive got";
    "PCP: Dr. Oduya" is the title rule's). A forum's family shorthand, the name in brackets (_FORUM_KIN: "DH (Will)")."""
    out = [m.span(m.lastindex) for m in _FORUM_KIN.finditer(text)  # "DH (Will)": no modal there
           if m.group(m.lastindex).lower() not in STOP_WORDS or m.group(1) and m.group(1).lower() in MODALS]
    for m in _KIN.finditer(text):
        while m:
            g = m.lastindex  # the name's group: 2 in _KIN (1 is the form's sign), 1 in _KIN_MORE
            w = m.group(g)
            named_apart = w[:1].isupper() and w in given_names() and re.match(r"[ \t]*[(,;.]", text[m.end(g):])
            modal_name = w[:1].isupper() and w[1:].islower() and w.lower() in MODALS  # "Pt's son Will present"
            if (w.lower() in SENTENCE_STARTERS or w.lower() in NOT_ADDRESSED) and not named_apart and not modal_name \
                    or CONTRACTION.search(w) \
                    or w.lower() == "day" \
                    or w.isupper() and len(w) <= 3 and w.capitalize() not in given_names() and not (
                        len(w) == 3 and not is_word(w) and w.lower() not in NOTE_SHORTHAND
                        and PERSON_DOES_AFTER.match(text, m.end(g))):  # "son ICU" / "wife KIM", "Wife AWA on phone"
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
            if not (w[:1].isupper() or not is_word(w) or _line_in_lower_case(text, m.start(g)) and w not in MODALS
                    and w.capitalize() in given_names(ENGLISH_LOCALES)):
                break
            out.append((m.start(g), m.start(g) + len(POSSESSIVE.sub("", w))))
            m = _KIN_MORE.match(text, m.end(g))
            if m and not m.group(1)[:1].isupper():
                break  # the next names are capitalised: "husband Jim and thier family"
    # ... and the one a text says is somebody's kin ("obi is my cousin lol", "Hope's my sister"): a given name, a
    # word no dictionary holds, a short word ("obi" is also a sash) or a capitalised word inside a sentence; never a
    # pronoun, a word that opens sentences or a kin word ("mom is my best friend", "the saddest was my father",
    # "coffee is my best friend")
    out += [m.span(1) for m in _IS_KIN.finditer(text) for w in [m.group(1)]
            if w.lower() not in STOP_WORDS and w.lower() not in SENTENCE_STARTERS and w.lower() not in NOT_ADDRESSED
            and w.lower() not in KIN_SET and (w.capitalize() in given_names() or not is_word(w) or (
                len(w) <= 4 or w[:1].isupper() and not _SENTENCE_OPENS.search(text, 0, m.start(1)))
                and m.group(2).lower() not in _FRIEND_WORDS)]
    return out


_SENTENCE_OPENS = re.compile(r"(?:\A|[.!?:\n][\"”'’)]?[ \t]*)\Z")


_IS_KIN = re.compile(r"(?<![\w'’\-])([^\W\d_][\w\-]*)(?:[ \t]+(?:is|was)|['’]s)[ \t]+(?:my|our|his|her|their)[ \t]+"
                     r"(?:(?:little|big|older|younger|twin|best|eldest|oldest|youngest|half|step|baby)[ \t\-]+)?"
                     r"(" + trie_alternation(KIN_WORDS) + r")\b")
_FRIEND_WORDS = frozenset("friend friends buddy bestie bff bae baby boss".split())



# A legend that spells out who initials stand for, as minutes, action lists and flowsheets end ("AK = Aylin Kaya,
# SO = Sean O'Driscoll, Jo = Joanna Lim", "tk = Tove Kask RN"): two pairs or more, the name of each a given name and
# a word of the lists or of no dictionary (a credential after it aside); the initials then stand for the person
# wherever the text writes them ("HD/SO   14/8"). Pairs may share a line, a column's gap apart ("AO = Aoife   LH =
# Lwazi"). Where "=" pairs them, the initials spell the name's own first letters and the name is one word or more of
# no dictionary (or a given name of the lists), one such pair is legend enough ("PD = me, SN = Sunita", "TK = Taini
# Kealoha"; not a glossary's "TC = Total Cost", "UK = Ukraine", nor a header's "Cc: Credit-Approvals")
_LEGEND_CREDENTIAL = r"(?:,?[ \t]+(?:RN|LPN|LVN|CNA|NP|MD|RRT|RT|PT|OT|SW|MSW|PA-?C|PA))"
_LEGEND_PAIR = re.compile(rf"(?<![\w.'’\-])((?:[A-Z]\.?){{1,3}}|[A-Z][a-z]|[a-z]{{2,3}})[ \t]*[=:][ \t]*"
                          rf"({CAPWORD}(?:(?!{_LEGEND_CREDENTIAL}\b)[ \t]+{CAPWORD}){{0,2}}){_LEGEND_CREDENTIAL}?"
                          r"(?=[ \t]*(?:[,;.]|$)|[ ]{2,}|\t)", re.M)


def legend_initials(text: str, is_word) -> list[tuple[int, int]]:
    if "=" not in text and ":" not in text:
        return []

    def letters_ok(m):
        # (in lower case, as a flowsheet's key gives a nurse's: "dm = Dolores Mack"; not a header's "cc: Ann Roe")
        return m.group(1).rstrip(".").lower() not in NOT_INITIALS \
            and not (m.group(1).islower() and (m.group(1) in STOP_WORDS or m.group(1) in NOTE_SHORTHAND
                                               or m.group(1) in ("cc", "bcc", "re", "fw", "fwd", "to", "dx", "rx")))

    def spelled(m):  # the initials are the name's first letters, the name no dictionary's words, no place
        words = m.group(2).split()
        letters = m.group(1).replace(".", "").upper()
        return 2 <= len(letters) <= 3 and letters[0] == words[0][0] and (len(words) == 1 or letters == "".join(
            w[0] for w in words)) and all((w in given_names() or not is_word(w)) and w not in place_names()
                                          and w not in country_names() for w in words)

    candidates = [m for m in _LEGEND_PAIR.finditer(text) if letters_ok(m)]
    pairs = [m for m in candidates if len(m.group(2).split()) > 1 and m.group(2).split()[0] in given_names()
             and all(in_name_lists(w) or not is_word(w) for w in m.group(2).split()[1:])]
    pairs += [m for m in candidates if m not in pairs and "=" in m.group(0) and spelled(m)]
    if len(pairs) < 2 and not any("=" in m.group(0) and spelled(m) for m in pairs):
        return []
    marks = {m.group(1) for m in pairs}
    # (initials in lower case are no word: wherever they stand alone again, as a flowsheet's column signs rows)
    lower = [m.span() for mark in marks if mark.islower() for m in letters_alone(text, mark)]
    return [m.span(1) for m in pairs] + [m.span(2) for m in pairs] + lower + \
        where_letters_stand(text, {mark for mark in marks if not mark.islower()})


# Initials the text says are someone's ("signed by agency nurse, initials MMT", "initialled RB", "the initials on the
# chart were J.K."): the word says they stand for a person; not an acronym of the lists (NOT_INITIALS), nor letters
# a glossary spells out
_SAID_INITIALS = re.compile(r"(?i:\binitial(?:s|led|ed)(?:[ \t]+(?:are|were|was|is|read|look(?:ed)?[ \t]+like|of))?)"
                            r"[ \t]*:?[ \t]*[\"'“(]?((?:[A-Z]\.){2,4}|[A-Z]{2,4}|[A-Z][a-z]?[A-Z]{1,2})(?![\w.'’\-]|\.\w)"
                            r"(?![ \t]+(?:stands?|stood|means?|is[ \t]+short)\b)")  # (a glossary's: "NHS stands for")


def said_initials(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _SAID_INITIALS.finditer(text) if m.group(1).replace(".", "").lower() not in NOT_INITIALS] \
        if "nitial" in text else []


# A ward's team members a note names by their role's letters ("SW Beverly following", "CM Dolores aware",
# "sitter (Maribel)"): the letters are also compass points and states ("SW Florida", "PA Turnpike"), so only a
# given name or surname of the English lists that no dictionary holds counts ("SW London" is a place; "SW Grace"
# is lost), and never a place's name
_CARE_ROLE_WORDS = "|".join(sorted({w for r in CARE_ROLES for w in (r, r.upper(), r.capitalize())}, key=len, reverse=True))
# (a role before another opens it: "Charge RN (Barb)")
_CARE_ROLE = re.compile(rf"(?<![\w/])(?:{_CARE_ROLE_WORDS})(?:[ \t]+(?:{_CARE_ROLE_WORDS}))?"
                        rf"(?:[ \t]+|[ \t]*\([ \t]*|[ \t]+[-–][ \t]+|[ \t]*:[ \t]*)({CAPWORD}|[a-z][\w'’\-]+)"
                        rf"(?:[ \t]+((?:(?:de|van|der|den|dela|del|da|dos|du|le|la|al|el)[ \t]+)*{CAPWORD}))?|"
                        # a physical therapist's in brackets, any name: "pt" is the patient too ("pt tolerated
                        # diet"); outside brackets only a given name of the lists (patient_or_therapist_names)
                        rf"(?<![\w/])(?:PT|Pt)[ \t]*\([ \t]*({CAPWORD})(?=[ \t]*\))")
_CLOSES_BRACKET = re.compile(rf"[ \t]*(?:{UPPER}\.[ \t]*)?\)")  # (an initial may follow: "Lactation (Carol B.)")


_CARE_ROLE_SET = frozenset(CARE_ROLES)
_PLACE_LETTERS = frozenset("sw dc cm".split())  # also a compass point, a capital, centimetres: "SW London"


def _is_sentence_start(text: str, i: int) -> bool:
    before = text[max(0, i - 4):i].rstrip(" \t(")
    return not before or before[-1] in ".!?:\n"


def care_role_names(text: str, is_word) -> list[tuple[int, int]]:
    """The name after a care or police team member's role (_CARE_ROLE, pii_words.CARE_ROLES): a given name or
    surname of the lists no dictionary holds, any capitalised word of those lists or none, or a capitalised
    word after a role written in lower case ("aide Precious", "carer Blessing"); a given name and a surname
    after it, one of them no dictionary word ("SW Deb Halloran", "HCA Precious Moyo", "OT - Anneke de Vries")."""
    out = []
    for m in _CARE_ROLE.finditer(text):
        if m.group(3):
            if m.group(3).capitalize() in given_names() or not is_word(m.group(3)):
                out.append((m.start(3), m.end(3)))
            continue
        w = m.group(1).capitalize()
        bracketed = "(" in m.group(0)[:m.start(1) - m.start()]
        # (a place's name that is a given name of the lists after a role in capitals is the member: "HCA Marta")
        listed_after_letters = w in given_names() and m.group(0)[:2].isupper() and m.group(1)[:1].isupper()
        if w in place_names() and not listed_after_letters or w in country_names() or w.lower() in STOP_WORDS \
                or w.lower() in _CARE_ROLE_SET \
                or w.lower() in MONTHS or w.lower() in WEEKDAYS or w.endswith("s") and is_word(w[:-1]) and not bracketed:
            continue  # "interpreter Services", "physio Monday"; "liaison (Mags)" is a name
        role = m.group(0)[:m.start(1) - m.start()].strip(" \t(").lower()
        last = m.group(2).split()[-1] if m.group(2) else ""
        if last and m.group(1)[0].isupper() and (last in surnames() or not is_word(last)) \
                and (w in given_names() or not is_word(w) or not is_word(last)):
            # a given name and a surname: "SW Deb Halloran", "HCA Precious Moyo", "OT - Anneke de Vries"
            out.append((m.start(1), m.start(2) + len(POSSESSIVE.sub("", m.group(2)))))
        elif bracketed and (w in given_names() or not is_word(w)) and _CLOSES_BRACKET.match(text, m.end(1)):
            out.append((m.start(1), m.end(1)))  # "SW (BARB)", "PT (Joy)": a bracket after a role holds its name
        elif ":" in m.group(0)[:m.start(1) - m.start()]:
            if m.group(1)[0].isupper() and (w in given_names() or not is_word(w)) and not m.group(2):
                out.append((m.start(1), m.end(1)))  # a shift's label: "(Carer: Joy)"; not "Physio: Mobilised"
        elif m.group(1).islower() and m.group(0)[:2].isupper() and not m.group(2) and m.group(1) not in MODALS \
                and w in given_names(ENGLISH_LOCALES):
            out.append(m.span(1))  # a given name in lower case after a role in capitals: "walked w/ CNA rosa"
        elif (in_name_lists(w) or role in _PLACE_LETTERS) and not is_word(w) \
                or role not in _PLACE_LETTERS and m.group(1)[0].isupper() and not m.group(2) \
                and not _is_sentence_start(text, m.start(1)) \
                and (in_name_lists(w) or not is_word(w) or m.group(0)[:1].islower()):
            out.append((m.start(1), m.start(1) + len(POSSESSIVE.sub("", m.group(1)))))
    # ... and a therapist in brackets after the letters of the service ("ambulated w/ PT (Stone) & RN", "OT
    # (Okafor) to see"): a name of the lists or no dictionary word, never in capitals ("PT (BID)")
    out += [m.span(1) for m in _THERAPIST_BRACKETED.finditer(text)
            if (in_name_lists(m.group(1)) or not is_word(m.group(1))) and m.group(1) not in place_names()
            and m.group(1).lower() not in MONTHS and m.group(1).lower() not in WEEKDAYS] if "(" in text else []
    return out


_THERAPIST_BRACKETED = re.compile(rf"(?<![\w/])(?i:PT|OT|RT|SLP|SALT|PCA)[ \t]*\([ \t]*([A-Z][a-z'’\-]+)[ \t]*\)")


# Who is on for a shift, as a ward's staffing lines give it: a given name, then the hours ("Sunny 2300-0700",
# "Ruby until 2300", "Summer till 1900"; not years: "Summer 2019-2020")
_ON_SHIFT = re.compile(rf"(?<![\w'’\-])({CAPWORD})[ \t]+(?:(?:until|till|til|from)[ \t]+(\d{{4}})(?:[ \t]*h(?:rs)?)?\b|"
                       rf"(\d{{4}})[ \t]*[-–][ \t]*(\d{{4}})\b)")


def _clock(hhmm: str) -> bool:
    return int(hhmm[:2]) <= 24 and int(hhmm[2:]) <= 59


def on_shift_names(text: str, is_word) -> list[tuple[int, int]]:
    """A given name of the lists before a shift's hours (_ON_SHIFT): times of a 24-hour clock, never two years."""
    out = []
    for m in _ON_SHIFT.finditer(text):
        times = [t for t in m.group(2, 3, 4) if t]
        # not years: two of them ("Ruby 1999-2000"), or one off a shift's quarter hours ("until 2019")
        years = all(t.startswith(("19", "20")) for t in times) and (len(times) == 2 or times[0][2:] not in (
            "00", "15", "30", "45"))
        if m.group(1) in given_names() and m.group(1).lower() not in MONTHS and m.group(1).lower() not in WEEKDAYS \
                and all(_clock(t) for t in times) and not years:
            out.append((m.start(1), m.end(1)))
    return out


# A log's or a task list's lines each ending with who wrote or owns them after a dash: initials ("00:15 asleep
# – KP") or a given name ("[ ] release notes - Sunny"; in lower case the same word no dictionary holds on two lines
# or more: "rang 111. -chidi"), two or more lines so
_LINE_OWNER = re.compile(r"(?m)[ \t][-–—~][ \t]*([A-Z]{2,3}|[^\W\d_a-z][^\W\d_A-Z][\w'’\-]*|[^\W\d_A-Z]{3,})[ \t]*$")


def line_owners(text: str, is_word) -> list[tuple[int, int]]:
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
    words = [m for m in found if m.group(1)[:1].isupper() and not m.group(1).isupper()]
    named = [m for m in words if in_name_lists(m.group(1)) or not is_word(m.group(1))]
    out = [(m.start(1), m.end(1)) for m in found if m.group(1).isupper() and counts[m.group(1)] >= 2
           or m.group(1).islower() and counts[m.group(1)] >= 2 and not is_word(m.group(1))]
    if len(named) >= 2 and 2 * len(named) >= len(words):
        out += [(m.start(1), m.end(1)) for m in words]
    return out


# Who an action item or a minute's point is for, by initials at the line's start before "to" and a verb ("- MS to
# complete ReSPECT form", "JT/KO to chase the lab", "2. AB to circulate the draft"): the bodies, teams and wards that
# take actions too stay ("GP to review", "MDT to discuss", "ED to admit", "UK to remain")
_ACTION_OWNER = re.compile(r"(?m)^[ \t>]*(?:[-*•]|\d{1,2}[.)]|[Aa]ctions?[ \t]*:)?[ \t]*([A-Z]{2,3})"
                           r"(?:[ \t]*[/&+,][ \t]*([A-Z]{2,3}))?[ \t]+to[ \t]+[a-z]{3,}")
# ... and under an actions heading, a row's initials before a gap or a dash and the task ("ACTIONS\n- SM    letter to
# no. 41\n- KP - quotes for the fence")
# ... and the initials a note's or a report's line says it went by ("marked per AS/KN conversation")
# (not a doctor's or a nurse's letters: "per MD/RN")
_NO_CARE_LETTERS = r"(?!(?:MD|DO|PA|NP|RN|PT|OT|RT)\b)"
_PER_INITIALS = re.compile(rf"\b[Pp]er[ \t]+{_NO_CARE_LETTERS}([A-Z]{{2,3}})[ \t]*/[ \t]*{_NO_CARE_LETTERS}([A-Z]{{2,3}})"
                           r"(?![\w\-]|\.\w)")
_ACTIONS_HEADING = re.compile(r"(?im)^[ \t#*]*action(?:s|[ \t]+items?|[ \t]+points?|[ \t]+log)[ \t*]*:?[ \t]*$")
# (the task after a colon too, or opening with capitals: "- PR: card reader options", "OA – QA env")
_ACTION_ROW = re.compile(r"(?m)^[ \t>]*(?:[-*•]|\d{1,2}[.)])?[ \t]*([A-Z]{2,3})(?:[ \t]*[/&+,][ \t]*([A-Z]{2,3}))?"
                         r"(?:[ ]{2,}|\t+|[ \t]+[-–:][ \t]+|:[ \t]+)(?=[a-z]|[A-Z][A-Za-z]*[ \t]+[a-z])")


# ... and who did a note's task, by initials after the verb and "by" ("Handed over by JSP to", "checked by KO and
# RT", "countersigned by AB")
_DONE_BY_INITIALS = re.compile(r"(?i:\b(?:handed[ \t]+over|handover[ \t]+given|seen|reviewed|checked|witnessed|"
                               r"countersigned|signed|completed|administered|given|escalated|assessed|examined|covered|"
                               r"relieved|discussed|verified|co-signed|cosigned|documented|written|recorded|taken|"
                               r"approved|authori[sz]ed|prepared|entered|booked|marked|initial(?:l)?ed)[ \t]+by)"
                               r"[ \t]+([A-Z]{2,3})(?:[ \t]*(?:/|&|\+|and)[ \t]*([A-Z]{2,3}))?(?![\w\-]|\.\w)")


# ... and in a meeting's minutes, the initials that report, ask or agree ("DO'C reported sales 4% ahead", "KM asked
# whether"): only in a text that says it is minutes (a news wire's "AP reported" is an agency)
_MINUTES = re.compile(r"(?i)\b(?:minutes|apologies|attendees|in[ \t]+attendance|matters[ \t]+arising|a\.?o\.?b\.?|"
                      r"action[ \t]+points)\b|^[ \t]*present[ \t]*:", re.M)
_MINUTE_INITIALS = re.compile(r"(?<![\w'’.\-])([A-Z]{2,3}|[A-Z]{1,2}['’][A-Z])(?=[ \t]+(?:reported|said|asked|thought|"
                              r"agreed|noted|confirmed|explained|suggested|proposed|queried|raised|updated|presented|"
                              r"circulated|welcomed|thanked|tabled|undertook|offered|declared|outlined)\b)")
# ... and children by their initials with their age in brackets, as a social worker's handover lists them ("1) RB
# (8) & sibling MB (5) - Mother: ...")
_AGED_IN_BRACKETS = re.compile(r"(?<![\w'’.\-])([A-Z]{2,3})[ \t]+\((?:aged[ \t]+)?\d{1,2}(?:[ \t]*(?:y|yrs?|years?|m|f))?\)")
_CHILDREN = re.compile(r"(?i)\b(?:child(?:ren)?|sibling|siblings|son|daughter|baby|kids?|young[ \t]+person|yp|twins?|"
                       r"brother|sister)\b")
_TESTS_COUNTED = frozenset("ct mri ecg ekg eeg cxr xr us uss abg fbc lft ue crp inr bp hr pet dexa".split())
# ... and in any text, two capitals that agree, say, ask or take a task as a person does ("a family emergency which
# GL agreed should have been", "JP agrees this was", "HG has indicated he", "ML + Ana to pair on it"); a body's or
# a country's letters stay (NOT_ACTORS: "UK agreed", "EU says")
_SUBJECT_INITIALS = re.compile(r"(?<![\w'’.\-])([A-Z]{2})(?=[ \t]+(?:agreed|agrees|says|said|asked|asks|noted|"
                               r"confirmed|mentioned|explained|suggested|declined|refused|thinks|feels|wants|"
                               # (an incident's timeline: "10:47 | AM submits credentials", "OH begins triage")
                               r"submits|submitted|begins|began|reports|escalates|escalated|approves|approved|"
                               r"requests|requested|replies|replied|calls|emails|emailed|texts|texted|phoned|"
                               r"has[ \t]+(?:indicated|agreed|confirmed|asked)|had[ \t]+it|will[ \t]+(?:chase|send|"
                               r"book|check|circulate|follow)|\+[ \t]+\S+[ \t]+to[ \t]+[a-z]{3,})\b)")
# A note's signing line of two people with a slash, initials or names, as a handover or a read-and-understood
# line signs ("TE / PM", "kh / RN K. Halvorsen", "Gabi P / AL read & understood 07:40")
_SIDE = rf"([A-Z]{{2,3}}|[a-z]{{2,3}}|(?:{UPPER}\.[ \t]?)?{CAPWORD}(?:[ \t]+(?:{UPPER}\.?|{CAPWORD}))?)"
# (after a signature's dashes too, and with the credentials after the name: "-- hw / Helga Wennerström RN, OCN")
_SLASH_SIGNED = re.compile(rf"(?m)^[ \t]*(?:[-–—~]{{1,3}}[ \t]*)?{_SIDE}[ \t]*/[ \t]*"
                           rf"(?:(?:RN|SN|HCA|DN|NIC|Dr|Sr)\.?[ \t]+)?{_SIDE}"
                           r"(?:,?[ \t]+(?:RN|LPN|LVN|NP|CNA|RRT|BSN|MSN|OCN|CCRN|CEN|RN-BC)"
                           r"(?:,[ \t]*[A-Z][A-Za-z\-]{1,5})*)?"
                           r"(?:[ \t]+read[ \t]*(?:&|and)[ \t]*understood)?(?:[ \t]+\d{1,2}[:.]?\d{2})?[ \t]*$")
_NOT_SIGNERS = frozenset("temp spo2 yes no n/a na mon tue wed thu fri sat sun".split()) | VITAL_SIGNS


def _may_be_initials(mark: str, others: frozenset[str]) -> bool:
    """Letters that may be a person's initials: no acronym (pii_words.NOT_INITIALS), care role, note's shorthand,
    nor one of `others` (the rule's own)."""
    low = mark.lower()
    return low not in NOT_INITIALS and low not in CARE_ROLES and low not in NOTE_SHORTHAND and low not in others


def slash_signers(text: str, is_word) -> list[tuple[int, int]]:
    """Both sides of a note's slash-signed line (_SLASH_SIGNED) where one side at least is a person's: initials
    that are no acronym, role or measure ("AM / PM", "BP / HR" stay), or a name of the lists or no dictionary
    word."""
    def person(side: str) -> bool:
        if len(side) <= 3 and (side.isupper() or side.islower()):
            return _may_be_initials(side, _NOT_SIGNERS)
        words = side.replace(".", " ").split()
        return any(len(w) > 1 and (in_name_lists(w) or not is_word(w)) for w in words) \
            and not any(w.lower() in _NOT_SIGNERS or w.lower() in MONTHS for w in words)
    out = []
    for m in _SLASH_SIGNED.finditer(text) if "/" in text else ():
        sides = [g for g in (1, 2) if person(m.group(g))]
        if sides:
            out += [m.span(g) for g in (1, 2) if g in sides or m.group(g).lower() not in _NOT_SIGNERS
                    and len(m.group(g)) <= 3 and m.group(g).isupper()]
    return out


# A staff line's initials after its label, one group after another with slashes or commas ("Staff this wk:
# MW/RH/QL/DF(charge)", "RNs on: JT, KO, AB"), maybe each with its role in brackets: three or more groups, so that a
# pair of roles or units is no staff list ("Staff: RN/LPN" is roles, which _may_be_initials refuses anyway)
_STAFF_LABEL = re.compile(r"(?im)^[ \t]*(?:staff|staffing|team|nurses|rns|crew|on[ \t]+duty|covering|working|rota)\b"
                          r"[^:\n]{0,15}:[ \t]*((?:[A-Z]{2,3}(?:[ \t]*\([^()\n]{1,12}\))?[ \t]*[/,][ \t]*){2,}"
                          r"[A-Z]{2,3}(?:[ \t]*\([^()\n]{1,12}\))?)[ \t]*$")
_STAFF_MARK = re.compile(r"(?<![\w(])[A-Z]{2,3}(?![\w)])")


def staff_line_initials(text: str, is_word) -> list[tuple[int, int]]:
    """The initials of a staff line (_STAFF_LABEL) that may be a person's (_may_be_initials); where two or more
    are, a care role's letters among them are initials too ("MW/RH/QL": MW no midwife there)."""
    out = []
    for m in _STAFF_LABEL.finditer(text):
        marks = list(_STAFF_MARK.finditer(m.group(1)))
        people = [i for i in marks if _may_be_initials(i.group(), _NOT_SIGNERS)]
        if len(people) >= 2:
            people = [i for i in marks if i.group().lower() not in NOT_INITIALS
                      and i.group().lower() not in _NOT_SIGNERS]
        out += [(m.start(1) + i.start(), m.start(1) + i.end()) for i in people]
    return out


# A note's initials in lower case and dotted, before a credential inside a co-signed line ("a.c. lpn / l.r. rn")
# or in brackets after the role of who was told ("rn supervisor (t.w.) aware"); not a time or a Latin shorthand
_LOWER_DOTTED = r"([a-z]\.[ \t]?[a-z]\.(?:[ \t]?[a-z]\.)?)"
_LOWER_DOTTED_CREDENTIAL = re.compile(rf"(?m)(?:^|(?<=/)|(?<=/[ \t]))[ \t]*{_LOWER_DOTTED}[ \t]*,?[ \t]+"
                                      r"(?:rn|lpn|lvn|cna|np|rrt|rt|md|pa)\b(?=[ \t]*(?:/|,|\(|$))")
_LOWER_DOTTED_AFTER_ROLE = re.compile(r"(?i:\b(?:supervisor|charge|rn|md|np|resident|attending|nurse|aide|tech|cna|lpn|"
                                      r"pharmacist|sw|cm|manager|security|doctor|dr|intern|fellow|therapist|pt|ot))"
                                      rf"[ \t]*\([ \t]*{_LOWER_DOTTED}[ \t]*\)")
_NOT_DOTTED_INITIALS = frozenset("a.m. p.m. i.e. e.g. n.b. p.o. q.d. b.i.d. t.i.d. q.i.d. p.r.n. h.s. o.d. o.s. o.u. "
                                 "a.c. p.c.".split())


def lower_dotted_initials(text: str, is_word) -> list[tuple[int, int]]:
    out = []
    for regex in (_LOWER_DOTTED_CREDENTIAL, _LOWER_DOTTED_AFTER_ROLE):
        out += [m.span(1) for m in regex.finditer(text) if re.sub(r"[ \t]", "", m.group(1)) not in _NOT_DOTTED_INITIALS
                or regex is _LOWER_DOTTED_CREDENTIAL and m.group(1) == "a.c."]  # ("a.c. lpn": a nurse, no meal)
    return out


# A dictated document's footer: the dates it was dictated and typed, then the typist's initials, maybe the
# author's before them ("D: 02/11/98  T: 02/13/98  kls", "DD: 3/2/1999 DT: 3/4/1999 JMR/tt")
_DICTATION_FOOTER = re.compile(r"(?im)^[ \t]*(?:D|DD|Dictated)[ \t]*:[ \t]*\d{1,2}/\d{1,2}/\d{2,4}[^\n]{0,30}?\b"
                               r"(?:T|DT|Transcribed|Typed)[ \t]*:[ \t]*\d{1,2}/\d{1,2}/\d{2,4}"
                               r"(?:[ \t]+\d{1,2}:?\d{2})?"
                               r"[ \t,]+([a-z]{2,4})(?:[ \t]*[/:][ \t]*([a-z]{2,4}))?[ \t]*$")


def dictation_initials(text: str, is_word) -> list[tuple[int, int]]:
    """The initials of a dictated document's footer (_DICTATION_FOOTER): whoever typed it, and its author."""
    return [m.span(g) for m in (_DICTATION_FOOTER.finditer(text) if "/" in text else ()) for g in (1, 2)
            if m.group(g) and _may_be_initials(m.group(g), frozenset())]


def action_owners(text: str, is_word) -> list[tuple[int, int]]:
    """The initials that own an action item (_ACTION_OWNER, _ACTION_ROW), did a task (_DONE_BY_INITIALS,
    _PER_INITIALS), speak in minutes (_MINUTE_INITIALS), agree and ask in any text (_SUBJECT_INITIALS) or have an
    age in brackets (_AGED_IN_BRACKETS), never a
    department's, a team's, a body's or a role's letters (NOT_ACTORS, CARE_ROLES, a note's shorthand)."""
    patterns = ((_ACTION_OWNER,) if " to " in text else ()) + ((_DONE_BY_INITIALS,) if " by " in text else ()) \
        + ((_ACTION_ROW,) if _ACTIONS_HEADING.search(text) else ()) \
        + ((_PER_INITIALS,) if "per " in text or "Per " in text else ()) \
        + ((_MINUTE_INITIALS,) if _MINUTES.search(text) else ())
    out = [m.span(g) for pattern in patterns for m in pattern.finditer(text)
           for g in range(1, (pattern.groups or 1) + 1) if m.group(g) and (
               may_act(m.group(g)) if pattern is not _PER_INITIALS else _may_be_initials(m.group(g), TEAMS_THAT_ACT))]
    out += [m.span(1) for m in _SUBJECT_INITIALS.finditer(text) if may_act(m.group(1))]
    if _CHILDREN.search(text):  # (a count in brackets after a scan's or a test's letters is no age: "CT (2)")
        out += [m.span(1) for m in _AGED_IN_BRACKETS.finditer(text)
                if may_act(m.group(1)) and m.group(1).lower() not in _TESTS_COUNTED]
    return out


# A note's signature: a name, then a care credential, alone on a line or after a dash under the last sentence
# ("WILL CONT TO MONITOR. --T.BOATENG RN", with the time after it too: "c. okafor rn   07:20",
# "-- R. Ng RN", "-s.bettencourt rn", "Soo-ah P., RN", "Yvette Toussaint, RN"); a word of it is an initial,
# a name of the lists or no dictionary word ("Charge RN", "Night RN" are roles)
_CREDENTIAL = r"(?:RN|MD|NP|PA-?C|PA|RRT|RT|LPN|CNA|MSW|LCSW|LICSW|PharmD|DO|BSN|CCRN|APRN)"
_CREDENTIALED = re.compile(rf"(?im)(?:^[ \t>]*(?:[-–—~]{{1,3}}|/)?|(?<=[.!?])[ \t]+(?:[-–—~]{{1,3}}|/))[ \t]*((?:[A-Z](?:\.\.?[ \t]?|[ \t]))*[^\W\d_][\w'’\-]*\.?"
                           rf"(?:[ \t]+(?:{INITIAL}\.|[^\W\d_][\w'’\-]*\.?)){{0,2}}),?[ \t]+(?-i:{_CREDENTIAL}|"
                           rf"(?i:{_CREDENTIAL}))\.?(?:[ \t]*[,/][ \t]*{_CREDENTIAL})*(?:[ \t]+\d{{1,2}}:?\d{{2}})?[ \t]*$")


# ... and inside a line, a name before a credential where a note says who did, said or signed something ("per
# Tomasz RN.", "—Bronwen Evans, RN / cosign Kay Obi RN"), and a signature's initials in lower case ("-hl rn")
# (not MD, PA, DO, RT inside a line: "to Pittsburgh PA", "to DO", "RT" a repost)
# the words before "RN" that say which nurse, not who ("per Charge RN", "report to Night RN")
_RN_ROLES = frozenset("""charge float night day days nights evening agency travel traveler traveller primary resource
staff covering oncoming offgoing off-going assigned unit floor icu ccu er ed or pacu home relief senior new student
triage admitting admission discharge circulating scrub bedside pool registry team""".split())
_INLINE_CREDENTIALS = ("RN", "NP", "PA-C", "RRT", "LPN", "CNA", "MSW", "LCSW", "CRNA", "NNP")
_CREDENTIALED_INLINE = re.compile(rf"(?:(?i:\b(?:per|by|w/|with|to|from|cosign(?:ed)?|and|called|paged|notified|"
                                  rf"informed|aware))[ \t]+|(?:^|(?<=[.!?/])|(?<=[.!?/][ \t]))[ \t]*[-–—~]{{0,2}}[ \t]*)"
                                  rf"((?:{INITIAL}\.[ \t]?)?{CAPWORD}(?:[ \t]+{CAPWORD})?),?[ \t]+"
                                  rf"(?:{'|'.join(_INLINE_CREDENTIALS)})\b", re.M)
# ... and an initial and a surname in lower case opening a line before the credential, as a co-signed note's line
# starts ("d. pham rn / cosign ...")
# (after a short label too: "sup. RN: p. cavanagh-moss rn")
_LOWER_INITIAL_SURNAME_RN = re.compile(r"(?m)^[ \t]*(?:[A-Za-z][\w. ]{0,19}:[ \t]*)?"
                                       r"([a-z]\.[ \t]?[a-z][a-z'’\-]{1,20})[ \t]+(?:rn|lpn|lvn|np|rt)\b"
                                       r"(?=[ \t]*(?:/|,|\(|$))")
# (dotted too, and before any credential in either case: "--t.h. RN", "- j.m., lpn")
_LOWER_SIGNED_RN = re.compile(r"(?m)^[ \t]*[-–—~]{1,2}[ \t]*([a-z](?:\.[ \t]?[a-z]|[a-z]){1,2}\.?)[ \t]*,?[ \t]+"
                              rf"(?:rn|{_CREDENTIAL}|(?i:{_CREDENTIAL}))[ \t.]*(?:\([^()\n]{{1,60}}\)[ \t]*)?$")
# ... and anywhere, a surname, its initials and a credential, as a co-signed note writes both ("Signed: Cash, D. RN /
# Hollister, J. RN")
_SURNAME_INITIAL_CREDENTIAL = re.compile(rf"(?<![\w'’\-])({CAPWORD},[ \t]*{INITIAL}\.(?:[ \t]?{INITIAL}\.)?),?[ \t]+"
                                         rf"{_CREDENTIAL}\b")


def credentialed_names(text: str, is_word) -> list[tuple[int, int]]:
    """The name a note is signed with, before a care credential on its own line (_CREDENTIALED); inside a line
    after a word of who did or signed it, a name of the lists or no dictionary word (_CREDENTIALED_INLINE: "per
    Charge RN" stays); a signature's initials in lower case (_LOWER_SIGNED_RN); a surname with its initials
    (_SURNAME_INITIAL_CREDENTIAL); an initial and a surname in lower case opening a line
    (_LOWER_INITIAL_SURNAME_RN)."""
    # (a line of a dash, two or three letters and "rn" signs the note, whatever the letters: "- dm, rn (Dana Marsh)")
    out = [m.span(1) for m in _LOWER_SIGNED_RN.finditer(text)]
    out += [m.span(1) for m in _SURNAME_INITIAL_CREDENTIAL.finditer(text)]
    out += [m.span(1) for m in _LOWER_INITIAL_SURNAME_RN.finditer(text)]
    if any(c in text for c in _INLINE_CREDENTIALS):
        # (a name of the lists in capitals too: "--R.STONE LPN / M.OBI RN"; and one capitalised word that names no
        # nurse's role, a dictionary word though it be: "verified w/ Song RN"; "w/ Charge RN" stays)
        out += [m.span(1) for m in _CREDENTIALED_INLINE.finditer(text)
                for words in [re.findall(r"[^\W\d_][\w'’\-]+", m.group(1))]
                if (all(in_name_lists(w) or in_name_lists(w.capitalize()) or not is_word(w) for w in words)
                    or len(words) == 1 and (re.fullmatch(r"[A-Z][a-z]+", words[0]) or re.match(r"[A-Z]\.", m.group(1)))
                    and words[0].lower() not in _RN_ROLES)
                and not any(w.lower() in STOP_WORDS for w in m.group(1).split())]
    for m in _CREDENTIALED.finditer(text):
        words = [w for w in re.split(r"[ \t.]+", m.group(1)) if len(w) >= 2]
        initialled = re.match(r"[A-Za-z]\.", m.group(1)) is not None  # ("--- b.will rn": a surname after an initial)
        if not words or any(w.lower() in STOP_WORDS and w != "Will" and not initialled for w in words):
            continue  # ("-- Will, RN": no modal)
        if all(in_name_lists(w.capitalize()) or not is_word(w) for w in words) \
                or len(words) >= 2 and words[0].capitalize() in given_names() and words[-1][:1].isupper() \
                or initialled and words[-1][:1].isupper() \
                or len(words) == 1 and re.fullmatch(r"[A-Z]{2,3}", words[0]) and words[0] not in _WARDS \
                and (words[0].lower() not in NOT_INITIALS or re.match(r"[ \t>]*[-–—~]", m.group(0))):
            # "R. Ng RN": "ng" is a unit; "--MV RN": initials, and after a signature's dash any ("-- NB, RN")
            out.append((m.start(1), m.end(1)))
    return out


# the units and services a credential follows as a role, not a signature ("ICU RN", "ED RN", "OR RN")
_WARDS = frozenset("""ICU CCU MICU SICU NICU PICU CVICU CTICU PACU ED ER OR OB LD ENT GI IR PT OT ST SW CM ICN NSY
TCU LTC SNF ECU CDU MED SUR ONC NEU HEM""".split())


# A name and the role it stands in, in brackets, as notes and minutes write it ("Drew (charge RN) aware",
# "Dr. Lindgren (attending)", "Brother Khalid (driver)"), or the pager it answers ("Precious (pgr 4410)")
_ROLE_IN_BRACKETS = re.compile(
    rf"(?<![\w'’\-])({CAPWORD}(?:[ \t]+{CAPWORD})?)[ \t]+\((?i:(?:his|her|their|my|our|mum's|dad's|mom's)[ \t]+)?"
    r"(?i:(?:charge|primary|night|day|float|bedside|"
    r"covering|on-call|icu|floor|agency|travel|staff|case)[ \t]+)?(?i:rn|nurse|md|np|pa|rt|attending|resident|"
    r"fellow|intern|surgeon|physician|interpreter|translator|chaplain|sw|social[ \t]+worker|case[ \t]+manager|cm|"
    r"pt|ot|slp|pharmacist|dietitian|sitter|driver|hcp|health[ \t]+care[ \t]+proxy|proxy|guardian|"
    r"son|daughter|wife|husband|mother|father|sister|brother|niece|nephew|friend|neighbou?r|"
    r"(?:mother|father|son|daughter|brother|sister)-in-law|grand(?:mother|father|son|daughter)|uncle|aunt|cousin|"
    r"chair|chairman|chairwoman|chairperson|co-chair|vice-chair|secretary|treasurer|staff|host|moderator|"
    r"facilitator|note-?taker|minutes|guest|visitor|observer|speaker|presenter|coach|captain|"
    r"pta|ota|psych|physio|slt|salt|hca|enp|anp|cpn|amhp|pc|dc|support|tech|technician|student|student[ \t]+nurse|"
    r"(?:nursing|med(?:ical)?|pa|np|pharmacy|rt)[ \t]+student|orientee|preceptor|"
    r"carer|caregiver|care[ \t]+assistant|key[ \t]?worker|support[ \t]+worker|midwife|mw|health[ \t]+visitor|hv|"
    r"para|paramedic|emt|ecp|ccp|tech|"
    # (a care home's other staff: "Summer (activities co)", "– Faith (activities)", "Will (volunteer)")
    + trie_alternation(CARE_HOME_STAFF) + "|"
    # (a ward's maternity care assistant, a manager, the shift a note's writer works: "w/ Tansy (MCA)", "- Jo (mgr)",
    # "- Precious N (nights)")
    r"mca|mgr|manager|deputy|nights|days|lates|earlies|bank|agency|"
    # (the shift a desk's or a ward's initials work: "Incoming: PF (night)")
    r"night|day|late|early|long[ \t]+day|"
    # (or the pager to reach the person on: "Blessing (pgr 5519)")
    r"(?:pgr|pager|beeper|bpr|bleep|vocera)[ \t#:.]*\d{3,5})"
    r"[ \t]*\)")


def role_in_brackets_names(text: str, is_word) -> list[tuple[int, int]]:
    """A name with its role in brackets after it (_ROLE_IN_BRACKETS): its words names of the lists or no
    dictionary words ("Neurosurgery (attending)" is a service)."""
    out = []
    for m in _ROLE_IN_BRACKETS.finditer(text):
        words = m.group(1).split()
        start = m.start(1)
        if len(words) == 2 and (words[0].lower() in STOP_WORDS or words[0].lower() in KIN_SET):
            words, start = words[1:], m.start(1) + len(words[0]) + 1
        if words[0].lower() in STOP_WORDS and words[0] not in given_names():
            continue  # "The (attending)"; "Will (PTA)" is a name
        if len(words) == 1 and (words[0] in _WARDS or words[0].lower() in NOT_INITIALS):
            continue  # a unit or a shorthand: "ICU (nights)", "ETA (day)"
        # (an acronym is a desk's or a unit's, no name: "LNG Operations (nights)")
        named = [in_name_lists(w) or w.isupper() and in_name_lists(w.capitalize())
                 or not is_word(w) and not (w.isupper() and 1 < len(w) <= 4 and len(words) == 2) for w in words]
        # (in capitals too: "ME AND FAITH (carer)"; of two words one will do: "Obi Nwosu (Tech)", "obi" is a word)
        if words and (all(named) or len(words) == 2 and any(named)):
            out.append((start, m.end(1)))
    return out


# A name with an age, and maybe a sex, in brackets or after it, as notes, reports and judgments give a person ("pt
# (Grant, 19M)", "(Okafor, 45)", "Hope (7F)", "two children, Will (now 11) and Poppy (now 4)")
_AGED_NAME = re.compile(rf"\([ \t]*({CAPWORD}(?:[ \t]+{CAPWORD})?),?[ \t]*\d{{1,3}}[ \t]*(?:[MFmf]|y/?o|yo|yrs?)?[ \t]*\)|"
                        rf"(?<![\w'’\-])({CAPWORD})[ \t]*\([ \t]*(?:\d{{1,3}}[ \t]*(?:[MF]|y/?o|yo)|"
                        rf"(?:now|then)[ \t]+(?:aged[ \t]+)?\d{{1,2}}|aged[ \t]+\d{{1,2}})[ \t]*\)|"
                        # (or after a comma or a table's gap, with the sex or "yo": "Bed 8 - Young, 72F",
                        # "Pt: WHITAKER, HOPE M.  63F")
                        rf"(?<![\w'’\-])({CAPWORD}(?:,?[ \t]+{CAPWORD})?(?:[ \t]+{UPPER}\.?)?)(?:,[ \t]*|[ \t]{{2,}})"
                        rf"\d{{1,3}}[ \t]*(?:[MF]|y/?o|yo)(?![\w])|"
                        # (or the next of several in one bracket: "her kids (Sophie, 6 & Mason, 3)")
                        rf"(?:(?<=\d[ \t]&[ \t])|(?<=\d[ \t]and[ \t])|(?<=\d,[ \t]))({CAPWORD}),[ \t]*\d{{1,2}}[ \t]*"
                        rf"(?=[),&])|"
                        # (or a child's age a judgment or a report gives: "Mason is 8 and has expressed a wish")
                        rf"(?<![\w'’\-])({CAPWORD})[ \t]+is[ \t]+(?:now[ \t]+)?\d{{1,2}}(?:[ \t]+years?[ \t]+old)?"
                        rf"(?=[ \t]*(?:,|;|\.(?!\d)|[ \t]and\b))")


def aged_names(text: str, is_word) -> list[tuple[int, int]]:
    """A name with an age in brackets or after it (_AGED_NAME): a name of the lists or no dictionary word."""
    out = []
    for m in _AGED_NAME.finditer(text):
        g = next(k for k in (1, 2, 3, 4, 5) if m.group(k))
        if g == 5 and m.group(g) not in given_names():
            continue  # ("Chapter is 8.", "Item is 12;": only a given name of the lists)
        words = [w for w in re.split(r"[ \t,]+", m.group(g)) if not re.fullmatch(rf"{UPPER}\.?", w)]
        if words and words[0].lower() not in STOP_WORDS and m.group(g) not in country_names() \
                and m.group(g) not in place_names() \
                and all(in_name_lists(w.capitalize() if w.isupper() else w) or not is_word(w) for w in words):
            out.append((m.start(g), m.end(g)))
    return out


# "PT" is the physical therapist and "Pt" the patient: both before a given name in notes ("walked 50 ft w/ PT
# Summer", "Pt Frank states last drink 3 days ago"); not in CARE_ROLES, whose rule reads any capitalised word,
# since "pt" opens every other sentence of a note ("Pt Tylenol given", "PT Monday")
_PT_GIVEN = re.compile(rf"(?<![\w/])(?:PT|Pt|pt)[ \t]+({CAPWORD})(?=[ \t]+[a-z]|[ \t]*[,.;:)]|[ \t]*$)", re.MULTILINE)


# A physician assistant or a nurse practitioner by the surname after the letters ("Ortho (Dr. Haas / PA Bianchi)
# following", "NP Okafor aware"): a surname or given name of the lists or a word no dictionary holds ("PA Catheter",
# "NP Note" stay)
_PROVIDER_SURNAME = re.compile(rf"(?<![\w/])(?:PA-?C|PA|NP)[ \t]+({CAPWORD})(?![\w'’\-])")


def provider_surnames(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _PROVIDER_SURNAME.finditer(text)
            if (in_name_lists(m.group(1)) or not is_word(m.group(1)) and m.group(1) not in place_names())
            and m.group(1).lower() not in STOP_WORDS and m.group(1).lower() not in MONTHS
            and m.group(1).lower() not in WEEKDAYS]


def patient_or_therapist_names(text: str, is_word) -> list[tuple[int, int]]:
    """A given name of the lists after "PT" or "Pt" (_PT_GIVEN); never a month, a weekday, a place or a word
    that is no given name."""
    return [m.span(1) for m in _PT_GIVEN.finditer(text)
            if m.group(1) in given_names() and m.group(1).lower() not in MONTHS and m.group(1).lower() not in WEEKDAYS
            and m.group(1) not in place_names() and m.group(1).lower() not in STOP_WORDS]
