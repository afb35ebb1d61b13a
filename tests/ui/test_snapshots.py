"""Snapshot tests of each view (pytest-textual-snapshot). Update with ``--snapshot-update``.

Fixed terminal size, timings hidden, every worker finished before the picture is taken.
"""

from __future__ import annotations

from ui_support import make_app, settle

from support import vocab_file

SIZE = (120, 36)
TEXT = "Hello world! <|endoftext|>\n日本語 🙂 naïve\n\tx = 42"


def _waiting(*keys: str):  # type: ignore[no-untyped-def]
    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot.app, pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot.app, pilot)

    return run_before


def test_tokenize_view(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """phi-3 (SPM): the text with coloured spans — BOS in the id strip, the emoji as four
    yellow italic byte-fallback tokens, ``<|endoftext|>`` split into ordinary pieces (parse
    special is off), whitespace as · → ↵. The third token is selected: its id, piece and bytes
    are in the Token panel."""
    app = make_app(vocab_file("phi-3").path, text=TEXT)
    assert snap_compare(app, terminal_size=SIZE, run_before=_waiting("escape", "home", "right", "right"))


def test_tokenize_view_parse_special(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """As above with parse special on (ctrl+t) and whitespace hidden (ctrl+o): ``<|endoftext|>``
    is one bold pink special token (id 32000) and spaces are blank."""
    app = make_app(vocab_file("phi-3").path, text=TEXT)
    assert snap_compare(app, terminal_size=SIZE, run_before=_waiting("ctrl+t", "ctrl+o"))


def test_stream_view(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Stream replay stopped on the second byte of 🙂: the status says ``holding f0 9f: 2 of 4
    bytes of a UTF-8 character`` and the emitted text ends before the emoji."""
    app = make_app(vocab_file("phi-3").path, text="a🙂b")
    keys = ["f2", "right", "right", "right", "right"]
    assert snap_compare(app, terminal_size=SIZE, run_before=_waiting(*keys))


def test_vocab_view(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """Qwen3 vocabulary searched with ``/^Ġthe/``: rows whose piece starts with Ġthe, with
    their merge ranks and byte lengths, the first one described on the right (its last row:
    what the piece decodes to, ``·the``)."""
    app = make_app(vocab_file("qwen3-vocab").path)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot.app, pilot)
        await pilot.press("f3")
        await settle(pilot.app, pilot)
        for key in "/^Ġthe/":
            await pilot.press(key)
        await settle(pilot.app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_metadata_view(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """phi-3 metadata: every key with its type; id keys show the token text (``1  <s>``);
    the highlighted chat template is laid out on the right."""
    app = make_app(vocab_file("phi-3").path)

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot.app, pilot)
        await pilot.press("f4", "ctrl+f")
        await settle(pilot.app, pilot)
        for key in "template":
            await pilot.press(key)
        await settle(pilot.app, pilot)

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)
