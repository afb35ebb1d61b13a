"""The encoder contract (``core/encoder.py``) and the tables that map a file to its encoder.

Every family's encoder is an ``Encoder``; each method it overrides (ids only, many fragments at
once, columns, pieces) gives what the base class's default, built on ``encode_fragment``, gives.
``Tokenizer.fragments`` is the one fragment loop. One table maps ``tokenizer.ggml.model`` to a
family, one lists the pre-tokenizers: the engine and lint read the same ones.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from support import ASSETS
from tui_tok.explore.lint import tables as lint_tables
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.encoder import Encoder
from tui_tok.tokenizer.core.paths import MODES
from tui_tok.tokenizer.core.types import VocabType
from tui_tok.tokenizer.core.vocab import MODEL_TYPES
from tui_tok.tokenizer.pretokenize import table as pretokenizers
from tui_tok.tokenizer.special.partition import RAW
from tui_tok.tokenizer.tokenizer import ENCODERS, Tokenizer, _encoder_class

SOURCE = Path(__file__).resolve().parents[2] / "tui_tok"
FRAGMENTS = [
    (b"Hello world, this is a test.", True),
    (b"  leading spaces and\ttabs\n\nnewlines ", False),
    (b"Hello world, this is a test.", False),
    ("naïve café 日本語 🦙 \u2581x".encode(), True),
    (b"", False),
    (("word%d " % 7).encode() * 60 + b"tail", False),  # enough new words for the batches in "eager"
]
OPTIONAL = ("encode_fragment_ids", "encode_fragments", "encode_fragments_ids", "encode_fragments_arrays")


@pytest.fixture(scope="module")
def plamo2_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from fixtures.plamo2_vocab import write_plamo2_gguf

    return write_plamo2_gguf(tmp_path_factory.mktemp("plamo2") / "plamo2.gguf")  # type: ignore[no-any-return]


def _paths(plamo2_path: Path) -> list[Path]:
    return [*sorted(ASSETS.glob("*.gguf")), plamo2_path]


def test_every_family_encoder_is_an_encoder() -> None:
    for family in ENCODERS:
        assert issubclass(_encoder_class_of(family), Encoder), family


def _encoder_class_of(family: VocabType) -> type:
    class V:  # the one field _encoder_class reads
        type = family
        model = family.value

    return _encoder_class(V)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", MODES)
def test_overrides_equal_the_defaults(plamo2_path: Path, mode: str) -> None:
    """Each optional method an encoder overrides == the base class's default built on its own
    ``encode_fragment`` (on every asset vocab and PLaMo2, in every paths mode)."""
    for path in _paths(plamo2_path):
        enc = Tokenizer(load_tokenizer(path).vocab, paths=mode).encoder
        frags = FRAGMENTS
        pieces = Encoder.encode_fragments(enc, frags)
        assert enc.encode_fragments(frags) == pieces, path.name
        assert enc.encode_fragments_ids(frags) == [[p[0] for p in f] for f in pieces], path.name
        for (text, after), want in zip(frags, pieces):
            assert enc.encode_fragment_ids(text, after_special=after) == [p[0] for p in want], path.name
        for got, want in zip(enc.encode_fragments_arrays(frags), pieces):
            assert [c.tolist() for c in got] == [list(c) for c in zip(*want)] or not want and not got[0].size
        data = frags[-1][0] * 20
        cut = list(enc.fragment_arrays_pieces(data, piece_chars=300))
        whole = Encoder.encode_fragments_arrays(enc, [(data, True)])[0]
        assert [np.concatenate([c[k] for c in cut]).tolist() for k in range(3)] == [c.tolist() for c in whole]


def test_a_minimal_encoder_serves_every_call() -> None:
    """An encoder with ``encode_fragment`` only (TEST's) serves encode, tokenize and the arrays."""
    from tui_tok.tokenizer.test.reference import ReferenceEncoder

    assert all(getattr(ReferenceEncoder, m) is getattr(Encoder, m) for m in OPTIONAL)
    tok = Tokenizer.from_metadata(
        {"tokenizer.ggml.model": "test", "tokenizer.ggml.tokens": [f"t{i}" for i in range(97)]}
    )
    text = "abcdefghijkl" * 30
    ids = tok.encode(text)
    assert ids == [t.id for t in tok.tokenize(text)] == tok.tokenize_arrays(text)[0].tolist()
    assert np.concatenate([p[0] for p in tok.tokenize_arrays_pieces(text, piece_chars=10)]).tolist() == ids


def test_tokenizer_probes_no_optional_method() -> None:
    """Tokenizer calls the encoder's methods directly: no ``getattr`` on an encoder."""
    src = (SOURCE / "tokenizer" / "tokenizer.py").read_text(encoding="utf-8")
    assert not re.search(r"getattr\((self\.)?(_)?encoder|getattr\(enc\b", src)


def test_fragments_is_the_fragment_loop() -> None:
    """Added tokens, special tokens and raw fragments in order, each raw one with whether it
    starts the text or follows a special token; WPM adds [CLS] ... [SEP]."""
    tok = load_tokenizer(ASSETS / "ggml-vocab-bert-bge.gguf")
    v = tok.vocab
    sep = v.token_to_id["[SEP]"]
    data = b"hi [SEP] there[SEP]x"
    assert tok.fragments(data, add_special=True, parse_special=True) == [
        (0, 0, v.bos_id, False),
        (0, 3, RAW, True),
        (3, 8, sep, False),
        (8, 14, RAW, True),
        (14, 19, sep, False),
        (19, 20, RAW, True),
        (20, 20, v.sep_id, False),
    ]
    assert tok.fragments(data, add_special=False, parse_special=False) == [(0, len(data), RAW, True)]
    spm = load_tokenizer(ASSETS / "ggml-vocab-phi-3.gguf")
    parts = spm.fragments(b"a<s>b</s>", add_special=True, parse_special=True)
    flags = [(token == RAW, after) for _, _, token, after in parts]
    assert flags == [(False, False), (True, True), (False, False), (True, True), (False, False)]
    assert spm.fragments(b"", add_special=False) == []


def test_one_table_for_model_and_pre_tokenizer() -> None:
    """Lint accepts exactly what the engine loads: the same model -> family table and the same
    pre-tokenizer list, and every family but NONE has an encoder."""
    assert lint_tables.KNOWN_MODELS == frozenset(MODEL_TYPES)
    assert lint_tables.BPE_MODELS == frozenset(m for m, f in MODEL_TYPES.items() if f is VocabType.BPE)
    assert lint_tables.KNOWN_PRES == frozenset(pretokenizers.SUPPORTED)
    assert set(ENCODERS) == set(MODEL_TYPES.values()) - {VocabType.NONE}
    copies = [
        p for p in SOURCE.rglob("*.py") if re.search(r'"hybriddna"\s*:\s*VocabType', p.read_text(encoding="utf-8"))
    ]
    assert [p.relative_to(SOURCE).as_posix() for p in copies] == ["tokenizer/core/vocab.py"]
