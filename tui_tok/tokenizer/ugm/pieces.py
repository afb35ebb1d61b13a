"""The UGM Viterbi search (``ugm/batch.py``) over one normalised text given by its letters
(``ugm/alphabet.py``), cut into *pieces* and each distinct piece searched once.

A boundary between two characters that sit side by side in no token (the vocab's *bigrams*,
``Alphabet.joined``) is crossed by no lattice edge, so every path passes there. Cut at every
such boundary, the 0.56 MB mixed corpus becomes 193k pieces, 4.9k distinct among the 65k of two
characters or more; a piece of one character takes its token by table (``Alphabet.single``).
The search, whose cost is per character, runs over the distinct long pieces only.

Exact when no addition rounds (condition 3 of ``ugm/encoder.py``, checked by the callers on
the normalised length: every best value searched from a piece start is the one searched from
the text start shifted by a constant, so every comparison, ties included, comes out the same);
``exact=False`` cuts nowhere (llama.cpp's sums over the whole text). A piece's tokens depend
only on its letters, so equal pieces share them; pieces are named exactly by their letters'
bytes (``_piece_classes``). Consecutive unknown tokens collapse into one, as in llama.cpp (a
run of unknown characters is one piece per character here).

A fast path: what it computes equals ``ugm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import DTypeLike

from tui_tok.tokenizer.arrays.chunks import hash_unique
from tui_tok.tokenizer.ugm.alphabet import Alphabet
from tui_tok.tokenizer.ugm.batch import _edges, _search
from tui_tok.tokenizer.ugm.hash import TokenHash, span_keys
from tui_tok.tokenizer.ugm.tables import UgmTables


def _distinct_pieces(cps: np.ndarray, starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pieces ``cps[starts[k] : starts[k] + sizes[k]]`` tiling ``cps``: each one's class index,
    and one piece of each class. Equal pieces share a class; every piece is checked equal to
    its class's piece (a key collision: every piece is its own class)."""
    count = starts.size
    occ, rep = hash_unique(span_keys(cps, starts, sizes), sizes.astype(np.uint64))
    if rep.size < count:
        shift = np.repeat(starts[rep[occ]] - starts, sizes)  # each character -> its twin in the class's piece
        if not np.array_equal(cps[np.arange(cps.size, dtype=np.int64) + shift], cps):
            return np.arange(count, dtype=np.int64), np.arange(count, dtype=np.int64)
    return occ, rep


INDEX32_MAX = 1 << 29
"""Texts below this many letters index their pieces in int32 (4-byte letters at offsets up to
4x: still below 2**31); longer ones in int64 (tests lower it to run that path)."""


def letter_search(
    letters: np.ndarray,
    alphabet: Alphabet,
    tables: UgmTables,
    token_hash: TokenHash,
    *,
    unk_id: int,
    ends: bool = False,
    exact: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Token ids of one normalised text given by its letters, and with ``ends`` each token's
    end in letters (int64; else None). A piece of one character takes its token from
    ``alphabet.single``; longer pieces (all of known characters, since an unknown character
    is cut on both sides) are searched once per distinct piece. Per-piece arrays are int32
    (fresh memory costs a page fault per 4 KB on a first encode). ``letters`` may be
    overwritten: with ``exact``, an unknown character followed by another is dropped first
    (each is a piece whose unknown token collapses into the next one's: a fifth of the
    letters of the mixed corpus under a CJK vocab)."""
    kept = None  # with ``ends`` and letters dropped: the position of each letter left
    if exact and ends:
        kept = _one_unknown(letters, np.arange(letters.size), 0)
        letters = letters[kept] if kept.size < letters.size else letters
    elif exact:
        letters = _one_unknown(letters, letters, 0)
    n = letters.size
    if not n:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64) if ends else None
    index = np.int32 if n < INDEX32_MAX else np.int64
    starts = _piece_starts(letters, alphabet, token_hash, index) if exact else np.zeros(1, dtype=index)
    pieces = starts.size
    sizes = np.empty_like(starts)
    np.subtract(starts[1:], starts[:-1], out=sizes[:-1])
    sizes[-1] = n - starts[-1]
    long_at = np.flatnonzero(sizes > 1)
    # the token of every piece as if it had one character; longer pieces' tokens follow
    source = alphabet.single[letters[starts]]
    lengths = None  # with ``ends``: the length of each token of ``source``
    if long_at.size:
        m_starts, m_sizes = starts[long_at], sizes[long_at]
        del starts, sizes
        occ, rep = _piece_classes(letters, m_starts, m_sizes, alphabet.size)
        d_sizes = m_sizes[rep].astype(np.int64)
        d_first = np.cumsum(d_sizes) - d_sizes
        d_letters = letters[_ragged(m_starts[rep].astype(np.int64), d_sizes)]
        del m_starts, m_sizes
        d_cps = alphabet.chars[d_letters]
        rem = _ragged(d_sizes, d_sizes, -1)
        reach = alphabet.pair_reach(d_letters)  # a small alphabet's table: no hash probes
        start, length, tid, score = _edges(d_cps, rem, tables, token_hash, unk_id, alphabet.found[d_letters], reach)
        ids, d_ends, owner = _search(d_first, d_sizes, start, length, tid, score, unk_id)
        tok_count = np.bincount(owner, minlength=d_sizes.size)
        tok_first = np.cumsum(tok_count)
        tok_first -= tok_count
        if ends:  # each token's length: its end less the previous end of its piece
            d_len = d_ends.copy()
            d_len[1:] -= d_ends[:-1]
            d_len[tok_first[tok_count > 0]] = d_ends[tok_first[tok_count > 0]]
            lengths = np.concatenate((np.ones(pieces, dtype=index), d_len.astype(index)))
        tok_first += pieces
        at = token_sources(pieces, long_at.astype(index), tok_count.astype(index)[occ], tok_first.astype(index)[occ])
        source = np.concatenate((source, ids.astype(source.dtype)))
    else:
        del starts, sizes
        at = np.arange(pieces, dtype=index)
    del long_at
    token_ends = None
    if ends:
        token_ends = np.cumsum(lengths[at], dtype=np.int64) if lengths is not None else np.arange(1, at.size + 1)
    out = _take_into(source, at)
    del at
    if token_ends is None:
        out = _one_unknown(out, out, unk_id)
    else:
        keep = _one_unknown(out, np.arange(out.size), unk_id)
        out, token_ends = out[keep], token_ends[keep]
        if kept is not None and kept.size < kept[-1] + 1:  # back to the letters given
            token_ends = kept[token_ends - 1] + 1
    return out, token_ends


_BLOCK = 1 << 14
"""Elements per block of the block-wise loops: their temporaries stay small enough to be reused."""


def _take_into(source: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``source[at]``, written over ``at`` when the types agree, a block at a time (no second
    array of the text's tokens: fresh memory costs a page fault per 4 KB on a first encode;
    ``np.take(source, at, out=at)`` at once is ten times slower)."""
    if at.dtype != source.dtype:
        return source[at]
    for lo in range(0, at.size, _BLOCK):
        block = at[lo : lo + _BLOCK]
        np.take(source, block, out=block, mode="clip")
    return at


def _piece_starts(letters: np.ndarray, alphabet: Alphabet, token_hash: TokenHash, index: DTypeLike) -> np.ndarray:
    """Where each piece starts (in ``index``): 0 and every boundary no token crosses, a block
    of letters at a time into one array of the text's size whose untouched tail costs nothing
    (the temporaries are a block's, reused: fresh memory costs a page fault per 4 KB on a first
    encode)."""
    n = letters.size
    starts = np.empty(n, dtype=index)
    starts[0] = 0
    count = 1
    for lo in range(0, n - 1, _BLOCK):
        cut = alphabet.joined(letters[lo : lo + _BLOCK + 1], token_hash)  # boundaries lo+1 ..
        np.logical_not(cut, out=cut)
        at = np.flatnonzero(cut)
        np.add(at, lo + 1, out=starts[count : count + at.size], casting="unsafe")
        count += at.size
    return starts[:count]


def _one_unknown(ids: np.ndarray, values: np.ndarray, unk_id: int) -> np.ndarray:
    """``values`` (one per token of ``ids``) without those of unknown tokens followed by
    another: consecutive unknown tokens collapse into one, as in llama.cpp. Moved down in
    place a block at a time (a vocab that lacks the Latin letters makes every letter of
    English text an unknown token of its own: half the tokens go)."""
    w = 0
    for lo in range(0, ids.size, _BLOCK):
        unknown = ids[lo : lo + _BLOCK + 1] == unk_id
        block = values[lo : lo + _BLOCK]
        gone = unknown[:-1] & unknown[1:]  # (the last block has no token after it)
        if gone.any():
            block = block[np.logical_not(gone, out=gone)] if gone.size == block.size else block[np.append(~gone, True)]
        elif w == lo:
            w += block.size
            continue
        values[w : w + block.size] = block
        w += block.size
    return values[:w]


def token_sources(pieces: int, long_at: np.ndarray, count: np.ndarray, first: np.ndarray) -> np.ndarray:
    """``_ragged(src, cnt)`` where ``src = arange(pieces)`` and ``cnt = ones(pieces)`` but for
    the pieces ``long_at`` (sorted, distinct), whose ``src`` and ``cnt`` are ``first`` and
    ``count`` (each at least 1): the index in ``source`` of each token of the text. Single
    pieces run on by steps of 1, the cumulative sum's default: only the starts of long pieces
    and of the pieces right after them take a jump, so no array per piece is built (65k of
    193k pieces are long in the benchmark's corpus; fresh memory costs a page fault per 4 KB
    on a first encode). All arrays of ``long_at``'s dtype."""
    kind = long_at.dtype
    extra = count - 1
    before = np.cumsum(extra, dtype=kind)  # extra tokens up to and with each long piece
    total = pieces + int(before[-1])
    before -= extra
    pos = long_at + before  # where each long piece's tokens start
    prev = long_at - 1  # the value before it: that of the single piece before it...
    m = long_at.size
    if m > 1:  # ...or the last token of the long piece right before it
        after_long = np.flatnonzero(long_at[1:] == long_at[:-1] + 1) + 1
        prev[after_long] = first[after_long - 1] + extra[after_long - 1]
    if long_at[0] == 0:
        prev[0] = 0  # the first token's value is its own jump (from 0)
    out = np.ones(total, dtype=kind)
    out[0] = 0  # the first single piece's value, unless a long piece starts there
    last = first + extra  # each long piece's last token's value
    follow = long_at + 1  # single pieces right after a long one: value = piece index
    keep = follow < pieces
    if m > 1:
        keep[:-1] &= long_at[1:] != follow[:-1]
    at_f = np.flatnonzero(keep)
    out[pos[at_f] + count[at_f]] = follow[at_f] - last[at_f]
    out[pos] = first - prev
    np.cumsum(out, dtype=kind, out=out)
    return out


_MASKS = np.array([(1 << (8 * k)) - 1 for k in range(9)], dtype=np.uint64)


def _piece_classes(
    letters: np.ndarray, starts: np.ndarray, sizes: np.ndarray, alphabet_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Pieces ``letters[starts[k] : starts[k] + sizes[k]]`` (two letters or more): each one's
    class index, and one piece of each class (index arrays of ``starts``'s dtype). A piece
    of up to 15 bytes (letters as 1, 2 or 4 bytes) is named exactly by two 64-bit words: up
    to 7 bytes, its bytes and its length in the first (the second 0); 8 to 15, its first 8
    bytes, then the rest and its length (never 0). Longer ones (rare) by
    ``_distinct_pieces`` (a checked polynomial key)."""
    wide = 1 if alphabet_size < 0x100 else 2 if alphabet_size < 0x10000 else 4
    raw = np.zeros(letters.size * wide + 16, dtype=np.uint8)  # one copy, 16 zero bytes after
    raw[: letters.size * wide].view({1: "u1", 2: "<u2", 4: "<u4"}[wide])[:] = letters
    words = np.ndarray(shape=(raw.size - 8,), dtype="<u8", buffer=raw, strides=(1,))  # 8 bytes from each offset
    size = sizes * wide if wide > 1 else sizes
    begin = starts * wide if wide > 1 else starts
    short = np.flatnonzero(size <= 15)
    at, n = (begin, size) if short.size == starts.size else (begin[short], size[short])
    first = words[at]
    first &= _MASKS[np.minimum(n, 8)]
    top = n.astype(np.uint64)  # the length in the top byte: of the first word up to 7 bytes
    top <<= np.uint64(56)
    second = np.zeros(first.size, dtype=np.uint64)
    big = np.flatnonzero(n > 7)  # 8 to 15 bytes: the first word full, the length in the second
    if big.size:
        more = words[at[big] + 8]
        more &= _MASKS[n[big] - 8]
        more |= top[big]
        second[big] = more
        top[big] = 0
    first |= top
    del top, at, n
    occ = np.empty(starts.size, dtype=starts.dtype)
    inverse, winners = _classes(first, second, starts.dtype)
    occ[short] = inverse
    rep = short[winners].astype(starts.dtype)
    if short.size < starts.size:
        long = np.flatnonzero(size > 15)
        l_sizes = sizes[long].astype(np.int64)
        l_first = np.cumsum(l_sizes) - l_sizes
        l_occ, l_rep = _distinct_pieces(letters[_ragged(starts[long].astype(np.int64), l_sizes)], l_first, l_sizes)
        occ[long] = l_occ + rep.size
        rep = np.concatenate((rep, long[l_rep].astype(starts.dtype)))
    return occ, rep


def _classes(key: np.ndarray, key2: np.ndarray, index: DTypeLike = np.int64) -> tuple[np.ndarray, np.ndarray]:
    """``arrays.chunks.hash_unique(key, key2)`` for few distinct pairs among many (4.9k among
    65k pieces): one table of at most 64k slots, reused by every round (fresh memory costs a
    page fault per 4 KB on a first encode). Each round scatters the pairs left (the last
    writer of a slot wins) and resolves every pair equal to its slot's winner. Indices in
    ``index`` (int32 when the caller's pieces fit)."""
    n = key.size
    bits = max(8, min(16, (2 * n).bit_length()))
    shift = np.uint64(64 - bits)
    table = np.empty(1 << bits, dtype=index)
    mixed = key2 * np.uint64(0xC2B2AE3D27D4EB4F)
    mixed ^= key
    slot = mixed * np.uint64(0x9E3779B97F4A7C15)  # the first round over every pair, in place
    slot >>= shift
    home = slot.view(np.int64)  # below 2**16
    table[home] = np.arange(n, dtype=index)
    won = table[home]
    del slot, home
    same = key[won] == key
    same &= key2[won] == key2
    todo = np.flatnonzero(~same)
    del same
    attempt = 1
    while todo.size:  # the pairs that lost their slot to another pair: again, with another hash
        salt = np.uint64(attempt * 0x5851F42D4C957F2D % (1 << 64))
        slot = (((mixed[todo] ^ salt) * np.uint64(0x9E3779B97F4A7C15)) >> shift).astype(np.int64)
        table[slot] = todo
        got = table[slot]
        hit = (key[got] == key[todo]) & (key2[got] == key2[todo])
        won[todo[hit]] = got[hit]
        todo = todo[~hit]
        attempt += 1
    is_first = np.zeros(n, dtype=bool)
    is_first[won] = True
    rank = np.cumsum(is_first, dtype=index)
    rank -= 1
    return rank[won], np.flatnonzero(is_first)


def _ragged(starts: np.ndarray, counts: np.ndarray, step: int = 1) -> np.ndarray:
    """``concatenate([starts[k] + step * arange(counts[k]) for k])`` (of ``starts``'s dtype),
    by one cumulative sum (``np.repeat`` with counts is several times slower); every count is
    at least 1."""
    total = int(counts.sum())
    out = np.full(total, step, dtype=starts.dtype)
    if total:
        first = np.cumsum(counts)
        first -= counts
        jump = np.empty(starts.size, dtype=starts.dtype)  # from the last value of one run to the next start
        jump[0] = starts[0]
        np.subtract(starts[1:], starts[:-1], out=jump[1:])
        tail = jump[1:]  # minus (count - 1) * step, in place
        if step == 1:
            tail -= counts[:-1]
        else:
            tail -= counts[:-1] * step
        tail += step
        out[first] = jump
        del first, jump, tail
        np.cumsum(out, dtype=out.dtype, out=out)
    return out
