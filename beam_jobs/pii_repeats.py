"""What a found name brings with it: the other places a text writes that name or account, the logins a system
makes of it, and the number written right after it. Run once the name finders and the policy have chosen the
names to redact (beam_jobs.pii.PiiFilter), so that every finder's names get the same companions."""
from __future__ import annotations

import re


def what_names_bring(text: str, names: list[tuple[int, int]], results: list, vocabulary: frozenset[str],
                     repeats: bool = True) -> list:
    """The numbers after `names` (ID_NUMBER) and, with `repeats`, every repeat and login of a found name or
    account (`results` holds the names and what the other recognizers found; none of it is found twice).
    Repeats are off while a genre exemption is on: an exempted name must not come back through its repeats."""
    from presidio_analyzer import RecognizerResult  # imported late: presidio_loader sets it up offline first
    out = [RecognizerResult("ID_NUMBER", s, e, 0.85) for s, e in numbers_after_names(text, names)]
    if repeats:
        out += repeats_of(text, results + out, vocabulary)
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
