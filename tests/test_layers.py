"""The architecture, checked: every import (module-level or inside a function) points down the declared
layers, never up; beam_jobs and serving, the two stage packages, never import each other; no module
imports click outside the CLI layer; and no import cycles, between modules or packages.

    cli        eaglekit.cli.*          click commands: parse options, build configs, call the layers below
    stages     beam_jobs.*, serving.*  the Beam pipelines; the server, engine, launchers and bench
    library    eaglekit.*              models, chat, shards, draft, train, export, inspect, ...
    contract   eaglekit, eaglekit.contract, .config, .checksums, .masks
    schemas    schemas                 the JSON data contract
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("schemas", "eaglekit", "beam_jobs", "serving")
LAYERS = ("schemas", "contract", "library", "stages", "cli")
CONTRACT = {"eaglekit", "eaglekit.contract", "eaglekit.config", "eaglekit.checksums", "eaglekit.masks"}
UI_LIBRARIES = ("click",)  # only the CLI layer may import these
KNOWN_CYCLES: list[list[str]] = []  # none: any cycle fails


def layer(module: str) -> str:
    if module == "eaglekit.cli" or module.startswith("eaglekit.cli."):
        return "cli"
    if module.split(".")[0] in ("beam_jobs", "serving"):
        return "stages"
    if module in CONTRACT:
        return "contract"
    if module.split(".")[0] == "eaglekit":
        return "library"
    return "schemas"


def modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: set[str]) -> list[tuple[str, int]]:
    """(imported module of ours, line) for every import statement in the file, wherever it stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import mod` imports pkg.mod when that is a module of ours
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        for t in targets:
            while t and t not in known and "." in t:
                t = t.rpartition(".")[0]
            if t.split(".")[0] in UI_LIBRARIES:
                found.append((t.split(".")[0], node.lineno))
            elif t in known and t != name:
                found.append((t, node.lineno))
    return found


def graph() -> dict[str, list[tuple[str, int]]]:
    mods = modules()
    return {name: imports(name, path, set(mods)) for name, path in mods.items()}


def test_imports_point_down_the_layers_only():
    bad = []
    for name, deps in graph().items():
        for dep, line in deps:
            where = f"{name}:{line} imports {dep}"
            if dep in UI_LIBRARIES:
                if layer(name) != "cli":
                    bad.append(f"{where}: {dep} belongs to the CLI layer (raise ConfigError / ContractError instead)")
                continue
            if LAYERS.index(layer(dep)) > LAYERS.index(layer(name)):
                bad.append(f"{where}: a {layer(name)} module must not import the {layer(dep)} layer above it")
            top, dep_top = name.split(".")[0], dep.split(".")[0]
            if layer(name) == layer(dep) == "stages" and top != dep_top:
                bad.append(f"{where}: beam_jobs and serving are peers; share code through the library")
    assert not bad, "\n".join(bad)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(edges):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycles():
    g = graph()
    edges = {n: {d for d, _ in deps if d not in UI_LIBRARIES} for n, deps in g.items()}
    cycles = [c for c in _cycles(edges) if c not in KNOWN_CYCLES]
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_layer_check_catches_a_backward_arrow_and_a_circle():
    assert layer("beam_jobs.clean") == "stages" and layer("eaglekit.cli.beam") == "cli"
    assert LAYERS.index(layer("eaglekit.cli.beam")) > LAYERS.index(layer("beam_jobs.clean"))
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
