"""The diagnostics view: the lint findings of the open file, worst first, with the highlighted one's
message, hint and context; Enter jumps to its template line or metadata key (metadata view) or its
token (vocabulary view), ``k`` to its metadata key, ctrl+e ("Fix…") shows the finding's fix and writes
a repaired copy (``fix_dialog.py``).

The findings come from the app's lint worker (``TuiTokApp.lint_report``); this screen only shows them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import DataTable, Static

from tui_tok.explore.lint import Finding, LintReport, Severity
from tui_tok.explore.visible import visible
from tui_tok.ui.screens.base import ViewScreen
from tui_tok.ui.widgets.footer import Footer  # fitted to the width: F1-F9 at 80 columns
from tui_tok.ui.widgets.info_bar import InfoBar

SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "cyan"}


def error_column(f: Finding) -> int | None:
    """The column of a template error on ``f.line``, from its message (``ChatTemplateError`` says
    ``template line 3, column 7: ...``); None when it names none.

    >>> error_column(Finding("template-error", Severity.ERROR, "x fails: template line 3, column 7: y.", "", line=3))
    7
    """
    if f.line is None:
        return None
    match = re.search(rf"\bline {f.line}, column (\d+)", f.message)
    return int(match.group(1)) if match else None


class DiagnosticsScreen(ViewScreen):
    """Browse the lint findings and jump to what they name."""

    VIEW = "Diagnostics"
    BINDINGS = [
        Binding("enter", "jump", "Go to", show=True),
        Binding("k", "jump_key", "Metadata key"),
        Binding("ctrl+e", "fix", "Fix…", show=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.findings: tuple[Finding, ...] = ()

    def compose(self) -> ComposeResult:
        yield InfoBar(self.facts(), self.VIEW)
        yield Static("linting…", id="diag-summary")
        with Horizontal(id="diag-main"):
            yield DataTable(id="diag-table", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="diag-side"):
                yield Static("", id="diag-detail")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#diag-table", DataTable)
        table.add_columns("severity", "code", "message")
        self.query_one("#diag-side").border_title = "Finding"
        self.watch(self.app, "lint_report", self._show_report)
        table.focus()

    def _show_report(self, report: LintReport | None) -> None:
        summary = self.query_one("#diag-summary", Static)
        table = self.query_one("#diag-table", DataTable)
        table.clear()
        if report is None:
            summary.update("linting…")
            return
        self.findings = report.findings
        note = f"  (tokenizer unavailable: {report.tokenizer_error})" if report.tokenizer_error else ""
        summary.update(Text(visible(f"{report.summary()}{note}" if report.findings else f"no findings{note}")))
        for i, f in enumerate(report.findings):
            table.add_row(Text(f.severity.label, style=SEVERITY_STYLE[f.severity]), Text(f.code), Text(visible(f.message)),
                          key=str(i))  # fmt: skip
        self._show_detail(0)

    @on(DataTable.RowHighlighted, "#diag-table")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_detail(event.cursor_row)

    @on(DataTable.RowSelected, "#diag-table")
    def _selected(self, event: DataTable.RowSelected) -> None:
        self._jump(event.cursor_row, prefer_key=False)

    def _show_detail(self, row: int) -> None:
        detail = self.query_one("#diag-detail", Static)
        if not 0 <= row < len(self.findings):
            detail.update("")
            return
        f = self.findings[row]
        text = Text()
        text.append(f"{f.severity.label} {f.code}\n", style=SEVERITY_STYLE[f.severity])
        # messages, hints and context quote the file (keys, token texts, template lines)
        text.append(f"{visible(f.message, lines=True)}\n\n")
        text.append("hint: ", style="bold")
        text.append(f"{visible(f.hint, lines=True)}\n")
        where = [w for w in (f.key and f"key {f.key}", f.line and f"line {f.line}",
                             f.token_id is not None and f"token {f.token_id}") if w]  # fmt: skip
        if where:
            text.append("\n" + visible(", ".join(where)) + "  (enter: go to it)\n", style="dim")
        if f.fix is not None:
            from tui_tok.explore.fix.edits import describe

            text.append("\nfix: ", style="bold")
            text.append(visible(describe(self.session.gguf, f.fix)))
            text.append("  (ctrl+e: Fix…)\n", style="dim")
        if f.context:
            text.append("\n" + visible(f.context, lines=True), style="italic")
        detail.update(text)

    def current(self) -> Finding | None:
        row = self.query_one("#diag-table", DataTable).cursor_row
        return self.findings[row] if 0 <= row < len(self.findings) else None

    def action_jump(self) -> None:
        self._jump(self.query_one("#diag-table", DataTable).cursor_row, prefer_key=False)

    def action_jump_key(self) -> None:
        self._jump(self.query_one("#diag-table", DataTable).cursor_row, prefer_key=True)

    def _jump(self, row: int, *, prefer_key: bool) -> None:
        if not 0 <= row < len(self.findings):
            return
        f = self.findings[row]
        if f.token_id is not None and f.line is None and not (prefer_key and f.key):
            self.tui.show_token_in_vocab(f.token_id)
        elif f.key is not None and f.key in self.session.gguf.fields:
            self.tui.show_key_in_metadata(f.key, f.line, error_column(f))

    def action_fix(self) -> None:
        """Show the highlighted finding's fix and offer to write the repaired copy."""
        f = self.current()
        if f is None:
            return
        if f.fix is None:
            self.notify(f"no metadata edit repairs {f.code}: see its hint", severity="warning")
            return
        from tui_tok.ui.screens.fix_dialog import FixDialog

        self.app.push_screen(FixDialog(self.session.gguf, f, [f.fix]))

    def palette_commands(self) -> Iterable[SystemCommand]:
        yield SystemCommand("Go to the finding's target", "enter", self.action_jump)
        yield SystemCommand("Fix… the finding: write a repaired copy", "ctrl+e", self.action_fix)
