"""Pilot tests of the diagnostics view (F6): the findings of a broken file, the count in the header,
and Enter/k jumping to the token (vocabulary view) or metadata key (metadata view)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from textual.widgets import DataTable, Label
from ui_support import make_app, settle

from lint_support import asset_metadata, broken
from tui_tok.explore.lint import Severity
from tui_tok.ui.screens.diagnostics import DiagnosticsScreen
from tui_tok.ui.screens.metadata import MetadataScreen
from tui_tok.ui.widgets.vocab_table import VocabTable

SIZE = (120, 36)
QWEN3 = "qwen3-vocab.gguf"
CHATML = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|object_ref_start|><|im_sep|>\n"
          "{% endfor %}\n{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")  # fmt: skip
"""One tag per line at most: the metadata view shows it line for line (and can scroll to a line)."""


def broken_qwen3(tmp_path: Path, **changes) -> Path:  # type: ignore[no-untyped-def]
    """Qwen3 with an EOS id past the vocabulary, a template whose turn end does not stop generation
    and that writes an unknown marker, and the BOS id on a normal token."""
    changes.setdefault("tokenizer__chat_template", CHATML)
    return broken(tmp_path, QWEN3, eos_token_id=160000, bos_token_id=14990, **changes)


async def _open_diagnostics(app, pilot) -> DiagnosticsScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("f6")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, DiagnosticsScreen)
    return screen


async def _go(app, pilot, screen: DiagnosticsScreen, code: str, key: str) -> None:  # type: ignore[no-untyped-def]
    """Put the cursor on the finding ``code`` and press ``key``."""
    row = next(i for i, f in enumerate(screen.findings) if f.code == code)
    screen.query_one("#diag-table", DataTable).move_cursor(row=row)
    await pilot.press(key)
    await settle(app, pilot)


def _meta_key(app) -> str:  # type: ignore[no-untyped-def]
    meta = app.screen.query_one("#meta-table", DataTable)
    return meta.coordinate_to_cell_key(meta.cursor_coordinate).row_key.value


async def test_findings_listed_worst_first_with_the_count_in_the_header(tmp_path) -> None:
    app = make_app(broken_qwen3(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_diagnostics(app, pilot)
        report = app.lint_report
        assert report is not None
        table = screen.query_one("#diag-table", DataTable)
        assert table.row_count == len(report.findings) >= 4
        codes = [f.code for f in screen.findings]
        assert {"special-id-out-of-range", "turn-end-not-eog", "template-marker-not-special",
                "special-id-not-special"} <= set(codes)  # fmt: skip
        severities = [f.severity for f in screen.findings]
        assert severities == sorted(severities, reverse=True)
        header = str(screen.query_one("#info-lint", Label).render())
        assert header.startswith(f"✖ {report.count(Severity.ERROR)} errors")
        assert screen.query_one("#info-lint", Label).has_class("-error")


async def test_enter_on_a_token_finding_shows_the_token_in_the_vocabulary(tmp_path) -> None:
    app = make_app(broken_qwen3(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_diagnostics(app, pilot)
        await _go(app, pilot, screen, "special-id-not-special", "enter")
        table = app.screen.query_one("#vocab-table", VocabTable)
        assert int(table.ids[table.cursor]) == 14990


async def test_k_and_template_findings_go_to_the_metadata_key(tmp_path) -> None:
    padding = "{# a comment line #}\n" * 60
    long_template = padding + CHATML + "\n" + padding  # the unknown marker on line 62
    app = make_app(broken_qwen3(tmp_path, tokenizer__chat_template=long_template))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_diagnostics(app, pilot)
        await _go(app, pilot, screen, "special-id-not-special", "k")
        assert isinstance(app.screen, MetadataScreen)
        assert _meta_key(app) == "tokenizer.ggml.bos_token_id"
        await pilot.press("f6")
        await settle(app, pilot)
        await _go(app, pilot, screen, "template-marker-not-special", "enter")
        assert _meta_key(app) == "tokenizer.chat_template"
        assert app.screen.query_one("#meta-detail").scroll_offset.y == 58  # line 62 fourth from the top (context above)


async def test_lint_runs_when_the_tokenizer_cannot_load(tmp_path) -> None:
    app = make_app(broken_qwen3(tmp_path, pre="qwen-nine"))
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_diagnostics(app, pilot)
        assert app.tokenizer is None and app.tokenizer_error
        assert screen.findings[0].code in {"pre-unknown", "special-id-out-of-range", "turn-end-not-eog"}
        assert "pre-unknown" in {f.code for f in screen.findings}
        assert "tokenizer unavailable" in str(screen.query_one("#diag-summary").render())


async def test_clean_file_header_says_so(tmp_path) -> None:
    types = np.array(asset_metadata(QWEN3)["tokenizer.ggml.token_type"], dtype=np.int32)
    app = make_app(broken(tmp_path, QWEN3, token_type=types))  # an unchanged copy
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open_diagnostics(app, pilot)
        assert screen.findings == ()
        assert str(screen.query_one("#info-lint", Label).render()) == "✔ lint clean"
        assert str(screen.query_one("#diag-summary").render()) == "no findings"


def test_diagnostics_snapshot(snap_compare, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The broken Qwen3 copy on F6: the header says ``✖ 2 errors  ▲ 2 warnings`` in red; errors first
    (EOS id 160000 out of range, ``<|object_ref_start|>`` ending turns), then the warnings (BOS on a
    normal token, ``<|im_sep|>`` not a special token); the first finding's message, hint (with the
    llama.cpp issue) and where it points are on the right."""
    app = make_app(broken_qwen3(tmp_path))

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot.app, pilot)
        await pilot.press("f6")
        await settle(pilot.app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
