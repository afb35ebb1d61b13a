"""``Charsmap._continuations`` (the bytes that go on from a node, in whole arrays) == llama.cpp's
step test byte by byte, on every node of real charsmaps; so ``match_unit`` is unchanged."""

from __future__ import annotations

import pytest

from support import ASSETS, ROOT
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.ugm.charsmap import Charsmap

FILES = [ASSETS / "t5-botchan-en-unigram-1000.gguf", ROOT / "benchmarks" / "data" / "ja-unigram-8000.gguf"]


def byte_by_byte(cm: Charsmap, node: int) -> frozenset[int]:
    """The step test of ``longest_match``'s loop for each byte (the reference)."""
    xcda, size = cm.xcda, len(cm.xcda)
    return frozenset(c for c in range(1, 256) if (node ^ c) >= size or xcda[node ^ c] & 0x800000FF == c)


@pytest.mark.parametrize("path", [p for p in FILES if p.is_file()], ids=lambda p: p.name)
def test_continuations_equal_the_byte_loop(path) -> None:  # type: ignore[no-untyped-def]
    cm = load_tokenizer(path).encoder.normalizer.charsmap  # type: ignore[attr-defined]
    assert cm is not None and len(cm.xcda) > 1000
    nodes = range(0, len(cm.xcda) + 300, max(1, len(cm.xcda) // 4000))  # past the end too: out of bounds goes on
    assert all(cm._continuations(node) == byte_by_byte(cm, node) for node in nodes)
    seen = 0
    for b in range(1, 0x3100):  # match_unit of single characters: the nodes encoders ask about
        match, cont = cm.match_unit(chr(b).encode())
        seen += bool(cont)
    assert seen > 0
