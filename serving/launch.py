"""SGLang / vLLM launchers: build the exact server command, check the head against the target before
launching (a misnamed head loads silently with random weights), supervise the server process (health
wait with progress, OpenAI URL, SIGINT/SIGTERM forwarding, clean shutdown) and `--dry-run`.

sglang and vllm are imported lazily and only for --dry-run resolution; neither is needed to build commands.
Run `python -m serving.launch --parser-check [serve options]` inside a venv holding sglang to have
SGLang's own argument parser accept the command (bench/sglang_parser_check.sh builds that venv).
"""
from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Literal

from eaglekit.config import ConfigError, config, setting

SGLANG_INSTALL = "pip install 'eaglekit[sglang]'  (sglang==0.5.23; needs an NVIDIA GPU to run)"
VLLM_INSTALL = "pip install vllm  (needs an NVIDIA GPU to run)"

# Tensor names SGLang 0.5.23's LlamaForCausalLMEagle3 consumes. It also takes `layers.0.`
# for the decoder layer and retries names with a `model.` prefix; anything else is silently dropped.
LAYER_TENSORS = ("self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.v_proj.weight",
                 "self_attn.o_proj.weight", "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight",
                 "input_layernorm.weight", "hidden_norm.weight", "post_attention_layernorm.weight")
TOP_TENSORS = ("fc.weight", "norm.weight", "lm_head.weight", "d2t", "t2d")
OPTIONAL_TENSORS = ("embed_tokens.weight",)  # SGLang reuses the target's embedding when absent


class LaunchError(RuntimeError):
    """The launch cannot go ahead; the message says what to fix."""


def draft_pool(num_steps: int, topk: int) -> int:
    """Candidates (the root not counted) a draft tree of `num_steps` steps with `topk` children per node can
    hold, SGLang's rule: topk at the first step, then topk x topk per step, of which the best are verified."""
    return topk + (num_steps - 1) * topk * topk


def default_draft_tokens(num_steps: int, topk: int) -> int:
    """--speculative-num-draft-tokens when none is given: num_steps + 1 for a chain, else 8 (capped by the pool)."""
    return num_steps + 1 if topk == 1 else min(8, draft_pool(num_steps, topk) + 1)


def check_draft_shape(num_steps: int, topk: int, num_draft_tokens: int) -> None:
    """SGLang's rules for a draft tree, the one place they are written (the serve config and the embedded
    engine both ask here): steps and topk >= 1; a chain (topk 1) verifies num_steps + 1 tokens; a tree
    verifies the root plus at most the candidates its steps x topk can hold. ValueError says which."""
    if num_steps < 1 or topk < 1 or num_draft_tokens < 2:
        raise ValueError(f"need --num-steps >= 1, --topk >= 1 and --num-draft-tokens >= 2 (got {num_steps}, {topk}, "
                         f"{num_draft_tokens})")
    if topk == 1 and num_draft_tokens != num_steps + 1:
        raise ValueError(f"a chain (--topk 1) verifies num_steps + 1 tokens: set --num-draft-tokens "
                         f"{num_steps + 1} (got {num_draft_tokens})")
    pool = draft_pool(num_steps, topk)
    if num_draft_tokens > pool + 1:
        raise ValueError(f"--num-draft-tokens {num_draft_tokens} exceeds the {pool + 1} tokens a tree of "
                         f"{num_steps} steps x topk {topk} can hold")


@config
class ServeConfig:
    """`eaglekit serve` settings, shared by the CLI, the launchers and the embedded server."""
    model: str = setting("embedded", "Target: HF folder or hub id; 'embedded' (SmolLM2) or 'tiny' for the embedded "
                                     "backend.")
    draft: str | None = setting(None, "Exported EAGLE-3 head folder (SGLang format), or `builtin`: the head shipped "
                                      "for the embedded target. None: no speculation.")
    backend: Literal["auto", "sglang", "vllm", "embedded"] = setting(
        "auto", "auto: sglang where a GPU is present, else embedded.")
    host: str = setting("127.0.0.1", "Address to listen on.")
    port: int = setting(30000, "Port to listen on.", ge=1, le=65535)
    num_steps: int = setting(3, "--speculative-num-steps", ge=1)
    topk: int = setting(1, "--speculative-eagle-topk (1: chain; >1: tree verified in one target pass)", ge=1)
    num_draft_tokens: int | None = setting(None, "--speculative-num-draft-tokens [default: num_steps+1 for a chain, "
                                                 "else 8 (capped)]", ge=2)
    min_draft_prob: float = setting(0.0, "Embedded backend: verify only draft nodes the head gives at least this path "
                                         "probability, and stop drafting below it (0: SGLang's fixed tree; ~0.05 pays "
                                         "on CPU).", ge=0.0, lt=1.0)
    mem_fraction: float | None = setting(None, "--mem-fraction-static (vLLM: --gpu-memory-utilization)", gt=0.0, le=1.0)
    cuda_graph_max_bs: int | None = setting(None, "--cuda-graph-max-bs-decode", ge=1)
    max_running_requests: int | None = setting(None, "--max-running-requests", ge=1)
    disable_overlap_schedule: bool = setting(False, "Turn SGLang's overlap scheduler off.")
    extra_args: list[str] = setting(factory=list, help="Arguments after `--`, passed to SGLang / vLLM unchanged.",
                                    cli=False)
    api_key: str | None = setting(None, "Require this bearer key on every endpoint but /health. Prefer the "
                                        "EAGLEKIT_API_KEY environment variable: a key on the command line shows in "
                                        "`ps`.", envvar="EAGLEKIT_API_KEY")
    served_model_name: str | None = setting(None, "Model name the server reports (default: the target's).")
    max_tokens_limit: int = setting(2048, "Embedded backend: largest max_tokens a request may ask for.", ge=1)
    max_prompt_tokens: int | None = setting(None, "Embedded backend: longest prompt a request may send (longer: HTTP "
                                                  "400) [default: the context length minus max_tokens].", ge=1)
    prefill_chunk: int = setting(512, "Embedded backend: prompt tokens prefilled per scheduler step; other requests "
                                      "decode between chunks, so one long prompt does not stall every client.", ge=1)
    health_timeout: float = setting(900.0, "Seconds to wait for the server to report healthy.", gt=0)

    def __post_init__(self):
        if self.num_draft_tokens is None:
            self.num_draft_tokens = default_draft_tokens(self.num_steps, self.topk)
        try:
            check_draft_shape(self.num_steps, self.topk, self.num_draft_tokens)
        except ValueError as err:
            raise ConfigError(str(err), key="num_draft_tokens") from None

    def resolved_backend(self) -> str:
        if self.backend != "auto":
            return self.backend
        try:
            import torch
            return "sglang" if torch.cuda.is_available() else "embedded"
        except ImportError:
            return "embedded"



# ---------------------------------------------------------------------------------------------
# Head vs target checks

def target_folder(model: str) -> Path | None:
    """The local folder holding the target's config.json, or None for a hub id not on disk."""
    from eaglekit.models import EMBEDDED_ALIASES, embedded_dir, prepare_embedded
    if model in EMBEDDED_ALIASES:
        return prepare_embedded() if not (embedded_dir() / "config.json").is_file() else embedded_dir()
    p = Path(model)
    return p if (p / "config.json").is_file() else None


def safetensors_shapes(folder: Path) -> dict[str, tuple[int, ...]]:
    """Tensor name -> shape for every *.safetensors file in a folder, read from headers only."""
    from safetensors import safe_open
    files = sorted(folder.glob("*.safetensors"))
    if not files:
        raise LaunchError(f"{folder} holds no *.safetensors file; export the head with `eaglekit train export`")
    shapes = {}
    for f in files:
        with safe_open(str(f), framework="pt") as st:
            for k in st.keys():
                shapes[k] = tuple(st.get_slice(k).get_shape())
    return shapes


def _canonical(name: str) -> str:
    name = name[len("model."):] if name.startswith("model.") else name
    return "midlayer." + name[len("layers.0."):] if name.startswith("layers.0.") else name


def check_head(head_dir, target_config: dict | None) -> tuple[list[str], list[str]]:
    """Check an exported SGLang-format head (config.json + safetensors) against the target's config.

    Returns (errors, warnings). Errors are what makes SGLang fail at startup or, worse, run silently with
    random weights (acceptance ~1.0): unknown or missing tensor names, wrong shapes, mismatched sizes.
    """
    head_dir = Path(head_dir)
    errors, warnings = [], []
    cfg_file = head_dir / "config.json"
    if not cfg_file.is_file():
        return [f"{head_dir} has no config.json; give the folder written by `eaglekit train export`"], []
    cfg = json.loads(cfg_file.read_text())
    arch = cfg.get("architectures") or []
    if "LlamaForCausalLMEagle3" not in arch:
        errors.append(f"config.json architectures is {arch}, SGLang needs ['LlamaForCausalLMEagle3']")
    if cfg.get("draft_vocab_size") is None:
        errors.append("config.json lacks draft_vocab_size (SGLang fails with AttributeError)")
    if cfg.get("tie_word_embeddings", True):
        errors.append("config.json must set tie_word_embeddings: false")
    if cfg.get("num_hidden_layers", 1) != 1:
        errors.append(f"num_hidden_layers is {cfg.get('num_hidden_layers')}, an EAGLE-3 head has 1")
    H = int(cfg.get("hidden_size") or 0)
    V = int(cfg.get("vocab_size") or 0)
    Vd = int(cfg.get("draft_vocab_size") or V)
    Ht = int(cfg.get("target_hidden_size") or H)
    if target_config is not None:
        t_h, t_v = int(target_config["hidden_size"]), int(target_config["vocab_size"])
        t_layers = int(target_config["num_hidden_layers"])
        if Ht != t_h:
            errors.append(f"head was trained for target hidden size {Ht}, the target has {t_h}")
        if V != t_v:
            errors.append(f"head vocab_size {V} != target vocab_size {t_v}")
        ids = (cfg.get("eagle_config") or {}).get("eagle_aux_hidden_state_layer_ids")
        if ids is not None:
            bad = [v for v in ids if not 0 <= int(v) < t_layers - 1]
            if len(ids) != 3 or bad:
                errors.append(f"eagle_config.eagle_aux_hidden_state_layer_ids {ids} (SGLang convention) do not fit "
                              f"a {t_layers}-layer target (each must be within 0..{t_layers - 2})")
        t_ctx = target_config.get("max_position_embeddings")
        if t_ctx and int(cfg.get("max_position_embeddings", 0)) < int(t_ctx):
            errors.append(f"head max_position_embeddings {cfg.get('max_position_embeddings')} is below the "
                          f"target's {t_ctx} (SGLang fails at startup); copy it from the target")
        for key in ("rope_theta",):
            if key in target_config and key in cfg and float(cfg[key]) != float(target_config[key]):
                warnings.append(f"head {key} {cfg[key]} differs from the target's {target_config[key]}")
    else:
        warnings.append("target config.json not available locally: sizes not checked against the target")
    try:
        shapes = safetensors_shapes(head_dir)
    except LaunchError as err:
        return errors + [str(err)], warnings
    known = {"midlayer." + t for t in LAYER_TENSORS} | set(TOP_TENSORS) | set(OPTIONAL_TENSORS)
    canon = {}
    for name in shapes:
        c = _canonical(name)
        if c not in known:
            errors.append(f"tensor {name!r} is not one SGLang's LlamaForCausalLMEagle3 loads (it would be dropped)")
        canon[c] = shapes[name]
    missing = sorted(({"midlayer." + t for t in LAYER_TENSORS} | set(TOP_TENSORS)) - set(canon) - {"t2d"})
    if missing:
        errors.append(f"missing tensors {missing}: SGLang would run them with random weights")
    heads = int(cfg.get("num_attention_heads", 1))
    kv = int(cfg.get("num_key_value_heads", heads))
    hd = int(cfg.get("head_dim") or (H // heads if heads else 0))
    inter = int(cfg.get("intermediate_size", 0))
    want = {"fc.weight": (H, 3 * Ht), "norm.weight": (H,), "lm_head.weight": (Vd, H), "d2t": (Vd,), "t2d": (V,),
            "midlayer.self_attn.q_proj.weight": (heads * hd, 2 * H),
            "midlayer.self_attn.k_proj.weight": (kv * hd, 2 * H),
            "midlayer.self_attn.v_proj.weight": (kv * hd, 2 * H),
            "midlayer.self_attn.o_proj.weight": (H, heads * hd),
            "midlayer.mlp.gate_proj.weight": (inter, H), "midlayer.mlp.up_proj.weight": (inter, H),
            "midlayer.mlp.down_proj.weight": (H, inter), "midlayer.input_layernorm.weight": (H,),
            "midlayer.hidden_norm.weight": (H,), "midlayer.post_attention_layernorm.weight": (H,),
            "embed_tokens.weight": (V, H)}
    for name, shape in canon.items():
        if name in want and tuple(shape) != want[name]:
            errors.append(f"tensor {name} has shape {list(shape)}, config.json implies {list(want[name])}")
    return errors, warnings


def check_serve(cfg: ServeConfig) -> tuple[list[str], list[str]]:
    """All pre-launch checks for a ServeConfig (its numbers were checked when it was built): the head vs the
    target."""
    errors, warnings = [], []
    if cfg.min_draft_prob and cfg.resolved_backend() != "embedded":
        warnings.append(f"--min-draft-prob is an embedded-engine setting: {cfg.resolved_backend()} verifies its fixed "
                        "tree of --num-draft-tokens")
    if cfg.draft:
        folder = target_folder(cfg.model)
        tcfg = json.loads((folder / "config.json").read_text()) if folder else None
        e, w = check_head(cfg.draft, tcfg)
        errors += e
        warnings += w
    return errors, warnings


# ---------------------------------------------------------------------------------------------
# Commands

def _model_arg(model: str) -> str:
    folder = target_folder(model)
    return str(folder) if folder is not None else model


def sglang_args(cfg: ServeConfig) -> list[str]:
    """The argument list after `python -m sglang.launch_server`."""
    args = ["--model-path", _model_arg(cfg.model), "--host", cfg.host, "--port", str(cfg.port)]
    if cfg.draft:
        # all three numbers or none: only some of them crashes SGLang
        args += ["--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", str(cfg.draft),
                 "--speculative-num-steps", str(cfg.num_steps), "--speculative-eagle-topk", str(cfg.topk),
                 "--speculative-num-draft-tokens", str(cfg.num_draft_tokens)]
        if cfg.disable_overlap_schedule:
            args.append("--disable-overlap-schedule")  # the overlap scheduler is SGLang's default for EAGLE3
    return args + _optional_flags(cfg, SGLANG_FLAGS) + list(cfg.extra_args)


# The same settings under each server's own flag names; a setting left unset is not passed at all.
SGLANG_FLAGS = {"mem_fraction": "--mem-fraction-static", "cuda_graph_max_bs": "--cuda-graph-max-bs-decode",
                "max_running_requests": "--max-running-requests", "api_key": "--api-key",
                "served_model_name": "--served-model-name"}
VLLM_FLAGS = {"mem_fraction": "--gpu-memory-utilization", "max_running_requests": "--max-num-seqs",
              "cuda_graph_max_bs": "--max-cudagraph-capture-size", "api_key": "--api-key",
              "served_model_name": "--served-model-name"}


def _optional_flags(cfg: ServeConfig, flags: dict[str, str]) -> list[str]:
    out = []
    for field_name, flag in flags.items():
        value = getattr(cfg, field_name)
        if value is not None and value != "":
            out += [flag, str(value)]
    return out


def sglang_command(cfg: ServeConfig, python: str | None = None) -> list[str]:
    return [python or sys.executable, "-m", "sglang.launch_server"] + sglang_args(cfg)


def vllm_command(cfg: ServeConfig) -> list[str]:
    cmd = ["vllm", "serve", _model_arg(cfg.model), "--host", cfg.host, "--port", str(cfg.port)]
    if cfg.draft:
        if cfg.topk != 1:
            raise LaunchError("vLLM drafts EAGLE-3 as a chain only: use --topk 1 (or --backend sglang for trees)")
        spec = {"method": "eagle3", "model": str(cfg.draft), "num_speculative_tokens": cfg.num_steps}
        cmd += ["--speculative-config", json.dumps(spec)]
    return cmd + _optional_flags(cfg, VLLM_FLAGS) + list(cfg.extra_args)


def build_command(cfg: ServeConfig) -> list[str]:
    backend = cfg.resolved_backend()
    if backend == "sglang":
        return sglang_command(cfg)
    if backend == "vllm":
        return vllm_command(cfg)
    raise LaunchError(f"backend {backend!r} has no external command (the embedded backend runs in-process)")


def sglang_resolved(args: list[str]) -> dict:
    """SGLang's own view of the arguments: parsed by its parser, then (where it can) resolved on CPU."""
    from sglang.srt.server_args import prepare_server_args  # lazy: optional, GPU-side package
    sa = prepare_server_args(list(args))
    keys = ("model_path", "host", "port", "speculative_algorithm", "speculative_draft_model_path",
            "speculative_num_steps", "speculative_eagle_topk", "speculative_num_draft_tokens",
            "disable_overlap_schedule", "mem_fraction_static", "cuda_graph_max_bs_decode", "max_running_requests")
    out = {"parsed": {k: getattr(sa, k, None) for k in keys}}
    try:
        sa.resolve_once()
        from sglang.srt.arg_groups.overrides import resolving_view
        view = resolving_view(sa)
        out["resolved"] = {k: getattr(view, k, None) for k in keys}
    except Exception as err:  # resolution needs more of SGLang's deps than parsing: say so, don't fail
        out["resolved_error"] = f"{type(err).__name__}: {err}"
    return out


def dry_run(cfg: ServeConfig, echo=print) -> list[str]:
    cmd = build_command(cfg)
    echo(shlex.join(cmd))
    if cfg.resolved_backend() == "sglang":
        try:
            import sglang  # noqa: F401
        except ImportError:
            echo(f"# sglang is not installed here, so SGLang's resolved settings are not shown ({SGLANG_INSTALL})")
            return cmd
        try:
            echo("# SGLang: " + json.dumps(sglang_resolved(cmd[3:]), default=str))
        except SystemExit as err:
            raise LaunchError(f"SGLang's argument parser rejected the command (exit {err.code})") from err
    return cmd


# ---------------------------------------------------------------------------------------------
# Supervision

def wait_healthy(url: str, proc: subprocess.Popen, timeout: float, echo=print) -> bool:
    """Poll `url` until it answers 200, the process dies or `timeout` passes; show progress meanwhile."""
    import httpx
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
    start = time.time()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), transient=True) as bar:
        task = bar.add_task(f"waiting for {url}")
        while time.time() - start < timeout:
            if proc.poll() is not None:
                return False
            try:
                if httpx.get(url, timeout=2.0).status_code == 200:
                    return True
            except httpx.HTTPError:
                pass
            bar.update(task, description=f"waiting for {url} (server starting: loading weights, capturing graphs)")
            time.sleep(0.5)
    return False


def _say(message: str) -> None:
    # flushed: "ready" must reach a log or a pipe the moment the server is, not when a buffer fills (Python
    # buffers stdout that is not a terminal, and the supervisor then sleeps until the server exits)
    print(message, flush=True)


def supervise(cmd: list[str], health_url: str, api_url: str, timeout: float = 900.0, grace: float = 30.0,
              echo=_say) -> int:
    """Start `cmd`, wait until healthy, forward SIGINT/SIGTERM to it and return its exit code."""
    proc = subprocess.Popen(cmd, start_new_session=True)  # own group: one Ctrl-C is forwarded once, by us
    received = []

    def forward(signum, _frame):
        received.append(signum)
        if proc.poll() is None:
            proc.send_signal(signum)

    old = {s: signal.signal(s, forward) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        if not wait_healthy(health_url, proc, timeout, echo):
            if proc.poll() is None and not received:
                echo(f"server did not become healthy within {timeout:.0f}s; stopping it")
                proc.terminate()
            code = _reap(proc, grace)
            echo(f"server exited with code {code} before it was ready; see its log above")
            return code or 1
        echo(f"ready: OpenAI-compatible API at {api_url}  (Ctrl-C stops the server)")
        while proc.poll() is None:
            time.sleep(0.2)
        return proc.returncode
    finally:
        if proc.poll() is None:
            proc.terminate()
            _reap(proc, grace)
        for s, h in old.items():
            signal.signal(s, h)


def _reap(proc: subprocess.Popen, grace: float) -> int:
    try:
        return proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        proc.kill()  # it ignored SIGTERM for `grace` seconds
        return proc.wait()


def launch(cfg: ServeConfig, echo=_say) -> int:
    """Check, then run SGLang or vLLM and supervise it until it exits."""
    errors, warnings = check_serve(cfg)
    for w in warnings:
        echo(f"warning: {w}")
    if errors:
        raise LaunchError("the head does not fit this launch:\n  - " + "\n  - ".join(errors))
    backend = cfg.resolved_backend()
    module = "sglang" if backend == "sglang" else "vllm"
    import importlib.util
    if importlib.util.find_spec(module) is None:
        raise LaunchError(f"{module} is not installed: {SGLANG_INSTALL if module == 'sglang' else VLLM_INSTALL}. "
                          f"Without a GPU use --backend embedded; --dry-run shows the command anyway.")
    cmd = build_command(cfg)
    echo("$ " + shlex.join(cmd))
    host = "127.0.0.1" if cfg.host in ("0.0.0.0", "::") else cfg.host
    return supervise(cmd, f"http://{host}:{cfg.port}/health", f"http://{host}:{cfg.port}/v1", cfg.health_timeout,
                     echo=echo)
