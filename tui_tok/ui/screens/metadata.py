"""The metadata view: every key with its type and value, a filter box, and the full value of
the highlighted key (arrays item by item, the chat template laid out readably)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Input

from tui_tok.explore.display import TAB_COLUMNS, editor_text
from tui_tok.explore.metadata import MetaRow, array_item_line, filter_rows, full_lines, metadata_rows
from tui_tok.explore.visible import visible
from tui_tok.ui.screens.base import ViewScreen
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns
from tui_tok.ui.widgets.info_bar import InfoBar
from tui_tok.ui.widgets.lines_view import LinesView
from tui_tok.ui.widgets.search_box import SearchBox


class MetadataScreen(ViewScreen):
    """Browse GGUF metadata."""

    VIEW = "Metadata"
    # priority: the focus moves before the app hands on the next keys of a burst (ctrl+f ctrl+u text)
    BINDINGS = [
        Binding("ctrl+f", "focus_search", "Search", priority=True),
        Binding("ctrl+l", "focus_table", "Table", priority=True),
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    """Below 100 columns the value pane goes under the table (beside it, it hid the value column)."""
    SEARCH_BOX = "meta-search"
    TYPED_FROM = frozenset({"meta-table", "meta-detail"})
    """What is typed on the table or the value goes to the filter box (``widgets/search_box.py``)."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[MetaRow] = []
        self.shown: list[MetaRow] = []
        self._pending_line: tuple[str, int] | None = None
        """(key, 1-based line) to scroll the value to when that key is shown."""
        self._shown_keys: set[str] = set()
        self._detail_key: str | None = None
        """The key whose value the detail pane shows."""

    def compose(self) -> ComposeResult:
        yield InfoBar(self.facts(), self.VIEW)
        yield SearchBox(placeholder="filter keys and values", id="meta-search")
        with Horizontal(id="meta-main"):
            with Vertical(id="meta-left"):
                yield DataTable(id="meta-table", cursor_type="row", zebra_stripes=True)
            yield LinesView(id="meta-detail")
        yield Footer()

    def on_mount(self) -> None:
        tokens = self.session.gguf.get("tokenizer.ggml.tokens") or []
        self.rows = metadata_rows(self.session.field_triples(), tokens=tokens)
        table = self.query_one("#meta-table", DataTable)
        table.add_columns("key", "type", "value")
        self._fill(self.rows)
        table.focus()

    def _fill(self, rows: list[MetaRow]) -> None:
        table = self.query_one("#meta-table", DataTable)
        table.clear()
        self.shown = rows
        self._shown_keys = {row.key for row in rows}
        for row in rows:
            # Text, not str: values hold square brackets that would be read as markup
            table.add_row(Text(visible(row.key)), Text(row.type_name), Text(visible(row.summary[:120])), key=row.key)
        if rows:
            self._show_detail(rows[0].key)
        else:  # nothing matches: the previous key's value must not stay beside an empty table
            detail = self.query_one("#meta-detail", LinesView)
            detail.border_title = "no key matches"
            detail.show_lines([])
            self._detail_key = None

    @on(Input.Changed, "#meta-search")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(filter_rows(self.rows, event.value, values=self.session.gguf.metadata))

    @on(DataTable.RowHighlighted, "#meta-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value
        if event.cursor_row != event.data_table.cursor_row:
            return  # stale: the cursor moved on since (show_key's jump after the first fill's highlight)
        # a highlight posted before the last refill can arrive after it: only show shown keys
        if self._pending_line is not None and self._pending_line[0] == key:
            self._pending_line = None  # the highlight that show_key caused: its value stays
            return
        if key is not None and key in self._shown_keys and key != self._detail_key:
            self._show_detail(key)  # a highlight of the key already shown would reset its scroll

    @on(DataTable.RowSelected, "#meta-table")
    def _selected(self) -> None:
        self.query_one("#meta-detail", LinesView).focus()

    def _show_detail(self, key: str) -> None:
        self._detail_key = key
        gguf = self.session.gguf
        field = gguf.fields[key]
        tokens = gguf.get("tokenizer.ggml.tokens") or []
        detail = self.query_one("#meta-detail", LinesView)
        detail.border_title = Text(f"{visible(key)}  {field.type_name}")  # a key may hold [/]
        value = field.value
        if isinstance(value, str) or not hasattr(value, "__len__"):
            detail.show_lines(full_lines(key, value, tokens=tokens))
        else:
            # arrays: format an item only when it scrolls into view
            detail.show(len(value), lambda i: array_item_line(value, i))

    def on_screen_resume(self) -> None:
        pending = self.tui.pending_metadata_key
        if pending is not None:
            self.tui.pending_metadata_key = None
            self.show_key(*pending)

    def show_key(self, key: str, line: int | None = None, column: int | None = None) -> None:
        """Highlight ``key`` (clearing the filter); with a ``line`` (1-based) of a text value, show
        that value as stored, numbered, scrolled to the line with ``column`` marked
        (``source_lines``), and put the focus on it (PageDown pages through it)."""
        search = self.query_one("#meta-search", Input)
        if search.value:
            search.value = ""
            self._fill(self.rows)
        table = self.query_one("#meta-table", DataTable)
        if key not in self.session.gguf.fields:
            return
        value = self.session.gguf.fields[key].value
        table.move_cursor(row=table.get_row_index(key))
        self._show_detail(key)
        if line is not None and isinstance(value, str):
            detail = self.query_one("#meta-detail", LinesView)
            lines = source_lines(value, line, column)
            detail.border_title = f"{key} · line {line}" + (f", column {column}" if column else "") + " (as stored)"
            detail.show_lines(lines)
            detail.scroll_line_to_top(max(0, line - 4))
            # the highlight the cursor move posts must not put the re-laid-out value back
            self._pending_line = (key, line)
            detail.focus()
        else:
            table.focus()

    def action_focus_search(self) -> None:
        self.set_focus(self.query_one("#meta-search", Input))  # at once (Widget.focus waits a turn)

    def action_focus_table(self) -> None:
        self.set_focus(self.query_one("#meta-table", DataTable))

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Filter metadata", "ctrl+f", self.action_focus_search)


def source_lines(value: str, line: int, column: int | None) -> list[Text]:
    """``value``'s lines as stored, numbered; line ``line`` (1-based) in bold with a ``^`` line
    under ``column`` (1-based) when known. Tabs expanded, controls drawn as pictures
    (``display.editor_text``).

    >>> [t.plain for t in source_lines("a\\n\\tbc", 2, 2)]
    ['1 │ a', '2 │     bc', '  │     ^']
    """
    raw = value.split("\n")
    digits = len(str(len(raw)))
    out: list[Text] = []
    for n, text in enumerate(raw, 1):
        shown = editor_text(text.expandtabs(TAB_COLUMNS))
        here = n == line
        row = Text(f"{n:>{digits}} │ ", style="bold red" if here else "dim")
        row.append(shown, style="bold" if here else "")
        out.append(row)
        if here and column:
            before = editor_text(text[: column - 1].expandtabs(TAB_COLUMNS))
            out.append(Text(" " * digits + " │ " + " " * cell_len(before) + "^", style="bold red"))
    return out
