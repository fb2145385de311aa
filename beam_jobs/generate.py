"""`eaglekit beam run generate`: answer clean prompts with the target model itself, keeping prompt and
response as the exact token ids (never re-tokenised), plus sampling settings, finish reason and the
generator's identity.

Input: a clean output dir (`prompts-*.parquet`, schemas/prompt.json). Output: `conversations-*.parquet`
(schemas/conversation.json), `dead_letters-*.jsonl`, `manifest.json` (written last, then the staging
dir is renamed into place).

Backends behind one interface (`generate(prompts: list[list[int]]) -> list[(ids, finish)]`):
  hf      transformers in-process, left-padded batches of similar length, model loaded once per worker
  openai  an OpenAI-compatible server asked for token ids: vLLM `/v1/completions` with
          `return_token_ids`, or SGLang's native `/generate` (returns `output_ids`).
Every assistant turn is regenerated: for a multi-turn prompt the user turns are replayed one by one.
"""
from __future__ import annotations

import json
from typing import Literal, Sequence


from beam_jobs import io as bio
from beam_jobs.stage import Stage, Tally, run_stage
from eaglekit import __version__
from eaglekit.chat import ChatError, generation_stop_ids, next_prompt_ids, user_turns
from eaglekit.config import DTYPES, ConfigError, config, setting
from eaglekit.contract import arrow_schema, read_metadata, validate_schema
from eaglekit.sources import from_metadata

STAGE = "generate"


@config
class GenerateConfig:
    input: str = setting(help="Clean output dir (prompts-*.parquet) or a glob of such files.")
    output: str = setting(help="Output dir for conversations-*.parquet + manifest.json.")
    target: str = setting("embedded", "Target spec: embedded | tiny | folder | .gguf | hub id; its tokenizer renders the prompts.")
    backend: Literal["hf", "openai"] = setting("hf", "hf: transformers in-process; openai: an OpenAI-compatible server.")
    api_base: str = setting("http://127.0.0.1:8000", "openai backend: server URL.")
    api_flavor: Literal["vllm", "sglang"] = setting(
        "vllm", "openai backend: vllm (/v1/completions + return_token_ids) or sglang (/generate).")
    api_model: str | None = setting(None, "openai backend: served model name (default: the target's model id).")
    api_timeout_s: float = setting(600.0, "openai backend: seconds to wait for one response.", gt=0)
    system_prompt: str | None = setting(None, "System prompt for prompts that have none.")
    max_new_tokens: int = setting(256, "Tokens generated per answer at most.", ge=1)
    max_prompt_tokens: int | None = setting(None, "Longest prompt (default: the model context minus max_new_tokens).",
                                            ge=1)
    temperature: float = setting(0.0, "0 = greedy.", ge=0)
    top_p: float = setting(1.0, "Nucleus sampling.", gt=0, le=1)
    top_k: int = setting(0, "Top-k sampling; 0 = off.", ge=0)
    seed: int | None = setting(None, "Sampling seed.")
    batch_size: int | None = setting(None, "Sequences per generate() call at most (hf) / concurrent requests (openai); "
                                           "default 8 on cpu, 512 on cuda.", ge=1)
    batch_tokens: int | None = setting(None, "Token budget per generate() call: rows x (longest prompt + "
                                             "max_new_tokens) <= this; default: from free GPU memory on cuda "
                                             "(torch.cuda.mem_get_info), 32768 on cpu.", ge=1)
    inference_batch: int | None = setting(None, "Records per model-step call (fixed: Beam's min and max batch "
                                                "size), sorted by length into device batches; default 8 x "
                                                "batch size.", ge=1)
    max_turns: int = setting(8, "User turns answered per conversation.", ge=1)
    dtype: DTYPES = setting("float32", "Model dtype (float32 on CPU; bfloat16 / float16 on GPU).")
    device: str = setting("cpu", "cpu or cuda.")
    limit: int | None = setting(None, "Answer at most N prompts (smoke runs).", ge=0)
    max_dead_letter_share: float = setting(0.5, "Fail (exit 1) when more than this share of prompts become dead letters "
                                                "(1: never); a run that answers none of a non-empty input always fails.",
                                           ge=0.0, le=1.0)
    accelerator: str | None = setting(None, "Beam resource hint for the model step (Dataflow GPU workers), e.g. "
                                            "type:nvidia-l4;count:1;install-nvidia-driver.", cli=False)

    def rows_per_call(self) -> int:
        """Rows per generate() call at most: --batch-size, else 512 on cuda and 8 elsewhere."""
        if self.batch_size is not None:
            return int(self.batch_size)
        return 512 if str(self.device).startswith("cuda") else 8

    def records_per_step(self) -> int:
        """Records per RunInference call (Beam's fixed batch size for the model step)."""
        return int(self.inference_batch or max(8 * self.rows_per_call(), 8))

    def sampling(self) -> dict:
        return {"temperature": float(self.temperature), "top_p": float(self.top_p), "top_k": int(self.top_k),
                "seed": self.seed, "max_new_tokens": int(self.max_new_tokens)}


# ---------------------------------------------------------------------------------------------
# Backends

class HFBackend:
    """transformers generate(), left-padded batches."""
    name = "hf"

    def __init__(self, cfg: GenerateConfig):
        import torch
        from eaglekit import cpu_linear
        from eaglekit.config import torch_dtype
        from eaglekit.models import load_target
        self.cfg = cfg
        self.target = load_target(cfg.target, dtype=torch_dtype(cfg.dtype), device=cfg.device)
        # fp32 on CPU: oneDNN-packed weights make batched decoding ~1.5x faster than MKL's F.linear (batch 32,
        # measured here), which repacks the weight on every call; a no-op on GPU or bf16
        cpu_linear.pack_linears(self.target.model)
        self.tokenizer = self.target.tokenizer
        self.stop_ids = generation_stop_ids(self.tokenizer, self.target.model)
        pad = self.tokenizer.pad_token_id
        self.pad_id = int(pad if pad is not None else self.stop_ids[0])
        self.model_id, self.revision = self.target.model_id, self.target.revision
        self.context = int(getattr(self.target.config, "max_position_embeddings", 0) or 1 << 30)
        self._torch = torch
        self.batch_tokens = cfg.batch_tokens or default_batch_tokens(self.target.config, cfg.device, cfg.dtype)

    def generate(self, prompts: Sequence[Sequence[int]]) -> list[tuple[list[int], str]]:
        torch, cfg = self._torch, self.cfg
        width = max(len(p) for p in prompts)
        ids = torch.full((len(prompts), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(prompts), width), dtype=torch.long)
        for i, p in enumerate(prompts):  # left padding: every row's next token is at the same column
            ids[i, width - len(p):] = torch.tensor(list(p), dtype=torch.long)
            mask[i, width - len(p):] = 1
        kwargs = dict(max_new_tokens=cfg.max_new_tokens, eos_token_id=self.stop_ids, pad_token_id=self.pad_id,
                      do_sample=cfg.temperature > 0)
        if cfg.temperature > 0:
            kwargs.update(temperature=cfg.temperature, top_p=cfg.top_p, top_k=cfg.top_k or None)
            if cfg.seed is not None:
                torch.manual_seed(cfg.seed)
        else:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        device = self.target.model.device
        with torch.no_grad():
            out = self.target.model.generate(input_ids=ids.to(device), attention_mask=mask.to(device), **kwargs)
        return [cut_at_stop(row.tolist(), self.stop_ids) for row in out[:, width:].cpu()]


# ---------------------------------------------------------------------------------------------
# Batch planning and out-of-memory recovery

CPU_BATCH_TOKENS = 32768
MAX_AUTO_BATCH_TOKENS = 1 << 21
_DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}


def kv_bytes_per_token(model_config, dtype: str = "bfloat16") -> int:
    """KV-cache bytes one token holds in generate(): keys + values of every layer, plus a margin for the
    activations and logits of a decoding step (x1.5)."""
    layers = int(getattr(model_config, "num_hidden_layers", 1) or 1)
    heads = int(getattr(model_config, "num_attention_heads", 1) or 1)
    kv_heads = int(getattr(model_config, "num_key_value_heads", None) or heads)
    hidden = int(getattr(model_config, "hidden_size", 64) or 64)
    head_dim = int(getattr(model_config, "head_dim", None) or hidden // heads)
    kv = 2 * layers * kv_heads * head_dim * _DTYPE_BYTES.get(dtype, 4)
    return int(kv * 1.5) + 4 * hidden


def batch_token_budget(free_bytes: int, per_token_bytes: int, share: float = 0.6) -> int:
    """Padded tokens a batch may hold: `share` of the free device memory over the bytes per token (the
    model's weights are already loaded, so free memory is what the batch can use); at least 1,024."""
    return int(max(1024, min(MAX_AUTO_BATCH_TOKENS, share * free_bytes // max(1, per_token_bytes))))


def default_batch_tokens(model_config, device: str = "cpu", dtype: str = "float32") -> int:
    """The token budget when --batch-tokens is not given: from free GPU memory on cuda, else CPU_BATCH_TOKENS."""
    if str(device).startswith("cuda"):
        import torch
        if torch.cuda.is_available():
            index = torch.device(device).index
            free, _total = torch.cuda.mem_get_info(index if index is not None else torch.cuda.current_device())
            return batch_token_budget(free, kv_bytes_per_token(model_config, dtype))
    return CPU_BATCH_TOKENS


def plan_batches(lengths: Sequence[int], max_new_tokens: int, batch_tokens: int, max_rows: int) -> list[list[int]]:
    """Group row indices into generate() calls by length: rows sorted by prompt length (ties by index), cut so
    each batch holds at most `max_rows` rows and rows x (its longest prompt + max_new_tokens) <= batch_tokens,
    the padded tokens the call will hold. A row over the budget on its own still gets a batch of one."""
    order = sorted(range(len(lengths)), key=lambda i: (int(lengths[i]), i))
    batches: list[list[int]] = []
    cur: list[int] = []
    width = 0
    for i in order:
        w = max(width, int(lengths[i]) + int(max_new_tokens))
        if cur and (len(cur) >= max_rows or w * (len(cur) + 1) > batch_tokens):
            batches.append(cur)
            cur, w = [], int(lengths[i]) + int(max_new_tokens)
        cur.append(i)
        width = w
    if cur:
        batches.append(cur)
    return batches


def is_out_of_memory(err: BaseException) -> bool:
    """torch.cuda.OutOfMemoryError, or a RuntimeError/MemoryError whose message says out of memory."""
    oom_type = None
    try:
        import torch
        oom_type = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None)
    except ImportError:  # pragma: no cover - torch is a dependency
        pass
    if oom_type is not None and isinstance(err, oom_type):
        return True
    return isinstance(err, (RuntimeError, MemoryError)) and "out of memory" in str(err).lower()


def _release_memory() -> None:
    try:
        import torch
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except Exception:  # noqa: BLE001 - best effort
        pass


def generate_splitting(backend, prompts: Sequence[Sequence[int]], stats: dict | None = None) -> list:
    """backend.generate(prompts), halving the batch and retrying each half on out-of-memory, recursively.
    One entry per prompt: (ids, finish), or the out-of-memory error of a prompt that fails even alone.
    Any other error propagates. `stats["oom_splits"]` counts the splits; after one, the backend's
    `batch_tokens` (if any) is lowered to half the failed batch's padded size so later batches fit."""
    try:
        return list(backend.generate(prompts))
    except Exception as err:  # noqa: BLE001 - only out-of-memory is handled here
        if not is_out_of_memory(err):
            raise
        _release_memory()
        if len(prompts) <= 1:
            return [err]
        if stats is not None:
            stats["oom_splits"] = stats.get("oom_splits", 0) + 1
        budget = getattr(backend, "batch_tokens", None)
        if isinstance(budget, int):
            padded = len(prompts) * (max(len(p) for p in prompts) + int(getattr(getattr(backend, "cfg", None),
                                                                                 "max_new_tokens", 0) or 0))
            backend.batch_tokens = max(1, min(budget, padded // 2))
        half = len(prompts) // 2
        return generate_splitting(backend, prompts[:half], stats) + generate_splitting(backend, prompts[half:], stats)


def cut_at_stop(new_ids: list[int], stop_ids: Sequence[int]) -> tuple[list[int], str]:
    """Generated ids up to and including the first stop id ("stop"), else all of them ("length")."""
    stops = set(int(s) for s in stop_ids)
    for i, t in enumerate(new_ids):
        if int(t) in stops:
            return [int(x) for x in new_ids[: i + 1]], "stop"
    return [int(x) for x in new_ids], "length"


class OpenAIBackend:
    """An OpenAI-compatible server that returns token ids (vLLM or SGLang)."""
    name = "openai"

    def __init__(self, cfg: GenerateConfig):
        import httpx
        from eaglekit.models import load_target
        self.cfg = cfg
        # The local copy of the target provides the tokenizer (template rendering) and provenance.
        self.target = load_target(cfg.target)
        self.tokenizer = self.target.tokenizer
        self.stop_ids = generation_stop_ids(self.tokenizer, self.target.model)
        self.model_id = cfg.api_model or self.target.model_id
        self.revision = self.target.revision
        self.context = int(getattr(self.target.config, "max_position_embeddings", 0) or 1 << 30)
        self.client = httpx.Client(base_url=cfg.api_base.rstrip("/"), timeout=cfg.api_timeout_s)

    def _one(self, prompt: Sequence[int]) -> tuple[list[int], str]:
        cfg = self.cfg
        if cfg.api_flavor == "vllm":
            body = {"model": self.model_id, "prompt": list(prompt), "max_tokens": cfg.max_new_tokens,
                    "temperature": cfg.temperature, "top_p": cfg.top_p, "return_token_ids": True,
                    "skip_special_tokens": False}
            if cfg.top_k:
                body["top_k"] = cfg.top_k
            if cfg.seed is not None:
                body["seed"] = cfg.seed
            r = self.client.post("/v1/completions", json=body)
            r.raise_for_status()
            choice = r.json()["choices"][0]
            if choice.get("token_ids") is None:
                raise RuntimeError("the server returned no token_ids: it needs vLLM >= 0.10.2 "
                                   "(return_token_ids); for SGLang use --api-flavor sglang")
            ids, finish = [int(t) for t in choice["token_ids"]], choice.get("finish_reason") or "stop"
        else:
            params = {"max_new_tokens": cfg.max_new_tokens, "temperature": cfg.temperature, "top_p": cfg.top_p,
                      "skip_special_tokens": False}
            if cfg.top_k:
                params["top_k"] = cfg.top_k
            if cfg.seed is not None:
                params["sampling_seed"] = cfg.seed
            r = self.client.post("/generate", json={"input_ids": list(prompt), "sampling_params": params})
            r.raise_for_status()
            data = r.json()
            if data.get("output_ids") is None:
                raise RuntimeError("the server returned no output_ids; is this SGLang's native /generate?")
            ids = [int(t) for t in data["output_ids"]]
            reason = (data.get("meta_info") or {}).get("finish_reason") or {}
            finish = reason.get("type", "stop") if isinstance(reason, dict) else str(reason)
            matched = reason.get("matched") if isinstance(reason, dict) else None
            # SGLang reports the stop token it matched; keep it as the turn's generated end-of-turn id.
            if finish == "stop" and isinstance(matched, int) and (not ids or ids[-1] != matched):
                ids.append(matched)
        return ids, ("length" if finish == "length" else "stop")

    def generate(self, prompts: Sequence[Sequence[int]]) -> list[tuple[list[int], str]]:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=max(1, self.cfg.rows_per_call())) as pool:
            return list(pool.map(self._one, prompts))


def load_backend(cfg: GenerateConfig):
    return {"hf": HFBackend, "openai": OpenAIBackend}[cfg.backend](cfg)


# ---------------------------------------------------------------------------------------------
# Conversations

def _dead(reason: str, rec: dict, detail: str) -> dict:
    prov = rec.get("provenance") or {}
    return {"dead": bio.dead_letter(STAGE, reason, rec.get("id"), prov.get("file"), prov.get("record"), detail)}


def generate_batch(records: Sequence[dict], backend, cfg: GenerateConfig, stats: dict | None = None) -> list[dict]:
    """Answer every user turn of each record; one result per record: {"conv": row} or {"dead": letter}.

    Each turn's prompts are planned into device batches by length and token budget (plan_batches); a batch
    that runs out of memory is halved and retried (generate_splitting), so only a record that fails alone
    becomes a dead letter. `stats` (optional) gathers new_tokens and oom_splits."""
    stats = {} if stats is None else stats
    stats.setdefault("new_tokens", 0)
    stats.setdefault("oom_splits", 0)
    states = []
    results: dict[int, dict] = {}
    max_prompt = cfg.max_prompt_tokens or max(1, backend.context - cfg.max_new_tokens)
    for i, rec in enumerate(records):
        try:
            system, users = user_turns(rec["messages"])
        except ChatError as err:
            results[i] = _dead("bad_messages", rec, str(err))
            continue
        if system is None:
            system = cfg.system_prompt
        states.append({"i": i, "rec": rec, "system": system, "users": users[: cfg.max_turns],
                       "prompts": [], "responses": [], "finish": None})
    turn = 0
    while True:
        active = [s for s in states if s["i"] not in results and turn < len(s["users"]) and s["finish"] != "length"]
        if not active:
            break
        todo = []
        for s in active:
            try:
                p = next_prompt_ids(backend.tokenizer, s["system"], s["users"], s["responses"], backend.stop_ids)
            except Exception as err:  # noqa: BLE001 - a template error is the record's problem
                results[s["i"]] = _dead("template_error", s["rec"], f"{type(err).__name__}: {err}")
                continue
            total = sum(len(a) + len(b) for a, b in zip(s["prompts"], s["responses"])) + len(p)
            if total > max_prompt:
                if turn == 0:
                    results[s["i"]] = _dead("prompt_too_long", s["rec"], f"{total} prompt tokens > {max_prompt}; "
                                            f"raise --max-prompt-tokens or shorten the prompt")
                else:
                    s["users"] = s["users"][:turn]  # keep the turns that fit
                continue
            todo.append((s, p))
        fulls = [sum((a + b for a, b in zip(s["prompts"], s["responses"])), []) + p for s, p in todo]
        budget = getattr(backend, "batch_tokens", None) or cfg.batch_tokens or 1 << 62
        pending = plan_batches([len(f) for f in fulls], cfg.max_new_tokens, budget, cfg.rows_per_call())
        while pending:
            batch = pending.pop(0)
            chunk = [todo[k] for k in batch]
            try:
                outs = generate_splitting(backend, [fulls[k] for k in batch], stats)
            except Exception as err:  # noqa: BLE001 - the records go to dead letters with the reason
                for s, _ in chunk:
                    results[s["i"]] = _dead("generation_error", s["rec"], f"{type(err).__name__}: {err}")
                continue
            finally:
                lowered = getattr(backend, "batch_tokens", None) or budget
                if lowered < budget and pending:  # an out-of-memory lowered the budget: re-plan what is left
                    rest = [k for b in pending for k in b]
                    pending = [[rest[j] for j in b] for b in plan_batches(
                        [len(fulls[k]) for k in rest], cfg.max_new_tokens, lowered, cfg.rows_per_call())]
                budget = min(budget, lowered)
            for (s, p), out in zip(chunk, outs):
                if isinstance(out, BaseException):
                    results[s["i"]] = _dead("out_of_memory", s["rec"], f"turn {turn}: out of memory with this "
                                            f"record alone in the batch ({type(out).__name__}: {out})")
                    continue
                ids, finish = out
                stats["new_tokens"] += len(ids)
                if not ids or all(t in backend.stop_ids for t in ids):
                    results[s["i"]] = _dead("empty_response", s["rec"], f"turn {turn}: the target generated "
                                            f"no content ({len(ids)} ids, finish={finish})")
                    continue
                s["prompts"].append(p)
                s["responses"].append(ids)
                s["finish"] = finish
        turn += 1
    for s in states:
        if s["i"] in results:
            continue
        rec = s["rec"]
        results[s["i"]] = {"conv": {
            "id": rec["id"], "source": rec["source"], "category": rec.get("category"),
            "messages": [{"role": m["role"], "content": m["content"]} for m in rec["messages"]],
            "turns": [{"prompt_ids": p, "response_ids": r} for p, r in zip(s["prompts"], s["responses"])],
            "finish_reason": s["finish"], "sampling": cfg.sampling(),
            "generator": {"backend": backend.name, "model_id": backend.model_id, "revision": backend.revision}}}
    return [results[i] for i in range(len(records))]


METRICS_NAMESPACE = "eaglekit.generate"
_PROGRESS: list = []  # the local run's progress display (in-process DirectRunner only)


def _run_handler(batch, backend, cfg):
    """The model step: generate_batch, then Beam counters (records, new_tokens, dead_letters, oom_splits;
    Dataflow shows them on the job page) and the local progress display, if one is open."""
    from apache_beam.metrics import Metrics
    stats: dict = {}
    out = generate_batch(batch, backend, cfg, stats)
    dead = sum(1 for r in out if "dead" in r)
    for name, value in (("records", len(out)), ("new_tokens", stats["new_tokens"]), ("dead_letters", dead),
                        ("oom_splits", stats["oom_splits"])):
        Metrics.counter(METRICS_NAMESPACE, name).inc(int(value))
    for progress in list(_PROGRESS):
        progress.advance(len(out), stats["new_tokens"])
    return out


class GenerateProgress:
    """A rich progress bar for a local generate run: records done of the total, new tokens/s, ETA."""

    def __init__(self, total: int, console=None):
        import time

        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
            TimeRemainingColumn
        self._time = time.monotonic
        self.started = self._time()
        self.records = self.new_tokens = 0
        self.progress = Progress(TextColumn("generate"), BarColumn(), MofNCompleteColumn(), TextColumn("records"),
                                 TextColumn("{task.fields[rate]} new tok/s"), TimeElapsedColumn(),
                                 TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=False)
        self.task = self.progress.add_task("generate", total=max(0, int(total)), rate="-")

    def __enter__(self):
        self.progress.start()
        _PROGRESS.append(self)
        return self

    def __exit__(self, *exc):
        if self in _PROGRESS:
            _PROGRESS.remove(self)
        self.progress.refresh()
        self.progress.stop()
        return False

    def advance(self, records: int, new_tokens: int) -> None:
        self.records += int(records)
        self.new_tokens += int(new_tokens)
        rate = self.new_tokens / max(1e-9, self._time() - self.started)
        self.progress.update(self.task, advance=int(records), rate=f"{rate:,.0f}")


# ---------------------------------------------------------------------------------------------
# Pipeline

def prompt_files(path: str) -> list[str]:
    files = bio.stage_files(path, "prompts-*.parquet")
    if not files:
        raise ConfigError(f"no prompts-*.parquet under {path!r}: point --input at a clean output dir "
                          f"(eaglekit beam run clean --output DIR)")
    for f in files:
        validate_schema(bio.parquet_schema(f), "prompt", where=f)
    return files


def read_records(path: str):
    yield from bio.parquet_records(path)


def prepare(cfg: GenerateConfig, runner, beam_args, progress=None) -> dict:
    """The prompt files (checked against the prompt schema), the records to answer, the output schema with
    the local target's provenance (tokenizer + template), the model step and, for a local in-process run,
    the progress display."""
    from beam_jobs.handlers import LoadOnceHandler
    from eaglekit.models import load_target

    files = prompt_files(cfg.input)
    n_in_files = sum(bio.parquet_rows(f) for f in files)
    local = load_target(cfg.target)
    # the terms the prompts came under travel on: in the conversations' schema metadata and the manifest
    sources = from_metadata(read_metadata(bio.parquet_schema(f)) for f in files)
    schema = arrow_schema("conversation", {"eaglekit_version": __version__, **local.metadata(),
                                           **({"sources": sources} if sources else {})})
    step = cfg.records_per_step()
    handler = LoadOnceHandler(cfg, load_backend, _run_handler, min_batch_size=step, max_batch_size=step,
                              namespace=METRICS_NAMESPACE)
    count_in = n_in_files if cfg.limit is None else min(cfg.limit, n_in_files)
    display = None
    if _show_progress(progress, runner, beam_args):
        display = GenerateProgress(count_in, console=None if progress in (None, True) else progress)
    return {"files": files, "schema": schema, "handler": handler, "count_in": count_in, "display": display,
            "sources": sources}


def _build(p, cfg: GenerateConfig, prep: dict, staging: str) -> None:
    build_pipeline(p, cfg, prep["files"], prep["handler"], prep["schema"], staging)


def tally(cfg: GenerateConfig, prep: dict, staging: str, info) -> Tally:
    from apache_beam.io.filesystems import FileSystems

    metrics = _metrics(info.result) if info.result is not None else {}
    out = sum(bio.parquet_rows(f) for f in bio.list_files(FileSystems.join(staging, "conversations-*.parquet")))
    dropped = bio.tally_dead_letters(staging)
    counts = {STAGE: bio.stage_counts(prep["count_in"], out, dropped)}
    files_out = [f[len(staging) + 1:] for f in bio.list_files(FileSystems.join(staging, "*"))]
    return Tally(counts, prep["count_in"], out, dropped, manifest={
        "counts": counts, "files": files_out, "sources": prep["sources"],
        "throughput": {"seconds": round(info.seconds, 3), **metrics,
                       "new_tokens_per_s": round(metrics.get("new_tokens", 0) / max(info.seconds, 1e-9), 2)}})


def _summary(m: dict) -> str:
    c = m["counts"][STAGE]
    return f"{c['in']} prompts -> {c['out']} conversations, dropped {c['dropped']}"


GENERATE = Stage(STAGE, "generate", GenerateConfig, prepare, _build, tally, _summary)


def run_generate(cfg: GenerateConfig, runner: str = "DirectRunner", beam_args=(), progress=None) -> dict:
    """Run the generate job. `progress`: show a progress display (records, new tokens/s, ETA) when the run is
    local and in-process; None: when stderr is a terminal; a rich Console: draw it there."""
    return run_stage(GENERATE, cfg, runner, beam_args, progress=progress)


def _show_progress(progress, runner, beam_args) -> bool:
    import sys

    options = bio.pipeline_options(runner, beam_args)
    in_process = bio.runs_locally(options) and \
        options.view_as(bio.DirectOptions).direct_running_mode in ("in_memory", "multi_threading")
    if progress is None:
        return in_process and sys.stderr.isatty()
    return in_process and progress is not False


def _metrics(result) -> dict:
    """The model step's counters (records, new_tokens, dead_letters, oom_splits) from a finished run."""
    from apache_beam.metrics.metric import MetricsFilter
    try:
        counters = result.metrics().query(MetricsFilter().with_namespace(METRICS_NAMESPACE))["counters"]
    except Exception:  # noqa: BLE001 - a runner without metrics: the manifest goes without them
        return {}
    out: dict = {}
    for c in counters:
        value = c.committed if c.committed is not None else c.attempted
        out[c.key.metric.name] = out.get(c.key.metric.name, 0) + int(value or 0)
    return out


def build_pipeline(p, cfg: GenerateConfig, files: list[str], handler, schema, staging: str) -> None:
    """The generate job: read prompts -> the model step (RunInference; the only step with the GPU hint)
    -> conversations and dead letters into `staging`."""
    import apache_beam as beam
    from apache_beam.io.filesystems import FileSystems
    from apache_beam.ml.inference.base import RunInference
    recs = p | "Files" >> beam.Create(files) | "Read" >> beam.FlatMap(read_records)
    if cfg.limit is not None:
        recs = (recs | "Limit" >> beam.combiners.Sample.FixedSizeGlobally(cfg.limit)
                | "Flatten" >> beam.FlatMap(lambda xs: sorted(xs, key=lambda r: r["id"])))
    model_step = RunInference(handler)
    if cfg.accelerator:  # only the model step asks for GPU workers; the rest stays on CPU
        model_step = model_step.with_resource_hints(accelerator=cfg.accelerator)
    results = recs | "Generate" >> model_step
    convs = results | "Convs" >> beam.FlatMap(lambda r: [r["conv"]] if "conv" in r else [])
    dead = results | "Dead" >> beam.FlatMap(lambda r: [r["dead"]] if "dead" in r else [])
    convs | "WriteConvs" >> beam.io.WriteToParquet(FileSystems.join(staging, "conversations"), schema,
                                                  file_name_suffix=".parquet")
    (dead | "DeadJson" >> beam.Map(json.dumps)
     | "WriteDead" >> beam.io.WriteToText(FileSystems.join(staging, "dead_letters"), file_name_suffix=".jsonl"))
