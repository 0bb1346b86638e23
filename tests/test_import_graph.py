"""The import graph of ``gym_boardgames`` and ``agents``: data flows one way (docs/design.md, section "Layers").

Every module of both packages is parsed with :mod:`ast` (nothing is imported). An arrow goes from a module to
each module of the two packages it imports, at module level or inside a function alike: a lazy import still
ties the two modules together. ``from package import name`` points at ``package.name`` when that is a module,
else at the package. Importing a submodule runs its parent packages' ``__init__`` too, but that is not an
arrow here (as in import-linter and pydeps): otherwise every package that imports its own submodules would be a
cycle. Imports by string (``importlib.import_module``, the entry points of ``gym_boardgames/registration.py``) are
not arrows either: they are how a layer is found without being imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gym_boardgames", "agents")
#: The human-play wing (the session, window, page, widget, terminal): it stands above ``agents`` and imports them.
WING = "gym_boardgames.human"


def module_files() -> dict[str, Path]:
    """Map every module name of :data:`PACKAGES` to its file."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def imported_names(module: str, path: Path, known: set[str]) -> Iterator[str]:
    """Yield each module of ``known`` that ``module`` (the file ``path``) imports, anywhere in the file."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import, resolved against the importing module's package
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            # `import a.b.c` names a.b.c; a name that is no module of ours (numpy, a class) is skipped.
            while target and target not in known:
                target = target.rpartition(".")[0] if target.split(".")[0] in PACKAGES else ""
            if target and target != module:
                yield target


def import_graph() -> dict[str, set[str]]:
    """Return ``{module: the modules of both packages it imports}``."""
    files = module_files()
    known = set(files)
    return {module: set(imported_names(module, path, known)) for module, path in files.items()}


def tangles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return the strongly connected components of more than one module (Tarjan's algorithm), each sorted.

    Every module of a component reaches every other one by arrows: each lies on a cycle.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for child in sorted(graph[node]):
            if child not in index:
                connect(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(components)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Return one cycle (``[a, b, ..., a]``) through each component of :func:`tangles`.

    A breadth-first search inside the component gives its shortest cycle through the component's first module,
    so a failure names real arrows, not just a set of modules.
    """
    found = []
    for component in tangles(graph):
        members, start = set(component), component[0]
        parent: dict[str, str] = {}
        frontier = [start]
        while frontier and start not in parent:
            following = []
            for node in frontier:
                for child in sorted(graph[node] & members):
                    if child not in parent:
                        parent[child] = node
                        following.append(child)
            frontier = following
        path = [start]
        while len(path) == 1 or path[-1] != start:
            path.append(parent[path[-1]])
        found.append(path[::-1])
    return found


def test_the_graph_sees_module_level_and_function_level_imports():
    graph = import_graph()
    assert "gym_boardgames.rules.dots" in graph["gym_boardgames.envs.dots"]  # at module level
    assert "agents.search.minimax" in graph["agents.factory"]  # inside make_agent's helper
    assert "gym_boardgames.opponents" in graph["agents.matches.arena"]


def in_wing(module: str) -> bool:
    """Whether ``module`` is of the human-play wing, :data:`WING`, the one room of the package above ``agents``."""
    return module == WING or module.startswith(f"{WING}.")


def agents_below_the_wing(graph: dict[str, set[str]]) -> list[str]:
    """The arrows from a module of ``gym_boardgames`` outside the wing to ``agents``."""
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module.split(".")[0] == "gym_boardgames" and not in_wing(module)
        for target in targets
        if target.split(".")[0] == "agents"
    )


def into_the_wing(graph: dict[str, set[str]]) -> list[str]:
    """The arrows from a module outside the wing (of either package) to the wing."""
    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if not in_wing(module)
        for target in targets
        if in_wing(target)
    )


def test_nothing_of_gym_boardgames_below_the_human_wing_imports_agents():
    arrows = agents_below_the_wing(import_graph())
    assert not arrows, "gym_boardgames imports agents below the play wing (layers go one way): " + "; ".join(arrows)


def test_the_human_wing_stands_above_everything_else():
    """The wing imports the rest (``agents`` too); nothing of the rest, ``agents`` included, imports the wing."""
    graph = import_graph()
    if not any(in_wing(module) for module in graph):
        pytest.skip(f"{WING.replace('.', '/')}/ is not there yet (issue 41 moves the play wing into it)")
    arrows = into_the_wing(graph)
    assert not arrows, f"modules below {WING} import it: " + "; ".join(arrows)


def test_the_wing_may_import_agents_and_nothing_else_may_import_the_wing():
    graph = {
        f"{WING}.session": {"agents.factory", "gym_boardgames.envs"},
        "gym_boardgames.envs": {"agents.factory"},
        "gym_boardgames.humanoid": {f"{WING}.window"},  # a name that only starts like the wing's
        "agents.hints": {f"{WING}.session"},
        "agents.factory": set(),
    }
    assert agents_below_the_wing(graph) == ["gym_boardgames.envs -> agents.factory"]
    assert into_the_wing(graph) == [f"agents.hints -> {WING}.session", f"gym_boardgames.humanoid -> {WING}.window"]


def test_no_import_cycles():
    graph = import_graph()
    found = [
        f"{len(members)} modules ({', '.join(members)}), e.g. {' -> '.join(cycle)}"
        for members, cycle in zip(tangles(graph), cycles(graph), strict=True)
    ]
    assert not found, f"{len(found)} import cycle(s): " + "; ".join(found)


def test_the_cycle_finder_names_each_cycle_once_with_its_arrows():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"f"}, "f": {"e"}}
    assert cycles(graph) == [["a", "b", "c", "a"], ["e", "f", "e"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
