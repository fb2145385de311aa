"""Heads that ship inside the package. `--draft builtin` (serve) and `--head builtin` (bench) name the head
made for the embedded target by bench/cpu_recipe.sh (2-core CPU; bench/gpu_recipe.sh on a GPU replaces it when it
beats it on held-out τ): SGLang-format bf16 safetensors of at most 25 MB with its model card (recipe, data
manifest, measured figures), kept in eaglekit/data/heads/<name>/. A release that
holds none says so and names what to pass instead; it never falls back to an untrained head in silence."""
from __future__ import annotations

from pathlib import Path

BUILTIN = "builtin"
HEADS_DIR = Path(__file__).resolve().parent / "data" / "heads"
# target spec -> folder under HEADS_DIR (the embedded target is SmolLM2-135M-Instruct)
BUILTIN_HEADS = {"embedded": "smollm2-135m-instruct"}


class HeadError(ValueError):
    """`builtin` names no head here; the message says what to pass instead."""


def builtin_head(target: str = "embedded") -> Path | None:
    """The shipped head's folder for this target spec, or None when this release holds none."""
    name = BUILTIN_HEADS.get(target)
    path = HEADS_DIR / name if name else None
    return path if path is not None and (path / "config.json").is_file() and (path / "model.safetensors").is_file() \
        else None


def resolve_head(spec: str | None, target: str = "embedded") -> str | None:
    """A head folder from what the user typed: `builtin` becomes the shipped head's folder, anything else
    (a folder, or None for no head) is returned unchanged."""
    if spec != BUILTIN:
        return spec
    if target not in BUILTIN_HEADS:
        raise HeadError(f"builtin: a head ships only for the embedded target ({', '.join(BUILTIN_HEADS)}); for "
                        f"{target!r} pass a folder written by `eaglekit train export`")
    path = builtin_head(target)
    if path is None:
        from eaglekit import __version__
        raise HeadError(f"builtin: eaglekit {__version__} ships no head for the embedded target yet "
                        f"({HEADS_DIR / BUILTIN_HEADS[target]} holds none); bench/cpu_recipe.sh makes one on a CPU, "
                        f"bench/gpu_recipe.sh on a GPU (see bench/MODEL_CARD.md), or pass a folder written by "
                        f"`eaglekit train export`")
    return str(path)
