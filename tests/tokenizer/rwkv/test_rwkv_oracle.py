"""RWKV against llama.cpp's own code (tests/fixtures/llama_oracle.py; skipped unless built)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures import llama_oracle
from fixtures.simple_vocab import vocab_from_file, vocab_from_plain
from support import conformance_rows, vocab_file
from tui_tok.tokenizer.rwkv.encoder import RwkvEncoder

pytestmark = pytest.mark.skipif(not llama_oracle.available(), reason="llama oracle not built: python tests/fixtures/llama_oracle.py")


def test_world_random_and_reference_inputs(tmp_path: Path) -> None:
    vocab = vocab_from_file(vocab_file("rwkv-world-vocab").path)
    enc = RwkvEncoder(vocab)
    inputs = llama_oracle.random_inputs(3, 600, alphabet="the quick brown fox\n\t\\x")
    inputs += [r["text"].encode("utf-8", "surrogatepass") for r in conformance_rows("rwkv-world-vocab")]
    expected = llama_oracle.run("rwkv", llama_oracle.write_vocab_file(vocab, tmp_path / "v"), inputs)
    bad = [(d, e) for d, e in zip(inputs, expected, strict=True) if [p[0] for p in enc.encode_fragment(d, after_special=False)] != e]
    assert bad == []


def test_odd_escapes_and_missing_bytes(tmp_path: Path) -> None:
    # every single byte except 'z' is a token (so llama.cpp never loops), plus escapes it parses oddly
    tokens = [f"\\x{b:02x}" for b in range(256) if b != ord("z")]
    tokens += [r"\xAB", r"\xg0", "\\x\u00e90", "ab\\", r"q\x4", r"\'\"", "é", "\\\\n"]
    vocab = vocab_from_plain({"tokenizer.ggml.model": "rwkv", "tokenizer.ggml.tokens": tokens})
    enc = RwkvEncoder(vocab)
    inputs = llama_oracle.random_inputs(5, 300, alphabet="abqz\"'\\ng0é")
    expected = llama_oracle.run("rwkv", llama_oracle.write_vocab_file(vocab, tmp_path / "v"), inputs)
    bad = [(d, e) for d, e in zip(inputs, expected, strict=True) if [p[0] for p in enc.encode_fragment(d, after_special=False)] != e]
    assert bad == []
