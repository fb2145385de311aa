"""Name-finding rules for news wire and sports results: headline subjects, cricket scorecards, scorers, box
scores and tables of leaders, pitchers, chess pairings, a surname that is a word where a report puts a person
("Banks disagreed"), a name in brackets after a role. Their examples are in beam_jobs/pii_name_rules.py's table,
which runs them on every text.
"""
from __future__ import annotations

import re

from beam_jobs.pii_words import (CARE_HOME_STAFF, CARE_ROLES, COMPANY_NOUNS, DEPARTMENTS, ENGLISH_LOCALES, MONTHS, NOT_INITIALS,
                                 NOTE_LABELS,
                                 KIN_WORDS, NOTE_SHORTHAND, OFFICE_WORDS, THING_KINDS, WEEKDAYS, country_names,
                                 given_names, in_name_lists, place_names, surnames, trie_alternation)
from beam_jobs.pii_rules_common import CAPWORD, INITIAL, POSSESSIVE, STOP_WORDS, UPPER, WORD_START

# A batting card's line: the batsman, how he was out and by whom, his runs ("Smith c Jones b Brown 12",
# "White not out 33"), a line each or one after another ("Hussain c Ward b Fleming 44, Irani not out 67"), in
# any case (a scoreboard in capitals reads "T. MOODY NOT OUT 56")
_DISMISSAL = (r"(?i:(?:c|st)[ \t]+(?:&[ \t]+b[ \t]+)?\S+(?:[ \t]+b[ \t]+\S+)?|lbw[ \t]+b[ \t]+\S+|b[ \t]+\S+|"
              r"run[ \t]+out|not[ \t]+out|retired[ \t]+(?:hurt|out)|hit[ \t]+wicket)")
_BATTING_LINE = re.compile(rf"(?m)(?:^|(?<=[,;:]))[ \t]*((?:{UPPER}\.[ \t]?)*{CAPWORD}(?:[ \t]+{CAPWORD})?)[ \t]+"
                           rf"{_DISMISSAL}(?:[ \t]+\([^)\n]{{1,30}}\))?[ \t]+\d{{1,3}}\*?[ \t]*(?=[,;]|$)")
_CARD_WORDS = frozenset("c st b lbw run out not retired hurt hit wicket".split())


# A bowler's figures: overs, maidens, runs and wickets ("Kulatunga 18-3-62-1", "Herath-Bandara 24.2-7-55-1"),
# which only a cricket card gives
_BOWLING_FIGURES = re.compile(rf"(?<![\w'’\-.])((?:{UPPER}\.[ \t]?)*{CAPWORD}(?:[ \t]+{CAPWORD})?)[ \t]+"
                              r"\d{1,2}(?:\.\d)?-\d{1,2}-\d{1,3}-\d{1,2}(?![\d\-])")


def batting_names(text: str, is_word) -> list[tuple[int, int]]:
    """Every name of a batting card's line: the batsman and the fielder and bowler named in his dismissal; and
    every bowler with his figures."""
    out = [m.span(1) for m in _BOWLING_FIGURES.finditer(text) if m.group(1).split()[0].lower() not in STOP_WORDS]
    for m in _BATTING_LINE.finditer(text):
        out.append((m.start(1), m.end(1)))
        for w in re.finditer(rf"(?:{UPPER}\.[ \t]?)*{CAPWORD}", text[m.end(1):m.end()]):
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


def headline_subjects(text: str, is_word) -> list[tuple[int, int]]:
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
                                           "supervisor", "nurse", "doctor", "physician", "surgeon", "therapist",
                                           # (a care home's shifts and staff: "given by senior (Rosa)", "handed
                                           # over to day team (Faith)")
                                           "senior", "day team", "night team", "early team", "late team",
                                           *CARE_HOME_STAFF}))
_ROLE_BRACKETED = re.compile(r"(?i)\b" + trie_alternation(_ROLE_WORDS) +
                             rf"s?[ \t]*\([ \t]*((?-i:{CAPWORD})(?:[ \t]+(?-i:{CAPWORD}))?)[ \t]*\)")
# ... and after a care or case worker's role, where a capitalised word in brackets is who fills it, dictionary word
# or not ("Pharmacist (Obi) to do counselling", "keyworker (Precious)")
_CASE_ROLES = ("pharmacist", "physio", "physiotherapist", "dietitian", "keyworker", "key worker", "carer", "chaplain",
               "interpreter", "midwife", "porter", "receptionist", "paramedic", "registrar", "psychologist",
               "counsellor", "counselor", "caseworker", "case worker", "social worker", "support worker", "advocate",
               "housekeeper", "cleaner", "tutor", "mentor", "volunteer", "landlord", "neighbour", "neighbor",
               "day staff", "night staff", "staff nurse", "bank staff", "agency staff")
_CASE_ROLE_BRACKETED = re.compile(r"(?i)\b" + trie_alternation(_CASE_ROLES) +
                                  rf"s?[ \t]*\([ \t]*((?-i:{CAPWORD}))[ \t]*\)")


# ... and after a ward's role in capitals, where a capitalised word in brackets is who fills it, dictionary word or
# not ("RT (Obi) & Dr. Sandhu at bedside", "NNP (Hope) aware")
# (case-sensitive: "salt (Himalayan)" is none)
_CARE_ROLE_BRACKETED = re.compile(r"(?<![\w/])" + trie_alternation([r.upper() for r in CARE_ROLES
                                                                     if r.isalpha() and len(r) <= 4])
                                  + rf"[ \t]*\([ \t]*({CAPWORD})[ \t]*\)")


# ... and a given name in brackets after a department, as mail and notes say who of it acted ("Security (Earl) says",
# "Dietary (Hector) searched", "Employee Health (Carol) called")
# (an officer's title may stand before the name: "security (Off. Mendes) escorted him out")
_OFFICER_TITLE = r"(?-i:(?:Off|Ofc|Officer|Sgt|Det|PC|PCSO|Cpl)\.?[ \t]+)"
# (and a home-care agency's or a clinic's desks: "home infusion - intake (Hector)")
_DEPARTMENT_BRACKETED = re.compile(r"(?i)\b" + trie_alternation(sorted(DEPARTMENTS | {
                                       "health", "it", "i.t.", "intake", "registration", "admitting", "scheduling",
                                       "dispatch", "reception", "front desk"}))
                                   + rf"[ \t]*\([ \t]*{_OFFICER_TITLE}?"
                                   + rf"((?-i:{CAPWORD}(?:[ \t]+{CAPWORD})?))[ \t]*\??[ \t]*\)")


def role_bracketed_names(text: str, is_word) -> list[tuple[int, int]]:
    """The name in brackets after a role (_ROLE_BRACKETED): a word of the name lists or no dictionary's, never
    a country, a place or an acronym ("the director (CEO)", "the striker (Brazil)"); after a ward's role in
    capitals any such word but a weekday, a month or a note's label ("RT (Obi)"; "OT (Mon)", "RN (Neuro)")."""
    if "(" not in text:
        return []
    out = [(m.start(1), m.end(1)) for pattern in (_CARE_ROLE_BRACKETED, _CASE_ROLE_BRACKETED)
           for m in pattern.finditer(text)
           # (an interpreter's bracket names the language more often than the interpreter: "interpreter (French)")
           if not (m.group(0)[:5].lower() == "inter" and is_word(m.group(1)) and not in_name_lists(m.group(1)))
           and not m.group(1).isupper() and m.group(1).lower() not in NOTE_LABELS and m.group(1).lower() not in WEEKDAYS
           and m.group(1).lower() not in MONTHS and m.group(1) not in country_names() and m.group(1) not in place_names()
           and m.group(1).lower() not in NOTE_SHORTHAND and m.group(1).lower() not in STOP_WORDS]
    out += [(m.start(1), m.end(1)) for m in _DEPARTMENT_BRACKETED.finditer(text)
            for first in [m.group(1).split()[0]]
            if (first in given_names() or not is_word(first)
                or re.search(_OFFICER_TITLE + r"\Z", text[m.start():m.start(1)]))  # "(Off. Mendes)"
            and (first not in place_names() or first in given_names(ENGLISH_LOCALES)) and first not in country_names()
            and first.lower() not in MONTHS and first.lower() not in WEEKDAYS]  # "ask Credit (Ana Lucía?) to"
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
    rf"(?<![\w-])(?:W|L|S|SV|Sv)[ \t]*[-:][ \t]*((?:{UPPER}\.[ \t]?)?{CAPWORD}(?:[ \t]+{CAPWORD})?)[ \t]*"
    r"\(\d{1,2}(?:-\d{1,2})?\)|"
    rf"((?:{UPPER}\.[ \t]?)?{CAPWORD})[ \t]*\((?:W|L|S|H|BS)[ \t]*,[ \t]*\d{{1,2}}(?:-\d{{1,2}})?\)")


def pitcher_names(text: str, is_word) -> list[tuple[int, int]]:
    """The pitchers a baseball report credits with a decision (_PITCHER); the decisions before the names only
    where two stand (a report gives the winner and the loser; one "S - Small (36-38)" is a size); and a box score's
    batteries, each side's pitchers with the inning they came in and its catcher (_BATTERIES: "Wasdin, Mohler (6),
    Page (8) and Steinbach; Mussina, Orosco (8) and Hoiles.")."""
    found = list(_PITCHER.finditer(text))
    before = [m for m in found if m.group(1)]
    out = [(m.start(m.lastindex), m.end(m.lastindex)) for m in found if m.group(2) or len(before) >= 2]
    for m in _BATTERIES.finditer(text) if " and " in text and "(" in text else ():
        players = list(_BATTERY_PLAYER.finditer(text, m.start(), m.end()))
        # (half of them names, as a team sheet's: "Mix, Bake (20) and Serve" stays; "D.Wilson" by its surname)
        if _half_named([p.group(0).split(".")[-1] for p in players], is_word):
            out += [p.span() for p in players]
    return out


_BATTERY_PLAYER = re.compile(rf"(?:{UPPER}\.[ \t]?)?{CAPWORD}")
_BATTERY_SIDE = rf"(?:{_BATTERY_PLAYER.pattern}(?:[ \t]*\(\d{{1,2}}\))?,[ \t]*)*{_BATTERY_PLAYER.pattern}" \
                rf"[ \t]*\(\d{{1,2}}\)[ \t]+and[ \t]+{_BATTERY_PLAYER.pattern}"
_BATTERIES = re.compile(rf"(?m)^[ \t]*{_BATTERY_SIDE}[ \t]*;[ \t]*{_BATTERY_SIDE}(?=[ \t]*[.;]|[ \t]*$)")


# A batting order: numbered lines of a player and a fielding position ("4. Kingston 1B", "7 Harper LF"), as box
# scores and a team's own mail print them; three such lines make one
_BATTING_ORDER_LINE = re.compile(rf"(?m)^[ \t]*\d{{1,2}}[.)]?[ \t]+((?:{UPPER}\.[ \t]?)*{CAPWORD}(?:[ \t]+{CAPWORD})?)[ \t,-]+"
                                 r"(?:P|C|1B|2B|3B|SS|LF|CF|RF|DH|OF|IF|PH|PR|UT)[ \t]*$")


def batting_order_names(text: str, is_word) -> list[tuple[int, int]]:
    """The players of a batting order (_BATTING_ORDER_LINE), where three or more lines are so written."""
    lines = list(_BATTING_ORDER_LINE.finditer(text)) if "\n" in text else []
    return [m.span(1) for m in lines] if len(lines) >= 3 else []


# A football team sheet: lines of a position's letters and who plays there ("CB - Big Mick, Nunes", "ST: Rich,
# Kowalczyk", "Subs: Fitzy, Jordan Young"), as a club's chat or mail posts them; three such lines make one
_POSITION_LINE = re.compile(rf"(?m)^[ \t]*(?:GK|RB|CB|LB|RWB|LWB|CDM|DM|CM|CAM|AM|RM|LM|RW|LW|ST|CF|SS|Subs|SUBS|Bench)"
                            rf"[ \t]*[-–:][ \t]*((?:{CAPWORD}[ \t]*)+(?:,[ \t]*(?:{CAPWORD}[ \t]*)+)*)[ \t]*$")
_PLAYER_ITEM = re.compile(rf"{CAPWORD}(?:[ \t]+{CAPWORD}){{0,2}}")


def team_sheet_names(text: str, is_word) -> list[tuple[int, int]]:
    """The players of a team sheet (_POSITION_LINE), where three or more lines are so written and half its entries
    or more hold a name of the lists or a word no dictionary holds (a glossary's "CB - Centre Back" stays); not
    "TBC"."""
    lines = list(_POSITION_LINE.finditer(text)) if "\n" in text else []
    if len(lines) < 3:
        return []
    items = [(m.start(1) + i.start(), m.start(1) + i.end(), i.group(0)) for m in lines
             for i in _PLAYER_ITEM.finditer(m.group(1))
             if i.group(0).lower() not in NOT_INITIALS and i.group(0).lower() not in STOP_WORDS]
    return [(s, e) for s, e, _ in items] if _half_named([item for _, _, item in items], is_word) else []


def _half_named(entries: list[str], is_word) -> bool:
    """Whether half of a list's entries or more hold a name of the lists or a word no dictionary holds: a team
    sheet's, a line-up's, a box score's ("CB - Centre Back", "3-Nil, 2-All, 1-Up, 4-Love" are no people)."""
    named = sum(any(in_name_lists(w) or not is_word(w) for w in entry.split()) for entry in entries)
    return 2 * named >= len(entries)


# A rugby or football line-up by shirt numbers, each glued to its player by a dash or set before it ("New Zealand -
# 15-Rawiri Kereama, 14-Joe Page; 10-Grant Stone, 9-Lio Tuala", "COUGARS: 1 Jason Ramsden; 2 Dominic Wild, 3 ..."): a
# line of four or more such entries, half of them holding a name of the lists or a word no dictionary holds, is a team,
# whatever the other words
_NUMBERED_PLAYER = re.compile(rf"(?:^|(?<=[,;:][ \t])|(?<=[,;:])|(?<=[ \t]-[ \t]))(?:[1-9]|1\d|2[0-3])(?:-|[ \t])"
                              rf"((?:{CAPWORD}[ \t]+){{0,2}}{CAPWORD})(?=[ \t]*(?:[,;.]|\(|$))", re.M)


def numbered_lineup_names(text: str, is_word) -> list[tuple[int, int]]:
    by_line: dict[int, list[tuple[int, int]]] = {}  # one scan of the text, its finds grouped by their line
    for m in _NUMBERED_PLAYER.finditer(text):
        by_line.setdefault(text.rfind("\n", 0, m.start()), []).append(m.span(1))
    return [span for found in by_line.values() if len(found) >= 4
            and _half_named([text[a:b] for a, b in found], is_word) for span in found]


# A basketball box score's players after its foot lines' labels ("Fouled out--Kostic. Technicals--Rich, Duvall.
# Ejected--Page."): each capitalised entry that ends at a comma, an "and" or the line's full stop; "None" is nobody,
# and a team's name (a place's) is a team's technical
_BOX_FOOT = re.compile(r"(?i:\b(?:fouled[ \t]+out|technicals?|ejected|flagrant[ \t]+fouls?|ejections?))[ \t]*(?:--|[-–:])[ \t]*"
                       rf"((?:{CAPWORD}(?:[ \t]+{CAPWORD})?(?:[ \t]*,[ \t]*|[ \t]+and[ \t]+))*{CAPWORD}(?:[ \t]+{CAPWORD})?)(?=[ \t]*[.;]|[ \t]*$)", re.M)
_BOX_FOOT_ENTRY = re.compile(rf"{CAPWORD}(?:[ \t]+{CAPWORD})?")


def box_score_foot_names(text: str, is_word) -> list[tuple[int, int]]:
    out = []
    for m in (_BOX_FOOT.finditer(text) if "--" in text or ":" in text else ()):
        for e in _BOX_FOOT_ENTRY.finditer(m.group(1)):
            entry = e.group(0)
            # ("None" is a stop word: nobody)
            if entry not in place_names() and entry not in country_names() \
                    and not any(w.lower() in STOP_WORDS for w in entry.split()):
                out.append((m.start(1) + e.start(), m.start(1) + e.end()))
    return out


# A team's substitutes, reserves or replacements after their label ("Substitutes: Cash, Brightwell-Hayes, Szabo."):
# every entry, where half of them hold a name of the lists or a word no dictionary holds (as a team sheet's)
_BENCH_LINE = re.compile(r"(?im)^[ \t]*(?:substitutes|subs|replacements|reserves|unused[ \t]+subs(?:titutes)?)"
                         r"[ \t]*(?:\([^)\n]{0,20}\))?[ \t]*:[ \t]*([^\n]+)$")
_BENCH_ENTRY = re.compile(rf"(?:(?<=[:,;])|^)[ \t]*((?:{UPPER}\.[ \t]?)?{CAPWORD}(?:[ \t]+{CAPWORD}){{0,2}})[ \t]*(?=[,;.]|$)")


def substitutes_names(text: str, is_word) -> list[tuple[int, int]]:
    out = []
    for m in _BENCH_LINE.finditer(text):
        entries = [(m.start(1) + e.start(1), m.start(1) + e.end(1), e.group(1))
                   for e in _BENCH_ENTRY.finditer(m.group(1))]
        if len(entries) >= 2 and _half_named([name for _, _, name in entries], is_word):
            out += [(a, b) for a, b, _ in entries]
    return out


# A results list's seeded player, the seed glued to the name by a dash ("2-Carolina Ruiz (Spain) beat", "1-Pete
# Kovacs (Hungary) 6-2 6-4"): the seed's dash splits the name from the number the NER reads with it
_SEEDED = re.compile(rf"(?m)(?:^|(?<=[ \t(]))\d{{1,2}}-((?:{CAPWORD}[ \t]+){{0,2}}{CAPWORD})(?=[ \t]*\([^)\n]{{2,30}}\)[ \t]+"
                     r"(?:beat|bt|d\.|def\.|lost|[0-7]-[0-7]\b))")


def seeded_names(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _SEEDED.finditer(text)] if "-" in text else []


# A football report's scorers: every name before its minute in brackets ("Scorers: Gallacher (14th minute),
# Sherwood (67th)", an ice hockey report's "Goals : Toronto - Sundstrom ( 12 ) , Gilmour 2 ( 8 )"); a side before
# its dash is no name ("Scorers: Rovers - Hirst (80th pen)")
_SCORERS_LINE = re.compile(r"(?im)\b(?:(?:goal)?scorers?|goals)[ \t]*:([^\n]*)")
# ... or under a heading of its own, a side and a dash a line ("Scorers Sunday:\nAjax - Kluivert 12, 66\nVitesse -
# de Jong 34"), down to the first line of another form
_SCORERS_BLOCK = re.compile(r"(?im)^[ \t]*(?:(?:goal)?scorers?|goals)(?:[ \t]+[\w.]+){0,2}[ \t]*:[ \t]*\n"
                            r"((?:[^\n]*\S[ \t]+[-–][ \t]+\S[^\n]*(?:\n|\Z)){1,30})")
_SCORER = re.compile(rf"{WORD_START}((?:{UPPER}\.[ \t]?)*{CAPWORD}(?:[ \t]+{CAPWORD}){{0,2}})(?:[ \t]+\d{{1,2}})?[ \t]*"
                     r"\((?:[ \t]*(?:pen(?:alty|\.)?|o\.?g\.?)[ \t]*)?\d{1,3}")


# ... the scorers in brackets after a side's score, each with the minute ("Southampton 1 (Le Roux 80, Dodd 88
# pen)"), and who was sent off or booked ("Sent off: Hope (Coventry) 62")
_SCORER_NAME = (rf"(?:{INITIAL}\.[ \t]?)*(?:(?:Le|La|De|Di|Da|Van|Von|Mac|Mc|Al|El|Ben|Dos|Del|Ter|Ten)[ \t]+"
                rf"(?:(?:der|den|de|la|le)[ \t]+)?)?{CAPWORD}(?:[ \t]+{CAPWORD})?")  # "Van der Berg 61"
_SCORED_ITEM = rf"{_SCORER_NAME}[ \t]+\d{{1,3}}(?:[ \t]*(?:pen|o\.?g\.?))?(?:[ \t]*,[ \t]*\d{{1,3}}(?:[ \t]*pen)?)*"
_SCORED_BRACKET = re.compile(rf"{CAPWORD}[ \t]+\d{{1,2}}[ \t]*\(({_SCORED_ITEM}(?:[ \t]*[,;][ \t]*{_SCORED_ITEM})*)\)")
_SCORED_NAME = re.compile(rf"{WORD_START}({_SCORER_NAME})[ \t]+\d")
# ... and in a scorers' line, each name before its bare minutes, after its side and a dash ("Scorers: Vitesse - de
# Jong 34, Kuipers 71; Ajax - Kluivert 12, 66")
_SCORED_BARE = re.compile(rf"{WORD_START}((?:(?:van|von|de|der|den|da|di|du|la|le|ter|ten)[ \t]+)*{_SCORER_NAME})"
                          r"[ \t]+\d{1,3}(?:[ \t]*(?:pen|o\.?g\.?|'))?(?=[ \t]*(?:[,;.)]|$))", re.M)
# ... and a rugby match's scorers by kind ("Tries: Young, Lamont; Penalties: Grant 4", "Conversion: Pennington")
_RUGBY_LINE = re.compile(r"(?:\b(?i:tries|try|conversions?|cons?|penalties|penalty|pens?|drop[ \t]+goals?|dgs?))[ \t]*:"
                         r"([^;:\n)]*)")
_RUGBY_SCORER = re.compile(rf"{WORD_START}({_SCORER_NAME})(?=[ \t]*(?:\d{{1,2}}[ \t]*)?(?:[,;.)]|$|[ \t]+(?:and|&)\b))")
_CARDS_LINE = re.compile(r"(?i:\b(?:sent[ \t-]+off|booked|cautioned|red[ \t]+cards?|yellow[ \t]+cards?))[ \t]*:([^\n.]*)")
_CARDED = re.compile(rf"{WORD_START}({_SCORER_NAME})[ \t]*(?:\([^)\n]{{2,30}}\))?[ \t]*\d{{1,3}}")


def _inner_spans(outers, inner: re.Pattern):
    """Each match of `inner` inside group 1 of each of the `outers` matches, with its group 1's offsets in the
    outer text: (start, end, match)."""
    for o in outers:
        for m in inner.finditer(o.group(1)):
            yield o.start(1) + m.start(1), o.start(1) + m.end(1), m


def scorer_names(text: str, is_word) -> list[tuple[int, int]]:
    """Each name of a scorers' line, as news wire lists them; of the scorers' brackets after a side's score; of
    a line of players sent off or booked; of a rugby match's scorers by kind."""
    out = [(s, e) for lines in (_SCORERS_LINE, _SCORERS_BLOCK) for pattern in (_SCORER, _SCORED_BARE)
           for s, e, _ in _inner_spans(lines.finditer(text), pattern)]
    # (a word of no name list is no scorer: "Chapter 3 (Table 4, Figure 12)")
    # a line's score brackets are scorers when one of their names is in a name list or no dictionary word: then
    # every name in them is ("Vitesse 1 (Hamming 34)" beside "Ajax 1 (Kowalczyk 61)", "(De Wit 12, 55, Bruins 40)")
    by_line: dict[int, list] = {}
    for s, e, m in _inner_spans(_SCORED_BRACKET.finditer(text), _SCORED_NAME):
        by_line.setdefault(text.count("\n", 0, s), []).append((s, e, m))
    out += [(s, e) for items in by_line.values()
            if any(not all(is_word(w) and not in_name_lists(w) for w in m.group(1).split()) for _, _, m in items)
            for s, e, _ in items]
    out += [(s, e) for s, e, _ in _inner_spans(_CARDS_LINE.finditer(text), _CARDED)]
    out += [(s, e) for s, e, m in _inner_spans(_RUGBY_LINE.finditer(text), _RUGBY_SCORER)
            if m.group(1).lower() not in STOP_WORDS]
    return out


# A golf leaderboard's line: maybe the total or the place, the player, maybe the country in brackets, maybe the
# prize money, then two to four round scores ("271 Jon Pruitt $216,000 68 66 70 67", "    Ernie Els (South
# Africa) 68 66 70", "T3 Kim Ji-ho 69 70")
_LEADERBOARD_LINE = re.compile(rf"(?m)^[ \t]*(?:(?:T?\d{{1,3}}|=\d{{1,3}})[.=]?[ \t]+)?((?:{INITIAL}\.?[ \t]?)*{CAPWORD}"
                               rf"(?:[ \t]+(?:{CAPWORD}|[a-z]{{1,3}})){{0,3}})(?:[ \t]+\([^)\n]{{2,30}}\))?"
                               r"(?:[ \t]+\$?\d{1,3}(?:,\d{3})*(?:\.\d{2})?)?((?:[ \t]+\d{2}){2,4})[ \t]*$")


def leaderboard_names(text: str, is_word) -> list[tuple[int, int]]:
    """The players of a golf leaderboard (_LEADERBOARD_LINE), two lines or more whose rounds are a golfer's
    (59-89 each)."""
    lines = [m for m in _LEADERBOARD_LINE.finditer(text)
             if all(59 <= int(g) <= 89 for g in m.group(2).split())]
    return [(m.start(1), m.end(1)) for m in lines] if len(lines) >= 2 else []


# A sports report's statistics: a baseball box score's list after its code ("HR - Castilla (31), Burks 2
# (28)", "SB - Lofton 2 (52)"), and a table of leaders a line each, the count before a dash and the side in
# brackets after each name ("12 - Ravanelli ( Middlesbrough )", "10 - Shearer ( Newcastle ) , Wright ( Arsenal )").
# The names may be words ("Wright", "Burks"): the line's form says they are players. (A list of leaders on one
# line, "7 - Shearer (Newcastle); 6 - Fowler (Liverpool)", is pii_names' structural rule: it needs two on a line.)
_STAT_NAME = rf"(?:{UPPER}\.[ \t]?)*{CAPWORD}(?:[ \t]+{CAPWORD}){{0,2}}"
_BOX_LIST = re.compile(rf"(?<![\w-])(?:HR|HRs|RBI|SB|CS|SF|SH|2B|3B|DP|E)[ \t]*[-:][ \t]*"
                       rf"({_STAT_NAME}(?:[ \t]+\d{{1,2}})?[ \t]*\([ \t]*\d{{1,3}}[ \t]*\)"
                       rf"(?:[ \t]*[,;][ \t]*{_STAT_NAME}(?:[ \t]+\d{{1,2}})?[ \t]*\([ \t]*\d{{1,3}}[ \t]*\))*)")
# ... and an agate box score's player lists, a code glued to them by its dash and no season counts ("2B-Cash,
# Valentin 2. SB-Nixon. SF-Moss."): two such lists or more; a side's own counts ("DP-Toronto 1", "LOB-...") are
# not among the codes
_BOX_BARE = re.compile(rf"(?<![\w-])(?:2B|3B|HR|SB|CS|SF|S|E)-({_STAT_NAME}(?:[ \t]+\d{{1,2}})?"
                       rf"(?:[ \t]*\([ \t]*\d{{1,3}}[ \t]*\))?(?:,[ \t]*{_STAT_NAME}(?:[ \t]+\d{{1,2}})?"
                       rf"(?:[ \t]*\([ \t]*\d{{1,3}}[ \t]*\))?)*)(?=\.|[ \t]*$)", re.M)
_BOX_BARE_ITEM = re.compile(rf"{WORD_START}({_STAT_NAME})")
_BOX_ITEM = re.compile(rf"{WORD_START}({_STAT_NAME})(?:[ \t]+\d{{1,2}})?[ \t]*\(")
_LEADER_ROW = re.compile(rf"(?m)^[ \t]*\d{{1,3}}[ \t]*[-–][ \t]*({_STAT_NAME}[ \t]*\([ \t]*{CAPWORD}(?:[ \t]+{CAPWORD}){{0,3}}[ \t]*\)"
                          rf"(?:[ \t]*,[ \t]*{_STAT_NAME}[ \t]*\([ \t]*{CAPWORD}(?:[ \t]+{CAPWORD}){{0,3}}[ \t]*\))*)[ \t]*\.?[ \t]*$")
_LEADER_ROW_ITEM = re.compile(rf"{WORD_START}({_STAT_NAME})[ \t]*\(")


def statistics_names(text: str, is_word) -> list[tuple[int, int]]:
    """The players of a box score's lists (_BOX_LIST, two items or a count: one "E - Smith (3)" may be
    anything) and of a table of leaders (_LEADER_ROW, two lines or more: one "3 - Paris (France)" is a list
    item)."""
    out = []
    boxes = list(_BOX_LIST.finditer(text))  # (counted once, not once per list)
    for m in boxes:
        items = [(s, e) for s, e, _ in _inner_spans([m], _BOX_ITEM)]
        if len(items) >= 2 or len(boxes) >= 2:
            out += items
    bare = list(_BOX_BARE.finditer(text))
    if len(bare) >= 2:
        out += [(s, e) for s, e, i in _inner_spans(bare, _BOX_BARE_ITEM) if i.group(1) not in place_names()]
    lines = list(_LEADER_ROW.finditer(text))
    if len(lines) >= 2:
        out += [(s, e) for s, e, i in _inner_spans(lines, _LEADER_ROW_ITEM) if not _common_words_only(i.group(1), is_word)]
    box = list(_BATTING_BOX_LINE.finditer(text))
    if len(box) >= 2:
        out += [(m.start(1), m.end(1)) for m in box if not _common_words_only(m.group(1), is_word) or len(box) >= 4]
    by_team = list(_LEADER_BY_TEAM.finditer(text))
    if len(by_team) >= 2:  # (not a list of towns and their countries: "Paris, France, 12; Lyon, France, 9")
        out += [(m.start(1), m.end(1)) for m in by_team if m.group(1) not in place_names()
                and m.group(1) not in country_names() and m.group(2) not in country_names()]
    return out


# An American football game's scoring summary, a play a line: the team's letters, the scorer, the yards and the
# play, the kicker in brackets ("Buf - Holloway 3 run (Kowalczyk kick), 9:14", "Mia - FG Arriaga 41, 3:02",
# "Mia - Bell-Jones 22 pass from McNair (Arriaga kick)")
_SCORING_PLAY = re.compile(rf"(?m)^[ \t]*[A-Z][A-Za-z.]{{1,4}}[ \t]*[-–][ \t]*(?:FG[ \t]+({_STAT_NAME})[ \t]+\d{{1,2}}\b|"
                           rf"({_STAT_NAME})[ \t]+\d{{1,3}}[ \t]+(?:yd[ \t]+|yard[ \t]+)?(?:run|pass|fumble|"
                           rf"interception|punt|kickoff|blocked|return)\b)([^\n]*)")
_PLAY_PEOPLE = re.compile(rf"\bpass[ \t]+from[ \t]+({_STAT_NAME})|\(({_STAT_NAME})[ \t]+(?:kick|run|pass)\b")


def football_scoring_names(text: str, is_word) -> list[tuple[int, int]]:
    """The scorer, passer and kicker of each play of a scoring summary (_SCORING_PLAY), two plays or more."""
    plays = list(_SCORING_PLAY.finditer(text))
    if len(plays) < 2:
        return []
    out = []
    for m in plays:
        g = 1 if m.group(1) else 2
        out.append((m.start(g), m.end(g)))
        out += [(m.start(3) + p.start(p.lastindex), m.start(3) + p.end(p.lastindex))
                for p in _PLAY_PEOPLE.finditer(m.group(3))]
    return out


# A baseball box score's batting lines, player, position, at-bats, runs, hits, runs batted in ("Hope 2b     4 0 1 1",
# two players a line); a name that is a word is a player where four lines or more are so written
_POSITION = r"(?:ss|1b|2b|3b|cf|lf|rf|c|p|dh|ph|pr)"  # a fielder's position; "ph-lf": one who came in
_BATTING_BOX_LINE = re.compile(rf"(?<![\w'’\-.])({_STAT_NAME})[ \t]+{_POSITION}(?:-{_POSITION})*"
                               r"[ \t]+\d{1,2}[ \t]+\d{1,2}[ \t]+\d{1,2}[ \t]+\d{1,2}\b")


# A league's leaders as agencies list them, player, team's city, figure ("BATTING - Banks, Atlanta, .354; Quintana,
# Colorado, .341"; "PITCHING - Vizcaino, Atlanta, 10-3"): two or more items so written
_LEADER_BY_TEAM = re.compile(rf"(?<![\w'’\-.])({_STAT_NAME}),[ \t]+({CAPWORD}(?:[ \t]+{CAPWORD})?),\s+\.?\d{{1,3}}"
                             r"(?:[.-]\d{1,3})?[;.]?(?!\d)")


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
_SURNAME_DOES = re.compile(rf"(?<![\w'’\-])({CAPWORD})[ \t]+(?:{_PERSON_DOES})(?![\w\-])|"
                           rf"\b(?:{_DONE_TO_PLAYER})[ \t]+({CAPWORD})(?![\w'’\-]*[ \t]+[A-Z])")


_COMPANY_NOUN = "(?:" + "|".join(sorted(COMPANY_NOUNS, key=len, reverse=True)) + ")"
_COMPANY_BEFORE = re.compile(rf"(?i)(?<![\w'’\-]){_COMPANY_NOUN}[ \t]+\Z")
_COMPANY_FIRST = re.compile(rf"(?i){_COMPANY_NOUN}[ \t]+(?=[A-Z])")
_REPORTS = re.compile(r"(?:['’]s)?[ \t]+(?:said|says|told|reported|announced|expects|expected|plans|planned|"
                      r"forecast|posted|warned|denied|confirmed)\b")


def company_reporting(text: str, s: int, e: int) -> bool:
    """The name at text[s:e] has a company word before it and reports ("Japanese carmaker Toyota said", "the
    rating agency Moody's said", "Brokerage Nomura said": the NER may run the word in). In news a company speaks
    there, never a person. Only before a reporting verb: "the company Smith founded" names a person; nor a given
    name and a surname ("broker Alan Leung says": a broker is a person too)."""
    if not _REPORTS.match(text, e):
        return False
    if _COMPANY_FIRST.match(text, s):
        return True
    words = text[s:e].split()
    return not (len(words) >= 2 and words[0] in given_names()) and bool(_COMPANY_BEFORE.search(text[max(0, s - 30):s]))


# What an encyclopedia's or a guide's sentence says a name is: a copula, a relative clause or an apposition, an
# article, up to six modifiers that are no function words, and a kind of place, body or work that the next word
# does not turn into a person's attribute ("Atwick is a village and civil parish in", "Crazyhead are an English punk
# rock / garage rock band from", "Powell's which is a bookstore.", "Thyrza, a series of elegies"; not "Tom is a
# village doctor", "Ann, the band's drummer", "Ann is a member of the band"). Other names in brackets may come
# between ("Athens (Greek: ..., Athína), is the capital city of Greece")
_THING_KIND = "(?:" + "|".join(sorted(THING_KINDS, key=len, reverse=True)) + ")"
_NO_MODIFIER = (r"(?:of|in|on|at|for|with|from|by|to|and|or|but|who|whose|which|that|the|a|an|his|her|their|its|my|"
                r"our|your|is|are|was|were)\b")
_DECLARED_THING = re.compile(
    rf"{WORD_START}({CAPWORD}(?:[ \t]+{CAPWORD}){{0,3}}?)(?:['’]s)?(?:[ \t]*\([^()\n]{{1,80}}\))?"
    r"(?:[ \t]*,?[ \t]+(?:(?:which|that)[ \t]+)?(?:is|are|was|were|remains)|[ \t]*,)[ \t]+"
    rf"(?:an?|the|one[ \t]+of[ \t]+the)[ \t]+(?:(?!{_NO_MODIFIER})[\w'’\-/]+[ \t]+){{0,6}}?{_THING_KIND}(?:s|es)?"
    r"(?=[ \t]*(?:[,.;:!?)\n]|\Z)|[ \t]+(?:of|in|on|at|near|and|or|that|which|whose|where|based|located|founded|"
    r"formed|situated|known|named|called|from|with|by|for)\b)")
_GREETING = r"(?i:\b(?:dear|hi|hello|hey|thanks|thank[ \t]+you|cheers))"
_GREETING_FIRST = re.compile(rf"{_GREETING}\b")
_GREETING_BEFORE = re.compile(rf"{_GREETING}[ \t,]*\Z")


_OF_WHOM = re.compile(r"[ \t]+of[ \t]+(?:an?[ \t]+|the[ \t]+)?([\w\-]+)")
_PEOPLE_NOUNS = frozenset(KIN_WORDS) | frozenset("""person people man men woman women guy guys girl girls boy boys lady
ladies gentleman gentlemen kid kids child children human humans""".split())


_WORD_RUN = re.compile(r"\S+")


def declared_things(text: str) -> list[tuple[int, int]]:
    """The names that `text` itself says are a place, a body or a work (`_DECLARED_THING`): no person's, here or
    wherever the text repeats them. Never a name that opens with an English given name ("Sam, the band and I"), nor
    one addressed or thanked."""
    if not (" a" in text or " the" in text):
        return []
    out = []
    for m in _DECLARED_THING.finditer(text):
        if (kind_of := _OF_WHOM.match(text, m.end())) and kind_of.group(1).lower() in _PEOPLE_NOUNS:
            continue  # "Tita Marites is a whole genre of aunt": a kind of person
        s, e = m.span(1)
        if _GREETING_FIRST.match(text, s) or _GREETING_BEFORE.search(text, max(0, s - 16), s):
            continue  # "Dear Sam, the band and I"
        e -= len(m.group(1)) - len(POSSESSIVE.sub("", m.group(1)))  # "Powell's which is a bookstore"
        words = list(_WORD_RUN.finditer(text, s, e))
        while words and words[0].group(0).lower() in STOP_WORDS:  # "The Ramones were", "Today Atwick is"
            words.pop(0)
        if words and words[0].group(0) not in given_names(ENGLISH_LOCALES):
            out.append((words[0].start(), e))
    return out


def surname_word_names(text: str, is_word) -> list[tuple[int, int]]:
    """A surname of the lists, one that is also a word, where a report puts a person (_SURNAME_DOES)."""
    out = []
    for m in _SURNAME_DOES.finditer(text):
        g = 1 if m.group(1) else 2
        word = POSSESSIVE.sub("", m.group(g))
        if word in surnames() and word not in country_names() and not company_reporting(text, m.start(g), m.end(g)):
            out.append((m.start(g), m.start(g) + len(word)))
    return out


# A chess or a doubles match's pairing line: two players and the result ("L. Abashidze - Xu Meilan 1/2",
# "Zhu Jing - T. Khurtsidze 0-1", "N. Lomineishvili - Qin Yuting 1-0"): both sides
_PLAYER = rf"(?:(?:{INITIAL}\.|[A-Z][a-z]\.)[ \t]?)*{CAPWORD}(?:[ \t]+{CAPWORD}){{0,2}}"
_PAIRING = re.compile(rf"(?m)^[ \t]*(?:\d{{1,2}}[.)][ \t]*)?({_PLAYER})[ \t]+[-–][ \t]+({_PLAYER})[ \t]+"
                      r"(?:1-0|0-1|1/2(?:-1/2)?|½(?:-½)?|0\.5-0\.5|draw|adj\.?)[ \t]*$")


# A team's or a crew's members in brackets, surnames with spaced slashes between ("Last year's champs (Otieno /
# Sandoval / Sheehan / Baker)"): three or more, two of them names of the lists or no dictionary words; then all
_SLASHED_BRACKET = re.compile(r"\(([A-Z][\w'’\-]+(?:[ \t]+/[ \t]+[A-Z][\w'’\-]+){2,})\)")


def slashed_bracket_names(text: str, is_word) -> list[tuple[int, int]]:
    out = []
    for m in _SLASHED_BRACKET.finditer(text) if " / " in text else ():
        items = [(m.start(1) + i.start(), m.start(1) + i.end()) for i in re.finditer(r"[^\s/]+", m.group(1))]
        words = [text[a:b] for a, b in items]
        if any(w.isupper() or w in country_names() or w in place_names() and w not in surnames() for w in words):
            continue
        if sum(in_name_lists(w) or not is_word(w) for w in words) >= 2:
            out += items
    return out


def pairing_names(text: str, is_word) -> list[tuple[int, int]]:
    """Both players of each pairing line (_PAIRING), unless a side is a country ("Georgia - China 1/2")."""
    return [(m.start(g), m.end(g)) for m in _PAIRING.finditer(text)
            if m.group(1) not in country_names() and m.group(2) not in country_names() for g in (1, 2)]


# An ice hockey scoring summary: each goal's number, side, scorer with his season's goals, the assists in brackets
# and the time ("1, Philadelphia, Kekkonen 5 (Dupuis, Brennan), 6:14"), and each penalty's player, side and
# offence ("Penalties - Banks, Chi (hooking) 9:40; Hakala, Det (roughing)")
_HOCKEY_GOAL = re.compile(rf"(?<![\w:])\d{{1,2}},[ \t]+[A-Z][\w.]*(?:[ \t]+[A-Z][\w.]*){{0,2}},[ \t]+({_STAT_NAME})[ \t]+"
                          r"\d{1,2}(?:[ \t]*\(([^)\n]*)\))?(?:[ \t]*\((?:pp|sh|en|ps)\))?,?[ \t]+\d{1,2}:\d{2}")
_HOCKEY_PENALTY = re.compile(rf"(?<![\w'’\-])({_STAT_NAME}),[ \t]+[A-Z][A-Za-z]{{1,3}}\.?[ \t]+\([a-z][a-z \-]*\)"
                             r"(?:,)?[ \t]+\d{1,2}:\d{2}")
_ASSIST = re.compile(rf"{_STAT_NAME}")


def hockey_scoring_names(text: str, is_word) -> list[tuple[int, int]]:
    """The scorer and assists of each goal of an ice hockey summary (_HOCKEY_GOAL) and each penalised player
    (_HOCKEY_PENALTY), where two goals or penalties are so written ("unassisted" is none)."""
    goals, penalties = list(_HOCKEY_GOAL.finditer(text)), list(_HOCKEY_PENALTY.finditer(text))
    if len(goals) + len(penalties) < 2:
        return []
    out = [m.span(1) for m in goals + penalties]
    for m in goals:
        if m.group(2):
            out += [(m.start(2) + a.start(), m.start(2) + a.end()) for a in _ASSIST.finditer(m.group(2))
                    if a.group(0).lower() not in ("unassisted", "pp", "sh", "en")]
    return out
