"""``Editor``: a ``TextArea`` that reports each edit synchronously, before the next repaint.

A ``TextArea.Changed`` message reaches the screen only after the screen's repaint timer has
drawn the edited editor, so the token view then waits for another frame on every keystroke.
``Editor`` calls ``on_edit`` from inside the edit instead, so the text
and its tokens are drawn in the same frame. ``Changed`` is still posted for other listeners;
``consume_changed`` tells the screen which of those it has already handled. ``after_edit``
is called once the edit is complete (the screen composes its frame then: ``ui.paint_now``).

It also applies its colour theme's CSS once per style change rather than on every render
(``TextArea.render_lines`` does it each frame: a large part of the editor's draw time),
and keeps its wrapped document's height until the next re-wrap (``WrappedDocument.height``
sums over every line and ``TextArea`` asks for it once per drawn row: ~10k steps per frame
with 100 KB of text); long texts wrap at the character with numpy (``char_wrap``). With soft wrapping its outer size never depends on the text, so a
change of its wrapped height updates the scrollbar without a layout pass of the whole screen
(``quiet_size``).

TextArea forgets every drawn row on each edit, so a keystroke rebuilt all visible rows.
``Editor`` keeps drawn rows by what they show (the document line's
text, where it wraps and which wrapped section, and the cursor, selection and matching
bracket when they touch that line: never by section index alone, which a change of width
gives other text), so a keystroke rebuilds only the rows of the edited line. An edit also asks for a
repaint of the whole widget; inside ``edit`` that request is held back and, once the edit is
done, only the visible rows whose key differs from what they last showed are repainted (the
rows of an unchanged line are neither styled again nor composed into the frame). Repaints
asked for outside an edit (focus, scrolling, resizing, styles) stay whole. Leaves out
syntax highlighting and placeholders: with a language or an empty text rows are drawn as
TextArea draws them, uncached, and an edit repaints everything.

A bracketed paste (``events.Paste``) has its line breaks made LF: the terminal sends a pasted
newline as CR (``paste_newlines``); ``paste_note`` says how many, and the app's
``keep_cr_in_pastes`` toggle keeps them. Exact bytes with CR come from ``--text FILE``.
A paste of more than ``PASTE_SLICE`` characters is inserted in slices, one per turn of the
event loop, so the screen keeps drawing (a 10 MB paste in one edit held the UI thread for a
visible pause); it stays one undo step, and ``on_edit`` is called once, after the last slice.

Its document is an ``ExactDocument``: the text is what was typed, loaded or pasted, byte for byte
(TextArea's own document turns CR, VT, U+2028 ... into LF), drawn one cell per character.
Every key that carries a character types it, also characters Python calls unprintable (ZWJ,
ZWSP, soft hyphen, BOM, LRM, NBSP ...: TextArea dropped them), and Tab types a tab; only
Escape and keys without a character (F-keys, ctrl+letters) leave the box or run commands.

All of this reaches into ``TextArea``'s internals through ``textual_compat``: with another
Textual, or ``TUI_TOK_PLAIN_TEXTUAL=1``, the editor is ``TextArea`` as Textual ships it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import events
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import TextArea
from textual.widgets.text_area import (
    Document,
    DocumentBase,
    DocumentNavigator,
    Edit,
    EditResult,
    Location,
    Selection,
    WrappedDocument,
)

from tui_tok.explore.counts import counted
from tui_tok.ui.textual_compat import (
    TextAreaHooks,
    cursor_state,
    editor_theme,
    has_component_styles,
    overrides_on,
    replace_typed,
    restart_blink,
    rewrap,
    row_line,
    undo_stack,
    wrap_settings,
)
from tui_tok.ui.widgets.char_wrap import AdaptiveWrappedDocument
from tui_tok.ui.widgets.exact_document import ExactDocument
from tui_tok.ui.widgets.quiet_size import set_virtual_size
from tui_tok.ui.widgets.text_keys import TEXT_AREA_BINDINGS

if TYPE_CHECKING:
    from typing import Self

PASTE_SLICE = 500_000
"""Characters of a paste inserted per turn of the event loop."""

_FrameState = tuple[tuple[object, ...], int, Selection, bool, str, Location | None]
"""``Editor._rows_state``: the widget's settings, scroll y, selection, whether the cursor is drawn,
the suggestion, and where the bracket matching the cursor's is."""


class Editor(TextAreaHooks, inherit_bindings=False):
    """TextArea with a synchronous edit hook."""

    BINDINGS = TEXT_AREA_BINDINGS

    _editing = 0
    """Depth of ``edit`` calls under way (class defaults: TextArea may refresh before ``__init__`` ends)."""
    _held_refresh = False
    """A whole-widget repaint was asked for inside ``edit``."""

    def __init__(
        self,
        text: str = "",
        *,
        on_edit: Callable[[], None] | None = None,
        after_edit: Callable[[], None] | None = None,
        **kwargs: object,
    ) -> None:
        kwargs.setdefault("tab_behavior", "indent")
        if overrides_on():
            # TextArea.__init__ builds and wraps a Document of its text with Textual's wrapper:
            # given none, and the text is set by load_document below (a 10 MB --text took seconds)
            self._loading = ""
            super().__init__("", **kwargs)  # type: ignore[arg-type]
            self._loading = None
            if text:
                self.load_document(text, self.language)
        else:
            super().__init__(text, **kwargs)  # type: ignore[arg-type]
        self.indent_type = "tabs"  # Tab types a tab: tokenizers see tabs, not 4 spaces
        self.on_edit = on_edit
        """Called inside each edit, as soon as the document has changed."""
        self.after_edit = after_edit
        """Called when an edit is done and its repaints are asked for (e.g. to paint at once)."""
        self._handled = 0
        self._css_key: tuple[object, ...] | None = None
        self._row_strips: dict[tuple[object, ...], Strip] = {}
        self._frame_state: _FrameState | None = None
        """What every row depends on, read once per repaint (None: do not cache rows)."""
        self._drawn_keys: dict[int, tuple[object, ...] | None] = {}
        """What each visible row (y) last showed (None: not cached, repainted on every edit)."""

    _pasting = False
    """A long paste is being inserted slice by slice (``on_edit`` waits for the last one)."""
    _in_paste = False
    """A bracketed paste is being inserted."""
    paste_note = ""
    """What the last edit, a paste, changed (``3 line breaks pasted as LF``); empty otherwise."""

    def post_message(self, message: Message) -> bool:
        posted = super().post_message(message)
        if posted and isinstance(message, TextArea.Changed) and self.on_edit is not None and self.is_mounted:
            self._handled += 1
            if not self._pasting:
                self.on_edit()
        return posted

    async def take_paste(self, event: events.Paste) -> None:
        """A bracketed paste: its line breaks made LF (unless the app keeps CR in pastes), the
        note set; a paste longer than ``PASTE_SLICE`` characters goes in slice by slice, the UI
        running between them, as one undo step; the text is reported changed once, at the end."""
        if self.read_only:
            return
        text, converted = event.text, 0
        if not getattr(self.app, "keep_cr_in_pastes", False):
            text, converted = paste_newlines(text)
        self._in_paste = True
        self.paste_note = f"{counted(converted, 'line break')} pasted as LF" if converted else ""
        try:
            if len(text) <= PASTE_SLICE:
                if result := replace_typed(self, text, *self.selection):
                    self.move_cursor(result.end_location)
                    self.focus()
                return
            await self._paste_sliced(text)
        finally:
            self._in_paste = False

    async def _paste_sliced(self, text: str) -> None:
        step = max(PASTE_SLICE, -(-len(text) // 40))  # at most 40 slices: the undo stack keeps 50 batches
        stack = undo_stack(self)
        before = len(stack) if stack is not None else 0  # merged into one batch below
        self._pasting = True
        try:
            selection = self.selection
            for i in range(0, len(text), step):
                result = replace_typed(self, text[i : i + step], *selection)
                if result is None:
                    return
                self.move_cursor(result.end_location)
                selection = self.selection
                if i + step < len(text):
                    await asyncio.sleep(0)  # let the screen draw and other widgets run
        finally:
            self._pasting = False
            added = len(stack) - before if stack is not None else 0
            if stack is not None and added > 1:
                merged = [edit for batch in [stack.pop() for _ in range(added)][::-1] for edit in batch]
                stack.append(merged)
            if self.on_edit is not None and self.is_mounted:
                self.on_edit()
        self.focus()

    def edit(self, edit: Edit) -> EditResult:
        if not self._in_paste:
            self.paste_note = ""  # the note is about the last edit only
        self._editing += 1
        try:
            return super().edit(edit)
        finally:
            self._editing -= 1
            if not self._editing:
                if self._held_refresh:
                    self._held_refresh = False
                    self._refresh_changed_rows()
                if self.after_edit is not None and self.is_mounted:
                    self.after_edit()

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if self._editing and not regions and repaint and not layout and not recompose and self.is_mounted:
            self._held_refresh = True  # repainted row by row when the edit is done
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def _refresh_changed_rows(self) -> None:
        """Repaint the visible rows whose key differs from what they last showed (all when unknown)."""
        self._frame_state = state = self._rows_state()
        height = self.scrollable_content_region.height
        drawn = self._drawn_keys
        if state is None or not drawn:
            super().refresh()
            return
        width = self.size.width
        changed = False
        for y in range(height):
            key = self._row_key(y)
            if key is None or drawn.get(y) != key:
                super().refresh(Region(0, y, width, 1))
                changed = True
        if not changed:
            # nothing visible changed (an edit off screen): still let the widget's caches go
            super().refresh(Region(0, 0, 0, 0))

    # --- the exact text ---------------------------------------------------------------------------

    _loading: str | None = None
    """The text ``load_document`` is loading (its ``Document`` is swapped for an ``ExactDocument``)."""

    def load_document(self, text: str, language: str | None) -> None:
        # TextArea wraps the Document it builds with Textual's own wrapper, in Python, tab widths
        # line by line (seconds for a 10 MB --text, twice, before the first paint of the views):
        # it gets an empty text, and the ExactDocument is wrapped by the setter below
        # (numpy, char_wrap), at the width TextArea wraps at
        self._loading = ""
        try:
            self.plain_load_document("", language)
        finally:
            self._loading = None
        if text:
            self.__dict__["document"] = ExactDocument(text)
            self.wrapped_document = self.wrapped_document  # the setter re-wraps for the new document
            # the navigator (home, end, word moves) read line lengths from the empty document it
            # was made with: end stayed at column 0 on every line
            self.navigator = DocumentNavigator(self.wrapped_document)
            rewrap(self)

    @property
    def document(self) -> DocumentBase:
        return self.__dict__["document"]

    @document.setter
    def document(self, value: DocumentBase) -> None:
        if type(value) is Document and self._loading is not None:
            value = ExactDocument(self._loading)
        self.__dict__["document"] = value

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        return (not self.read_only and _types(character)) or super().check_consume_key(key, character)

    def type_key(self, event: events.Key) -> bool:
        character = event.character
        if not self.read_only and event.key not in ("tab", "enter") and not event.is_printable and _types(character):
            # a format character (ZWJ, ZWSP, BOM ...) or a non-breaking space: TextArea drops them
            assert character is not None
            restart_blink(self)
            start, end = self.selection
            replace_typed(self, character, start, end)
            return True
        return False

    def consume_changed(self) -> bool:
        """True when a ``Changed`` message's edit was already handled by ``on_edit``."""
        if self._handled:
            self._handled -= 1
            return True
        return False

    @property
    def wrapped_document(self) -> WrappedDocument:
        return self.__dict__["wrapped_document"]

    @wrapped_document.setter
    def wrapped_document(self, value: WrappedDocument) -> None:
        if type(value) is WrappedDocument and overrides_on():
            value.__class__ = AdaptiveWrappedDocument
        document = self.__dict__.get("document")
        if document is not None and value.document is not document:
            # TextArea wraps the Document it built, not the ExactDocument that replaced it;
            # the re-wrap that follows (TextArea does one after each new document) uses this
            value.document = document
            value.wrap(*wrap_settings(value))  # its own settings
        self.__dict__["wrapped_document"] = value

    def refresh_size_quietly(self) -> bool:
        # TextArea's own version assigns virtual_size (a layout of the screen per new wrapped row)
        if not self.soft_wrap:
            return False
        set_virtual_size(self, Size(0, self.wrapped_document.height))
        return True

    def notify_style_update(self) -> None:
        self._css_key = None
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        if not has_component_styles(self):  # removed (a message box): blank rows (Textual issue #6528)
            return [Strip.blank(crop.width)] * crop.height
        if not overrides_on():
            return super().render_lines(crop)
        if self.soft_wrap and wrap_settings(self.wrapped_document)[0] != self.wrap_width:
            # in a real terminal a width change sometimes reached the wrap before the final
            # layout (the text stayed wrapped at the keys panel's width, or not at all): wrap
            # at the width this frame is drawn at
            rewrap(self)
        theme = editor_theme(self)
        if theme:
            key = (theme, self.app.current_theme)
            if self._css_key != key:
                theme.apply_css(self)
                self._css_key = key
                self._row_strips.clear()
        self._frame_state = self._rows_state()
        return Widget.render_lines(self, crop)

    def _rows_state(self) -> _FrameState | None:
        """What every row depends on, read once per repaint (reactives are slow to read)."""
        cursor = cursor_state(self)
        if cursor is None or self.language is not None or (self.placeholder and not self.document.text):
            return None
        has_cursor, draw_cursor, bracket = cursor
        selection = self.selection
        return (
            (
                self.size,
                self.scroll_offset.x,
                self.theme,
                self.soft_wrap,
                self.show_line_numbers,
                self.gutter_width,
                self.line_number_start,
                self.read_only,
                self.show_cursor,
                self.has_focus,
                self.highlight_cursor_line,
                self.match_cursor_bracket,
                self.indent_width,
                selection.start == selection.end,
                has_cursor,
            ),
            self.scroll_offset.y,
            selection,
            draw_cursor,
            self.suggestion,
            bracket,
        )

    def render_line(self, y: int) -> Strip:
        key = self._row_key(y)
        self._drawn_keys[y] = key
        if key is None:
            return super().render_line(y)
        strip = self._row_strips.get(key)
        if strip is None:
            strip = super().render_line(y)
            if len(self._row_strips) >= 2_000:
                self._row_strips.clear()
            self._row_strips[key] = strip
        return strip

    def _row_key(self, y: int) -> tuple[object, ...] | None:
        """What row ``y`` shows (None: not cached)."""
        frame = self._frame_state
        if frame is None:
            return None
        state, scroll_y, selection, draw_cursor, suggestion, bracket = frame
        row = row_line(self.wrapped_document, scroll_y + y)  # as TextArea.render_line
        if row is None:
            return None
        line_index, section = row
        start, end = selection
        top, bottom = sorted((start, end))
        document = self.wrapped_document
        return (
            state,
            self.document[line_index],
            tuple(document.get_offsets(line_index)),  # where it wraps: a width change moves sections
            section,
            line_index if state[4] else None,  # line numbers shown
            (end[1], draw_cursor, suggestion) if end[0] == line_index else None,
            (start, end) if start != end and top[0] <= line_index <= bottom[0] else None,
            bracket if bracket is not None and bracket[0] == line_index else None,
        )


def paste_newlines(text: str) -> tuple[str, int]:
    """``text`` with CR LF and lone CR made LF, and how many line breaks that was.

    Terminals send a pasted newline as CR (xterm, VTE, tmux without ``-r``; a Windows clipboard:
    CR LF): that CR is the terminal's newline, not the text's, and kept it gave another text
    (a pasted 6-line function: 32 tokens where the file gives 28). Editors do the same.
    Everything else stays as pasted."""
    n = text.count("\r")
    if not n:
        return text, 0
    return text.replace("\r\n", "\n").replace("\r", "\n"), n


def _types(character: str | None) -> bool:
    """Does a key carrying ``character`` type it? Any single character but C0 controls and DEL
    (Escape, Backspace, ctrl+letter: keys, not text; Tab and Enter type through TextArea)."""
    return character is not None and len(character) == 1 and not (ord(character) < 0x20 or character == "\x7f")


def load_text(editor: TextArea, text: str) -> None:
    """Make ``text`` the editor's text as one edit (undo brings the old text back), the cursor
    kept where it was as far as the new text allows; nothing happens when it is already the text.

    For a text that changed in another view (``TuiTokApp.text``); ``TextArea.load_text`` would
    also forget the undo history and put the cursor at the start.
    """
    if editor.text == text:
        return
    cursor = editor.cursor_location
    editor.replace(text, (0, 0), editor.document.end, maintain_selection_offset=False)
    editor.cursor_location = cursor  # clamped to the new text by TextArea's selection validation
