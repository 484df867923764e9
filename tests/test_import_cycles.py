"""No import cycle among the modules of ``bot/``, ``cogs/`` and ``render/``.

The graph is read from the source with :mod:`ast`: every ``import`` and ``from ... import``
counts, inside functions too (an import moved into a function still closes the cycle at run
time); only those under ``if TYPE_CHECKING:`` are left out (they never run). Importing ``a.b.c``
also imports the packages ``a`` and ``a.b`` (their ``__init__``), so those count too, except the
importer's own packages, which Python initialises before the importer (``from . import NAME``
names its package outright, and counts).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bot", "cogs", "render")

#: Module name -> (its file, whether it is a package's ``__init__``).
Modules = dict[str, tuple[Path, bool]]


def modules() -> Modules:
    """Every module of :data:`PACKAGES`, by dotted name."""
    found: Modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: anywhere but in an ``if TYPE_CHECKING:`` body."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.If) and _type_checking_only(child):
            for node in child.orelse:
                yield from imports(ast.Module(body=[node], type_ignores=[]))
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        yield from imports(child)


def imported(
    name: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: Modules
) -> set[str]:
    """The modules of ``known`` that ``node``, in module ``name``, imports."""
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = name.split(".") if is_package else name.split(".")[:-1]
            package = package[: len(package) - (node.level - 1)]
            base = ".".join([*package, *([node.module] if node.module else [])])
        # ``from a import b``: the submodule a.b when there is one, else a name in a
        targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
    found = set()
    for target in targets:
        while target and target not in known:  # a name inside a module: the module
            target = target.rpartition(".")[0]
        if not target:
            continue  # outside the three packages
        found.add(target)  # even the importer's own package: names from its __init__
        parts = target.split(".")
        for end in range(1, len(parts)):  # the packages on the way are initialised too
            module = ".".join(parts[:end])
            if module in known and not name.startswith(f"{module}."):
                found.add(module)
    found.discard(name)
    return found


def graph() -> dict[str, set[str]]:
    """Module -> the modules it imports (of the three packages)."""
    known = modules()
    edges: dict[str, set[str]] = {}
    for name, (path, is_package) in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        edges[name] = set()
        for node in imports(tree):
            edges[name] |= imported(name, is_package, node, known)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def described(group: list[str], edges: dict[str, set[str]]) -> str:
    members = set(group)
    return "; ".join(
        f"{module} -> {', '.join(sorted(edges[module] & members))}" for module in group
    )


def test_no_module_imports_itself_through_others() -> None:
    edges = graph()
    assert len(edges) > 100 and "bot.store.base" in edges["bot.store.database"]
    assert cycles(edges) == [], [described(group, edges) for group in cycles(edges)]


def test_the_checker_sees_cycles_through_functions_and_packages() -> None:
    """The graph keeps imports made inside functions and the packages on the way, and leaves
    out ``TYPE_CHECKING``-only ones; the search finds every group."""
    known: Modules = {name: (ROOT, False) for name in ("p.a", "p.b", "p.c")}
    known["p"] = (ROOT, True)
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from p import c\n"
        "def f():\n    from . import b\n"
    )
    tree = ast.parse(source)
    found = set().union(*(imported("p.a", False, node, known) for node in imports(tree)))
    assert found == {"p.b"}  # not p: Python initialised it before p.a
    named = ast.parse("from . import X").body[0]
    assert isinstance(named, ast.ImportFrom)
    assert imported("p.a", False, named, known) == {"p"}  # names from its package's __init__
    statement = ast.parse("import p.b").body[0]
    assert isinstance(statement, ast.Import)
    assert imported("q.x", False, statement, known) == {"p", "p.b"}
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": {"d"}, "f": {"a"}}
    assert sorted(cycles(edges)) == [["a", "b", "c"], ["d", "e"]]
