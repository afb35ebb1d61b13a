"""A bracketed paste's line breaks are the terminal's (CR, or CR LF): they become LF, with a note
in the status line; ``--text`` and the "keep CR in pastes" toggle keep every byte (issue 27)."""

from __future__ import annotations

from textual import events
from textual.widgets import Checkbox
from ui_support import make_app, settle

from support import vocab_file
from tui_tok.ui.settings import load_settings
from tui_tok.ui.widgets.editor import Editor
from tui_tok.ui.widgets.readout import Readout

FUNCTION = (
    'def greet(name):\n    """Say hello."""\n    if not name:\n\treturn None\n    return f"Hello, {name}!"\n# end\n'
)
"""Six lines as the file has them (LF), one indented with a tab."""


async def _paste(app, pilot, text: str) -> None:  # type: ignore[no-untyped-def]
    editor = app.screen.query_one("#tok-input", Editor)
    editor.focus()
    await pilot.pause()
    app.post_message(events.Paste(text))  # as the driver sends it: the app hands it to the focus
    await settle(app, pilot)


async def test_a_pasted_function_gives_the_ids_of_the_file() -> None:
    """The terminal sent each newline as CR: the ids are those of the LF file, and the status says so."""
    app = make_app(vocab_file("qwen3-vocab").path, text="")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        assert app.tokenizer is not None
        file_ids = app.tokenizer.encode(FUNCTION)  # what `tui-tok encode --file` gives for the file
        await _paste(app, pilot, FUNCTION.replace("\n", "\r"))
        assert app.text == FUNCTION
        assert list(app.ids) == file_ids
        stats = str(app.screen.query_one("#tok-stats", Readout).render())
        assert "6 line breaks pasted as LF" in stats
        await pilot.press("x")  # the note is about the paste only
        await settle(app, pilot)
        assert "pasted as LF" not in str(app.screen.query_one("#tok-stats", Readout).render())
        app.screen.query_one("#tok-input", Editor).select_all()  # the paste replaces the text
        await _paste(app, pilot, "a\r\nb\rc\u200d\td")  # CR LF and lone CR; ZWJ and tab stay
        assert app.text == "a\nb\nc\u200d\td"
        assert "2 line breaks pasted as LF" in str(app.screen.query_one("#tok-stats", Readout).render())


async def test_keep_cr_in_pastes_keeps_every_byte_and_is_remembered() -> None:
    app = make_app(vocab_file("qwen3-vocab").path, text="")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.click("#cb-keep_cr")
        await settle(app, pilot)
        assert app.keep_cr_in_pastes and app.screen.query_one("#cb-keep_cr", Checkbox).value
        await _paste(app, pilot, "a\r\nb\rc")
        assert app.text == "a\r\nb\rc"
        assert "pasted as LF" not in str(app.screen.query_one("#tok-stats", Readout).render())
    assert load_settings().get("keep_cr_in_pastes") is True
    again = make_app(vocab_file("qwen3-vocab").path, text="x\r\ny")  # --text: exact, CR kept, whatever the toggle
    async with again.run_test(size=(120, 40)) as pilot:
        await settle(again, pilot)
        assert again.keep_cr_in_pastes
        assert again.text == "x\r\ny"
