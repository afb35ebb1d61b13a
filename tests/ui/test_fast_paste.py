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
