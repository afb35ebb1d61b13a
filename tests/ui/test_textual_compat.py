"""Textual contained (``tui_tok/ui/textual_compat.py``): no other module touches a private of
Textual or rich; with ``TUI_TOK_PLAIN_TEXTUAL=1``, or an internal missing, the explorer runs on
plain Textual (typing, switching views) instead of failing."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input, TextArea
from textual.widgets.text_area import Document, WrappedDocument
from ui_support import make_app, settle

from support import conformance_rows, vocab_file
from tui_tok.ui import textual_compat
from tui_tok.ui.widgets.char_wrap import AdaptiveWrappedDocument
from tui_tok.ui.widgets.editor import Editor
from tui_tok.ui.widgets.exact_document import ExactDocument

ROOT = Path(__file__).resolve().parents[2]
COMPAT = ROOT / "tui_tok" / "ui" / "textual_compat.py"
FOREIGN = ("textual", "rich")


# --- the scan -----------------------------------------------------------------------------------


def _foreign(cls: type) -> bool:
    return (getattr(cls, "__module__", "") or "").split(".")[0] in FOREIGN


@functools.cache
def class_privates(cls: type) -> frozenset[str]:
    """Single-underscore names Textual's (or rich's) classes in ``cls``'s MRO define: in the
    class body, or assigned as ``self._name`` in their source."""
    names: set[str] = set()
    for base in cls.__mro__:
        if not _foreign(base):
            continue
        names |= {n for n in vars(base) if n.startswith("_") and not n.startswith("__")}
        try:
            source = inspect.getsource(base)
        except (OSError, TypeError):
            continue
        names |= set(re.findall(r"self\.(_[A-Za-z]\w*)\s*(?::[^=\n]*)?=(?!=)", source))
    return frozenset(n for n in names if not n.startswith("__"))


@functools.cache
def foreign_privates() -> frozenset[str]:
    """Every private name defined anywhere in Textual (for accesses on objects of unknown type)."""
    import textual

    names: set[str] = set()
    for path in Path(textual.__file__).parent.rglob("*.py"):
        names |= set(re.findall(r"(?:self\.(_[a-z]\w*)\s*(?::[^=\n]*)?=(?!=)|def (_[a-z]\w*)\()", path.read_text()))
    return frozenset(n for pair in names for n in pair if n)


def _is_self(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _module_files() -> Iterator[tuple[Path, str]]:
    """The modules that may hold Textual objects: ``ui`` and ``cli`` (the layers below never
    import Textual: import-linter's contracts in pyproject.toml)."""
    for package in ("ui", "cli"):
        for path in sorted((ROOT / "tui_tok" / package).rglob("*.py")):
            if path != COMPAT:
                yield path, ".".join(path.relative_to(ROOT).with_suffix("").parts)


def touches(path: Path, module: str, own: frozenset[str]) -> list[str]:
    """Where ``path`` touches a Textual or rich private: a private module imported; in a class
    built on a Textual class, a private of that class read, overridden or called through
    ``super()``; elsewhere an attribute, or a ``getattr`` string, naming a Textual private
    that the project does not define itself (``own``)."""
    tree = ast.parse(path.read_text())
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
    found: list[str] = []
    mod = None
    for node in ast.walk(tree):
        line = f"{shown}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[0] in FOREIGN and any(p.startswith("_") for p in parts):
                found.append(f"{line}: from {node.module} import")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] in FOREIGN and any(p.startswith("_") for p in parts):
                    found.append(f"{line}: import {alias.name}")
        elif isinstance(node, ast.ClassDef):
            mod = mod or importlib.import_module(module)
            cls = getattr(mod, node.name, None)
            privates = class_privates(cls) if isinstance(cls, type) else frozenset()
            for sub in ast.walk(node):
                sub_line = f"{shown}:{getattr(sub, 'lineno', 0)}"
                if isinstance(sub, ast.Attribute) and sub.attr in privates and _is_self(sub.value):
                    found.append(f"{sub_line}: {node.name} uses {sub.attr}")
                elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) and sub.name in privates:
                    found.append(f"{sub_line}: {node.name} overrides {sub.name}")
            for stmt in node.body:
                targets = (
                    stmt.targets
                    if isinstance(stmt, ast.Assign)
                    else [stmt.target]
                    if isinstance(stmt, ast.AnnAssign)
                    else []
                )
                found += [
                    f"{line}: {node.name} sets {t.id}" for t in targets if isinstance(t, ast.Name) and t.id in privates
                ]
        elif isinstance(node, ast.Attribute) and not _is_self(node.value):
            if node.attr in foreign_privates() and node.attr not in own:
                found.append(f"{line}: .{node.attr}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in foreign_privates() and node.value not in own:
                found.append(f"{line}: {node.value!r}")
    return found


def own_privates() -> frozenset[str]:
    """Private names the project's own classes define for themselves (not a Textual base's)."""
    names: set[str] = set()
    for path, module in _module_files():
        tree = ast.parse(path.read_text())
        mod = None
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            mod = mod or importlib.import_module(module)
            cls = getattr(mod, node.name, None)
            theirs = class_privates(cls) if isinstance(cls, type) else frozenset()
            for sub in ast.walk(node):
                name = None
                if isinstance(sub, ast.Attribute) and _is_self(sub.value) and isinstance(sub.ctx, ast.Store):
                    name = sub.attr
                elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    name = sub.name
                elif isinstance(sub, ast.AnnAssign) and isinstance(sub.target, ast.Name):
                    name = sub.target.id
                if name and name.startswith("_") and not name.startswith("__") and name not in theirs:
                    names.add(name)
    return frozenset(names)


def test_only_textual_compat_touches_textual_privates() -> None:
    own = own_privates()
    found = [hit for path, module in _module_files() for hit in touches(path, module, own)]
    assert not found, "Textual/rich internals outside ui/textual_compat.py:\n" + "\n".join(found)


def test_the_scan_finds_a_touch(tmp_path: Path) -> None:
    """The scan itself: each kind of touch the compat module took over is still recognised."""
    assert touches(COMPAT, "tui_tok.ui.textual_compat", own_privates()), "the compat module touches privates"
    editor = ROOT / "tui_tok" / "ui" / "widgets" / "editor.py"
    source = editor.read_text() + "\n\ndef _probe(area):\n    return area.history._undo_stack\n"
    probe = tmp_path / "editor.py"
    probe.write_text(source)
    hits = touches(probe, "tui_tok.ui.widgets.editor", own_privates())
    assert [h for h in hits if "._undo_stack" in h]


# --- plain Textual ------------------------------------------------------------------------------


@pytest.fixture
def fresh_compat() -> Iterator[None]:
    textual_compat.reset()
    yield
    textual_compat.reset()


async def _type_and_switch(app) -> None:  # type: ignore[no-untyped-def]
    """The main flows: type into the Tokenize view (llama.cpp's ids), paste, switch views and back."""
    row = next(r for r in conformance_rows("qwen3-vocab") if r["text"] == "Hello world" and r["add_special"]
               and not r["parse_special"])  # fmt: skip
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        for ch in row["text"]:
            await pilot.press("space" if ch == " " else ch)
        await settle(app, pilot)
        assert list(app.ids) == row["ids"]
        editor = app.screen.query_one("#tok-input", TextArea)
        app.post_message(events.Paste(" again"))  # as the driver sends it: the app hands it to the focus
        await settle(app, pilot)
        assert editor.text == row["text"] + " again"
        assert list(app.ids) == app.tokenizer.encode(row["text"] + " again")
        await pilot.press("f3")
        await settle(app, pilot)
        assert app.current_mode == "vocab"
        await pilot.press(*"world")
        await settle(app, pilot)
        assert app.screen.query_one("#vocab-search", Input).value == "world"
        for key, mode in (("f4", "metadata"), ("f2", "stream"), ("f1", "tokenize")):
            await pilot.press(key)
            await settle(app, pilot)
            assert app.current_mode == mode
        editor = app.screen.query_one("#tok-input", TextArea)
        assert editor.text == row["text"] + " again"
        return editor  # type: ignore[no-any-return]


async def test_plain_textual_runs_the_main_flows(monkeypatch: pytest.MonkeyPatch, fresh_compat: None) -> None:
    monkeypatch.setenv(textual_compat.PLAIN_ENV, "1")
    assert textual_compat.compat_ok() and not textual_compat.overrides_on()
    assert not textual_compat.patch_linux_driver("XTermParser", object)
    app = make_app(vocab_file("qwen3-vocab").path)
    editor = await _type_and_switch(app)
    assert isinstance(editor, Editor)
    assert type(editor.document) is Document and type(editor.wrapped_document) is WrappedDocument


async def test_overrides_on_by_default(monkeypatch: pytest.MonkeyPatch, fresh_compat: None) -> None:
    monkeypatch.delenv(textual_compat.PLAIN_ENV, raising=False)
    assert textual_compat.overrides_on(), textual_compat.status()
    app = make_app(vocab_file("qwen3-vocab").path)
    editor = await _type_and_switch(app)
    assert isinstance(editor.document, ExactDocument) and isinstance(editor.wrapped_document, AdaptiveWrappedDocument)


async def test_a_missing_private_module_degrades(monkeypatch: pytest.MonkeyPatch, fresh_compat: None) -> None:
    """A Textual without ``textual._xterm_parser`` (the headless driver does not need it): the
    check names it, the overrides go off, the app says so and still types and switches views."""
    import sys

    import textual.drivers.linux_driver  # noqa: F401 - App() looks its class up even for run_test: imported first

    monkeypatch.delenv(textual_compat.PLAIN_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "textual._xterm_parser", None)
    assert textual_compat.xterm_parser_base() is object
    assert any("_xterm_parser" in p for p in textual_compat.problems())
    assert "missing here" in textual_compat.status() and not textual_compat.overrides_on()
    app = make_app(vocab_file("qwen3-vocab").path)
    notes: list[str] = []
    monkeypatch.setattr(app, "notify", lambda message, **_: notes.append(str(message)))
    editor = await _type_and_switch(app)
    assert type(editor.document) is Document
    assert notes and "plain Textual" in notes[0]


def test_a_missing_attribute_degrades(monkeypatch: pytest.MonkeyPatch, fresh_compat: None) -> None:
    """``TextArea._restart_blink`` and ``FooterKey`` gone: the checks say so without raising, and
    each function takes its fallback."""
    import sys

    monkeypatch.delattr(TextArea, "_restart_blink")
    monkeypatch.setitem(sys.modules, "textual.widgets._footer", None)
    assert not textual_compat.compat_ok()
    assert any("TextArea" in p for p in textual_compat.problems())
    assert any("FooterKey" in p for p in textual_compat.problems())
    assert textual_compat.footer_key_class() is None
    area = TextArea("ab")
    textual_compat.restart_blink(area)
    assert textual_compat.replace_typed(area, "x", (0, 1), (0, 1)) is not None and area.text == "axb"
    assert textual_compat.undo_stack(area) is None and textual_compat.cursor_state(area) is None
