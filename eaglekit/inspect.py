"""What to look at before spending GPU hours on a features directory: schema and metadata, shard/row/
token counts, length histogram, loss-mask coverage, per-source/category counts, hidden-state health
(NaN/Inf, mean L2 norm per aux layer), top-k teacher entropy, and one decoded sample with the
supervised tokens highlighted. `inspect_features` returns plain JSON-able data; rendering is separate.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import torch

from eaglekit.shards import AUX_COLUMNS, open_features

HIST_BINS = 10


def inspect_features(path: str, max_rows: int | None = None) -> dict:
    """Statistics over all rows (or the first `max_rows`), streamed one record batch at a time."""
    ds = open_features(path)
    ds.verify_checksums()  # statistics of a corrupt shard would mislead: refuse it by name
    meta = ds.meta
    H = int(meta["hidden_size"])
    lengths, supervised = [], []
    sources, categories = Counter(), Counter()
    nonfinite = Counter()
    norm_sum = {n: 0.0 for n in (*AUX_COLUMNS, "teacher_hidden")}
    norm_tokens = 0
    entropy_sum, entropy_tokens, truncated_rows = 0.0, 0, 0
    sample = None
    for row in ds.iter_rows():
        if max_rows is not None and len(lengths) >= max_rows:
            break
        S = int(row.input_ids.numel())
        lengths.append(S)
        supervised.append(int(row.loss_mask.sum()))
        sources[row.source] += 1
        categories[row.category if row.category is not None else "(none)"] += 1
        parts = dict(zip(AUX_COLUMNS, row.aux.split(H, dim=-1)))
        if row.teacher_hidden is not None:
            parts["teacher_hidden"] = row.teacher_hidden
        for name, t in parts.items():
            finite = torch.isfinite(t)
            nonfinite[name] += int((~finite).sum())
            norm_sum[name] += float(torch.where(finite, t, torch.zeros_like(t)).norm(dim=-1).sum())
        norm_tokens += S
        if row.topk_logprobs is not None:
            # Entropy of the top-k renormalised distribution: a lower bound on the teacher's entropy.
            lp = row.topk_logprobs.double()
            p = lp.exp()
            p = p / p.sum(-1, keepdim=True)
            entropy_sum += float(-(p * p.clamp_min(1e-30).log()).sum())
            entropy_tokens += S
        if sample is None:
            sample = {"id": row.id, "input_ids": row.input_ids.tolist(), "loss_mask": row.loss_mask.int().tolist()}
    n_tok = int(sum(lengths))
    lens = np.array(lengths or [0])
    cover = np.array([s / l if l else 0.0 for s, l in zip(supervised, lengths)] or [0.0])
    len_hist, len_edges = np.histogram(lens, bins=HIST_BINS)
    cov_hist, cov_edges = np.histogram(cover, bins=HIST_BINS, range=(0.0, 1.0))
    report = {
        "path": str(ds.path),
        "meta": meta,
        "shards": len(ds.shards),
        "rows": len(lengths),
        "tokens": n_tok,
        "manifest": {"rows": ds.num_rows, "tokens": ds.num_tokens, "counts": ds.manifest.get("counts"),
                     "truncated": ds.manifest.get("truncated")},
        "supervised_tokens": int(sum(supervised)),
        "loss_mask_coverage": (sum(supervised) / n_tok) if n_tok else 0.0,
        "length": {"min": int(lens.min()), "mean": float(lens.mean()), "max": int(lens.max()),
                   "histogram": {"counts": len_hist.tolist(), "edges": len_edges.tolist()}},
        "coverage_histogram": {"counts": cov_hist.tolist(), "edges": cov_edges.tolist()},
        "sources": dict(sorted(sources.items())),
        "categories": dict(sorted(categories.items())),
        "hidden_health": {name: {"nonfinite": int(nonfinite[name]),
                                 "mean_l2_norm": (norm_sum[name] / norm_tokens) if norm_tokens else 0.0}
                          for name in norm_sum if name in nonfinite},
        "teacher_topk_entropy": (entropy_sum / entropy_tokens) if entropy_tokens else None,
        "sample": sample,
    }
    return report


def render(report: dict, tokenizer=None, console=None) -> None:
    """Human view with rich: tables and the sample with supervised tokens highlighted."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    console = console or Console()
    meta = report["meta"]
    console.print(f"[bold]{report['path']}[/bold]: {report['shards']} shard(s), {report['rows']} rows, "
                  f"{report['tokens']} tokens, loss-mask coverage {report['loss_mask_coverage']:.1%}")
    t = Table(title="metadata", show_header=False)
    for k, v in meta.items():
        t.add_row(k, str(v))
    console.print(t)
    L = report["length"]
    console.print(f"length min/mean/max: {L['min']} / {L['mean']:.1f} / {L['max']}")
    hist = Table(title="length histogram")
    hist.add_column("from")
    hist.add_column("rows", justify="right")
    for c, e in zip(L["histogram"]["counts"], L["histogram"]["edges"]):
        hist.add_row(f"{e:.0f}", str(c))
    console.print(hist)
    # each source's licence and terms, as the shards' metadata records them (eaglekit.sources)
    terms = {s["name"]: f"{s['licence']}" + (f" ({s['terms']})" if s.get("terms") else "")
             for s in report["meta"].get("sources") or []}
    for title in ("sources", "categories"):
        tt = Table(title=title)
        tt.add_column("name")
        tt.add_column("rows", justify="right")
        if title == "sources":
            tt.add_column("licence (terms)")
        for k, v in report[title].items():
            tt.add_row(str(k), str(v), *([terms.get(k, "not recorded")] if title == "sources" else []))
        console.print(tt)
    h = Table(title="hidden-state health")
    h.add_column("tensor")
    h.add_column("NaN/Inf", justify="right")
    h.add_column("mean L2 norm", justify="right")
    for name, v in report["hidden_health"].items():
        style = "red" if v["nonfinite"] else ""
        h.add_row(name, Text(str(v["nonfinite"]), style=style), f"{v['mean_l2_norm']:.3f}")
    console.print(h)
    if report["teacher_topk_entropy"] is not None:
        console.print(f"top-{meta['teacher_topk']} teacher entropy (nats/token): {report['teacher_topk_entropy']:.3f}")
    s = report["sample"]
    if s and tokenizer is not None:
        text = Text()
        for tid, m in zip(s["input_ids"], s["loss_mask"]):
            text.append(tokenizer.decode([tid]), style="bold green on grey15" if m else "dim")
        console.print(f"sample {s['id']} (supervised tokens highlighted):")
        console.print(text)


def plot(report: dict, out: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.5))
    for ax, h, title, xl in ((a, report["length"]["histogram"], "sequence length", "tokens"),
                             (b, report["coverage_histogram"], "loss-mask coverage", "supervised / all")):
        edges = h["edges"]
        ax.bar(edges[:-1], h["counts"], width=np.diff(edges), align="edge", edgecolor="black")
        ax.set_title(title)
        ax.set_xlabel(xl)
        ax.set_ylabel("rows")
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
