"""No module of tui_tok imports, directly or through others, a module that imports it back.

Every import statement counts, wherever it is (top level, inside a function, under
``TYPE_CHECKING``): a cycle hidden in a function or a type-only import still ties two modules
into one unit that cannot be read, tested or moved alone (issue: ``bpe.py`` <-> ``bpe_models.py``
and ``ui/app.py`` <-> every screen were such cycles).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tui_tok"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, name: str, modules: set[str]) -> set[str]:
    """The tui_tok modules that ``path`` (module ``name``) names in its import statements (a name
    imported from a package counts as the submodule when there is one: ``from a import b`` -> ``a.b``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:
                    found.add(sub)
                elif base in modules:
                    found.add(base)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, module_name(p), modules) for p in paths}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path ending where it starts, or None (iterative DFS)."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    for root in graph:
        if root in state:
            continue
        stack: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        state[root] = 1
        while stack:
            node, todo = stack[-1]
            if not todo:
                state[node] = 2
                stack.pop()
                continue
            nxt = todo.pop()
            if state.get(nxt) == 1:
                path = [n for n, _ in stack]
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                state[nxt] = 1
                stack.append((nxt, sorted(graph.get(nxt, ()))))
    return None


def test_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_cycle_finder_finds_a_cycle() -> None:
    """The checker itself: a known cycle (as the old ``bpe`` <-> ``bpe_models``) is reported."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_graph_sees_type_only_and_function_imports(tmp_path: Path) -> None:
    """Imports under ``TYPE_CHECKING``, inside functions and relative ones are edges too."""
    src = tmp_path / "m.py"
    src.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tui_tok.ui.app import TuiTokApp\n"
        "def f():\n    import tui_tok.gguf.reader\n"
        "from . import widgets\n"
    )
    known = {"tui_tok.ui.app", "tui_tok.gguf.reader", "tui_tok.ui.screens.widgets", "tui_tok.explore"}
    assert imports_of(src, "tui_tok.ui.screens.m", known) == {
        "tui_tok.ui.app",
        "tui_tok.gguf.reader",
        "tui_tok.ui.screens.widgets",
    }


def test_every_tui_tok_import_names_a_module() -> None:
    """``from tui_tok.x.y import z`` needs ``tui_tok.x.y`` to exist (mypy, run with
    ``--ignore-missing-imports``, does not say so; a moved module would only fail at run time)."""
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    missing = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            missing += [f"{module_name(path)}: {n}" for n in names if n.startswith("tui_tok") and n not in modules]
    assert not missing, missing
