"""The package's import graph, read with ``ast``, and the rules it must keep.

Every import counts: at the top of a module, inside a function (lazy), under
``if TYPE_CHECKING:``, and ``importlib.import_module("gleek_p2p....")`` with a
literal name. A room is a sub-package of ``gleek_p2p`` (``rules/``, ``net/``...);
each room may import only the rooms before it in ``ORDER`` (and itself), and
no two modules and no two rooms may import each other, even through others.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

ORDER = ("base", "rules", "deck", "log", "table", "net",
         "session", "bots", "tools", "ui", "cli")
"""The rooms, inside out. The core's order is the layering of the design; the
shell's is the one its code keeps: ``session`` runs a peer for any ``Player``
(it knows a bot only by the small protocol it calls); ``bots`` are strategies
and ``run_peer``, which puts one in a session; ``tools`` run bots and report on
logs offline; ``ui`` is what a person reads, screens (the replay shows the
report's sentences) and ``gleek bot``'s lines; ``cli`` parses the command line
and calls them all."""

TOP = "__main__"
"""``python -m gleek_p2p``: above every room."""


def module_names(package: Path) -> dict[str, Path]:
    """Every module of the package under its dotted name (a package is its ``__init__``)."""
    names: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _target(name: str, modules: Mapping[str, Path]) -> str | None:
    """The module ``import name`` runs last: the longest known prefix of ``name``."""
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def _runs(target: str, importer: str) -> list[str]:
    """``target`` and the packages Python runs first to import it from ``importer``:
    each ``__init__`` on the way down that is not already running (not one of
    the importer's own packages)."""
    own = importer.split(".")
    parts = target.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts) + 1)
            if parts[:n] != own[:n] and ".".join(parts[:n]) != importer]


def _imported(node: ast.AST, here: str, is_package: bool) -> Iterable[str]:
    """The dotted names one node imports (a ``from`` import names each of its items)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
        if node.level:
            base = here.split(".") if is_package else here.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            module = ".".join([*base, node.module] if node.module else base)
        else:
            module = node.module or ""
        for alias in node.names:
            yield f"{module}.{alias.name}"  # a submodule, or a name in ``module``
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name)
          and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
          == "import_module"
          and node.args and isinstance(node.args[0], ast.Constant)
          and isinstance(node.args[0].value, str)):
        yield node.args[0].value


def import_graph(package: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports, anywhere in its text."""
    modules = module_names(package)
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            for imported in _imported(node, name, path.name == "__init__.py"):
                target = _target(imported, modules)
                if target is not None and target != name:
                    found.add(target)
        graph[name] = found
    return graph


def room_of(module: str) -> str:
    """``gleek_p2p.rules.cards`` -> ``rules``; the package itself -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:  # recursion depth is bounded by the module count
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _rank(module: str, order: Sequence[str]) -> int | None:
    room = room_of(module)
    if room == "":
        return -1  # gleek_p2p/__init__.py runs before any room: it may import none
    if room == TOP:
        return len(order)
    return order.index(room) if room in order else None


def problems(graph: Mapping[str, Iterable[str]], order: Sequence[str]) -> list[str]:
    """Every breach of the rooms' order, and every cycle of modules or of rooms."""
    found: list[str] = []
    for module in sorted(graph):
        if _rank(module, order) is None:
            found.append(f"{module} is in no room of the order (a loose module, or a new room)")
    for module in sorted(graph):
        here = _rank(module, order)
        for imported in sorted(graph[module]):
            there = _rank(imported, order)
            if here is None or there is None or room_of(module) == room_of(imported):
                continue
            if there >= here:
                found.append(f"upward import: {module} -> {imported}")
    runs = {module: {r for i in imported for r in _runs(i, module)}
            for module, imported in graph.items()}
    found += [f"module cycle: {' <-> '.join(c)}" for c in cycles(runs)]
    rooms: dict[str, set[str]] = {}
    for module, imported in graph.items():
        rooms.setdefault(room_of(module), set()).update(
            room_of(i) for i in imported if room_of(i) != room_of(module))
    found += [f"room cycle: {' <-> '.join(c)}" for c in cycles(rooms)]
    return found
