"""Name-finding rules for judgments and official records: the parties of a case's title, parties' heading lines,
witnesses by record number, judges by their letters ("Okonjo LJ"), aliases ("Bablu @ Sunil"), initials standing
for a person ("G. told the police", "officers B. and D."), ages and births. Their examples are in
beam_jobs/pii_name_rules.py's table, which runs them on every text.
"""
from __future__ import annotations

import re
from functools import lru_cache

from beam_jobs.pii_words import (BODY_WORDS, CARE_ROLES, DOTTED_NOT_INITIALS, ENGLISH_LOCALES, INITIAL_ACTOR_VERBS,
                                 INITIAL_ROLES, LETTER_ROLES, MONTHS, NOT_INITIALS, OFFICE_WORDS, PARTY_NOISE,
                                 SENTENCE_STARTERS, STATE_PARTIES, country_names, given_names, in_name_lists,
                                 place_names, surnames)
from beam_jobs.pii_rules_common import (CAPWORD, DIGRAPH_INITIAL, KIN_SET, NUMBER_NEXT, REFERRED_AS, STOP_WORDS, UPPER,
                                        WORD_START)

# initials and a surname, never after "/" (a note's "C/D/I. Small amt" is clean, dry and intact)
_INITIALS_SURNAME = re.compile(rf"(?<![\w./])((?:{DIGRAPH_INITIAL}[ \t]?(?:{UPPER}\.[ \t]?){{0,2}}|(?:{UPPER}\.[ \t]?){{1,3}})"
                               rf"[^\W\d_a-z][\w'’\-]+)(?![\w])")

_INITIALS_AND_WORD = re.compile(rf"((?:{DIGRAPH_INITIAL}[ \t]?)?(?:{UPPER}\.[ \t]?)*)(.*)")  # a match's two parts

# (a square bracket closes them where a quoted statement was anonymised: "the voice of [E.J.]")
_DOTTED_INITIALS = re.compile(rf"(?<![\w.])((?:{DIGRAPH_INITIAL}(?:{UPPER}\.){{1,2}}|(?:{UPPER}\.){{2,3}}))(?=[\s,;:)\]\"”’']|['’]s\b|$)")


# a role after a signature's name ("P. Harkness, Staff Nurse", "D. Tanner RN")
_ROLE_AFTER = re.compile(rf"(?i:,?[ \t]+(?:staff[ \t]+nurse|charge[ \t]+nurse|nurse|consultant|clerk|solicitor|counsel|"
                         rf"officer|manager|director|{'|'.join(re.escape(r) for r in CARE_ROLES)}))\b")


def initials_names(text: str, is_word) -> list[tuple[int, int]]:
    """Initials glued or close to a surname ("E.Radhakrishnan", "Ms T. Doe", "A. J. Abraham") and dotted
    initials alone ("a witness, J.P., said"); never a dotted abbreviation ("U.S. Army", "9 P.M."), a list
    item or heading ("A. Introduction"), or a sentence after a letter ("plan B. Then")."""
    out = []
    for m in _INITIALS_SURNAME.finditer(text):
        initials, word = _INITIALS_AND_WORD.match(m.group(1)).groups()
        dots = initials.replace(" ", "").replace("\t", "")
        if dots in DOTTED_NOT_INITIALS or word.lower() in SENTENCE_STARTERS or word.isupper() and len(word) > 1 \
                or word.lower() in OFFICE_WORDS:  # "former C.I.A. Director George Bush": an agency's office
            continue
        if len(dots) == 2 and initials.endswith((" ", "\t")) and not text[:m.start(1)].strip(" \t").endswith(
                tuple("abcdefghijklmnopqrstuvwxyz,;:(\"“‘")) and is_word(word) and word not in surnames() \
                and not _ROLE_AFTER.match(text, m.end(1)):
            continue  # one initial at a line or sentence start: a list item, a heading or "plan B. Then"; not
            # before a word no dictionary holds or a surname ("B. Lindqvist", "J. Smith" signing a letter), nor
            # after an opening quote ('signed "J. Faith, inventory clerk"') or before a role ("P. Harkness, Staff
            # Nurse" signing a note)
        out.append((m.start(1), m.end(1)))
    out += [m.span(1) for m in _BARE_INITIAL_SURNAME.finditer(text)
            if (m.group(1)[2:] in surnames() or not is_word(m.group(1)[2:])) and m.group(1)[2:] not in place_names()
            and m.group(1)[2:] not in country_names()]
    out += [(m.start(1), m.end(1)) for m in _DOTTED_INITIALS.finditer(text)
            if (m.group(1) not in DOTTED_NOT_INITIALS or m.group(1) in _CLOCK and not _TIME_BEFORE.search(
                text[max(0, m.start(1) - 12):m.start(1)]) and not NUMBER_NEXT.match(text, m.end(1)))
            and not _STATE_OF.search(text[max(0, m.start(1) - 10):m.start(1)])
            and not _NUMBERED.match(text, m.end(1)) and not _agency(text, m.end(1))]
    return out


# "A.M." and "P.M." are a time after a number or a time word ("9 A.M.", "at ten P.M."), "A.D." a year before or
# after one ("A.D. 1066"); elsewhere a person's initials ("The applicant's daughter, A.M.,
# who was 15", "A.D. and another ... Respondents")
_CLOCK = frozenset({"A.M.", "P.M.", "A.D."})  # (not "B.C.": also British Columbia, "Vancouver, B.C.")
_TIME_BEFORE = re.compile(r"(?i)(?:\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|o['’]clock|"
                          r"the|this|in|by|at|till|until|from|to|tomorrow|yesterday))[ \t]*\Z")
# an initial without its full stop before a surname, where a list or a line of counsel opens with it ("Counsel:\n
# D Rosenberg SC (Applicant)", "Solicitors: K Mbatha and P Okoye"); not "A" or "I", which open sentences
_BARE_INITIAL_SURNAME = re.compile(rf"(?:(?<=\A)|(?<=\n)|(?<=[(,;:][ \t])|(?<=\band[ \t])|(?<=&[ \t]))[ \t]*"
                                   rf"((?![AI][ \t]){UPPER}[ \t]{CAPWORD})(?=[ \t]*(?:[,;:()\n]|$|[ \t](?:SC|QC|KC|"
                                   rf"SAN|and|&|for|appeared|instructed)\b))")


# dotted letters before an office or an agency's staff are the agency's ("C.I.A. Director", "F.B.I. agents")
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z]+)")
_AGENCY_STAFF = frozenset("""agent agents official officials officer officers spokesman spokeswoman spokesperson
headquarters""".split())


def _agency(text: str, end: int) -> bool:
    nxt = _NEXT_WORD.match(text[end:end + 30])
    return bool(nxt) and (nxt.group(1).lower() in OFFICE_WORDS or nxt.group(1).lower() in BODY_WORDS
                          or nxt.group(1).lower() in _AGENCY_STAFF)


# dotted letters that name a state or a numbered filing, not a person: "State of A.P.", "I.A. No. 5/2014"
_STATE_OF = re.compile(r"(?i)\bstate[ \t]+of[ \t]+\Z")
_NUMBERED = re.compile(r"[ \t]*(?:No\.?|Nos\.?|Number)[ \t]*\d")


# A case's parties: "Wade v. Jacobs", "SMITH v. THE UNITED KINGDOM", "in Brown against the United States"
_PARTY = rf"((?:{CAPWORD}[ \t]+){{0,2}}{CAPWORD})"
_CASE = re.compile(rf"{WORD_START}{_PARTY}[ \t]+(?:v\.?|vs\.?|versus|-v-)[ \t]+(?:(?i:the)[ \t]+)?{_PARTY}|"
                   rf"\bin[ \t]+{_PARTY}[ \t]+against[ \t]+(?:(?i:the)[ \t]+)?{_PARTY}|"
                   # a case cited by its first applicant ("criticised in Xhafa and Others and Hoxha v. Albania")
                   rf"{WORD_START}{_PARTY}[ \t]+and[ \t]+(?:Others|Another|Ors)\b")


_PARTY_SKIP = PARTY_NOISE | SENTENCE_STARTERS   # words before a party's name ("In Wade v.", "CASE OF SMITH v.")


@lru_cache(maxsize=1)
def _countries() -> frozenset[str]:
    return frozenset(c.lower() for c in country_names())


def case_parties(text: str, is_word) -> list[tuple[int, int]]:
    """The parties named in a case's title or citation, except the state and public bodies."""
    countries = _countries()
    out = []
    for m in _CASE.finditer(text):
        for g in range(1, _CASE.groups + 1):
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


_ROLE_INITIALS = re.compile(rf"(?i:\b(?:{INITIAL_ROLES})s?),?[ \t]+\(?((?-i:[A-Z])\.(?:(?:,?[ \t]+(?:(?:and|&)[ \t]+)?)?(?-i:[A-Z])\.)*"
                            r"(?![\w.])|(?<=,[ \t])(?-i:[A-Z])(?=,)"  # (or one letter set off by commas: "Her mother, A, is")
                            # (or two or three capitals after a comma, before punctuation: "his former partner, SM.")
                            r"|(?<=,[ \t])(?-i:[A-Z]{2,3})(?=[,.;:)](?!\w)))"
                            # ... or one capital letter after a role a report anonymises people by ("Patient A and
                            # Patient B", "Resident A had had a fall"; not "Patient A&E", "patient A.B.C. scale")
                            rf"|(?i:\b(?:{LETTER_ROLES}))[ \t]+((?-i:[A-Z]))(?![\w&.\-'’])")


def role_initials(text: str, is_word) -> list[tuple[int, int]]:
    """Initials that stand for a person after a role or a kin word, as judgments and reports anonymise
    ("investigator S.", "officers B. and D.", "his son, M."): each initial is that person's name, and so
    wherever it stands alone before a verb ("a daughter, G., in 2011 ... that G. would live with her mother")."""
    out = []
    for m in _ROLE_INITIALS.finditer(text):
        for g in (1, 2):
            mark = m.group(g)
            if not mark or mark in DOTTED_NOT_INITIALS and NUMBER_NEXT.match(text, m.end(g)) \
                    or mark.lower() in NOT_INITIALS:
                continue  # an era before its year: "a major A.D. 1200 site"
            if mark.isalpha() and len(mark) > 1:
                out.append(m.span(g))  # capitals without dots are one person's: "his former partner, SM."
            else:
                out += [(m.start(g) + i.start(), m.start(g) + i.end()) for i in re.finditer(rf"{UPPER}\.?", mark)]
    return out + _where_they_act(text, {text[s:e] for s, e in out})


# An alias, as Indian and Kenyan judgments and police records join a person's names: "Munna @ Sunil Kumar Yadav",
# "MOHD. IRFAN @ GUDDU", "Otieno alias Bazu": capitalised words on both sides of an "@" set off by spaces (an
# address or a handle has none), "alias", "a/k/a", "aka" or "urf"
_ALIAS = re.compile(rf"(?<![\w'’\-.@])((?:{CAPWORD}\.?[ \t]+){{0,3}}{CAPWORD})[ \t]+(?:@|alias|a/k/a|aka|urf)[ \t]+"
                    rf"({CAPWORD}(?:[ \t]+{CAPWORD}){{0,3}})")


def alias_names(text: str, is_word) -> list[tuple[int, int]]:
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
# (or a US appellate opinion's, after a comma: "ALVARADO, P. J.", "KIMURA, J.")
_JUDGE_LETTERS = re.compile(rf"(?<![\w'’\-])((?:{CAPWORD}[ \t]+)?{CAPWORD})(?:[ \t]+|,[ \t]*(?=P\.[ \t]?J\.|J\.))"
                            r"(?:P\.[ \t]?J|J|JA|JJ|LJ|LJJ|CJ|AJ|AJA|ACJ|DCJ|JP)\.?"
                            r"(?=[ \t]*(?:[,:;)]|$|\(|concurring|dissenting|agreeing|said|held|observed|found|"
                            r"in|and|with|at|\n))", re.M)


# ... or letter-spaced over the opinion, before the title ("E C K H A R D T, Judge:")
_SPACED_JUDGE = re.compile(r"(?m)^[ \t]*((?:[A-Z][ \t]){3,}[A-Z])[ \t]*,[ \t]*(?:(?:Presiding|Chief|Associate)[ \t]+)?"
                           r"(?:Judge|Justice|J\.|C\.[ \t]?J\.|P\.[ \t]?J\.)")


def spaced_judge_names(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _SPACED_JUDGE.finditer(text)]


# ... or written out, the surname before a comma and the title ("Before Page, Presiding Judge, and Lindqvist,
# Judge", "Alma Old Coyote, Presiding Judge"), the title ending the phrase ("in MCI, Justice Scalia's", "Sharing,
# Justice and Peace" are no judge's), not a court's words ("Court of Appeal, Judge")
_JUDGE_TITLED = re.compile(rf"(?<![\w'’\-])((?:{CAPWORD}[ \t]+){{0,2}}{CAPWORD}),[ \t]+(?:(?:Presiding|Chief|Senior|"
                           r"Associate|Circuit|District|Deputy|Acting)[ \t]+)?(?:Judge|Justice)(?=[ \t]*(?:[,.;:)]|$))", re.M)
_COURT_WORDS = frozenset("court appeal appeals tribunal district circuit county state supreme high division bench "
                         "before the and honour honor hon".split())


def titled_judge_names(text: str, is_word) -> list[tuple[int, int]]:
    out = []
    for m in _JUDGE_TITLED.finditer(text) if "Judge" in text or "Justice" in text else ():
        words = m.group(1).split()
        while words and words[0].lower() in _COURT_WORDS:
            words.pop(0)
        if words and not any(w.lower() in _COURT_WORDS for w in words):
            out.append((m.end(1) - len(" ".join(words)), m.end(1)))
    return out


def judge_names(text: str, is_word) -> list[tuple[int, int]]:
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
                             rf"\.?[ \t]+)?({CAPWORD}(?:[ \t]+{CAPWORD}){{0,3}})")


def witness_names(text: str, is_word) -> list[tuple[int, int]]:
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
_PARTY_ROLE = (r"(?i:(?:the[ \t]+)?(?:(?:first|second|third|fourth|fifth|1st|2nd|3rd|4th|5th)[ \t]+)?(?:appellant|"
               r"respondent|petitioner|tenant|landlord|plaintiff|defendant|applicant|accused|complainant|claimant|"
               r"opponent|intervener|deponent)s?)(?:[ \t]+No\.?[ \t]*\d+)?")
_PARTY_LINE = re.compile(rf"(?m)^[ \t]*(?:\d{{1,2}}[.)][ \t]*)?((?:{CAPWORD}\.?[ \t]+){{0,5}}{CAPWORD})[ \t]*(?:\.{{3,}}|…+|[ \t]{{2,}}|,)"
                         rf"[ \t.…]*{_PARTY_ROLE}[ \t]*$|"
                         # ... or on the line above its role, maybe over a bracketed note ("Between\nLI WEI\n(ANONYMITY
                         # DIRECTION NOT MADE)\nAppellant") or with leaders before the role ("Between\n\nWRX\n    …
                         # Plaintiff")
                         rf"^[ \t]*((?:{CAPWORD}\.?[ \t]+){{0,5}}{CAPWORD})[ \t]*\n(?:[ \t]*\([^\n]*\)[ \t]*\n)?"
                         rf"[ \t.…]*\(?{_PARTY_ROLE}\)?[ \t:;,]*$")



# ... and a party the court anonymised, before the note that says so ("TDL (anonymity order made)", "H N\n(ANONYMITY
# DIRECTION MADE)"), and a party by initials in a case's citation ("KLM v Minister for Immigration", "Director of
# Child ... v DW, 2023 ABKB 417"; a cipher with digits, "DHX22", is left: no name holds a digit)
# (after the party's role and a colon too, a letter a word: "Appellant:   G T (anonymity order made)")
_ANONYMISED_PARTY = re.compile(rf"(?m)^[ \t]*(?:(?i:appellant|respondent|applicant|claimant|petitioner|defendant|"
                               rf"complainant)s?[ \t]*:[ \t]*)?((?:(?:{CAPWORD}|{UPPER})\.?[ \t]+){{0,4}}(?:{CAPWORD}|{UPPER})\.?)"
                               rf"[ \t]*(?:\n[ \t]*)?\((?i:anonymity)")
_INITIALS_PARTY = re.compile(r"(?<![\w.])([A-Z]{2,4})(?=[ \t]+v\.?[ \t]+[A-Z])|"
                           r"(?<=\bv[ \t])([A-Z]{2,4})(?=[ \t]*,[ \t]*\[?\d{4}|[ \t]*\()|"
                           r"(?<=\bv\.[ \t])([A-Z]{2,4})(?=[ \t]*,[ \t]*\[?\d{4}|[ \t]*\()")


_LETTERS_ONLY = re.compile(rf"{UPPER}\.?(?:[ \t]+{UPPER}\.?)+")  # "A H A": its "A" is initial, no article


def party_line_names(text: str, is_word) -> list[tuple[int, int]]:
    """A party's name on its line before its role (_PARTY_LINE), unless a word of it names a body; a party the
    court anonymised (_ANONYMISED_PARTY); initials as a party of a citation (_INITIALS_PARTY; never a
    state's letters: "USA v", "UK v" are pii_words.NOT_INITIALS)."""
    out = [m.span(1) for m in _ANONYMISED_PARTY.finditer(text) if (m.group(1).split()[0].lower() not in STOP_WORDS
                                                                    or _LETTERS_ONLY.fullmatch(m.group(1)))
           and not any(w.rstrip(".").lower() in BODY_WORDS for w in m.group(1).split())]
    if " v" in text:
        out += [m.span(g) for m in _INITIALS_PARTY.finditer(text) for g in (1, 2, 3) if m.group(g)
                and m.group(g).lower() not in NOT_INITIALS and m.group(g).lower() not in STATE_PARTIES]
    for m in _PARTY_LINE.finditer(text):
        g = 1 if m.group(1) else 2
        words = [w.rstrip(".").lower() for w in m.group(g).split()]
        if words[0] in STOP_WORDS or any(w in BODY_WORDS for w in words) or m.group(g) in country_names() \
                or m.group(g).lower() in ("and", "between", "versus"):
            continue
        out.append((m.start(g), m.end(g)))
    # ... or by letters before its counsel in brackets ("A        (Counsel Kristine Hætta)")
    out += [m.span(1) for m in _PARTY_BEFORE_COUNSEL.finditer(text)] if "(" in text else []
    # a party the heading gives by its initials alone stands so wherever the judgment writes them ("Between:\n  GH\n
    # Appellant" ... "whether GH can engage")
    parties = {text[s:e] for s, e in out if _PARTY_INITIALS.fullmatch(text[s:e])
               and text[s:e].lower() not in NOT_INITIALS and text[s:e].lower() not in STATE_PARTIES}
    return out + where_letters_stand(text, parties) if parties else out


_PARTY_INITIALS = re.compile(r"[A-Z]{1,4}")
_PARTY_BEFORE_COUNSEL = re.compile(r"(?m)^[ \t]*([A-Z]{1,4})[ \t]+\((?i:counsel|advocate|attorney|lawyer|solicitor|"
                                   r"barrister|represented[ \t]+by)\b")


# A party named between commas after its role, as judgments introduce the family ("The third applicant, Grace,
# was born in 2017", "the second respondent, Tomasz, did not attend")
_PARTY_APPOSITION = re.compile(rf"\b{_PARTY_ROLE},[ \t]+({CAPWORD}),")


# ... and a relative so introduced, whatever the name's word ("the youngest child, Prince, suffered from", "his wife,
# Joy, said")
_KIN_NOUNS = "|".join(sorted(KIN_SET | {"child", "baby", "infant", "grandchild", "stepchild"}, key=len, reverse=True))
_KIN_APPOSITION = re.compile(rf"(?i:\b(?:his|her|their|the|my|our|its)[ \t]+(?:[a-z\-]+[ \t]+)?(?:{_KIN_NOUNS})),"
                             rf"[ \t]+({CAPWORD}),")


def party_apposition_names(text: str, is_word) -> list[tuple[int, int]]:
    """A party's name between commas after its role (_PARTY_APPOSITION): a name of the lists or no dictionary word;
    a relative's after its kin word (_KIN_APPOSITION): any capitalised word but a place's or a function word."""
    out = [(m.start(1), m.end(1)) for m in _PARTY_APPOSITION.finditer(text) if m.group(1).lower() not in STOP_WORDS
           and m.group(1) not in country_names() and m.group(1) not in place_names()
           and (in_name_lists(m.group(1)) or not is_word(m.group(1)))]
    kin = _KIN_APPOSITION.finditer(text) if text.count(",") >= 2 else ()
    return out + [(m.start(1), m.end(1)) for m in kin if m.group(1).lower() not in STOP_WORDS
                  and m.group(1) not in country_names() and m.group(1) not in place_names()
                  and m.group(1).lower() not in MONTHS]


# A name with its surname in capitals, as the Strasbourg court's judgments and appendices write applicants
# ("Zoran STOJANOVIĆ / 1963 / Kragujevac", "Zarema KHADZHIYEVA, 1961, Urus-Martan"): a given name of the lists or
# no dictionary word, or any capitalised word before the year of birth, then a surname in capitals no dictionary
# holds; and an Indian judgment's signature, initials, the judge's surname in capitals and "J." ("S. RAGHUNATHAN, J.")
_CAPITALS_SURNAME = re.compile(rf"{WORD_START}([A-Z][^\W\d_A-Z][\w'’\-]*(?:[ \t]+[A-Z][^\W\d_A-Z][\w'’\-]*)?)[ \t]+"
                               r"([^\W\d_a-z][^\W\d_a-z'’\-]{2,}(?:[ \t]+[^\W\d_a-z][^\W\d_a-z'’\-]{2,})?)(?![\w'’\-])"
                               r"([ \t]*[,/|][ \t]*(?:born[ \t]+(?:in[ \t]+)?)?(?:19|20)\d\d\b)?")
_SIGNED_JUDGE = re.compile(rf"(?m)^[ \t]*((?:{UPPER}\.[ \t]?){{1,3}}[^\W\d_a-z][^\W\d_a-z'’\-]{{2,}}),[ \t]*(?:J|CJ|ACJ)\.?[ \t]*$")


def capitals_surname_names(text: str, is_word) -> list[tuple[int, int]]:
    """A name with its surname in capitals (_CAPITALS_SURNAME) and a judge's signature (_SIGNED_JUDGE)."""
    out = []
    for m in _CAPITALS_SURNAME.finditer(text):
        given, family = m.group(1).split(), m.group(2).split()
        # (a surname of 3-4 capitals only with the year or of the lists: "Cal ISO", "Mary NASA" are no names)
        if not all(w.isupper() and (not is_word(w) and (len(w) >= 5 or m.group(3)) or w.capitalize() in surnames())
                   and w.lower() not in STOP_WORDS and w.lower() not in MONTHS for w in family) \
                or any(re.search(r"[a-z][A-Z]", w) for w in given):  # "SaWattpad MAY": a handle, a month
            continue
        if m.group(3) or (given[0] in given_names() or not any(is_word(w) for w in given)) \
                and given[0] not in place_names() and given[0] not in country_names():
            out.append((m.start(1), m.end(2)))
    for m in _SIGNED_JUDGE.finditer(text):
        surname = m.group(1).split(".")[-1].strip()
        if not is_word(surname) or surname.capitalize() in surnames():
            out.append((m.start(1), m.end(1)))
    return out


# A father's given name after a person's, as registers and judgments write it: "Jan Nowak s. Henryk" (son of), "c."
# (daughter of), "son of Petro", "daughter of Ilie"; a given name of the lists
_PARENT_NAME = re.compile(rf"(?<=[^\W\d_])[ \t,]+(?:s\.|c\.|(?i:son|daughter)[ \t]+of)[ \t]+({CAPWORD})(?![\w'’\-])")


def parent_names(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _PARENT_NAME.finditer(text) if (m.group(1) in given_names() or not is_word(m.group(1)))
            and m.group(1).lower() not in STOP_WORDS]


# Counsel by the rank after the name ("led by Helena Szabo QC", "Mr Tomas Reyes KC and"): a senior barrister's
_SILK = re.compile(rf"(?<![\w'’\-])({CAPWORD}(?:[ \t]+(?:{UPPER}\.[ \t]?)*{CAPWORD}){{0,2}}),?[ \t]+"
                   rf"(?:QC|KC|Q\.C\.|K\.C\.)(?![\w])")


def silk_names(text: str, is_word) -> list[tuple[int, int]]:
    out = []
    for m in _SILK.finditer(text) if "C" in text else ():
        words = list(re.finditer(r"\S+", m.group(1)))
        while words and (words[0].group(0).lower() in STOP_WORDS or words[0].group(0).lower() in OFFICE_WORDS):
            words = words[1:]  # "Counsel Helena Szabo QC", "The QC": the name after the words before it
        if words and not all(is_word(w.group(0)) and not in_name_lists(w.group(0)) for w in words):
            out.append((m.start(1) + words[0].start(), m.end(1)))
    return out


# Counsel by the French bar's title, as a judgment in French names the lawyers ("représentée par Me Julien
# Ferrand-Aubry, avocat", "assisté de Maître Anne-Sophie Le Goff"): "Me" only after "par", "de" or "by", where the
# English pronoun never stands before a capitalised name
_MAITRE = re.compile(rf"(?:\b(?:par|de|by)[ \t]+Me|\bMa[îi]tre)[ \t]+({CAPWORD}(?:[ \t]+(?:(?:de|du|des|le|la|van|von|"
                     rf"d['’])[ \t]*)?{CAPWORD}){{0,3}})")


def maitre_names(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _MAITRE.finditer(text)] if "Me " in text or "tre " in text else []


# A child or a party with an age set off by commas, as judgments give them ("Amelia, now aged 9, and Jack, aged 6"),
# or as news writes a person ("Will, a 21-year-old from Leeds")
_AGED_WORDS = re.compile(rf"(?<![\w'’\-])({CAPWORD}),[ \t]+(?:now[ \t]+|then[ \t]+)?(?:aged[ \t]+\d{{1,3}}\b|"
                         rf"an?[ \t]+\d{{1,3}}[- ]year[- ]old\b)")


def aged_words_names(text: str, is_word) -> list[tuple[int, int]]:
    # (a given name that is a function word too is the person there: "Will, a 21-year-old", "May, aged 9")
    return [(m.start(1), m.end(1)) for m in _AGED_WORDS.finditer(text)
            if (m.group(1).lower() not in STOP_WORDS or m.group(1) in given_names(ENGLISH_LOCALES))
            and m.group(1) not in country_names() and (in_name_lists(m.group(1)) or not is_word(m.group(1)))]


# A child named by a letter, as family judgments write children: with an age ("K (aged 7) and Z (aged 3)", "M, aged
# 4", "[C] (now 7)") or a birth ("X, born in 2013") or in the case's name ("Re T-O (Children)", "Re B (A Child)"), and
# so any person a judgment names by a letter and a nationality ("B, a Lithuanian national"); the letter then stands
# for the person wherever it stands alone before a verb or a possessive ("Z was crying", "Z's left femur", "K told her")
_CHILD_CUE = (r"[ \t]*\([ \t]*(?:now[ \t]+)?(?:aged|age|born|b\.)[ \t]+(?:(?:in|on)[ \t]+)?\d|[ \t]*\([ \t]*now[ \t]+\d{1,2}[ \t]*\)|"
              r",[ \t]+(?:now[ \t]+|then[ \t]+)?aged[ \t]+(?:\d|one|two|three|four|five|six|seven|eight|nine|ten|eleven|"
              r"twelve|thirteen|fourteen|fifteen|sixteen|seventeen)|"  # "T, then aged seven,"
              r",[ \t]+an?[ \t]+[A-Z][a-z]+[ \t]+(?:national|citizen)\b|"  # "recruited by B, a Lithuanian national"
              r"[ \t]+was[ \t]+born[ \t]+(?:in|on)[ \t]+\d|"  # "(2) B was born in 2015."
              r",[ \t]+born[ \t]+(?:in[ \t]+|on[ \t]+)?\d|"  # "X, born in 2013"
              r"[ \t]*\([ \t]*(?i:a|the)[ \t]+(?i:boy|girl|son|daughter|baby|toddler)\b|"  # "T (a boy, now 4)", "K (A GIRL"
              r",[ \t]+an?[ \t]+(?:boy|girl|baby|toddler)[ \t]+(?:now[ \t]+)?aged\b|"  # "children: A, a girl aged 8; B, ..."
              r",[ \t]+an?[ \t]+(?:boy|girl)[ \t]+who[ \t]+is[ \t]+(?:now[ \t]+)?\d|"  # "E, a girl who is now 7"
              r",[ \t]+(?:residing|living|domiciled)[ \t]+(?:in|at)\b|"  # a party: "A, residing in X, complainant"
              r"[ \t]*\((?:[ \t]*(?:A|The)[ \t]+)?(?i:child(?:ren)?)\b")
# (and "[C] (now 7)", 'a daughter, "J" (aged 6)'; two or three capitals too: "AR (aged 8)")
_LETTER_CHILD = re.compile(rf"(?<![\w'’.\-])(?:\[|[\"“'](?={UPPER}))?({UPPER}{{1,3}}\.?(?:-{UPPER}\.?)?)[\]\"”']?"
                           rf"(?:{_CHILD_CUE})")
_LETTER_ACTS = (r"(?=['’]s\b|[ \t]+(?:was|were|is|had|has|told|said|says|went|came|lived|lives|and|who|did|does|would|"
                r"could|expressed|wants|wanted|attends|attended|stayed|spent|described|sustained|suffered|stopped|"
                r"missed|left|returned|moved|reported|denied|admitted|accepted|agreed|explained|alleged|claimed|"
                r"testified|confided|disclosed|spoke|wrote|asked|refused|gave|caused|sent|made|took|saw|heard|"
                r"found|knew|became|began|hit|struck|pushed|grabbed|threatened|assaulted|kicked|punched|shouted|"
                r"deserved|deserves|needs|needed|felt|feels|loved|loves|cried|opposes|opposed|remains|remained|"
                r"continues|continued|finishes|finished|wished|wishes|enjoys|enjoyed)\b|"
                # ... or says something, or heads a list of letters ("K \"talks about Mummy\"", "Re A, B and C")
                r"[ \t]+[\"“]|,[ \t]+[A-Z]\b(?![.'’]))")
# what follows initials alone that stand for a person (pii_names keeps such a span): a child's age, the case name's
# "(Children)" or what the child does; a party's role after dots ("B O A ........ APPELLANT"); the court's
# anonymity note ("H N\n(ANONYMITY DIRECTION MADE)")
# ... or a person's letter as the object of a preposition ("F was violent to M on", "described by B,")
_OBJECT_PREPOSITIONS = ("to", "by", "with", "against", "from", "for")
_TO_A_PERSON = "(?:" + "|".join(rf"(?<=\b{p}[ \t])" for p in _OBJECT_PREPOSITIONS) + ")"
_OBJECT_END = r"(?=[ \t]*[,.;:)]|[ \t]+(?:on|and|in|at)\b)"
INITIALS_STAND_AFTER = re.compile(r"[ \t]*(?:\.{3,}|…+)[ \t.…]*(?i:appellant|respondent|petitioner|applicant|accused|"
                                  r"plaintiff|defendant|claimant|complainant)s?\b|[ \t]*(?:\n[ \t]*)?\((?i:anonymity)|"
                                  rf"\]?(?:{_CHILD_CUE})|{_LETTER_ACTS}|(?<=\({UPPER})\)|"  # (and "Ewa Nowak (K)")
                                  rf"(?<=[\"“']{UPPER})[\"”']|[ \t]*\(\d{{1,2}}\)|"  # ('as "T"', "C (17)")
                                  + "(?:" + "|".join(rf"(?<=\b{p}[ \t]{UPPER})" for p in _OBJECT_PREPOSITIONS) + ")"
                                  + _OBJECT_END)


# ... or as the judgment says it refers to them ("their two children, referred to in these proceedings as T and K")
# (each letter maybe in quotes and with an age: 'as "T"', "as X (15), Y (12) and Z (8)")
_AS_LETTER = rf"[\"“']?{UPPER}\.?[\"”']?(?:[ \t]*\(\d{{1,2}}\))?"
_REFERRED_AS = re.compile(rf"{REFERRED_AS}[ \t]+((?:{_AS_LETTER}(?:,?[ \t]+and[ \t]+|,[ \t]*)){{0,5}}{_AS_LETTER})"
                          r"(?=[ \t]*(?:[,.;:)]|$))", re.M)
# ... or by a letter in quotes after the party's role ('The husband ("H") appeals', 'the wife ("W")'), or with an
# age in brackets in a sentence about children ("two children, C (17) and D (15)")
_ROLE_QUOTED_LETTER = re.compile(rf"(?i:\b(?:husband|wife|mother|father|applicant|respondent|appellant|claimant|"
                                 rf"defendant|child|son|daughter|brother|sister|partner|grand(?:mother|father)))[ \t]+"
                                 rf"\([ \t]*[\"“]({UPPER})[\"”][ \t]*\)")
_CHILDREN_SENTENCE = re.compile(r"(?i)\bchild(?:ren)?\b(?!['’])[^.\n,:]{0,30}[,:]([^.\n]{0,80})")
_LETTER_AGE = re.compile(rf"(?<![\w'’.\-])({UPPER})[ \t]*\(\d{{1,2}}\)")


# ... or the letters a case's name lists ("Re A, B and C (Children: Final Care Orders)")
# (two letters too, as a family court gives a child's initials: "IN THE MATTER OF TA and FA (Children)")
_CASE_LETTER = rf"{UPPER}{UPPER}?(?:-{UPPER})?"
_CASE_LETTERS = re.compile(rf"(?:\b(?i:re)|(?i:\bin[ \t]+the[ \t]+matter[ \t]+of))[ \t]+((?:{_CASE_LETTER}(?:,[ \t]*|[ \t]+(?i:and)[ \t]+|[ \t]*&[ \t]*))+{_CASE_LETTER})"
                           r"[ \t]*\((?i:a[ \t]+)?(?i:child)")
# ... or a letter in brackets right after a person's name, as a judgment gives the letter it will use ("Ewa Nowak (K)")
_NAMED_LETTER = re.compile(rf"(?<![\w'’\-])({CAPWORD})[ \t]+{CAPWORD}[ \t]*\(({UPPER})\)")


def lettered_children(text: str, is_word) -> list[tuple[int, int]]:
    out = [m.span(1) for m in _LETTER_CHILD.finditer(text)]
    if "(" in text:
        out += [(m.start(1) + i.start(), m.start(1) + i.end()) for m in _CASE_LETTERS.finditer(text)
                for i in re.finditer(rf"(?<![\w\-]){_CASE_LETTER}(?![\w\-])", m.group(1))]  # "Re A, B and C (Children)"
        out += [m.span(2) for m in _NAMED_LETTER.finditer(text) if m.group(1) in given_names()]
        out += [m.span(1) for m in _ROLE_QUOTED_LETTER.finditer(text)]
        out += [(m.start(1) + i.start(1), m.start(1) + i.end(1)) for m in _CHILDREN_SENTENCE.finditer(text)
                for i in _LETTER_AGE.finditer(m.group(1))]
    out += [(m.start(1) + i.start(), m.start(1) + i.end()) for m in _REFERRED_AS.finditer(text)
            for i in re.finditer(rf"(?<![\w(]){UPPER}\.?(?![\w)])", m.group(1))]
    return out + where_letters_stand(text, {text[s:e] for s, e in out})


_A_AS_OBJECT = re.compile(r"\b[a-z]+[ \t]+(A)(?=[ \t]+[a-z]|[ \t]*[,.;:!?)])")
_BEFORE_A_GRADE = frozenset("a an the got get gets getting scored score earned earn achieved achieve gave give grade "
                            "plan type class vitamin hepatitis".split())


# A party a cover names by letters alone on a line over its role alone on the next ("in the cause\n\nAB\n\nPursuer
# \n\nagainst\n\nCD\n\nDefender", as Scottish and anonymised covers set them): the letters stand for the person
_PARTY_LETTERS = re.compile(r"(?m)^[ \t]*((?:[A-Z]\.?[ \t]?){1,3})[ \t]*\n(?:[ \t]*\n)?[ \t]*(?i:pursuers?|defenders?|"
                            r"petitioners?|respondents?|appellants?|applicants?|claimants?|defendants?|plaintiffs?|"
                            r"complainers?|complainants?|accused|minuters?|objectors?)[ \t]*$|"
                            # (or with its role in brackets on the same line: "SR (Applicant father)\n- and -")
                            r"^[ \t]*((?:[A-Z]\.?[ \t]?){1,3})[ \t]*\((?i:first[ \t]+|second[ \t]+|third[ \t]+)?(?i:"
                            r"pursuers?|defenders?|petitioners?|respondents?|appellants?|applicants?|claimants?|"
                            r"defendants?|plaintiffs?|intervener|complainants?)\b[^)\n]{0,30}\)[ \t]*$")


def party_letters(text: str, is_word) -> list[tuple[int, int]]:
    out = [(m.start(g), m.start(g) + len(m.group(g).rstrip())) for m in _PARTY_LETTERS.finditer(text)
           for g in [1 if m.group(1) else 2] if m.group(g).strip().lower() not in NOT_INITIALS]
    return out + where_letters_stand(text, {text[s:e].strip() for s, e in out})


# A name spelled out letter by letter, as a transcript records a witness spelling it ("state and spell your last name.
# A. Bryce Hunter, H-U-N-T-E-R."): after a word of spelling, or spelling a name of the lists that no dictionary holds
_SPELLED = re.compile(r"(?<![\w\-])((?:[A-Z]-){2,}[A-Z])(?![\w\-])")
_SPELL_CUE = re.compile(r"(?i)\bspel[lt]|\b(?:sur|last|family|first|given)[ \t]*name\b")


def spelled_names(text: str, is_word) -> list[tuple[int, int]]:
    out = []
    for m in _SPELLED.finditer(text) if "-" in text else ():
        word = m.group(1).replace("-", "").capitalize()
        if _SPELL_CUE.search(text, max(0, m.start() - 300), m.start()) or in_name_lists(word) and not is_word(word) \
                or len(word) >= 5 and not is_word(word):  # ("say your name ... K-E-T-T-L-E-S-O-N")
            out.append(m.span(1))
    return out


# An Indian court order's signature: the name of whoever signed or wrote it alone on its line, then "/-" ("Abhishek/-",
# "R.K. Verma/-")
_SIGNED_ORDER = re.compile(r"(?m)^[ \t]*((?:[A-Z]\.[ \t]?)*[A-Z][a-z'’\-]+"
                           r"(?:[ \t]+(?:[A-Z]\.[ \t]?)*[A-Z][a-z'’\-]+){0,2})[ \t]*/-[ \t]*$")


def signed_order_names(text: str, is_word) -> list[tuple[int, int]]:
    # (a name of the lists or a word no dictionary holds: "Costs/-" is a fee's line)
    return [m.span(1) for m in _SIGNED_ORDER.finditer(text) if m.group(1).split()[0].lower() not in STOP_WORDS
            and any(in_name_lists(w) or not is_word(w) for w in re.findall(r"[A-Za-z'’\-]{2,}", m.group(1)))] \
        if "/-" in text else []


def letters_alone(text: str, mark: str):
    """Each place `mark` (letters standing for a person) stands alone in `text`: no word, dot or apostrophe glued
    before it, no word or hyphen after it, nor a dot that opens a word ("B.Sc")."""
    return re.finditer(rf"(?<![\w.'’\-]){re.escape(mark)}(?![\w\-]|\.\w)", text)


def where_letters_stand(text: str, letters: set[str]) -> list[tuple[int, int]]:
    """Each of `letters` (initials a rule found standing for a person) wherever it stands alone again: the judgment
    that calls a child "B" writes "handled B roughly" and "until N finishes school" as often as "B said". Never after
    a label ("Section B", "Plan B", _LETTER_LABEL_BEFORE) nor as a heading's letter ("B. The law"). "A" and "I" are
    words too (an article, the speaker), so those two only where they act or are acted on (_where_they_act), and "A"
    inside a sentence after a word in lower case, as no article stands ("He grabbed A by the shirt"; not "got an A",
    "Class A", "a type A personality")."""
    out, acting = [], set()
    for letter in letters:
        mark = letter.rstrip(".")
        if mark == "A":
            out += [m.span(1) for m in _A_AS_OBJECT.finditer(text) if m.group(0).split()[0].lower() not in _BEFORE_A_GRADE
                    and not _LETTER_LABEL_BEFORE.search(text, max(0, m.start(1) - 12), m.start(1))]
        if mark in ("A", "I") or not re.fullmatch(rf"{UPPER}{{1,3}}(?:-{UPPER}|\d{{1,3}})?", mark):
            acting.add(letter)
            continue
        for m in letters_alone(text, mark):
            heading = (m.start() == 0 or text[m.start() - 1] == "\n") and text[m.end():m.end() + 1] in (".", ")")
            if not heading and not _LETTER_LABEL_BEFORE.search(text, max(0, m.start() - 12), m.start()):
                out.append(m.span())
    return out + _where_they_act(text, acting)


def _where_they_act(text: str, letters: set[str]) -> list[tuple[int, int]]:
    """Each of `letters` (or initials) standing alone before a verb or a possessive (_LETTER_ACTS), or after a
    preposition that a person is the object of ("F was violent to M on", "described by B,"): the person a rule found
    it standing for, wherever the text names them so."""
    return [m.span() for letter in letters
            for m in re.finditer(rf"(?<![\w'’.\-]){re.escape(letter)}{_LETTER_ACTS}|"
                                 rf"{_TO_A_PERSON}{re.escape(letter)}{_OBJECT_END}", text)]





# A party an asylum or immigration case is cited by: initials before the country in brackets ("contrary to HA (Iraq)
# and KB (Nigeria)", "AA (Somalia) [2007] UKAIT"); not a state's or a body's letters ("UK (England)") nor a degree
# after an article
_COUNTRY_CASE = re.compile(r"(?<![\w.'’\-])([A-Z]{2,3})[ \t]+\(([A-Z][\w'’\-]+(?:[ \t]+[A-Z][\w'’\-]+){0,3})\)")


def country_case_initials(text: str, is_word) -> list[tuple[int, int]]:
    out = [m.span(1) for m in _COUNTRY_CASE.finditer(text) if m.group(2) in country_names()
           and m.group(1).lower() not in NOT_INITIALS
           and not re.search(r"(?i)\b(?:an?|the)[ \t]+\Z", text[max(0, m.start() - 6):m.start()])]  # "an MA (Kenya)"
    return out + where_letters_stand(text, {text[s:e] for s, e in out}) if out else []


# The typist's initials an order or a judgment ends with, before a slash and maybe the date ("JUDGE\nsks/12.10.23",
# "ARB/"): the last line of the text
_TYPIST_LINE = re.compile(r"\n[ \t]*([A-Za-z]{2,4})[ \t]*/[ \t]*(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4})?[ \t]*\s*\Z")


def typist_initials(text: str, is_word) -> list[tuple[int, int]]:
    m = _TYPIST_LINE.search(text[-40:])
    if not m or m.group(1).lower() in NOT_INITIALS or is_word(m.group(1)):
        return []
    off = max(0, len(text) - 40)
    return [(off + m.start(1), off + m.end(1))]


# Initials a person marks a document with, in quotes ('each line initialled "MLDC"', 'signed "K.O."'): theirs,
# wherever they stand again before a verb
_MARKED_WITH = re.compile(r"(?i:\b(?:initial(?:l)?ed|initials|signed|countersigned|marked)(?:[ \t]+(?:with|as|by))?)"
                          r"[ \t]+[\"“']((?-i:[A-Z]{2,4}|(?:[A-Z]\.){2,4}))[\"”']")


def marked_initials(text: str, is_word) -> list[tuple[int, int]]:
    """The initials in quotes after "initialled" or "signed" (_MARKED_WITH), never an acronym of NOT_INITIALS."""
    out = [m.span(1) for m in _MARKED_WITH.finditer(text) if m.group(1).lower() not in NOT_INITIALS]
    return out + where_letters_stand(text, {text[s:e] for s, e in out})


# Initials that an anonymised judgment gives a person: with the person's age ("AB is a 29 year old man", "GW is 87.",
# "AAA, then 13 years old,"), after a kin word and "her", "his" or "their" ("her mother BBB", "his son KT"), or as the
# judge says they will refer to a relative ('I shall refer to their mother as "M" and to their father as "F"')
_AGED_INITIALS = re.compile(r"(?<![\w.'’\-])([A-Z]{1,3})(?:,[ \t]+(?:then|now)[ \t]+|[ \t]+(?:is|was)[ \t]+(?:an?[ \t]+)?)"
                            r"\d{1,3}(?:[ \t-]+years?[ \t-]+old\b|[ \t-]+year\b|[ \t]*[.,;](?!\d))")
_KIN_INITIALS = re.compile(rf"(?i:\b(?:her|his|their|my|our)[ \t]+(?:{_KIN_NOUNS}))[ \t]+([A-Z]{{2,3}})(?![\w'’\-]|\.\w)")
_RELATIVE_AS = re.compile(rf"(?i:(?:\bto[ \t]+|(?<=[;,][ \t])|\band[ \t]+)(?:the|their|his|her|my|our)[ \t]+(?:{_KIN_NOUNS}|{INITIAL_ROLES})[ \t]+as)"
                          r"[ \t]+[\"“']?([A-Z]{1,3})[\"”']?(?![\w'’\-]|\.\w)|"
                          # ... or in brackets after a kin word, in quotes or not ("M's sister (\"MA\")", "The mother
                          # (MW) is 23")
                          rf"(?i:\b(?:{_KIN_NOUNS}))[ \t]*\([ \t]*[\"“']?([A-Z]{{1,3}})[\"”']?[ \t]*\)")
# ... or with the role a record gives them, a letter or a cipher after it ("Patient B's account", "Pupil B",
# "prisoner G.", "Midwife M14"), or a kin word's letter between commas ("her son, Y, with")
_ROLE_LETTER = re.compile(r"(?i:\b(?:patient|pupil|student|child|witness|resident|client|prisoner|inmate|midwife|"
                          r"nurse|doctor|officer|teacher|complainant|victim|colleague|employee|tenant|baby|"
                          r"service[ \t]+user|young[ \t]+person|person|individual|informant|source|carer|parent|"
                          r"social[ \t]+worker|foster[ \t]+carer|claimant|applicant|respondent))[ \t]+"
                          r"(?!I\b)([A-Z]{1,2}\d{0,3})(?![\w\-]|\.\w)")  # ("the best officer I could be")
_ROLE_APPOSED_LETTERS = re.compile(r"(?i:\b(?:complainer|complainant|victim|applicant|claimant|appellant|"
                                   r"respondent|accused|defendant|witness|child|patient|pupil|student|deceased))[ \t]*,"
                                   r"[ \t]+(?!I\b)([A-Z]{1,3})(?=[ \t]*,)")  # "The complainer, AB, was then aged 17"
_KIN_LETTER = re.compile(rf"(?i:\b(?:her|his|their|my|our)[ \t]+(?:{_KIN_NOUNS})),[ \t]+(?!I\b)([A-Z])(?=[ \t]*[,;)])")
# ... or the cipher an inquiry gives a person ("a boy referred to in this Inquiry as PX27"; not a group's: "The Big
# Four, also known as G4")
_REFERRED_CIPHER = re.compile(rf"(?i:\b(?:boy|girl|man|woman|child|person|witness|patient|pupil|student|officer|"
                              rf"individual|applicant|complainant|victim|survivor|resident|mother|father|he|she|who)\b)"
                              rf"[^.\n]{{0,40}}?{REFERRED_AS}[ \t]+[\"“']?([A-Z]{{1,3}}\d{{1,3}})[\"”']?(?![\w\-])")
# a letter's label, after which a capital is no person's ("Section F", "Appendix B", "vitamin D")
_LETTER_LABEL_BEFORE = re.compile(r"(?i)\b(?:section|appendix|annex|part|schedule|exhibit|form|class|grade|block|room|"
                                  r"type|category|plan|item|vitamin|hepatitis|option|step|stage|phase|level|ward|bay|"
                                  r"unit|table|figure|fig|box|tab|paragraph|para|clause|article|annexe|page|row|column|"
                                  r"zone|gate|flat|apartment|suite|wing|floor|route|line)\.?[ \t]+\Z")


_THE_BEFORE = re.compile(r"(?i)\bthe[ \t]+\Z")  # "the NHS, then 40 years old": a body


def anonymised_initials(text: str, is_word) -> list[tuple[int, int]]:
    """Initials standing for a person where an anonymised judgment gives their age, their kinship or the letter the
    judge calls them by (_AGED_INITIALS, _KIN_INITIALS, _RELATIVE_AS), and where they stand again; never an acronym
    of NOT_INITIALS or a body's (BODY_WORDS), nor a Roman numeral, nor after "the" ("the UK is 5th", "VI, then
    12")."""
    out = [m.span(m.lastindex) for pattern in (_AGED_INITIALS, _KIN_INITIALS, _RELATIVE_AS, _ROLE_LETTER, _KIN_LETTER,
                                               _REFERRED_CIPHER, _ROLE_APPOSED_LETTERS)
           for m in pattern.finditer(text) if m.group(m.lastindex).lower() not in NOT_INITIALS
           and m.group(m.lastindex).lower() not in BODY_WORDS and not re.fullmatch(r"[IVX]{2,3}", m.group(m.lastindex))
           and not _THE_BEFORE.search(text, max(0, m.start(m.lastindex) - 5), m.start(m.lastindex))]
    # they stand for the person wherever they stand alone again ("QT stopped his depot"; "Section QT" stays)
    return out + where_letters_stand(text, {text[s:e] for s, e in out})


# The court's staff on a judgment's cover, a role and a colon before the name alone on its line ("Court Assistant:
# Wycliffe", "Interpreter: Ana Ferreira"); and a police officer by rank and collar number ("PC 1184 Martin Hope",
# "DC 2207 Okafor"), as witness lists give them
_STAFF_LINE = re.compile(rf"(?im)^[ \t>*\-]*(?:court[ \t]+(?:assistant|clerk|reporter|usher|officer)|clerk|usher|interpreter|"
                         r"stenographer|tribunal[ \t]+clerk|legal[ \t]+adviser|court[ \t]+associate|associate|"
                         rf"judge['’]s[ \t]+clerk)[ \t]*(?::|[ \t][-–])[ \t]*((?-i:{CAPWORD}(?:[ \t]+{CAPWORD}){{0,3}}))[ \t]*$")
_COLLAR_NUMBER = re.compile(rf"\b(?:PC|PS|DC|DS|WPC|Sgt|Insp|Constable)[ \t]+\d{{2,5}}[ \t]+({CAPWORD}(?:[ \t]+{CAPWORD})?)")


def court_staff_names(text: str, is_word) -> list[tuple[int, int]]:
    """The court staff a cover names (_STAFF_LINE) and officers by collar number (_COLLAR_NUMBER), when a word is a
    name of the lists or no dictionary word ("Interpreter: None", "PC 2024 Edition" stay); the bench a judgment
    lists a name a line under "Justices" (_BENCH_LINES: "with the participation of Justices\nBrandt,\nVoss,")."""
    out = [m.span(1) for pattern in (_COLLAR_NUMBER, _STAFF_LINE) for m in pattern.finditer(text)
           if any(in_name_lists(w) or w.isupper() and in_name_lists(w.capitalize()) or not is_word(w)
                  for w in m.group(1).split())]  # not "PC 2024 Edition"; in capitals too: "PC 3381 RICHARDSON"
    for m in _BENCH_LINES.finditer(text):
        lines = list(_BENCH_NAME.finditer(text, m.start(1), m.end(1)))
        if len(lines) >= 2 and any(in_name_lists(n.group(1).split()[-1]) or not is_word(n.group(1).split()[-1])
                                   for n in lines):
            out += [n.span(1) for n in lines]
    return out


# the bench, a name a line under "Justices" or "Judges" (two or more lines, a name of the lists or no dictionary
# word among them: "Justices\nBrandt,\nVossberg,\nYıldırım-Hartmann\nunanimously decided")
_BENCH_LINES = re.compile(r"\b(?:Justices|Judges)[ \t]*:?[ \t]*\n((?:[ \t]*[A-Z][\w'’\-]+(?:[ \t]+[A-Z][\w'’\-]+){0,2}"
                          r"[ \t]*,?[ \t]*(?:\n|\Z)){2,9})")
_BENCH_NAME = re.compile(r"(?m)^[ \t]*([A-Z][\w'’\-]+(?:[ \t]+[A-Z][\w'’\-]+){0,2})[ \t]*,?[ \t]*$")


# Who was born: "Poppy was born on 28 June 2016", "Will was born in 1990": a given name or surname of the lists,
# dictionary word or not, or a word no dictionary holds
_BORN = re.compile(rf"(?<![\w'’\-])({CAPWORD})[ \t]+(?:was|were)[ \t]+born\b")
# ... and a person's dotted initials with the birth date after them, as a record gives a minor ("Minor:    M.S., born
# 11.09.2015", "K.L. (born 2012)")
_INITIALS_BORN = re.compile(rf"(?<![\w.])((?:{UPPER}\.[ \t]?){{1,3}})[ \t]*(?:,[ \t]*|\([ \t]*)(?i:born|b\.)[ \t]+"
                            r"(?:on[ \t]+|in[ \t]+)?\d")


def born_names(text: str, is_word) -> list[tuple[int, int]]:
    return [(m.start(1), m.end(1)) for m in _BORN.finditer(text) if m.group(1).lower() not in STOP_WORDS
            and m.group(1) not in country_names() and (in_name_lists(m.group(1)) or not is_word(m.group(1)))] + \
        [(m.start(1), m.start(1) + len(m.group(1).rstrip())) for m in _INITIALS_BORN.finditer(text)
         if not re.search(r"(?i)\bthe[ \t]+\Z", text[max(0, m.start(1) - 5):m.start(1)])]  # "the U.S., born in 1776"


_INITIAL_SUBJECT = re.compile(rf"(?<![\w.])({UPPER}\.)(?=[ \t]+(?:{INITIAL_ACTOR_VERBS})\b)")
# (a set's, a point's or a matrix's letter ends a sentence of mathematics: "Let x be in S. then")
_MATH_BEFORE = re.compile(r"\b(?:in|of|set|point|points|matrix|group|ring|field|space|vertex|node|line|angle|triangle|"
                          r"circle|segment|graph|function|variable|element|subset|is|equals|than|by|at|through)[ \t]+\Z")
# (a label's letters listed: "Type B, J. and K. forms")
_LABELLED_LETTERS_BEFORE = re.compile(r"(?i:\b(?:type|form|class|schedule|part|section|appendix|annex|exhibit|grade|"
                                      r"category|option|plan|block|room|unit|ward)s?)[ \t]+(?-i:[A-Z])\.?"
                                      r"(?:(?:,|[ \t]+and|[ \t]+or)[ \t]+(?-i:[A-Z])\.?)*(?:,|[ \t]+and|[ \t]+or)[ \t]+\Z")
_INITIAL_INSIDE = re.compile(r"(?:(?<=[a-z][ \t])|(?<=[a-z],[ \t])|(?<=\[))(?!I\.)([A-Z]\.)(?=[ \t]+[a-z]|,[ \t]+[a-z]|\])")


def initial_subjects(text: str, is_word) -> list[tuple[int, int]]:
    """A lone initial that does what a person does ("G. told the police", "K. was arrested"): judgments and
    reports name witnesses so, and an initial that ends a sentence is followed by a capital, not a verb."""
    out = [(m.start(1), m.end(1)) for m in _INITIAL_SUBJECT.finditer(text)
           if not text[max(0, m.start(1) - 2):m.start(1)].rstrip().endswith(".")]  # "U.S. was": not a lone initial
    # ... or inside a sentence, where no sentence ends: after a word in lower case and before one ("travelled with L.
    # to Hungary", "the applicant's son, R., was"), or in brackets as a quote's editor puts it ("[L.] needs"); never
    # after a label ("plan B. we") nor "I." (a numeral); and such a letter wherever it stands again
    out += [m.span(1) for m in _INITIAL_INSIDE.finditer(text)
            if not _LETTER_LABEL_BEFORE.search(text, max(0, m.start(1) - 12), m.start(1))
            and not _MATH_BEFORE.search(text, max(0, m.start(1) - 12), m.start(1))
            and not _LABELLED_LETTERS_BEFORE.search(text, max(0, m.start(1) - 40), m.start(1))]
    return out + where_letters_stand(text, {text[a:b] for a, b in out})
