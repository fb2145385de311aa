"""The word lists of the PII filter, in one place: what a reviewer reads to know which words are never taken
for a name, which words a name follows, and which parties of a case are the state. The finders
(pii_names, the pii_rules_* modules, pii_patterns) import them from here; nothing here imports the project.
"""
from __future__ import annotations

import builtins
import keyword
import re
from functools import lru_cache
from pathlib import Path

# What a closing line or a greeting word is, never the name itself
CLOSINGS = (r"thanks|thank[ \t]+you|many[ \t]+thanks|cheers|best|best[ \t]+regards|kind[ \t]+regards|regards|"
             r"warm[ \t]+regards|sincerely|yours[ \t]+(?:truly|sincerely)|love|take[ \t]+care|talk[ \t]+soon|"
             r"all[ \t]+the[ \t]+best|thx|ta|rgds|br|yours|yours[ \t]+faithfully|faithfully|respectfully|cordially|"
             r"warmly|best[ \t]+wishes|warm[ \t]+wishes|with[ \t]+love|much[ \t]+love|hugs|xoxo|xx|sincerely[ \t]+yours|"
             r"all[ \t]+(?:my|our)[ \t]+love|lots[ \t]+of[ \t]+love|love[ \t]+(?:always|from[ \t]+(?:us|all[ \t]+of[ \t]+us))|"
             r"with[ \t]+(?:all[ \t]+)?(?:my|our)[ \t]+love|thinking[ \t]+of[ \t]+you|"
             r"thanks[ \t]+(?:much|again|so[ \t]+much|a[ \t]+lot|in[ \t]+advance)|"
             r"thank[ \t]+you[ \t]+(?:again|so[ \t]+much|in[ \t]+advance)|many[ \t]+thanks[ \t]+in[ \t]+advance|tia|"
             # (and the closings of other languages in English mail: "besos,\nMari", "Saludos,\nBurak")
             r"besos|abrazos|un[ \t]+abrazo|saludos|saludos[ \t]+cordiales|gracias|gracias[ \t]+por[ \t]+todo|"
             r"muchas[ \t]+gracias|atentamente|cordialmente|ciao|grazie|bisous|cordialement|bien[ \t]+[àa][ \t]+vous|"
             r"gr[üu](?:ß|ss)e|viele[ \t]+gr[üu](?:ß|ss)e|mfg|obrigad[oa]|abra[çc]os|beijos|"
             # (Welsh, Irish, Dutch, Scandinavian, Polish, Turkish)
             r"diolch|diolch[ \t]+yn[ \t]+fawr|cofion|go[ \t]+raibh[ \t]+maith[ \t]+agat|groetjes|"
             r"met[ \t]+vriendelijke[ \t]+groet|"
             r"mvh|med[ \t]+vennlig[ \t]+hilsen|hilsen|hälsningar|vänliga[ \t]+hälsningar|pozdrawiam|pozdrowienia|"
             r"sayg[ıi]lar[ıi]mla|te[şs]ekk[üu]rler")
# The folders of a mail client's mailbox ("\\Inbox", "\\Sent Items", "\\Notes Folders\\All documents"): no
# mailbox owner's name
MAIL_FOLDER_WORDS = frozenset("""inbox outbox sent items deleted drafts draft junk spam notes folders folder documents
discussion threads calendar archive archives personal saved trash contacts tasks journal""".split())
# The local parts of shared mailboxes: their words name a function, never a person ("info@", "sales.team@")
MAILBOX_WORDS = frozenset("""info information sales support help helpdesk service services admin administrator
contact contacts office mail email mailbox team hello hi noreply reply no webmaster postmaster press news
newsletter jobs careers hr billing accounts account finance legal privacy security abuse marketing orders
order shop store booking bookings reservations enquiries inquiries feedback customer customers care dev
devs root user users test demo example group list lists notifications alerts updates editor editors desk
reception general hq all staff dept department""".split())
# (and the greetings of other languages that English mail opens with: "Buenos dias Alejandra!", "Hola Chuy,")
GREETINGS = (r"hi|hello|hey|dear|morning|good[ \t]+(?:morning|afternoon|evening)|greetings|hiya|yo|"
             r"buen[oa]s[ \t]+(?:d[ií]as|tardes|noches)|hola|bonjour|hallo|ciao|salut|"
             # (other languages' greetings that open a mail in English: "Kia ora Sione,", "Salaam Bilal,")
             r"kia[ \t]+ora|t[eē]n[aā][ \t]+koe|talofa|aloha|sala+m|shalom|namaste|hej|moin|"
             r"guten[ \t]+(?:morgen|tag)|ahoj|cze[sś][cć]|merhaba|sawubona|jambo")
# ... and the word each of them opens with, as written out (a line's first word says a greeting opened it; that
# word alone is no name): tests/test_pii.py checks that every one opens a GREETINGS form
GREETING_FIRST_WORDS = frozenset("""hi hello hey dear hiya yo morning greetings good buenos buenas hola bonjour hallo
ciao salut kia tena tēnā talofa aloha salam salaam shalom namaste hej moin guten ahoj czesc cześć merhaba sawubona
jambo""".split())
# Kin and care roles a name follows in notes and letters ("pt's daughter Ingrid", "wife JOLANTA at bedside");
# every spelling written out, so pii_name_rules can match them through one prefix tree (trie_alternation)
KIN_WORDS = tuple("""wife husband son daughter mother father mom mum dad sister brother partner fiance fiancee fiancé
fiancée girlfriend boyfriend nephew niece aunt uncle grandson granddaughter grandmother grandfather neighbor neighbour
friend roommate caregiver pcp attending nurse cousin hubby wifey bff bestie bf gf grandma grandpa granny nana granddad
grand-dad stepmom step-mom stepmum step-mum stepdad step-dad stepson step-son stepdaughter step-daughter sis bro boss
coworker co-worker colleague teammate team-mate classmate class-mate flatmate flat-mate housemate house-mate buddy bae
baby sons daughters brothers sisters grandsons granddaughters nephews nieces cousins widow widower ex-wife
daughter-in-law son-in-law mother-in-law father-in-law sister-in-law brother-in-law
ex-husband ex-girlfriend ex-boyfriend ex-partner
dtr dau gdtr dtr-in-law dau-in-law d-i-l s-i-l""".split())  # (a note's shorthand: "Dtr-in-law Lan brought pho")


# The roles of a ward's, a clinic's or a police team's members that notes write before a name ("HCA Tomasz",
# "PC Hughes", "aide Precious", "AMHP (Siobhan Kearney)"): letters and words. Not "PT" (a US note's patient)
CARE_ROLES = tuple("""sw msw cm lpn lvn cna pca hca amhp cpn enp anp nnp aprn crna cnm pta ota slt salt ot rn np rt rrt
hcp gp sho fy1 fy2 pc dc
ds di dci wpc psw sitter carer aide interpreter translator liaison midwife mw physio physiotherapist chaplain porter
keyworker key-worker doula paramedic matron registrar houseman dietitian dietician pharmacist therapist
counsellor counselor advocate lactation psych psychologist psychiatrist social-worker s/n e/n sn mgr
mgmt biomed charge sup supv supervisor ns cn""".split())  # ("Handover from NS Ibrahim": a night sister)


# A care home's staff besides its carers and nurses, whom notes name with the role in brackets ("– Faith
# (activities)") or the name in brackets after the role ("given by senior carer (Rosa)"): pii_rules_notes and
# pii_rules_news read them both ways
CARE_HOME_STAFF = ("activities", "activities co", "activities co-ord", "activities coord", "activities co-ordinator",
                   "activities coordinator", "activities lead", "activities team", "volunteer", "senior carer",
                   "team leader", "hairdresser", "housekeeper", "housekeeping", "receptionist")


# Days of the week and their short forms: a date's word, never a name after a role ("physio Monday")
WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs fri sat "
                     "sun".split())

# The departments of a firm, a hospital or a public body, which people are "from" or "in" ("Young from HR will
# handle it", "pat from HR called", "Moira in Payroll", "sitter Jade from float pool")
DEPARTMENTS = frozenset("""hr it legal payroll accounting accounts finance compliance credit risk treasury facilities
security marketing sales ops operations admin administration procurement purchasing research engineering tax audit
reception support helpdesk billing logistics shipping trading structuring origination settlements contracts records
personnel pharmacy radiology admissions housekeeping catering maintenance underwriting claims investor relations
communications comms pr desk mailroom reprographics repro print printroom post-room postroom float pool float-pool
registry agency transport lab rt ot resp respiratory
dietary nutrition physio micro microbiology haematology hematology biochem biochemistry histology histo pathology
cytology immunology virology""".split())
# The words before a home's street given without its number ("lives on Greystone Road", "their house on Stanford
# Avenue"): pii_patterns' finder and pii.entities_for's gate read the same cue
HOME_ON = (r"(?i:lives?|lived|living|resides?|resided|residing|house|home|flat|bungalow|property)[ \t]+"
           r"(?:on|at)")
# The vital signs a note writes as letters before a value ("BP: 120/80", "HR 72"): no one's initials
VITAL_SIGNS = frozenset("bp hr rr gcs bm sats".split())


# A shift, a role or an office written in brackets after a name, whose letters may open with the given name's by
# chance ("Ana (AM), Bo (PM)", "Ms Ruiz (DSL)", "Ann Lee (NIC)", "Colm Doyle (CEO)", "Ana Ruiz (NOK)", "Lt Diaz (PD)"):
# no one's initials there unless the name spells them (pii_repeats.aliases_of)
SHIFTS_AND_OFFICES = frozenset("""am pm ld nd dsl senco sendco dpo nic nok po pd ceo cfo coo cto cio cmo chro vp svp
evp md gm pa ea hod hoy lsa ta sen rmo ed""".split())
# Words of a team's, a desk's or an office's name, which holds an account but is no person ("Service Desk
# (@it_ops)", "@events_team (Events Team)")
NOT_OWNER_WORDS = frozenset("""desk team service support office group admin bot account official news sales help
department unit centre center club fc""".split())
# The verbs of saying after which a surname that is a word stands as the person ("Tell said", "Banks told")
SAYING_VERBS = r"(?:said|says|told|added|argued|testified|claimed|replied|wrote|explained|noted|stated|admitted|denied)"
# Teams, wards and bodies that take an action in notes and minutes as a person does ("GP to review", "MDT to
# discuss", "ED to admit", "UK to remain"): their letters are no one's initials
TEAMS_THAT_ACT = frozenset("""mdt ed ae icu itu hdu ccu nicu picu scbu ward wards team cmht crht cpn dn dns ooh lab
labs ccg icb pct cqc dwp cps hmrc dvla la lea smt slt pta pfa board exec ops fin mgt mgmt sec gov govt uk us eu un nhs
who imf gp gps""".split())
# The letters that own a task in minutes and notes without being a person's: departments, teams, bodies, and the
# acronyms that open a line of notes ("NB:", "FYI -", "AOB"). NOT_INITIALS's chat acronyms ("gl", "hf", "ps", "mt")
# are a person's initials where they own a task ("seconded HF", "PR to write", "GL agreed")
NOT_ACTORS = (DEPARTMENTS - {"pr"}) | TEAMS_THAT_ACT | frozenset(
    """nb fyi asap eod eom cob tbc tbd tba eta am pm ok aob faq na rsvp ooo pto est pst cst gmt utc etc usa ceo cfo cto
    coo cio tv pc ai ap bp ge hp nyc dc fbi cia""".split())
# The headings of a table's column that holds people ("| Manager |", "TRADER", "Assigned to")
PERSON_HEADINGS = frozenset("""name names person people manager managers trader traders employee employees owner
analyst analysts broker brokers engineer engineers supervisor supervisors scheduler schedulers coordinator
coordinators counsel attorney attorneys lawyer lawyers surgeon surgeons consultant consultants therapist officer
owners contact contacts player players applicant applicants attendee attendees assignee assignees reviewer reviewers
author authors driver drivers nurse nurses doctor doctors physician rep representative salesperson agent agents
member members student students teacher teachers coach coaches approver approvers requester requestor chair
lead leads captain captains staff worker workers technician caller patient patients client clients customer
customers tenant tenants guest guests volunteer volunteers speaker speakers presenter presenters host hosts
instructor instructors judge judges witness witnesses sign signed signature sig initials init visitor visitors
visiting resident residents carer carers""".split())
PERSON_HEADING_PHRASES = ("assigned to", "full name", "first name", "last name", "given name", "given names",
                          "family name", "surname", "surnames", "forename", "forenames", "account manager",
                          "point of contact", "responsible", "submitted by", "approved by", "owned by")

# The words of a body's name, which a party line in a judgment's heading holds and a person's does not ("THE STATE",
# "A NHS FOUNDATION TRUST"), and a signature block's first line too ("Sales Team")
BODY_WORDS = frozenset("""ltd limited llp plc inc corp corporation company co trust bank state union government republic
council nhs foundation authority board ministry department commission commissioner police service services
university college school hospital society association bureau agency federation municipal municipality city
county district office insurance assurance group holdings partners estate registrar secretary attorney general
director officer inspector collector tribunal court""".split())


def trie_alternation(words) -> str:
    """A regex group matching exactly one of `words`, factored by shared prefixes ("s(?:on|ister)..."): the
    regex engine tries alternatives one by one at every position, so a flat list of 80 words cost the
    filter ~80 µs a prompt where the tree costs ~25. Longer words are tried before their prefixes."""
    trie: dict = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:
        alts = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body
    return "(?:" + emit(trie) + ")"


def first_word_gate(words: str) -> str:
    """A look-ahead that lets a regex go on only where one of `words` (the words its alternatives open with,
    space-separated) begins: it rejects most positions at the cost of one prefix-tree step, and changes no
    match (nothing is asked of what follows the word)."""
    return r"(?=" + trie_alternation(words.split()) + r")"


def cue_alternation(rows) -> str:
    """A table of cues as one regex group, tried row by row in order: each row is (what may stand before the
    cue, its first words space-separated, the regex that follows them). The first words of every row make
    the group's `first_word_gate`, so a row added to a table is never shut out by its gate."""
    return first_word_gate(" ".join(words for _, words, _ in rows)) + "(?:" + "|".join(
        f"{before}(?:{'|'.join(words.split())}){after}" for before, words, after in rows) + ")"


# Titles, ranks and kin markers a name follows, in any case, with or without a space after the dot ("Sri.E.Radhakrishnan",
# "W/o. Laxmaiah": Indian courts' honorifics and "wife/son/daughter of"), as one regex group
TITLE_WORDS = trie_alternation("""mr mrs ms miss mx dr prof rn np rt sri shri smt kum adv justice judge inspector constable
sergeant sgt det capt captain colonel col lieutenant lieut lt corporal cpl brigadier rev s/o d/o w/o c/o councillor
cllr alderman alderwoman coach pastor rabbi imam reverend deacon mohd commander cmdr admiral superintendent supt sheriff
marshal ofc officer trooper deputy""".split())

# Roles before which a judgment or a report writes a person as an initial ("investigator S.", "officers B. and
# D.", "witness K."): there the initial is the person's name
INITIAL_ROLES = (r"investigator|officer|police[ \t]+officer|witness|prosecutor|judge|doctor|nurse|neighbou?r|inspector|"
                 r"lieutenant|major|captain|sergeant|colonel|agent|detective|applicant|victim|suspect|defendant|"
                 r"accused|guard|warder|head|director|employee|patient|resident|client|"
                 # (and kin, as judgments name a party's child or relative by an initial: "his son, M.")
                 r"son|daughter|child|children|boy|girl|brother|sister|wife|husband|mother|father|nephew|niece|"
                 r"grandson|granddaughter|"
                 r"cousin|partner|fianc[eé]e?|girlfriend|boyfriend|friend|ex")


# Roles before which a report or a tribunal names a person by one capital letter, no dot ("Patient A", "Resident
# B", "Service User C", "Child X")
LETTER_ROLES = (r"patient|resident|client|service[ \t]+user|pupil|student|child|person|individual|complainant|"
                r"witness|victim|registrant|employee|colleague|worker|tenant|member[ \t]+of[ \t]+staff")


# What a person does, written right after a lone initial that stands for that person, as judgments anonymise
# witnesses ("G. told the police", "K. was arrested"); a letter ending a sentence is followed by a capital
INITIAL_ACTOR_VERBS = (r"told|said|says|stated|states|was|had|has|testified|submitted|claimed|alleged|confirmed|denied|"
                       r"asked|went|left|lived|lives|died|arrived|returned|admitted|maintained|explained|declared|"
                       r"identified|recogni[sz]ed|saw|heard|informed|complained|refused|signed|gave|received|hit|"
                       r"struck|threatened|attacked|killed|called|visited|met|lodged|brought|appealed|contended|"
                       r"argued|replied|insisted|noted|added|described|worked|married|fled|disappeared")
# Verbs of living or working somewhere: what follows "lives in", "practising in", "based in" is a place
# ("a lawyer practising in Braga"), never a person (none of 7,085 labelled names of the train and dev splits)
PLACE_VERBS = (r"lives?|lived|living|resides?|resided|residing|born|based|practi[sc]ing|practi[sc]es|resident|"
               r"located|situated|headquartered|settled|domiciled")
# ... and of going somewhere: "flew to Dordrecht", "moved to Espoo" (not "drove": a batter "drove in Daniel Nava")
MOVE_VERBS = (r"flew|flying|travell?ed|travell?ing|moved|relocated|emigrated|immigrated|returned|headed|arrived|"
              r"sailed|deployed|evacuated|exiled|fled")
# What a place is "the ... of" ("the state of Punjab", "residents of Raqqah"; "r/o", resident of, in Indian
# judgments): 25 wrong redactions of the train/dev splits and Spec-Bench stood there, no labelled name
PLACE_OF = r"state|residents?|natives?|citizens?|outskirts|capital|province|region|suburbs?|streets|r/o"
# Words that make the name before them a place or a body ("Wayne County", "Patna Municipal Corporation")
PLACE_AFTER = frozenset("""county district airport municipal municipality province borough council parliament river
valley harbour harbor""".split())
# ... and these, unless the name before them opens with a given name ("Hancock Brook", "Mullen Siding" are
# places; "Joe Brook", "Amy Pond" are people): none is a surname of the lists ("Park", "Hall", "Lane" are out)
PLACE_NOUNS = frozenset("""brook pond creek siding school academy college university hospital clinic station avenue
road boulevard highway village township parish island islands cathedral museum stadium arena forest canyon plaza
institute foundation railway railroad""".split())


# ... and these close a place or a body's name whatever word opens it, a given name too ("Thomas Road", "Gopal Reddy
# Layout", "Samarth Ashram School", "Vijaya Bank"): none is a surname of the lists, and a person's name never ends so
# (not "temple" or "nagar", surnames the lists lack: "Shirley Temple", "Rajesh Nagar")
INSTITUTION_HEADS = frozenset("""school academy college university hospital clinic institute road avenue boulevard
highway street lane marg colony layout apartments apartment residency enclave society bank cathedral church
mosque masjid mandir gurudwara museum stadium railway railroad ltd limited pvt llp plc inc state""".split())


# the closings a writer puts before the initials they sign with on the same line ("thx, dg", "cheers, K")
SHORT_CLOSINGS = r"thx|thanks|tks|tx|cheers|regards|rgds|best|ta"

# Two or three letters that end a message as often as initials sign it: acronyms of mail, chat and common
# bodies, never taken for a signature
NOT_INITIALS = frozenset("""fyi asap thx tks tia lol omg wtf smh tbh idk irl ftw rt mt lmao rofl brb gtg np ty yw
hbd ok pls plz btw imo imho eod eom cob nb ps pto ooo rsvp usa uk us eu un ceo cfo cto coo hr it pr qa faq am pm
est pst cst gmt utc nyc la dc tv pc ai ml etc pdf doc xls ppt yes no yay aww haha hah hmm ugh xo xoxo
eta tba tbd tbc xd xp gg gl hf bye cya ttyl lmk wow meh yep yup nah thnx tnx xx""".split())
# Degrees and units written with capitals and lower case, no one's initials ("PhD", "MWh")
NOT_MIXED_INITIALS = frozenset("phd msc bsc mba llm llb kwh mwh gwh twh mhz ghz khz mmbtu mmcf bcf mcf".split())


# Words that take a greeting's or a closing's place but are nobody's name
NOT_ADDRESSED = frozenset("""all everyone everybody team folks guys there sir madam colleagues friends you
again both y'all ya mate ok okay yes no so well sure note please update
koutou kōrua korua katoa tātou tatou rawa""".split())  # (Māori's "all", "you two", "very": "Kia ora koutou,")
# ... and what a closing's comma addresses that is nobody's name ("thanks, mate", "cheers, guys")
CLOSING_ADDRESSEES = frozenset("""mate mates dude dudes bro bros buddy babe hon honey love dear folks guys team gang boss
chief madam sweetie darling pal pals friend friends everybody""".split())
# Dotted abbreviations that are not initials of a person
DOTTED_NOT_INITIALS = frozenset("""U.S. U.K. E.U. U.N. A.M. P.M. D.C. B.C. A.D. N.Y. L.A. U.S.A. U.A.E. U.S.S.R.
E.G. I.E. P.S. R.I.P. Q.E.D. N.B. T.V. O.K. B.A. M.A. B.S. M.S. M.D. R.N. P.O. G.P. J.D. No. St. Ch.B. Ph.D.""".split())



SENTENCE_STARTERS = frozenset("""the then this that these those it its in on at a an we they he she i but and so
however there here also after before when while if as for to of our my your his her their no yes what who
whom whose which why how where is are was were do does did can could would will should shall may might must
let please now next finally first second third note see""".split())

# Parties that are no private person: the state, the crown, public bodies
STATE_PARTIES = frozenset("""state states people commonwealth crown queen king regina rex r government republic
federation union council city county board department ministry secretary attorney general minister united
kingdom america usa us uk""".split())
PARTY_NOISE = frozenset("""case of in the see and judgment application no cf also re ex parte others""".split())

# Words that are never a name, whatever found them: interjections and laughter of chat text ("lol",
# "Hahaha", "Ugh", "Awwww"), titles and offices standing alone ("Mr", "Hon'ble", "Secretary"), and the
# abbreviations of court documents ("Ors", "Anr", "Advs"); measured on the dev splits of the panel's corpora.
NEVER_A_NAME = re.compile(
    r"(?i)^(?:l+o+l+z?|l+m+f*a+o+|r+o+f+l+|o+m+g+|w+t+f+|h+a+(?:h+a+)+h*|h+e+h+e+|h+m+|u+g+h+|e+w+|y+e+a+h*|y+e+p+|"
    r"y+a+y+|w+o+w+|w+o+h+o+o+|a+w+h*|a+h+|o+h+|u+h+|u+m+|e+r+m+|h+u+h+|h+e+y+|o+o+p+s+|y+i+k+e+s+|h+u+r+r+a+y+|y+e+s+|n+o+p+e+|"
    r"mr|mrs|ms|miss|mx|dr|prof|sir|madam|sri|shri|smt|adv|advs|advocate|hon'?ble|honourable|honorable|justice|"
    r"judge|secretary|president|speaker|senator|senators|emperor|prince|princess|king|queen|chief|minister|"
    r"ors|anr|nos|no|etc|coram|annexure|writ|petitioner|respondent|appellant|appellants|respondents|others|"
    r"god|mom|mum|dad|grandma|grandpa|sis|bro|bruh|brah|dude|guys|cutie|babe|baby|honey|"
    # chat's interjections and shorthand, which the model reads as a name opening a post ("Gosh goosebumps",
    # "Congrats man", "Plz Subscribe")
    r"gosh|golly|jeez|geez|congrats|congratulations|plz|pls|thx|tnx|luv|cuz|coz|gotcha|gonna|wanna|gotta|anytime|"
    r"anybody|everybody|somebody|nobody|anyone|everyone|someone|anyway|anyways|whoa|woah|bravo|holy|damn|dang|"
    r"omfg|smh|tbh|imo|imho|idk|ikr|btw|lmk|nvm|nah|yeah|yep|yup|"
    # the greetings and thanks of other languages in English mail ("Buenos dias Ana!", "Saludos,")
    r"buenos|buenas|hola|saludos|besos|abrazos|gracias|bonjour|merci|danke|grazie|obrigado|obrigada|"
    # a placeholder for a person in a task's template ("PersonX was born in ...")
    r"person[xyz]|"
    # the patient and the care team's roles in notes ("Pt's wife", "Pt seen by", "RN aware")
    r"pt|pts|pt's|patient|rn|np|md|pa|sw|cm|pcp|resident|attending|fellow|intern|"
    # company forms and the words of court filings ("Ltd", "Versus", "Govt. Advocate", "Cwp No.")
    r"ltd|pvt|llp|plc|inc|corp|versus|vs|govt|cwp|crl|cri|slp|wp|proh|clause|act|"
    # the parties of a contract or a deed named by their role ("The Pledgor further agrees")
    r"pledgor|pledgee|mortgagor|mortgagee|lessor|lessee|assignor|assignee|licensor|licensee|obligor|obligee|"
    r"guarantor|grantor|grantee|vendor|vendee|testator|testatrix|deponent|complainant|accused|informant|"
    r"borrower|borrowers|lender|lenders|"
    # a letter's closing words and abbreviated offices ("Respectfully, George Chriss", "Assoc. Dean")
    r"respectfully|sincerely|regards|cordially|faithfully|assoc|asst|"
    # military ranks, abbreviated ("Maj. Gen. Gary J. Volesky")
    r"maj|gen|col|lt|sgt|cpl|capt|adm|brig|cmdr|cdr|lieut)$")

# Section labels of clinical and case notes ("Neuro: A&O x3", "Resp: LS clear"): never a name before their colon
NOTE_LABELS = frozenset("""neuro neurologic resp respiratory pulm pulmonary cardiac cardio cv cvs gi gu renal skin
integ integumentary social psychosocial plan pain id endo endocrine heme access lines assessment action response
psych activity diet dispo disposition hpi pmh psh meds medications allergies vitals vs labs imaging exam impression
ros cc a/p subjective objective ms mental status gen general heent lungs abd abdomen ext extremities msk
events vent fen lytes code ivf nutrition cardiovascular genitourinary gastrointestinal derm wounds wound safety
family comfort mobility misc other npn""".split())
# Devices named after their inventors ("Foley draining clear urine", "Swan-Ganz in place"), each also a surname:
# not a name where device words follow or an article or a size stands before (pii_names.eponym_device)
EPONYM_DEVICES = frozenset("""foley swan swan-ganz hickman groshong jackson-pratt penrose dobhoff corpak quinton
mahurkar yankauer blakemore passy-muir posey""".split())
DEVICE_WORDS = frozenset("""catheter catheters cath draining drained drains drain patent in to care bag removed d/c dc
dc'd d/c'd changed replaced inserted placed irrigated flushed intact output with w/ tube line collar valve boots
dressing clamped""".split())

# What a news wire calls a company, an agency or a paper right before its name ("carmaker Toyota said", "news
# agency Itar-Tass said"); never a word that also names a person's trade or standing ("operator", "carrier",
# "giant", "rival", "brewer": "crane operator Jim said"), nor a place one is in ("the office Smith said was")
COMPANY_NOUNS = frozenset("""agency company group firm conglomerate corporation subsidiary unit affiliate
carmaker automaker drugmaker steelmaker chipmaker planemaker tyremaker toymaker phonemaker truckmaker manufacturer
insurer reinsurer retailer bank lender brokerage broker bourse exchange regulator watchdog ministry daily
newspaper weekly broadcaster airline refiner utility distributor wholesaler supermarket chain fund trust
consultancy partnership institute federation association union network channel publisher""".split())
# What a text may declare a name to be that no person is ("Atwick is a village", "Crazyhead are an English punk
# band", "Thyrza, a series of elegies"): places, bodies, works, dishes, events, species. Not "star", "character",
# "duo", "show" or "act": a person is called those
THING_KINDS = frozenset("""village hamlet town city capital suburb district neighbourhood neighborhood municipality
parish county borough region province state country island archipelago peninsula river lake mountain valley
volcano port settlement band company firm corporation consultancy brand label manufacturer retailer bank airline
newspaper magazine journal website bookstore bookshop shop store restaurant hotel pub album song single film movie
novel book play opera poem series cycle collection anthology sitcom programme program software language dish drink cocktail beverage dessert
cheese soup sauce procession festival holiday celebration ritual genre ship vessel aircraft school college
university museum church temple mosque cathedral castle palace bridge building tower station airport stadium park
road street railway canal dam team club league party organisation organization agency charity foundation
institute ministry breed species genus plant tree flower bird mineral drug disease syndrome planet galaxy
constellation crater hurricane storm cyclone typhoon""".split())
# News agencies, which speak and are told things as people are ("told Reuters", "Interfax quoted"): never a name
NEWS_AGENCIES = frozenset("reuters interfax itar-tass tass xinhua kyodo bernama ansa anp afp efe dpa yonhap".split())

# English words in lower case that no dictionary holds and that are given names in some language of Faker's lists
# (chat's "lotta", "hella", the Latin "vide" of Indian judgments): words there, never a name in lower case. Found
# on the corpora's dev splits, with chat's other spellings of the kind; the lower-case name rule reads every other
# such name ("gaby", "gunther"). Not "bella", "nana": names as often (recall first)
LOWER_CASE_WORDS = frozenset("""lotta hella sayin meta vide lassi heli gotta kinda sorta dunno gimme lemme outta
wanna gonna yall imma mucho bueno amigo amiga mama papa hola ciao""".split())

# The shorthand of clinical and nursing notes that no English dictionary holds ("Abd soft", "coarse bilat",
# "tol clear liquids", "f/u lytes"), and a ward's drugs and services: a safe list for the dictionary rule,
# never a name alone
NOTE_SHORTHAND = frozenset("""abd obs bilat sx tol cont noc prn qd bid tid qid qhs qam qpm qod hx dx tx rx fx sob doe pnd
nad wnl ivf npo oob lytes sats tf uo mso4 mae perrla perrl perl tmax tcurrent npn nsr abx vss afeb cath ett ngt ogt
picc cvp sbp dbp spo2 fio2 peep cpap bipap abg vbg cxr ekg ecg cta rrr ntnd inr ptt wbc hct hgb plt bun gluc fsbs riss ssi htn chf copd
cad cva uti pna gib ards afib vfib svt pvc dvt lle rle lue rue llq rlq luq ruq dtr hcp dnr dni cmo micu sicu ccu
csru tsicu nicu pacu trach vent extubated reintubated diurese diuresed diuresing pedal tele ambulated ambulating
lasix""".split()) | frozenset(
    # the drugs and services a ward's notes name by brand, generic or shorthand ("Levophed weaned", "Vanc trough",
    # "Seen by Neurosurgery"): the name model and the dictionary rule read them as names. Not "Foley" (a
    # catheter, and a surname: recall first), nor "Neo" and "Senna": given names of Faker's lists)
    """levophed neosynephrine vasopressin vaso dopamine dobutamine epi norepi milrinone vanc vanco vancomycin
zosyn pip-tazo piperacillin cefepime ceftriaxone cefazolin ancef kefzol flagyl metronidazole cipro levaquin
levofloxacin bactrim augmentin unasyn meropenem merrem zyvox linezolid dapto daptomycin fluconazole diflucan
acyclovir gent gentamicin tobra tobramycin heparin hep lovenox enoxaparin coumadin warfarin argatroban plavix
clopidogrel asa aspirin integrilin tpa lopressor metoprolol labetalol hydralazine lisinopril captopril norvasc
amlodipine diltiazem cardizem dig digoxin amio amiodarone lidocaine nitro ntg nitroglycerin nipride esmolol
propofol diprivan precedex dexmedetomidine versed midazolam fentanyl morphine dilaudid hydromorphone oxycodone
percocet vicodin tylenol acetaminophen motrin ibuprofen toradol ketorolac ativan lorazepam haldol haloperidol
seroquel quetiapine zyprexa olanzapine ambien zolpidem benadryl zofran ondansetron reglan compazine protonix
pantoprazole pepcid famotidine colace dulcolax lactulose miralax kayexalate insulin lantus humalog
glargine solumedrol methylprednisolone prednisone decadron dexamethasone hydrocortisone albuterol atrovent
combivent duoneb xopenex mucomyst keppra levetiracetam dilantin phenytoin depakote tegretol neurontin
gabapentin mannitol kcl kphos magox mag calcium gluconate bicarb narcan naloxone flumazenil lipitor
atorvastatin simvastatin zocor synthroid levothyroxine klonopin clonazepam xanax valium ceftaz nexium
neurosurgery nsgy neurology neuro cardiology cards ortho orthopedics nephrology renal pulmonology pulm
gastroenterology gi hepatology urology ent oncology onc hematology heme surgery gensurg ctsurg ctsicu ir
radiology rads endocrine endo psychiatry psych dermatology derm ophthalmology optho podiatry palliative
pt ot slp pharmacy duoderm tegaderm mepilex aquacel xeroform""".split()) | frozenset(
    # a note's labs, specimens, devices and findings opening a line or sentence ("Lactate cleared to 1.8",
    # "Sputum sent for culture", "Glucose 212"): the name model reads a capitalised one there as a name
    """glucose lactate sputum urine stool guaiac troponin creatinine bilirubin albumin lipase amylase ammonia
hemoglobin hematocrit platelets potassium sodium magnesium phosphorus phos chloride bicarbonate ferritin
procalcitonin fibrinogen d-dimer ddimer inr ptt pca dobhoff corpak swan neupogen filgrastim epogen neutropenic
afebrile febrile tachycardic bradycardic hypotensive hypertensive diaphoretic edematous jaundiced lethargic
resp respiratory wound incision telemetry iv""".split())

# Platforms, brands and technologies of everyday prompts that no English dictionary of WordNet's age holds:
# a safe list for the dictionary rule (Philter keeps such lists), never a name however they stand
# Parts of identifiers that code writes though no dictionary holds them, and Python's own names: an account made of
# them is code's ("sys", "len", "val" are given names of the world lists: "sys.argv", "max_len" are no accounts)
CODE_WORDS = frozenset(w.lower() for w in dir(builtins) + keyword.kwlist) | frozenset("""np pd os sys plt tf cuda
numpy linspace getcwd argv kwargs args str len val vals cfg config utils util init repr dtype ndarray arange
dataframe iloc loc idx ptr buf tmp src dst req res ctx env diff conv stderr stdout stdin lang meta elem
""".split())
# The endings of files' names: "notes.txt" and "config.yaml" are no accounts
FILE_ENDINGS = frozenset("txt md py js ts json yaml yml csv pdf doc docx xls xlsx ppt pptx png jpg jpeg gif html htm "
                         "xml exe zip log cfg ini sh bat sql java rb go rs c h cpp hpp css php mp3 mp4 wav mov".split())
KNOWN_PRODUCTS = frozenset("""facebook instagram twitter youtube tiktok whatsapp telegram google gmail microsoft
iphone ipad ipod macbook android xbox playstation nintendo netflix spotify linkedin reddit wikipedia snapchat
pinterest tumblr photoshop javascript typescript github gitlab bitcoin ethereum blockchain uber airbnb tesla
samsung huawei skype slack chatgpt openai ebay paypal covid coronavirus wifi bluetooth linux ubuntu kubernetes
docker tensorflow pytorch numpy pandas matlab excel powerpoint hashtag emoji selfie podcast vlog blogger
wordpress shopify etsy twitch discord minecraft fortnite pokemon wiki wikis wikinews wikimedia wiktionary
zotero wrestlemania smackdown nikkei nasdaq sony nvidia benz volkswagen toyota""".split()) | NEWS_AGENCIES


# The English name of every region `phonenumbers` knows, as its geocoder gives them (written out here: reading
# them through the geocoder cost every clean worker 0.25-0.45 s of start-up; tests/test_pii.py checks the
# list against phonenumbers)
_COUNTRY_NAMES = """Afghanistan|Albania|Algeria|American Samoa|Andorra|Angola|Anguilla|Antigua and Barbuda|Argentina|Armenia|Aruba|
Australia|Austria|Azerbaijan|Bahamas|Bahrain|Bangladesh|Barbados|Belarus|Belgium|Belize|Benin|Bermuda|Bhutan|
Bolivia|Bonaire, Sint Eustatius and Saba|Bosnia and Herzegovina|Botswana|Brazil|British Indian Ocean Territory|
British Virgin Islands|Brunei|Bulgaria|Burkina Faso|Burundi|Cambodia|Cameroon|Canada|Cape Verde|Cayman Islands|
Central African Republic|Chad|Chile|China|Christmas Island|Cocos Islands|Colombia|Comoros|Congo|Cook Islands|
Costa Rica|Croatia|Cuba|Curaçao|Cyprus|Czech Republic|Côte d'Ivoire|Denmark|Djibouti|Dominica|
Dominican Republic|Ecuador|Egypt|El Salvador|Equatorial Guinea|Eritrea|Estonia|Ethiopia|Falkland Islands|
Faroe Islands|Fiji|Finland|France|French Guiana|French Polynesia|Gabon|Gambia|Georgia|Germany|Ghana|Gibraltar|
Greece|Greenland|Grenada|Guadeloupe|Guam|Guatemala|Guernsey|Guinea|Guinea-Bissau|Guyana|Haiti|Honduras|
Hong Kong|Hungary|Iceland|India|Indonesia|Iran|Iraq|Ireland|Isle Of Man|Israel|Italy|Jamaica|Japan|Jersey|
Jordan|Kazakhstan|Kenya|Kiribati|Kuwait|Kyrgyzstan|Laos|Latvia|Lebanon|Lesotho|Liberia|Libya|Liechtenstein|
Lithuania|Luxembourg|Macao|Macedonia|Madagascar|Malawi|Malaysia|Maldives|Mali|Malta|Marshall Islands|Martinique|
Mauritania|Mauritius|Mayotte|Mexico|Micronesia|Moldova|Monaco|Mongolia|Montenegro|Montserrat|Morocco|Mozambique|
Myanmar|Namibia|Nauru|Nepal|Netherlands|New Caledonia|New Zealand|Nicaragua|Niger|Nigeria|Niue|Norfolk Island|
North Korea|Northern Mariana Islands|Norway|Oman|Pakistan|Palau|Palestine|Panama|Papua New Guinea|Paraguay|Peru|
Philippines|Poland|Portugal|Puerto Rico|Qatar|Reunion|Romania|Russia|Rwanda|Saint Helena|Saint Kitts And Nevis|
Saint Lucia|Saint Pierre And Miquelon|Saint Vincent And The Grenadines|Samoa|San Marino|Sao Tome And Principe|
Saudi Arabia|Senegal|Serbia|Seychelles|Sierra Leone|Singapore|Sint Maarten (Dutch part)|Slovakia|Slovenia|
Solomon Islands|Somalia|South Africa|South Korea|South Sudan|Spain|Sri Lanka|Sudan|Suriname|
Svalbard And Jan Mayen|Swaziland|Sweden|Switzerland|Syria|Taiwan|Tajikistan|Tanzania|Thailand|
The Democratic Republic Of Congo|Timor-Leste|Togo|Tokelau|Tonga|Trinidad and Tobago|Tunisia|Turkey|Turkmenistan|
Turks And Caicos Islands|Tuvalu|U.S. Virgin Islands|Uganda|Ukraine|United Arab Emirates|United Kingdom|
United States|Uruguay|Uzbekistan|Vanuatu|Vatican|Venezuela|Vietnam|Wallis And Futuna|Yemen|Zambia|Zimbabwe|
Åland Islands"""


@lru_cache(maxsize=1)
def country_names() -> frozenset[str]:
    """The English name of every region `phonenumbers` knows ("Poland", "United Kingdom", ...)."""
    return frozenset(_COUNTRY_NAMES.replace("\n", "").split("|"))


# Faker's person providers whose given names the filter knows (MIT-licensed lists installed with Faker, nothing
# downloaded): English-speaking countries, Europe, South and East Asia, Africa, the Middle East, Latin America
GIVEN_NAME_LOCALES = ("en_US", "en_GB", "en_IE", "en_NZ", "en_IN", "hi_IN", "ta_IN", "bn_BD",
                      "ne_NP", "de_DE", "de_AT", "fr_FR", "fr_CA", "es_ES", "es_MX", "it_IT", "pt_BR", "pt_PT",
                      "nl_NL", "pl_PL", "cs_CZ", "sk_SK", "sl_SI", "hr_HR", "hu_HU", "ro_RO", "bg_BG", "el_GR",
                      "sv_SE", "da_DK", "no_NO", "fi_FI", "lt_LT", "lv_LV", "et_EE", "uk_UA", "ru_RU", "tr_TR",
                      "az_AZ", "ka_GE", "hy_AM", "he_IL", "fa_IR", "ar_AA", "id_ID", "vi_VN", "th_TH",
                      "ja_JP", "zh_CN", "ko_KR", "tw_GH", "yo_NG", "zu_ZA",
                      # (in Latin letters, the given names of Pakistan, Kenya, Nigeria's Igbo and Hausa, Thailand,
                      # Ireland's Irish, Swahili, Uzbek, Colombian, Chilean and Argentine Spanish: "Faisal",
                      # "Achieng", "Chiamaka", "Aliyu")
                      "en_PK", "en_KE", "ig_NG", "ha_NG", "en_TH", "ga_IE", "sw", "uz_UZ", "es_CO", "es_CL",
                      "es_AR")


ENGLISH_LOCALES = ("en_US", "en_GB", "en_IE", "en_NZ")  # Faker has no person provider for en_AU, en_CA
SIGNATURE_LOCALES = ("en_US", "en_GB")  # whose given names sign a message after a dash in lower case
# The short forms English speakers go by and sign with, which Faker's lists (formal names) lack: "Thanks,\nRob",
# "-Vince", "talk to trish"; read as English given names wherever those are
ENGLISH_NICKNAMES = frozenset("""Abe Al Alf Andy Archie Artie Barb Barney Bart Bea Bec Becca Bernie Bess Bev Bif
Bill Billy Bob Bobbi Bobby Bud Buddy Cal Cam Cassie Cathy Chas Chip Chris Chrissy Chuck Cindy Cliff Connie Dan Danny
Dave Davy Deb Debbie Debby Dick Dot Dottie Doug Drew Ed Eddie Eddy Ellie Fran Frankie Fred Freddie Freddy Gabe
Gerry Gil Greg Gus Gwen Hal Hank Harry Jack Jake Jan Jen Jenny Jeff Jerry Jim Jimmy Jo Joe Joey Jon Jonny Josh Judy
Kate Katie Kathy Ken Kenny Kris Larry Len Lenny Les Liz Lizzie Lou Lu Maggie Mandy Marge Matt Meg Mel Mick Mickey Mike
Mikey Mitch Molly Nan Nat Nate Ned Nick Nicky Nikki Ollie Pam Pat Patsy Patty Peg Peggy Pete Phil Randy Ray Rick Ricky
Rob Robbie Ron Ronnie Rosie Russ Sal Sally Sam Sammy Sandy Steph Steve Stevie Stu Sue Suzy Tad Ted Teddy Terry Tim
Timmy Tom Tommy Toni Tony Trish Trudy Val Vic Vicky Vince Walt Wes Will Willy Zach Zack Zeke Rich Marty Bert Benny
Jess Vinnie Kev Sid Dom Jules Gabby Manny Rod Sunny Rusty Skip Sully Buck Herb Mo Moe Bubba Butch Sonny Smitty Chuy
Kip Chet Biff Buzz Scooter Lefty Boomer Tubby Precious Kat Cass Liv Lexi Izzy Bex Tash Soph Mags Kaz Babs Millie Maddie
Tilly Lottie Paddy Gaz Baz Daz Shaz Jez Rach Kez Shay Nads Yaz Jonno Robbo Macca Davo""".split())


def _person_names(locales: tuple[str, ...], attrs: tuple[str, ...]) -> frozenset[str]:
    """The capitalised names in the `attrs` lists of Faker's person provider of each locale it has."""
    import importlib
    names: set[str] = set()
    for locale in locales:
        try:
            provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        except ImportError:
            continue
        for attr in attrs:
            listed = getattr(provider, attr, None)
            if isinstance(listed, property):  # (a locale that builds its lists at run time: en_PK)
                continue
            names.update(w for w in listed or () if isinstance(w, str) and w[:1].isupper())
    return frozenset(names)


# The given names and surnames of the 1990 US Census that are common enough (bench/name_lists_recipe.py writes the
# files): the names of older people, whom notes and letters name most ("Pearl", "Myrtle", "Clyde"), and the surnames
# no dictionary holds ("Kowalczyk", "Wojcik"), which Faker's lists lack
_CENSUS_DIR = Path(__file__).resolve().parent.parent / "eaglekit" / "data" / "pii" / "names"
CENSUS_GIVEN_NAMES = _CENSUS_DIR / "census1990-given.txt"
CENSUS_SURNAMES = _CENSUS_DIR / "census1990-surnames.txt"


def _census_list(path: Path, what: str) -> frozenset[str]:
    """The names of one of the package's lists (empty, with a warning, where the file is missing: a damaged
    install)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as err:
        import warnings
        warnings.warn(f"{path}: {err}; reinstall eaglekit or run bench/name_lists_recipe.py. The filter's {what} "
                      "come from its other lists alone")
        return frozenset()
    return frozenset(w.strip() for w in lines if w.strip() and not w.startswith("#"))


@lru_cache(maxsize=1)
def census_given_names() -> frozenset[str]:
    """CENSUS_GIVEN_NAMES' names."""
    return _census_list(CENSUS_GIVEN_NAMES, "given names")


@lru_cache(maxsize=1)
def census_surnames() -> frozenset[str]:
    """CENSUS_SURNAMES' names."""
    return _census_list(CENSUS_SURNAMES, "surnames")


# The world's most common given names and surnames in Latin letters (the popular-names-by-country dataset, CC0,
# romanized; bench/name_lists_recipe.py writes the files): the names of the countries whose Faker lists are in their
# own script ("Dmitry", "Andriy", "Giorgi", "Hossein") and the surnames of those whose Faker lists hold none
# ("Melnyk", "Kovalenko", "Beridze", "Hakobyan"), which a court's applicants and a wire's athletes bear
WORLD_GIVEN_NAMES = _CENSUS_DIR / "world-given.txt"
WORLD_SURNAMES = _CENSUS_DIR / "world-surnames.txt"
# ... and Faker's Hindi given names, which it holds in Devanagari only, romanized as Indian English spells them
# ("Rajesh", "Sandeep", "Sunil"; bench/name_lists_recipe.py writes the file)
HINDI_GIVEN_NAMES = _CENSUS_DIR / "hindi-given-romanized.txt"


@lru_cache(maxsize=1)
def world_given_names() -> frozenset[str]:
    """WORLD_GIVEN_NAMES' and HINDI_GIVEN_NAMES' names."""
    return _census_list(WORLD_GIVEN_NAMES, "given names") | _census_list(HINDI_GIVEN_NAMES, "given names")


@lru_cache(maxsize=1)
def world_surnames() -> frozenset[str]:
    """WORLD_SURNAMES' names."""
    return _census_list(WORLD_SURNAMES, "surnames")


# Words some of Faker's lists hold as given names (of the Kenyan, Pakistani and Irish lists) that text uses as words
# or for no person far more often: a finder that trusts a given name alone would redact them ("Peace out.", "a
# Muslim family", "the Danish side"). The virtue names stay names ("SN Patience", "Mercy at bedside"): recall first
WORDS_NOT_GIVEN_NAMES = frozenset("""Anon Danish Ever Fancy Lady Loot Mad Man Muslim Nail Raid Sad Safari Peace Basel
Sabah Kaiser Eider Elver Levis Javan Mac Hermes Dona Goma Duma Amon Anasa Marly Peris Qadi""".split())


# one entry per locale tuple the finders ask for (all, English, US+GB): a smaller cache evicted and re-read
@lru_cache(maxsize=None)
def given_names(locales: tuple[str, ...] = GIVEN_NAME_LOCALES) -> frozenset[str]:
    """First names of people in Faker's locale lists (16.8k over GIVEN_NAME_LOCALES; "Ewan", "Ingrid", "Chidi",
    "Priya"), over all of them the world's common names in Latin letters (world_given_names), and with an English
    locale the short forms of ENGLISH_NICKNAMES and the census's names (census_given_names). Many are also places or
    words ("Paris", "Grace", "Will"): a finder uses them only where a name's place is already likely."""
    names = _person_names(locales, ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary"))
    names -= WORDS_NOT_GIVEN_NAMES
    if locales == GIVEN_NAME_LOCALES:
        names |= world_given_names()
    if set(locales) & set(ENGLISH_LOCALES):
        return names | ENGLISH_NICKNAMES | census_given_names()
    return names


@lru_cache(maxsize=None)
def surnames(locales: tuple[str, ...] = ENGLISH_LOCALES) -> frozenset[str]:
    """Last names of people in Faker's locale lists ("Adams", "Banks", "Woods"), and with an English locale the
    census's and the world's common surnames (census_surnames, world_surnames): a plural of a common noun that is
    also a surname is not taken for the noun."""
    names = _person_names(locales, ("last_names",))
    return names | census_surnames() | world_surnames() if set(locales) & set(ENGLISH_LOCALES) else names


_PLACE_LIST_WORDS = ("cities", "states", "provinces", "regions", "counties", "departments", "prefectures",
                     "municipalities", "districts")


def in_name_lists(word: str) -> bool:
    """`word`, as written, is a given name or a surname of Faker's lists."""
    return word in given_names() or word in surnames()


@lru_cache(maxsize=None)
def place_names() -> frozenset[str]:
    """Cities, states, provinces, regions and counties in Faker's address lists of every locale ("San Francisco",
    "Haryana", "Tipperary"; ~30k): an entity the NER called a place that is one of them stays a place even
    when no dictionary holds its words."""
    import importlib
    import pkgutil
    import faker.providers.address as address
    names: set[str] = set()
    for module in pkgutil.iter_modules(address.__path__):
        try:
            provider = importlib.import_module(f"{address.__name__}.{module.name}").Provider
        except ImportError:
            continue
        for attr in dir(provider):
            if not attr.endswith(_PLACE_LIST_WORDS):
                continue
            value = getattr(provider, attr, None)
            if not isinstance(value, (list, tuple, dict)):
                continue
            for v in (value.values() if isinstance(value, dict) else value):
                v = v[-1] if isinstance(v, tuple) and v else v
                if isinstance(v, str) and len(v) > 3 and v[:1].isupper():
                    names.add(v)
    return frozenset(names)


# ---- words the name finders (pii_names) and the handle recognizer (pii_patterns) read ----------------------

# Words a name never holds or runs over: function words, greetings, a few numerals and adjectives
NAME_STOPS = frozenset("""a an the and or but if of to in on at by for with from as is are was were be been am i me
my we our you your he him his she her it its they them their this that these those there here what which who
whom whose when where why how not no yes so too very just also please thanks thank hi hello hey dear sir madam
all any some every each both either neither one two three first last new old good great same other others""".split())

# Function words that tell a passage is English (non_english_ranges counts them)
ENGLISH_FUNCTION_WORDS = frozenset("""the of and to a an in is it that for on with as was are be been this by at or from not
he she they we you i his her their our your my its him them me us has have had will would can could do does did
so if then than there what which who when where how why all any some no only just also about into over after
before up out very more most such these those here were being""".split())

# Words that open a line with a comma but address nobody ("Well, can you ...")
NOT_VOCATIVE = frozenset("""yes no well ok okay now so then also however sure please thanks hi hello hey sorry oh
actually honestly remember look listen note first second third finally today tomorrow yesterday meanwhile besides
again anyway instead otherwise still sadly luckily unfortunately fortunately ideally""".split())

# Line labels of ordinary prompts, never speakers' names
LINE_LABELS = frozenset("""question answer input output note example context summary title text q a user assistant system
human bot ai step solution hint translation options option instruction instructions response task review source
target premise hypothesis sentence document passage article claim description name date subject from to cc bcc
re fwd comment comments reply problem exercise query result results reference references table figure chapter
section part topic category label prompt story poem code error warning tip rule rules goal reason explanation
important update edit ps nb tldr abstract conclusion introduction background method methods discussion
message original forwarded""".split())  # ("-----Original Message-----" quoted in a reply is no contact's name line)

# Words after which a capitalised dictionary word opening a sentence reads as a verb ("Embark on")
AFTER_A_VERB = frozenset("""the a an on in to for with about your my our their this that these those me us you it
him her them some all each every any up down out into from at by of yourself yourselves""".split())

MONTHS = frozenset("january february march april may june july august september october november december".split())

# What follows '@' in code, docs and CSS, never an account ("@param", "@media", "@everyone")
NOT_HANDLES = frozenset("""param params return returns throws throw exception author see since deprecated link code
version override todo media import keyframes charset supports page namespace font echo staticmethod classmethod
property dataclass abstractmethod cached_property wraps pytest fixture test before after everyone here channel all
interface implementation end synthesize protocol optional required objc autoreleasepool selector inline
tailwind apply layer extend include mixin use forward function if else each while for debug warn error""".split())

# Offices, ranks and roles that the NER runs into the name after them ("United States President Ronald Reagan",
# "Police Chief Constable Patrick Geenty", "Chelsea boss Jose Mourinho"): the name starts after the last of them,
# and only the name's words repeat as a name ("States", "Police", "Chelsea" elsewhere in the text are not one)
OFFICE_WORDS = frozenset("""president presidents vice prime minister ministers secretary chancellor governor mayor
senator sen rep congressman congresswoman ambassador envoy chief constable inspector sergeant sgt officer detective
det police commissioner superintendent supt judge justice magistrate captain capt general gen admiral colonel col
major maj lieutenant lt commander cdr coach manager boss striker goalkeeper keeper midfielder defender winger
forward player star actor actress singer rapper director producer writer author chairman chairwoman chairperson
ceo cfo cto coo founder spokesman spokeswoman spokesperson king queen prince princess emperor empress sheikh sheik
sultan pope bishop archbishop cardinal reverend rev mr mrs ms miss mx dr prof professor sir dame lord lady doctor
nurse mp qc""".split())

# Generational suffixes: never the whole of a name after an office word ("Martin Luther King Jr")
NAME_SUFFIXES = frozenset("jr jr. sr sr. ii iii iv".split())

# The syllables of East Asian given names as English text romanises them with a hyphen: Korean ("Sung-min",
# "Ji-hoon", "Seo-yeon"), Cantonese and Taiwanese ("Ka-fai", "Chi-keung", "Ing-wen") and Japanese ("Jun-ichi",
# "Shin-ichi"). A hyphenated word of two different ones is a given name (pii_names.hyphenated_given_names); none
# of them makes an English compound with another ("Ha-ha" is one syllable twice, "min-max" holds "max").
GIVEN_NAME_SYLLABLES = frozenset("""min jun joon ho hoon hun jin woo young yeon yun yoon seo soo su ji hee hye hyun hyeon
eun kyung kyeong sung seong sang dong jae jung jeong hwan seok suk chul cheol tae won yong gyu kyu bin beom bum chan
hyo sook kyoung nam geun moon mun bok byung byeong chang cheon gil geon hak hwa ik jee joo ju kang kwang kwan kyun
myung myeong pil sik shin sol tak wook uk yeong yul chae eon eui gon hong hyuk hyeok jong seob seop ung woong
ka fai chi keung wai man ying jeou ing wen kwok wing kin ming yuk lai siu hung kit yiu shing chun yee mei ling hing
kam fung wah wan yan lok pui hoi sze kei tsz yin lun chiu cheuk ngai pak shek tung wun yau yip lam
ichi ichiro ken ryu shun mi rae ja soon ae ri na""".split())
