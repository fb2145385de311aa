"""`eaglekit quickstart`: the whole loop on embedded defaults (DirectRunner, local files, the embedded
SmolLM2 target, CPU): clean -> generate -> featurize -> train -> export -> bench, on the prompt set
shipped in eaglekit/data, ending with a short report.

It is an orchestrator in the CLI layer: it calls the Beam stages (beam_jobs/), the library's training
and export, and serving/'s bench. It is resumable: a stage whose output is complete (manifest or summary present and valid) is skipped.
"""
from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import click

PROMPTS = Path(__file__).resolve().parents[1] / "data" / "prompts.jsonl"


@dataclass
class QuickstartConfig:
    workdir: str = "runs/quickstart"
    prompts: int | None = None        # use the first N records of the shipped prompt set (None: all)
    target: str = "embedded"
    max_new_tokens: int = 96          # per response; SmolLM2 on 2 CPU cores writes ~15-60 tok/s
    train_steps: int = 300
    seq_len: int = 512
    ttt_steps: int = 3
    bench_prompts: int = 8
    bench_tokens: int = 48
    runner: str = "DirectRunner"


def _done(path: Path, marker: str) -> bool:
    return (path / marker).is_file()


def stage_clean(cfg: QuickstartConfig, work: Path) -> dict:
    from beam_jobs.clean import CleanConfig, run_clean
    src = PROMPTS
    if cfg.prompts is not None:
        lines = PROMPTS.read_text(encoding="utf-8").splitlines(keepends=True)[: cfg.prompts]
        src = work / "inputs" / "prompts.jsonl"
        src.parent.mkdir(parents=True, exist_ok=True)
        src.write_text("".join(lines), encoding="utf-8")
    return run_clean(CleanConfig(inputs=[str(src)], output=str(work / "clean")), runner=cfg.runner)


def stage_generate(cfg: QuickstartConfig, work: Path) -> dict:
    from beam_jobs.generate import GenerateConfig, run_generate
    return run_generate(GenerateConfig(input=str(work / "clean"), output=str(work / "generate"), target=cfg.target,
                                       max_new_tokens=cfg.max_new_tokens, batch_size=8), runner=cfg.runner)


def stage_featurize(cfg: QuickstartConfig, work: Path) -> dict:
    from beam_jobs.featurize import FeaturizeConfig, run_featurize
    return run_featurize(FeaturizeConfig(input=str(work / "generate"), output=str(work / "features"),
                                         target=cfg.target), runner=cfg.runner)


def stage_train(cfg: QuickstartConfig, work: Path) -> dict:
    from eaglekit.train import TrainConfig, train
    return train(TrainConfig(data=str(work / "features"), target=cfg.target, out=str(work / "draft"),
                             max_steps=cfg.train_steps, seq_len=cfg.seq_len, ttt_steps=cfg.ttt_steps, lr=1e-3,
                             eval_every=max(cfg.train_steps // 3, 1), save_every=max(cfg.train_steps // 3, 1),
                             log_every=25, progress=False))


def stage_export(cfg: QuickstartConfig, work: Path) -> dict:
    from eaglekit.export import export_head
    summary = json.loads((work / "draft" / "summary.json").read_text())
    ckpt = summary["best_checkpoint"]
    path = export_head(ckpt, work / "head-sglang", fmt="sglang")
    return {"head": str(path), "checkpoint": ckpt}


def stage_bench(cfg: QuickstartConfig, work: Path) -> dict:
    from eaglekit.heads import builtin_head
    from serving.bench import BenchConfig, run_bench

    def bench(head, output):
        return run_bench(BenchConfig(model=cfg.target, head=str(head), num_prompts=cfg.bench_prompts,
                                     max_tokens=cfg.bench_tokens, settings=[(3, 1, 4), (4, 2, 6)],
                                     output=str(output), random_head_ok=False), echo=lambda *_: None)
    report = bench(work / "head-sglang", work / "bench")
    shipped = builtin_head(cfg.target)
    if shipped is not None:  # the head the package ships for this target, on the same prompts: yours vs it
        report["builtin"] = bench(shipped, work / "bench" / "builtin")
        (work / "bench" / "report.json").write_text(json.dumps(report, indent=1, default=str))
    return report


# (name, function, folder, completion marker)
STAGES = [
    ("clean", stage_clean, "clean", "manifest.json"),
    ("generate", stage_generate, "generate", "manifest.json"),
    ("featurize", stage_featurize, "features", "manifest.json"),
    ("train", stage_train, "draft", "summary.json"),
    ("export", stage_export, "head-sglang", "config.json"),
    ("bench", stage_bench, "bench", "report.json"),
]


def run_quickstart(cfg: QuickstartConfig, console) -> dict:
    work = Path(cfg.workdir)
    work.mkdir(parents=True, exist_ok=True)
    results, timings = {}, {}
    for name, fn, folder, marker in STAGES:
        out = work / folder
        if _done(out, marker) and _valid(name, out):
            console.print(f"[dim]{name:<10} skipped: {out} is complete[/]")
            results[name] = {"head": str(out)} if name == "export" else json.loads((out / marker).read_text())
            timings[name] = 0.0
            continue
        start = time.time()
        with console.status(f"[bold]{name}[/] running ..."):
            results[name] = fn(cfg, work)
        timings[name] = time.time() - start
        console.print(f"[green]{name:<10} done[/] in {timings[name]:.0f}s -> {out}")
    return {"results": results, "timings": timings}


def _valid(name: str, out: Path) -> bool:
    if name == "featurize":
        from eaglekit.shards import ContractError, open_features
        try:
            open_features(str(out))
        except (ContractError, OSError, ValueError):
            return False
    return True


@click.command()
@click.option("--workdir", default=QuickstartConfig.workdir, show_default=True, help="Where every artefact goes.")
@click.option("--prompts", type=int, default=None, help="Use only the first N records of the shipped prompt set.")
@click.option("--train-steps", type=int, default=QuickstartConfig.train_steps, show_default=True)
@click.option("--target", default="embedded", show_default=True, help="Target spec (embedded, tiny, folder, ...).")
def quickstart(workdir, prompts, train_steps, target):
    """Run clean -> generate -> featurize -> train -> bench on embedded defaults and report."""
    from rich.console import Console
    from transformers.utils import logging as hf_logging
    # The report is the output: keep library chatter (weight-loading bars, Beam's GCP notices) out of it.
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    logging.getLogger().setLevel(logging.ERROR)
    console = Console()
    cfg = QuickstartConfig(workdir=workdir, prompts=prompts, train_steps=train_steps, target=target)
    start = time.time()
    out = run_quickstart(cfg, console)
    out["total_s"] = time.time() - start
    (Path(workdir) / "quickstart-report.json").write_text(json.dumps(out, indent=1, default=str))
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
    console.print(f"\nArtefacts under {work}/: clean/ generate/ features/ draft/ head-sglang/ bench/ "
                  f"(total {out['total_s'] / 60:.1f} min; report: {work / 'quickstart-report.json'})")
    console.print("Next:\n"
                  f"  eaglekit data inspect {work / 'features'}\n"
                  f"  eaglekit serve --model embedded --draft {work / 'head-sglang'} --backend embedded\n"
                  "  eaglekit beam run --config eaglekit/data/run.yaml --runner DataflowRunner --project P --region R "
                  "--temp_location gs://B/tmp --setup_file ./setup.py   (GPU workers: accelerator in run.yaml)\n"
                  "  eaglekit serve --model meta-llama/Llama-3.1-8B-Instruct --draft HEAD --backend sglang  (on a GPU)")
