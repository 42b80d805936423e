"""The package's import graph: layers import downward only (core <- games <- agents <- evaluation and
training <- command line, web app, bench) and no two modules import each other, even lazily."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

from city_envs.core.registry import GAMES

ROOT = Path(__file__).resolve().parents[2]
# where each installed package's sources live in the repository (pyproject's wheel.packages)
SOURCES = {
    "city_envs": ROOT / "city_envs",
    "city_envs.agents": ROOT / "agents",
    "city_envs.training": ROOT / "training",
}
LAYERS = {
    "core": 0,
    **dict.fromkeys(GAMES, 1),
    "agents": 2,
    **dict.fromkeys(("evaluation", "training", "integrations", "single_agent"), 3),
}
TOP = 4  # cli, web, bench and the package's front door


def modules() -> dict[str, Path]:
    found = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            name = ".".join((package, *parts)).removesuffix(".__init__")
            found[name] = path
    return found


def layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) == 1:
        return TOP
    first = parts[1].removesuffix("_v0") if parts[1].endswith("_v0") else parts[1]
    return LAYERS.get(first, TOP)


def graph() -> nx.DiGraph:
    found = modules()
    edges = nx.DiGraph()
    edges.add_nodes_from(found)
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in found else base for alias in node.names]
            for target in targets:
                while target and target not in found:
                    target = target.rpartition(".")[0]
                if target and target != name and target.startswith("city_envs"):
                    edges.add_edge(name, target)
    return edges


def test_no_import_circles():
    # a package's __init__ re-exporting its own modules is not a circle of logic; imports made inside
    # functions count
    circles = [
        sorted(cycle)
        for cycle in nx.simple_cycles(graph())
        if not any(node in SOURCES or node.count(".") == 1 for node in cycle)
    ]
    assert not circles, f"import circles: {circles}"


def test_layers_import_downward_only():
    upward = [
        f"{source} (layer {layer(source)}) imports {target} (layer {layer(target)})"
        for source, target in graph().edges
        # the front door re-exports; `import city_envs` is the top
        if "city_envs" not in (source, target) and layer(target) > layer(source)
    ]
    assert not upward, "\n".join(upward)


def test_no_product_module_imports_the_lab():
    importers = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            targets = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                targets = [node.module or ""]
            importers += [name for target in targets if target == "lab" or target.startswith("lab.")]
    assert not importers, importers


def test_the_web_app_imports_no_game_package():
    """Each game presents itself through the `Game` API (its package's `present.py`), so a new game
    needs nothing in city_envs/web."""
    games = {f"city_envs.{name}" for name in GAMES} | {f"city_envs.{name}_v0" for name in GAMES}
    importers = [
        f"{source} imports {target}"
        for source, target in graph().edges
        if (source == "city_envs.web" or source.startswith("city_envs.web."))
        and ".".join(target.split(".")[:2]) in games
    ]
    assert not importers, "\n".join(importers)
