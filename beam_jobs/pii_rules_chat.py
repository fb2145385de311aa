"""Name-finding rules for chat, messages and records: chat speakers, who was called, reached or stands beside
"me", nicknames, record fields ("first_name: ...") and table columns of people. Their examples are in
beam_jobs/pii_name_rules.py's table, which runs them on every text.
"""
from __future__ import annotations

import collections
import re
from functools import lru_cache

from beam_jobs.pii_words import (CARE_ROLES, ENGLISH_LOCALES, ENGLISH_NICKNAMES, LINE_LABELS, MONTHS, NEVER_A_NAME,
                                 NOT_HANDLES,
                                 NOTE_LABELS, NOT_ADDRESSED, NOT_INITIALS, PERSON_HEADINGS, PERSON_HEADING_PHRASES, WEEKDAYS, country_names,
                                 given_names, in_name_lists,
                                 VITAL_SIGNS, place_names, surnames, trie_alternation)
from beam_jobs.pii_rules_common import (ANYWORD, CAPWORD, CONTRACTION, HONORIFIC_SUFFIX, INITIAL, INITIALS_RUN, KIN_SET,
                                        MODALS, POSSESSIVE, STOP_WORDS, UPPER, WORD_START, is_function_word,
                                        lower_given_name)

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
    r"touch(?:ed)?[ \t]+base|follow(?:ed)?[ \t]+up)[ \t]+(?:to|with|w/)|(?:cover(?:s|ed|ing)?|fill(?:s|ed|ing)?[ \t]+in)[ \t]+for|"
    r"(?:forward(?:ed)?|send|sent|give|gave|pass(?:ed)?|hand(?:ed)?|route(?:d)?)"
    r"(?:[ \t]+(?:it|this|that|them|these|those|report|handover|handoff|over))?"  # ("gave report to grace")
    r"[ \t]+to)[ \t]+([a-z][a-z'’\-]+)(?:[ \t]+(?:and|&)[ \t]+([a-z][a-z'’\-]+))?"
    r"(?=[ \t]*(?:[.,;:!?)\n]|$|(?i:about|re|on|if|whether|know|for|tomorrow|today|tonight|when|before|after|asap|"
    r"first|too|also|directly|or|and|this|again|back|yet|yesterday|i|to)\b))")


# ... and a capitalised given name so reached, dictionary word or not ("tell Will he owes", "ask for Mo!!"); after
# "tell", "ask" or "let" no modal can stand
_REACHED_CAPITALISED = re.compile(rf"\b(?i:tell|ask(?:[ \t]+for)?|let|ping|remind|text|thank|call|page|rsvp[ \t]+to|rang|phoned|"
                                  rf"(?:copy|copies|it|this|that|them|original|cheque|check|form|file)[ \t]+to|"
                                  # (a shift handed over: "Handed to Vusi 19:45", "handing over to Precious at 8")
                                  rf"hand(?:s|ed|ing)?(?:[ \t]+(?:over|report|keys))?[ \t]+to)[ \t]+({CAPWORD})"
                                  rf"(?:[ \t]({CAPWORD}))?"  # ... and the surname after it ("Call Grant Young re:")
                                  rf"(?:[ \t]+(?:and|&)[ \t]+({CAPWORD}))?"  # ... or another ("Tell Bubba and Joost")
                                  r"(?=[ \t]*(?:[.,;:!?()\n]|$|(?i:he|she|they|i|to|about|if|whether|know|that|from|"
                                  r"at|in|on|by|for|re)\b|\d{1,2}[:.]?\d{2}\b))")


# ... and, the clause going on, after a verb that takes only a person ("tell rusty we need the desk", "thanks grant
# for", "ping sunny about")
_ADDRESSED_LOWER = re.compile(r"(?<![\w'’\-])(?:tell|ask|ping|cc|thank|thanks|thx|call|email|e-mail|text|page|remind)"
                              r"[ \t]+([a-z][a-z'’\-]{2,})(?![\w'’\-])")


# ... and the one whose words or wishes a message passes on, or who is away, a given name opening its clause in
# lower case ("buck says we're long", "sandy wants the p&l by 5", "so moss said", "before noon, grace wants", "hope
# is out tomorrow"): a sentence of cased text never opens in lower case, so only a message typed in lower case has
# such a clause
_LOWER_SUBJECT = re.compile(r"(?:(?<=\A)|(?<=\n)|(?<=[.!?;:,][ \t])|(?<=[.!?;:][ \t]{2})|(?<=[ \t][-–][ \t])|"
                            r"(?<=\band[ \t])|(?<=\bbut[ \t])|(?<=\bso[ \t])|(?<=\balso[ \t])|(?<=\bthat[ \t])|"
                            r"(?<=\bcause[ \t])|(?<=\bsince[ \t])|(?<=\bbecause[ \t])|(?<=\bunless[ \t]))"
                            r"([a-z][a-z'’\-]+)[ \t]+(?:says|said|wants|wanted|thinks|thought|needs|needed|asked|asks|"
                            r"told|tells|mentioned|confirmed|agreed|promised|emailed|is[ \t]+out|will[ \t]+be[ \t]+out|"
                            r"is[ \t]+off|is[ \t]+covering|is[ \t]+on[ \t]+vacation|is[ \t]+back|signed[ \t]+off)\b")

# ... or who a message asks about, the name ending the question ("who is drew", "who's sunny?"); a pattern apart from
# _REACHED, whose matches would else swallow the verb after "who is" ("who is covering for drew")
_ASKED_ABOUT = re.compile(r"\b(?i:who(?:[ \t]+(?:is|was)|['’]?s))[ \t]+([a-z][a-z'’\-]+)(?=[ \t]*(?:[.,;:!?)\n]|$))")


def _reached_names(text: str, is_word) -> list[tuple[int, int]]:
    """The lower-case given names of the English lists that a message asks to reach or says it reached
    (_REACHED, _ADDRESSED_LOWER), dictionary words too ("mark", "bill", "frank"); never a modal, a month or a
    function word ("forward to june", "call will be at 3")."""
    names, out = given_names(ENGLISH_LOCALES), []
    out += [m.span(1) for pattern in (_ADDRESSED_LOWER, _ASKED_ABOUT) for m in pattern.finditer(text)
            if m.group(1).capitalize() in names and m.group(1) not in STOP_WORDS and m.group(1) not in MODALS
            and m.group(1) not in MONTHS]
    for m in _REACHED.finditer(text):
        for g in (1, 2):
            w = m.group(g)
            if not w:
                continue
            bare = POSSESSIVE.sub("", w)
            if bare.capitalize() not in names or bare in MODALS or bare in MONTHS \
                    or is_function_word(bare) or bare in NOT_ADDRESSED or CONTRACTION.search(w):
                break
            out.append((m.start(g), m.start(g) + len(bare)))
    out += [m.span(1) for m in _LOWER_SUBJECT.finditer(text) if lower_given_name(m.group(1))]
    for m in _REACHED_CAPITALISED.finditer(text):
        w = POSSESSIVE.sub("", m.group(1))
        last = POSSESSIVE.sub("", m.group(2)) if m.group(2) else None
        if last and w in given_names() and last in surnames() and last not in place_names():
            out.append((m.start(1), m.start(2) + len(last)))  # "RSVP to April Summers": a month, yet a whole name
        elif not last and (in_name_lists(w) or m.group(0)[:4].lower() == "hand" and not is_word(w)) \
                and w.lower() not in MONTHS and w not in place_names() \
                and w not in country_names() and (not is_function_word(w) or w.lower() in MODALS):
            out.append((m.start(1), m.start(1) + len(w)))  # "tell Will he": no modal after "tell"
            other = m.group(3) and POSSESSIVE.sub("", m.group(3))
            if other and (in_name_lists(other) or not is_word(other)) and other not in place_names():
                out.append((m.start(3), m.start(3) + len(other)))
    return out


def contacted_names(text: str, is_word) -> list[tuple[int, int]]:
    """A given name of the English-speaking lists in lower case after a verb of getting in touch ("called
    anna", "paged rose"), dictionary word or not: what follows such a verb is a person or nothing; and one
    in any case that got in touch, a message's news ("FYI - Marguerite called.", "Anselm phoned twice"; a
    company calls too, so only a given name of the lists, never a country's: "Jordan called on")."""
    names = given_names(ENGLISH_LOCALES)
    return [(m.start(1), m.end(1)) for m in _CONTACTED.finditer(text)
            if m.group(1).capitalize() in names and not is_function_word(m.group(1))
            and m.group(1) not in NOT_ADDRESSED and not CONTRACTION.search(m.group(1))] + \
        [(m.start(1), m.end(1)) for m in _GOT_IN_TOUCH.finditer(text)
         if m.group(1).capitalize() in names and m.group(1).lower() not in MODALS
         and not is_function_word(m.group(1)) and m.group(1).capitalize() not in country_names()] + \
        _reached_names(text, is_word)


# A nickname in quotes: inside a name ('Ernesto "El Chato" Morales', "Mr Ostap 'Ostik' Hlynka") the whole of
# it, or in brackets right after one ("conceicao ('sao')", '(prefers "Lily")', "(Danny)"), or what somebody is
# called ('family calls him "Fez"'; "known as" only where a person stands before it: things are known as something
# too, "cracks known as 'grikes'")
_QUOTED = r"[\"“'‘]([^\W\d_][\w'’\-]*(?:[ \t]+[^\W\d_][\w'’\-]*)?)[.,!]?[\"”'’]"  # ('calls her "the Wizard."')
# (inside a name the nickname may be a phrase of up to four words: 'Ikemefuna "Ike the Spike" Obi')
_QUOTED_PHRASE = r"[\"“'‘]([^\W\d_][\w'’\-]*(?:[ \t]+[^\W\d_][\w'’\-]*){0,3})[\"”'’]"
_NICKNAMED = re.compile(rf"(?<![\w'’\-])({CAPWORD})[ \t]+{_QUOTED_PHRASE}[ \t]+"
                        rf"((?:(?:de|van|von|der|den|da|dos|du|le|la|al|el)[ \t]+)*{CAPWORD})")
# ... or before the surname alone, as a list writes a colleague ('Confirmed: Bill Tsang, "Skip" Danvers', a
# pairing's '/ "Doc" Abernethy /', a line-up's '5. "Tank" Pulaski C', a table's cell after dot leaders or a column's
# gap: 'Spain ........ "Del" Okonkwo', a thanks's 'To "Mo" Adeyemi and Kit - save me a seat')
_NICKNAME_SURNAME = re.compile(rf"(?:^(?:[ \t]*\d{{1,2}}[.)])?|(?<=[,;:(/|])|(?<=\band)|(?<=\.\.)|(?<=…)|(?<=[ \t][ \t])|"
                               rf"(?<=\b[Tt]o)|(?<=\bwith)|(?<=\bfrom)|(?<=\bfor))[ \t]*[\"“]([A-Z][\w'’\-]*(?:[ \t][A-Z][\w'’\-]*)?)[\"”][ \t]+"
                               rf"({CAPWORD})(?![\w'’\-])",
                               re.MULTILINE)
_NICKNAME_AFTER = re.compile(rf"(?<![\w'’\-])({ANYWORD})[ \t]+\([ \t]*((?i:prefers|goes[ \t]+by|aka|a\.k\.a\.|"
                             rf"known(?:[ \t]+to[ \t]+[\w'’]+(?:[ \t]+[\w'’]+)?)?[ \t]+as|called|pref\.?)[ \t]+)?(?:{_QUOTED}|({CAPWORD}))[ \t]*\)")
_SURNAME_NEXT = re.compile(rf"[ \t]+({CAPWORD})(?![\w'’\-]|\.[ \t]?\d)")  # not a number's "No." ("Slp (Civil) Nos.2033")
_QUOTED_IN_BRACKETS = re.compile(rf"\([ \t]*(?:{CAPWORD},[ \t]*)?{_QUOTED}(?:[ \t]+(?:per|says|to)[ \t]+[^)\n]{{1,20}})?[ \t]*\)")
_CALLED = re.compile(rf"(?i:\b(?:call(?:s|ed)?[ \t]+(?:him|her)(?:self)?|nicknamed|goes[ \t]+by|nom[ \t]+de[ \t]+guerre|"
                     rf"(?:prefers|likes|wants|asks|asked)[ \t]+to[ \t]+be[ \t]+called|prefers|"
                     rf"(?:gave|gives|giving|given)[ \t]+(?:the[ \t]+|her[ \t]+|his[ \t]+|a[ \t]+)?name(?:[ \t]+as)?|"
                     rf"(?:identified|introduced)[ \t]+(?:him|her)self[ \t]+as|nam(?:ed|ing)[ \t]+(?:him|her|the[ \t]+baby)|"
                     rf"(?:we|I)(?:[ \t]+(?:will|shall|have)|['’]ll)[ \t]+(?:call(?:ed)?|refer(?:red)?[ \t]+to)"
                     rf"(?:[ \t]+(?:him|her|them))?(?:[ \t]+as)?|"
                     # (a contact saved on a phone, a resident who answers to a name: 'saved as "Tiny"',
                     # 'Responds to "Des"')
                     rf"saved[ \t]+(?:in[ \t]+(?:his|her|their|the)[ \t]+phone[ \t]+)?as|(?:responds|answers)[ \t]+to|"
                     rf"alias|(?:man|woman|person|boy|girl|guy|lady|someone|somebody|individual|male|female|suspect)"
                     rf"[ \t]+(?:named|called)))[ \t]+{_QUOTED}")
# ... or, in chat and notes, without quotes: a capitalised word after "calls me", "call him", "goes by" ("everyone
# calls me Inky", "pls call him Angel")
_CALLED_BARE = re.compile(rf"(?i:\b(?:call(?:s|ed)?[ \t]+(?:me|him|her)|goes[ \t]+by|nicknamed|my[ \t]+nickname[ \t]+is))"
                          rf"[ \t]+({CAPWORD})(?![\w'’\-])")
# ... and a person a judgment names in quotes after "one" ('together with one "Baba Ijebu"'), or after a name and
# a comma ('Mr Costel Bălan, known as "Ţiganu"', 'Quintero Salcedo, 46, known as "El Flaco"', 'Ruiz, known on tour
# as "El Toro"', 'a fourth suspect, identified only as "Scorpion"': _KNOWN_AS)
_ONE_QUOTED = re.compile(rf"\b(?:[Oo]ne|a[ \t]+certain)[ \t]+[\"“]({CAPWORD}(?:[ \t]+{CAPWORD}){{0,2}})[\"”]")
_NAME_KNOWN_AS = re.compile(rf"(?<![\w'’\-])({CAPWORD}),[ \t]+(?:(?:also|better|commonly|locally|widely)[ \t]+)?"
                            rf"(?:known|referred[ \t]+to)(?:[ \t]+(?:to|among|by)[ \t]+[\w'’ \t]{{1,25}}?)?[ \t]+as[ \t]+[\"“']({CAPWORD}(?:[ \t]+[\w'’\-]+){{0,2}})[,.]?[\"”']")
# ... and what a person is known as or dubbed, with a person named or meant just before ('a man known as "Smiler"',
# 'Cheung, 68, known in the local press as "Big Kei"', 'whom the press dubbed "Ivo the Terrible"')
_KNOWN_AS = re.compile(rf"(?i:(?:\b(?:man|woman|boy|girl|he|she|who|whom|himself|herself|commander|leader|boss|enforcer|"
                       rf"gunman|killer|robber|fighter|player|striker|boxer|rider|singer|rapper|soldier|guard|warder|"
                       rf"officer|inmate|prisoner|detainee|conscript|sergeant|informant|agent|smuggler|dealer|"
                       rf"neighbou?r|cousin|friend|colleague|driver|brother|sister|son|daughter|suspect|attacker|appellant|applicant|"
                       rf"respondent|defendant|claimant|complainant|accused|deceased|child|mother|father|patient|pupil|"
                       rf"assailant|accomplice|victim)s?\b|\b\d{{1,3}},|(?-i:\b[A-Z][a-z'’\-]+),)[^.!?\n]{{0,40}}?"
                       rf"\b(?:(?:known|referred[ \t]+to|identified(?:[ \t]+only)?)(?:[ \t]+(?:on[ \t]+the[ \t]+street|"
                       rf"on[ \t]+(?:tour|the[ \t]+circuit)|locally|(?:to|among|at|by)[ \t]+[\w'’ \t]{{1,40}}?|in[ \t]+"
                       rf"[\w \t]{{1,25}}?))?[ \t]+as|dubbed))[ \t]+(?-i:[\"“'‘]((?!(?i:the|a|an)\b)[A-Z][\w'’\-]*"
                       rf"(?:[ \t]+[\w'’\-]+){{0,2}})[,.]?[\"”'’])")  # (American quotes take the comma in: '"Bird,"')

# ... and whom somebody knew only by a name in quotes, or the name a person writes under ('one of whom he knew only
# as "Bato"', 'a blog under the pseudonym "pasha_ural"')
_KNEW_AS = re.compile(r"(?i:\bkn(?:ew|ow)[ \t]+(?:(?:him|her|them)[ \t]+)?(?:(?:only|by[ \t]+sight)[ \t]+)?as|"
                      r"\((?:also[ \t]+|better[ \t]+)?known[ \t]+(?:only[ \t]+)?as|\bknown[ \t]+only[ \t]+as|\bunder[ \t]+the[ \t]+"
                      r"(?:pseudonym|nickname|alias|user[ \t]?name|screen[ \t]+name|handle|pen[ \t]+name|name)|"
                      # ... or whom a witness identifies so, one of a group the others call so, whose name an ID bore
                      # ('whom she identifies as "Gia"', 'one of them, called "Crni" by the others', 'an ID in the name
                      # of "Tural"')
                      r"\bidentif(?:y|ies|ied)[ \t]+(?:(?:him|her|them)[ \t]+)?as|"
                      # (... or whom the others addressed so: 'an officer, whom the others addressed as "Cemo"')
                      r"\baddress(?:es|ed)?[ \t]+(?:(?:him|her|them)[ \t]+)?as|"
                      r"\b(?:him|her|them|one|man|woman|officer|guard|guy),?[ \t]+called|"
                      r"\b(?:ID|card|passport|badge|document)[ \t]+in[ \t]+the[ \t]+name[ \t]+of|"
                      # (... or whom people call so: 'a young man everyone calls "Dodge," organized it')
                      r"\b(?:everyone|everybody|people|we|they|friends|locals|the[ \t]+(?:kids|lads|girls|boys|others|"
                      r"staff|regulars|residents))[ \t]+call(?:s|ed)?|\b(?:he|she|i|you)[ \t]+calls?|\bcall(?:s|ed)?[ \t]+(?:him|her|them)|"
                      # (... or whom the text knows so: 'known to him and to everybody else as "Bones"', 'a man he would
                      # only name as "Tank"')
                      r"\bknown[ \t]+to[ \t]+(?:him|her|them|me|us|everyone|everybody|all|friends|family|his|their|"
                      r"locals|the[ \t]+\w+)\b[^\n\"“.]{0,30}?[ \t]+as|\bonly[ \t]+name[ \t]+(?:(?:him|her)[ \t]+)?as|"
                      r"\bname[ \t]+(?:him|her)[ \t]+as)"
                      r"[ \t]+[\"“'‘]((?!(?i:the|a|an)\b)[^\W\d][\w.'’\-]*(?:[ \t]+[\w'’\-]+){0,2}),?[\"”'’]")
# ... and a name in quotes whose surname the text says it lacks ('"Tyrese" (surname unknown)'), or in quotes right
# before the person's full name or with it in brackets ('last year\'s winner "Mountain Goat" Gareth Price', 'asked
# about "Little D" (Dion Mensah)'): what that person goes by
_QUOTED_NO_SURNAME = re.compile(rf"[\"“]({CAPWORD}(?:[ \t]+{CAPWORD})?)[\"”][ \t]*\((?i:(?:sur|last[ \t]+|full[ \t]+|"
                                r"real[ \t]+)name[ \t]+(?:unknown|not[ \t]+known|n/k|withheld|not[ \t]+given))\)")
_QUOTED_BEFORE_NAME = re.compile(rf"[\"“]([A-Z][\w'’\-]*(?:[ \t]+[A-Z][\w'’\-]*){{0,2}})[\"”][ \t]+\(?"
                                 rf"({CAPWORD})[ \t]+({CAPWORD})\)?")
# ... and who the text says goes by the name locally ("Will, as he is known locally, runs"; "Tiny, as she was called")
_AS_KNOWN = re.compile(rf"(?<![\w'’\-])({CAPWORD}),[ \t]+as[ \t]+(?:he|she|they)[ \t]+(?:is|was|are|were)[ \t]+"
                       r"(?:known|called)\b|"
                       # (in quotes, as the others knew or called the person: '"Bunny", as everyone here knew him')
                       rf"[\"“]({CAPWORD})[\"”],?[ \t]+as[ \t]+(?:everyone|everybody|we|they|people|friends|he|she)\b"
                       r"[^.\n]{0,25}?\b(?:knew|know|called|call)\b")
# ... and, without quotes, the name a person is known by or called, a capitalised word or two right after ("known to
# everyone in his adopted home as Paddy", "a hired killer known as El Flaco", "whom neighbours call Boy")
_KNOWN_AS_BARE = re.compile(r"(?i:\b(?:man|woman|boy|girl|he|she|who|whom|killer|gunman|leader|boss|fighter|"
                            r"player|soldier|guard|inmate|prisoner|friend|neighbou?rs?|locals)\b[^.!?\n\"“”]{0,50}?"
                            r"\bknown(?:[ \t]+[\w'’]+){0,9}?[ \t]+as|\bwhom[ \t]+[^.!?\n\"“”]{0,30}?\bcall(?:s|ed)?|"
                            r"\bknown[ \t]+to[ \t]+(?:everyone|"
                            r"everybody|all|friends|family|his|her|their|locals|neighbou?rs)(?:[ \t]+[\w'’]+){0,9}?[ \t]+as)"
                            r"[ \t]+(?-i:((?!(?:The|A|An|It|This|That|He|She|They|Him|Her)\b)"
                            r"[A-Z][\w'’\-]*(?:[ \t]+[A-Z][\w'’\-]*)?))(?=[ \t]*[,.;:!?)\n]|[ \t]+[a-z]|$)")

# ... and a nickname in quotes whom the bracket opening with it says goes by it ('("Bags" to most of us)', '("Doc" to
# his crew)'), who a note's kin or care word in brackets after it says it is ('CALLS FOR "NENA" (WIFE)'), who a
# bracket of a person's or a role's words says goes by it ('(roommate, "Tiny")', '(pt in bed 3 - "Sarge")'), and
# whom the text goes on to say who it is ('met "Spud", whom she named as')
_QUOTED_TO_PEOPLE = re.compile(rf"\([ \t]*{_QUOTED}[ \t]+(?:to|for|among|with|by)[ \t]+(?:most|all|some|many|everyone|"
                               r"everybody|friends|family|colleagues|the|his|her|their|your|our|you|us|them)\b")
_KIN_OR_CARE = trie_alternation(KIN_SET | set(CARE_ROLES) | {"pt", "patient", "peer", "tech"})
_QUOTED_THEN_ROLE = re.compile(rf"{_QUOTED}[ \t]*\((?i:{_KIN_OR_CARE})\)")
_ROLE_THEN_QUOTED = re.compile(rf"\([ \t]*(?i:{_KIN_OR_CARE})\b[^()\n\"“”]{{0,30}}?(?:,|[ \t][-–])[ \t]*"
                               rf"{_QUOTED}[ \t]*\)")
_QUOTED_THEN_WHOM = re.compile(rf"{_QUOTED},?[ \t]+whom\b")  # ('involved with "Bigs", whom he identified as')

# ... and a nickname in quotes made of a given name no dictionary holds and the words before it ('only "Big Joe"
# from transport', '"Lil Dre" drove')
_QUOTED_GIVEN = re.compile(r"[\"“]((?:[A-Z][\w'’\-]*[ \t]+){0,2}([A-Z][a-z'’\-]+))[\"”]")


# A sign-up list's, a rota's or a newsletter's entries after a label and a dash or a column's gap, one per line or per
# cell ("tue - yaw", "cake stall - sarah k, amina, me (jo)", "Year 3 - Hope | Year 4 - Kai"): where two entries or
# more are given names of the lists that no dictionary holds, every entry of one or two words whose first is a given
# name of the lists, dictionary word or not ("fri - hope?"), a capitalised surname ("Sorensen (Erik & Anders)") or no
# dictionary word ("tombola - gav") is a name
_LABELLED_LINE = re.compile(r"(?m)(?:^|(?<=\|))[ \t]*[^\W_][^\n|:]{0,29}?(?:[ \t]+[-–][ \t]+|[ \t]{2,})([^\n|]{1,80})")
_ENTRY = re.compile(r"[^,+&/;|()]+")
_ENTRY_WORDS = re.compile(r"[ \t]*(?:(?i:me|and|with|his|her|my)[ \t]+(?:(?i:brother|sister|wife|husband|son|daughter|"
                          r"mum|mom|dad|friend)[ \t]+)?)?([^\W\d_][\w'’\-]*)(?:[ \t]+([^\W\d_]\.?|[^\W\d_][\w'’\-]+))?"
                          r"[ \t?!.]*\Z")
_GIVEN_IN_BRACKET_NEXT = re.compile(r"[ \t]*\([ \t]*([A-Z][a-z'’\-]+)")


def labelled_list_names(text: str, is_word) -> list[tuple[int, int]]:
    """The entries of a list of labelled lines or cells (_LABELLED_LINE), each split at commas, "+", "&", slashes and
    brackets (_ENTRY) into one or two words (_ENTRY_WORDS), when two entries or more are given names of the lists
    that no dictionary holds; never a month, a weekday, a country or a place that is no English given name."""
    entries = []  # (first word's span, its second word's span or None)
    for m in _LABELLED_LINE.finditer(text) if (" - " in text or " – " in text or "  " in text) else ():
        for e in _ENTRY.finditer(m.group(1)):
            w = _ENTRY_WORDS.match(e.group(0))
            if w:
                at = m.start(1) + e.start()
                entries.append(((at + w.start(1), at + w.end(1)),
                                (at + w.start(2), at + w.end(2)) if w.group(2) else None))

    def word(span):
        return text[span[0]:span[1]]
    sure = sum(word(f).capitalize() in given_names() and not is_word(word(f)) for f, _ in entries)
    if sure < 2:
        return []
    out, english = [], given_names(ENGLISH_LOCALES)
    for first, second in entries:
        w = word(first)
        if w.lower() in STOP_WORDS or w.lower() in MONTHS or w.lower() in WEEKDAYS or NEVER_A_NAME.match(w) \
                or w.capitalize() in country_names() \
                or w.capitalize() in place_names() and w.capitalize() not in english:
            continue
        # (a surname too, of the lists or before a given name in brackets, a dictionary word though it be: "9/30  -
        # Sorensen (Erik & Anders)")
        bracket = _GIVEN_IN_BRACKET_NEXT.match(text, first[1])
        if w.capitalize() in given_names() or not is_word(w) and not w.isupper() \
                or w[:1].isupper() and not w.isupper() and (
                    w in surnames() or bracket and bracket.group(1) in given_names()):
            out.append(first)
            if second and (len(word(second).rstrip(".")) == 1 or in_name_lists(word(second).capitalize())
                           or not is_word(word(second))):
                out.append(second)
    return out


# A group's or a forum's officer speaking, the role before the name ("Admin - Deb Whitehorse: Friendly reminder",
# "Mod | Kenji: no spoilers"): a name of the lists or a word no dictionary holds
_ROLE_SPEAKER = re.compile(r"(?im)^[ \t]*(?:admin|administrator|moderator|mod|host|owner|organi[sz]er|"
                           rf"group[ \t]+admin)[ \t]*[-–|·][ \t]*((?-i:{CAPWORD}(?:[ \t]+{CAPWORD}){{0,2}}))[ \t]*:[ \t]")


def role_speaker_names(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in (_ROLE_SPEAKER.finditer(text) if ":" in text else ())
            if m.group(1).split()[0].lower() not in STOP_WORDS
            and any(in_name_lists(w) or not is_word(w) for w in m.group(1).split())]


# A transcript's speakers by their initials ("ME: so when you say short-staffed...\nK: Last Tuesday, it was me"):
# where three lines or more open with a speaker and a colon, and two speakers or more speak, the letters that speak
# twice or more are a person's; not an interviewer's role ("Q:", "INT:", "ME:"), a label ("RE:", "NB:", "PS:") nor
# an acronym of chat or business
_SPEAKER_LABEL = re.compile(rf"(?m)^[ \t]*((?-i:[A-Z]{{1,3}})|{CAPWORD}(?:[ \t]+{CAPWORD})?)[ \t]*:[ \t]+\S")
_TRANSCRIPT_ROLES = frozenset("""q a i me int iv ir intv mod ch chr dr moderator interviewer respondent
t p pr bs fh""".split()) | VITAL_SIGNS  # (and a chart's vital signs: "BP: 120/80", "HR: 72")


def initials_speakers(text: str, is_word) -> list[tuple[int, int]]:
    lines = list(_SPEAKER_LABEL.finditer(text)) if ":" in text else []
    if len(lines) < 3 or len({m.group(1) for m in lines}) < 2:
        return []
    spoke = collections.Counter(m.group(1) for m in lines)
    return [m.span(1) for m in lines if re.fullmatch(r"[A-Z]{1,3}", m.group(1)) and spoke[m.group(1)] >= 2
            and m.group(1).lower() not in _TRANSCRIPT_ROLES and m.group(1).lower() not in LINE_LABELS
            and m.group(1).lower() not in NOT_INITIALS and m.group(1).lower() not in NOTE_LABELS]


# A given name shouted in capitals with exclamation marks, as a chat or a family's mail greets someone ("JO!!!!!
# ROB!!!!!", "NONSO!!! 🥳"): a given name of the lists, dictionary word or not ("STOP!!!" is none)
_SHOUTED = re.compile(r"(?<![\w'’\-])([A-Z][A-Z'’\-]{1,15})!{2,}")


def shouted_names(text: str, is_word) -> list[tuple[int, int]]:
    return [m.span(1) for m in _SHOUTED.finditer(text) if m.group(1).capitalize() in given_names()
            and m.group(1).lower() not in NOT_INITIALS and not is_function_word(m.group(1))] if "!!" in text else []


def nickname_names(text: str, is_word) -> list[tuple[int, int]]:
    """A name with its nickname in quotes: a given name (of the lists, or no dictionary word), the nickname
    and the surname whole ('Darnell "Bam" Fowler'; 'Operation "Desert Storm" Begins' is no name); a nickname in
    brackets after a given name of the lists, itself a name or no dictionary word; and the nickname somebody goes
    by."""
    out = [(m.start(1), m.end(1)) for m in _CALLED_BARE.finditer(text) if not is_function_word(m.group(1))
           and not NEVER_A_NAME.match(m.group(1)) and m.group(1).lower() not in WEEKDAYS
           and m.group(1).lower() not in MONTHS and m.group(1).lower() not in NOT_ADDRESSED]
    out += [m.span(1) for m in _KNOWN_AS_BARE.finditer(text) if not any(
        w in country_names() or w in place_names() or w.lower() in MONTHS or w.lower() in WEEKDAYS
        for w in m.group(1).split())]
    if '"' not in text and "'" not in text and "“" not in text and "‘" not in text and "(" not in text:
        return out
    for m in _NICKNAMED.finditer(text):
        first = m.group(1)
        # (or before a surname of the lists: 'Demetrius "D-Train" Washington', where a dictionary holds the given name)
        if first.capitalize() in given_names() and first.lower() not in STOP_WORDS or not is_word(first) or (
                first.lower() not in STOP_WORDS and m.group(3).split()[-1] in surnames()):
            out.append((m.start(1), m.end(3)))
    for m in _NICKNAME_AFTER.finditer(text):
        before, cue, nick = m.group(1), m.group(2), m.group(3) or m.group(4)
        g = 3 if m.group(3) else 4
        if is_function_word(before) or is_function_word(nick.split()[0]) and not (
                m.group(3) and nick.capitalize() in given_names(ENGLISH_LOCALES)) or nick.lower() in WEEKDAYS \
                or nick.lower() in MONTHS:
            continue  # a defined term: 'Mr Vitalie Rusu ("the applicant")'; a day: "Osei (Thurs)"
        named = before.capitalize() in given_names() or before[:1].isupper() and (
            before in surnames() or not is_word(before))
        # between a given name and a surname any capitalised word in brackets is what the person goes by
        # ("Rajesh (Raj) Menon")
        after = _SURNAME_NEXT.match(text, m.end())
        inside = after is not None and (before in given_names() or before[:1].isupper() and not is_word(before)) \
            and (after.group(1) in surnames() or not is_word(after.group(1))) and not nick.isupper() \
            and nick not in country_names() and nick not in place_names()
        # (a word in quotes after an English given name is what its person goes by, a dictionary word though it be:
        # 'wife Rose ("Bunny")'; not a plural, a body's members: 'Society of Jesus ("Jesuits")')
        pet_name = m.group(3) and before in given_names(ENGLISH_LOCALES) and re.fullmatch(r"[A-Z][a-z]+", nick) \
            and not nick.endswith("s")
        if cue or inside or pet_name or named and (not is_word(nick) or nick.capitalize() in given_names()) and (
                m.group(3) or nick in given_names()):  # 'Society of Jesus ("Jesuits")', "Apple (Pie)"
            out.append((m.start(g), m.end(g)))
            if before.capitalize() in given_names():
                out.append((m.start(1), m.end(1)))
    for m in _QUOTED_IN_BRACKETS.finditer(text):
        first = m.group(1).split()[0]
        if first.lower() not in STOP_WORDS and not NEVER_A_NAME.match(first.rstrip(".")) and (any(
                w.capitalize() in given_names() for w in m.group(1).split())  # not 'River ("Fleuve Manche")'
                or re.search(r"[\"”][ \t]+per[ \t]", m.group(0))):  # who says so: '("Chidera" per parents)'
            out.append((m.start(1), m.end(1)))  # '("Lily" per parents)', '("taffy")', '("Trix") (wife)'
    out += [(m.start(1), m.end(1)) for m in _QUOTED_GIVEN.finditer(text)
            if m.group(2) in given_names(ENGLISH_LOCALES) and not is_word(m.group(2))
            and m.group(2) not in place_names() and not is_function_word(m.group(1).split()[0])]
    out += [m.span(1) for regex in (_QUOTED_TO_PEOPLE, _QUOTED_THEN_ROLE, _ROLE_THEN_QUOTED, _QUOTED_THEN_WHOM)
            for m in regex.finditer(text)
            if m.group(1).split()[0].lower() not in STOP_WORDS and not NEVER_A_NAME.match(m.group(1))]
    out += [(m.start(1), m.end(1)) for m in _CALLED.finditer(text)  # (not a stimulus: "responds to 'pain'")
            if m.group(1)[0].isupper() or not re.match(r"(?i)(?:responds|answers)", m.group(0))]
    out += [(m.start(1), m.end(1)) for m in _KNOWN_AS.finditer(text)]
    out += [(m.start(1), m.end(1)) for m in _KNEW_AS.finditer(text)]
    out += [m.span(1) for m in _QUOTED_NO_SURNAME.finditer(text)]
    out += [m.span(1) for m in _QUOTED_BEFORE_NAME.finditer(text)
            if m.group(2) in given_names() and (m.group(3) in surnames() or not is_word(m.group(3)))
            and not NEVER_A_NAME.match(m.group(1)) and m.group(1).split()[0].lower() not in STOP_WORDS]
    out += [m.span(g) for m in _AS_KNOWN.finditer(text) for g in [1 if m.group(1) else 2]
            if m.group(g).lower() not in STOP_WORDS
            or m.group(g) in given_names(ENGLISH_LOCALES)]
    out += [(m.start(1), m.end(1)) for m in _ONE_QUOTED.finditer(text)]
    out += [(m.start(2), m.end(2)) for m in _NAME_KNOWN_AS.finditer(text)
            if m.group(1) not in place_names() and m.group(1) not in country_names() and not is_word(m.group(1))]
    out += [(m.start(1), m.end(2)) for m in _NICKNAME_SURNAME.finditer(text)
            if (not is_word(m.group(2)) or m.group(2) in surnames()) and m.group(2) not in place_names()]
    for m in _HANDLE_AFTER_NAME.finditer(text):
        given, handle = m.group(1), m.group(2)
        if given in given_names() and given.lower() not in STOP_WORDS and (
                handle.startswith(given.lower()[:3]) or re.search(r"[\d_]", handle)):
            out += [m.span(1), m.span(2)]
        elif len(given) >= 4 and given.lower() in handle and handle != given.lower():
            out.append(m.span(2))  # a login made of the surname before it ("Leilani Kahale (lkahale)")
    # ... or after a given name and a surname, as a phone list writes it ('Robert Okonkwo "Bo"   3-3042', 'Young,
    # Brigham "Bo"')
    for m in _NICKNAME_AFTER_NAME.finditer(text):
        given, last = (m.group(3), m.group(1)) if m.group(2) else (m.group(1), m.group(3))
        if given in given_names() and (last in surnames() or not is_word(last)) and last not in place_names():
            out.append(m.span(4))
    return out


# ... and a person's account in brackets after the given name, as a chat's moderators introduce someone ("Drew
# (drewbydoo) is taking over events", "ask Priya (@priya_k)"): the account holds the name's first letters, or a digit or
# an underscore; or after a surname, a login that holds it ("Requested for: Leilani Kahale (lkahale)")
_HANDLE_AFTER_NAME = re.compile(rf"(?<![\w'’\-])({CAPWORD})[ \t]+\([ \t]*@?([a-z0-9][a-z0-9_.]{{3,29}})[ \t]*\)")
_NICKNAME_AFTER_NAME = re.compile(rf"(?<![\w'’\-])({CAPWORD})(,?)[ \t]+({CAPWORD})[ \t]+[\"“]([A-Z][a-z'’\-]{{1,12}})[\"”]"
                                  r"(?![\w'’])")


# An English given name opening a bracket, asked or doing something ("face painting (Amber? you were great last
# year)", "car picks you up (Milo driving)", "(Rose has the keys)")
_BRACKETED_GIVEN = re.compile(rf"\([ \t]*({CAPWORD})(?:[ \t]*\?|[ \t]+(?:[a-z]+ing|is|was|has|had|will|can|says|said|"
                              r"to|and|&)\b)")


_BRACKETED_FULL_NAME = re.compile(r"(?<=\()[ \t]*([A-Z][a-z'’\-]+)[ \t]+([A-Z][A-Za-z'’\-]+)(?=[ \t]*\))")


def bracketed_given_names(text: str, is_word) -> list[tuple[int, int]]:
    """An English given name that opens a bracket and is asked or does something (_BRACKETED_GIVEN), never a month
    or a weekday ("(May is busy)"); an agent's name before the team; who a note spoke with; a full name alone in
    brackets (_BRACKETED_FULL_NAME)."""
    if "(" not in text:
        return []
    return [m.span(1) for m in _BRACKETED_GIVEN.finditer(text) if m.group(1) in given_names(ENGLISH_LOCALES)
            and m.group(1).lower() not in MONTHS and m.group(1).lower() not in WEEKDAYS] + [
        # ... and a support agent with the team after a comma ("Agent (Oluwaseun, Safety Team):"), no place
        m.span(1) for m in _BRACKETED_WITH_TEAM.finditer(text) if m.group(1) not in place_names()
        and m.group(1) not in country_names() and (m.group(1).split()[0] in given_names()
                                                    or not all(is_word(w) for w in m.group(1).split()))] + [
        # ... and who a note spoke with at a service, in brackets after it ("spoke w/ intake (Deb)", "called
        # pharmacy (Tunde)")
        m.span(1) for m in _CONTACTED_BRACKETED.finditer(text) if m.group(1) in given_names(ENGLISH_LOCALES)
        and m.group(1).lower() not in MONTHS and m.group(1).lower() not in WEEKDAYS and m.group(1) not in place_names()] + [
        # ... and a full name alone in brackets, as a ticket gives the person behind an account ("Reporter:
        # hokonkwo_ext (Hugo Okonkwo)") or a review the actor behind a role: a given name of the lists, then a surname
        # of the lists (a town's too) or a word no dictionary holds and no place ("(Rajya Sabha)" stays)
        m.span() for m in _BRACKETED_FULL_NAME.finditer(text) if m.group(1) in given_names()
        and (m.group(2) in surnames() or not is_word(m.group(2)) and m.group(2) not in place_names())
        and m.group(1) not in place_names() and m.group(2) not in country_names()]


_CONTACTED_BRACKETED = re.compile(r"(?i:\b(?:spoke|spk|talked|discussed|d/w|called|paged|notified|updated|faxed)\b)"
                                  r"[^()\n.;]{0,30}\([ \t]*([A-Z][a-z'’\-]+)[ \t]*\)")


_BRACKETED_WITH_TEAM = re.compile(rf"\([ \t]*({CAPWORD}(?:[ \t]+{CAPWORD})?)[ \t]*,[ \t]*(?:[A-Z][\w&]*[ \t]+){{0,3}}"
                                  r"(?i:team|desk|support|department|dept\.?|unit|office|services?)[ \t]*\)")


# A name with an honorific glued to it by a hyphen ("Will discuss with Hashimoto-san", "Mehta-ji called"): the
# honorific is said to a person only
_HONORED = re.compile(rf"{WORD_START}({CAPWORD})(?=-)")


# ... or a word of kin or respect after it, as South Asian and West African English address elders ("Pinky aunty +
# Raju uncle", "Sunita didi"), in lower case after a capitalised word that opens no sentence
_KIN_AFTER = re.compile(rf"(?<=[^\s.!?:])[ \t]*(?<![\w'’\-])({CAPWORD})[ \t]+(?:aunty|auntie|uncle|didi|bhaiya|bhai|"
                        r"bhabhi|chacha|chachi|mausi|dada|nani|dadi)(?![\w'’\-])")
# ... or a word of kin or familiarity before it, as families and friends name each other in any language ("Auntie
# Jade", "Tío Beto", "Wujek Staszek", "Big Al", "big kev"): after a kin word any capitalised word but a place, after
# a word that is also an adjective or a title ("Big", "Lil", "Don") only a given name or a short form of the lists
# ("Big Data", "a big Pac-Man", "Little Rock" stay), in lower case only those
_FAMILIAR_KIN = ("auntie aunty tía tia tío tio tita tito tante onkel zia zio nonna nonno oma opa wujek ciocia ciotka "
                 "babcia dziadek abuela abuelo abuelita abuelito tonton tata tatie mamie papi mami").split()
_FAMILIAR_WORDS = "big lil don doña dona".split()
_FAMILIAR_BEFORE = re.compile(r"(?<![\w'’\-])(?i:(" + trie_alternation(_FAMILIAR_KIN + _FAMILIAR_WORDS)
                              + rf"))[ \t]+({ANYWORD})(?![\w'’\-])")


def honorific_names(text: str, is_word) -> list[tuple[int, int]]:
    """A capitalised word with an honorific glued to it (HONORIFIC_SUFFIX) or a kin word after it (_KIN_AFTER),
    never a place or a country ("Tokyo-san", "India uncle")."""
    found = [(m.start(1), m.end(1)) for m in _HONORED.finditer(text) if HONORIFIC_SUFFIX.match(text, m.end(1))] \
        if "-" in text else []
    found += [m.span(1) for m in _KIN_AFTER.finditer(text) if m.group(1).lower() not in STOP_WORDS]
    for m in _FAMILIAR_BEFORE.finditer(text):
        cue, name = m.group(1).lower(), m.group(2)
        if name.lower() in STOP_WORDS or NEVER_A_NAME.match(name):
            continue
        listed = name.capitalize() in given_names() or name.capitalize() in ENGLISH_NICKNAMES
        if name[:1].isupper() and not name.isupper() and (listed or cue in _FAMILIAR_KIN) \
                or name.islower() and listed and (cue in _FAMILIAR_KIN or not is_word(name)):
            found.append(m.span(2))
    return [(s, e) for s, e in found if text[s:e] not in place_names() and text[s:e] not in country_names()]


# The speakers of a chat log: a time, maybe a date, then "Name:" at each line's start ("[19:03] Kwame: im in",
# "12/03/2024, 19:02 - Siobhan: ok"); two lines so written make a log
# (an emoji or a flag may follow the name: "[07:30] Tolu 💜: anyone", "Ade 🇳🇬: I can"; a Spanish phone writes the
# time "[8:15 a. m.]")
_CHAT_LINE = re.compile(r"(?m)^[ \t]*(?:\[?[^\n:\]]{0,30}?\d{1,2}:\d{2}(?::\d{2})?"
                        rf"(?:[ \t]*[AaPp]\.?[ \t]?[Mm]\.?)?\]?[ \t]*[-–—,]?[ \t]*)(<?({ANYWORD}(?:[ \t]+{ANYWORD}){{0,2}})>?)"
                        r"(?:[ \t]*[^\w\s:<>\[\]()]{1,4})?[ \t]*:[ \t]")
# ... and as Discord and its kind print a message's header: the display name, a dash and the time on a line of
# its own ("**Kenji | EU** — Today at 9:15 PM", "Rose 🌹 — 03/04/2024 8:02 PM", "Emre — Bugün saat 23:07")
_CHAT_HEADER = re.compile(r"(?m)^[ \t]*(?:\*\*)?([^\n—–]{1,40}?)(?:\*\*)?[ \t]+[—–-][ \t]+(?:[^\n]{0,30}?\d{1,2}:\d{2}"
                          r"(?:[ \t]*[AaPp]\.?[Mm]\.?)?|\d{1,2}/\d{1,2}/\d{2,4})[ \t]*$")  # (or a date alone: "— 03/05/2024")


# ... and a group chat copied without times: "Name:" opening three or more lines, two or more of the names given
# names of the lists ("Aoife: sorry babe paying now x", "Meg: can i pay half", "Greg W: Kowalski's lad did ours")
_CHAT_NAME_LINE = re.compile(rf"(?m)^[ \t]*({CAPWORD}(?:[ \t]+(?:{CAPWORD}|{UPPER}\.?))?)(?:[ \t]*[^\w\s:<>\[\]()]{{1,4}})?:"
                             r"[ \t]+\S")


# ... in lower case too, as a group chat's people type their display names ("tolu: GIRLS. emergency", "meg: 3 DATES???",
# "priyanka 🌸: wait"): three lines or more, two speakers or more each a given name of the lists or a word no
# dictionary holds; then those, and any other that speaks twice
_LOWER_CHAT_NAME_LINE = re.compile(r"(?m)^[ \t]*([a-z][a-z'’]*(?:-[a-z]+)?)(?:[ \t]*[^\w\s:]{1,3})?:[ \t]+\S")


def _chat_speakers_untimed(text: str, is_word) -> list[tuple[int, int]]:
    lines = [m for m in _CHAT_NAME_LINE.finditer(text) if m.group(1).split()[0].lower() not in STOP_WORDS
             and m.group(1).split()[0].lower() not in LINE_LABELS and m.group(1).split()[0].lower() not in NOTE_LABELS]
    named = {m.group(1) for m in lines if m.group(1).split()[0] in given_names()}
    out = [(m.start(1), m.end(1)) for m in lines if m.group(1).split()[0] in given_names()
           or in_name_lists(m.group(1).split()[-1])] if len(lines) >= 3 and len(named) >= 2 else []
    lower = [m for m in _LOWER_CHAT_NAME_LINE.finditer(text) if m.group(1) not in STOP_WORDS
             and m.group(1) not in LINE_LABELS and m.group(1) not in NOTE_LABELS and m.group(1) not in _CHAT_ROLES]
    named = {m.group(1) for m in lower if not is_word(m.group(1))
             or "-".join(p.capitalize() for p in m.group(1).split("-")) in given_names()}
    if len(lower) >= 3 and len(named) >= 2:
        # (among them a word that speaks twice or more is a name too: "tolu" is also a balsam)
        spoke = collections.Counter(m.group(1) for m in lower)
        out += [m.span(1) for m in lower if m.group(1) in named or spoke[m.group(1)] >= 2]
    return out


# who speaks in a chat log without being a person
_CHAT_ROLES = frozenset("""system admin administrator bot moderator mod agent customer support you me host guest user
visitor operator server auto automated assistant chatbot team staff note info notice""".split())


def chat_speakers(text: str, is_word) -> list[tuple[int, int]]:
    """Who speaks in a chat log with times (_CHAT_LINE, _CHAT_HEADER): every speaker, when two lines are so
    written."""
    out = []
    lines = list(_CHAT_LINE.finditer(text))
    if len(lines) >= 2:
        named = [m for m in lines if m.group(2).lower() not in STOP_WORDS
                 and not all(is_word(w) and w.capitalize() not in given_names() for w in m.group(2).split())]
        if len({m.group(2) for m in named}) >= 2:  # among people, a speaker a dictionary holds is one ("Hind:")
            named += [m for m in lines if m not in named and m.group(2)[:1].isupper()
                      and m.group(2).lower() not in STOP_WORDS and m.group(2).lower() not in _CHAT_ROLES]
        out += [(m.start(2), m.end(2)) for m in named]
    if ":" in text:
        out += _chat_speakers_untimed(text, is_word)
    headers = list(_CHAT_HEADER.finditer(text))
    if len(headers) >= 2:  # the display names: a person's name or handle, either of which names its holder
        for m in headers:
            for w in re.finditer(r"[^\W_][\w.'’\-]*", m.group(1)):
                if not (w.group(0).isupper() and len(w.group(0)) <= 3) and not is_function_word(w.group(0)):
                    # (not "| EU": a region's tag, nor "Brad the Bard"'s "the")
                    out.append((m.start(1) + w.start(), m.start(1) + w.end()))
    return out


# A table's column of people: its heading names who stands in it ("| Manager |", "TRADER", "Assigned to"), as
# a pipe table or columns set apart by two or more spaces or tabs write it; each cell of that column below the
# heading that reads as a name (capitalised words or initials, not "me", "TBD" or a number)
_CELL_NAME = re.compile(rf"(?:{INITIAL}\.?[ \t]?)*{CAPWORD}\.?(?:[ \t]+(?:{INITIAL}\.|{CAPWORD}|"
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
    """A heading of a column of people; of two such headings with a slash ("Surname / Given names") too."""
    parts = [p.strip(" :*").replace("_", " ") for p in cell.lower().split("/")] if "/" in cell else [
        cell.lower().strip(" :*").replace("_", " ")]

    def of_people(words: str) -> bool:
        return words in PERSON_HEADINGS or words.rstrip("s") in PERSON_HEADINGS

    # (and who did a log's line: "Obs by", "Done by", "Seen by")
    # (and a person's name or initials: "Visitor name", "Staff init"; not "Product name")
    return all(of_people(words) or words in PERSON_HEADING_PHRASES or re.fullmatch(r"[a-z]+[ \t]+by", words)
               or (m := re.fullmatch(r"([a-z]+)[ \t]+(?:names?|init|initials|sign|signature)", words)) is not None
               and (of_people(m.group(1)) or m.group(1) in ("child", "pupil", "parent", "kin", "nok"))
               for words in parts)


def _slash_parts(line: str, a: int, b: int) -> list[tuple[int, int]]:
    """The parts of the cell line[a:b] between slashes, each without its spaces."""
    out, start = [], a
    for i in [a + k for k, ch in enumerate(line[a:b]) if ch == "/"] + [b]:
        s, e = start, i
        while s < e and line[s] in " \t":
            s += 1
        while e > s and line[e - 1] in " \t":
            e -= 1
        if e > s:
            out.append((s, e))
        start = i + 1
    return out


def table_column_names(text: str, is_word) -> list[tuple[int, int]]:
    """The names in a table's column of people (PERSON_HEADINGS), in the rows under its heading that have as
    many cells as the heading has, or a cell that starts where the heading does (a fixed-width list whose heading
    runs two of its columns into one: "No. Rank   Surname / Given names" over "1   C/O    KRAVCHENKO / Dmytro")."""
    if "|" not in text and "  " not in text and "\t" not in text:
        return []
    out, column, width, starts = [], None, 0, []
    pos = 0
    for line in text.split("\n"):
        cells = _cells(line)
        texts = [line[a:b] for a, b in cells]
        if len(cells) >= 2:
            heading = [k for k, c in enumerate(texts) if _is_person_heading(c)]
            aligned = [k for k, (a, _) in enumerate(cells) if a in starts] if column is not None and "|" not in line \
                and len(cells) > width else []
            # (a heading holds no number, but a unit in brackets: "DAILY ($000)")
            if heading and sum(_is_person_heading(c) or not any(ch.isdigit() for ch in re.sub(r"\([^()]*\)", "", c))
                               for c in texts) == len(texts):
                column, width, starts = heading, len(cells), [cells[k][0] for k in heading]
            elif column is not None and (len(cells) == width or aligned):
                for k in (column if len(cells) == width else aligned):
                    # (a cell's parts, as a slashed heading splits it: "KRAVCHENKO / Dmytro")
                    for a, b in _slash_parts(line, *cells[k]):
                        cell = line[a:b]
                        words = re.findall(r"[^\W\d_][\w'’\-]*", cell)
                        # (a signer's initials are a name whatever they spell: "DA", "KO'N")
                        initials = re.fullmatch(rf"{INITIALS_RUN}|[A-Z]{{1,2}}['’][A-Z]", cell) is not None \
                            and cell.lower() not in NOT_INITIALS
                        if initials or _CELL_NAME.fullmatch(cell) and cell.split()[0].lower().rstrip(".") not in STOP_WORDS \
                                and not (len(words) == 1 and is_word(words[0]) and words[0] not in given_names()
                                         and words[0] not in surnames()):  # "Total", "Vacant"; not "Big Mo"
                            out.append((pos + a, pos + b))
            elif column is not None and not re.fullmatch(r"[\s|:\-+=]*", line):
                column = None  # the table ended
        elif column is not None and not re.fullmatch(r"[\s|:\-+=]*", line):
            column = None
        pos += len(line) + 1
    return out


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


def field_names(text: str, is_word) -> list[tuple[int, int]]:
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


# "Steve and I met", "me and jenna went": who stands beside the writer is a person
_WITH_ME = re.compile(rf"(?<![\w'’\-])({ANYWORD})[ \t]+(?:and|&|n|\+)[ \t]+(?:I|me|myself)\b(?!['’])|"
                      rf"\b(?:[Mm]e|I)[ \t]+(?:and|&|n|\+)[ \t]+({ANYWORD})(?![\w'’\-])")  # (and "me + Bao")


# A phone-in show's caller by given name and town, as the host puts them on air ("Line three, we've got Summer in
# Broken Arrow", "Hope in Puyallup. What's broke?", "Summer in Quincy, go ahead")
_CALLER = re.compile(rf"(?i:\b(?:we've[ \t]+got|we[ \t]+have|let's[ \t]+go[ \t]+to|going[ \t]+to|over[ \t]+to|next[ \t]+up"
                     rf"(?:[ \t]+is)?)[ \t]+)({CAPWORD})[ \t]+(?:in|from|out[ \t]+in|calling[ \t]+from)[ \t]+{CAPWORD}|"
                     rf"(?<![\w'’\-])({CAPWORD})[ \t]+(?:in|from)[ \t]+{CAPWORD}(?:[ \t]+{CAPWORD})?(?:,[ \t]+(?i:go[ \t]+ahead|"
                     rf"you're[ \t]+on|welcome|thanks[ \t]+for[ \t]+(?:calling|holding))|\.[ \t]+(?i:what's|what[ \t]+is|"
                     rf"how[ \t]+can|go[ \t]+ahead)\b)")


def caller_names(text: str, is_word) -> list[tuple[int, int]]:
    """A phone-in caller the host names with a town (_CALLER); never a function word ("The"), a month or a weekday."""
    out = []
    for m in _CALLER.finditer(text):
        g = 1 if m.group(1) else 2
        w = m.group(g)
        if not is_function_word(w) and w.lower() not in MONTHS and w.lower() not in WEEKDAYS \
                and w not in country_names() and w not in place_names():
            out.append(m.span(g))
    return out


def with_me_names(text: str, is_word) -> list[tuple[int, int]]:
    """The one named beside "I" or "me": a given name of any list in any case, or a capitalised word that is no
    dictionary word ("Steve and I", "me and jenna", "Okonjo and I"); "Mom and I", "you and me" are no names."""
    names = given_names()
    out = []
    for m in _WITH_ME.finditer(text):
        g = 1 if m.group(1) else 2
        w = m.group(g)
        if is_function_word(w) or w.lower() in NOT_ADDRESSED or w.lower() in KIN_SET or CONTRACTION.search(w):
            continue
        # in lower case only a given name that is no dictionary word ("me and jenna"; not "a job and I")
        if w[0].isupper() and (w in names or not is_word(w)) or w.islower() and w.capitalize() in names and not is_word(w):
            out.append((m.start(g), m.end(g)))
    return out


# ... and who speaks in a chat log by an account's handle ("hannah_b_xo: RILEY HI", "[ALL] xX_Dimitri_Xx: gg ez",
# "minjun_k — Today at 19:02"): three or more speakers' lines, two or more speakers
_LINE_TIME = r"(?:\d{1,2}:\d{2}(?::\d{2})?[ \t]+)?"  # a stream's or an IRC log's time before the speaker ("0:41:15 ")
_SPEAKER_LINE = re.compile(r"(?m)^[ \t]*(?:\[[^\]\n]{1,30}\][ \t]*)*" + _LINE_TIME + r"@?([^\W\d][\w.\-]{1,30}?)[ \t]*"
                           r"(?::(?=[ \t]|$)|[ \t]+[—–-][ \t]+[^\n]{0,30}?\d{1,2}:\d{2}|"
                           # (Slack prints the speaker and the time over the message: "nguyen.thao  10:02 AM")
                           r"[ \t]+\d{1,2}:\d{2}(?:[ \t]*[AaPp][Mm])?[ \t]*$)")
# ... or in an IRC or game server's log: "<TheRealHarrison> hey", "[Server] daisy_ng joined the game"
_LOG_SPEAKER = re.compile(r"(?m)^[ \t]*(?:\[[^\]\n]{1,30}\][ \t]*)*" + _LINE_TIME + r"(?:<[ \t]?[@+%~&]?([^\W\d][\w.\-]{1,30})>[ \t]|"
                          r"([^\W\d][\w.\-]{1,30})[ \t]+(?:has[ \t]+)?(?:joined|left)[ \t]+the[ \t]+(?:game|server|channel|"
                          r"chat|room|lobby)\b|"
                          # (a moderators' log's speakers in brackets: "[mod_aiyana] I'd reduce it")
                          r"^[ \t]*\[@?([^\W\d][\w.\-]{1,30})\][ \t]+(?=\S))")
# ... or a stream's event lines, an account gifting, subscribing or raiding ("** dmitri_k gifted 5 subs to the
# community! **", "KaiaPlaysRetro is raiding with 12 viewers")
_STREAM_EVENT = re.compile(r"(?m)^[ \t*•>🎁💜⭐]*@?([^\W\d][\w.\-]{1,30})[ \t]+(?:gifted|subscribed|resubscribed|cheered|"
                           r"raided|is[ \t]+raiding|followed|donated|tipped|just[ \t]+(?:subscribed|followed|tipped))\b")
ACCOUNT_LIKE = re.compile(r"[\d_]|[a-z][A-Z]")  # a handle, not a word: a digit, an underscore or a capital inside
_DOTTED = re.compile(r"[a-z]\.[a-z]")  # "kasia.nowak"


# ... or who wrote each comment of a comment section, which prints the handle alone on its line over the comment
# ("GrahamTheGardener\nAbsolute joke. 400 students and ...", "  > JennyLo\n  > She did vote against"): two handles
# or more, each over a line of prose (a capital, three words), each with a digit, an underscore or a given name
# inside (a glossary's "HashMap\nA map of keys to values." stays)
_COMMENT_AUTHOR = re.compile(r"(?m)^[ \t>]*@?([^\W\d][\w.\-]{2,30})[ \t]*\n[ \t>]*(?=[A-Z][^\n]*?\s\S+\s\S+)")


# ... or, as a photo's comment section prints them, opening the comment's own line (the app sets two spaces after
# the handle, which the filter reads as one: "nadia_haddad_  the tile wall!!", "ana.clara.souza  que orgulho amiga")
# and after "Liked by", in a text that shows itself a comment section (an emoji, "Liked by", "comments"): a line's
# handle there is two names or more, a given name of the lists and a name of either list ("max_len    Maximum
# length" of a table stays), and where two are, any account opening a line ("↳" marks a reply)
_INLINE_COMMENT_AUTHOR = re.compile(r"(?m)^[ \t↳>]*@?([^\W\d][\w.\-]{2,30})[ \t]+(?=[^\n]*?[^\W\d_]{2,}[ \t]+\S)")
_LIKED_BY = re.compile(r"(?i)\bliked[ \t]+by[ \t]+@?([^\W\d][\w.\-]{2,30})[ \t]+and\b")
_COMMENT_SECTION = re.compile(r"(?i)[\U0001F300-\U0001FAFF❤♥]|\bliked[ \t]+by\b|\bcomments\b")


def _names_handle(handle: str) -> bool:
    parts = [p.capitalize() for p in re.split(r"[._\-\d]+", handle) if len(p) >= 3]
    return any(p in given_names() for p in parts) and sum(in_name_lists(p) for p in parts) >= 2


def _comment_authors(text: str) -> frozenset[str]:
    authors = {m.group(1).rstrip(".-") for m in _COMMENT_AUTHOR.finditer(text)} if "\n" in text else ()
    handles = frozenset(h for h in authors if ACCOUNT_LIKE.search(h) and h.lower() not in NOT_HANDLES and (
        re.search(r"[\d_]", h) or any(p.capitalize() in given_names() for p in _HANDLE_PART.findall(h) if len(p) >= 3)))
    if _COMMENT_SECTION.search(text):
        inline = {h for m in _INLINE_COMMENT_AUTHOR.finditer(text) for h in [m.group(1).rstrip(".-")]
                  if _is_account(h)}
        named = {h for h in inline if _names_handle(h)}
        handles |= named
        # (where two line openers or more are such names, the section prints its commenters so: the other accounts
        # that open a line are commenters too, with a digit, an underscore or a dot, or a given name inside:
        # "siobhanryan_x", "valeria.g.r", "bread_by_bjorn")
        if len(named) >= 2:
            handles |= {h for h in inline if re.search(r"[\d_.]", h) or any(
                p.capitalize() in given_names() for p in _HANDLE_PART.findall(h) if len(p) >= 3)}
        handles |= {h for m in _LIKED_BY.finditer(text) for h in [m.group(1).rstrip(".-")] if _is_account(h)}
    return handles if len(handles) >= 2 else frozenset()


def _is_account(handle: str) -> bool:
    """A handle as accounts write them (ACCOUNT_LIKE, or dotted: "kasia.nowak"), not a word of NOT_HANDLES."""
    return (ACCOUNT_LIKE.search(handle) or _DOTTED.search(handle)) is not None and handle.lower() not in NOT_HANDLES


@lru_cache(maxsize=64)  # the USERNAME gate, its recognizer and handle_owner_names read the same text
def speaker_handles(text: str) -> frozenset[str]:
    """The account-like handles (ACCOUNT_LIKE: a digit, an underscore or a capital inside) that speak in a chat
    log (_SPEAKER_LINE), when three lines or more speak and two speakers or more (an IRC log's nicks whatever
    their shape), or that sign a comment section's
    comments (_COMMENT_AUTHOR), or that gift, subscribe or raid on a stream (_STREAM_EVENT)."""
    authors = _comment_authors(text) | {h for m in _STREAM_EVENT.finditer(text) for h in [m.group(1).rstrip(".-")]
                                        if _is_account(h)}
    if ":" not in text and "<" not in text and " the " not in text and "[" not in text:
        return authors
    speakers = [m.group(1).rstrip(".-") for m in _SPEAKER_LINE.finditer(text)] if ":" in text else []
    logged = list(_LOG_SPEAKER.finditer(text))
    speakers += [(m.group(1) or m.group(2) or m.group(3)).rstrip(".-") for m in logged]
    if len(speakers) < 3 or len(set(speakers)) < 2:
        return authors
    # (an IRC log's nick in angle brackets is an account whatever its shape, where three lines or more speak so:
    # "<pmatsuda> anyone around?", "<grendel> ask your question")
    nicks = [m.group(1) for m in logged if m.group(1)]
    irc = frozenset(h for h in nicks if len(h) >= 3 and h.lower() not in NOT_HANDLES) if len(nicks) >= 3 \
        else frozenset()
    return authors | irc | frozenset(h for h in speakers if _is_account(h) and len(h) >= 3)


# The given names a chat handle is made of ("RileyPlays", "hannah_b_xo", "Anya_plays_chess", "xX_Dimitri_Xx"),
# which the log writes alone too, in any case ("RILEY HI", "riley can u say hi", "anya can u analyse")
_HANDLE_PART = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_AT_HANDLE = re.compile(r"(?<![\w.@/\\-])@([A-Za-z]\w{2,30})")


def handle_owner_names(text: str, is_word) -> list[tuple[int, int]]:
    """The given names of the lists a speaker's or an @-mentioned handle is made of, wherever the text writes them
    as words: in any case, or only capitalised where the name is also a dictionary word ("MarkTheShark" leaves
    "mark my words"), unless the message asks it something ("fern can u say hi" under "cozy_fern_plays")."""
    handles = speaker_handles(text) | ({m.group(1) for m in _AT_HANDLE.finditer(text)} if "@" in text else frozenset())
    parts = {p.lower() for h in handles for p in _HANDLE_PART.findall(h)
             if len(p) >= 3 and p.capitalize() in given_names() and not is_function_word(p)}
    if not parts:
        return []
    return [(m.start(), m.end()) for m in re.finditer(r"(?<![\w@.\-])[^\W\d_]{3,}(?![\w\-])", text)
            if m.group(0).lower() in parts and (m.group(0)[0].isupper() or not is_word(m.group(0))
                                                or _ASKED_NEXT.match(text, m.end()))]


# what follows a word a message addresses in lower case ("fern can u say hi", "riley pls"): there a dictionary word
# that a speaker's handle is made of is its owner
_ASKED_NEXT = re.compile(r"[ \t,]+(?:(?:can|could|would|will|do|did)[ \t]+(?:u|you)|u|ur|pls|plz|please|whats|what's)\b")

