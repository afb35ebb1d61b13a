"""The code-path switch (``Tokenizer(paths=...)``, ``core/paths.py``): every mode gives the same ids.

"auto" takes each fast path from its tuned size, "eager" from the smallest input, "reference" never
(the family's named reference). Equal ids in all three on long random texts is
what makes the fast paths safe; the long texts must really reach the big-input paths in "auto",
which the counters below check.
"""

from __future__ import annotations

import random
import sys
import types
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from long_text import LONG_TEXT, long_text

from support import ASSETS
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.batch.merge import SymbolMerger
from tui_tok.tokenizer.bpe.reference import ReferenceEncoder as BpeReference
from tui_tok.tokenizer.core.encoder import Encoder, Wrapped
from tui_tok.tokenizer.core.paths import AUTO, EAGER, ENV, MODES, NEVER, REFERENCE, Paths, paths_for
from tui_tok.tokenizer.core.vocab import vocab_from_metadata
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.tokenizer.ugm.textids import TextIds
from tui_tok.tokenizer.wpm.table import TokenTable

ASSET_VOCABS = sorted(ASSETS.glob("*.gguf"))
"""One vocab per family (PLaMo2 has no asset: built by ``fixtures/plamo2_vocab.py``)."""


@pytest.fixture(scope="module")
def plamo2_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from fixtures.plamo2_vocab import write_plamo2_gguf

    return write_plamo2_gguf(tmp_path_factory.mktemp("plamo2") / "plamo2.gguf")  # type: ignore[no-any-return]


def _all_modes(path: Path) -> dict[str, Tokenizer]:
    vocab = load_tokenizer(path).vocab
    return {mode: Tokenizer(vocab, paths=mode) for mode in MODES}


_TOKENIZERS: dict[Path, dict[str, Tokenizer]] = {}


def _modes(path: Path) -> dict[str, Tokenizer]:
    """The three tokenizers of a vocab, kept across examples (warm caches take other paths)."""
    if path not in _TOKENIZERS:
        _TOKENIZERS[path] = _all_modes(path)
    return _TOKENIZERS[path]


def _check_equal(path: Path, text: str, parse: bool) -> None:
    toks = _modes(path)
    want = toks["reference"].encode(text, parse_special=parse)
    want_tokens = toks["reference"].tokenize(text, parse_special=parse)
    for mode in ("auto", "eager"):
        assert toks[mode].encode(text, parse_special=parse) == want, (path.name, mode)
        assert toks[mode].tokenize(text, parse_special=parse) == want_tokens, (path.name, mode)
        ids, starts, ends = toks[mode].tokenize_arrays(text, parse_special=parse)
        assert ids.tolist() == want and starts.tolist() == [t.start for t in want_tokens], (path.name, mode)


@pytest.mark.parametrize("path", ASSET_VOCABS, ids=lambda p: p.name)
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(text=LONG_TEXT, parse=st.booleans())
def test_every_mode_gives_the_same_ids_on_long_texts(path: Path, text: str, parse: bool) -> None:
    _check_equal(path, text, parse)


@settings(
    max_examples=5,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(text=LONG_TEXT)
def test_every_mode_gives_the_same_ids_on_long_texts_plamo2(plamo2_path: Path, text: str) -> None:
    _check_equal(plamo2_path, text, False)


# --- the long texts reach the big-input paths ------------------------------------------------


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    """Counts of the calls that only big inputs make in "auto" mode."""
    seen: Counter[str] = Counter()

    def counting(owner: object, name: str) -> None:
        inner = getattr(owner, name)

        def wrapper(*args: object, **kwargs: object) -> object:
            seen[name] += 1
            return inner(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapper)

    counting(SymbolMerger, "merge_flat")  # BPE/SPM: many words merged together
    counting(SymbolMerger, "merge_rounds_array")  # BPE/SPM: a huge word in whole-array rounds
    counting(TextIds, "encode")  # UGM: the whole text at once (ids and spans)
    counting(TokenTable, "_longest")  # WPM: the walk's numpy rounds
    yield seen


@pytest.mark.parametrize(
    ("name", "paths_hit"),
    [
        ("qwen3-vocab.gguf", ("merge_flat", "merge_rounds_array")),
        ("ggml-vocab-phi-3.gguf", ("merge_flat", "merge_rounds_array")),
        ("t5-botchan-en-unigram-1000.gguf", ("encode",)),
        ("ggml-vocab-bert-bge.gguf", ("_longest",)),
    ],
)
def test_long_texts_reach_the_big_input_paths_in_auto(
    calls: Counter[str], name: str, paths_hit: tuple[str, ...]
) -> None:
    tok = Tokenizer(load_tokenizer(ASSETS / name).vocab, paths="auto")
    rng = random.Random(0)
    tok.tokenize(long_text(rng, 8000))
    tok.encode(long_text(rng, 20_000))  # UGM's whole-text path starts at 16 KB
    assert all(calls[p] for p in paths_hit), (name, dict(calls))


# --- the switch ------------------------------------------------------------------------------


def test_modes_set_every_threshold() -> None:
    """ "eager" moves every threshold to where its fast path starts at once, "reference" to where it
    never runs: no field is left at its "auto" value (a new threshold must be given all three)."""
    names = [f for f in Paths.__slots__ if f != "mode"]  # type: ignore[attr-defined]
    assert names
    for name in names:
        assert getattr(EAGER, name) != getattr(AUTO, name), name
        assert getattr(REFERENCE, name) != getattr(AUTO, name) or name.startswith("spm_fine_per"), name
        assert getattr(REFERENCE, name) in (NEVER, -1) or name.startswith("spm_fine_per"), name


def test_paths_switch_on_tokenizer_and_loader(monkeypatch: pytest.MonkeyPatch) -> None:
    path = ASSETS / "qwen3-vocab.gguf"
    assert load_tokenizer(path, paths="eager").paths is EAGER
    tok = Tokenizer.from_vocab(load_tokenizer(path).vocab, paths="reference")
    assert tok.paths is REFERENCE
    # BPE has a named reference (bpe/reference.py): "reference" runs it, wrapped as an Encoder
    assert isinstance(tok.encoder, Wrapped)
    assert isinstance(tok.encoder.inner, BpeReference)
    monkeypatch.setenv(ENV, "eager")
    assert Tokenizer(tok.vocab).paths is EAGER
    assert Tokenizer(tok.vocab, paths="auto").paths is AUTO  # an explicit mode wins
    monkeypatch.setenv(ENV, "fast")
    with pytest.raises(ValueError, match=r"reference, auto, eager.*TUI_TOK_PATHS"):
        Tokenizer(tok.vocab)
    with pytest.raises(ValueError, match="'quick'"):
        paths_for("quick")


def test_reference_mode_runs_the_familys_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A family's ``reference.py`` (here a stand-in that counts its calls) is what "reference"
    mode encodes with; "auto" never touches it."""
    met: list[bytes] = []
    auto = load_tokenizer(ASSETS / "ggml-vocab-bert-bge.gguf")

    class ReferenceEncoder:
        def __init__(self, vocab: object) -> None:
            self.inner = Tokenizer(auto.vocab, paths="auto").encoder

        def encode_fragment(self, text: bytes, *, after_special: bool) -> list[tuple[int, int, int]]:
            met.append(text)
            return self.inner.encode_fragment(text, after_special=after_special)

    module = types.ModuleType("tui_tok.tokenizer.wpm.reference")
    module.ReferenceEncoder = ReferenceEncoder  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    ref = Tokenizer(auto.vocab, paths="reference")
    assert isinstance(ref.encoder, Encoder)
    assert ref.encode("hello [SEP] world", parse_special=True) == auto.encode("hello [SEP] world", parse_special=True)
    assert met == [b"hello ", b" world"]
    Tokenizer(auto.vocab, paths="auto").encode("more")
    assert len(met) == 2


def test_reference_mode_without_a_reference_turns_every_fast_path_off() -> None:
    meta = {
        "tokenizer.ggml.model": "llama",
        "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "▁", "h", "i", "▁h", "▁hi"],
        "tokenizer.ggml.scores": [0, 0, 0, -1, -2, -3, -4, -5],
        "tokenizer.ggml.token_type": [2, 3, 3, 1, 1, 1, 1, 1],
    }
    vocab = vocab_from_metadata(meta)
    tok = Tokenizer(vocab, paths="reference")
    if isinstance(tok.encoder, Wrapped):
        pytest.skip("SPM has a reference.py: the paths are not used")
    assert tok.encoder.paths is REFERENCE  # type: ignore[attr-defined]
    assert tok.encode("hi hi") == Tokenizer(vocab, paths="eager").encode("hi hi") == [1, 7, 7]
