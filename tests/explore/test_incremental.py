"""Line-by-line provisional tokenization: where the probes allow it, it equals the whole-text ids."""

from __future__ import annotations

import numpy as np
import pytest

from support import conformance_rows, vocab_file, vocab_files
from tui_tok.explore.incremental import ChunkCache, TokenArrays, probes_agree, split_chunks, tokenize_chunked
from tui_tok.explore.layout import kind_codes
from tui_tok.tokenizer.core.types import VocabType

EMPTY = TokenArrays(*(np.zeros(0, dtype=np.int64) for _ in range(3)), np.zeros(0, dtype=np.uint8))


def _setup(name: str):  # type: ignore[no-untyped-def]
    from tui_tok import load_tokenizer

    tok = load_tokenizer(vocab_file(name).path)
    if tok.vocab.type is not VocabType.BPE:
        pytest.skip("line-by-line tokenization is only tried for BPE")
    cache = ChunkCache(
        lambda c, ps: tok.tokenize(c, add_special=False, parse_special=ps), kind_codes(tok.token_kinds())
    )
    return tok, cache


@pytest.mark.parametrize("name", [v.name for v in vocab_files() if v.conformance is not None])
def test_where_probes_agree_chunks_match_whole_text(name: str) -> None:
    tok, cache = _setup(name)
    full = lambda t, ps: tok.encode(t, add_special=False, parse_special=ps)  # noqa: E731
    if not probes_agree(full, cache):
        pytest.skip(f"{name}: probes disagree, the UI tokenizes whole texts only")
    rows = [r for r in conformance_rows(name) if not r["add_special"]]
    texts = [r["text"] for r in rows] + ["\n".join(r["text"] for r in rows[i : i + 7]) for i in range(0, len(rows), 7)]
    for ps in (False, True):
        for text in texts:
            got = tokenize_chunked(text, cache, parse_special=ps, before=EMPTY, after=EMPTY)
            assert got.ids.tolist() == full(text, ps), (name, text)
            spans = [(t.start, t.end) for t in tok.tokenize(text, add_special=False, parse_special=ps)]
            assert list(zip(got.starts.tolist(), got.ends.tolist())) == spans


def test_probes_reject_gpt2_style_pretokenizers() -> None:
    """GPT-2's ``\\s+(?!\\S)`` sees a line's end as the text's end: the probes must catch it."""
    tok, cache = _setup("gpt-2")
    assert not probes_agree(lambda t, ps: tok.encode(t, add_special=False, parse_special=ps), cache)


def test_split_chunks_keeps_every_character() -> None:
    text = "a\nb\n\n  c\n\td\ne\n"
    assert "".join(split_chunks(text)) == text
    assert all(not c[:1].isspace() for c in split_chunks(text)[1:])
