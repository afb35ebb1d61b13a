"""WPM against llama.cpp's own code (tests/fixtures/llama_oracle.py; skipped unless built)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures import llama_oracle
from fixtures.simple_vocab import vocab_from_file, vocab_from_plain
from support import conformance_rows, llama_test_cases, vocab_file
from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.wpm.encoder import WpmEncoder
from tui_tok.tokenizer.wpm.reference import ReferenceEncoder

pytestmark = pytest.mark.skipif(
    not llama_oracle.available(), reason="llama oracle not built: python tests/fixtures/llama_oracle.py"
)


def _ours(enc: WpmEncoder, data: bytes) -> list[int] | str:
    """The spans path's ids, checked equal to the ids-only path's (what ``encode`` uses) and to
    ``wpm/reference.py``'s."""
    try:
        spans = [p[0] for p in enc.encode_fragment(data, after_special=True)]
    except TokenizeError:
        spans = None
    try:
        ids: list[int] | None = enc.encode_fragment_ids(data)
    except TokenizeError:
        ids = None
    try:
        ref: list[int] | None = [p[0] for p in ReferenceEncoder(enc.vocab).encode_fragment(data, after_special=True)]
    except TokenizeError:
        ref = None
    if not ids == spans == ref:
        return f"paths differ: spans {spans} ids {ids} reference {ref}"
    return "ERR" if ids is None else ids


def test_bert_bge_random_and_reference_inputs(tmp_path: Path) -> None:
    vocab = vocab_from_file(vocab_file("bert-bge").path)
    enc = WpmEncoder(vocab)
    inputs = llama_oracle.random_inputs(7, 600)
    inputs += [r["text"].encode("utf-8", "surrogatepass") for r in conformance_rows("bert-bge")]
    inputs += [t.encode() for t, _ in llama_test_cases("bert-bge")]
    expected = llama_oracle.run("wpm", llama_oracle.write_vocab_file(vocab, tmp_path / "v"), inputs)
    bad = []
    for data, exp in zip(inputs, expected, strict=True):
        got = _ours(enc, data)
        if isinstance(exp, str):
            exp = "ERR"
        if got != exp:
            bad.append((data, got, exp))
    assert bad == []


@pytest.mark.parametrize("lowercase,strip", [(False, False), (False, True), (True, False)])
def test_normaliser_options(tmp_path: Path, lowercase: bool, strip: bool) -> None:
    tokens = ["[UNK]", "▁e", "\u0301", "▁É", "▁é", "▁E", "▁ab", "▁Ab", "c", "▁\u1112", "▁한", "▁a", "b", "C"]
    meta = {
        "tokenizer.ggml.model": "bert",
        "tokenizer.ggml.tokens": tokens,
        "tokenizer.ggml.unknown_token_id": 0,
        "tokenizer.ggml.normalizer.lowercase": lowercase,
        "tokenizer.ggml.normalizer.strip_accents": strip,
    }
    vocab = vocab_from_plain(meta)
    enc = WpmEncoder(vocab)
    inputs = llama_oracle.random_inputs(11, 300, alphabet="eÉé\u0301AabBcC한 ")
    expected = llama_oracle.run("wpm", llama_oracle.write_vocab_file(vocab, tmp_path / "v"), inputs)
    bad = [
        (d, _ours(enc, d), e)
        for d, e in zip(inputs, expected)
        if _ours(enc, d) != (e if not isinstance(e, str) else "ERR")
    ]
    assert bad == []
