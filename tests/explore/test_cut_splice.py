"""The tokenize view's engine splices an edit between proven cuts for SPM, UGM, WPM and RWKV (not
only BPE): the result is exact at once, with no whole-text tokenize."""

from __future__ import annotations

import numpy as np
import pytest

from support import ASSETS
from tui_tok.explore.layout import layout_arrays
from tui_tok.explore.tokenize_engine import TokenizeEngine, TokenizeRequest
from tui_tok.loader import load_tokenizer

TEXT = "Hello, world. The quick brown fox (aged 7) jumps over the lazy dog!\n日本語 🙂 naïve\n" * 300


@pytest.mark.parametrize(
    "name",
    ["ggml-vocab-phi-3.gguf", "ggml-vocab-bert-bge.gguf", "rwkv-world-vocab.gguf", "t5-botchan-en-unigram-1000.gguf"],
)
@pytest.mark.parametrize("add_special", [False, True])
def test_edit_is_spliced_and_exact(name: str, add_special: bool) -> None:
    tok = load_tokenizer(ASSETS / name)
    engine = TokenizeEngine()

    def request(generation: int, text: str) -> TokenizeRequest:
        return TokenizeRequest(
            generation=generation, text=text, add_special=add_special, parse_special=True, show_pieces=False
        )

    assert engine.layout(tok, request(0, TEXT)) is not None
    text = TEXT
    edits = [(5000, "x", 0), (12000, " ", 0), (9000, "", 3), (100, "é🙂", 1), (len(TEXT) - 2, "!", 0),
             (7000, "a\nb", 0), (-20000, "", 1)]  # fmt: skip  # a line more, a line less (-N: the newline after N)
    for i, (at, insert, drop) in enumerate(edits):
        at = text.index("\n", -at) if at < 0 else at
        text = text[:at] + insert + text[at + drop :]
        got = engine.layout(tok, request(i + 1, text))
        assert got is not None
        layout, provisional = got
        assert not provisional
        assert engine.spliced == i + 1
        want = tok.tokenize_arrays(text, add_special=add_special, parse_special=True)
        assert layout.ids.tolist() == want[0].tolist()
        fresh = layout_arrays(text, ids=want[0], starts=want[1], ends=want[2], kinds=layout.kinds)
        for field in ("starts", "ends", "phases", "line_starts"):  # the spliced layout is a fresh one's
            assert np.array_equal(getattr(layout, field), getattr(fresh, field)), field
        assert layout.cells == fresh.cells


@pytest.mark.parametrize("lines", [1200, 2000])
def test_ugm_text_past_the_length_bound_is_spliced(lines: int) -> None:
    """A UGM text longer than its cut table's ``max_bytes`` (t5 with one more token whose score's
    last bit is 2**-30: ~33 KB) is encoded in stretches between cuts when long (136 KB), and each
    edit is spliced, the text's weight carried from the encode to the first key and on."""
    from tui_tok import read_gguf
    from tui_tok.explore.cut_edit import _WEIGHTS
    from tui_tok.tokenizer.core.vocab import vocab_from_metadata
    from tui_tok.tokenizer.tokenizer import Tokenizer

    meta = dict(read_gguf(ASSETS / "t5-botchan-en-unigram-1000.gguf").metadata)
    meta["tokenizer.ggml.tokens"] = [*meta["tokenizer.ggml.tokens"], "☃☃☃"]
    meta["tokenizer.ggml.scores"] = np.append(meta["tokenizer.ggml.scores"], np.float32(-(2.0**-30)))
    meta["tokenizer.ggml.token_type"] = np.append(meta["tokenizer.ggml.token_type"], 1)
    tok = Tokenizer(vocab_from_metadata(meta))
    engine = TokenizeEngine()
    text = "Hello, world. The quick brown fox (aged 7) jumps over the lazy dog!\n" * lines

    def request(generation: int, text: str) -> TokenizeRequest:
        return TokenizeRequest(
            generation=generation, text=text, add_special=True, parse_special=False, show_pieces=False
        )

    engine._planner.prepare(tok)  # the table, as the view's worker builds it before the text
    table = engine._planner.table(tok)
    assert table is not None and table.sums is not None and table.max_bytes is not None
    assert table.max_bytes < len(text) // 2
    got = engine.layout(tok, request(0, text))
    assert got is not None and got[0].ids.tolist() == tok.tokenize_arrays(text, add_special=True)[0].tolist()
    if len(text) > 100_000:  # encoded in stretches: the weight is known before the first key
        assert _WEIGHTS[table.sums][0] == text.encode()
    for i, at in enumerate((3000, 100, 2000, 2001, 3900)):
        text = text[:at] + "x" + text[at:]
        got = engine.layout(tok, request(i + 1, text))
        assert got is not None and not got[1] and engine.spliced == i + 1
        assert got[0].ids.tolist() == tok.tokenize_arrays(text, add_special=True)[0].tolist()
