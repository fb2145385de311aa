"""Shared test fixtures: one CPU thread (2-core CI box), the tiny target, the cached SmolLM2."""
import os

os.environ.setdefault("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # before torch loads OpenMP; see eaglekit/__init__.py
# The clean stage refuses inputs without declared terms (issue 30). The suite's fixture files are written by
# the tests themselves, so the suite accepts unknown terms explicitly, as a user would with
# --allow-unknown-terms (recorded in each manifest); tests/test_sources.py removes this to test the refusal.
os.environ.setdefault("EAGLEKIT_ALLOW_UNKNOWN_TERMS", "1")

import pytest
import torch

torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_target():
    from eaglekit.models import tiny_llama
    return tiny_llama()


@pytest.fixture(scope="session")
def smollm2():
    """The embedded SmolLM2 target, converted once into the eaglekit cache (shared across runs)."""
    from eaglekit.models import load_target
    return load_target("embedded")
