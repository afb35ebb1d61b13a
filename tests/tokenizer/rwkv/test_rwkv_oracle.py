"""RWKV against llama.cpp's own code (tests/fixtures/llama_oracle.py; skipped unless built)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from fixtures import llama_oracle
from fixtures.simple_vocab import vocab_from_file, vocab_from_plain
from support import conformance_rows, vocab_file
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.rwkv.encoder import RwkvEncoder, unescape_token
from tui_tok.tokenizer.rwkv.reference import ReferenceEncoder

pytestmark = pytest.mark.skipif(
    not llama_oracle.available(), reason="llama oracle not built: python tests/fixtures/llama_oracle.py"
)


def test_world_random_and_reference_inputs(tmp_path: Path) -> None:
    vocab = vocab_from_file(vocab_file("rwkv-world-vocab").path)
    enc = RwkvEncoder(vocab)
    inputs = llama_oracle.random_inputs(3, 600, alphabet="the quick brown fox\n\t\\x")
    inputs += [r["text"].encode("utf-8", "surrogatepass") for r in conformance_rows("rwkv-world-vocab")]
    expected = llama_oracle.run("rwkv", llama_oracle.write_vocab_file(vocab, tmp_path / "v"), inputs)
    bad = [
        (d, e)
        for d, e in zip(inputs, expected, strict=True)
        if [p[0] for p in enc.encode_fragment(d, after_special=False)] != e
    ]
    assert bad == []
    assert [d for d, e in zip(inputs, expected, strict=True) if enc.encode_fragment_ids(d) != e] == []
    ref = ReferenceEncoder(vocab)
    assert [
        d
        for d, e in zip(inputs, expected, strict=True)
        if [p[0] for p in ref.encode_fragment(d, after_special=False)] != e
    ] == []


def _long_token_texts(vocab: Vocab, seed: int, n: int) -> list[bytes]:
    """World tokens glued at random, often the long ones (runs of spaces, dashes, Cyrillic
    words) cut short or run on, with code-like indentation: the numpy paths' hard cases."""
    rng = random.Random(seed)
    raws = [unescape_token(t) for t in vocab.tokens]
    longs = [r for r in raws if len(r) > 15]
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 40)):
            r = rng.random()
            if r < 0.3:
                tok = rng.choice(longs)
                parts.append(
                    tok[: rng.randint(1, len(tok))]
                    if rng.random() < 0.5
                    else tok + rng.choice([b" ", b"x", b"\n", b""])
                )
            elif r < 0.5:
                parts.append(b"\n" + b" " * rng.randint(0, 60) + rng.choice([b"if", b"return", b"#", b""]))
            else:
                parts.append(rng.choice(raws))
        out.append(b"".join(parts))
    return out


def test_world_long_tokens_ids_path(tmp_path: Path) -> None:
    """``encode_fragment_ids`` (whole-chunk lookups, numpy rounds, long tokens in numpy) and
    the walk against llama.cpp, on text full of tokens longer than 15 bytes."""
    vocab = vocab_from_file(vocab_file("rwkv-world-vocab").path)
    enc = RwkvEncoder(vocab)
    inputs = _long_token_texts(vocab, 7, 300)
    inputs.append(b"".join(inputs))  # one long text: many chunks, so the numpy rounds run (not only the Python tail)
    expected = llama_oracle.run("rwkv", llama_oracle.write_vocab_file(vocab, tmp_path / "v"), inputs)
    assert [d for d, e in zip(inputs, expected, strict=True) if enc.encode_fragment_ids(d) != e] == []
    assert [
        d
        for d, e in zip(inputs, expected, strict=True)
        if [p[0] for p in enc.encode_fragment(d, after_special=False)] != e
    ] == []


def test_odd_escapes_and_missing_bytes(tmp_path: Path) -> None:
    # every single byte except 'z' is a token (so llama.cpp never loops), plus escapes it parses oddly
    tokens = [f"\\x{b:02x}" for b in range(256) if b != ord("z")]
    tokens += [r"\xAB", r"\xg0", "\\x\u00e90", "ab\\", r"q\x4", r"\'\"", "é", "\\\\n"]
    vocab = vocab_from_plain({"tokenizer.ggml.model": "rwkv", "tokenizer.ggml.tokens": tokens})
    enc = RwkvEncoder(vocab)
    inputs = llama_oracle.random_inputs(5, 300, alphabet="abqz\"'\\ng0é")
    expected = llama_oracle.run("rwkv", llama_oracle.write_vocab_file(vocab, tmp_path / "v"), inputs)
    bad = [
        (d, e)
        for d, e in zip(inputs, expected, strict=True)
        if [p[0] for p in enc.encode_fragment(d, after_special=False)] != e
    ]
    assert bad == []
    assert [d for d, e in zip(inputs, expected, strict=True) if enc.encode_fragment_ids(d) != e] == []
