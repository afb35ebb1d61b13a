"""``TokenizeEngine``: what the tokenize view keeps per tokenizer to turn a request into a layout.

Plain Python (no widgets): the kind code of each id, and the line cache of
``explore.incremental`` once it is known whether this vocabulary allows it. Callers hold the
session lock around every method that tokenizes (``layout``, ``pieces``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from tui_tok.explore.cut_edit import encode_in_pieces
from tui_tok.explore.display import NULL_PIECE, shown_text
from tui_tok.explore.edit import Splice
from tui_tok.explore.incremental import (
    ChunkCache,
    EditPlanner,
    TokenArrays,
    chunkable,
    probes_agree,
    split_chunks,
    tokenize_chunked,
)
from tui_tok.explore.layout import KIND_NAMES, TokenLayout, kind_codes, layout_arrays
from tui_tok.explore.layout_splice import splice_layout
from tui_tok.explore.token_info import token_rows
from tui_tok.explore.vocab_index import VocabIndex, token_facts
from tui_tok.tokenizer.arrays.sorted_unique import sorted_unique
from tui_tok.tokenizer.core.types import PieceArrays, TokenAttr, VocabType
from tui_tok.tokenizer.tokenizer import Tokenizer, as_bytes


@dataclass(frozen=True, slots=True)
class TokenizeRequest:
    """One tokenization the view asks for: the exact text and the toggles."""

    generation: int
    text: str
    add_special: bool
    parse_special: bool
    show_pieces: bool
    provisional: bool = False
    """Line by line from the cache (shown at once, replaced by the exact result later)."""


_SURROGATE = re.compile("[\ud800-\udfff]")

PIECE_CHARS = 100_000
"""Characters tokenized between two checks for cancellation (``Tokenizer.tokenize_arrays_pieces``):
a short stretch of work (benchmarks/NOTES.md), after which the UI thread gets the interpreter back."""
CUT_PIECES = 16
"""A long text of a family with proven cuts is tokenized in about this many stretches (``_pieces``)."""
CHAR_SLICE = 1 << 20
"""Bytes counted at a time by ``_chars``."""
SPARE_TOKENS = 1 << 16
"""Room for tokens a spliced result's byte offsets get beyond its own (``_spliced_offsets``)."""
MOSTLY_NEW = 4
"""A provisional request whose line cache lacks more than 1/``MOSTLY_NEW`` of the text (a paste)
is tokenized exactly at once: line by line would cost as much, and then be done again."""


@dataclass(frozen=True, slots=True, eq=False)
class _Exact:
    """The last exact result: what an edit's tokens are spliced from (``explore.edit``)."""

    tok: Tokenizer
    add_special: bool
    parse_special: bool
    data: bytes
    inner: PieceArrays
    """Tokens of ``data`` without the added BOS/EOS (byte offsets)."""
    n_bos: int
    layout: TokenLayout


def _chars(data: bytes, a: int, b: int) -> int:
    """Characters in ``data[a:b]`` (valid UTF-8: ``_splice`` encodes strictly): its bytes that do
    not continue a character, counted with numpy (decoding a 10 MB tail took ~20 ms a key), in
    slices of ``CHAR_SLICE`` bytes (whole, its two 10 MB temporaries were fresh pages each key)."""
    if b - a < 4096:
        return len(data[a:b].decode("utf-8"))
    view = np.frombuffer(data, dtype=np.uint8)
    follow = 0
    for at in range(a, b, CHAR_SLICE):
        part = view[at : min(b, at + CHAR_SLICE)]
        follow += int(np.count_nonzero((part & 0xC0) == 0x80))
    return b - a - follow


def _chars_upto(data: bytes, n_chars: int, at: int) -> int:
    """Characters in ``data[:at]`` when ``data`` holds ``n_chars``: counted on the shorter side
    of ``at`` (a key near the end of a 10 MB text counts its few last bytes, not the 10 MB before)."""
    return _chars(data, 0, at) if at <= len(data) - at else n_chars - _chars(data, at, len(data))


def _compact(tokens: PieceArrays) -> PieceArrays:
    """Byte offsets kept for the next splice as int32 when they fit (the ids are the layout's)."""
    ids, starts, ends = tokens
    if len(ends) and int(ends[-1]) >= 2**31:
        return tokens
    return ids, starts.astype(np.int32, copy=False), ends.astype(np.int32, copy=False)


_SPANS_AS_CHEAP = frozenset({VocabType.BPE, VocabType.RWKV})
"""Families whose spans cost about what their ids do (10 MB of rwkv-world: 0.11 s against 0.12):
their count comes with the spans, not from an encode of its own first."""


def _with_spare(parts: list[np.ndarray]) -> np.ndarray:
    """``np.concatenate(parts)``, in a buffer with ``SPARE_TOKENS`` more room: the first key's
    offsets are moved in it (``_spliced_offsets``) rather than into new buffers (10 MB of text:
    2 x 12 MB of fresh pages on the first key)."""
    n = sum(len(p) for p in parts)
    buf = np.empty(n + SPARE_TOKENS, dtype=parts[0].dtype if parts else np.int64)
    if parts:
        np.concatenate(parts, out=buf[:n])
    return buf[:n]


def _to_start(buf: np.ndarray, at: int, n: int) -> np.ndarray:
    """``buf[at : at + n]`` moved to ``buf[:n]`` (in slices: numpy copies an overlapping move
    through a temporary as long as the move), as a view of ``buf``."""
    step = 1 << 16
    for i in range(0, n, step) if at else ():
        j = min(n, i + step)
        buf[i:j] = buf[at + i : at + j]
    return buf[:n]


class _Restart(Exception):
    """A stretch between cuts could not be encoded apart (``TokenizeEngine._pieces``)."""


class TokenizeEngine:
    """Per-tokenizer caches of the tokenize view."""

    def __init__(self) -> None:
        self._kinds: tuple[Tokenizer, np.ndarray] | None = None
        self._chunks: tuple[Tokenizer, ChunkCache | None] | None = None
        self._exact: _Exact | None = None
        self.spliced = 0
        self._buffers: tuple[np.ndarray | None, ...] = ()
        """The buffers of the last exact result's byte offsets (``_spliced_offsets``)."""
        self._planner = EditPlanner()
        """Exact results made by splicing an edit into the last one (tests check the fast path ran)."""

    def chunk_cache(self, tok: Tokenizer | None) -> ChunkCache | None:
        """The line cache, once a worker has checked that lines are independent (else None)."""
        if tok is None or self._chunks is None or self._chunks[0] is not tok:
            return None
        return self._chunks[1]

    def splices(self, tok: Tokenizer | None) -> bool:
        """Will an edit of the last exact text most likely be spliced (no wait for a pause in typing)?"""
        return tok is not None and self._exact is not None and self._exact.tok is tok and self._planner.ready(tok)

    def check_chunking(self, tok: Tokenizer) -> None:
        """In a worker, holding the lock: build the line cache if this vocabulary allows it."""
        if self._chunks is not None and self._chunks[0] is tok:
            return
        self._planner.prepare(tok)
        v = tok.vocab
        special = v.attrs & int(TokenAttr.CONTROL | TokenAttr.USER_DEFINED | TokenAttr.UNKNOWN)
        cache: ChunkCache | None = None
        if chunkable(
            is_bpe=v.type is VocabType.BPE,
            special_texts=[v.tokens[i] for i in np.flatnonzero(special)],
            any_lstrip=bool(np.any(v.attrs & int(TokenAttr.LSTRIP))),
        ):
            cache = ChunkCache(
                lambda c, ps: tok.tokenize_arrays(c, add_special=False, parse_special=ps), self.kinds_by_id(tok)
            )
            if not probes_agree(lambda t, ps: tok.encode(t, add_special=False, parse_special=ps), cache):
                cache = None
        self._chunks = (tok, cache)

    @staticmethod
    def pieces(tok: Tokenizer, layout: TokenLayout) -> dict[int, str]:
        # as the token view draws text: a format character (U+200D) as its code, not as nothing
        return {
            i: shown_text(tok.token_to_piece(i).decode("utf-8", "surrogateescape")) if i >= 0 else NULL_PIECE
            for i in sorted_unique(layout.ids).tolist()
        }

    def layout(
        self,
        tok: Tokenizer,
        request: TokenizeRequest,
        *,
        chunks: list[str] | None = None,
        stop: Callable[[], bool] | None = None,
        progress: Callable[[float], object] | None = None,
        counted: Callable[[np.ndarray], object] | None = None,
    ) -> tuple[TokenLayout, bool] | None:
        """Tokenize (line by line from the cache when provisional) and lay out; holds the lock.
        Returns the layout and whether it is provisional.

        With ``chunks`` (the UI thread's fast path) only the line-by-line result is allowed:
        None when the whole text would have to be tokenized. A long text is tokenized exactly
        in pieces: between them ``stop()`` may end the work (None is returned), ``progress``
        hears the fraction done, and other threads (the UI) get the interpreter; ``counted``
        gets the exact ids as soon as they are known, before the layout (seconds for 10 MB).
        """
        kinds = self.kinds_by_id(tok)
        spliced = self._splice(tok, request, kinds)
        if spliced is not None:
            return spliced, False
        self.check_chunking(tok)
        cache = self.chunk_cache(tok) if request.provisional else None
        if cache is not None:
            added = TokenArrays.of(tok.tokenize("", add_special=request.add_special), kinds)
            n_bos = int(request.add_special and tok.vocab.add_bos)
            pieces = chunks if chunks is not None else split_chunks(request.text)
            missing = cache.missing_chars(pieces, request.parse_special)
            if len(added.ids) == n_bos + int(request.add_special and tok.vocab.add_eos) and (
                chunks is not None or missing * MOSTLY_NEW <= len(request.text)
            ):
                cut = lambda a, s: TokenArrays(a.ids[s], a.starts[s], a.ends[s], a.kinds[s])  # noqa: E731
                arr = tokenize_chunked(
                    request.text,
                    cache,
                    parse_special=request.parse_special,
                    before=cut(added, slice(0, n_bos)),
                    after=cut(added, slice(n_bos, None)),
                    chunks=pieces,
                )
                return layout_arrays(request.text, ids=arr.ids, starts=arr.starts, ends=arr.ends, kinds=arr.kinds), True
        if chunks is not None:
            return None
        data = as_bytes(request.text)
        if counted is not None and tok.vocab.type not in _SPANS_AS_CHEAP:
            # ids alone are ~2-3x cheaper than spans in SPM, UGM and WPM (10 MB: gemma3 1.2 s
            # against 2.6 s, t5 0.2 against 0.56, bert-bge 0.22 against 0.39): the count is shown
            # first, the spans follow for the colours
            counted(
                np.asarray(
                    tok.encode(data, add_special=request.add_special, parse_special=request.parse_special),
                    dtype=np.int32,
                )
            )
            counted = None
            if stop is not None and stop():
                return None
        columns = []
        n = max(1, len(data))
        done = 0
        narrow = len(data) < 2**31  # byte offsets as int32 while they are collected (10 MB: 3M tokens)
        try:
            for ids_p, starts_p, ends_p in self._pieces(tok, request, data):
                columns.append(
                    (ids_p, starts_p.astype(np.int32), ends_p.astype(np.int32)) if narrow else (ids_p, starts_p, ends_p)
                )
                done = int(ends_p[-1]) if len(ends_p) else done
                if stop is not None and stop():
                    return None
                if progress is not None and 0 < done < n:
                    progress(done / n)
                time.sleep(0)  # let the UI thread run (it may be waiting for the interpreter)
        except _Restart:
            columns = [tok.tokenize_arrays(data, add_special=request.add_special, parse_special=request.parse_special)]
        ids = np.concatenate([c[0] for c in columns], dtype=np.int32)  # the layout's type
        starts, ends = (_with_spare([c[k] for c in columns]) for k in (1, 2))
        byte_columns = (ids, starts, ends)
        del columns
        if counted is not None:
            counted(ids)
        layout = layout_arrays(request.text, ids=ids, starts=starts, ends=ends, kinds=kinds[ids])
        self._remember(tok, request, layout, data, byte_columns)
        return layout, False

    def _pieces(self, tok: Tokenizer, request: TokenizeRequest, data: bytes) -> Iterator[PieceArrays]:
        """The tokens of ``data`` in consecutive pieces of about ``PIECE_CHARS``: BPE's own
        (``Tokenizer.tokenize_arrays_pieces``), or stretches between proven cuts for the families
        of ``tokenizer.cuts`` (``explore.cut_edit.encode_in_pieces``); else one piece."""
        table = self._planner.table(tok)
        usable = table is not None and (
            table.max_bytes is None or len(data) <= table.max_bytes or table.sums is not None
        )
        if tok.vocab.type is VocabType.BPE or table is None or not usable or len(data) <= PIECE_CHARS:
            yield from tok.tokenize_arrays_pieces(
                data, add_special=request.add_special, parse_special=request.parse_special, piece_chars=PIECE_CHARS
            )
            return
        added_ids, added_starts, _ = tok.tokenize_arrays(b"", add_special=request.add_special)
        n_bos = int(request.add_special and tok.vocab.add_bos)
        if n_bos:
            yield added_ids[:n_bos], added_starts[:n_bos], added_starts[:n_bos]
        # longer stretches than BPE's: each stretch merges its distinct words once (SPM: 10 MB in
        # 100 KB stretches took 2.4x the whole text's time, in 16 stretches about the same)
        step = max(PIECE_CHARS, len(data) // CUT_PIECES)
        for piece in encode_in_pieces(tok, table, data, parse_special=request.parse_special, piece_bytes=step):
            if piece is None:  # never for proven cuts; the whole text then, from the start
                raise _Restart
            yield piece
        end = np.full(len(added_ids) - n_bos, len(data), dtype=np.int64)
        if len(end):
            yield added_ids[n_bos:], end, end

    def _remember(
        self, tok: Tokenizer, request: TokenizeRequest, layout: TokenLayout, data: bytes, tokens: PieceArrays
    ) -> None:
        self._buffers = ()  # the last splice's: no longer the exact result's
        added = len(tok.tokenize_arrays(b"", add_special=request.add_special)[0])
        n_bos = int(request.add_special and tok.vocab.add_bos)
        n = len(tokens[0])
        if not request.text.isascii() and _SURROGATE.search(request.text):
            self._exact = None  # byte offsets would not map back to characters by decoding
            return
        inner = _compact(tuple(c[n_bos : n - (added - n_bos)] for c in tokens))  # type: ignore[arg-type]
        bufs = (inner[1].base, inner[2].base)
        if bufs[0] is not None and bufs[1] is not None and bufs[0] is tokens[1].base and bufs[1] is tokens[2].base:
            # ``_with_spare``'s buffers (the layout is made: nothing else reads them): the offsets
            # moved to their start, where the first key's are moved in place (``_spliced_offsets``)
            inner = (inner[0], _to_start(bufs[0], n_bos, len(inner[1])), _to_start(bufs[1], n_bos, len(inner[2])))
            self._buffers = bufs
        self._exact = _Exact(tok, request.add_special, request.parse_special, data, inner, n_bos, layout)

    def _splice(self, tok: Tokenizer, request: TokenizeRequest, kinds: np.ndarray) -> TokenLayout | None:
        """The exact layout of an edit of the last exact text, re-encoding only around it (or None)."""
        last = self._exact
        if (
            last is None
            or last.tok is not tok
            or (last.add_special, last.parse_special) != (request.add_special, request.parse_special)
        ):
            return None
        text = request.text
        try:
            new = text.encode("utf-8")  # fails on a lone surrogate: byte offsets would not decode back
        except UnicodeEncodeError:
            return None
        splice = self._planner.plan(
            tok, last.data, last.inner, new, parse_special=request.parse_special, max_bytes=PIECE_CHARS
        )
        if splice is None:
            return None
        char_a = _chars_upto(new, len(text), splice.a)
        char_b_old = len(last.layout.text) - (len(text) - _chars_upto(new, len(text), splice.b))
        old_layout, n_bos = last.layout, last.n_bos
        starts, ends = self._spliced_offsets(last, splice, len(new))
        # the old text's bytes and offsets go before the new layout's columns are made (a lower peak)
        self._exact = last = None
        mid_ids, mid_starts, mid_ends = splice.mid
        layout = splice_layout(
            old_layout, text, char_a=char_a, char_b_old=char_b_old, first=splice.first + n_bos,
            stop=splice.stop + n_bos, mid_ids=mid_ids, mid_starts=mid_starts, mid_ends=mid_ends,
            kinds_by_id=kinds, n_bytes=len(new),
        )  # fmt: skip
        inner = (layout.ids[n_bos : n_bos + len(starts)], starts, ends)  # the layout's ids between BOS and EOS
        self._exact = _Exact(tok, request.add_special, request.parse_special, new, inner, n_bos, layout)
        self.spliced += 1
        return layout

    def _spliced_offsets(self, last: _Exact, splice: Splice, n_new_bytes: int) -> tuple[np.ndarray, np.ndarray]:
        """The byte offsets of ``splice.tokens(last.inner)``, written into the old columns' own buffers
        when they have room (the tail moved and shifted in place), else into new ones with
        ``SPARE_TOKENS`` to spare: a key in a 10 MB text (3M tokens) makes no new 12 MB columns."""
        _, old_starts, old_ends = last.inner
        mid_ids, mid_starts, mid_ends = splice.mid
        first, stop, shift = splice.first, splice.stop, splice.b - splice.b_old
        n_old = len(old_starts)
        n = first + len(mid_ids) + n_old - stop
        dtype = np.int32 if n_new_bytes < 2**31 else np.int64
        out = []
        for old, mid in ((old_starts, mid_starts), (old_ends, mid_ends)):
            buf = old.base if old.base is not None and self._owned(old) else None
            if buf is None or buf.dtype != dtype or len(buf) < n:
                buf = np.empty(n + SPARE_TOKENS, dtype=dtype)
                buf[:first] = old[:first]
            at = first + len(mid_ids)
            tail = buf[at : at + n_old - stop]
            tail[...] = old[stop:]  # an overlapping move: numpy copies through a buffer
            if shift:
                tail += shift
            buf[first:at] = mid
            buf[first:at] += splice.a
            out.append(buf[:n])
        self._buffers = (out[0].base, out[1].base)
        return out[0], out[1]

    def _owned(self, column: np.ndarray) -> bool:
        """Is ``column`` a view of a buffer of ``_spliced_offsets``'s (written in place by the next key)?"""
        return any(column.base is b for b in self._buffers)

    def kinds_by_id(self, tok: Tokenizer) -> np.ndarray:
        # once per tokenizer: a kind code per id, so a layout never reads Token.kind
        if self._kinds is None or self._kinds[0] is not tok:
            self._kinds = (tok, kind_codes(tok.token_kinds()))  # the tokenizer's own: its unknown token, id -1
        return self._kinds[1]


def details_rows(
    layout: TokenLayout, index: int, tok: Tokenizer | None, vocab_index: VocabIndex | None
) -> list[tuple[str, str]]:
    """The Token panel's rows for token ``index`` of ``layout`` (type, score and rank once the index is built)."""
    token_id = int(layout.ids[index])
    raw: str | None = None
    piece: bytes | None = None
    if tok is not None and token_id >= 0:  # -1: llama.cpp's null id, no vocabulary entry
        raw, piece = tok.vocab.tokens[token_id], tok.token_to_piece(token_id)
    start, end = int(layout.starts[index]), int(layout.ends[index])
    return token_rows(
        token_id=token_id,
        raw=raw,
        piece=piece,
        span=layout.text[start:end],
        kind=KIND_NAMES[int(layout.kinds[index])],
        facts=token_facts(vocab_index, token_id) if vocab_index is not None and token_id >= 0 else None,
        position=(index, layout.n_tokens),
    )
