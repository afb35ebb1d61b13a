"""``Tokenizer.encode``, ``token_to_piece`` and ``detokenize`` against llama.cpp's own
``llama_vocab::impl`` functions, on random input full of each vocab's special tokens, for every
SPM and BPE vocab.

The conformance rows fix a few hundred texts; this oracle draws new ones: special and
user-defined token texts (whole, cut in half, glued to words, between spaces that lstrip/rstrip
may eat), whitespace runs, words of several scripts and a few invalid bytes, under all four
``add_special`` / ``parse_special`` combinations. llama.cpp's code (the special-token partition,
the SPM and BPE sessions, the space-prefix and BOS/EOS rules) is copied verbatim out of
``llama-vocab.cpp`` by ``tests/fixtures/llama_bpe_oracle.py`` (``full_source``) and compiled once
per run; the vocab it is given is the one our loader built (tokens, attributes after every
override, merges, special ids, add_bos/add_eos, clean_spaces), so this compares the algorithms.
Decoding is checked on random id sequences (specials, BOS/EOS at either end, byte tokens that
split characters, ids of the random texts) and on sampled pieces with ``special`` and ``lstrip``.

Runs only when asked, like the other oracles: ``TUI_TOK_ORACLE=1`` (g++ and the llama.cpp sources
at ``../vendor/llama.cpp``); ``TUI_TOK_ORACLE_N`` / ``TUI_TOK_ORACLE_SEED`` set how many texts per
vocab (default 400) and which.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from fixtures.llama_bpe_oracle import (
    LLAMA_SRC,
    compile_source,
    full_source,
    run_detokenize,
    run_pieces,
    run_texts,
    write_vocab_file,
)
from support import VocabFile, vocab_files
from tui_tok.errors import TokenizeError
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.types import TokenAttr, VocabType
from tui_tok.tokenizer.tokenizer import Tokenizer

VOCABS = list(vocab_files())
SPECIAL = int(TokenAttr.CONTROL | TokenAttr.USER_DEFINED | TokenAttr.UNKNOWN)
WORDS = ["hello", "Hello", " world", "'s", "123", "4567", "中文", "é", "🦙", "\u2581", "<", ">", "|", "<|", "a",
         "don't", "x=1;", "\u0939\u093f", "ٱ", "\u00a0", "\u3000", "\u200d"]  # fmt: skip
SPACES = [" ", "  ", "\n", "\t", " \n ", "\n\n", "   "]
BAD = [b"\xff", b"\x80", b"\xe2\x82", b"\xc3"]


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.environ.get("TUI_TOK_ORACLE") != "1":
        pytest.skip("set TUI_TOK_ORACLE=1 to compile llama.cpp's tokenize")
    if shutil.which("g++") is None or not (LLAMA_SRC / "src" / "llama-vocab.cpp").is_file():
        pytest.skip(f"needs g++ and llama.cpp sources at {LLAMA_SRC}")
    out = tmp_path_factory.mktemp("tokenize-oracle") / "tokenize-oracle"
    return compile_source(full_source(), out, opt=("-O1",))


def _texts(specials: list[str], seed: int, n: int) -> list[bytes]:
    """Random texts mixing special-token texts (some cut in half) with words, spaces and bad bytes."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts: list[bytes] = []
        for _ in range(rng.randint(0, 12)):
            r = rng.random()
            if r < 0.3 and specials:
                s = rng.choice(specials)
                parts.append(
                    (s[: max(1, len(s) // 2)] if rng.random() < 0.15 else s).encode("utf-8", "surrogateescape")
                )
            elif r < 0.55:
                parts.append(rng.choice(SPACES).encode())
            elif r < 0.97:
                parts.append(rng.choice(WORDS).encode())
            else:
                parts.append(rng.choice(BAD))
        out.append(b"".join(parts))
    return out


def _spm_or_bpe(vf: VocabFile) -> Tokenizer:
    tok = load_tokenizer(vf.path)
    if tok.vocab.type not in (VocabType.SPM, VocabType.BPE):
        pytest.skip(f"{vf.name} is {tok.vocab.type.value}: llama.cpp's SPM/BPE path only")
    return tok


def _n() -> int:
    return int(os.environ.get("TUI_TOK_ORACLE_N", "400"))


@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
def test_tokenize_matches_llama_cpp(oracle: Path, vf: VocabFile, tmp_path: Path) -> None:
    tok = _spm_or_bpe(vf)
    vocab = tok.vocab
    attrs = vocab.attrs.tolist()
    rng = random.Random(vf.name)
    specials = [vocab.tokens[i] for i in range(vocab.n_tokens) if attrs[i] & SPECIAL]
    specials = rng.sample(specials, min(len(specials), 60)) + [
        vocab.tokens[i] for i in (vocab.bos_id, vocab.eos_id) if i >= 0
    ]
    seed = sum(map(ord, vf.name)) + int(os.environ.get("TUI_TOK_ORACLE_SEED", "0"))
    rows = [(text, rng.random() < 0.5, rng.random() < 0.5) for text in _texts(specials, seed, _n())]
    want = run_texts(oracle, write_vocab_file(vocab, tmp_path / "vocab.txt"), vocab, rows)
    assert len(want) == len(rows)
    for (text, add, parse), expected in zip(rows, want):
        if isinstance(expected, str):
            with pytest.raises(TokenizeError):
                tok.encode(text, add_special=add, parse_special=parse)
            continue
        assert tok.encode(text, add_special=add, parse_special=parse) == expected, (text, add, parse)


def _id_sequences(tok: Tokenizer, seed: int, n: int) -> list[list[int]]:
    """Random id lists: specials, BOS/EOS at either end, byte tokens, ids of encoded random words."""
    vocab = tok.vocab
    rng = random.Random(seed)
    attrs = vocab.attrs.tolist()
    specials = [i for i in range(vocab.n_tokens) if attrs[i] & SPECIAL]
    byte_ids = [i for i in range(vocab.n_tokens) if attrs[i] & TokenAttr.BYTE]
    words = tok.encode(" ".join(WORDS + SPACES) + " ' s ?!., 're 'll 't", add_special=False)
    out = []
    for _ in range(n):
        ids = [
            rng.randrange(vocab.n_tokens) if rng.random() < 0.3 else rng.choice(words)
            for _ in range(rng.randint(0, 10))
        ]
        for pool in (specials, byte_ids):
            if pool and rng.random() < 0.5:
                ids.insert(rng.randint(0, len(ids)), rng.choice(pool))
        if vocab.bos_id >= 0 and rng.random() < 0.4:
            ids.insert(0, vocab.bos_id)
        if vocab.eos_id >= 0 and rng.random() < 0.4:
            ids.append(vocab.eos_id)
        out.append(ids)
    return out


@pytest.mark.parametrize("vf", VOCABS, ids=[v.name for v in VOCABS])
def test_pieces_and_detokenize_match_llama_cpp(oracle: Path, vf: VocabFile, tmp_path: Path) -> None:
    tok = _spm_or_bpe(vf)
    vocab = tok.vocab
    vocab_file = write_vocab_file(vocab, tmp_path / "vocab.txt")
    seed = sum(map(ord, vf.name)) + int(os.environ.get("TUI_TOK_ORACLE_SEED", "0"))
    rng = random.Random(seed)
    attrs = vocab.attrs.tolist()
    picked = [i for i in range(vocab.n_tokens) if attrs[i] & (SPECIAL | TokenAttr.BYTE)]
    picked += rng.sample(range(vocab.n_tokens), min(vocab.n_tokens, 5 * _n()))
    rows = [(tid, special, lstrip) for tid in picked for special in (False, True) for lstrip in (0, 1)]
    for (tid, special, lstrip), expected in zip(rows, run_pieces(oracle, vocab_file, vocab, rows), strict=True):
        assert tok.token_to_piece(tid, special=special, lstrip=lstrip) == expected, (tid, special, lstrip)
    seqs = [(ids, rng.random() < 0.5, rng.random() < 0.5) for ids in _id_sequences(tok, seed, _n())]
    for (ids, remove, unparse), expected in zip(seqs, run_detokenize(oracle, vocab_file, vocab, seqs), strict=True):
        got = tok.detokenize(ids, remove_special=remove, unparse_special=unparse)
        assert got == expected, (ids, remove, unparse)
