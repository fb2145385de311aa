"""The PII filter's recognizers for structured types, declared once as a table a reviewer can read: each
entry's type, how it finds a span, its context words, its validator, and examples of our own that it must
find (tests/test_pii.py runs every example through the whole filter). `build_analyzer` in beam_jobs/pii.py
registers exactly these, in place of Presidio's own for the same types; the names go through
beam_jobs/pii_names.py, pii_name_rules.py and the shipped model, declared in their own table.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Recognizer:
    entity: str
    finds: str             # how it finds a span
    context: str           # the words near it that it needs, or that raise its score
    validator: str         # what a candidate must pass
    build: Callable        # () -> a presidio EntityRecognizer (vocabulary given where it takes one)
    replaces: str | None   # the Presidio recognizer it stands in for, by class name
    examples: tuple        # ((text, value that must not survive), ...)


def _presidio(cls_name: str) -> Callable:
    def build(vocabulary=frozenset()):
        from presidio_analyzer import predefined_recognizers
        return getattr(predefined_recognizers, cls_name)()
    build.predefined = True   # Presidio's registry loads it already
    return build


def _card(vocabulary=frozenset()):
    """Presidio's credit-card recognizer (Luhn-checked) plus plain 12-19 digit runs, which its grouped
    patterns miss (19-digit Visa, 12-digit Maestro)."""
    from presidio_analyzer import Pattern
    from presidio_analyzer.predefined_recognizers import CreditCardRecognizer
    patterns = list(CreditCardRecognizer.PATTERNS) + [Pattern("card digits (weak)", r"\b\d{12,19}\b", 0.3)]
    return CreditCardRecognizer(patterns=patterns)


def _phone(vocabulary=frozenset()):
    from beam_jobs.pii_patterns import AnyRegionPhoneRecognizer
    return AnyRegionPhoneRecognizer()


def _licence(vocabulary=frozenset()):
    from beam_jobs.pii_patterns import ContextLicenceRecognizer
    return ContextLicenceRecognizer()


def _handle(vocabulary=frozenset()):
    from beam_jobs.pii_patterns import HandleRecognizer
    return HandleRecognizer(vocabulary)


def _labelled_ids(vocabulary=frozenset()):
    from beam_jobs.pii_identifiers import recognizers
    return recognizers()[0]


def _birth_dates(vocabulary=frozenset()):
    from beam_jobs.pii_identifiers import recognizers
    return recognizers()[1]


def _address(vocabulary=frozenset()):
    from beam_jobs.pii_patterns import InternationalAddressRecognizer
    return InternationalAddressRecognizer(vocabulary)


RECOGNIZERS: tuple[Recognizer, ...] = (
    Recognizer("EMAIL_ADDRESS", "Presidio's e-mail pattern", "email (raises the score)", "a valid domain (tldextract, offline)",
               _presidio("EmailRecognizer"), None, (("write to k.oyelaran@example.org today", "k.oyelaran@example.org"),)),
    Recognizer("CREDIT_CARD", "Presidio's grouped card patterns plus plain 12-19 digit runs", "credit, card, visa, amex ...",
               "Luhn checksum", _card, "CreditCardRecognizer", (("card 4111 1111 1111 1111 exp 09/29", "4111 1111 1111 1111"),)),
    Recognizer("IBAN_CODE", "Presidio's IBAN pattern", "iban, bank, transaction", "IBAN mod-97 checksum",
               _presidio("IbanRecognizer"), None, (("pay to GB82 WEST 1234 5698 7654 32 please", "GB82 WEST 1234 5698 7654 32"),)),
    Recognizer("US_SSN", "Presidio's SSN patterns", "social, security, ssn", "no all-zero group, no known fake",
               _presidio("UsSsnRecognizer"), None, (("my ssn is 536-90-4399", "536-90-4399"),)),
    Recognizer("IP_ADDRESS", "Presidio's IPv4 and IPv6 patterns", "ip, ipv4, ipv6", "ipaddress parses it",
               _presidio("IpRecognizer"), None, (("the server at 192.168.14.7 is down", "192.168.14.7"),)),
    Recognizer("PHONE_NUMBER", "candidate digit runs of any region (pii_patterns.phone_score)",
               "call, phone, mobile, tel, fax, whatsapp ... within 40 characters before it",
               "phonenumbers: valid in some region; never a price, year, date, time or list of small numbers",
               _phone, "PhoneRecognizer", (("call me on +44 20 7946 0958 tonight", "+44 20 7946 0958"),
                                           ("my mobile is (415) 555-2671", "555-2671"))),
    Recognizer("US_DRIVER_LICENSE", "an ID of 5-17 letters and digits", "driver, licence, license, DL, DMV, permit within 60 characters before it",
               "holds two digits; not SSN-shaped", _licence, "UsLicenseRecognizer",
               (("my driver's license number is D6101-40706-60905", "D6101-40706-60905"),)),
    Recognizer("USERNAME", "an @handle of 2-30 letters, digits and underscores (and dots, not ending in a domain's "
               "last part), not inside an e-mail address; a Reddit user after 'u/'; "
               "the account in a profile's address on a social or professional site (not a repository's or a post's); "
               "the handles a thread or a chat log prints for its posters and speakers; a gamer's tag ('Name#1234', "
               "not an issue's number); an account named in quotes after 'username', 'handle', 'alt'",
               "none", "not a decorator or annotation alone on its line, not followed by '.', '/' or '(' (code, "
               "domains, scoped packages), not a doc or CSS keyword (@param, @media)", _handle, None,
               (("@JessicaLakey Jess, will you pack sandwiches?", "@JessicaLakey"),
                ("thanks to @kwame_osei_92 for the tip", "@kwame_osei_92"),
                ("3 years ago today I met @joaopedro.ferraz at a bus stop", "@joaopedro.ferraz"),
                ("Thanks u/MargaretH_1961 for the advice", "MargaretH_1961"),
                ('"Bin charges again" — started by CarysJ\n\nAnyone else?', "CarysJ"),
                ("Reply — Bethan_Llewellyn:\nYes, go to the head.", "Bethan_Llewellyn"),
                ("try pinging @hannah.w she was looking for a group", "@hannah.w"),
                ("2,318 Comments\n\n@PetraNovakova\nWatching from Brno.", "@PetraNovakova"),
                ("@kemi_adeyemi\n@BroadbandCo 3rd week with no internet.", "@kemi_adeyemi"),  # (no annotation)
                ("hiii and hi Oleksandr!!\n** tomas_k_88 gifted 5 subs to the community! **\nKaiaPlays: omg", "tomas_k_88"),
                # (a comment section prints each author alone over the comment, two or more)
                ("Sort by: Top\n\nGrahamTheGardener\nAbsolute joke. Where do they think people will park?\n\n"
                 "beverley_m_1958\nMy late husband drove the number 7 for years.", "GrahamTheGardener"),
                ("#1  Posted 03-02-2023, 09:14 by gareth_w | Hi all", "gareth_w"),
                ("my profile: https://www.linkedin.com/in/teodor-okafor-4411", "teodor-okafor-4411"),
                ("code at github.com/sunnivahaugland.", "sunnivahaugland"),
                ("Re: plot 14\nPosted by old_tom_allotments » Sun Jun 08, 2025 9:41 am", "old_tom_allotments"),
                ("[Server] daisy_ng joined the game\n<TheRealHarrison> hey\n<daisy_ng> hiii", "TheRealHarrison"),
                ("need 1 for ranked\nme!! add LenaMoreau#4412", "LenaMoreau#4412"),
                ('his username is "bignate_420" but IRL he is', "bignate_420"),
                ("Application: ranger\nIGN: TorvaldSkyhammer\nClass: hunter", "TorvaldSkyhammer"),
                # (a thread's layout alone: a news aggregator's, a code host's, a parenting forum's)
                ("Show: a bird feeder cam\n88 points by rkn_lab 4 hours ago | 31 comments", "rkn_lab"),
                ("  ewa-kos 2 hours ago\n  Nice work, I built the same.", "ewa-kos"),
                ("Open · kenji-w opened this issue 2 days ago · 3 comments", "kenji-w"),
                ("PlumJamTuesday · Mon 12-Feb-24 08:02\nYANBU, she was rude.", "PlumJamTuesday"),
                ("Private message\nTo: harbourKai\nSent: Mar 2", "harbourKai"),
                ("PM wheels_by_wojtek, he has the part", "wheels_by_wojtek"),
                ("Posted by: hilux_dan\nReply from: diesel_doc_77 on June 03, 2024, 10:02:11 AM", "diesel_doc_77"),
                ("Re: Study visa by Baba_Kay(m): 9:40am On May 02", "Baba_Kay"),
                ("▲ 88  u/definitely_not_a_plumber_uk • 2h", "definitely_not_a_plumber_uk"),
                ('[Market] SCAM REPORT - user "xX_n1ghtowl"', "xX_n1ghtowl"),
                ("yesterday @k.ostrowska merged #881 without review", "@k.ostrowska"),
                ("09:10 < ade_o> anyone up\n09:11 < mirela_v> yes\n09:12 < ade_o> build broke", "mirela_v"),
                ("[mod_tomasz] reduce to 7 days\n[admin_femi] agreed\n[mod_tomasz] done", "mod_tomasz"),
                ("1:02:15 zr0_k: that flick\n1:02:16 lenka_b: clip it\n1:02:20 zr0_k: gg", "lenka_b"),
                ("• Ana Ruiz (healer) – Discord: moss_and_ember\n• Tom", "moss_and_ember"),
                ("Subject: RE: access locked - user tkarimi3", "tkarimi3"),
                ("Sunny Baker (AP team, username spark) noticed it", "spark"),
                ("Mobile: +44 7700 900123\nICE CHAT: dvolkov_arc", "dvolkov_arc"),
                ("Thread\n\nCrumpetsAndChaos · Today 09:12\nDH's friend is staying", "CrumpetsAndChaos"),
                ("Post by tedwis » Sat Mar 02, 2024 9:41 pm", "tedwis"),
                ("Quote from: bavarian_bob on Sat Mar 02, 2024 8:14 pm", "bavarian_bob"))),
    Recognizer("STREET_ADDRESS", "street lines of English and continental forms, units, PO boxes, military forms, then "
               "their city/postcode/country lines (pii_patterns.address_spans, named_streets)",
               "address cues ('lives at', 'address:') extend to the clause's end",
               "a number and a capitalised street word or name; never across a sentence end, never a date",
               _address, None, (("She lives at 22 Pollen Crescent, Toronto", "22 Pollen Crescent"),
                                ("Our office: ul. Narewska 94, Apt. 478, Poznań", "Narewska 94"),
                                # (a home's street without its number, as reports and news give it)
                                ("Sam Cole, 41, of Brenton Road, admitted fraud.", "Brenton Road"),
                                ("I have lived on Greystone Road for 23 years", "Greystone Road"),
                                # (a British postcode inside a line; a street typed in lower case)
                                ("summer x, 55 hollybush lane, harrogate HG3 2PR, call me", "HG3 2PR"),
                                ("[14:06] Ana: Ana Ruiz, 9 kestrel close\n[14:07] Bo: thanks", "9 kestrel close"),
                                ("YOURS SINCERELY\nMRS ANA RUIZ\n14 BRAMBLE CLOSE", "14 BRAMBLE CLOSE"),
                                ("Ana Ruiz\n42 Elm Road\nToronto, ON M2N 5W9", "M2N 5W9"),
                                ("CHAIR - MRS RUIZ, FLAT 3\nSECRETARY - MR LI, FLAT 27", "FLAT 27"))),
    Recognizer("ID_NUMBER", "an identifier of 3+ digits (letters, '/', '-', '.' inside; a list of them) after a label "
               "of a person's record: case, application, hospital, NHS, employee, account, policy, claim, tenancy, "
               "national ID and tax numbers, references, vehicle registrations (beam_jobs/pii_identifiers.LABELS, "
               "each label with its own examples); also an IBAN after 'IBAN' without its checksum, and an "
               "extension after 'ext'", "the label right before it ('Case No:', 'MRN', 'ref', 'Employee ID')",
               "not a year, a date, a quantity; after a label that is also an ordinary word ('case', 'order') "
               "with no 'no.', '#', 'ref' or ':' only letters with digits or digits split by '/' or '-'",
               _labelled_ids, None, (("the applicant (application no. 48213/19) was detained", "48213/19"),
                                     ("Bed 4 - Mr Adebayo, 71, MRN 30447129, post op day 2", "30447129"),
                                     ("Employee no.: 0051839", "0051839"),
                                     ("Vehicle registration: KM21 WFX", "KM21 WFX"))),
    Recognizer("DATE_OF_BIRTH", "a date after a birth label ('DOB', 'date of birth', 'Geburtsdatum': down to month and "
               "year) or after 'born' ('born on 14 March 1983': a full date only), or before 'geboren'/'born'",
               "the label", "a date of one of the written forms", _birth_dates, None,
               (("Patient: Mr Ilie, DOB: 02/06/1944, Room 7", "02/06/1944"),
                ("the applicant, who was born on 14 March 1983, lives in", "14 March 1983"))),
)


def register(registry, vocabulary: frozenset[str], language: str = "en") -> None:
    """Put the table's recognizers into a Presidio registry, removing the ones they replace."""
    for r in RECOGNIZERS:
        if r.replaces:
            registry.remove_recognizer(r.replaces, language=language)
        if not getattr(r.build, "predefined", False):
            registry.add_recognizer(r.build(vocabulary))
