""" "Why not?" on a BPE, an SPM, a UGM, a WPM and an RWKV file (bundled assets)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from support import ASSETS
from tui_tok.explore.explain_text import merge_rows
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.explain import explain, why_not
from tui_tok.tokenizer.explain.ugm import UgmDetail


@pytest.fixture(scope="module")
def toks():  # type: ignore[no-untyped-def]
    names = {"bpe": "ggml-vocab-gpt-2.gguf", "spm": "ggml-vocab-phi-3.gguf", "ugm": "t5-botchan-en-unigram-1000.gguf",
             "wpm": "ggml-vocab-bert-bge.gguf", "rwkv": "rwkv-world-vocab.gguf", "qwen3": "qwen3-vocab.gguf"}  # fmt: skip
    return {k: load_tokenizer(ASSETS / v) for k, v in names.items()}


def _first(tok, text):  # type: ignore[no-untyped-def]
    e = explain(tok, text)
    return e, e.fragments[0].chunks[0]


def test_bpe_names_the_rank_that_won(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["bpe"]
    e, chunk = _first(tok, "Hello")
    w = why_not(tok, e, chunk, split="Hel|lo")
    first = chunk.steps[0]
    assert (first.left, first.right) == ("l", "l")  # the cut at 3 falls inside the first merge
    assert any(f"rank {first.rank}" in r and "'l' + 'l'" in r for r in w.reasons), w
    assert "rank" in w.verdict
    assert why_not(tok, e, chunk, split="Hello").verdict == "the engine made this split"


def test_spm_names_the_score(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["spm"]
    e, chunk = _first(tok, "Hello")
    w = why_not(tok, e, chunk, split="▁Hel|lo")
    step = next(s for s in chunk.steps if (s.left, s.right) == ("el", "lo"))
    assert any(f"score {step.score:g}" in r for r in w.reasons), w


def test_ugm_gives_the_score_difference(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["ugm"]
    e, chunk = _first(tok, "Hello")
    best_pieces = [s.token for s in chunk.steps if s.kind == "piece"]
    assert why_not(tok, e, chunk, split="|".join(best_pieces)).verdict.startswith("this split is on a best path")
    second = next(s for s in chunk.steps if s.kind == "path" and s.rank == 2)
    w = why_not(tok, e, chunk, split="|".join(second.tokens))
    best = next(s.total for s in chunk.steps if s.kind == "path" and s.rank == 1)
    assert f"{best - second.total:.4f} lower" in w.verdict, (w, best, second.total)


def test_greedy_families_name_the_longer_match(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["rwkv"]
    e, chunk = _first(tok, "Hello world")
    assert "longer token 'Hello'" in why_not(tok, e, chunk, split="Hel|lo").verdict
    tok = toks["wpm"]
    e, chunk = _first(tok, "unaffable")
    first = next(s for s in chunk.steps if s.kind == "match")
    w = why_not(tok, e, chunk, split="▁un|aff")
    assert first.token != "▁un" and repr(first.token) in w.verdict


def test_token_that_cannot_come_from_the_text(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["bpe"]
    e, chunk = _first(tok, "Hello")
    assert "cannot come from" in why_not(tok, e, chunk, token="world").verdict
    assert "not a token" in why_not(tok, e, chunk, token="qzqzqzqz").verdict


def test_a_piece_built_then_absorbed_says_so(toks) -> None:  # type: ignore[no-untyped-def]
    """qwen3 builds 'ation' (step 7, 'at' + 'ion') and then merges it into 'ization' (step 9):
    "Why not?" must tell that story, not claim the merge that built it never ran."""
    tok = toks["qwen3"]
    e, chunk = _first(tok, " tokenization")
    built, absorbed = chunk.steps[6], chunk.steps[8]
    assert (built.left, built.right, absorbed.left, absorbed.right) == ("at", "ion", "iz", "ation")
    for w in (why_not(tok, e, chunk, token="ation"), why_not(tok, e, chunk, split="Ġtokeniz|ation")):
        assert any("'ation' was built at step 7 ('at' + 'ion', rank 111), then absorbed into 'ization' by step 9 ('iz' + 'ation', rank 1766)" in r
                   for r in w.reasons), w  # fmt: skip
        assert not any("would need" in r for r in w.reasons), w


def test_an_empty_piece_is_one_message(toks) -> None:  # type: ignore[no-untyped-def]
    tok = toks["qwen3"]
    e, chunk = _first(tok, " tokenization")
    for split in ("|", "Ġtoken|", "Ġtoken||ization"):
        w = why_not(tok, e, chunk, split=split)
        assert "empty piece" in w.verdict and w.reasons == (), w


@pytest.mark.parametrize("family", ["bpe", "qwen3", "spm"])
def test_every_story_matches_the_merge_trace(toks, family: str) -> None:  # type: ignore[no-untyped-def]
    """For every token inside each chunk that is no final symbol, the answer agrees with the
    trace the view shows: built by the step that made it there, never built if no step did."""
    tok = toks[family]
    e = explain(tok, "Hello tokenization, unbelievable internationalization")
    checked = 0
    for chunk in (c for f in e.fragments for c in f.chunks):
        made = {}  # (start, end) -> step number that made that symbol
        for n, row in enumerate(merge_rows(chunk)[:-1], 1):
            start = sum(len(s) for s in row.symbols[: row.at])
            made[(start, start + len(row.symbols[row.at]) + len(row.symbols[row.at + 1]))] = n
        finals = {
            (sum(len(s) for s in chunk.final[:k]), sum(len(s) for s in chunk.final[: k + 1]))
            for k in range(len(chunk.final))
        }
        for a in range(len(chunk.text)):
            for b in range(a + 2, len(chunk.text) + 1):
                piece = chunk.text[a:b]
                if piece not in tok.vocab.token_to_id or (a, b) in finals or chunk.text.find(piece) != a:
                    continue
                story = next(r for r in why_not(tok, e, chunk, split=piece).reasons if r.startswith(repr(piece)))
                if (a, b) in made:
                    assert story.startswith(f"{piece!r} was built at step {made[(a, b)]} ("), (piece, story)
                else:
                    assert f"{piece!r} was never built" in story, (piece, story)
                checked += 1
    assert checked > 10


def test_the_engines_own_split_is_confirmed_in_every_family(toks) -> None:  # type: ignore[no-untyped-def]
    ok = {"bpe": "the engine made this split", "qwen3": "the engine made this split", "spm": "the engine made this split",
          "ugm": "this split is on a best path", "wpm": "the greedy matches agree", "rwkv": "the greedy matches agree"}  # fmt: skip
    for family, want in ok.items():
        tok = toks[family]
        e = explain(tok, "Hello tokenization world")
        for chunk in (c for f in e.fragments for c in f.chunks if c.ids):
            if chunk.final:
                pieces = list(chunk.final)
            else:
                pieces = [s.token for s in chunk.steps if s.kind in ("piece", "match")]
            w = why_not(tok, e, chunk, split="|".join(pieces))
            assert w.verdict.startswith(want), (family, pieces, w)
    tok = toks["wpm"]  # a word no token starts inside is [UNK] whole (llama.cpp's WPM gives up on it)
    e, chunk = _first(tok, "ab\U0001d518\U0001d52b")
    assert chunk.ids == (tok.vocab.unk_id,)
    w = why_not(tok, e, chunk, split="▁ab|\U0001d518")
    assert "[UNK]" in w.verdict and "byte 5" in w.verdict, w


_WORDS = st.sampled_from(["Hello", " world", " tokenization", "  ", "\n", "'s", "123", "é", "naïve", "日本語", "unaffable",
                          " internationalization", "ab", "x"])  # fmt: skip


@pytest.mark.parametrize("family", ["bpe", "qwen3", "spm", "ugm", "wpm", "rwkv"])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.lists(_WORDS, min_size=1, max_size=6).map("".join))
def test_random_text_engine_split_is_confirmed(toks, family: str, text: str) -> None:  # type: ignore[no-untyped-def]
    """On random text, "Why not?" on the engine's own split of each chunk says the engine made it,
    and (merging families) every story about a token inside a chunk matches the trace."""
    tok = toks[family]
    e = explain(tok, text)
    for chunk in (c for f in e.fragments for c in f.chunks if c.ids):
        if chunk.shortcut or any(s.kind == "unknown" for s in chunk.steps):
            continue
        pieces = _engine_pieces(e, chunk)
        if "".join(pieces) != chunk.text:  # RWKV can cut inside a character: no split of the text says that
            continue
        verdict = why_not(tok, e, chunk, split="|".join(_escaped(p) for p in pieces)).verdict
        assert verdict.startswith(("the engine made this split", "this split is on a best path", "the greedy matches agree")), (
            pieces, verdict)  # fmt: skip
        if family in ("bpe", "qwen3", "spm"):
            _check_stories(tok, e, chunk)


def _escaped(piece: str) -> str:
    return piece.replace("\\", "\\\\").replace("|", "\\|")


def _engine_pieces(e, chunk) -> list[str]:  # type: ignore[no-untyped-def]
    """The engine's split of a chunk in the chunk's spelling: final symbols (BPE, SPM), the best
    path's spans of the normalised text (UGM, whose unknown pieces have no token text), the
    matched tokens (WPM), the input each match covers (RWKV stores its tokens escaped)."""
    if chunk.final:
        return list(chunk.final)
    if isinstance(chunk.detail, UgmDetail):
        return [chunk.detail.normalized[a:b] for _, a, b in chunk.detail.paths[0][1]]
    matches = [s for s in chunk.steps if s.kind == "match"]
    if e.family == "rwkv":
        return [e.text[s.start : s.end].decode("utf-8", "replace") for s in matches]
    return [s.token for s in matches]


def _check_stories(tok, e, chunk) -> None:  # type: ignore[no-untyped-def]
    made = {}
    for n, row in enumerate(merge_rows(chunk)[:-1], 1):
        start = sum(len(s) for s in row.symbols[: row.at])
        made[(start, start + len(row.symbols[row.at]) + len(row.symbols[row.at + 1]))] = n
    finals = {
        (sum(len(s) for s in chunk.final[:k]), sum(len(s) for s in chunk.final[: k + 1]))
        for k in range(len(chunk.final))
    }
    for a in range(len(chunk.text)):
        for b in range(a + 2, min(len(chunk.text), a + 12) + 1):
            piece = chunk.text[a:b]
            if piece not in tok.vocab.token_to_id or (a, b) in finals or chunk.text.find(piece) != a:
                continue
            story = next(r for r in why_not(tok, e, chunk, split=piece).reasons if r.startswith(repr(piece)))
            assert story.startswith(f"{piece!r} was built at step {made[(a, b)]} (") if (a, b) in made else (
                f"{piece!r} was never built" in story or f"{piece!r} was an initial symbol" in story), (piece, story)  # fmt: skip


def test_bars_inside_pieces_and_tokens(toks) -> None:  # type: ignore[no-untyped-def]
    """A token whose text holds a bar is asked about whole; ``\\|`` is a bar inside a piece."""
    tok = toks["qwen3"]
    e = explain(tok, "a||b <|im_start|>")
    chunks = [c for f in e.fragments for c in f.chunks]
    bars = next(c for c in chunks if "||" in c.text)
    w = why_not(tok, e, bars, split="||")
    assert "empty piece" not in w.verdict and "is in this chunk's tokens already" in w.verdict, w
    opener = next(c for c in chunks if c.text.endswith("<|"))  # parse special off: <|im_start|> is text in 4 chunks
    asked = why_not(tok, e, opener, token="<|im_start|>")
    assert asked.verdict == "'<|im_start|>' cannot come from this chunk: its text does not occur in it", asked
    w = why_not(tok, e, bars, split="|".join(_escaped(p) for p in bars.final))
    assert w.verdict == "the engine made this split", (bars.final, w)
