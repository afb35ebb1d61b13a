"""The public API takes text as ``str``/bytes and token ids as ints (numpy integers too), and
rejects anything else with a ``TypeError``, the same on a fresh tokenizer as on a warmed one.

Before: ``encode(5)`` encoded five NUL bytes (``bytes(5)``), ``encode([104, 105])`` was
``encode("hi")``, ``encode(2**40)`` raised ``MemoryError``; ``token_to_piece(5.0)`` raised on a
fresh tokenizer but returned a piece once id 5 had been looked up (5.0 finds 5 in a dict), and
``True`` and ``complex(1, 0)`` passed as ids.
"""

from __future__ import annotations

import numpy as np
import pytest

from support import ASSETS
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer import Tokenizer

VOCABS = [
    "ggml-vocab-phi-3.gguf",
    "qwen3-vocab.gguf",
    "ggml-vocab-bert-bge.gguf",
    "rwkv-world-vocab.gguf",
    "t5-botchan-en-unigram-1000.gguf",
]
NOT_TEXT = [5, 0, 2**40, [104, 105], (104, 105), None, 3.5, {"text": "hi"}, np.arange(3)]
NOT_IDS = [5.0, True, False, complex(1, 0), "5", b"5", None, np.float64(5.0), np.bool_(True), [5]]


@pytest.fixture(scope="module", params=VOCABS)
def vocab(request):  # type: ignore[no-untyped-def]
    return load_tokenizer(ASSETS / request.param).vocab


@pytest.mark.parametrize("call", ["encode", "tokenize"])
@pytest.mark.parametrize("bad", NOT_TEXT, ids=repr)
def test_text_that_is_no_text_is_a_type_error(vocab, call: str, bad: object) -> None:  # type: ignore[no-untyped-def]
    tok = Tokenizer(vocab)
    with pytest.raises(TypeError, match="text must be str or bytes"):
        getattr(tok, call)(bad)


def test_str_and_bytes_like_text_agree(vocab) -> None:  # type: ignore[no-untyped-def]
    tok = Tokenizer(vocab)
    text = "Hello wörld 12"
    want = tok.encode(text)
    assert want
    for same in (text.encode(), bytearray(text.encode()), memoryview(text.encode())):
        assert tok.encode(same) == want
        assert [t.id for t in tok.tokenize(same)] == want


@pytest.mark.parametrize("warm", [False, True], ids=["fresh", "warmed"])
@pytest.mark.parametrize("bad", NOT_IDS, ids=repr)
def test_ids_that_are_no_ints_are_type_errors(vocab, bad: object, warm: bool) -> None:  # type: ignore[no-untyped-def]
    tok = Tokenizer(vocab)
    if warm:  # ids 0, 1 and 5 looked up first: their pieces are cached
        for tid in (0, 1, 5):
            tok.token_to_piece(tid)
            tok.token_kind(tid)
    with pytest.raises(TypeError, match="token id must be an int"):
        tok.token_to_piece(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="token id must be an int"):
        tok.token_to_piece(bad, special=False)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="token id must be an int"):
        tok.token_kind(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="token id must be an int"):
        tok.detokenize([0, bad])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="token id must be an int"):
        tok.stream_decoder().push(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("np_type", [np.int64, np.int32, np.uint16, np.intp])
def test_numpy_integer_ids_are_ids(vocab, np_type: type) -> None:  # type: ignore[no-untyped-def]
    tok = Tokenizer(vocab)
    ids = tok.encode("Hello world")
    as_np = np.array(ids, dtype=np_type)
    assert tok.detokenize(as_np) == tok.detokenize(ids)
    assert tok.decode(list(as_np)) == tok.decode(ids)
    for tid, np_tid in zip(ids, as_np):
        assert tok.token_to_piece(np_tid) == tok.token_to_piece(tid)
        assert tok.token_kind(np_tid) == tok.token_kind(tid)
