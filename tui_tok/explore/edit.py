"""``retokenize_edit``: the tokens of an edited text from those of the text before it, re-encoding
only the lines around the edit. Exact: the result is always ``tokenize_arrays`` of the new text.

Where it applies (``edit_margin``): BPE whose pre-tokenizer has a one-pass form with proven
cut points (``pretokenize.tiled``: right after ``\\n`` before a character of some kind, no word
ever crosses one, and a word before a cut looks at most 4 characters past it), no special or
user-defined token holding ``\\n`` (it could cross a cut) and none stripping whitespace (LSTRIP
/ RSTRIP reach across). Then, with ``p`` the length of the common prefix of both texts and
the common suffix after it:

- tokens before a cut ``a`` at least ``margin`` bytes before ``p`` are the old ones: the text
  they and their lookahead see is the same, and no special token found in one text but not the
  other can start within reach (``margin`` covers the longest special token too);
- tokens from a cut ``b`` inside the common suffix on are the old ones, shifted: a scan
  started at a cut depends only on what follows (no pattern looks back);
- between, ``new[a:b]`` is tokenized with ``margin`` bytes of what follows in view, and the
  tokens past ``b`` dropped again.

Cuts are read on bytes and taken only before an ASCII character (a non-ASCII one might be
whitespace); fewer cuts only make the re-encoded stretch longer. Any check that fails gives
None: the caller tokenizes the whole text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.core.types import PieceArrays, TokenAttr, VocabType
from tui_tok.tokenizer.pretokenize import onepass
from tui_tok.tokenizer.pretokenize.tiled import Boundary
from tui_tok.tokenizer.tokenizer import Tokenizer, concat_arrays
from tui_tok.tokenizer.unicode.data import WHITESPACE_CPS

_LOOK = 64
"""Bytes of lookahead granted past a cut (the patterns need 4)."""
_ASCII_SPACE = np.zeros(128, dtype=bool)
_ASCII_SPACE[[c for c in WHITESPACE_CPS if c < 128]] = True


def edit_margin(tok: Tokenizer) -> tuple[Boundary, int] | None:
    """The cut points and the margin (bytes) for ``retokenize_edit``, or None when it does not apply."""
    v = tok.vocab
    if v.type is not VocabType.BPE or v.model in ("hybriddna", "whitespace"):
        return None
    boundary = getattr(onepass.plan(tuple(getattr(tok.encoder, "spec").regexes)), "boundary", None)
    if not isinstance(boundary, Boundary):
        return None
    special = np.flatnonzero(v.attrs & int(TokenAttr.CONTROL | TokenAttr.USER_DEFINED | TokenAttr.UNKNOWN))
    texts = [v.tokens[i] for i in special.tolist()]
    if any("\n" in t for t in texts) or np.any(v.attrs & int(TokenAttr.LSTRIP | TokenAttr.RSTRIP)):
        return None
    return boundary, _LOOK + max((len(t.encode("utf-8", "surrogatepass")) for t in texts), default=0)


@dataclass(frozen=True, slots=True, eq=False)
class Splice:
    """How the tokens of an edited text are made of the old ones (byte offsets, inner tokens)."""

    a: int
    """First byte re-encoded (a cut, or 0)."""
    b: int
    """One past the last byte re-encoded in the new text (a cut, or its end)."""
    b_old: int
    """``b`` in the old text."""
    first: int
    """Old tokens ``[:first]`` are kept as they are."""
    stop: int
    """Old tokens ``[stop:]`` are kept, shifted by the change of length."""
    mid: PieceArrays
    """The tokens of ``new[a:b]``, offsets relative to ``a``."""

    def tokens(self, old_tokens: PieceArrays) -> PieceArrays:
        ids, starts, ends = old_tokens
        shift = self.b - self.b_old
        first, stop, a = self.first, self.stop, self.a
        mid_ids, mid_starts, mid_ends = self.mid
        return concat_arrays([
            (ids[:first], starts[:first], ends[:first]),
            (mid_ids, mid_starts + a, mid_ends + a),
            (ids[stop:], starts[stop:] + shift, ends[stop:] + shift),
        ])  # fmt: skip


def plan_edit(
    tok: Tokenizer,
    old: bytes,
    old_tokens: PieceArrays,
    new: bytes,
    *,
    parse_special: bool,
    max_bytes: int | None = None,
) -> Splice | None:
    """Re-encode what the edit from ``old`` to ``new`` can change (module doc); ``old_tokens`` are
    ``tok.tokenize_arrays(old, add_special=False, parse_special=parse_special)``. None when the
    edit cannot be re-tokenized locally, or when more than ``max_bytes`` would be re-encoded
    (a paste: the caller tokenizes the whole text in stoppable pieces instead)."""
    found = edit_margin(tok)
    if found is None:
        return None
    boundary, margin = found
    p = _common_prefix(old, new)
    q = _common_prefix(old, new, from_end=True, limit=min(len(old), len(new)) - p)
    a = _cut_before(new, p - margin, boundary)
    b = _cut_from(new, len(new) - q + 1, boundary)
    b_old = b - (len(new) - len(old))
    if max_bytes is not None and b - a > max_bytes:
        return None
    _, starts, ends = old_tokens
    # needles of the column's type: a Python int makes numpy convert a 3M-long int32 column per call
    first = int(np.searchsorted(starts, starts.dtype.type(a), side="left"))
    stop = int(np.searchsorted(starts, starts.dtype.type(b_old), side="left"))
    if first and int(ends[:first].max()) > a or stop < first or stop and int(ends[:stop].max()) > b_old:
        return None  # an old token crosses a cut: not the tokens of `old` after all
    mid_ids, mid_starts, mid_ends = tok.tokenize_arrays(
        new[a : b + margin], add_special=False, parse_special=parse_special
    )
    keep = int(np.searchsorted(mid_starts, b - a, side="left"))
    if keep and int(mid_ends[:keep].max()) > b - a:
        return None
    return Splice(a, b, b_old, first, stop, (mid_ids[:keep], mid_starts[:keep], mid_ends[:keep]))


def retokenize_edit(
    tok: Tokenizer, old: bytes, old_tokens: PieceArrays, new: bytes, *, parse_special: bool
) -> PieceArrays | None:
    """``tok.tokenize_arrays(new, add_special=False, parse_special=parse_special)`` from
    ``old_tokens``, the same of ``old`` (``plan_edit``); None when it cannot be done locally."""
    splice = plan_edit(tok, old, old_tokens, new, parse_special=parse_special)
    return splice.tokens(old_tokens) if splice is not None else None


def _common_prefix(x: bytes, y: bytes, *, from_end: bool = False, limit: int | None = None) -> int:
    """Length of the common prefix (or suffix), compared in growing blocks: no copy of a 10 MB
    text at once, and no single call holding the interpreter for long. A block is compared as
    bytes (memcmp) and searched only when it differs; a suffix's blocks are read forwards from
    the end (numpy over reversed views took 4 ms for 10 MB, this 1 ms)."""
    a = np.frombuffer(x, dtype=np.uint8)
    b = np.frombuffer(y, dtype=np.uint8)
    n = min(len(a), len(b), limit if limit is not None else len(a))
    pos, step = 0, 1 << 12
    while pos < n:
        end = min(n, pos + step)
        if from_end:
            pa, pb = a[len(a) - end : len(a) - pos], b[len(b) - end : len(b) - pos]
        else:
            pa, pb = a[pos:end], b[pos:end]
        if pa.tobytes() != pb.tobytes():
            differ = np.flatnonzero(pa != pb)
            return pos + (len(pa) - 1 - int(differ[-1]) if from_end else int(differ[0]))
        pos, step = end, min(step * 4, 1 << 22)
    return n


def _is_cut(data: bytes, i: int, boundary: Boundary) -> bool:
    if not 0 < i < len(data) or data[i - 1] != 0x0A or data[i] >= 0x80:
        return False
    c = data[i]
    return chr(c).isalnum() if boundary.alnum_only else not _ASCII_SPACE[c]


def _cut_before(data: bytes, limit: int, boundary: Boundary) -> int:
    """The last cut at or before ``limit`` (0, the start, when none)."""
    i = data.rfind(b"\n", 0, max(0, limit))
    while i >= 0:
        if _is_cut(data, i + 1, boundary):
            return i + 1
        i = data.rfind(b"\n", 0, i)
    return 0


def _cut_from(data: bytes, start: int, boundary: Boundary) -> int:
    """The first cut at or after ``start`` (the end when none)."""
    i = data.find(b"\n", max(0, start - 1))
    while i >= 0:
        if _is_cut(data, i + 1, boundary):
            return i + 1
        i = data.find(b"\n", i + 1)
    return len(data)
