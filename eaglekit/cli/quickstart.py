"""`eaglekit quickstart`: the whole loop on embedded defaults (DirectRunner, local files, the embedded
SmolLM2 target, CPU): clean -> generate -> featurize -> train -> export -> bench, on the prompt set
shipped in eaglekit/data, ending with a short report.

It declares its run and hands it to the run's one runner (beam_jobs.pipeline.run_steps): the Beam stages
as `eaglekit beam run --config` runs them, then training, export and the bench. It is resumable: a step
whose output is complete (manifest or summary present and valid) is skipped.
"""
from __future__ import annotations

import json
import logging
import time
from pathlib import Path

import click

from eaglekit.cli.options import build, config_options
from eaglekit.config import config, setting

PROMPTS = Path(__file__).resolve().parents[1] / "data" / "prompts.jsonl"
SOURCES = PROMPTS.with_name("sources.yaml")  # the prompt set's licence and terms, which clean checks
CARD = "data-card.md"  # the run's data card (eaglekit.card), in the workdir
DRAFT, HEAD, BENCH = "draft", "head-sglang", "bench"  # the folders of the steps after the data stages


@config
class QuickstartConfig:
    workdir: str = setting("runs/quickstart", "Where every artefact goes.")
    prompts: int | None = setting(None, "Use only the first N records of the shipped prompt set.", ge=1)
    target: str = setting("embedded", "Target spec (embedded, tiny, folder, ...).")
    max_new_tokens: int = setting(96, "Tokens per response (SmolLM2 on 2 CPU cores writes ~15-60 tok/s).", ge=1)
    train_steps: int = setting(300, "Training steps.", ge=1)
    seq_len: int = setting(512, "Tokens per packed training row.", ge=1)
    ttt_steps: int = setting(3, "Training-time-test unroll length.", ge=1)
    bench_prompts: int = setting(8, "Prompts the bench measures.", ge=1)
    bench_tokens: int = setting(48, "Tokens per bench prompt.", ge=1)
    runner: str = setting("DirectRunner", "Beam runner of the data stages.", cli=False)


def run_config(cfg: QuickstartConfig):
    """The data stages' run (beam_jobs.pipeline.RunConfig), on the shipped prompts or their first N."""
    from beam_jobs.pipeline import RunConfig
    work = Path(cfg.workdir)
    sources = SOURCES
    if cfg.prompts is not None:
        lines = PROMPTS.read_text(encoding="utf-8").splitlines(keepends=True)[: cfg.prompts]
        src = work / "inputs" / "prompts.jsonl"
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text("".join(lines), encoding="utf-8")
        # the same source and terms: its path is relative to the sources file, so it names the copy
        sources = src.with_name(SOURCES.name)
        sources.write_text(SOURCES.read_text(encoding="utf-8"), encoding="utf-8")
    return RunConfig(workdir=str(work), clean={"sources": str(sources)},
                     generate={"target": cfg.target, "max_new_tokens": cfg.max_new_tokens, "batch_size": 8},
                     featurize={"target": cfg.target})


def stage_train(cfg: QuickstartConfig, work: Path) -> dict:
    from beam_jobs.pipeline import STAGES
    from eaglekit.train import TrainConfig, train
    return train(TrainConfig(data=str(work / STAGES["featurize"].folder), target=cfg.target, out=str(work / DRAFT),
                             max_steps=cfg.train_steps, seq_len=cfg.seq_len, ttt_steps=cfg.ttt_steps, lr=1e-3,
                             eval_every=max(cfg.train_steps // 3, 1), save_every=max(cfg.train_steps // 3, 1),
                             log_every=25, progress=False))


def stage_export(cfg: QuickstartConfig, work: Path) -> dict:
    from eaglekit.export import export_head
    summary = json.loads((work / DRAFT / "summary.json").read_text())
    ckpt = summary["best_checkpoint"]
    path = export_head(ckpt, work / HEAD, fmt="sglang")
    return {"head": str(path), "checkpoint": ckpt}


def stage_bench(cfg: QuickstartConfig, work: Path) -> dict:
    from eaglekit.heads import builtin_head
    from serving.bench import BenchConfig, run_bench

    def bench(head, output):
        return run_bench(BenchConfig(model=cfg.target, head=str(head), num_prompts=cfg.bench_prompts,
                                     max_tokens=cfg.bench_tokens, settings=[(3, 1, 4), (4, 2, 6)],
                                     output=str(output), random_head_ok=False), echo=lambda *_: None)
    report = bench(work / HEAD, work / BENCH)
    shipped = builtin_head(cfg.target)
    if shipped is not None:  # the head the package ships for this target, on the same prompts: yours vs it
        report["builtin"] = bench(shipped, work / BENCH / "builtin")
        (work / BENCH / "report.json").write_text(json.dumps(report, indent=1, default=str))
    return report


def steps(cfg: QuickstartConfig) -> list:
    """The quickstart's steps: the data stages of its run, then train, export and bench."""
    from beam_jobs.pipeline import Step, stage_steps
    work = Path(cfg.workdir)
    return [*stage_steps(run_config(cfg), cfg.runner),
            Step("train", DRAFT, "summary.json", lambda: stage_train(cfg, work)),
            Step("export", HEAD, "config.json", lambda: stage_export(cfg, work),
                 recorded=lambda out: {"head": str(out)}),
            Step("bench", BENCH, "report.json", lambda: stage_bench(cfg, work))]


def run_quickstart(cfg: QuickstartConfig, console) -> dict:
    from beam_jobs.pipeline import run_steps
    Path(cfg.workdir).mkdir(parents=True, exist_ok=True)
    results, timings = run_steps(steps(cfg), cfg.workdir, resume=True, echo=console.print,
                                 status=lambda name: console.status(f"[bold]{name}[/] running ..."))
    from eaglekit.card import write_card
    card = Path(cfg.workdir) / CARD
    write_card([cfg.workdir], card)  # every run: the card follows what the workdir holds now
    return {"results": results, "timings": timings, "card": str(card)}


@click.command()
@config_options(QuickstartConfig)
@click.pass_context
def quickstart(ctx, **values):
    """Run clean -> generate -> featurize -> train -> bench on embedded defaults and report."""
    from rich.console import Console

    from eaglekit.cli import quiet
    verbose = ctx.find_root().params.get("verbose", 0)
    quiet(verbose)  # the report is the output: library chatter only with -v
    if not verbose:
        logging.getLogger().setLevel(logging.ERROR)
    console = Console()
    cfg = build(QuickstartConfig, ctx, values, "quickstart")
    start = time.time()
    out = run_quickstart(cfg, console)
    out["total_s"] = time.time() - start
    (Path(cfg.workdir) / "quickstart-report.json").write_text(json.dumps(out, indent=1, default=str))
    print_report(cfg, out, console)


def _stage_counts(manifest: dict) -> list[tuple[str, dict]]:
    """Per-step counts of a stage manifest (schemas/manifest.json: `stages` in every stage's)."""
    return list(manifest.get("stages", {}).items())


def print_report(cfg: QuickstartConfig, out: dict, console) -> None:
    from rich.table import Table
    res, work = out["results"], Path(cfg.workdir)
    table = Table("stage", "step", "in", "out", "dropped (reason: n)", title="Counts (in = out + dropped)")
    for stage in ("clean", "generate", "featurize"):
        for step, c in _stage_counts(res.get(stage, {})):
            dropped = ", ".join(f"{k}: {v}" for k, v in c["dropped"].items()) or "-"
            table.add_row(stage, step, str(c["in"]), str(c["out"]), dropped)
    console.print(table)
    pii = res.get("clean", {}).get("pii_entities") or {}
    if pii:
        console.print("PII found and handled (by type): " + ", ".join(f"{k} {v}" for k, v in sorted(pii.items())))
    feats = res.get("featurize", {})
    shards = feats.get("shards", [])
    nbytes = sum(s.get("bytes", 0) for s in shards)
    ntok = sum(s.get("tokens", 0) for s in shards)
    if ntok:
        console.print(f"Feature shards: {len(shards)} shard(s), {ntok} tokens, {nbytes / 2**20:.1f} MiB, "
                      f"{nbytes / ntok:.0f} bytes/token")
    tr = res.get("train", {})
    if tr:
        ev = tr.get("best_eval") or {}
        tau = tr.get("sim_tau")
        if tau is None and tr.get("sim_accept_len") is not None:  # a summary from before sim_tau was recorded
            tau = 1.0 + tr["sim_accept_len"]
        held = "n/a" if tau is None else f"{tau:.2f}"
        console.print(f"Training: {tr.get('step')} steps, {tr.get('tokens')} tokens, best step {tr.get('best_step')}, "
                      f"held-out simulated acceptance length {held} (tokens per verify step, bonus token included, "
                      f"as the bench's below)"
                      + (f", acc by step {[round(a, 3) for a in ev.get('acc', [])]}" if ev.get("acc") else ""))
    bench = res.get("bench", {})
    for r in bench.get("runs", []):
        if r.get("setting") == "baseline":
            console.print(f"Plain greedy decoding: {r['output_tok_s']:.1f} tok/s")
        else:
            console.print(f"EAGLE-3 {tuple(r['setting'])} (steps, topk, draft tokens): {r['output_tok_s']:.1f} tok/s, "
                          f"acceptance length {r.get('accept_length', 0):.2f}, speed-up {r.get('speedup', 0):.2f}x"
                          + ("" if r.get("identical_to_baseline", True) else " [outputs differ from greedy!]"))
    for r in bench.get("builtin", {}).get("runs", []):
        if r.get("setting") != "baseline":
            console.print(f"  the shipped head (--draft builtin) {tuple(r['setting'])}: {r['output_tok_s']:.1f} tok/s, "
                          f"acceptance length {r.get('accept_length', 0):.2f}, speed-up {r.get('speedup', 0):.2f}x")
    from beam_jobs.pipeline import STAGES
    folders = [s.folder for s in STAGES.values()] + [DRAFT, HEAD, BENCH]
    features = work / STAGES["featurize"].folder
    console.print(f"\nArtefacts under {work}/: {' '.join(f + '/' for f in folders)} "
                  f"(total {out['total_s'] / 60:.1f} min; report: {work / 'quickstart-report.json'})")
    if out.get("card"):
        console.print(f"Data card (sources and their licences, counts, PII, target, head): {out['card']}")
    console.print("Next:\n"
                  f"  eaglekit data inspect {features}\n"
                  f"  eaglekit serve --model embedded --draft {work / HEAD} --backend embedded\n"
                  "  eaglekit beam run --config eaglekit/data/run.yaml --runner DataflowRunner --project P --region R "
                  "--temp_location gs://B/tmp --setup_file ./setup.py   (GPU workers: accelerator in run.yaml)\n"
                  "  eaglekit serve --model meta-llama/Llama-3.1-8B-Instruct --draft HEAD --backend sglang  (on a GPU)")
