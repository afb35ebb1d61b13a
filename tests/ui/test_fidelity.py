"""The tokenize view tokenizes exactly what was typed, pasted or loaded, and shows all of it (issue 13).

Each test uses the strings of the issue; the oracle is ``Tokenizer.encode`` of the same text
(the engine itself is checked against llama.cpp elsewhere).
"""

from __future__ import annotations

from textual import events
from textual.geometry import Region
from ui_support import make_app, settle

from support import vocab_file
from tui_tok.tokenizer import Tokenizer
from tui_tok.ui.screens.tokenize import TokenizeScreen
from tui_tok.ui.widgets.editor import Editor
from tui_tok.ui.widgets.token_details import TokenDetails
from tui_tok.ui.widgets.token_view import TokenView

FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
"""👨‍👩‍👧: three emoji joined by ZWJ."""
FORMAT_CHARS = "\u200d\u200b\u00ad\ufeff\u200e\u200f\u2060"
"""ZWJ, ZWSP, soft hyphen, BOM, LRM, RLM, word joiner."""
PASTED = "a\x00b\rc\r\nd\x0be\x0cf\x85g\u2028h\u2029i"
"""NUL, CR, CR LF, VT, FF, U+0085, U+2028, U+2029: each used to be dropped or become LF."""


def _qwen3():  # type: ignore[no-untyped-def]
    return make_app(vocab_file("qwen3-vocab").path)


def _tok(app) -> Tokenizer:  # type: ignore[no-untyped-def]
    tok = app.tokenizer
    assert tok is not None
    return tok


async def _type(pilot, editor: Editor, text: str) -> None:  # type: ignore[no-untyped-def]
    """Type ``text`` a key per character, as a terminal sends it (the key is the character)."""
    for ch in text:
        editor.app.post_message(events.Key(ch, ch))
        await pilot.pause()


async def test_typed_format_characters_are_inserted() -> None:
    """A typed family emoji keeps its ZWJs; every format character of the issue (and a no-break
    space, also "unprintable" to Python) reaches the text."""
    app = _qwen3()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", Editor)
        editor.load_text("")
        await _type(pilot, editor, FAMILY + " " + FORMAT_CHARS + "\u00a0x")
        await settle(app, pilot)
        text = FAMILY + " " + FORMAT_CHARS + "\u00a0x"
        assert editor.text == text
        assert list(app.ids) == _tok(app).encode(text)


async def test_pasted_text_is_tokenized_exactly() -> None:
    """NUL, VT, FF, U+0085, U+2028 and U+2029 survive a paste: the ids are those of the exact text.
    A pasted CR or CR LF is the terminal's newline: LF, unless "keep CR in pastes" is on (issue 27)."""
    app = _qwen3()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", Editor)
        for keep_cr in (False, True):
            app.keep_cr_in_pastes = keep_cr
            editor.load_text("")
            app.post_message(events.Paste(PASTED))
            await settle(app, pilot)
            text = PASTED if keep_cr else PASTED.replace("\r\n", "\n").replace("\r", "\n")
            assert editor.text == text
            assert list(app.ids) == _tok(app).encode(text)
            # the stream view replays the same ids
            assert app.screen.query_one("#tok-view", TokenView).token_layout.text == text


async def test_pasted_invalid_utf8_is_tokenized_as_raw_bytes() -> None:
    """A lone 0x85 byte (decoded with surrogateescape by the input thread) gives the ids of the raw bytes."""
    app = _qwen3()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", Editor)
        editor.load_text("")
        app.post_message(events.Paste("x\udc85y"))
        await settle(app, pilot)
        assert list(app.ids) == _tok(app).encode(b"x\x85y")
        view = app.screen.query_one("#tok-view", TokenView)
        assert "\\x85" in view.build_row(0).text


def test_input_thread_decoder_accepts_invalid_utf8() -> None:
    """The Linux driver's decoder turned a lone 0x85 into a traceback in its input thread."""
    from textual.drivers import linux_driver

    from tui_tok.ui.lenient_input import accept_invalid_utf8

    accept_invalid_utf8()
    decoder = linux_driver.getincrementaldecoder("utf-8")()
    assert decoder.decode(b"a\x85", final=False) + decoder.decode(b"b", final=True) == "a\udc85b"


async def test_invisible_characters_are_drawn_and_selectable() -> None:
    """With show whitespace on, U+200B is drawn as ⟨200B⟩ and CR as ␍, and the ZWSP's token can be selected."""
    text = "a\u200bb\rc\u00ad\ufeff"
    app = make_app(vocab_file("qwen3-vocab").path, text=text)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        view = app.screen.query_one("#tok-view", TokenView)
        row = view.build_row(0).text
        for shown in ("⟨200B⟩", "␍", "⟨00AD⟩", "⟨FEFF⟩"):
            assert shown in row, (shown, row)
        # click on the ⟨200B⟩ cells: the token under them covers the ZWSP
        lay = view.token_layout
        x = row.index("⟨200B⟩") + 2
        await pilot.click(view, offset=(x + 1, 1))  # +1: the border
        await settle(app, pilot)
        cursor = view.cursor
        assert int(lay.starts[cursor]) <= 1 < int(lay.ends[cursor])


async def test_tab_types_a_tab_and_q_and_digits_type() -> None:
    """``def f():<Tab>quit`` stays in the text box (Tab used to leave it, then q quit); digits type too."""
    app = _qwen3()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", Editor)
        editor.load_text("")
        await pilot.press(*"def", "space", *"f():", "tab", *"quit", "space", *"1234")
        await settle(app, pilot)
        assert app.is_running and isinstance(app.screen, TokenizeScreen)
        assert editor.has_focus
        assert editor.text == "def f():\tquit 1234"
        assert list(app.ids) == _tok(app).encode("def f():\tquit 1234")
        await pilot.press("escape")  # leaves the box (a text never contains it)
        assert not editor.has_focus


def _editor_rows(editor: Editor) -> list[str]:
    """The rows the editor draws (through its row cache, as the compositor asks for them)."""
    region = editor.scrollable_content_region
    editor.render_lines(Region(0, 0, region.width, region.height))  # reads the frame state
    return [editor.render_line(y).text.rstrip() for y in range(region.height)]


def _wrapped_rows(editor: Editor) -> list[str]:
    """What a plain TextArea draws there: the visible wrapped sections of the document."""
    sections = [section.rstrip() for line in editor.wrapped_document.lines for section in line]
    top = editor.scroll_offset.y
    rows = sections[top : top + editor.scrollable_content_region.height]
    return rows + [""] * (editor.scrollable_content_region.height - len(rows))


LINES = (
    "first line is short",
    "second line " + "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi",
    "third line is short too",
    "fourth line " + "one two three four five six seven eight nine ten eleven twelve thirteen fourteen",
)


async def test_editor_rows_follow_width_changes() -> None:
    """Four lines, two longer than 75 chars: F9 twice and resizes 120x40 -> 80x24 -> 200x60 show
    every line once (rows used to be kept by wrapped-section index: a line twice, another gone)."""
    text = "\n".join(LINES)
    app = make_app(vocab_file("qwen3-vocab").path, text=text)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        editor = app.screen.query_one("#tok-input", Editor)
        assert _editor_rows(editor) == _wrapped_rows(editor)
        assert "".join(_editor_rows(editor)).replace(" ", "") == text.replace(" ", "").replace("\n", "")
        for key in ("f9", "f9"):
            await pilot.press(key)
            await settle(app, pilot)
            assert _editor_rows(editor) == _wrapped_rows(editor)
        for size in ((80, 24), (200, 60), (120, 40)):
            await pilot.resize_terminal(*size)
            await settle(app, pilot)
            assert _editor_rows(editor) == _wrapped_rows(editor), size


async def test_token_panel_clears_with_the_text() -> None:
    """After the text is cleared the Token panel no longer shows the last token."""
    app = make_app(vocab_file("qwen3-vocab").path, text="Hello")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        details = app.screen.query_one("#tok-details", TokenDetails)
        assert dict(details.rows).get("id")
        editor = app.screen.query_one("#tok-input", Editor)
        editor.focus()
        editor.select_all()
        await pilot.press("backspace")
        await settle(app, pilot)
        assert editor.text == ""
        assert not details.rows


async def test_keys_panel_lists_the_views_keys_before_the_editors() -> None:
    """F9 in the tokenize view: ^B ^T ^O ^G ^N come before the editor's ~30 keys."""
    app = _qwen3()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        keys = list(app.screen.active_bindings)
        first_editor_key = min(
            i for i, b in enumerate(app.screen.active_bindings.values()) if isinstance(b.node, Editor)
        )
        for key in ("ctrl+b", "ctrl+t", "ctrl+o", "ctrl+g", "ctrl+n"):
            assert keys.index(key) < first_editor_key
