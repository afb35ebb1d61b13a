"""UGM's exact sums past the length bound (``tokenizer.cut_sums.UgmSums``): an edit of a text
longer than ``CutTable.max_bytes`` is spliced between proven cuts when the text's own tokens
prove that no Viterbi sum rounds, and gives the whole text's ids; a vocabulary the proof does
not cover falls back to the whole text.

Two vocabularies make the bound small so that texts past it stay short: t5 (bundled) with one
more token whose score has a last mantissa bit at 2**-35 (a real charsmap, unknown characters),
and ``SHARP``: ``p q`` beats ``pq`` by 2**-43 in exact sums, and a double rounds that away once
the sums pass 2**10, so splicing past the bound without the proof gives wrong ids (llama.cpp
does round there: llama-cpp-python 0.3.36 gives ``pq`` tokens on 2-6 KB texts of ``pq`` runs,
the ids of ``tokenize_arrays``)."""

from __future__ import annotations

import dataclasses
import random
from fractions import Fraction
from functools import cache

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from support import ASSETS
from tui_tok import read_gguf
from tui_tok.explore.cut_edit import plan_cut_edit, table_for
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer.core.vocab import vocab_from_metadata
from tui_tok.tokenizer.cuts import CutTable
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.tokenizer.ugm.reference import ReferenceEncoder
from tui_tok.tokenizer.ugm.tables import search_scores

T5 = ASSETS / "t5-botchan-en-unigram-1000.gguf"
PROSE = (
    "The explorer shows every token as you type (code too: {x: 1}). Mixed scripts: naïve café, Ж, 日本語, "
    "ligatures ﬁ ﬂ, ㈱ ½ ﷺ, emoji 🙂 and numbers 12345.\n"
)


def _ugm(tokens: list[str], scores: list[float], meta: dict | None = None) -> Tokenizer:
    types = [3, 3, 2] + [1] * (len(tokens) - 3)
    return Tokenizer(
        vocab_from_metadata({
            "tokenizer.ggml.model": "t5", "tokenizer.ggml.tokens": tokens, "tokenizer.ggml.scores": scores,
            "tokenizer.ggml.token_type": types, "tokenizer.ggml.add_space_prefix": True,
            "tokenizer.ggml.remove_extra_whitespaces": True, **(meta or {}),
        })
    )  # fmt: skip


SHARP_TOKENS = ["<pad>", "</s>", "<unk>", "▁", "a", "b", "ab", "▁a", "p", "q", "pq", "ba"]
SHARP_SCORES = [0.0, 0.0, 0.0, -2.0, -8.0, -8.5, -9.25, -3.5, -(2**-20 - 2**-43), -1.0, -(1 + 2**-20), -12.0]
SHARP_ATOMS = ["a", "b", "ab", " ", "pq", "x", "qp", "p", "q", "\u3000"]


@cache
def _sharp() -> tuple[Tokenizer, CutTable]:
    tok = _ugm(SHARP_TOKENS, SHARP_SCORES)
    table = table_for(tok)
    assert table is not None and table.max_bytes is not None and table.max_bytes < 40 and table.sums is not None
    return tok, table


@cache
def _t5_shrunk(score: float = -(2.0**-35)) -> tuple[Tokenizer, CutTable]:
    """t5 with one more token (a text no test types) whose score shrinks the length bound."""
    meta = dict(read_gguf(T5).metadata)
    meta["tokenizer.ggml.tokens"] = [*meta["tokenizer.ggml.tokens"], "☃☃☃"]
    meta["tokenizer.ggml.scores"] = np.append(meta["tokenizer.ggml.scores"], np.float32(score))
    meta["tokenizer.ggml.token_type"] = np.append(meta["tokenizer.ggml.token_type"], 1)
    tok = Tokenizer(vocab_from_metadata(meta))
    table = table_for(tok)
    assert table is not None
    return tok, table


def _edits(seed: int, text: str, atoms: list[str], n: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(atoms) + text[at + rng.randrange(3) :]
        out.append(text)
    return out


def _spliced(tok: Tokenizer, table: CutTable, old: str, new: str) -> tuple[bool, bool]:
    """(spliced, equal to the whole encode)."""
    old_b, new_b = old.encode(), new.encode()
    old_tokens = tok.tokenize_arrays(old_b, add_special=False)
    splice = plan_cut_edit(tok, table, old_b, old_tokens, new_b, parse_special=False)
    if splice is None:
        return False, True
    want, got = tok.tokenize_arrays(new_b, add_special=False), splice.tokens(old_tokens)
    return True, all(np.array_equal(g, w) for g, w in zip(got, want))


def test_t5_edits_past_the_length_bound_are_spliced_and_exact() -> None:
    """Each edit is spliced exactly where t5 itself (the text well inside its own bound) splices it."""
    tok, table = _t5_shrunk()
    plain = table_for(load_tokenizer(T5))
    assert table.max_bytes is not None and table.max_bytes < 1100 and table.sums is not None and plain is not None
    old = PROSE * 12  # 2 KB, twice max_bytes
    spliced = 0
    for new in _edits(0, old, ["x", " ", "é", "ﬁ", "日", "{", "\n", "🙂"], 16):
        assert len(new.encode()) > table.max_bytes
        done, same = _spliced(tok, table, old, new)
        assert same and done == _spliced(tok, plain, old, new)[0], new
        spliced += done
        old = new
    assert spliced == 16  # a cut with an empty token on it moves to the next one (ﬁ, ﷺ)


def test_a_positive_score_falls_back_to_the_whole_text() -> None:
    """The proof needs every search score <= 0 (offers never grow): with a positive one, no
    splice past the bound; the same vocabulary with that score negative splices."""
    text = PROSE * 12
    new = text[:1000] + "x" + text[1000:]
    for score, spliced in ((2.0**-35, False), (-(2.0**-35), True)):
        tok, table = _t5_shrunk(score)
        assert table.max_bytes is not None and len(text.encode()) > table.max_bytes
        assert (table.sums is not None) is spliced
        assert _spliced(tok, table, text, new) == (spliced, True)


def test_sharp_vocab_needs_the_proof() -> None:
    """Not vacuous: in ``SHARP`` texts past the bound do round, so splices made without the
    proof (the weight cap lifted) give wrong ids; with it, some texts past ``max_bytes`` are
    spliced, all exactly."""
    tok, table = _sharp()
    assert table.sums is not None
    lifted = dataclasses.replace(table, sums=dataclasses.replace(table.sums, cap=2**62))
    rng = random.Random(5)
    wrong = spliced = 0
    for _ in range(60):
        text = "".join(rng.choice(SHARP_ATOMS) for _ in range(rng.choice((15, 30, 300))))
        new = _edits(rng.random(), text, SHARP_ATOMS, 1)[0]
        wrong += not _spliced(tok, lifted, text, new)[1]
        done, same = _spliced(tok, table, text, new)
        assert same
        spliced += done and len(text.encode()) > (table.max_bytes or 0)
    assert wrong > 0 and spliced > 5


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    runs=st.lists(st.tuples(st.integers(0, 800), st.lists(st.sampled_from(SHARP_ATOMS), max_size=8).map("".join)),
                  min_size=1, max_size=3),
    at=st.floats(0, 1), drop=st.integers(0, 4), insert=st.lists(st.sampled_from(SHARP_ATOMS), max_size=3).map("".join),
)  # fmt: skip
def test_edits_near_the_bound_are_the_whole_encoding(
    runs: list[tuple[int, str]], at: float, drop: int, insert: str
) -> None:
    """Texts of runs of ``pq`` (light: ~1 each, so weights from 0 to past 2**10 where the sums
    round) and other atoms; any edit spliced gives the whole text's ids."""
    tok, table = _sharp()
    text = "".join("pq" * n + other for n, other in runs)
    i = int(at * len(text))
    assert _spliced(tok, table, text, text[:i] + insert + text[i + drop :])[1]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    text=st.lists(st.sampled_from(["日本語", "ﷺ", "ﬁ", "㈱", " ", "  ", "the", "{", "}", "Ж", "a", "\n", "🙂", "x"]),
                  min_size=1, max_size=60).map("".join),
    sharp=st.booleans(),
)  # fmt: skip
def test_every_offer_of_the_search_is_within_the_weight(text: str, sharp: bool) -> None:
    """The proof itself, on llama.cpp's search as written (``ugm/reference.py``): the best total
    is at most the weight, and every sum offered at most the weight plus ``L*M`` (unknown runs,
    charsmap replacements that grow one character into 18 included)."""
    tok, table = _sharp() if sharp else _t5_shrunk()
    sums = table.sums
    assert sums is not None
    k = int(np.argmax(sums.weights))  # weights are |score| / 2**e
    scale = Fraction(int(sums.weights[k])) / -Fraction(float(search_scores(tok.vocab)[k]))
    offers: list[tuple[int, float, bool]] = []
    pieces = ReferenceEncoder(tok.vocab).encode_fragment(
        text.encode(),
        after_special=False,
        on_edge=lambda s, e, i, score, total, taken: offers.append((e, total, taken)),
    )
    if not pieces:
        return
    weight = sums.weight(tuple(np.array(c, dtype=np.int64) for c in zip(*pieces)))  # type: ignore[arg-type]
    if weight > sums.cap:
        return
    end = max(e for e, _, _ in offers)
    best = [total for e, total, taken in offers if e == end and taken][-1]
    assert -Fraction(best) * scale <= weight
    low = Fraction(best) * scale - (2**53 - 1 - sums.cap)  # T - L*M, in units of 2**e
    assert all(low <= Fraction(total) * scale <= 0 for _, total, _ in offers), "an offer below T - L*M"


def test_the_proof_needs_whole_steps_in_the_normalised_text() -> None:
    """Unknown runs are bounded per normaliser chunk, which needs each chunk's output in whole
    search steps: a charsmap replacement ending inside a character, or a user-defined text
    beyond ASCII (a prefix of it is copied), leaves the vocabulary without the proof."""
    from tui_tok.tokenizer.ugm.charsmap import build_charsmap

    def sums(charsmap: dict[bytes, bytes], user: str) -> object:
        meta = {"tokenizer.ggml.precompiled_charsmap": np.frombuffer(build_charsmap(charsmap), dtype=np.uint8)}
        meta["tokenizer.ggml.token_type"] = [3, 3, 2] + [1] * (len(SHARP_TOKENS) - 3) + [4]  # 4: user-defined
        tok = _ugm([*SHARP_TOKENS, user], [*SHARP_SCORES, 0.0], meta)
        table = table_for(tok)
        assert table is not None and table.max_bytes is not None
        return table.sums

    whole, cut = {"é".encode(): "e\u0301".encode()}, {"é".encode(): b"e\xcc"}
    assert sums(whole, "zz") is not None
    assert sums(cut, "zz") is None
    assert sums(whole, "zé") is None
