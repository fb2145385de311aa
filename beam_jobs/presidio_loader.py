"""Importing spaCy and Presidio for the clean stage's PII filter: offline (no public-suffix download) and
without torch or transformers. Neither is used here (spaCy runs its NER on numpy), but thinc imports torch
when it is installed (~1 s) and Presidio its transformers back end (~6 s), in the launcher and again in
every worker. Below pii.py, pii_names.py, pii_rules_common.py and pii_patterns.py, which import through it."""
from __future__ import annotations

import contextlib
import os
import sys

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")  # Presidio must not reach the network

_NOT_NEEDED = ("transformers", "torch")


@contextlib.contextmanager
def _hidden(modules=_NOT_NEEDED):
    """While inside, `import m` raises ImportError for each of `modules` not yet imported, which spaCy's
    thinc and Presidio treat as "not installed". Only for those imports: a later `import torch` works as
    usual (thinc then keeps its CPU ops, which is all spaCy's NER uses)."""
    hidden = [m for m in modules if m not in sys.modules]
    for m in hidden:
        sys.modules[m] = None
    try:
        yield
    finally:
        for m in hidden:
            sys.modules.pop(m, None)


def import_spacy():
    """spaCy with the submodules the PII rules use (English stop words, Span)."""
    with _hidden():
        import spacy
        import spacy.lang.en.stop_words
        import spacy.tokens  # noqa: F401
    return spacy


def import_presidio():
    """presidio_analyzer with its NLP engines."""
    if "presidio_analyzer.nlp_engine" in sys.modules:
        return sys.modules["presidio_analyzer"]
    with _hidden():
        import_spacy()
        import presidio_analyzer
        import presidio_analyzer.nlp_engine  # noqa: F401
    return presidio_analyzer
