"""``InfoBar``: the header line (file, architecture, tokenizer, vocab size, lint count, tokenizer state)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label


class InfoBar(Horizontal):
    """File facts on the left, the current view and tokenizer state on the right."""

    def __init__(self, facts: str, view: str) -> None:
        super().__init__()
        self._facts = facts
        self._view = view

    def compose(self) -> ComposeResult:
        yield Label(Text(self._facts), id="info-facts")
        yield Label("", id="info-lint")
        yield Label("", id="info-state")
        yield Label(self._view, id="info-view")

    def on_mount(self) -> None:
        self.watch(self.app, "tokenizer", self._refresh_state)
        self.watch(self.app, "tokenizer_error", self._refresh_state)
        if hasattr(self.app, "lint_report"):
            self.watch(self.app, "lint_report", self._refresh_lint)

    def _refresh_lint(self, report: object = None) -> None:
        """``✖ 1 error ▲ 2 warnings`` (F6 lists them); nothing until the lint worker is done."""
        label = self.query_one("#info-lint", Label)
        if report is None:  # before the lint package is imported: ~0.3 s the first paint waited for
            label.update("")
            return
        from tui_tok.explore.lint import LintReport, Severity

        if not isinstance(report, LintReport):
            label.update("")
            return
        errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
        parts = []
        if errors:
            parts.append(f"✖ {errors} error{'s' * (errors != 1)}")
        if warnings:
            parts.append(f"▲ {warnings} warning{'s' * (warnings != 1)}")
        label.update("  ".join(parts) if parts else "✔ lint clean")
        label.set_class(bool(errors), "-error")
        label.set_class(not errors and bool(warnings), "-warning")

    def _refresh_state(self, _value: object = None) -> None:
        state = self.query_one("#info-state", Label)
        if getattr(self.app, "tokenizer_error", None):
            state.update("tokenizer unavailable")
            self.set_class(True, "-error")
            self.set_class(False, "-loading")
        elif getattr(self.app, "tokenizer", None) is None:
            state.update("building tokenizer…")
            self.set_class(True, "-loading")
        else:
            state.update("tokenizer ready")
            self.set_class(False, "-loading")
            self.set_class(False, "-error")
