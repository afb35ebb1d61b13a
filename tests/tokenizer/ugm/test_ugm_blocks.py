"""The whole-text path's block-wise passes (``ugm/textids.py``'s decoding, ``ugm/pieces.py``'s
piece starts, token gather and unknown collapse) with blocks lowered to a few elements, so that
every block edge falls inside the texts, and the table of characters a guarded charsmap walk
may enter (``CharWalk.entered``) against the walks themselves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from test_ugm import tok
from test_ugm_textids import CHARSMAP, MIXED, NAMES, SMALL, fast_ids, small_encoder, whole_ids

from tui_tok.tokenizer.ugm import pieces, textids
from tui_tok.tokenizer.ugm.charsmap import Charsmap, build_charsmap
from tui_tok.tokenizer.ugm.charwalk import CharWalk
from tui_tok.tokenizer.ugm.encoder import UgmEncoder

# kana and the voiced marks that compose with them (NFKC), full-width and half-width forms
KANA = ["か", "\u3099", "\u309a", "は", "ハ", "ｶ", "\uff9e", "ー", "。", "？", "a", " ", "e\u0301", "中"]


def encoder(name: str) -> UgmEncoder:
    """The vocab's fast encoder, whatever ``TUI_TOK_PATHS`` gives the tokenizer."""
    return UgmEncoder(tok(name).vocab)


@pytest.mark.parametrize("block", [1, 2, 5])
@given(data=st.one_of(st.binary(max_size=40), st.text(max_size=20).map(lambda t: t.encode("utf-8", "surrogatepass"))))
@settings(max_examples=200, deadline=None)
def test_decode_in_blocks_is_pythons_decode(block: int, data: bytes) -> None:
    """Valid exactly when Python's decoder accepts the whole, with the same code points,
    wherever the blocks end (a character cut at a block's end is no character start)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(textids, "_DECODE_BLOCK", block)
        got = textids._decode(data)
    try:
        want = data.decode("utf-8")
    except UnicodeDecodeError:
        assert got is None
        return
    assert got is not None and got.tolist() == [ord(c) for c in want]
    assert got.dtype == (np.uint8 if data.isascii() else np.uint32)


@pytest.mark.parametrize("block", [1, 3, 7])
@given(data=st.lists(st.sampled_from(SMALL + ["Ж", "ЖЖ", "中文字"]), min_size=1, max_size=80).map("".join))
@settings(max_examples=60, deadline=None)
def test_small_blocks_give_the_same_ids_and_spans(block: int, data: str) -> None:
    """Piece starts, the token gather and the collapse of unknown runs (whose runs cross block
    edges) a few elements at a time, and the decoding: llama.cpp's computation."""
    enc = small_encoder(True, merge=True)
    raw = data.encode()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pieces, "_BLOCK", block)
        mp.setattr(textids, "_DECODE_BLOCK", block)
        got = fast_ids(enc, raw)
    assert got is not None
    assert got == whole_ids(enc, raw)


@pytest.mark.parametrize("name", NAMES)
@given(data=st.lists(st.sampled_from(MIXED + KANA), min_size=1, max_size=60).map("".join))
@settings(max_examples=40, deadline=None)
def test_small_blocks_on_real_vocabs(name: str, data: str) -> None:
    enc = encoder(name)
    raw = data.encode()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pieces, "_BLOCK", 4)
        mp.setattr(textids, "_DECODE_BLOCK", 4)
        got = fast_ids(enc, raw)
    assert got is not None
    assert got == whole_ids(enc, raw)


def _entered_exactly(walk: CharWalk, first: np.ndarray, probe: np.ndarray) -> bool:
    """``walk.entered`` of the nodes of the guarded characters among ``first`` holds exactly the
    characters of ``probe`` that ``enters`` finds for one of those nodes (returns whether any
    does)."""
    kind, node = walk.kinds(first)
    nodes = np.unique(node[kind == 1])
    lo, hi = walk.entered(nodes)
    inside = np.zeros(probe.size, dtype=bool)
    for a, b in zip(lo.tolist(), hi.tolist()):
        inside |= (probe >= a) & (probe < b)
    entered = np.zeros(probe.size, dtype=bool)
    for n in nodes.tolist():
        entered |= walk.enters(np.full(probe.size, n, dtype=np.int64), probe)
    assert inside.tolist() == entered.tolist()
    return bool(entered.any())


BMP = np.array([c for c in range(0x3100) if not 0xD800 <= c < 0xE000])
PROBE = np.concatenate((BMP[BMP >= 0x80], [0xFF21, 0xFF9E, 0xFF9F, 0x1D400, 0x1F999]))


def test_entered_ranges_are_what_guarded_walks_enter() -> None:
    """On a real NFKC charsmap (combining marks after Latin letters, voiced marks after kana)
    and on a small one."""
    cm = encoder(NAMES[0]).normalizer.charsmap
    assert cm is not None
    assert _entered_exactly(CharWalk.of(cm), BMP, PROBE)
    assert _entered_exactly(CharWalk.of(Charsmap.from_blob(CHARSMAP)), BMP, PROBE)


@given(keys=st.lists(st.text(alphabet="ab\u0301é①\u3099か\U0001d400", min_size=2, max_size=4), min_size=1, max_size=8))
@settings(max_examples=60, deadline=None)
def test_entered_ranges_on_random_keys(keys: list[str]) -> None:
    """Keys that end inside the next character's bytes, at its end, or go on past it."""
    walk = CharWalk.of(Charsmap.from_blob(build_charsmap({k.encode(): b"z" for k in keys})))
    probe = sorted({ord(c) for k in keys for c in k if ord(c) >= 0x80} | {0xE9, 0x3099, 0x309A, 0x1D401})
    _entered_exactly(walk, np.array([ord(k[0]) for k in keys]), np.array(probe))
