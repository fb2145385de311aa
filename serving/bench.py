"""`eaglekit bench`: acceptance length, TPOT (median/p90), TTFT, output tokens/s and speed-up vs a
baseline without the head, per category, over sweeps of concurrency and (num_steps, topk, num_draft_tokens);
against the embedded engine in-process or any OpenAI-compatible endpoint (ours, SGLang, vLLM).
Writes report.json and PNG plots; `autotune` picks the best tree setting for the prompts and concurrency.
"""
from __future__ import annotations

import asyncio
import json
import statistics
import time
from dataclasses import asdict
from pathlib import Path

from eaglekit.config import config, setting

# A small built-in mix by category (chat-formatted at run time with the target's template).
BUILTIN_PROMPTS = {
    "chat": ["Give me three tips for sleeping better.", "What should I pack for a weekend hiking trip?",
             "How do I politely decline a meeting invitation?"],
    "code": ["Write a Python function that checks whether a string is a palindrome.",
             "Write a Python function that returns the n-th Fibonacci number iteratively.",
             "Explain what a Python list comprehension is, with an example."],
    "math": ["What is 17 times 23? Explain step by step.", "A train travels 60 km in 45 minutes. What is its speed in km/h?",
             "Solve for x: 3x + 7 = 22."],
    "writing": ["Write a short poem about the sea.", "Summarise the plot of Romeo and Juliet in three sentences.",
                "Write a two-sentence product description for a reusable water bottle."],
    "knowledge": ["What is the capital of Australia?", "Why is the sky blue?", "What does DNA stand for?"],
}


def _setting_arg(text: str) -> tuple:
    """--setting's syntax, with the form named in the error (parse_setting)."""
    try:
        return parse_setting(text)
    except ValueError:
        raise ValueError(f"{text!r}: give STEPS,TOPK,NUM_DRAFT_TOKENS[,MIN_DRAFT_PROB in [0, 1)], e.g. 3,1,4 or "
                         "5,4,12,0.05") from None


@config
class BenchConfig:
    model: str = setting("embedded", "Target spec (embedded engine) or served model name.")
    head: str | None = setting(None, "Exported head folder for the embedded engine, or `builtin` (the head shipped "
                                     "for the embedded target).")
    endpoint: str | None = setting(None, "OpenAI-compatible base URL, e.g. http://127.0.0.1:30000/v1")
    baseline_endpoint: str | None = setting(None, "Same target served without the head (for the speed-up).")
    api_key: str | None = setting(None, "Bearer key for the endpoints.", envvar="EAGLEKIT_API_KEY")
    prompts: str | None = setting(None, "JSONL ({prompt|messages, category}) or text file; default: built-in mix.")
    num_prompts: int = setting(10, "Prompts measured (cycled by category).", ge=0)
    max_tokens: int = setting(64, "Tokens generated per prompt at most.", ge=1)
    temperature: float = setting(0.0, "Sampling temperature (0: greedy).", ge=0.0)
    concurrency: list[int] = setting(factory=lambda: [1], help="Requests in flight (repeatable).")
    # (steps, topk, num_draft_tokens[, min_draft_prob]): the last is the embedded engine's draft-tree cut
    settings: list[tuple] = setting(factory=lambda: [(3, 1, 4)], help="STEPS,TOPK,NUM_DRAFT_TOKENS[,MIN_DRAFT_PROB] "
                                    "(repeatable).", flag="--setting", parse=_setting_arg)
    baseline: bool = setting(True, "Also measure the target without the head (the speed-up's baseline).")
    autotune: bool = setting(False, "Also try a set of chain/tree settings and pick the fastest.")
    output: str | None = setting("bench-out", "Folder for report.json and PNG plots ('': none).")
    plots: bool = setting(True, "Write PNG plots.")
    random_head_ok: bool = setting(True, "Embedded engine without --head: use a random head (reported as such).",
                                   cli=False)


AUTOTUNE_CANDIDATES = [(2, 1, 3), (3, 1, 4), (5, 1, 6), (3, 2, 6), (4, 2, 8), (5, 4, 8), (6, 4, 12),
                       (3, 4, 8, 0.05), (5, 4, 12, 0.05)]


def load_prompts(cfg: BenchConfig) -> list[dict]:
    """[{"category", "messages"} or {"category", "prompt"}], cycled by category up to num_prompts."""
    if cfg.prompts:
        path = Path(cfg.prompts)
        if not path.is_file():
            raise FileNotFoundError(f"prompt file {path} not found")
        rows = []
        for i, line in enumerate(path.read_text().splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            if path.suffix in (".jsonl", ".json"):
                try:
                    r = json.loads(line)
                except json.JSONDecodeError as err:
                    raise ValueError(f"{path}:{i}: not JSON ({err}); each line needs 'prompt' or 'messages'") from err
                if not ("prompt" in r or "messages" in r):
                    raise ValueError(f"{path}:{i}: needs a 'prompt' or 'messages' field")
                rows.append({"category": r.get("category", "default"), **{k: r[k] for k in ("prompt", "messages") if k in r}})
            else:
                rows.append({"category": "default", "messages": [{"role": "user", "content": line}]})
    else:
        cats = list(BUILTIN_PROMPTS)
        rows = []
        for i in range(max(len(v) for v in BUILTIN_PROMPTS.values())):
            for c in cats:
                if i < len(BUILTIN_PROMPTS[c]):
                    rows.append({"category": c, "messages": [{"role": "user", "content": BUILTIN_PROMPTS[c][i]}]})
    return rows[: cfg.num_prompts] if cfg.num_prompts else rows


def _pct(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summarise(records: list[dict], wall: float) -> dict:
    """Aggregate per-request records {category, ttft, latency, tokens, accept_length}."""
    tpot = [(r["latency"] - r["ttft"]) / (r["tokens"] - 1) for r in records if r["tokens"] > 1]
    acc = [r["accept_length"] for r in records if r.get("accept_length")]
    out_tokens = sum(r["tokens"] for r in records)
    res = {"requests": len(records), "failed": sum(1 for r in records if r.get("error")),
           "output_tokens": out_tokens, "wall_s": wall, "output_tok_s": out_tokens / wall if wall else 0.0,
           "tpot_median_ms": 1000 * statistics.median(tpot) if tpot else None,
           "tpot_p90_ms": 1000 * _pct(tpot, 0.9) if tpot else None,
           "ttft_median_ms": 1000 * statistics.median([r["ttft"] for r in records]) if records else None,
           "accept_length": sum(acc) / len(acc) if acc else None}
    cats = {}
    for c in sorted({r["category"] for r in records}):
        rs = [r for r in records if r["category"] == c]
        dec = sum(r["latency"] for r in rs)
        a = [r["accept_length"] for r in rs if r.get("accept_length")]
        cats[c] = {"requests": len(rs), "output_tok_s_per_request": sum(r["tokens"] for r in rs) / dec if dec else 0.0,
                   "accept_length": sum(a) / len(a) if a else None}
    res["per_category"] = cats
    return res


# ---------------------------------------------------------------------------------------------
# Embedded engine, in-process (same scheduler as the server, no HTTP)

def run_embedded(engine, prompt_ids: list[list[int]], categories: list[str], concurrency: int, max_tokens: int,
                 temperature: float = 0.0, ignore_eos: bool = True) -> tuple[list[dict], list[list[int]], float]:
    """Run all prompts with at most `concurrency` in flight, steps interleaved round-robin (ignore_eos=False:
    each answer ends at the target's end-of-turn, as served answers do)."""
    from serving.engine import SamplingParams
    pending = list(range(len(prompt_ids)))
    active, records, outputs = [], [None] * len(prompt_ids), [None] * len(prompt_ids)
    t0 = time.perf_counter()
    while pending or active:
        while pending and len(active) < concurrency:
            i = pending.pop(0)
            g = engine.start(prompt_ids[i], SamplingParams(max_new_tokens=max_tokens, temperature=temperature,
                                                           seed=i, ignore_eos=ignore_eos))
            g.started = time.perf_counter()
            active.append((i, g))
        for i, g in list(active):
            engine.step(g)
            if g.finished:
                end = time.perf_counter()
                records[i] = {"category": categories[i], "ttft": g.first_token_time - g.started,
                              "latency": end - g.started, "tokens": len(g.output_ids),
                              "accept_length": g.accept_length or None}
                outputs[i] = g.output_ids
                active.remove((i, g))
    return records, outputs, time.perf_counter() - t0


# ---------------------------------------------------------------------------------------------
# OpenAI-compatible endpoint

async def _one_request(client, url, model, item, max_tokens, temperature, headers):
    body = {"model": model, "max_tokens": max_tokens, "temperature": temperature, "stream": True,
            "ignore_eos": True}
    path = "/chat/completions" if "messages" in item else "/completions"
    body.update({"messages": item["messages"]} if "messages" in item else {"prompt": item["prompt"]})
    t0 = time.perf_counter()
    ttft, pieces, acc, tokens = None, [], None, 0
    try:
        async with client.stream("POST", url + path, json=body, headers=headers, timeout=600) as resp:
            if resp.status_code != 200:
                raise RuntimeError(f"HTTP {resp.status_code}: {(await resp.aread())[:200]!r}")
            async for line in resp.aiter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                data = json.loads(line[6:])
                if "error" in data:
                    raise RuntimeError(data["error"])
                for ch in data.get("choices", []):
                    text = (ch.get("delta") or {}).get("content") if "delta" in ch else ch.get("text")
                    if text:
                        if ttft is None:
                            ttft = time.perf_counter() - t0
                        pieces.append(text)
                    meta = data.get("meta_info") or {}
                    if meta.get("spec_accept_length"):
                        acc = meta["spec_accept_length"]
                    if meta.get("completion_tokens"):
                        tokens = meta["completion_tokens"]
                if data.get("usage"):
                    tokens = data["usage"].get("completion_tokens", tokens)
        lat = time.perf_counter() - t0
        return {"category": item["category"], "ttft": ttft or lat, "latency": lat, "tokens": tokens or len(pieces),
                "accept_length": acc, "text": "".join(pieces)}
    except Exception as err:
        lat = time.perf_counter() - t0
        return {"category": item["category"], "ttft": lat, "latency": lat, "tokens": 0, "error": str(err), "text": ""}


def run_endpoint(url: str, model: str | None, items: list[dict], concurrency: int, max_tokens: int,
                 temperature: float = 0.0, api_key: str | None = None) -> tuple[list[dict], float]:
    import httpx
    url = url.rstrip("/")
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    if model is None:
        model = httpx.get(url + "/models", headers=headers, timeout=30).json()["data"][0]["id"]

    async def main():
        sem = asyncio.Semaphore(concurrency)
        async with httpx.AsyncClient(limits=httpx.Limits(max_connections=concurrency + 4)) as client:
            async def guarded(item):
                async with sem:
                    return await _one_request(client, url, model, item, max_tokens, temperature, headers)
            t0 = time.perf_counter()
            recs = await asyncio.gather(*[guarded(it) for it in items])
            return recs, time.perf_counter() - t0
    return asyncio.run(main())


# ---------------------------------------------------------------------------------------------

def _encode(tokenizer, item) -> list[int]:
    if "messages" in item:
        ids = tokenizer.apply_chat_template(item["messages"], add_generation_prompt=True, tokenize=True)
        return list(ids["input_ids"] if hasattr(ids, "keys") else ids)
    return tokenizer(item["prompt"], add_special_tokens=False)["input_ids"]


def final_eval(target, checkpoint, prompts: str, max_tokens: int = 64, settings=((3, 1, 4), (5, 4, 8)),
               echo=None) -> dict:
    """The honest figure after training: the trained head (`checkpoint`: a run's best/ or step dir, exported
    to a temporary SGLang folder and reloaded with every tensor checked; or an exported head folder, e.g. one
    saved by speculators' trainer, loaded as it is) in the embedded engine, greedy, one
    request at a time, each answer ending at the target's end-of-turn (or max_tokens), on the prompts the user
    names (JSONL with prompt/messages + category, or text one a line: held-out prompts, never training ones).
    Returns the measured acceptance length (tokens per verify step, bonus included: the scale of the
    trainer's sim_tau) per setting (steps, topk, num_draft_tokens), chain first."""
    import tempfile

    from eaglekit.export import ExportOptions, export_head
    from serving.engine import EagleEngine, load_head
    items = load_prompts(BenchConfig(prompts=str(prompts), num_prompts=0))
    if not items:
        raise ValueError(f"{prompts}: no prompts")
    # A flat "prompt" is a user turn here, as the head was trained on chat conversations: encoded as raw text
    # (what `bench` does for a completion-style prompt) the target continues plain text, not an answer, and
    # the measured τ is that of a distribution the head never saw.
    items = [{"category": it["category"], "messages": [{"role": "user", "content": it["prompt"]}]}
             if "messages" not in it else it for it in items]
    prompt_ids = [_encode(target.tokenizer, it) for it in items]
    cats = [it["category"] for it in items]
    exported = (Path(checkpoint) / "config.json").is_file() and not (Path(checkpoint) / "draft.json").is_file()
    with tempfile.TemporaryDirectory(prefix="eaglekit-final-eval-") as tmp:
        head = load_head(str(checkpoint if exported else
                             export_head(checkpoint, Path(tmp) / "head", "sglang", ExportOptions(dtype="float32"))),
                         target)
    runs = []
    for s in settings:
        recs, _outs, wall = run_embedded(EagleEngine(target, head, *s), prompt_ids, cats, 1, max_tokens,
                                         temperature=0.0, ignore_eos=False)
        summ = summarise(recs, wall)
        runs.append({"setting": list(s), "accept_length": summ["accept_length"],
                     "output_tok_s": summ["output_tok_s"], "tokens": sum(r["tokens"] for r in recs)})
        if echo:
            echo(f"final eval {list(s)}: measured acceptance length {summ['accept_length'] or 0:.3f} "
                 f"over {len(items)} prompts")
    return {"prompts": str(prompts), "num_prompts": len(items), "max_tokens": int(max_tokens),
            "accept_length": runs[0]["accept_length"], "runs": runs}


def run_bench(cfg: BenchConfig, echo=print) -> dict:
    """Run the benchmark; return (and write to cfg.output/report.json) the report."""
    items = load_prompts(cfg)
    cats = [it["category"] for it in items]
    report = {"config": {k: v for k, v in asdict(cfg).items()}, "runs": [], "notes": []}
    if cfg.endpoint:
        for c in cfg.concurrency:
            recs, wall = run_endpoint(cfg.endpoint, None if cfg.model == "embedded" else cfg.model, items, c,
                                      cfg.max_tokens, cfg.temperature, cfg.api_key)
            report["runs"].append({"setting": "endpoint", "concurrency": c, **summarise(recs, wall)})
            if cfg.baseline_endpoint:
                recs, wall = run_endpoint(cfg.baseline_endpoint, None, items, c, cfg.max_tokens, cfg.temperature,
                                          cfg.api_key)
                report["runs"].append({"setting": "baseline", "concurrency": c, **summarise(recs, wall)})
        if not cfg.baseline_endpoint:
            report["notes"].append("no --baseline-endpoint: speed-up not measured")
    else:
        from eaglekit.models import load_target
        from serving.engine import EagleEngine
        target = load_target(cfg.model)
        if cfg.head:
            from serving.engine import load_head
            head = load_head(cfg.head, target)
            report["head"] = str(cfg.head)
        else:
            from serving.testing import random_head
            head = random_head(target)
            report["head"] = "UNTRAINED (random init)"
            report["notes"].append("measured with an UNTRAINED randomly initialised head (no --head given): "
                                   "acceptance ~1 and speed-up < 1 are expected; pass --head DIR from eaglekit train")
            echo("note: no --head given: measuring with an UNTRAINED random head (acceptance ~1 expected)")
        prompt_ids = [_encode(target.tokenizer, it) for it in items]
        settings = list(cfg.settings)
        if cfg.autotune:
            settings = sorted(set(settings) | set(AUTOTUNE_CANDIDATES))
        base_out = None
        for c in cfg.concurrency:
            if cfg.baseline:
                recs, outs, wall = run_embedded(EagleEngine(target, None), prompt_ids, cats, c, cfg.max_tokens,
                                                cfg.temperature)
                base_out = outs
                report["runs"].append({"setting": "baseline", "concurrency": c, **summarise(recs, wall)})
                echo(f"baseline c={c}: {report['runs'][-1]['output_tok_s']:.1f} tok/s")
            for s in settings:
                eng = EagleEngine(target, head, *s)
                recs, outs, wall = run_embedded(eng, prompt_ids, cats, c, cfg.max_tokens, cfg.temperature)
                run = {"setting": list(s), "concurrency": c, **summarise(recs, wall)}
                if base_out is not None and cfg.temperature == 0:
                    run["identical_to_baseline"] = outs == base_out
                report["runs"].append(run)
                echo(f"eagle3 {s} c={c}: {run['output_tok_s']:.1f} tok/s, accept {run['accept_length']:.2f}")
    _speedups(report)
    if cfg.autotune:
        report["autotune"] = autotune_pick(report)
    if cfg.output:
        out = Path(cfg.output)
        out.mkdir(parents=True, exist_ok=True)
        (out / "report.json").write_text(json.dumps(report, indent=1, default=str))
        if cfg.plots:
            report["plots"] = plot(report, out)
    return report


def _speedups(report: dict) -> None:
    base = {r["concurrency"]: r for r in report["runs"] if r["setting"] == "baseline"}
    for r in report["runs"]:
        b = base.get(r["concurrency"])
        if r["setting"] != "baseline" and b and b["output_tok_s"]:
            r["speedup"] = r["output_tok_s"] / b["output_tok_s"]
    cross = {}
    for r in report["runs"]:
        if "speedup" in r:
            key = json.dumps(r["setting"])
            if r["speedup"] < 1.0 and key not in cross:
                cross[key] = r["concurrency"]
    report["crossover_concurrency"] = cross  # first concurrency where speculation stops paying, per setting


def parse_setting(text: str) -> tuple:
    """'STEPS,TOPK,NUM_DRAFT_TOKENS[,MIN_DRAFT_PROB]' -> (3 ints[, a float in [0, 1)]); ValueError otherwise."""
    parts = text.split(",")
    if len(parts) not in (3, 4):
        raise ValueError(f"{text!r}: expected 3 or 4 comma-separated fields")
    setting = tuple(int(x) for x in parts[:3]) + tuple(float(x) for x in parts[3:])
    if len(setting) == 4 and not 0.0 <= setting[3] < 1.0:
        raise ValueError(f"{text!r}: MIN_DRAFT_PROB must be within [0, 1)")
    return setting


def serve_flags(setting) -> str:
    """The `eaglekit serve` flags for a bench setting [steps, topk, num_draft_tokens(, min_draft_prob)]."""
    flags = f"--num-steps {setting[0]} --topk {setting[1]} --num-draft-tokens {setting[2]}"
    return flags + (f" --min-draft-prob {setting[3]}" if len(setting) > 3 and setting[3] else "")


def autotune_pick(report: dict) -> dict:
    """The fastest setting per concurrency, with the `eaglekit serve` flags that run it."""
    best = {}
    for r in report["runs"]:
        if r["setting"] in ("baseline", "endpoint"):
            continue
        c = r["concurrency"]
        if c not in best or r["output_tok_s"] > best[c]["output_tok_s"]:
            best[c] = {"setting": r["setting"], "output_tok_s": r["output_tok_s"], "speedup": r.get("speedup"),
                       "accept_length": r["accept_length"], "serve_flags": serve_flags(r["setting"])}
    return {str(c): v for c, v in best.items()}


def plot(report: dict, out: Path) -> list[str]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    files = []
    by = {}
    for r in report["runs"]:
        by.setdefault(json.dumps(r["setting"]), []).append(r)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name, rs in by.items():
        rs = sorted(rs, key=lambda r: r["concurrency"])
        xs = [r["concurrency"] for r in rs]
        axes[0].plot(xs, [r["tpot_median_ms"] or 0 for r in rs], marker="o", label=name)
        axes[1].plot(xs, [r["output_tok_s"] for r in rs], marker="o", label=name)
    axes[0].set(xlabel="concurrency", ylabel="TPOT median (ms)", title="TPOT vs concurrency", xscale="log")
    axes[1].set(xlabel="concurrency", ylabel="output tokens/s", title="Throughput vs concurrency", xscale="log")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "concurrency.png", dpi=90)
    plt.close(fig)
    files.append(str(out / "concurrency.png"))
    # per category output speed and baseline vs EAGLE-3 at the lowest concurrency
    c0 = min(r["concurrency"] for r in report["runs"])
    runs = [r for r in report["runs"] if r["concurrency"] == c0]
    cats = sorted({c for r in runs for c in r["per_category"]})
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    width = 0.8 / max(len(runs), 1)
    for j, r in enumerate(runs):
        axes[0].bar([i + j * width for i in range(len(cats))],
                    [r["per_category"].get(c, {}).get("output_tok_s_per_request", 0) for c in cats], width,
                    label=json.dumps(r["setting"]))
    axes[0].set_xticks([i + 0.4 - width / 2 for i in range(len(cats))], cats, rotation=20)
    axes[0].set(ylabel="output tokens/s per request", title=f"Per-category output speed (c={c0})")
    axes[0].legend(fontsize=7)
    axes[1].bar([json.dumps(r["setting"]) for r in runs], [r["output_tok_s"] for r in runs],
                color=["grey" if r["setting"] == "baseline" else "tab:blue" for r in runs])
    axes[1].set(ylabel="output tokens/s", title=f"Baseline vs EAGLE-3 (c={c0})")
    axes[1].tick_params(axis="x", rotation=20, labelsize=7)
    fig.tight_layout()
    fig.savefig(out / "categories.png", dpi=90)
    plt.close(fig)
    files.append(str(out / "categories.png"))
    return files
