"""BpeEncoder against llama.cpp's own BPE session code, compiled standalone, on random input.

Like ``tests/fixtures/llama_oracle.py`` (WPM/RWKV/PLaMo2), the source is copied *verbatim* out
of ``llama-vocab.cpp`` (``llm_symbol`` .. ``llm_tokenizer_bpe_session``, and the hybriddna /
whitespace sessions) with the ``llama_vocab_pre_type`` enum from ``llama-vocab.h``, behind a
small ``llama_vocab`` shim, and compiled with ``unicode.cpp``: ``tests/fixtures/llama_bpe_oracle.py``,
shared with ``benchmarks/llama_peer.py``. Building takes a minute or two,
so it only runs when asked: ``TUI_TOK_ORACLE=1`` (needs g++ and the llama.cpp sources);
``TUI_TOK_ORACLE_N`` / ``TUI_TOK_ORACLE_SEED`` set how many random inputs and which.

What it leaves out: the special-token partition and BOS/EOS (``tokenizer.py``); the encoder and
``bpe/reference.py`` (checked too) are fed whole fragments, as ``encode_fragment`` is. The vocab (tokens, merges, flags) is the one
our loader built, so the comparison is of the encoding algorithm alone.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from fixtures.llama_bpe_oracle import LLAMA_SRC, compile_source, oracle_source, run_fragments, write_vocab_file
from support import VocabFile, vocab_files
from tui_tok.tokenizer.bpe.encoder import BpeEncoder
from tui_tok.tokenizer.bpe.reference import ReferenceEncoder
from tui_tok.tokenizer.core.types import VocabType


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.environ.get("TUI_TOK_ORACLE") != "1":
        pytest.skip("set TUI_TOK_ORACLE=1 to compile llama.cpp's BPE session")
    if shutil.which("g++") is None or not (LLAMA_SRC / "src" / "llama-vocab.cpp").is_file():
        pytest.skip(f"needs g++ and llama.cpp sources at {LLAMA_SRC}")
    out = tmp_path_factory.mktemp("bpe-oracle") / "bpe-oracle"
    return compile_source(oracle_source(), out, opt=("-O1",))


def _run(exe: Path, enc: BpeEncoder, inputs: list[bytes], tmp: Path) -> list[list[int] | str]:
    vocab_file = write_vocab_file(enc.vocab, tmp / "vocab.txt", pre_type=enc.spec.pre_type)
    return run_fragments(exe, vocab_file, inputs)


_BAD = [b"\x80", b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\xf0\x9f", b"\xe2\x96\x81"]
_ALPHABET = "aZ's \t\n\r\xa0\u3000\u0301\u00e9\u4e2d\u0e17\u0939\U0001f999\u200d1234\u00bd!?-\u2581\u0378\U000e0001"


def _inputs(seed: int, n: int) -> list[bytes]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 30)):
            parts.append(rng.choice(_BAD) if rng.random() < 0.1 else rng.choice(_ALPHABET).encode())
        out.append(b"".join(parts))
    return out


VOCABS = list(vocab_files())


@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
def test_bpe_session_matches_llama_cpp(oracle: Path, vf: VocabFile, tmp_path: Path) -> None:
    from tui_tok.loader import load_tokenizer

    vocab = load_tokenizer(vf.path).vocab
    if vocab.type is not VocabType.BPE:
        pytest.skip(f"{vf.name} is {vocab.type.value}, not BPE")
    name = vf.name
    enc = BpeEncoder(vocab)
    seed = sum(map(ord, name)) + int(os.environ.get("TUI_TOK_ORACLE_SEED", "0"))
    inputs = _inputs(seed, int(os.environ.get("TUI_TOK_ORACLE_N", "300")))
    assert len(inputs) == int(os.environ.get("TUI_TOK_ORACLE_N", "300"))
    # llama.cpp escapes ' ' in the fragment bytes before the session sees them (V:3506)
    fed = [d.replace(b" ", "\u2581".encode()) for d in inputs] if enc.vocab.escape_whitespaces else inputs
    want = _run(oracle, enc, fed, tmp_path)
    ref = ReferenceEncoder(vocab)
    for data, expected in zip(inputs, want):
        if isinstance(expected, str):
            with pytest.raises(Exception):  # noqa: B017 - TokenizeError for code points > U+10FFFF
                enc.encode_fragment(data, after_special=True)
            continue
        assert [t for t, _, _ in enc.encode_fragment(data, after_special=True)] == expected, data
        assert [t for t, _, _ in ref.encode_fragment(data, after_special=True)] == expected, data


def _toy_vocab(model: str, pre: str):
    import numpy as np

    from tui_tok.tokenizer.core.types import TokenAttr, VocabType
    from tui_tok.tokenizer.core.vocab import Vocab

    chars = sorted(set("abcdeACGT\u0130i\u00e9") | {"<dna>", "</dna>", "<oov>"})
    tokens = chars + ["ab", "abc", "cd", "ACGTAC\ue000", "AAAAAA\ue000", "CCCCCC\ue000", "\u00e9a"]
    n = len(tokens)
    return Vocab(
        model=model,
        type=VocabType.BPE,
        pre=pre,
        tokens=tokens,
        scores=np.zeros(n, dtype=np.float32),
        types=np.ones(n, dtype=np.int32),
        attrs=np.full(n, int(TokenAttr.NORMAL), dtype=np.int32),
        token_to_id={t: i for i, t in enumerate(tokens)},
        merges=["a b", "ab c", "c d", "\u00e9 a", "b c"],
        escape_whitespaces=False,
        lowercase=True,
    )


@pytest.mark.parametrize(("model", "pre"), [("whitespace", "whitespace"), ("hybriddna", "gpt-2")])
def test_special_models_match_llama_cpp(oracle: Path, model: str, pre: str, tmp_path: Path) -> None:
    enc = BpeEncoder(_toy_vocab(model, pre))
    rng = random.Random(7)
    pieces = [
        "a",
        "b",
        "c",
        "d",
        "ab",
        " ",
        "\u00a0",
        "\u0130",
        "\u00e9",
        "<dna>",
        "</dna>",
        "acgtac",
        "CCCCCC",
        "aaa",
        "x",
        "\n",
    ]
    inputs = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))).encode() for _ in range(300)]
    want = _run(oracle, enc, inputs, tmp_path)
    ref = ReferenceEncoder(enc.vocab)
    for data, expected in zip(inputs, want):
        assert [t for t, _, _ in enc.encode_fragment(data, after_special=True)] == expected, data
        assert [t for t, _, _ in ref.encode_fragment(data, after_special=True)] == expected, data
