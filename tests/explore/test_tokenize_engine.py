"""The Tokenize view's engine (``explore.tokenize_engine``) without Textual: a request gives the
exact layout of its text, an edit of the last exact text is spliced and still exact, a long text
is tokenized in stoppable pieces that report progress and the count before the layout."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from support import ASSETS
from tui_tok.explore.layout import layout_arrays
from tui_tok.explore.tokenize_engine import PIECE_CHARS, TokenizeEngine, TokenizeRequest, details_rows
from tui_tok.loader import load_tokenizer
from tui_tok.samples import DEFAULT_SAMPLE
from tui_tok.tokenizer.core.types import VocabType

TEXT = "Hello, world. The quick brown fox (aged 7) jumps over the lazy dog!\n日本語 🙂 naïve <|im_start|>\n"


def _request(generation: int, text: str, *, provisional: bool = False) -> TokenizeRequest:
    return TokenizeRequest(
        generation, text, add_special=True, parse_special=True, show_pieces=False, provisional=provisional
    )


def test_engine_needs_no_textual() -> None:
    code = "import sys, tui_tok.explore.tokenize_engine; print(any(m.split('.')[0] == 'textual' for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    "name", [DEFAULT_SAMPLE, "ggml-vocab-phi-3.gguf", "ggml-vocab-bert-bge.gguf", "rwkv-world-vocab.gguf"]
)
def test_layout_is_the_tokenizers_and_an_edit_stays_exact(name: str) -> None:
    tok = load_tokenizer(ASSETS / name)
    engine = TokenizeEngine()
    text = TEXT * 50
    got = engine.layout(tok, _request(0, text))
    assert got is not None
    layout, provisional = got
    assert not provisional
    ids, starts, ends = tok.tokenize_arrays(text, add_special=True, parse_special=True)
    assert layout.ids.tolist() == ids.tolist() and layout.n_tokens == len(ids)
    edited = text[:1000] + "zq" + text[1000:]
    got = engine.layout(tok, _request(1, edited))
    assert got is not None and not got[1]
    assert engine.spliced == 1
    assert got[0].ids.tolist() == tok.encode(edited, add_special=True, parse_special=True)
    rows = dict(details_rows(got[0], 3, tok, None))
    assert rows and all(isinstance(v, str) for v in rows.values())


PLAIN = "Hello, world. The quick brown fox (aged 7) jumps over the lazy dog!\n日本語 🙂 naïve café\n\n"


@pytest.mark.parametrize(
    "name",
    [
        DEFAULT_SAMPLE,
        "ggml-vocab-phi-3.gguf",
        "ggml-vocab-bert-bge.gguf",
        "rwkv-world-vocab.gguf",
        "t5-botchan-en-unigram-1000.gguf",
    ],
)
def test_long_text_reports_count_then_progress_and_stops(name: str) -> None:
    """A long text is tokenized in pieces (BPE's own, or stretches between proven cuts for the
    other families): the exact count comes before the layout (in SPM, UGM and WPM before the spans), progress rises, the layout is the whole
    text's, and ``stop`` ends the work between pieces."""
    tok = load_tokenizer(ASSETS / name)
    text = PLAIN * (3 * PIECE_CHARS // len(PLAIN))
    events: list[object] = []
    got = TokenizeEngine().layout(
        tok, _request(0, text), progress=events.append, counted=lambda ids: events.append(ids.tolist())
    )
    assert got is not None
    ids, starts, ends = tok.tokenize_arrays(text, add_special=True, parse_special=True)
    counts = [e for e in events if isinstance(e, list)]
    assert counts == [ids.tolist()] == [got[0].ids.tolist()]
    if tok.vocab.type not in (VocabType.BPE, VocabType.RWKV):  # ids alone are much cheaper there: the count first
        assert events[0] == counts[0]
    else:  # spans cost what ids do: the count comes with them, after the progress
        assert events[-1] == counts[0] and isinstance(events[0], float)
    fresh = layout_arrays(text, ids=ids, starts=starts, ends=ends, kinds=got[0].kinds)
    assert np.array_equal(got[0].starts, fresh.starts) and np.array_equal(got[0].ends, fresh.ends)
    heard = [f for f in events if isinstance(f, float)]
    assert len(heard) >= 2 and heard == sorted(heard) and all(0 < f < 1 for f in heard)
    calls: list[int] = []
    stopped = TokenizeEngine().layout(tok, _request(0, text), stop=lambda: calls.append(1) or True)
    assert stopped is None and len(calls) == 1


@pytest.mark.parametrize("at_fraction", [0.0, 0.001, 0.3, 0.5, 0.7, 0.999, 1.0])
def test_characters_before_a_byte_counted_on_either_side(at_fraction: float, monkeypatch: pytest.MonkeyPatch) -> None:
    from tui_tok.explore import tokenize_engine

    monkeypatch.setattr(tokenize_engine, "CHAR_SLICE", 1000)  # several slices
    text = ("aé日🙂\n" * 3000)[:-1]
    data = text.encode()
    at = len(text[: int(len(text) * at_fraction)].encode())  # a character boundary
    assert tokenize_engine._chars_upto(data, len(text), at) == len(data[:at].decode())


@pytest.mark.parametrize("name", [DEFAULT_SAMPLE, "ggml-vocab-bert-bge.gguf", "rwkv-world-vocab.gguf"])
def test_spliced_byte_offsets_are_moved_in_their_own_buffers_and_stay_exact(name: str) -> None:
    # a key makes no new full-length offset columns (10 MB of text: 2 x 12 MB a key), and every
    # insertion, deletion and replacement leaves them those of a fresh tokenization
    import random

    tok = load_tokenizer(ASSETS / name)
    engine = TokenizeEngine()
    text = TEXT * 40
    assert engine.layout(tok, _request(0, text)) is not None
    rng = random.Random(7)
    buffers: set[int] = set()
    first = engine._exact.inner[1].base if engine._exact is not None else None
    for generation in range(1, 13):
        at = rng.randrange(len(text))
        cut = rng.choice([0, 0, 1, 5, 40])
        text = text[:at] + rng.choice(["", "x", "zq 7", "日本 ", "\n"]) + text[at + cut :]
        got = engine.layout(tok, _request(generation, text))
        assert got is not None and not got[1]
        ids, starts, ends = tok.tokenize_arrays(text, add_special=False, parse_special=True)
        exact = engine._exact
        assert exact is not None
        assert [c.tolist() for c in exact.inner] == [ids.tolist(), starts.tolist(), ends.tolist()]
        assert got[0].ids.tolist() == tok.encode(text, add_special=True, parse_special=True)
        assert exact.inner[1].base is not None
        buffers.add(id(exact.inner[1].base))
    assert engine.spliced == 12
    assert buffers == {id(first)}  # the whole text's own buffer, from the first key on
