"""PLaMo2 against llama.cpp's own code (tests/fixtures/llama_oracle.py; skipped unless built)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fixtures import llama_oracle
from fixtures.plamo2_vocab import CASES, plamo2_metadata
from fixtures.simple_vocab import vocab_from_plain
from tui_tok.errors import VocabError
from tui_tok.tokenizer.plamo2.encoder import Plamo2Encoder
from tui_tok.tokenizer.plamo2.reference import ReferenceEncoder

pytestmark = pytest.mark.skipif(
    not llama_oracle.available(), reason="llama oracle not built: python tests/fixtures/llama_oracle.py"
)


def _compare(meta: dict, inputs: list[bytes], tmp_path: Path) -> list:
    vocab = vocab_from_plain(meta)
    enc = Plamo2Encoder(vocab)
    ref = ReferenceEncoder(vocab)
    expected = llama_oracle.run("plamo2", llama_oracle.write_vocab_file(vocab, tmp_path / "v"), inputs)
    return [(d, e) for d, e in zip(inputs, expected, strict=True)
            if [p[0] for p in enc.encode_fragment(d, after_special=True)] != e
            or [p[0] for p in ref.encode_fragment(d, after_special=True)] != e]  # fmt: skip


def test_fixture_cases(tmp_path: Path) -> None:
    assert _compare(plamo2_metadata(), [c[0] for c in CASES], tmp_path) == []


def test_fixture_random_inputs(tmp_path: Path) -> None:
    inputs = llama_oracle.random_inputs(9, 800, alphabet="abcxypqzwhk日本語[PAD1]3<|plamo:op|>▁\ufeffé")
    inputs += llama_oracle.random_inputs(10, 100, alphabet="abcxypqzwhk日本語[PAD1]3<|plamo:op|>▁\ufeffé", max_len=300)
    assert _compare(plamo2_metadata(), inputs, tmp_path) == []


def test_random_scores(tmp_path: Path) -> None:
    """Many overlapping tokens with random (often tied, half-way) scores."""
    rng = np.random.default_rng(4)
    meta = plamo2_metadata()
    toks = meta["tokenizer.ggml.tokens"]
    base = len(toks)
    letters = "abcdé日"
    extra = sorted({"".join(rng.choice(list(letters), size=int(rng.integers(2, 5)))) for _ in range(60)} - set(toks))
    toks += extra
    halves = rng.integers(-64, 4, size=len(extra)) / 32  # k/32: exact half-way points after * 1e4
    meta["tokenizer.ggml.scores"] = np.concatenate([meta["tokenizer.ggml.scores"], halves.astype(np.float32)])
    meta["tokenizer.ggml.token_type"] = np.concatenate(
        [meta["tokenizer.ggml.token_type"], np.ones(len(extra), np.int32)]
    )
    assert len(toks) > base
    inputs = llama_oracle.random_inputs(13, 600, alphabet=letters * 4 + "xyz", invalid=True)
    inputs += llama_oracle.random_inputs(14, 100, alphabet=letters * 4 + "xyz", invalid=True, max_len=300)
    assert _compare(meta, inputs, tmp_path) == []


def test_missing_byte_token_is_load_error_in_both(tmp_path: Path) -> None:
    meta = plamo2_metadata()
    meta["tokenizer.ggml.token_type"] = meta["tokenizer.ggml.token_type"].copy()
    meta["tokenizer.ggml.token_type"][5 + 0x10] = 1
    vocab = vocab_from_plain(meta)
    (res,) = llama_oracle.run("plamo2", llama_oracle.write_vocab_file(vocab, tmp_path / "v"), [b"a"])
    assert isinstance(res, str) and res.startswith("LOADERR")
    with pytest.raises(VocabError):
        Plamo2Encoder(vocab)


def test_invalid_utf8_token_texts(tmp_path: Path) -> None:
    """Tokens whose bytes are not valid UTF-8 never match (llama.cpp keys re-encoded text)."""
    meta = plamo2_metadata()
    weird = ["a\udc80", "\udcff", "b\udce2\udc82", "\ufffd", "c\ufffd"]  # surrogateescape'd raw bytes
    meta["tokenizer.ggml.tokens"] = meta["tokenizer.ggml.tokens"] + weird
    meta["tokenizer.ggml.scores"] = np.concatenate([meta["tokenizer.ggml.scores"], np.zeros(len(weird), np.float32)])
    meta["tokenizer.ggml.token_type"] = np.concatenate(
        [meta["tokenizer.ggml.token_type"], np.ones(len(weird), np.int32)]
    )
    inputs = [b"a\x80", b"\xff", b"b\xe2\x82", "\ufffd".encode(), "c\ufffd".encode(), b"c\x80", b"a\xef\xbf\xbd"]
    inputs += llama_oracle.random_inputs(17, 200, alphabet="abc\ufffd", invalid=True)
    assert _compare(meta, inputs, tmp_path) == []
