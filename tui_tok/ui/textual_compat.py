"""Every use of Textual's (and rich's) private API, in one place, each with a plain fallback.

The explorer reaches into Textual for speed and fidelity on big texts (see each function's
reason). Those internals have no stability promise: each touch is one small function here,
written for ``WRITTEN_FOR``; the rest of ``tui_tok.ui`` never names a private attribute of a
Textual object (``tests/ui/test_textual_compat.py`` scans the code for it).

``compat_ok()`` checks once that every internal used exists with the shape it had (``problems()``
names what is missing). When one is missing, or ``TUI_TOK_PLAIN_TEXTUAL=1`` is set (to bisect a
bug: is it ours or Textual's?), ``overrides_on()`` is False and every function takes its fallback:
plain Textual behaviour (slower on long texts; the editor is Textual's ``TextArea``, which turns
CR and other line separators into LF; invalid UTF-8 typed into the terminal stops the app, as
in any Textual app), never an exception at import or start-up.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from typing import Any

from textual import events
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Input, TextArea
from textual.widgets.text_area import Document, EditResult, Location, WrappedDocument

WRITTEN_FOR = "textual 8.2 (8.x), rich 14"
PLAIN_ENV = "TUI_TOK_PLAIN_TEXTUAL"


@functools.cache
def plain_requested() -> bool:
    """``TUI_TOK_PLAIN_TEXTUAL`` set to anything but empty or ``0``."""
    return os.environ.get(PLAIN_ENV, "") not in ("", "0")


@functools.cache
def problems() -> tuple[str, ...]:
    """The internals this module uses that this Textual lacks (empty: all there, as in 8.2)."""
    found: list[str] = []
    for name, check in _CHECKS:
        try:
            ok = check()
        except Exception:  # any failure of a probe means "not as written for"
            ok = False
        if not ok:
            found.append(name)
    return tuple(found)


def compat_ok() -> bool:
    """Does every internal used here exist with the shape it was written for?"""
    return not problems()


def overrides_on() -> bool:
    """Use the overrides: Textual as written for, and plain behaviour not asked for."""
    return not plain_requested() and compat_ok()


def reset() -> None:
    """Forget the checks and the environment (tests change both)."""
    plain_requested.cache_clear()
    problems.cache_clear()


def status() -> str:
    """One line for the log: which behaviour runs, and why."""
    if plain_requested():
        return f"plain Textual ({PLAIN_ENV} is set)"
    if not compat_ok():
        return f"plain Textual (written for {WRITTEN_FOR}; missing here: {', '.join(problems())})"
    return f"Textual overrides on (written for {WRITTEN_FOR})"


# --- the terminal input (Linux driver) ---------------------------------------------------------


def xterm_parser_base() -> type[Any]:
    """Textual's ``XTermParser`` (``textual._xterm_parser``), the base of ``fast_paste``'s parser;
    ``object`` when it is gone (then the bulk parser is never installed)."""
    try:
        from textual._xterm_parser import XTermParser
    except ImportError:
        return object
    return XTermParser


def let_out_held_keys(parser: Any) -> list[Any]:
    """What Textual's ``XTermParser`` holds back, as if its wait were over: after an ESC it waits
    ``ESCAPE_DELAY`` for what follows (``ESC x`` may be alt+x or the start of a longer sequence)
    and lets the keys out on the driver's next ``tick`` after that time. ``fast_paste`` calls it
    before a paste and before the next ESC: a paste read with ``alt+x`` before it was applied
    first (alt+x then cleared it), and ``alt+x`` followed in one read by an arrow key typed ``^x``
    (Textual gives up a sequence cut by an ESC as plain characters). Sets the parser's deadline
    (``Parser._timeout_time``) into the past and ticks. Fallback: nothing let out (the keys come
    on the next tick, as in Textual)."""
    if not overrides_on() or getattr(parser, "_timeout_time", None) is None:
        return []
    parser._timeout_time = float("-inf")
    return list(parser.tick())


def patch_linux_driver(name: str, value: object) -> bool:
    """Replace the global ``name`` that Textual's Linux driver looks up when it reads input.

    The driver has no option for its input decoder (``getincrementaldecoder``: strict UTF-8, an
    invalid byte killed the app, ``lenient_input``) nor its parser (``XTermParser``: a 10 MB paste
    one character at a time, ``fast_paste``). Fallback: nothing patched (other drivers, headless
    tests, a driver without that name). True when patched."""
    if not overrides_on():
        return False
    try:
        from textual.drivers import linux_driver
    except ImportError:  # not on a POSIX system
        return False
    if not hasattr(linux_driver, name):
        return False
    setattr(linux_driver, name, value)
    return True


# --- painting a frame now (ui.paint_now) --------------------------------------------------------

_WIDGET_FLAGS = ("_layout_required", "_scroll_required", "_refresh_styles_required", "_recompose_required")
_SCREEN_FLAGS = ("_layout_required", "_scroll_required", "_recompose_required")


def screen_frame(screen: Any) -> tuple[Any, set[Any], Callable[[], None]] | None:
    """The screen's compositor, its set of widgets waiting for a repaint and its frame timer's
    callback (``_compositor``, ``_dirty_widgets``, ``_on_timer_update``), for ``paint_now`` to
    compose a frame at once instead of on the timer's next slot. None: leave it to the timer."""
    if not overrides_on():
        return None
    compositor = getattr(screen, "_compositor", None)
    dirty = getattr(screen, "_dirty_widgets", None)
    update = getattr(screen, "_on_timer_update", None)
    if compositor is None or dirty is None or update is None:
        return None
    return compositor, dirty, update


def layout_pending(app: Any, screen: Any, widgets: Iterable[Any]) -> bool:
    """Is anything but a repaint pending (a batch, a layout, a scroll or style update, a
    recompose) on the screen or ``widgets``? True when it cannot tell."""
    if getattr(app, "_batch_count", 1):
        return True
    if any(getattr(screen, flag, True) for flag in _SCREEN_FLAGS):
        return True
    return any(getattr(widget, flag, True) for widget in widgets for flag in _WIDGET_FLAGS)


def take_repaint(widget: Any) -> bool:
    """Clear ``widget``'s pending-repaint flag (``_repaint_required``), as its idle handler does
    when it tells the screen; True when it was set (the caller adds it to the dirty set)."""
    if not getattr(widget, "_repaint_required", False):
        return False
    widget._repaint_required = False
    return True


def queued_messages(pump: Any) -> list[Any] | None:
    """The messages waiting in ``pump``'s queue (``_message_queue``; Textual's own queue or
    asyncio's); None when it cannot tell."""
    queue = getattr(pump, "_message_queue", None)
    queued = getattr(queue, "values", getattr(queue, "_queue", None))
    return None if queued is None else list(queued)


# --- widgets ------------------------------------------------------------------------------------


def scroll_update(widget: Widget, size: Size) -> None:
    """Set ``widget.virtual_size`` and update its scrollbars without a layout of the screen
    (``Widget._scroll_update``, what the layout pass calls for a resized widget; ``quiet_size``).
    Fallback: the plain assignment (a layout of the screen on the next frame)."""
    if not overrides_on():
        widget.virtual_size = size
        return
    widget.set_reactive(Widget.virtual_size, size)
    if widget.is_mounted and widget.is_scrollable:
        widget._scroll_update(size)


def key_bindings(node: Any) -> dict[str, list[Any]]:
    """``node``'s own bindings by key (``_bindings.key_to_bindings``, writable: the app shows F7
    once a compare file is open). Fallback: an empty dict (the key keeps its declared ``show``)."""
    bindings = getattr(node, "_bindings", None)
    table = getattr(bindings, "key_to_bindings", None)
    return table if isinstance(table, dict) and overrides_on() else {}


def forward_key(widget: Any, event: events.Key) -> bool:
    """Hand ``event`` to ``widget`` as the app hands keys to the focused widget
    (``_forward_event``): the search box gets the keys typed on a table in order, within one
    burst. Fallback: False (the key goes where Textual sends it)."""
    forward = getattr(widget, "_forward_event", None)
    if forward is None or not overrides_on():
        return False
    forward(event)
    return True


class KeyFirstInput(Input):
    """``Input`` whose ``own_key`` hook sees each key first (Textual's ``Input._on_key``
    inserts the character before the widget's bindings run: ``ctrl+u text`` in one read deleted
    ``text``). Fallback: ``Input`` as it is."""

    async def _on_key(self, event: events.Key) -> None:
        if overrides_on() and await self.own_key(event):
            event.stop()
            event.prevent_default()  # Input's own _on_key (and the app's binding check) skipped

    async def own_key(self, event: events.Key) -> bool:
        """Handle ``event`` before ``Input`` does; True when handled."""
        return False


def footer_key_class() -> type[Any] | None:
    """Textual's ``FooterKey`` (``textual.widgets._footer``; not exported), which the fitted
    footer yields; None when it is gone (the footer is then Textual's own)."""
    try:
        from textual.widgets._footer import FooterKey
    except ImportError:
        return None
    return FooterKey


def footer_bindings_ready(footer: Any) -> bool:
    """Has the footer seen the screen's bindings (``Footer._bindings_ready``)?"""
    return bool(getattr(footer, "_bindings_ready", False))


def cell_width_ranges() -> list[tuple[int, int, int]] | None:
    """rich's table of cell widths by code point range (``rich._unicode_data``), for the editor's
    numpy wrap; None when it is gone (then measured one character at a time)."""
    try:
        from rich._unicode_data import load
    except ImportError:
        return None
    return list(load("auto").widths)


# --- the editor (TextArea and its wrapped document) ---------------------------------------------


class TextAreaHooks(TextArea):
    """``TextArea`` whose private handlers call public hooks while the overrides are on
    (``Editor`` implements them). Fallback: ``TextArea``'s own handlers, which Textual calls
    after these (it calls each class's ``_on_key`` in turn until one prevents the default)."""

    async def _on_key(self, event: events.Key) -> None:
        if overrides_on() and (self.type_key(event) or await self.own_binding(event)):
            event.stop()
            event.prevent_default()

    async def _on_paste(self, event: events.Paste) -> None:
        if overrides_on():
            event.prevent_default()  # TextArea's own handler would insert the text as it came
            await self.take_paste(event)

    def _set_document(self, text: str, language: str | None) -> None:
        if overrides_on():
            self.load_document(text, language)
        else:
            super()._set_document(text, language)

    def _refresh_size(self) -> None:
        if not (overrides_on() and self.refresh_size_quietly()):
            super()._refresh_size()

    def type_key(self, event: events.Key) -> bool:
        """Type ``event`` here instead of ``TextArea``; True when done."""
        return False

    async def own_binding(self, event: events.Key) -> bool:
        """Run this box's own (not priority) binding of ``event``'s key now, in order with the
        characters typed around it; True when one ran. Textual runs a widget's bindings only once
        the key has bubbled up to the app, while the box types a character at once: in one
        terminal read, ``abc`` backspace ``d`` deleted the ``d``, and left arrow ``d`` typed
        ``d`` at the end (``KeyFirstInput`` does the same for an ``Input``)."""
        for binding in key_bindings(self).get(event.key, ()):
            if not binding.priority and await self.app.run_action(binding.action, self):
                return True
        return False

    async def take_paste(self, event: events.Paste) -> None:
        """Insert a bracketed paste (``TextArea``'s own handler is skipped)."""

    def load_document(self, text: str, language: str | None) -> None:
        """Make a new document of ``text`` (``TextArea._set_document``)."""
        self.plain_load_document(text, language)

    def plain_load_document(self, text: str, language: str | None) -> None:
        """``TextArea``'s own loading of a document."""
        super()._set_document(text, language)

    def refresh_size_quietly(self) -> bool:
        """Update the virtual size after a re-wrap; False to let ``TextArea`` do it."""
        return False


def replace_typed(area: TextArea, text: str, start: Location, end: Location) -> EditResult | None:
    """Insert ``text`` as a typed key does (``_replace_via_keyboard``: nothing when read-only,
    part of the undo batch of typing). Fallback: ``replace``."""
    replace = getattr(area, "_replace_via_keyboard", None)
    if replace is None or not overrides_on():
        return None if area.read_only else area.replace(text, start, end)
    result: EditResult | None = replace(text, start, end)
    return result


def restart_blink(area: TextArea) -> None:
    """Show the cursor at once after a key (``_restart_blink``); nothing when it is gone."""
    blink = getattr(area, "_restart_blink", None)
    if blink is not None:
        blink()


def rewrap(area: TextArea) -> None:
    """Re-wrap the document at the current width and update the virtual size
    (``_rewrap_and_refresh_virtual_size``). Fallback: re-wrap through the public document."""
    again = getattr(area, "_rewrap_and_refresh_virtual_size", None)
    if again is not None:
        again()
    else:
        area.wrapped_document.wrap(area.wrap_width, area.indent_width)
        area.refresh()


def editor_theme(area: TextArea) -> Any:
    """The ``TextAreaTheme`` in use (``_theme``), whose CSS the editor applies once per style
    change instead of every frame; None: let ``TextArea.render_lines`` apply it."""
    return getattr(area, "_theme", None) if overrides_on() else None


def cursor_state(area: TextArea) -> tuple[bool, bool, Location | None] | None:
    """What a drawn row shows of the cursor: a cursor at all, drawn now (blink), the bracket it
    matches (``_has_cursor``, ``_draw_cursor``, ``_matching_bracket_location``): part of the
    editor's row cache key. None: rows are not cached."""
    if not overrides_on():
        return None
    try:
        return area._has_cursor, area._draw_cursor, area._matching_bracket_location
    except AttributeError:
        return None


def has_component_styles(widget: Widget) -> bool:
    """Whether a widget still has its component styles (``_component_styles``): Textual clears them
    when the widget is removed, and a TextArea drawn after that raises ``KeyError:
    'text-area--gutter'`` (Textual issue #6528), so ``widgets.editor.Editor`` draws blank rows
    instead. True (draw as Textual does) when the attribute is missing or overrides are off."""
    if not overrides_on():
        return True
    styles = getattr(widget, "_component_styles", None)
    return True if styles is None else bool(styles)


def undo_stack(area: TextArea) -> Any:
    """The editor's undo batches (``EditHistory._undo_stack``, a deque of lists of edits): a long
    paste inserted in slices is merged into one batch. None: left as several."""
    stack = getattr(area.history, "_undo_stack", None)
    return stack if overrides_on() and stack is not None and hasattr(stack, "pop") else None


def wrap_settings(wrapped: WrappedDocument) -> tuple[int, int]:
    """The width and tab width ``wrapped`` last wrapped at (``_width``, ``_tab_width``)."""
    return int(getattr(wrapped, "_width", 0)), int(getattr(wrapped, "_tab_width", 4))


def set_wrap_settings(wrapped: WrappedDocument, width: int, tab_width: int | None) -> None:
    """Record a wrap's width and tab width where ``WrappedDocument`` keeps them."""
    wrapped._width = width
    if tab_width:
        wrapped._tab_width = tab_width


def set_wrap_tables(wrapped: WrappedDocument, *, offsets: Any, tab_widths: Any, line_rows: Any, row_lines: Any) -> None:
    """Replace the per-line and per-row lists ``WrappedDocument`` reads (``_wrap_offsets``,
    ``_tab_width_cache``, ``_line_index_to_offsets``, ``_offset_to_line_info``) with sequences
    computed on demand (``char_wrap``): a 10 MB text is not wrapped row by row in Python."""
    wrapped._wrap_offsets = offsets
    wrapped._tab_width_cache = tab_widths
    wrapped._line_index_to_offsets = line_rows
    wrapped._offset_to_line_info = row_lines


def line_count_wrapped(wrapped: WrappedDocument) -> int:
    """Lines ``wrapped`` has wrapped (``_line_index_to_offsets``)."""
    return len(getattr(wrapped, "_line_index_to_offsets", ()))


def row_line(wrapped: WrappedDocument, row: int) -> tuple[int, int] | None:
    """(document line, wrapped section) of visual row ``row`` (``_offset_to_line_info``, as
    ``TextArea.render_line`` reads it); None when out of range or unknown."""
    try:
        line, section = wrapped._offset_to_line_info[row]
    except (IndexError, AttributeError, TypeError, ValueError):
        return None
    return int(line), int(section)


# --- the checks ---------------------------------------------------------------------------------


def _wrapped_shape() -> bool:
    wrapped = WrappedDocument(Document("a\tbc\nd"), width=2, tab_width=4)
    lists = (
        wrapped._wrap_offsets,
        wrapped._tab_width_cache,
        wrapped._line_index_to_offsets,
        wrapped._offset_to_line_info,
    )
    return all(isinstance(x, list) for x in lists) and wrapped._width == 2 and wrapped._offset_to_line_info[0] == (0, 0)


def _text_area_shape() -> bool:
    area = TextArea("x")
    names = ("_on_key", "_on_paste", "_set_document", "_refresh_size", "_replace_via_keyboard", "_restart_blink",
             "_rewrap_and_refresh_virtual_size")  # fmt: skip
    attrs = ("_theme", "_has_cursor", "_draw_cursor", "_matching_bracket_location")
    return (
        all(callable(getattr(TextArea, n, None)) for n in names)
        and all(hasattr(area, a) for a in attrs)
        and hasattr(area.history._undo_stack, "pop")
    )


def _screen_shape() -> bool:
    from textual.screen import Screen

    screen: Any = Screen()
    return isinstance(screen._dirty_widgets, set) and hasattr(screen, "_compositor") and callable(
        getattr(screen, "_on_timer_update", None)
    ) and all(hasattr(screen, f) for f in _SCREEN_FLAGS)  # fmt: skip


def _widget_shape() -> bool:
    widget: Any = Widget()
    return callable(getattr(Widget, "_scroll_update", None)) and all(
        hasattr(widget, f) for f in (*_WIDGET_FLAGS, "_repaint_required", "_message_queue", "_forward_event")
    )


def _input_shape() -> bool:
    return callable(getattr(Input, "_on_key", None)) and isinstance(Input()._bindings.key_to_bindings, dict)


def _footer_shape() -> bool:
    from textual.widgets import Footer

    return footer_key_class() is not None and hasattr(Footer(), "_bindings_ready")


def _driver_shape() -> bool:
    try:
        from textual.drivers import linux_driver
    except ImportError:  # not POSIX: nothing to patch, nothing missing
        return True
    return hasattr(linux_driver, "XTermParser") and hasattr(linux_driver, "getincrementaldecoder")


def _parser_shape() -> bool:
    parser = xterm_parser_base()()
    held = list(parser.feed("\x1bx")) == [] and parser._timeout_time is not None
    parser._timeout_time = float("-inf")
    return held and [e.key for e in parser.tick()] == ["alt+x"]


_CHECKS: tuple[tuple[str, Callable[[], bool]], ...] = (
    ("textual._xterm_parser.XTermParser (feed, tick, _timeout_time)", _parser_shape),
    ("linux_driver.XTermParser/getincrementaldecoder", _driver_shape),
    ("Screen._compositor/_dirty_widgets/_on_timer_update", _screen_shape),
    ("Widget._scroll_update and its pending flags", _widget_shape),
    ("Input._on_key/_bindings", _input_shape),
    ("TextArea private handlers and cursor state", _text_area_shape),
    ("WrappedDocument's wrap tables", _wrapped_shape),
    ("textual.widgets._footer.FooterKey, Footer._bindings_ready", _footer_shape),
    ("rich._unicode_data", lambda: bool(cell_width_ranges())),
)
