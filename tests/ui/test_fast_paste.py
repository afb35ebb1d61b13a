"""Terminal input with a bracketed paste, read in chunks as the driver reads it: the paste arrives
whole and exact (NUL, CR, ESC inside it kept), keys around it as Textual's parser gives them."""

from __future__ import annotations

from textual import events
from textual._xterm_parser import XTermParser

from tui_tok.ui.fast_paste import END, START, BulkPasteParser

PASTED = "a\x00b\r\nc\x1b[Ad日本\x85" * 500


def parse(parser: XTermParser, data: str, chunk: int) -> list[events.Event]:
    out: list[events.Event] = []
    for i in range(0, len(data), chunk):
        out += list(parser.feed(data[i : i + chunk]))
    return out


def test_a_paste_read_in_chunks_arrives_whole_and_exact() -> None:
    data = "x" + START + PASTED + END + "y"
    for chunk in (3, 4, 5, 7, 4096):  # 1 and 2 split the start marker right after its ESC: Textual's own path
        got = parse(BulkPasteParser(), data, chunk)
        pastes = [e.text for e in got if isinstance(e, events.Paste)]
        keys = [e.key for e in got if isinstance(e, events.Key)]
        assert pastes == [PASTED], chunk
        assert keys == ["x", "y"], chunk


def test_keys_outside_pastes_parse_as_textual_parses_them() -> None:
    data = "ab\x1b[A\r\t\x7f"
    ours = [(e.key, e.character) for e in parse(BulkPasteParser(), data, 2) if isinstance(e, events.Key)]
    theirs = [(e.key, e.character) for e in parse(XTermParser(), data, 2) if isinstance(e, events.Key)]
    assert ours == theirs and ours


def _order(reads: list[str]) -> list[str]:
    parser = BulkPasteParser()
    return [
        f"paste {e.text}" if isinstance(e, events.Paste) else e.key
        for read in reads
        for e in parser.feed(read)
        if isinstance(e, (events.Key, events.Paste))
    ]


def test_keys_held_after_an_esc_come_before_a_paste() -> None:
    """Textual's parser holds ``ESC x`` (alt+x, which clears the box) until it knows no longer
    sequence follows; a paste in the same burst went out first and was cleared."""
    paste = START + "P" + END
    assert _order(["\x1bx" + paste]) == ["alt+x", "paste P"]
    assert _order(["\x1bx", paste]) == ["alt+x", "paste P"]  # the paste read before the key's timeout
    assert _order(["\x01\x1bxab\t" + paste + "c"]) == ["ctrl+a", "alt+x", "a", "b", "tab", "paste P", "c"]


def test_an_alt_key_before_another_sequence_in_one_read_stays_an_alt_key() -> None:
    """Textual gives up ``ESC x`` cut by the next ESC as ``^`` and ``x``: alt+x then up typed ``^x``."""
    assert _order(["\x1bx\x1b[A"]) == ["alt+x", "up"]
    assert _order(["\x1b\x1b[A", "\x1b"]) == ["escape", "up"]  # a lone ESC waits for its timeout
