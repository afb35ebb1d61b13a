"""``plan_cut_edit``: an edit of SPM, UGM, WPM, RWKV (or GEMMA4 BPE) text re-encoded between proven cuts.

The families of ``tokenizer.cuts`` (whose module doc proves the cuts). With ``p`` the common
prefix of the old and new text and the common suffix after it:

- ``a``: the last allowed cut whose two neighbours (up to 4 bytes each way) lie in the common
  prefix, so it is a cut of both texts; old tokens before it are kept (0: the text start);
- ``b``: the first allowed cut whose neighbours lie in the common suffix; old tokens from it on
  are kept, shifted;
- a cut with an old token of empty span on it (a character the normaliser grew into several
  tokens: which side that token belongs to cannot be told) gives way to the next one out;
- ``new[a:b]`` is encoded as the *middle* of a fragment: with the character before ``a`` and
  the one after ``b`` in view (so no fragment start or end rule, SPM's space prefix or UGM's
  dummy prefix, applies at ``a`` or ``b``), whose tokens are dropped again.

The cuts also keep special and user-defined tokens apart (``cuts.SpecialCuts``), so the
stretch is partitioned and encoded as in the whole text. A UGM text longer than the table's
``max_bytes`` is spliced only when the weights of the old text, of the new one (the old weight
minus the old stretch's plus the new stretch's) and of the stretch encoded apart prove their
score sums exact (``cut_sums.UgmSums``); the old text's weight is kept for the next edit.
Every check that fails gives None: the caller tokenizes the whole text.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator

import numpy as np

from tui_tok.explore.edit import Splice, _common_prefix
from tui_tok.tokenizer.core.types import PieceArrays
from tui_tok.tokenizer.cut_sums import UgmSums
from tui_tok.tokenizer.cuts import CutTable, cut_table
from tui_tok.tokenizer.tokenizer import Tokenizer

_NEAR = 4
"""Bytes a cut test may read on each side (one UTF-8 character)."""
_FIRST_WINDOW = 256
_TRIES = 4
"""Cuts tried on each side when a token with an empty span sits on one (``_empty_at``)."""
_WEIGHTS: weakref.WeakKeyDictionary[UgmSums, tuple[bytes, bool, int]] = weakref.WeakKeyDictionary()
"""Per vocab, the last text planned (the same object, by ``is``), parse_special, and its weight."""


def table_for(tok: Tokenizer) -> CutTable | None:
    """``cut_table`` of the tokenizer's vocab, with its encoder's charsmap for UGM."""
    spec = getattr(tok.encoder, "spec", None)
    return cut_table(tok.vocab, getattr(tok.encoder, "charsmap", None), tuple(getattr(spec, "regexes", ())))


def cut_before(table: CutTable, data: bytes, limit: int) -> int:
    """The last allowed cut ``k <= limit`` (0 when none)."""
    hi, size = limit + 1, _FIRST_WINDOW
    while hi > 1:
        lo = max(0, hi - size)
        found = table.allowed(data, lo, hi)
        if len(found):
            return int(found[-1])
        hi, size = lo + 1, size * 4
    return 0


def cut_from(table: CutTable, data: bytes, start: int) -> int:
    """The first allowed cut ``k >= start`` (the end when none)."""
    lo, size = start - 1, _FIRST_WINDOW
    while lo < len(data) - 1:
        hi = min(len(data), lo + size)
        found = table.allowed(data, lo, hi)
        if len(found):
            return int(found[0])
        lo, size = hi - 1, size * 4
    return len(data)


def _clear_cut(
    table: CutTable, new: bytes, starts: np.ndarray, ends: np.ndarray, k: int, shift: int, *, forward: bool
) -> tuple[int, int] | None:
    """The cut ``k`` of ``new``, or when an old token with an empty span sits on it one of the
    ``_TRIES`` cuts beyond it (after it when ``forward``, else before), with the index of the
    first old token from it (old offsets are ``new``'s minus ``shift``); None when each has one."""
    for _ in range(_TRIES):
        if forward and k >= len(new) or not forward and k <= 0:
            return (len(new), len(starts)) if forward else (0, 0)
        i = int(np.searchsorted(starts, starts.dtype.type(k - shift), side="left"))
        if not _empty_at(starts[max(0, i - 8) : i + 8], ends[max(0, i - 8) : i + 8], (k - shift,)):
            return k, i
        k = cut_from(table, new, k + 1) if forward else cut_before(table, new, k - 1)
    return None


def _empty_at(starts: np.ndarray, ends: np.ndarray, cuts: tuple[int, ...]) -> bool:
    """Does a token with an empty span sit on a cut (a normalisation that grew a character: which
    side it belongs to cannot be told from its span)?"""
    empty = starts == ends
    return bool(empty.any()) and bool(np.isin(starts[empty], cuts).any())


def _char_len_before(data: bytes, k: int) -> int:
    i = k - 1
    while i > 0 and data[i] & 0xC0 == 0x80:
        i -= 1
    return k - i


def _char_len_at(data: bytes, k: int) -> int:
    i = k + 1
    while i < len(data) and data[i] & 0xC0 == 0x80:
        i += 1
    return i - k


def plan_cut_edit(
    tok: Tokenizer,
    table: CutTable,
    old: bytes,
    old_tokens: PieceArrays,
    new: bytes,
    *,
    parse_special: bool,
    max_bytes: int | None = None,
) -> Splice | None:
    """The splice of the edit from ``old`` to ``new`` (module doc); ``old_tokens`` are
    ``tok.tokenize_arrays(old, add_special=False, parse_special=parse_special)``. None when it cannot be planned or would re-encode over ``max_bytes``."""
    long = table.max_bytes is not None and max(len(old), len(new)) > table.max_bytes
    sums = table.sums if long else None
    if long and sums is None:
        return None
    p = _common_prefix(old, new)
    q = _common_prefix(old, new, from_end=True, limit=min(len(old), len(new)) - p)
    _, starts, ends = old_tokens
    shift = len(new) - len(old)
    start = _clear_cut(table, new, starts, ends, cut_before(table, new, p - _NEAR), 0, forward=False)
    end = _clear_cut(table, new, starts, ends, cut_from(table, new, len(new) - q + _NEAR), shift, forward=True)
    if start is None or end is None:
        return None
    (a, first), (b, stop) = start, end
    b_old = b - shift
    if max_bytes is not None and b - a > max_bytes:
        return None
    if first and int(ends[:first].max()) > a or stop < first or stop and int(ends[:stop].max()) > b_old:
        return None  # an old token crosses a cut: not the tokens of `old` after all
    weight = 0 if sums is None else _old_weight(sums, old, old_tokens, parse_special)
    if sums is not None and weight > sums.cap:
        return None
    mid = encode_between(tok, new, a, b, parse_special=parse_special, sums=sums)
    if mid is None:
        return None
    if sums is not None:
        old_ids, old_starts, old_ends = old_tokens
        weight += sums.weight(mid) - sums.weight((old_ids[first:stop], old_starts[first:stop], old_ends[first:stop]))
        if weight > sums.cap:
            return None
        _WEIGHTS[sums] = (new, parse_special, weight)
    return Splice(a, b, b_old, first, stop, mid)


def _old_weight(sums: UgmSums, old: bytes, old_tokens: PieceArrays, parse_special: bool) -> int:
    """``sums.weight(old_tokens)``, kept from the last plan when ``old`` is the text it planned
    (a pass over every token: ~35 ms for 10 MB)."""
    last = _WEIGHTS.get(sums)
    if last is not None and last[0] is old and last[1] == parse_special:
        return last[2]
    weight = sums.weight(old_tokens)
    _WEIGHTS[sums] = (old, parse_special, weight)
    return weight


def encode_between(
    tok: Tokenizer, data: bytes, a: int, b: int, *, parse_special: bool, sums: UgmSums | None = None
) -> PieceArrays | None:
    """The tokens of ``data[a:b]`` between two allowed cuts (0 and ``len(data)`` count as cuts)
    as in the whole text, offsets relative to ``a``: encoded with the character before ``a`` and
    the one after ``b`` in view, whose tokens are dropped (module doc). None when a token of
    that stretch crosses ``a`` or ``b`` (the cuts' premises do not hold: never for real cuts),
    or when ``sums`` is given and the encoded stretch weighs more than its cap."""
    a_ctx = a - _char_len_before(data, a) if a else 0
    b_ctx = b + _char_len_at(data, b) if b < len(data) else b
    ids, m_starts, m_ends = tok.tokenize_arrays(data[a_ctx:b_ctx], add_special=False, parse_special=parse_special)
    if sums is not None and sums.weight((ids, m_starts, m_ends)) > sums.cap:
        return None
    lo, hi = a - a_ctx, b - a_ctx
    i = int(np.searchsorted(m_starts, m_starts.dtype.type(lo), side="left")) if a else 0
    j = int(np.searchsorted(m_starts, m_starts.dtype.type(hi), side="left")) if b < len(data) else len(ids)
    if (
        i
        and int(m_ends[:i].max()) > lo
        or j < i
        or j
        and int(m_ends[:j].max()) > hi
        or _empty_at(m_starts, m_ends, (lo,) * bool(a) + (hi,) * (b < len(data)))
    ):
        return None
    shift = np.int64(lo)
    return ids[i:j], m_starts[i:j].astype(np.int64) - shift, m_ends[i:j].astype(np.int64) - shift


def encode_in_pieces(
    tok: Tokenizer, table: CutTable, data: bytes, *, parse_special: bool, piece_bytes: int
) -> Iterator[PieceArrays | None]:
    """The tokens of ``data`` without BOS/EOS (``tokenize_arrays(data, add_special=False)``), in
    consecutive stretches of about ``piece_bytes`` between allowed cuts, byte offsets absolute:
    each stretch is encoded as in the whole text (``encode_between``), so a caller can stop or
    report progress between them and never holds a whole text's tokens as Python objects (the
    families of ``tokenizer.cuts`` give their spans as one tuple per token). A stretch that
    cannot be encoded apart is given as None (the caller tokenizes the whole text instead); so
    is the stretch that takes a UGM text past ``max_bytes`` over its weight cap (the stretches
    before it were right only if the whole text's sums are exact): a caller that lets it past
    ``max_bytes`` must take a None at any point."""
    a, n = 0, len(data)
    sums = table.sums if table.max_bytes is not None and n > table.max_bytes else None
    weight = 0
    while a < n:
        b = n if a + piece_bytes >= n else cut_from(table, data, a + piece_bytes)
        mid = encode_between(tok, data, a, b, parse_special=parse_special, sums=sums)
        if sums is not None and mid is not None:
            weight += sums.weight(mid)
        if mid is None or sums is not None and weight > sums.cap:
            yield None
            return
        ids, starts, ends = mid
        shift = np.int64(a)
        yield ids, starts + shift, ends + shift
        a = b
    if sums is not None:  # the first edit of this text finds its weight (``_old_weight``)
        _WEIGHTS[sums] = (data, parse_special, weight)
