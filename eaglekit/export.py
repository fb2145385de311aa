"""Export a trained draft head for serving, and load an exported head back.

Formats:
  sglang       config.json (LlamaForCausalLMEagle3, num_hidden_layers 1, vocab_size = target vocab,
               draft_vocab_size, target_hidden_size, eagle_config.eagle_aux_hidden_state_layer_ids in
               SGLang's convention, tie_word_embeddings false, RoPE + context copied from the target)
               + model.safetensors (bf16; fc, midlayer.*, norm, lm_head, d2t, t2d). vLLM loads it too.
  speculators  vLLM's speculators format: speculators_model_type eagle3, transformer_layer_config,
               speculators_config (proposal, verifier), norm_before_residual false (vLLM's default is
               true, which is not this head), aux ids in the HF/vLLM convention, keys `layers.0.*`.

A head saved by speculators' own trainer (`speculators train`: config.json + model.safetensors of a checkpoint
epoch folder) loads as it is when trained with the architecture this engine and SGLang run
(--no-norm-before-residual --no-norm-before-fc --no-norm-output, frozen embedding): its extra
`embed_tokens.weight` (the verifier's, frozen) is checked against the target's and not used. Its layer's
sliding window (speculators' default: 2,048 tokens, its training row length) is not applied: the engine
attends to every earlier position, which is the same inside the window.

Loaders drop tensors they do not know without a word and run missing ones with random weights, so after
writing, the exporter reloads the files and checks every tensor name, shape and dtype against what the
loader consumes; `load_head` runs the same check before handing a head to an engine.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Literal

import torch
from safetensors import safe_open
from safetensors.torch import save_file

from eaglekit.config import config, setting
from eaglekit.contract import hf_to_sglang, sglang_to_hf
from eaglekit.draft import DraftConfig, Eagle3Draft, read_rope

FORMATS = ("sglang", "speculators")
DTYPES = {"bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32}
LAYER_PREFIX = {"sglang": "midlayer.", "speculators": "layers.0."}


class ExportError(ValueError):
    """A head cannot be exported or loaded as asked; the message says why and what to do."""


@config
class ExportOptions:
    dtype: Literal["bfloat16", "float16", "float32"] = setting("bfloat16", "Weights' dtype in the exported head.")
    speculative_tokens: int | None = setting(None, "speculators only: proposal length (SGLang takes "
                                                   "--speculative-num-steps at launch).", ge=1)
    verifier: str | None = setting(None, "speculators only: target name or path (default: the trained target).")


def expected_tensors(cfg: DraftConfig, fmt: str) -> dict[str, tuple[tuple[int, ...], str]]:
    """Every tensor the serving loader consumes for `fmt`: name -> (shape, 'float' | 'int64' | 'bool')."""
    H, D, nh, nkv = cfg.hidden_size, cfg.head_dim, cfg.num_attention_heads, cfg.num_key_value_heads
    p = LAYER_PREFIX[fmt]
    out = {
        "fc.weight": ((H, 3 * cfg.target_hidden_size), "float"),
        f"{p}input_layernorm.weight": ((H,), "float"),
        f"{p}hidden_norm.weight": ((H,), "float"),
        f"{p}self_attn.q_proj.weight": ((nh * D, 2 * H), "float"),
        f"{p}self_attn.k_proj.weight": ((nkv * D, 2 * H), "float"),
        f"{p}self_attn.v_proj.weight": ((nkv * D, 2 * H), "float"),
        f"{p}self_attn.o_proj.weight": ((H, nh * D), "float"),
        f"{p}post_attention_layernorm.weight": ((H,), "float"),
        f"{p}mlp.gate_proj.weight": ((cfg.intermediate_size, H), "float"),
        f"{p}mlp.up_proj.weight": ((cfg.intermediate_size, H), "float"),
        f"{p}mlp.down_proj.weight": ((H, cfg.intermediate_size), "float"),
        "norm.weight": ((H,), "float"),
        "lm_head.weight": ((cfg.draft_vocab_size, H), "float"),
        "d2t": ((cfg.draft_vocab_size,), "int64"),
        "t2d": ((cfg.vocab_size,), "bool"),
    }
    return out


# speculators' trainer saves the verifier's frozen embedding with the head; serving takes the target's.
SPECULATORS_EMBED = "embed_tokens.weight"
# speculators' architecture switches whose `true` adds computation the SGLang-style head has not
# (an RMSNorm over the concatenated aux states, per-layer norms, a normed hidden fed to the next step).
SPECULATORS_SWITCHES = {"norm_before_fc": "--no-norm-before-fc", "fc_norm": "(omit --fc-norm)",
                        "norm_output": "--no-norm-output", "embed_requires_grad": "--no-embed-requires-grad"}


def speculators_problems(config: dict) -> list[str]:
    """Why a speculators-format head cannot run as this engine's (and SGLang's) EAGLE-3 head; [] if it can."""
    out = []
    if config.get("norm_before_residual") is not False:
        out.append("norm_before_residual must be false for this head (vLLM defaults to true; "
                   "speculators train --no-norm-before-residual)")
    for key, flag in SPECULATORS_SWITCHES.items():
        if config.get(key):
            out.append(f"{key} is true: an architecture this engine does not run (train with speculators {flag})")
    return out


def _llama_fields(cfg: DraftConfig, dtype: str) -> dict:
    out = {"model_type": "llama", "hidden_size": cfg.hidden_size, "intermediate_size": cfg.intermediate_size,
           "num_attention_heads": cfg.num_attention_heads, "num_key_value_heads": cfg.num_key_value_heads,
           "head_dim": cfg.head_dim, "num_hidden_layers": 1, "hidden_act": "silu", "rms_norm_eps": cfg.rms_norm_eps,
           "rope_theta": cfg.rope_theta, "rope_parameters": cfg.rope_parameters(),
           "max_position_embeddings": cfg.max_position_embeddings, "vocab_size": cfg.vocab_size,
           "tie_word_embeddings": False, "attention_bias": False, "mlp_bias": False, "torch_dtype": dtype}
    if cfg.rope_scaling:
        out["rope_scaling"] = dict(cfg.rope_scaling)
    return out


def build_config(cfg: DraftConfig, fmt: str, opts: ExportOptions, info: dict) -> dict:
    aux_hf = list(cfg.aux_layer_ids_hf)
    aux_sglang = list(hf_to_sglang(aux_hf))
    if fmt == "sglang":
        if opts.speculative_tokens is not None:
            raise ExportError("the SGLang format has no field for the number of speculative tokens: give "
                              "--speculative-num-steps/--speculative-eagle-topk/--speculative-num-draft-tokens "
                              "when launching SGLang, or export --format speculators")
        if opts.verifier is not None:
            raise ExportError("the SGLang format does not record the verifier; SGLang takes the target as "
                              "--model-path at launch (drop --verifier)")
        return {"architectures": ["LlamaForCausalLMEagle3"], **_llama_fields(cfg, opts.dtype),
                "draft_vocab_size": cfg.draft_vocab_size, "target_hidden_size": cfg.target_hidden_size,
                # SGLang reads only this field (and adds 1); vLLM reads the top-level one as-is.
                "eagle_config": {"eagle_aux_hidden_state_layer_ids": aux_sglang, "use_aux_hidden_state": True},
                "eagle_aux_hidden_state_layer_ids": aux_hf}
    verifier = opts.verifier or info.get("target", {}).get("target_model_id")
    if not verifier:
        raise ExportError("the speculators format needs the verifier (target) name or path: pass --verifier")
    steps = opts.speculative_tokens or int(info.get("train_config", {}).get("ttt_steps", 3))
    if steps < 1:
        raise ExportError(f"speculative tokens must be >= 1, got {steps}")
    layer = {**_llama_fields(cfg, opts.dtype), "architectures": ["LlamaForCausalLM"]}
    return {"architectures": ["Eagle3Speculator"], "speculators_model_type": "eagle3",
            "speculators_version": "0.3.0", "torch_dtype": opts.dtype,
            "transformer_layer_config": layer, "draft_vocab_size": cfg.draft_vocab_size,
            "target_hidden_size": cfg.target_hidden_size, "norm_before_residual": False,
            "eagle_aux_hidden_state_layer_ids": aux_hf,
            "speculators_config": {"algorithm": "eagle3", "default_proposal_method": "greedy",
                                   "proposal_methods": [{"proposal_type": "greedy", "speculative_tokens": steps,
                                                         "verifier_accept_k": 1, "accept_tolerance": 0.0}],
                                   "verifier": {"name_or_path": verifier, "architectures": ["LlamaForCausalLM"]}}}


def _resolve_checkpoint(path: Path, echo=None) -> Path:
    if (path / "draft.json").is_file():
        return path
    if (path / "best" / "draft.json").is_file():  # a run directory: export its best checkpoint
        return path / "best"
    steps = sorted(p for p in (path / "checkpoints").glob("step-*") if (p / "draft.json").is_file())
    if steps:  # a run stopped before its first evaluation (or killed): its latest step checkpoint
        if echo is not None:
            echo(f"{path} has no best/ checkpoint (the run stopped before its first evaluation): exporting its "
                 f"latest step checkpoint, {steps[-1].relative_to(path)}")
        return steps[-1]
    raise ExportError(f"{path}: not an eaglekit checkpoint (no draft.json); give a run directory, its best/ "
                      f"or a checkpoints/step-* directory")


def export_head(checkpoint_dir, out_dir, fmt: str = "sglang", options: ExportOptions | None = None,
                echo=None) -> Path:
    """Write checkpoint `checkpoint_dir` (a run dir, its best/ or a step dir) to `out_dir` in `fmt`,
    then reload and check it. Returns out_dir. A run dir without best/ exports its latest
    checkpoints/step-* (said through `echo`)."""
    from safetensors.torch import load_file
    opts = options or ExportOptions()
    if fmt not in FORMATS:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if opts.dtype not in DTYPES:
        raise ExportError(f"dtype must be one of {', '.join(DTYPES)}, got {opts.dtype!r}")
    ckpt = _resolve_checkpoint(Path(checkpoint_dir), echo)
    info = json.loads((ckpt / "draft.json").read_text())
    cfg = DraftConfig.from_dict(info["draft_config"])
    state = load_file(str(ckpt / "model.safetensors"))
    config = build_config(cfg, fmt, opts, info)
    tensors = {}
    for name, t in state.items():
        if name.startswith("midlayer."):
            name = LAYER_PREFIX[fmt] + name[len("midlayer."):]
        tensors[name] = t.to(DTYPES[opts.dtype]).contiguous() if t.is_floating_point() else t.contiguous()
    out = Path(out_dir)
    tmp = out.with_name(f".tmp-{out.name}-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_file(tensors, str(tmp / "model.safetensors"), metadata={"format": "pt"})
    (tmp / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    (tmp / "eaglekit_export.json").write_text(json.dumps(
        {"format": fmt, "checkpoint": str(ckpt), "step": info.get("step"), "eval": info.get("eval"),
         "vocab": info.get("vocab"), "target": info.get("target"), "sources": info.get("sources", [])},
        indent=1) + "\n")
    check_export(tmp, fmt)
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)
    return out


def config_from_export(config: dict, fmt: str) -> DraftConfig:
    c = config if fmt == "sglang" else {**config["transformer_layer_config"], **config}
    theta, scaling = read_rope(c)
    aux = c.get("eagle_aux_hidden_state_layer_ids")
    if fmt == "sglang" and c.get("eagle_config", {}).get("eagle_aux_hidden_state_layer_ids"):
        aux = sglang_to_hf(c["eagle_config"]["eagle_aux_hidden_state_layer_ids"])
    return DraftConfig(hidden_size=c["hidden_size"], num_attention_heads=c["num_attention_heads"],
                       num_key_value_heads=c["num_key_value_heads"],
                       head_dim=c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"],
                       intermediate_size=c["intermediate_size"], rms_norm_eps=c["rms_norm_eps"],
                       rope_theta=theta, rope_scaling=scaling,
                       max_position_embeddings=c["max_position_embeddings"], vocab_size=c["vocab_size"],
                       draft_vocab_size=c["draft_vocab_size"],
                       target_hidden_size=c.get("target_hidden_size") or c["hidden_size"],
                       aux_layer_ids_hf=tuple(aux) if aux else (0, 0, 0))


def detect_format(config: dict) -> str:
    if config.get("speculators_model_type"):
        return "speculators"
    if "LlamaForCausalLMEagle3" in (config.get("architectures") or []):
        return "sglang"
    raise ExportError("config.json is neither an SGLang EAGLE-3 head (architectures LlamaForCausalLMEagle3) "
                      "nor a speculators head (speculators_model_type)")


def check_export(path, fmt: str | None = None) -> DraftConfig:
    """Reload an exported head and check config fields and every tensor (names, shapes, dtypes, d2t/t2d)."""
    path = Path(path)
    config = json.loads((path / "config.json").read_text())
    fmt = fmt or detect_format(config)
    problems = []
    if fmt == "sglang":
        for key, want in (("num_hidden_layers", 1), ("tie_word_embeddings", False)):
            if config.get(key) != want:
                problems.append(f"config {key} is {config.get(key)!r}, must be {want!r}")
        if "draft_vocab_size" not in config:
            problems.append("config lacks draft_vocab_size (SGLang fails with AttributeError)")
    else:
        problems += speculators_problems(config)
        if config.get("transformer_layer_config", {}).get("num_hidden_layers") != 1:
            problems.append("transformer_layer_config.num_hidden_layers must be 1")
    cfg = config_from_export(config, fmt)
    if fmt == "sglang" and config.get("eagle_config"):
        top = config.get("eagle_aux_hidden_state_layer_ids")
        if top is not None and list(top) != list(cfg.aux_layer_ids_hf):
            problems.append(f"top-level aux ids {top} (HF convention) disagree with eagle_config's "
                            f"{config['eagle_config']['eagle_aux_hidden_state_layer_ids']} (SGLang convention, +1)")
    want = expected_tensors(cfg, fmt)
    with safe_open(str(path / "model.safetensors"), "pt") as f:
        names = set(f.keys())
        if fmt == "speculators" and SPECULATORS_EMBED in names:
            names.discard(SPECULATORS_EMBED)
            if tuple(f.get_slice(SPECULATORS_EMBED).get_shape()) != (cfg.vocab_size, cfg.target_hidden_size):
                problems.append(f"{SPECULATORS_EMBED}: shape {f.get_slice(SPECULATORS_EMBED).get_shape()}, "
                                f"expected {(cfg.vocab_size, cfg.target_hidden_size)}")
        for name in sorted(names - want.keys()):
            problems.append(f"unexpected tensor {name!r}: the loader would drop it silently")
        for name in sorted(want.keys() - names):
            problems.append(f"missing tensor {name!r}: the loader would run it with random weights")
        tensors = {n: f.get_tensor(n) for n in names & want.keys()}
    for name, t in tensors.items():
        shape, kind = want[name]
        if tuple(t.shape) != shape:
            problems.append(f"{name}: shape {tuple(t.shape)}, expected {shape}")
        ok = {"float": t.is_floating_point(), "int64": t.dtype == torch.int64, "bool": t.dtype == torch.bool}[kind]
        if not ok:
            problems.append(f"{name}: dtype {t.dtype}, expected {kind}")
        if kind == "float" and t.is_floating_point() and not torch.isfinite(t).all():
            problems.append(f"{name}: holds NaN/inf")
    if not problems and "d2t" in tensors and "t2d" in tensors:
        ids = torch.arange(cfg.draft_vocab_size) + tensors["d2t"]
        if ids.min() < 0 or ids.max() >= cfg.vocab_size or not bool((ids[1:] > ids[:-1]).all()):
            problems.append("d2t does not map draft ids to distinct ascending target ids inside the vocabulary")
        else:
            t2d = torch.zeros(cfg.vocab_size, dtype=torch.bool)
            t2d[ids] = True
            if not torch.equal(t2d, tensors["t2d"]):
                problems.append("t2d disagrees with d2t")
    if problems:
        raise ExportError(f"{path}: exported head fails the reload check: " + "; ".join(problems))
    return cfg


def load_head(path, target) -> Eagle3Draft:
    """An exported head (SGLang or speculators format) on `target`'s embedding, in float32 on the
    target's device; every tensor checked first, and the head checked against the target."""
    path = Path(path)
    if not (path / "config.json").is_file():
        raise ExportError(f"{path}: no config.json; give the directory written by `eaglekit train export`")
    config = json.loads((path / "config.json").read_text())
    fmt = detect_format(config)
    cfg = check_export(path, fmt)
    tc = target.config
    diffs = [f"{k}: head {a} != target {b}" for k, a, b in (
        ("vocab_size", cfg.vocab_size, tc.vocab_size), ("target_hidden_size", cfg.target_hidden_size, tc.hidden_size))
        if a != b]
    if any(not 1 <= v <= tc.num_hidden_layers for v in cfg.aux_layer_ids_hf):
        diffs.append(f"aux layers {list(cfg.aux_layer_ids_hf)} (HF convention) outside a "
                     f"{tc.num_hidden_layers}-layer target")
    if diffs:
        raise ExportError(f"{path}: this head was not trained for this target ({'; '.join(diffs)})")
    from safetensors.torch import load_file
    state = load_file(str(path / "model.safetensors"))
    embed = target.model.get_input_embeddings()
    saved_embed = state.pop(SPECULATORS_EMBED, None) if fmt == "speculators" else None
    if saved_embed is not None:
        # bf16 checkpoints hold a rounded copy: equal within bf16's relative step
        theirs = embed.weight.detach().to(device="cpu", dtype=torch.float32)
        if not torch.allclose(saved_embed.float(), theirs, rtol=2 ** -7, atol=1e-6):
            raise ExportError(f"{path}: its {SPECULATORS_EMBED} is not the target's embedding (trained, or another "
                              f"target's): serving uses the target's, so this head would run on inputs it never saw")
    prefix = LAYER_PREFIX[fmt]
    state = {("midlayer." + k[len(prefix):] if k.startswith(prefix) else k): v for k, v in state.items()}
    head = Eagle3Draft(cfg, embed)
    head.load_state_dict({k: (v.float() if v.is_floating_point() else v) for k, v in state.items()}, strict=True)
    return head.to(embed.weight.device).eval()
