"""Importing Presidio for the clean stage's PII filter: offline (no public-suffix download) and without its
optional transformers/torch back ends. Below both pii.py and pii_patterns.py, which use it."""
from __future__ import annotations

import os

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")  # Presidio must not reach the network


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
