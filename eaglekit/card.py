"""The data card of a run: one Markdown document a reviewer can read and sign, made from the run's output
folders (clean, generate, featurize manifests; the trained head's summary; the bench report), in the
dataset-card layout model hubs use (YAML front matter with the licence). Every number comes from the
manifests, and the card is refused when they do not add up (`check`), naming the folder and the numbers.

`eaglekit data card RUN...` and the quickstart call `write_card`. Library code: no click.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PII_FIGURES = Path(__file__).resolve().parent / "data" / "pii_figures.json"


class CardError(ValueError):
    """The folders given do not make one run's card (missing, mixed, or numbers that do not add up)."""


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


def collect(paths: list[str]) -> dict[str, tuple[Path, dict]]:
    """{kind: (folder, its manifest / summary / report)} for the folders given: stage folders, a trained head's
    folder, a bench folder, or a workdir holding them (the quickstart's and `beam run --config`'s layout)."""
    found: dict[str, tuple[Path, dict]] = {}

    def add(kind: str, folder: Path, doc: dict):
        if kind in found and found[kind][0] != folder:
            raise CardError(f"{folder}: a second {kind} folder (the first: {found[kind][0]}); give one run's folders")
        found[kind] = (folder, doc)

    def visit(folder: Path) -> bool:
        if (folder / "manifest.json").is_file():
            m = _load(folder / "manifest.json")
            add(m.get("stage") or ("featurize" if m.get("schema") == "features" else "unknown"), folder, m)
            return True
        if (folder / "summary.json").is_file():
            add("train", folder, _load(folder / "summary.json"))
            return True
        if (folder / "report.json").is_file():
            add("bench", folder, _load(folder / "report.json"))
            return True
        return False

    for p in paths:
        folder = Path(p)
        if not folder.is_dir():
            raise CardError(f"{p}: no such folder; give a run's workdir or its stage folders")
        if not visit(folder):
            children = [c for c in sorted(folder.iterdir()) if c.is_dir() and visit(c)]
            if not children:
                raise CardError(f"{p}: holds no stage output (manifest.json), trained head (summary.json) or bench "
                                f"report (report.json)")
    if "unknown" in found:
        raise CardError(f"{found['unknown'][0]}: a manifest.json of no known stage")
    return found


def check(found: dict[str, tuple[Path, dict]]) -> list[str]:
    """The checks the card's numbers pass (one line each); CardError listing every one that fails."""
    ok, bad = [], []

    def expect(cond: bool, what: str, where: Path):
        (ok if cond else bad).append(what if cond else f"{where}: {what}")

    for kind in ("clean", "generate", "featurize"):
        if kind not in found:
            continue
        folder, m = found[kind]
        for step, c in m["stages"].items():
            expect(c["in"] == c["out"] + sum(c["dropped"].values()),
                   f"{kind}/{step}: in {c['in']} = out {c['out']} + dropped {sum(c['dropped'].values())}", folder)
    if "clean" in found:
        folder, m = found["clean"]
        steps, c = list(m["stages"].values()), m["counts"]
        names = list(m["stages"])
        for (a, x), (b, y) in zip(zip(names, steps), zip(names[1:], steps[1:])):
            expect(x["out"] == y["in"], f"clean: {a} out {x['out']} = {b} in {y['in']}", folder)
        expect(c["records_in"] == steps[0]["in"] and c["prompts_out"] == steps[-1]["out"],
               f"clean: records in {c['records_in']} and prompts out {c['prompts_out']} are the first step's in and "
               f"the last step's out", folder)
        total: dict[str, int] = {}
        for s in steps:
            for r, n in s["dropped"].items():
                total[r] = total.get(r, 0) + n
        expect(total == c["dropped"], f"clean: dropped per reason {c['dropped']} = the steps' sum", folder)
        sources = m.get("sources") or []
        if sources:
            expect(sum(s["rows_in"] for s in sources) == c["records_in"],
                   f"sources: rows in {sum(s['rows_in'] for s in sources)} = records in {c['records_in']}", folder)
            expect(sum(s["rows_out"] for s in sources) == c["prompts_out"],
                   f"sources: rows out {sum(s['rows_out'] for s in sources)} = prompts out {c['prompts_out']}", folder)
            for s in sources:
                expect(sum(f["rows_in"] for f in s["files"]) == s["rows_in"] and
                       sum(f["rows_out"] for f in s["files"]) == s["rows_out"],
                       f"source {s['name']}: its files' rows add up to its own", folder)
    if "generate" in found:
        folder, m = found["generate"]
        g = m["counts"]["generate"]
        if "clean" in found:
            out = found["clean"][1]["counts"]["prompts_out"]
            limit = m["options"].get("limit")
            want = out if limit is None else min(limit, out)
            expect(g["in"] == want, f"generate: in {g['in']} = clean's prompts out {out}"
                   + (f" (limit {limit})" if limit is not None else ""), folder)
    if "featurize" in found:
        folder, m = found["featurize"]
        f = m["counts"]["featurize"]
        if "generate" in found:
            out = found["generate"][1]["counts"]["generate"]["out"]
            expect(f["in"] == out, f"featurize: in {f['in']} = generate's conversations out {out}", folder)
        rows, tokens = sum(s["rows"] for s in m["shards"]), sum(s["tokens"] for s in m["shards"])
        expect(f["out"] == m["num_rows"] == rows, f"featurize: out {f['out']} = num_rows {m['num_rows']} = the "
               f"shards' rows {rows}", folder)
        expect(m["num_tokens"] == tokens, f"featurize: num_tokens {m['num_tokens']} = the shards' tokens {tokens}",
               folder)
    first = None
    for kind in ("clean", "generate", "featurize", "train"):
        if kind not in found or "sources" not in found[kind][1]:
            continue
        terms = {s["name"]: (s["licence"], s["terms"]) for s in found[kind][1]["sources"]}
        if first is None:
            first = (kind, terms)
        elif kind == "train":  # a head may be trained on several feature folders: this run's among them
            expect(first[1].items() <= terms.items(), f"train: holds {first[0]}'s sources and licences",
                   found[kind][0])
        else:
            expect(terms == first[1], f"{kind}: the same sources and licences as {first[0]}", found[kind][0])
    if bad:
        raise CardError("the run's numbers do not add up: " + "; ".join(bad))
    return ok


def _cell(v: Any) -> str:
    return "-" if v in (None, "", [], {}) else str(v).replace("|", "\\|").replace("\n", " ")


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(_cell(v) for v in r) + " |" for r in rows), ""]


def _sources(found) -> list[dict]:
    for kind in ("clean", "generate", "featurize", "train"):
        if kind in found and found[kind][1].get("sources"):
            return found[kind][1]["sources"]
    return []


def _target(found) -> dict:
    if "featurize" in found:
        return found["featurize"][1]["meta"]
    if "generate" in found:  # the conversations' schema metadata
        import pyarrow.parquet as pq

        from eaglekit.contract import read_metadata
        folder, m = found["generate"]
        files = [f for f in m["files"] if f.endswith(".parquet")]
        if files:
            return read_metadata(pq.read_schema(folder / files[0]))
    return {}


def front_matter(found, sources: list[dict]) -> list[str]:
    """The YAML header model hubs read: licence (lower-case SPDX ids, one or a list), names, source URLs."""
    import yaml
    licences = sorted({s["licence"].lower() for s in sources}) or ["unknown"]
    urls = sorted({s["url"] for s in sources if s.get("url")})
    runs = {k: v[1].get("run") for k, v in found.items() if v[1].get("run")}
    head = {"license": licences[0] if len(licences) == 1 else licences,
            "pretty_name": "eaglekit EAGLE-3 training data", "tags": ["eaglekit", "eagle-3", "synthetic"],
            "source_datasets": urls or None, "eaglekit_runs": runs or None}
    return ["---", yaml.safe_dump({k: v for k, v in head.items() if v is not None}, sort_keys=False).strip(), "---", ""]


def render(found: dict[str, tuple[Path, dict]]) -> str:
    """The card's Markdown (after `check`)."""
    from eaglekit import __version__
    checks = check(found)
    sources = _sources(found)
    lines = front_matter(found, sources)
    order = [k for k in ("clean", "generate", "featurize", "train", "bench") if k in found]
    lines += ["# Data card", "", f"Made by eaglekit {__version__} from: "
              + ", ".join(f"{k} `{found[k][0]}`" for k in order) + ".", ""]
    lines += ["## Sources and their terms", ""]
    if sources:
        rows = []
        for s in sources:
            for f in s.get("files") or [{}]:
                rows.append([s["name"], s.get("url"), s["licence"], s.get("terms"), s.get("allowed_by"),
                             f.get("file"), f.get("sha256"), f.get("rows_in"), f.get("rows_out")])
        lines += _table(["source", "url", "licence", "terms", "allowed by", "file", "sha256", "rows in", "rows out"],
                        rows)
        lines += ["`allowed by`: `policy` is the terms policy (allowed licences, no refusing terms); any other value "
                  "is an explicit decision that a reviewer should confirm.", ""]
    else:
        lines += ["No sources recorded (these outputs were made before eaglekit recorded them): the terms of the "
                  "rows are unknown.", ""]
    lines += ["## Counts per stage", ""]
    rows = []
    for kind in ("clean", "generate", "featurize"):
        if kind in found:
            for step, c in found[kind][1]["stages"].items():
                rows.append([kind, step, c["in"], c["out"],
                             ", ".join(f"{r}: {n}" for r, n in c["dropped"].items()) or "-"])
    lines += _table(["stage", "step", "in", "out", "dropped (reason: n)"], rows)
    lines += [f"<details><summary>{len(checks)} checks passed (in = out + dropped; counts across stages and "
              f"sources)</summary>", "", *(f"- {c}" for c in checks), "", "</details>", ""]
    if "clean" in found:
        lines += _pii(found["clean"][1])
        m = found["clean"][1]
        o = m["options"]
        lines += ["## Decontamination", ""]
        if m["decontaminate_sets"]:
            lines += [f"- `{s}`" for s in m["decontaminate_sets"]]
            lines += ["", f"Dropped when a prompt contains an evaluation prompt (containment of its "
                          f"{o.get('decontam_chars')}-letter n-grams >= {o.get('decontam_threshold')})"
                      + (f" or nearly holds one (word similarity >= {o.get('decontam_near_threshold')})"
                         if o.get("decontam_near") else "") + f": {m['counts']['dropped'].get('contaminated', 0)} "
                      f"prompts.", ""]
        else:
            lines += ["None: no evaluation set was given (`--decontaminate`).", ""]
    target = _target(found)
    if target:
        lines += ["## Target", ""]
        lines += _table(["model id", "revision", "tokenizer sha256", "chat template sha256"],
                        [[target.get("target_model_id"), target.get("target_revision"), target.get("tokenizer_hash"),
                          target.get("chat_template_hash")]])
    if "generate" in found:
        o = found["generate"][1]["options"]
        keys = ("backend", "max_new_tokens", "temperature", "top_p", "top_k", "seed", "max_turns", "system_prompt",
                "limit")
        lines += ["## Generation settings", "", *_table(list(keys), [[o.get(k) for k in keys]])]
    if "featurize" in found:
        m = found["featurize"][1]
        meta = m["meta"]
        lines += ["## Featurize capture", ""]
        lines += _table(["aux layers (hf ids)", "codec", "teacher", "top-k", "max length", "shards", "rows", "tokens",
                         "truncated", "bytes"],
                        [[meta["aux_layer_ids"], meta["hidden_codec"], meta["teacher_kind"], meta["teacher_topk"],
                          meta.get("max_length"), len(m["shards"]), m["num_rows"], m["num_tokens"], m["truncated"],
                          sum(s.get("bytes", 0) for s in m["shards"])]])
    if "train" in found:
        lines += _head(found)
    return "\n".join(lines).rstrip() + "\n"


def _pii(m: dict) -> list[str]:
    o = m["options"]
    lines = ["## PII", ""]
    if not o.get("pii_enabled", True):
        lines += ["**The PII filter was off for this run (`--no-pii`)**: nothing was redacted or dropped.", ""]
    else:
        policies = o.get("pii", {}).get("policies", {})
        found = m.get("pii_entities", {})
        types = sorted(set(policies) | set(found) | set(o.get("pii_keep") or []))
        lines += _table(["entity type", "policy", "found"],
                        [[t, policies.get(t, "keep" if t in (o.get("pii_keep") or []) else "-"), found.get(t, 0)]
                         for t in types])
        drops = {r: n for r, n in m["stages"].get("pii", {}).get("dropped", {}).items()}
        lines += [f"Prompts dropped under a drop policy: {sum(drops.values())}"
                  + (f" ({', '.join(f'{r}: {n}' for r, n in drops.items())})" if drops else "") + ".", ""]
    fig = json.loads(PII_FIGURES.read_text())
    lines += [f"The filter's measured figures for eaglekit {fig['eaglekit_version']} (`{fig['command']}`, "
              f"{fig['measured']}, {fig['hardware']}; each cell {fig['cells']}; details in {fig['details']}):", ""]
    lines += _table(fig["columns"], fig["rows"])
    lines += [fig["note"], ""]
    return lines


def _head(found) -> list[str]:
    folder, s = found["train"]
    tau = s.get("sim_tau")
    lines = ["## Trained head", ""]
    lines += _table(["folder", "steps", "tokens", "best step", "held-out simulated τ (tokens per verify step)"],
                    [[f"`{folder}`", f"{s.get('step')} of {s.get('total_steps')}", s.get("tokens"), s.get("best_step"),
                      "n/a (nothing held out)" if tau is None else f"{tau:.3f}"]])
    if "bench" in found:
        runs = [r for r in found["bench"][1].get("runs", []) if r.get("setting") != "baseline"]
        if runs:
            lines += ["Measured by the bench (`" + str(found["bench"][0]) + "`):", ""]
            lines += _table(["setting (steps, topk, draft tokens)", "acceptance length τ", "speed-up"],
                            [[tuple(r["setting"]), f"{r.get('accept_length', 0):.2f}", f"{r.get('speedup', 0):.2f}x"]
                             for r in runs])
    return lines


def write_card(paths: list[str], out: str | Path | None = None) -> str:
    """The card of the run in `paths` (checked); written to `out` when given. Returns the Markdown."""
    text = render(collect(paths))
    if out is not None:
        out = Path(out)
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(text)
        tmp.replace(out)
    return text
