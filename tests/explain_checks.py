"""The invariants every explanation must satisfy (shared by the explain tests)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from tui_tok.tokenizer.explain import Chunk, Explanation, to_json
from tui_tok.tokenizer.explain.engine import reference
from tui_tok.tokenizer.tokenizer import Tokenizer


def check(tok: Tokenizer, expl: Explanation, text: str | bytes, parse_special: bool) -> None:
    """ids == encode; fragments tile the text, chunks tile their fragment; BPE steps are real
    merges (``merges[rank] == left + " " + right``) accounting for every chunk; the steps are the
    family reference's own trace (``check_trace``)."""
    check_trace(tok, expl)
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    assert list(expl.ids) == tok.encode(text, add_special=False, parse_special=parse_special)
    obj = to_json(expl)
    assert obj["ids"] == list(expl.ids)
    pos = 0
    for frag in obj["fragments"]:
        assert frag["start"] == pos, (frag, pos)
        assert frag["end"] > frag["start"]
        pos = frag["end"]
        if frag["special"]:
            assert frag["chunks"] == [] and len(frag["ids"]) == 1
            continue
        cpos = frag["start"]
        ids = []
        for chunk in frag["chunks"]:
            assert chunk["start"] == cpos and chunk["end"] >= chunk["start"], (chunk, cpos)
            cpos = chunk["end"]
            ids += chunk["ids"]
        assert cpos == frag["end"]
        assert ids == frag["ids"]
    assert pos == len(data)
    if expl.family == "bpe":
        merges = tok.vocab.merges
        for frag in expl.fragments:
            for chunk in frag.chunks:
                for step in chunk.steps:
                    assert merges[step.rank] == step.left + " " + step.right, step
                if chunk.shortcut:
                    assert not chunk.steps
                    continue
                # every merge joins two symbols: initial - final symbols merges, final = tokens
                assert len(chunk.steps) == len(chunk.symbols) - len(chunk.final)
                if all(s in tok.vocab.token_to_id for s in chunk.final):
                    assert len(chunk.final) == len(chunk.ids)
                    if tok.encoder.spec.byte_encode:  # type: ignore[attr-defined]
                        # byte-level: one symbol per byte of the word, so bytes - tokens merges
                        assert all(len(s) == 1 for s in chunk.symbols)
                        assert len(chunk.steps) == len(chunk.text) - len(chunk.ids)


def check_trace(tok: Tokenizer, expl: Explanation) -> None:
    """The merges shown are the reference encoder's (``<family>/reference.py``), hooked here
    independently of explain: per BPE word, and per SPM chunk (the fragment's order restricted to
    the chunk), the same (left, right, rank or score) in the same order; and each step's ``at``
    replays: the symbols there are ``left`` and ``right``, and the last row is ``final``."""
    family = expl.family
    if family == "ugm":
        _check_ugm_trace(tok, expl)
    if family in ("wpm", "rwkv"):
        _check_match_trace(tok, expl)
    if family in ("plamo2", "test"):
        _check_step_trace(tok, expl)
    if family not in ("bpe", "spm") or tok.vocab.model in ("hybriddna", "whitespace"):
        return
    ref = reference(tok.vocab)
    after_special = True
    for frag in expl.fragments:
        if frag.special or not frag.chunks:
            after_special = frag.special
            continue
        raw = expl.text[frag.start : frag.end]
        merges: list[tuple] = []
        words: list[list[tuple]] = []
        if family == "bpe":
            ref.encode_fragment(raw, after_special=after_special, on_merge=lambda *m: merges.append(m),
                                on_word=lambda w: (words.append(list(merges)), merges.clear()))  # fmt: skip
            assert [[m[:3] for m in w] for w in words] == [_merges(c) for c in frag.chunks]
        else:
            ref.encode_fragment(raw, after_special=after_special, on_merge=lambda *m: merges.append(m))
            bounds = [0]
            for c in frag.chunks[:-1]:
                bounds.append(bounds[-1] + len(c.symbols))
            per_chunk: list[list[tuple]] = [[] for _ in frag.chunks]
            for m in merges:
                per_chunk[bisect_right(bounds, m[3]) - 1].append(m[:3])
            assert per_chunk == [_merges(c) for c in frag.chunks]
        for c in frag.chunks:
            assert replay(c.symbols, [(s.left, s.right, s.at) for s in c.steps if s.kind == "merge"])[-1] == list(
                c.final
            )
        after_special = False


def _check_ugm_trace(tok: Tokenizer, expl: Explanation) -> None:
    """The lattice shown is the reference search's offers (those ending on a character
    boundary, in characters, in order), and the path its pieces."""
    ref = reference(tok.vocab)
    for frag in expl.fragments:
        for c in frag.chunks:
            if c.detail is None:
                continue
            norm = ref.normalize(expl.text[frag.start : frag.end])
            offers: list[tuple] = []
            found = ref.search(norm.text, on_edge=lambda *e: offers.append(e))
            char_at, pos = {0: 0}, 0  # normalised byte offset -> character offset
            for k, ch in enumerate(c.detail.normalized, 1):  # type: ignore[attr-defined]
                pos += len(ch.encode())
                char_at[pos] = k
            edges = [(char_at[a], char_at[b], t, w) for a, b, t, w, _, _ in offers if b in char_at]
            assert list(c.detail.edges) == edges  # type: ignore[attr-defined]
            assert c.ids == tuple(t for t, _, _ in found)
            assert [s.id for s in c.steps if s.kind == "piece"] == list(c.ids)


def _check_match_trace(tok: Tokenizer, expl: Explanation) -> None:
    """The matches shown are the reference walk's, in order (WPM: per word, and a word's
    unknown replaces its matches, as llama.cpp discards them)."""
    ref = reference(tok.vocab)
    for frag in expl.fragments:
        if frag.special or not frag.chunks:
            continue
        raw = expl.text[frag.start : frag.end]
        shown = [
            [(s.kind, s.id, s.at) for s in c.steps if s.kind in ("match", "unknown")] for c in frag.chunks if c.steps
        ]
        if expl.family == "rwkv":
            seen: list[tuple] = []
            ref.encode_fragment(raw, after_special=True, on_match=lambda t, a, b: seen.append(("match", t, -1)))
            assert [e for word in shown for e in word] == seen
            continue
        words: list[list[tuple]] = []
        ref.encode_fragment(
            raw, after_special=True, on_word=lambda w: words.append([]),
            on_match=lambda t, a, b: words[-1].append(("match", t, -1)),
            on_unknown=lambda at: words[-1].__setitem__(slice(None), [("unknown", tok.vocab.unk_id, at)]),
        )  # fmt: skip
        assert shown == words


def _check_step_trace(tok: Tokenizer, expl: Explanation) -> None:
    """PLaMo2: the steps shown are the reference's best path (``on_step``), in order, a token as
    ``piece`` with its integer score and an unknown code point as ``bytes``; TEST: one ``hash``
    step per chunk (``on_chunk``). Offsets are the fragment's plus its start."""
    ref = reference(tok.vocab)
    for frag in expl.fragments:
        if frag.special or not frag.chunks:
            continue
        raw = expl.text[frag.start : frag.end]
        seen: list[tuple] = []
        if expl.family == "plamo2":
            ref.encode_fragment(raw, after_special=True, on_step=lambda t, ids, a, b, score: seen.append(
                ("bytes", ids, a, b, 0.0) if t < 0 else ("piece", (t,), a, b, float(score))))  # fmt: skip
        else:
            ref.encode_fragment(
                raw, after_special=True, on_chunk=lambda t, a, b, _: seen.append(("hash", (t,), a, b, 0.0))
            )
        steps = [s for c in frag.chunks for s in c.steps]
        shown = [(s.kind, s.ids or (s.id,), s.start - frag.start, s.end - frag.start, s.score) for s in steps]
        assert shown == seen
        assert [i for _, ids, _, _, _ in seen for i in ids] == list(frag.ids)


def _merges(c: Chunk) -> list[tuple]:
    return [
        (s.left, s.right, s.rank if s.kind == "merge" and s.rank >= 0 else s.score)
        for s in c.steps
        if s.kind == "merge"
    ]


def replay(symbols: Sequence[str], steps: Sequence[tuple[str, str, int]]) -> list[list[str]]:
    """The symbol rows of a merge sequence: the initial symbols, then the row after each
    ``(left, right, at)`` merge; each step must match its row."""
    rows = [list(symbols)]
    row = list(symbols)
    for left, right, at in steps:
        assert row[at : at + 2] == [left, right], (left, right, at, row)
        row = row[:at] + [left + right] + row[at + 2 :]
        rows.append(row)
    return rows
