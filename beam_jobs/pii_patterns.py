"""Pattern recognizers for the clean stage's PII filter that Presidio lacks or gets wrong on ordinary
prompts: street addresses of any country (with unit, box and military forms, and the city/postcode lines
that follow), phone numbers of any region (candidate spans checked with `phonenumbers`, never prices,
years, dates or decimals), and driver-licence numbers only next to a licence word.

Every regex here is case-sensitive and stays within one line unless it says otherwise: Presidio compiles
patterns with IGNORECASE and DOTALL, which made "a capitalised street name" match any word and let one
match run across a sentence end. The recognizers are plain Presidio `EntityRecognizer`s, so the analyzer's
registry, `--pii-policy` and context handling treat them like its own.
"""
from __future__ import annotations

import re
from functools import lru_cache

from beam_jobs.pii_accounts import fellow_accounts, may_name_accounts, named_accounts
from beam_jobs.pii_names import in_vocabulary, union_spans
from beam_jobs.pii_rules_chat import ACCOUNT_LIKE, speaker_handles
from beam_jobs.pii_rules_common import WORD_START
from beam_jobs.pii_words import FILE_ENDINGS, HOME_ON, MAILBOX_WORDS, NOT_HANDLES, country_names
from beam_jobs.presidio_loader import import_presidio

import_presidio()
from presidio_analyzer import EntityRecognizer, RecognizerResult  # noqa: E402

L = r"[^\W\d_]"          # any letter, any script
UP = r"(?:[A-Z]|[^\W\d_a-z](?<![a-z]))"  # an upper-case-looking letter (non-ASCII letters pass: Č, Ø, Μ)
WORD = rf"(?:{L}[\w'’\-]{{0,3}}\.(?=[ \t]*\w)|{L}[\w'’\-]*)"  # a word; "St." and "Av." only mid-address
NUM = r"\d{1,6}[A-Za-z]?(?:[/\-]\d{1,4}[A-Za-z]?)?"  # house number: 12, 12B, 12/3, 12-14
_PARTICLE = (r"(?:de|do|da|dos|das|del|della|delle|dello|dei|degli|di|du|des|la|le|les|von|van|der|den|al|el|"
             r"y|e|i)")

# USPS Publication 28 primary street suffixes and the common abbreviations (English-speaking countries).
_EN_SUFFIXES = """
Alley Aly Annex Arcade Avenue Ave Av Bayou Beach Bend Bluffs? Bottom Boulevard Blvd Branch Bridge Brooks?
Burgs? Bypass Camp Canyon Cape Causeway Centers? Ctr Circles? Cir Cliffs? Close Club Commons? Corners?
Course Courts? Ct Coves? Creek Crescent Cres Crest Crossing Crossroads? Curve Dale Dam Divide Drives? Dr
Estates? Expressway Expy Extensions? Falls? Ferry Fields? Flats? Fords? Forest Forges? Forks? Fort Freeway
Fwy Gardens? Gateway Glens? Greens? Groves? Harbors? Haven Heights Hts Highway Hwy Hills? Hollow Inlet
Islands? Isle Junctions? Keys? Knolls? Lakes? Land Landing Lane Ln Lights? Loaf Locks? Lodge Loop Mall
Manors? Meadows? Mews Mills? Mission Motorway Mount Mountains? Neck Orchard Oval Overpass Parade Parks?
Parkways? Pkwy Pass Passage Path Pike Pines? Place Pl Plains? Plaza Points? Ports? Prairie Radial Ramp
Ranch Rapids? Rest Ridges? River Roads? Rd Route Row Rue Run Shoals? Shores? Skyway Springs? Spurs?
Squares? Sq Station Stravenue Stream Streets? St Str Summit Terrace Ter Throughway Trace Track Trafficway
Trail Trl Trailer Tunnel Turnpike Underpass Unions? Valleys? Via Viaduct Views? Villages? Ville Vista Walks?
Wall Ways? Wells? Wharf Wynd
Rise Terr Chase Vale Croft Grange Villas Approach Quay Yard Mead Paddock Garth Brow Dene Gdns
""".split()  # (and the British and Antipodean ones USPS lacks: "10 Orchard Rise", "1127 NW Palmetto Terr")
# Street words of other languages. Stand-alone words come before or after the name ("Rua do Sol 12",
# "trg revolucije 17", "Erzsébet tér 19"); compound endings close the street's own word ("Søndergade",
# "Kiannonkatu", "Fagradalsbraut", "Villacher Strasse").
_STREET_WORDS = """
Rua Avenida Avda Av Via Viale Vicolo Piazza Piazzale Corso Largo Calle Carrer Carrera Camino Paseo Plaza
Travessa Estrada Alameda Rue Avenue Boulevard Chemin Allée Impasse Quai Place Ulica Aleja Plac Ulice
Náměstí Strada Stradă Bulevardul Calea Sokak Sokağı Cadde Caddesi Mahallesi Odos Leoforos Straat Laan
Gracht Plein Weg Steenweg Dreef Kaai Rynek Str Strasse Straße Gasse Gata Gate Gatan Vej Vei Veien Vegen
Vägen Väg Gade Stræde Torv Torget Tori Tie Katu Kuja Polku
""".split()
# Lower-case street words of the languages that write them so ("ul. Narewska", "Rákóczi út", "trg
# revolucije"): distinctive enough to match in lower case
_STREET_WORDS_LOWER = r"ul\.|u\.|ulica|út|útja|utca|tér|körút|krt\.?|rkp\.|rakpart|köz|sétány|fasor|trg|náměstí|rue"
# Street words some languages write in lower case after the name ("Trenerys gate 232", "Luite tee 87")
_AFTER_NAME_LOWER = (r"(?:gate|gata|gatan|vei|veien|vej|vegur|tee|tie|katu|kuja|straat|weg|laan|vägen|väg|utca|út|útja|tér|"
                     r"rakpart|köz|sétány|fasor|põik|terrasse)")
# Compound endings of at least four letters (shorter ones end ordinary words: "during", "Katie", "Colgate")
_STREET_TAILS = ("straße", "strasse", "gasse", "platz", "allee", "straat", "gracht", "plein", "steenweg",
                 "gade", "stræde", "gatan", "vägen", "veien", "vegen", "vegur", "braut", "stræti", "straeti",
                 "katu", "kuja", "polku", "väylä", "utca", "ulica", "iela", "gatvė", "tänav", "weg", "vej")
_UNIT = r"(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Flat|Fl\.?|Floor|Room|Rm\.?|Bldg\.?|Building|#)"
_UNIT_CI = r"(?:[Aa]pt\.?|APT\.?|[Aa]partment|[Ss]uite|SUITE|[Ss]te\.|STE\.?)"


def _alt(words) -> str:
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


_SFX = "|".join(re.escape(w[:-2]) + "s?" if w.endswith("s?") else re.escape(w)
                for w in sorted(_EN_SUFFIXES, key=len, reverse=True))
_WORDS = "(?:(?:" + _alt(_STREET_WORDS) + r")\.?|" + _STREET_WORDS_LOWER + ")"
_TAILS = "(?:" + _alt(_STREET_TAILS) + ")"
_SP = r"[ \t]+"

# "1234 N Main St", "77 Old Sawmill Road, Suite 4": number, up to four capitalised words, a street suffix (or one of
# the commonest in lower case, as chat and notes write them: "88 Wattle street", "14 Elm rd")
_SFX_LOWER = r"street|road|rd|avenue|ave|lane|drive|crescent|terrace|boulevard|blvd"
_US = (rf"(?<![\w.,])(?:{NUM}{_SP})?{NUM}{_SP}(?:[NSEW]\.?{_SP}|North{_SP}|South{_SP}|East{_SP}|West{_SP})?"
       rf"(?:(?:{UP}{WORD}|\d{{1,3}}(?:st|nd|rd|th)){_SP}){{1,4}}(?:{_SFX}|{_SFX_LOWER})\b\.?")
# "Rua do Arenque 1634", "ul. Biskupa Bogedaina 118", "Søndergade 52", "trg revolucije 17": a street word
# (or a word ending in a street tail) with up to four more words on either side, then a house number
_NAMEWORD = rf"(?:(?:[dlDL]['’])?{UP}{WORD}|{_PARTICLE})"  # a word of a street's name: capitalised ("d'Esch"), a particle
# (a street word needs a name word beside it: "via 5 cities" is no address)
_EU = (rf"(?<![\w.,])(?:{NUM}{_SP})?(?:{UP}{WORD}(?:{_SP}{WORD}){{0,2}}{_SP}\b(?:{_WORDS}|{_AFTER_NAME_LOWER}\b)(?:{_SP}{_NAMEWORD}){{0,4}}"
       rf"|(?:\b{_WORDS}|(?<![\w/])C/)(?:{_SP}{_NAMEWORD}){{1,4}}|{UP}[\w'’\-]{{2,}}{_TAILS}\.?(?:{_SP}{_NAMEWORD}){{0,2}})"
       rf",?{_SP}{NUM}\.?(?![\w])")
# "12 rue de la Paix", "7 Via Roma": house number first, then a street word and its name
# Street words that never start an English clause: the name after them may hold lower-case words
# ("26 rue des lieutenants Thomazo", "688 rue du centre 320")
_ROMANCE = (r"(?i:rue|rua|calle|c/|carrer|carrera|avenida|avda\.?|viale|piazza|strada|travessa|estrada|chemin|allée|"
            r"impasse|quai|route)(?![\w])")
_EU_NUM_FIRST = (rf"(?<![\w.,]){NUM},?{_SP}(?:{_WORDS}{_SP}(?:{_NAMEWORD}{_SP}){{0,4}}(?:[dlDL]['’])?{UP}{WORD}"
                 rf"|{_ROMANCE}(?:{_SP}{WORD}){{1,5}})(?:,?{_SP}{NUM}(?![\w]))?")
# "Al-Nuzha Street 12", "Hauptstraße Road 5": an English street suffix, then the number
_SUFFIX_NUM = rf"(?<![\w.,])(?:{UP}{WORD}{_SP}){{1,3}}(?:{_SFX})\.?{_SP}{NUM}(?![\w%])"
# A line "name number" over a line "postcode city" ("Teofila Firlika 19\n71-637 Szczecin"): the street line
_POSTCODE = r"(?:\d{2,5}(?:[- ]\d{2,4})?|[A-Z]{1,2}\d[\dA-Z]?[ ]?\d[A-Z]{2})"
_LINE_OVER_POSTCODE = re.compile(rf"^[ \t>?]*((?:{_NAMEWORD}[ \t]+){{1,4}}{NUM})[ \t]*(?=\n[ \t>?]*{_POSTCODE}[ \t]+{UP})",
                                 re.MULTILINE)
# "28030 Edeby 55", "0138 Brisas 6802": number, capitalised name, number (the form most of Europe writes
# without a street word); the capital keeps "3 apples and 5" out
_MONTHS = (r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|January|February|March|April|June|July|"
           r"August|September|October|November|December)\b")
# Words that number things in ordinary text ("Season 2 Episode 5", "3 Points Table 4"), never a street
_COUNTED = (r"(?:Episode|Chapter|Season|Series|Table|Figure|Fig|Part|Page|Vol|Volume|Level|Round|Step|Grade|"
            r"Class|Room|Section|Article|Act|Scene|Verse|Book|Game|Week|Day|Year|Stage|Phase|Version|Points?|Goals?)\b")
# (never a number more after it: "205 Colin Montgomerie 67 69 69", "273 Ann Ho 105,600 70": a leaderboard's line)
_NUM_NAME_NUM = (rf"(?<![\w.,])\d{{2,6}}[A-Za-z]?{_SP}(?!{_MONTHS})(?:(?!{_COUNTED}){UP}{WORD}{_SP}){{1,4}}"
                 rf"(?!(?:1[5-9]|20)\d\d\b){NUM}\.?(?![\w%])(?![ \t]*[,.]?[ \t]*\d)")
_PO_BOX = r"\b(?:P\.?[ \t]?O\.?[ \t]*Box|Post[ \t]+Office[ \t]+Box|Postfach|Apartado|Caixa[ \t]+Postal|BP)[ \t]+\d{1,7}\b"
# US military mail: "PSC 6293, Box 8158", "Unit 5477 Box 8244", then "APO AP 04336"; a ship's line above
# a fleet post office ("USS Mahler\nFPO AA 70489")
_MILITARY = (r"(?i:\b(?:PSC|CMR|Unit)[ \t]+\d{3,5},?[ \t]+Box[ \t]+\d{3,5}\b)"
             rf"|\b(?:USS|USNS|USNV|USCGC)[ \t]+{UP}{WORD}(?:[ \t]+{UP}{WORD})?[ \t]*\n[ \t]*(?=FPO[ \t]+A[AEP][ \t]+\d{{5}}\b)"
             r"|(?i:\b[AFD]PO[ \t]+A[AEP][ \t]+\d{5}\b)")
_UNIT_ONLY = rf"\b{_UNIT_CI}[ \t]*#?[ \t]*\d{{1,5}}[A-Za-z]?\b"
_CORE = re.compile("|".join(f"(?:{p})" for p in (_MILITARY, _PO_BOX, _US, _EU, _EU_NUM_FIRST, _SUFFIX_NUM,
                                                  _NUM_NAME_NUM)))
_UNIT_RE = re.compile(_UNIT_ONLY)
# Words that say the next words are an address; the address then runs to the end of its clause.
_CUE = re.compile(r"(?i)\b(?:lives?[ \t]+(?:at|on)|living[ \t]+(?:at|on)|meet[ \t]+me[ \t]+at|(?:home|mailing|billing|shipping|postal|street|"
                  r"delivery|his|her|my|their|our|new|old)[ \t]+address(?:[ \t]+is)?[ \t]*:?|address[ \t]*:|"
                  r"drops?[ \t]+you[ \t]+off[ \t]+at|located[ \t]+at|ship[ \t]+(?:it[ \t]+)?to|"
                  r"send[ \t]+(?:it[ \t]+)?to|deliver[ \t]+(?:it[ \t]+)?to|(?:the[ \t]+)?corner[ \t]+of)[ \t]*\n?[ \t]*")
_CLAUSE_END = re.compile(r"(?:[.!?;](?=\s+[A-Z]|\s*$)|\n\s*\n|$)")
_ADDRESS_PART = re.compile(
    rf"^[ \t>?]*(?:{_UNIT}[ \t]*#?[ \t]*\d{{1,5}}[A-Za-z]?|(?:\(?{WORD}\)?[ \t]*){{1,5}}(?:[ \t]+[A-Z0-9][A-Z0-9\- ]{{1,9}})?"
    rf"|[A-Z0-9][A-Z0-9\- ]{{1,9}}|\d{{2,6}}(?:-\d{{2,4}})?(?:[ \t]+(?:{WORD}[ \t]*){{1,4}})?)[ \t.]*$")
_PART_LOWER = {"de", "del", "la", "le", "di", "da", "do", "du", "des", "van", "von", "der", "den", "am", "im", "an",
               "sur", "sous", "en", "nad", "pod", "na", "y", "e", "i", "ter", "ten", "aan", "bei", "upon", "on"}
_NOT_PART = re.compile(r"[@:/?!]|\d{7,}|https?|www\.|(?i:\b(?:phone|fax|mobile|office|e-?mail|tel|website)\b)")


class InternationalAddressRecognizer(EntityRecognizer):
    """STREET_ADDRESS: one street line in any of the forms above, then the unit, city, region, postcode and
    country parts that follow it (comma- or line-separated, each short and address-shaped), so the whole
    address is one span; unit and box fragments on their own; after an address cue ("lives at",
    "address:"), the rest of the clause when it holds a number; with an English `vocabulary`, a street
    named without a street word after "on", "at", "to" ("on Pod Floriánem 1677", see `named_streets`)."""

    def __init__(self, vocabulary: frozenset[str] = frozenset()):
        super().__init__(supported_entities=["STREET_ADDRESS"], name="InternationalAddressRecognizer", supported_language="en")
        self.vocabulary = vocabulary

    def load(self):
        pass

    def analyze(self, text, entities, nlp_artifacts=None):
        spans = address_spans(text)
        if self.vocabulary:
            spans = union_spans(spans + named_streets(text, self.vocabulary))
        scores = [m.span() for m in _SCORE.finditer(text)] if spans else []
        return [RecognizerResult("STREET_ADDRESS", s, e, 0.7) for s, e in spans if not _CITATION.fullmatch(text[s:e])
                and not _VITALS.search(text, s, min(len(text), e + 4))
                and not _PRESSURE.search(text, s, min(len(text), e + 10))
                and not any(a <= s and e - (text[e - 1:e] == ".") <= b for a, b in scores)]


# A result in a line of results ("Coventry 0 Nottingham Forest 3, Derby 3 Leeds 3", "Houston 111 DENVER 98"): a
# side, its score, the other side and its score, closed by a comma, a full stop or the line's end, never a house
# number and a street
_TEAM = r"[A-Z][\w.'’\-]*(?:[ \t]+(?:[A-Z][\w.'’\-]*|de|del|of))*"
_SCORE = re.compile(rf"{WORD_START}{_TEAM}[ \t]+\d{{1,3}}[ \t]+{_TEAM}[ \t]+\d{{1,3}}(?=[ \t]*(?:[,;.]|$))", re.MULTILINE)


# A note's vital signs, which the street forms read as a number and a street word or a French post box ("HR 80s
# NSR. BP 110/60", "90s ST."): a rate given by its tens ("80s") or a pressure ("BP 110/60", "BP 110-130/60s") is
# never a house number
_VITALS = re.compile(r"\b\d{2,3}s\b|\b(?:BP|SBP|DBP|MAP|NBP|ABP)[ \t]*:?[ \t]*\d{2,3}/\d")
_PRESSURE = re.compile(r"\b(?:BP|SBP|DBP|MAP|NBP|ABP)[ \t]*:?[ \t]*\d{2,3}-\d{2,3}(?:/\d|s\b)")  # a range


# A law report's citation ("AIR 1987 AP 53", "(2008) 14 SCC 337", "1967 SLR 759"): numbers around a
# reporter's abbreviation, no street word
_CITATION = re.compile(r"(?:AIR[ \t]+)?\(?\d{1,4}\)?(?:[ \t]+\d{1,4})?[ \t]+(?:[A-Z][A-Za-z]{0,3}\.?[ \t]+){1,3}\d{1,5}")


@lru_cache(maxsize=1)
def _address_tail() -> re.Pattern:
    """The end of an address inside a sentence: a country (its English name, as `phonenumbers` gives it for
    every region it knows), perhaps after a city and before a postcode ("Gdańsk, Poland 52096 last night",
    "Suite 215 NUNGATTA Australia"), or a region code and a postcode ("OV 21072 after the concert")."""
    country = "|".join(re.escape(n) for n in sorted(country_names(), key=len, reverse=True))
    postcode = r"(?:[ \t]+\d{3,6}(?:-\d{3,4})?)"
    return re.compile(rf"[ \t>?]*(?:(?:(?:{UP}{WORD}[ \t]+){{0,3}}(?:{country}))(?:{postcode})?|[A-Z]{{2,3}}{postcode})"
                      r"(?![\w\-])")


_CAPS_CITY = re.compile(r"[ \t]+[^\W\d_a-z]{2,}(?:[ \t\-]+[^\W\d_a-z]{2,}){0,3}(?=[ \t]*(?:[.,;!?]|$|\n)|[ \t]+[a-z])")


def _extend(text: str, end: int) -> int:
    """Extend an address ending at `end` over the parts that follow: at most 6, each after a comma or a
    line break, address-shaped (short words, a postcode, a region code, a unit) and not a phone or email."""
    pos, parts = end, 0
    lower = not any(c.isupper() for c in text)
    after_unit = bool(re.search(rf"{_UNIT}[ \t]*#?[ \t]*\d{{1,5}}[A-Za-z]?\.?\Z", text[max(0, end - 16):end]))
    while parts < 6:
        # a comma or line break, or a few of them ("Artilleros\n, CO\n Uruguay 64677", a blank line)
        m = re.match(r"[ \t]*(?:[,\n][ \t>?]*){1,3}", text[pos:])
        if not m:
            m = re.match(rf"[ \t]+(?={_UNIT}[ \t]*#?[ \t]*\d)", text[pos:])  # "... 25 Apt. 864" on one line
            if not m and after_unit:  # "Apt. 678 Velenje", "Suite 019 CHARLEROI Victoria": the city after a unit
                m = re.match(rf"[ \t]+(?=(?:{UP}{WORD}|nan)(?:[ \t]+(?:{UP}{WORD}|nan|\d{{3,6}})){{0,3}}[ \t]*(?:[?!.]?$|[?!.]?\n|,|[?!](?=[ \t])))",
                             text[pos:])
                # "Suite 215 NUNGATTA Australia last night"; a city in capitals, as post is addressed: "Apt.
                # 501 POLSING OO after the concert"
                end_here = None if m else _address_tail().match(text, pos) or _CAPS_CITY.match(text, pos)
                if end_here:
                    pos = end_here.end()
                    break
            if not m:
                break
        start = pos + m.end()
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        comma = text.find(",", start, line_end)
        stop = comma if comma >= 0 else line_end
        part = text[start:stop]
        sentence = re.search(r"[.!?](?=\s+[A-Za-z])", part)
        if sentence:
            part, stop = part[:sentence.start()], start + sentence.start()
        # not an address part, or (in cased text, where a place name is capitalised) the sentence going on
        # (", were built at ..."): the address may still end inside it (", Tunisia last night")
        if not part.strip() or _NOT_PART.search(part) or not _ADDRESS_PART.match(part) or len(part) > 60 \
                or not lower and any(w[0].islower() and w not in _PART_LOWER
                                     for w in re.findall(r"[^\W\d_][\w'’\-]*", part)):
            tail = _address_tail().match(text, start, line_end)
            if tail:
                pos = tail.end()
            break
        pos, parts = stop, parts + 1
        after_unit = bool(re.match(rf"\s*{_UNIT}", part))
        while pos > start and text[pos - 1] in " \t.":
            pos -= 1
        if text[pos:pos + 1] == ".":
            pos += 1
    return pos


_LINE_TAIL_START = re.compile(r"(?:^|[:>]|\b(?:at|to|in|on|is|are|of|from)\b)[ \t]*", re.MULTILINE)
_STREET_LINE = re.compile(rf"(?=[^\n]*\d)(?:{WORD}\.?|\d{{1,6}}[A-Za-z]?)(?:[ \t]+(?:{WORD}\.?|\d{{1,6}}[A-Za-z]?)){{1,7}}[ \t]*")


def _street_line_above(text: str, unit_start: int) -> int | None:
    """Where the street line starts when a unit begins a line ("Tungata 11 Rott Crossroad\n Apt. 322"): the
    end of the line above, after its last "at", "to", "in", ":" ..., when that holds a number and reads as
    a street (up to eight words and numbers); None otherwise."""
    line_start = text.rfind("\n", 0, unit_start) + 1
    if text[line_start:unit_start].strip() or line_start == 0:
        return None  # the unit does not begin its line, or there is no line above
    above_start = text.rfind("\n", 0, line_start - 1) + 1
    above = text[above_start:line_start - 1]
    cut = 0
    for m in _LINE_TAIL_START.finditer(above):
        cut = m.end()
    tail = above[cut:]
    if not _STREET_LINE.fullmatch(tail) or len(tail) > 60 or _NOT_PART.search(tail):
        return None
    return above_start + cut


_FLAT_IN_BUILDING = re.compile(
    rf"(?<![\w])((?:Flat|Apartment|Apt\.?|Unit|Room)[ \t]+\d{{1,4}}[A-Za-z]?,?[ \t]+{UP}{WORD}(?:[ \t]+{UP}{WORD}){{0,2}}"
    rf"[ \t]+(?:Court|House|Tower|Lodge|Mansions|Building|Hall|Place|Heights|Buildings|Villas|Gardens|Block|Residences?)"
    r"|(?:Calle|Carrera|Cra\.?|Avenida|Av\.?|Diagonal|Transversal|Cl\.?)[ \t]+\d{1,3}[A-Za-z]?[ \t]*(?:#|No\.?|N[º°])[ \t]*"
    r"\d{1,3}[A-Za-z]?[ \t]*-[ \t]*\d{1,3})\b")
_UK_POSTCODE_LINE = re.compile(r"(?m)(?<![\w\-])((?-i:[A-Z]{1,2}\d[A-Z\d]?[ ]\d[A-Z]{2}))[ \t]*$")
# ... and inside a line: a full British postcode, its space in place, is distinctive (none stood in 17,518 train and
# dev texts of the panel and prompts)
# ... and a flat's number alone, as a block's residents sign and are listed ("Ana Ruiz (Flat 3C):", "CHAIR - MRS
# RUIZ, FLAT 3", "mrs bo same in flat 4"): with the block it finds the person; not a rate ("a flat 5% fee")
_FLAT_NUMBER = re.compile(r"(?<![\w\-])(?i:flat|apt\.?|apartment)[ \t]+\d{1,4}[A-Za-z]?(?![\w%]|[.,]\d)")
_UK_POSTCODE = re.compile(r"(?<![\w\-])(?-i:[A-Z]{1,2}\d[A-Z\d]?[ ]\d[A-Z]{2}|"
                          r"[A-Z]\d[A-Z][ ]\d[A-Z]\d)(?![\w\-])")  # (and a Canadian one: "Toronto, ON M2N 5W9")
# ... and a street written in lower case, as people type an address in chat ("9 kestrel close", "1309 sansom st"):
# a number, one to three words and a street word that no quantity or duration ends with ("a 7 hour drive", "20 more
# cars drive", "took place" stay: on those 17,518 texts 2 of 3 such matches were addresses)
_LOWER_STREET = re.compile(r"(?<![\w\-.,/$£€])\d{1,5}[a-z]?[ \t]+(?:(?:[a-z]{3,}[ \t]+){1,3}(?:road|rd|street|st|lane|ln|"
                           r"avenue|ave|close|crescent|terrace|grove|gardens|blvd|boulevard)|"
                           # (and in capitals, as an old letter's writer signs: "14 BRAMBLE CLOSE")
                           r"(?:[A-Z]{3,}[ \t]+){1,3}(?:ROAD|RD|STREET|ST|LANE|LN|AVENUE|AVE|CLOSE|CRESCENT|TERRACE|"
                           r"GROVE|GARDENS|BLVD|BOULEVARD|DRIVE|WAY|COURT))(?![\w\-])")
_BLOCK_OF = re.compile(rf"\b(\d{{2,5}}[ \t]+block[ \t]+of[ \t]+(?:(?:[NSEW]|North|South|East|West)\.?[ \t]+)?{UP}{WORD}"
                       rf"(?:[ \t]+{UP}{WORD}){{0,3}})")


# A home's street without its number, as court reports and news give it ("Sam Cole, 41, of Brenton Road, admitted",
# "a fire tore through their house on Stanford Avenue", "I have lived on Greystone Road for 23 years"): the street
# word closes the name; a town or a district after "in" stays
_RESIDENT_STREET = re.compile(rf"(?:,[ \t]*\d{{1,3}},[ \t]*(?:of|from)|\b{HOME_ON})[ \t]+"
                              rf"((?:{UP}{WORD}[ \t]+){{1,3}}(?:{_SFX}))(?![\w'’\-])")


def address_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for m in _CORE.finditer(text):
        start = m.start()
        before = re.search(r"(?<![\w.,])\d{1,6}[ \t]+\Z", text[max(0, start - 8):start])  # "45818 P.O. Box 242"
        if before:
            start -= len(before.group(0))
        spans.append((start, _extend(text, m.end())))
    for m in _CUE.finditer(text):
        rest = _CLAUSE_END.search(text, m.end())
        end = rest.start() if rest else len(text)
        chunk = text[m.end():end]
        # an address holds a number and is not a whole sentence of prose
        if re.search(r"\d", chunk) and len(chunk) <= 120 and not re.search(r"[@]", chunk):
            spans.append((m.end(), m.end() + len(chunk.rstrip(" \t."))))
    # (American news gives a home by its block: "of the 900 block of Linden", "the 10400 block of Stanford Avenue")
    spans += [m.span(1) for m in _BLOCK_OF.finditer(text)]
    spans += [m.span(1) for m in _RESIDENT_STREET.finditer(text)]
    spans += [m.span() for m in _UK_POSTCODE.finditer(text)]
    spans += [m.span() for m in _FLAT_NUMBER.finditer(text)]
    spans += [(m.start(), _extend(text, m.end())) for m in _LOWER_STREET.finditer(text)]
    # (a British postcode ending an address's line, its street or town redacted or not: "SHAW\nOL2 7HD")
    spans += [m.span(1) for m in _UK_POSTCODE_LINE.finditer(text)]
    # (a flat in a named building, as British letters head an address: "Flat 6, Hollybank Court"; a Colombian
    # street and its '#': "Calle 45 # 12-30")
    spans += [(m.start(1), _extend(text, m.end(1))) for m in _FLAT_IN_BUILDING.finditer(text)]
    for m in _LINE_OVER_POSTCODE.finditer(text):
        spans.append((m.start(1), _extend(text, m.end(1))))
    for m in _UNIT_RE.finditer(text):
        # a street line before the unit ("0605 πεντέλης 210 apt. 999") and the lines after it
        street = re.search(r"(?<![\w.,])\d{1,6}[ \t]+(?:[^\W\d_][\w'’.\-]*[ \t]+){1,4}\d{1,5}[ \t]+\Z",
                           text[max(0, m.start() - 60):m.start()])
        start = m.start() - len(street.group(0)) if street else m.start()
        line_above = _street_line_above(text, start)
        spans.append((start if line_above is None else line_above, _extend(text, m.end())))
    return union_spans(spans)


# "on Pod Floriánem 1677", "to Eyrarodda 66", "at Tungata 11 Rott Crossroad": the continental "name
# number" street without a street word, after a preposition of place, the clause ending or the address
# going on after the number; not a year ("Matlab 2021"), a one-digit number or a version ("Ubuntu 22.04")
_NAMED_STREET = re.compile(
    rf"(?<![\w])(?:on|at|to|in|from|near)[ \t]+((?:[dlDL]['’])?{UP}{WORD}(?:[ \t]+(?:(?:[dlDL]['’])?{UP}{WORD}|"
    rf"{_PARTICLE}|z|u|v|na|nad|pod|ve|ul\.)){{0,3}}[ \t]+(?!(?:19|20)\d\d\b)\d{{2,4}}[A-Za-z]?)"
    rf"(?=[ \t]*(?:[,;!?]|\.(?![\w])|\n|$)|[ \t]+{UP}{WORD})")


_STOP_WORDS = frozenset("the a an and or of in on at to for by with from this that these those".split())


def named_streets(text: str, vocabulary: frozenset[str]) -> list[tuple[int, int]]:
    """Streets named without a street word: some word of the name is in no English dictionary (so "on
    Channel 4", "in Windows 10", "at Gate 12", "on Route 66" stay) and the name is not a count ("Chapter 5")
    nor a month ("on May 15"); then the parts that follow, as for any street line."""
    from beam_jobs.pii_names import in_vocabulary
    out = []
    for m in _NAMED_STREET.finditer(text):
        name = m.group(1).rsplit(None, 1)[0]
        words = re.findall(r"[^\W\d_][\w'’\-]*", name)
        if re.match(_COUNTED, name) or re.match(_MONTHS, name) \
                or any(w.lower() in _STOP_WORDS or len(w) > 1 and w.isupper() for w in words) \
                or not any(w[:1].isupper() and not in_vocabulary(w, vocabulary) for w in words):
            continue
        out.append((m.start(1), _extend(text, m.end(1))))
    return out


# ---- phone numbers -------------------------------------------------------------------------------------

_PHONE_CANDIDATE = re.compile(
    r"(?<![\w./+\-])(?:\+|00)?[ \t]?(?:\(\d{1,5}\)[ \t.\-]?)?\d(?:[\d]|[ \t.\-/](?=\d)|[ \t]?\([\d]{1,5}\)[ \t]?){5,22}"
    r"(?:[ \t]*(?:x|ext\.?|extension)[ \t]*\d{1,6})?(?![\w%]|[.,]\d)")
_PHONE_CONTEXT = re.compile(r"(?i)\b(?:phone|tel|telephone|call|calls|called|calling|mobile|cell|fax|whats\s?app|"
                            r"sms|text\s+me|contact|reach|number|dial|office|landline|hotline|ph|mob|voicemail|answering|"
                            r"ring|rang|message|messages|registered)\b")
_DECIMAL = re.compile(r"\d+\.\d{1,2}|\d{1,3}(?:,\d{3})+(?:\.\d+)?")  # prices, amounts
_DATE = re.compile(r"\d{1,4}[./\-]\d{1,2}[./\-]\d{1,4}|\d{4}[./\-]\d{2}|(?:1[5-9]|20)\d\d[ \t]*[\-–][ \t]*(?:1[5-9]|20)?\d\d")
_TIME = re.compile(r"\d{1,2}[:.]\d{2}(?:[:.]\d{2})?")
_DATE_HOUR = re.compile(rf"(?:{_DATE.pattern})[ \t]+\d{{1,2}}")  # "04/17/2001 10" of "04/17/2001 10:16 AM"


@lru_cache(maxsize=None)
def _regions() -> tuple[str, ...]:
    import phonenumbers
    return tuple(sorted(phonenumbers.SUPPORTED_REGIONS))


_NANP_LAYOUT = re.compile(r"(?:\+?1[ .-]?)?(?:\(\d{3}\)\s?|\d{3}[.-])\d{3}[.-]\d{4}")


def _placeholder(raw: str, digits: str) -> bool:
    """A number nobody owns: one digit repeated, or a form's sample in North American layout ("(123) 456-7890",
    "987-654-3210"; such a layout is read only as a North American number, where area codes never start with
    1 or 9-8-7). Sequential runs in other layouts are real numbers ("+385 1 2345 678" is Zagreb)."""
    return len(set(digits)) == 1 or bool(_NANP_LAYOUT.fullmatch(raw)) and digits[-10:].startswith(("123456",
                                                                                                   "987654"))


def phone_score(candidate: str, context: bool) -> float:
    """0 for what is not a phone number; else how sure. A price, year, decimal, date, time or a list of
    small numbers is never one; a number in international form is checked by `phonenumbers`; a national
    one needs phone-like grouping or a phone word nearby, and to be a valid number in some region."""
    import phonenumbers
    raw = candidate.strip()
    digits = re.sub(r"\D", "", raw.split("x")[0].split("ext")[0])
    if not 6 <= len(digits) <= 15 or _DECIMAL.fullmatch(raw) or _DATE.fullmatch(raw) or _TIME.fullmatch(raw) \
            or re.fullmatch(r"\d{1,3}(?:\.\d{1,3}){3}", raw):  # an IPv4 address, the IP recognizer's
        return 0.0
    if _placeholder(raw, digits) or _DATE_HOUR.fullmatch(raw):
        return 0.0
    groups = re.findall(r"\d+", raw)
    if sum(len(g) == 1 for g in groups) > 2 or len(groups) > 7:
        return 0.0  # "1 2 3 4 5", a list of small numbers
    if len(groups) >= 4 and any(len(g) == 1 for g in groups[1:]) and not raw.startswith(("+", "00")):
        return 0.0  # a table row: "ATLANTA 2 11 0 234 393" (won, lost, tied, for, against); no national
        # number has a one-digit group after its first (a country's or a trunk code: "1 800 555 0199")
    if sum(len(g) == 2 and 59 <= int(g) <= 89 for g in groups) >= 3 and not raw.startswith(("+", "00")):
        return 0.0  # a golfer's rounds: "600 70 67 68 68" of "Ann Ho 105,600 70 67 68 68"
    if "/" in raw and all(len(g) <= 3 for g in groups):
        return 0.0  # a series of measures: blood gases "7.38/42/88", pressures "120/80/95"
    if len(groups) == 1 and not (context or raw.startswith(("+", "00"))):
        return 0.0  # a bare run of digits (an order number, an amount) needs a phone word
    if len(digits) < 7 and not context:
        return 0.0
    if raw.startswith(("+", "00")):
        try:
            num = phonenumbers.parse("+" + raw.lstrip("+")[2:] if raw.startswith("00") else raw, None)
        except phonenumbers.NumberParseException:
            return 0.0
        return 0.95 if phonenumbers.is_valid_number(num) else 0.75 if phonenumbers.is_possible_number(num) else 0.0
    # without a phone word, a national number needs the look of one: an area code in parentheses, three
    # or more groups, or ten digits ("1300-800" is a range of years as often as an Australian number)
    grouped = bool(re.search(r"\(\d+\)", raw)) or len(groups) >= 3 or len(digits) >= 10
    for region in _regions():
        try:
            num = phonenumbers.parse(raw, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(num):
            return 0.85 if (context or grouped) else 0.0
    return 0.6 if context and grouped else 0.0


class _OneEntityRecognizer(EntityRecognizer):
    """A recognizer of one entity type, English, with nothing to load: subclasses set ENTITY and analyze."""
    ENTITY = ""

    def __init__(self):
        super().__init__(supported_entities=[self.ENTITY], name=type(self).__name__, supported_language="en")

    def load(self):
        pass


class AnyRegionPhoneRecognizer(_OneEntityRecognizer):
    """PHONE_NUMBER of any region: candidate spans by a permissive regex, each scored by `phone_score`
    with a phone word in the 40 characters before it as context."""

    ENTITY = "PHONE_NUMBER"

    def analyze(self, text, entities, nlp_artifacts=None):
        out = []
        for m in _PHONE_CANDIDATE.finditer(text):
            s, e = m.start(), m.end()
            while s < e and text[s] in " \t":
                s += 1
            context = bool(_PHONE_CONTEXT.search(text[max(0, s - 40):s]) or _PHONE_CONTEXT.match(text[e:e + 12].lstrip(" -")))
            score = phone_score(text[s:e], context)
            if score:
                out.append(RecognizerResult("PHONE_NUMBER", s, e, score))
        return out


# ---- driver licences -----------------------------------------------------------------------------------

_LICENCE_CONTEXT = re.compile(r"(?i)\b(?:driver'?s?|driving|licen[cs]e|DL|DMV|permit)\b")
_LICENCE = re.compile(r"(?<![\w\-])(?=[A-Z0-9\-]*\d[A-Z0-9\-]*\d)[A-Z0-9](?:[A-Z0-9]|-(?=[A-Z0-9])){4,16}(?![\w\-])")


class ContextLicenceRecognizer(_OneEntityRecognizer):
    """US_DRIVER_LICENSE: an ID of 5-17 letters and digits (at least two digits) only when a licence word
    stands within the 60 characters before it. Without the word, "K2", "p53" or "A120" is a mountain, a
    gene and a model number, and Presidio's context-free patterns redacted them."""

    ENTITY = "US_DRIVER_LICENSE"

    def analyze(self, text, entities, nlp_artifacts=None):
        out = []
        for m in _LICENCE.finditer(text):
            if re.fullmatch(r"\d{3}-\d{2}-\d{4}", m.group(0)):
                continue  # the SSN's own format: the SSN recognizer names it
            if _LICENCE_CONTEXT.search(text[max(0, m.start() - 60):m.start()]):
                out.append(RecognizerResult("US_DRIVER_LICENSE", m.start(), m.end(), 0.8))
        return out


# ---- social-media handles --------------------------------------------------------------------------------

# "@name": not inside an e-mail address ("a@b.org"), not a code decorator or annotation ("@property",
# "@app.route(", "@Override"), a CSS/doc/scoped-package keyword ("@media", "@param", "@types/node") or a
# chat broadcast ("@everyone")
# (Instagram's and TikTok's handles hold dots: "@joaopedro.ferraz"; one that ends in a domain's last part is a
# domain: "@example.com")
# (a one-letter first part before a dot too: "@r.takahashi")
_HANDLE = re.compile(r"(?<![\w.@/\\-])@(?=[\w]*[A-Za-z])((?:\w{2,30}|\w(?=\.\w))"
                     r"(?:\.(?!(?:com|org|net|edu|gov|io|co|uk|de|fr|"
                     r"info|biz|me|app|dev|ai|us|ca|au|in)\b)\w{1,30}){0,2})(?![\w@]|\.\w|/|\()")
# ... and a Reddit user ("u/padraig_mc"; "r/Ireland" is a forum)
_REDDIT_USER = re.compile(r"(?<![\w/])u/([A-Za-z0-9][\w\-]{2,29})\b")
_DECORATOR_LINE = re.compile(r"^[ \t]*\Z")
# ... a decorator's line is followed by code: another decorator, a definition or a signature (a comment section
# prints each commenter's handle alone on its line too, over the comment: "@PetraNovakova\nWatching from Brno")
# (another annotation is alone on its line too, maybe with its arguments: a thread's "@Nkechi_Obi_\n@jonty_wfh same
# here" is two posters)
_CODE_NEXT = re.compile(r"[ \t]*\n[ \t]*(?:@[\w.]+(?:\([^\n]*\))?[ \t]*(?:\n|\Z)|(?:def|class|async|public|private|protected|"
                        r"static|override|fun|function|void|export)\b|[\w<>\[\],]+[ \t]+\w+[ \t]*\()")
# ... and a profile's address on a social or professional site ("linkedin.com/in/teodor-okafor-4411",
# "github.com/sunnivahaugland", "youtube.com/@kwame"): the account's name, often its holder's. Only a profile: a
# repository's or a post's address names a project or a page ("github.com/apache/beam" stays); LinkedIn's path alone
# too, as signatures and farewells give it ("LinkedIn: /in/teodor-okafor")
_PROFILE_URL = re.compile(
    r"(?i)(?:\b(?:https?://)?(?:www\.|m\.)?(?:linkedin\.com/in/|(?:tiktok|youtube|medium|threads)\.(?:com|net)/@|"
    r"youtube\.com/(?:user|c)/|reddit\.com/u(?:ser)?/|(?:github|gitlab|twitter|x|facebook|instagram|vk|t)\.(?:com|me)/)|"
    r"(?<![\w./])/in/)"
    r"([\w.\-]{2,60})(?=/?(?:[\s)\]>,;\"']|\.(?:\s|$)|$))")
# ... and who wrote a forum post or a comment, by the handle the thread prints over or beside it ("Posted by
# quiet_wren_77:", "Reply from PaulFromPortsmouth:", "gooner4life_89 wrote:", "OlafB_1962 • 3h", "dave_from_hull · 2h
# ago"): a handle as accounts write them, with a digit, an underscore or a capital inside ("Support wrote:" stays)
_POSTED_BY = re.compile(r"(?im)(?:\b(?:posted|post|submitted|written|started|comment(?:ed)?|reply|replied|answered|"
                        r"banned|muted|reported|quote)"
                        r"(?:[ \t]+[\d\-/.,: \t]{4,24}?)?[ \t]+(?:by|from):?|\breplying[ \t]+to)[ \t]+@?([^\W\d][\w.\-]{2,30})"
                        r"[ \t]*(?::|[ \t]*$|[ \t]*[|»]|[ \t]+on[ \t]+(?:\w+[ \t]+(?:\w+[ \t]+)?\d|\d))|"
                        # ("#1  Posted 03-02-2023, 09:14 by gareth_w | Hi all", "Reply from: diesel_doc_77 on June 03",
                        # phpBB's "Posted by old_tom_allotments » Sun Jun 08")
                        # (a Nigerian forum's poster with the sex in brackets: "Re: Visa by Ogbeni_Tunde(m): 12:30pm")
                        r"\bby[ \t]+@?([^\W\d][\w.\-]{2,30})\((?:m|f)\):|"
                        # (a reply's header: "Reply — Bethan_Llewellyn:")
                        # (and an original poster's: "OP – simran_k_weds:")
                        r"^[ \t↳>]*(?:reply|comment|answer|op)[ \t]*[—–\-][ \t]*@?([^\W\d][\w.\-]{2,30})[ \t]*:|"
                        # (a reply's line "Re: by kemi_writes", a post's "From: lily.tran.2025" alone on its line, and
                        # the handle in brackets after the poster's name: "Reply from Lou (mrs_to_be_lou):")
                        r"^[ \t]*re:[ \t]+by[ \t]+@?([^\W\d][\w.\-]{2,30})[ \t]*$|"
                        # (phpBB's line under a post's title: "by tommo77 » Sat Mar 15")
                        r"^[ \t]*by[ \t]+@?([^\W\d][\w.\-]{2,30})[ \t]+»|"
                        r"^[ \t]*from:[ \t]*@?([^\W\d][\w.\-]{2,30})[ \t]*$|"
                        r"^[ \t↳>]*(?:\[[\d:. apm]{3,12}\][ \t]*)?"
                        r"(?:(?:reply|comment|answer|posted|post)[ \t]+(?:from|by)[ \t]+)?"
                        r"(?-i:[A-Z][\w'’\-]*)(?:[ \t]+(?-i:[A-Z][\w'’\-]*))?[ \t]+"
                        r"\(@?([^\W\d][\w.\-]{2,30})\)[ \t]*:|"
                        r"^[ \t↳>]*@?([^\W\d][\w.\-]{2,30})[ \t]+(?:wrote|said|posted|commented)[ \t]*:[ \t]*$|"
                        r"^[ \t↳>]*@?([^\W\d][\w.\-]{2,30})[ \t]+[·•|][ \t]+\d{1,3}[ \t]*(?:[smhdwy]|mins?|hours?|days?|"
                        r"weeks?|months?|years?|hrs?)\b(?:[ \t]+ago)?[ \t]*$|"
                        # (a Simple Machines forum's poster on the line over "« on: <date> »" or "« Reply #1 on:")
                        r"^[ \t]*@?([^\W\d][\w.\-]{2,30})[ \t]*\n[ \t]*«[ \t]*(?:reply[ \t]+#\d+[ \t]+)?on:")

# ... and the poster a thread prints by its own layout, where the place alone says it is an account, whatever the
# handle looks like ("mpalmqvist 2 hours ago", "142 points by okwudili_n", "haruto-n opened this issue",
# "dmitri-s commented 2 days ago", "BerylTheBold · Tue 09-Jan-24 21:43"): not a status word standing there ("Edited 2
# hours ago", "Updated 3 days ago")
_THREAD_POSTER = re.compile(
    r"(?im)^[ \t↳>|▲▼]*(?:(?:open|closed|merged)[ \t]*·[ \t]*)?@?([^\W\d][\w.\-]{1,30})[ \t]+(?:"
    r"\d{1,3}[ \t]*(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)[ \t]+ago\b|"
    r"(?:commented|opened[ \t]+this|closed[ \t]+this|reopened[ \t]+this|reviewed|approved[ \t]+these|"
    r"requested[ \t]+changes|merged[ \t]+commit|mentioned[ \t]+this|added[ \t]+(?:\d+[ \t]+)?commits?)\b|"
    r"[·•|][ \t]+(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?[ \t]+)?\d{1,2}[\-/ ](?:\d{1,2}|[a-z]{3}\b|(?:jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)[a-z]{2,6}\b)|"
    # (Mumsnet's and its kind's poster over the post: "CrumpetsAndChaos · Today 09:12")
    r"[·•|][ \t]+(?:today|yesterday)[ \t]+\d{1,2}:\d{2}\b)|"
    r"\b\d+[ \t]+points?[ \t]+by[ \t]+@?([^\W\d][\w.\-]{1,30})")
# ... and a forum's poster over the post, by the date or the count of posts beside it ("santi.gg   Dec 29, 2023 @
# 2:03am", "desert_rose_77 | Posts: 1,204"): a handle as accounts write them ("Deadline   Dec 29, 2023" stays)
_DATED_POSTER = re.compile(r"(?im)^[ \t↳>|▲▼]*@?([^\W\d][\w.\-]{1,30})(?:[ \t]{2,}|[ \t]*[·•|][ \t]*)"
                           r"(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?[ \t]+\d{1,2},[ \t]+\d{4}|"
                           r"\d{1,2}[ \t]+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}[ \t]+\d{4}|"
                           r"posts?:[ \t]*\d)")
_POSTER_STATUS = frozenset("""posted edited updated modified created published sent joined active answered asked
commented replied last seen online submitted uploaded shared deleted closed opened merged reviewed reported saved
started ended pinned viewed read delivered reply comment answer question post thread topic re""".split())
# ... and an account a forum's private message is addressed to, or that a post says to message ("To: marinerKai",
# "PM tariq_eurospares"): a handle as accounts write them (ACCOUNT_LIKE)
_MESSAGED = re.compile(r"(?im)^[ \t]*to:[ \t]*@?([^\W\d][\w.\-]{2,30})[ \t]*$|"
                       r"\b(?-i:PM|DM|pm|dm)[ \t]+@?([^\W\d][\w.\-]{2,30})\b")


def thread_posters(text: str) -> frozenset[str]:
    """The handles a thread prints for its posters by layout alone (_THREAD_POSTER, _DATED_POSTER), and the
    accounts it says to message or addresses a private message to (_MESSAGED)."""
    out = {h for m in _THREAD_POSTER.finditer(text) for h in [(m.group(1) or m.group(2)).rstrip(".-")]
           if h.lower() not in _POSTER_STATUS and h.lower() not in NOT_HANDLES}
    out |= {h for m in _MESSAGED.finditer(text) for h in [(m.group(1) or m.group(2)).rstrip(".-")]
            if _account_like(h) and h.lower() not in NOT_HANDLES}
    out |= {h for m in _DATED_POSTER.finditer(text) for h in [m.group(1).rstrip(".-")]
            if _account_like(h) and h.lower() not in NOT_HANDLES}
    return frozenset(out)


# ... and a gamer's tag with its four digits ("LenaMoreau#4412", Discord's and Battle.net's form), not a ticket's or an
# issue's number ("Issue#1234", "PR#88")
_GAMER_TAG = re.compile(r"(?<![\w#@/.])([A-Za-z][\w.]{1,31}#\d{4})(?![\w#])")
_NOT_TAGS = frozenset("""issue issues pr pull bug bugs ticket tickets item items case order no nr num number id ref room
page step build job task version v item line row col column sheet table fig figure section rule""".split())
# ... and an account a message names in quotes after a word for one ('his username is "bignate_420"', 'Looks like
# "nkruger_99" is also him' after "alt accounts"): a handle as accounts write them (ACCOUNT_LIKE)
_QUOTED_ACCOUNT = re.compile(r"(?i:\b(?:user[ \t]?name|handle|gamertag|gamer[ \t]+tag|account|accounts|alt|alts|ign|"
                             r"screen[ \t]?name|profile|nick(?:name)?|user)\b)[^\"“\n]{0,40}(?:\n[^\"“\n]{0,40})?"
                             r"[\"“']([A-Za-z][\w.\-]{2,30})[\"”']")

# ... and the account a profile's or an application's field gives ("IGN: LupitaMoonfire", "Steam - k_ostrowski88"):
# a handle as accounts write them (ACCOUNT_LIKE)
_ACCOUNT_FIELD = re.compile(r"(?im)^[ \t*\-•]*(?:ign|in-game[ \t]+name|gamer[ \t]?tag|battle[ \t]?tag|riot[ \t]+id|psn|"
                            r"xbox(?:[ \t]+live)?|steam|discord|twitch|user[ \t]?name|handle|insta(?:gram)?|tiktok|"
                            r"snap(?:chat)?)[ \t]*(?:[:=]|[-–][ \t])[ \t]*@?([A-Za-z][\w.\-]{2,30})[ \t]*$|"
                            # (or inside a line, where the field and its account stand apart from the rest: "(raid
                            # lead) – Discord: thornwick_raids", and a system's login with its digit: "user mzhao2")
                            r"\b(?:discord|steam|psn|xbox|twitch|snapchat|insta(?:gram)?|tiktok|ice[ \t]+chat|ib|"
                            r"bloomberg|skype|slack|telegram|signal|wechat|kik|venmo|cash[ \t]?app)[ \t]*:[ \t]*@?"
                            r"([A-Za-z][\w.\-]{2,30})(?=[ \t]*(?:[,;)|]|$))|"
                            r"\b(?:user(?:[ \t]?name)?|login|logon|user[ \t]?id)[ \t]*(?:is[ \t]+)?:?[ \t]*"
                            r"(?-i:([a-z][a-z._\-]{1,20}\d{1,4}))\b|"
                            # (a word for an account, then the account in lower case, digits or none: "username
                            # spark", "Snap handle tbone_mcc07")
                            # ("handle" is a verb too, "can't handle it": only a platform's handle or "handle is")
                            r"\b(?:user[ \t]?name|gamertag|screen[ \t]?name|(?:snap|insta(?:gram)?|ig|twitter|tiktok|"
                            r"discord|telegram)[ \t]+handle|handle(?=[ \t]+is\b))[ \t]+(?:is[ \t]+)?"
                            r"(?!(?:and|or|is|was|the|a|an|field|required|password|of|for|to|in|on|with|here|there)\b)"
                            r"(?-i:([a-z][\w.\-]{2,30}))(?![\w@])")


# ... and a mailbox's login as a mail system writes it: an Exchange recipient's last name part
# ("</O=ACME/OU=NA/CN=RECIPIENTS/CN=OADEYEM>") and an archive's file named by a login with a digit
# ("X-FileName: jpark4.nsf"; pii_rules_mail.archive_header_names takes those of letters alone as names)
_MAIL_ACCOUNT = re.compile(r"(?i)/CN=RECIPIENTS/CN=([A-Za-z][\w.\-]{1,30}?)(?=[>/,;\s]|$)|"
                           r"(?im:^x-filename:[ \t]*([A-Za-z][\w\-]*\d[\w\-]*)(?=[ \t]*(?:\([^)\n]*\))?[ \t]*\.(?:nsf|pst)))")


# A system's or a ticket's field that holds whose account acted, the account alone after it on its line, maybe with
# a bracket ("User: cr1msonv0id (ID: 4471)", "Agent: rdesai", "Assignee: jkowalski"): with a digit, an underscore
# or a capital inside, or in lower case where no dictionary holds it and no mailbox is named so ("Owner: finance",
# "Author: admin" stay)
_ACCOUNT_LABEL = re.compile(r"(?im)^[ \t*\-•]*(?:user|agent|moderator|mod|author|assignee|assigned[ \t]+to|requester|"
                            r"requested[ \t]+by|reporter|reported[ \t]+by|owner|login|account|actor|operator|"
                            # (a directory's login: "Network user ID:   aalhashimi", "Windows login: okafor.c")
                            r"(?:network[ \t]+|windows[ \t]+|ad[ \t]+|domain[ \t]+)?(?:user[ \t]?id|user[ \t]?name|"
                            r"login(?:[ \t]?id)?|logon|account)|network[ \t]+id)[ \t]*:"
                            r"[ \t]*@?([A-Za-z][\w.\-]{2,30})[ \t]*(?:\([^()\n]{0,40}\))?[ \t]*$")


# An Indian payment (UPI) address, a person's account at a bank's or an app's handle, no domain after it
# ("rkumar.trades@okaxis", "9876543210@ybl")
_UPI_ID = re.compile(r"(?<![\w.@])([\w.\-]{3,40}@(?:okaxis|oksbi|okicici|okhdfcbank|ybl|ibl|axl|apl|paytm|upi|ptsbi|"
                     r"pthdfc|ptaxis|ptyes|axisbank|hdfcbank|icici|sbi|kotak|yesbank|freecharge))(?![\w.@])", re.I)


def prints_posters(text: str) -> bool:
    """Whether `text` is a thread that prints its posters' handles (_POSTED_BY) or a chat log whose speakers are
    handles (speaker_handles), or names an account by its gamer's tag, in quotes or in a profile's field: the gate
    before the USERNAME recognizer where no "@" or profile address stands."""
    return _POSTED_BY.search(text) is not None or bool(speaker_handles(text)) or bool(thread_posters(text)) \
        or "#" in text and any(_tag_is_account(m) for m in _GAMER_TAG.finditer(text)) \
        or _QUOTED_ACCOUNT.search(text) is not None \
        or _ACCOUNT_FIELD.search(text) is not None or _MAIL_ACCOUNT.search(text) is not None \
        or _ACCOUNT_LABEL.search(text) is not None or "@" in text and _UPI_ID.search(text) is not None \
        or may_name_accounts(text)


def _account_like(handle: str) -> bool:
    """A handle as accounts write them: a digit, an underscore or a capital inside (ACCOUNT_LIKE), or words joined by
    dots ("jas.and.rav"); not a file's name ("config.yaml", "notes.txt")."""
    return bool(ACCOUNT_LIKE.search(handle)) or bool(_DOTTED_HANDLE.fullmatch(handle)) and handle.rsplit(".", 1)[
        -1].lower() not in FILE_ENDINGS


_DOTTED_HANDLE = re.compile(r"[a-z]+(?:\.[a-z]+)+")


def _tag_is_account(m: re.Match) -> bool:
    return m.group(1).split("#")[0].lower() not in _NOT_TAGS
_NOT_PROFILES = frozenset("""about explore features pricing login signup settings home search help topics trending
marketplace sponsors orgs organizations apps notifications share intent hashtag watch results feed groups pages
events jobs company school messages policies legal privacy terms i""".split())


class HandleRecognizer(_OneEntityRecognizer):
    """USERNAME: an @handle of a social-media or chat account, which names its holder as surely as an
    e-mail address does ("@JessicaLakey"), a profile's address on such a site (_PROFILE_URL) and the handle a
    forum thread prints for each post (_POSTED_BY) or a chat log for each line (speaker_handles), and an account
    written without "@" that is spelled from a person's name, with the other accounts of a text where one is found
    (beam_jobs/pii_accounts.py). Code ("@property" opening a line, "@app.route("), doc tags ("@param") and CSS
    rules ("@media") are left alone."""

    ENTITY = "USERNAME"

    def __init__(self, vocabulary: frozenset[str] = frozenset()):
        super().__init__()
        self.vocabulary = vocabulary

    def analyze(self, text, entities, nlp_artifacts=None):
        is_word = lambda w: in_vocabulary(w, self.vocabulary)  # noqa: E731
        out = [RecognizerResult("USERNAME", s, e, 0.85) for s, e in named_accounts(text, is_word)]
        for m in _HANDLE.finditer(text):
            name = m.group(1)
            if name.lower() in NOT_HANDLES:
                continue
            line_start = text.rfind("\n", 0, m.start()) + 1
            line_end = text.find("\n", m.end())
            rest = text[m.end():len(text) if line_end < 0 else line_end]
            if _DECORATOR_LINE.match(text[line_start:m.start()]) and not rest.strip() and (
                    line_end < 0 or not text[line_end:].strip() or _CODE_NEXT.match(text, line_end)):
                continue  # "@Override" / "@Test" alone on its line over code (or ending the text): an annotation
            out.append(RecognizerResult("USERNAME", m.start(), m.end(), 0.85))
        out += [RecognizerResult("USERNAME", m.start(1), m.end(1), 0.85) for m in _REDDIT_USER.finditer(text)]
        out += [RecognizerResult("USERNAME", m.start(1), m.end(1), 0.85) for m in _PROFILE_URL.finditer(text)
                if m.group(1).lower().rstrip(".") not in _NOT_PROFILES]
        out += [RecognizerResult("USERNAME", m.start(m.lastindex), m.end(m.lastindex), 0.85)
                for m in _POSTED_BY.finditer(text)
                if _account_like(m.group(m.lastindex)) or m.group(0).rstrip().endswith("»")  # ("Post by tedwis »")
                or re.search(r"\((?:m|f)\):\Z", m.group(0))]  # ("by sweetmoi(f):": the forum prints accounts so)
        out += [RecognizerResult("USERNAME", m.start(1), m.end(1), 0.85) for m in _UPI_ID.finditer(text)]
        out += [RecognizerResult("USERNAME", m.start(1), m.end(1), 0.85) for m in _ACCOUNT_LABEL.finditer(text)
                if (ACCOUNT_LIKE.search(m.group(1)) or m.group(1).islower() and not is_word(m.group(1)))
                and m.group(1).lower() not in NOT_HANDLES and m.group(1).lower() not in MAILBOX_WORDS]
        out += [RecognizerResult("USERNAME", m.start(1), m.end(1), 0.85) for m in _GAMER_TAG.finditer(text)
                if _tag_is_account(m)]
        out += [RecognizerResult("USERNAME", m.start(1), m.end(1), 0.85) for m in _QUOTED_ACCOUNT.finditer(text)
                if ACCOUNT_LIKE.search(m.group(1)) and m.group(1).lower() not in NOT_HANDLES]
        # (after "username" or "handle" any word is the account: "username spark")
        out += [RecognizerResult("USERNAME", m.start(m.lastindex), m.end(m.lastindex), 0.85)
                for m in _ACCOUNT_FIELD.finditer(text)
                if (ACCOUNT_LIKE.search(m.group(m.lastindex)) or m.lastindex == _ACCOUNT_FIELD.groups)
                and m.group(m.lastindex).lower() not in NOT_HANDLES]
        out += [RecognizerResult("USERNAME", m.start(m.lastindex), m.end(m.lastindex), 0.85)
                for m in _MAIL_ACCOUNT.finditer(text)]
        for handle in speaker_handles(text) | thread_posters(text):  # wherever the log writes the speaker's handle
            out += [RecognizerResult("USERNAME", m.start(), m.end(), 0.85)
                    for m in re.finditer(rf"(?<![\w.@\-]){re.escape(handle)}(?![\w\-]|\.\w)", text)]
        if out:  # (where one account is found, the text's other words written as accounts are accounts too)
            out += [RecognizerResult("USERNAME", s, e, 0.85) for s, e in fellow_accounts(text, is_word)]
        return out
