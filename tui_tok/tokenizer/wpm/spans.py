"""WPM tokens with byte spans in whole arrays: the ids path's words and walk, spans from lengths.

A tuple per token from a word-by-word walk cost ~0.2 s for the 0.56 MB benchmark text, where
the ids path (``encode_fragment_ids``) takes ~0.02 s. Here the spans come from the ids path itself:

1. the text is cut into byte-range words as for the ids (``WpmEncoder.plan``); a plain ASCII
   word that is one token whole (most words of prose) covers its own bytes;
2. the distinct other words are walked together (``WpmEncoder.distinct_ids``), in one buffer
   ``▁w0▁w1...`` of the normalised words; each character's normalised length (0 if dropped)
   places it in that buffer, each token's byte length places its end, and a ``searchsorted``
   gives each token the kept characters whose first normalised byte it holds; a word that is
   one token (an unknown word included) covers its characters up to its last kept one;
3. the per-word spans are chained back to every occurrence, as the ids are (``chain_flat``).

Same ids and spans as ``wpm/reference.py`` (``tests/tokenizer/wpm/test_wpm_spans.py``).
Returns None where ``plan`` does (invalid UTF-8, a token too long for ``TokenTable``).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from tui_tok.tokenizer.arrays.chunks import chain_flat
from tui_tok.tokenizer.core.spans import utf8_lens
from tui_tok.tokenizer.core.types import PieceArrays
from tui_tok.tokenizer.wpm.table import TokenTable

_PHANTOM = "\u2581".encode()

Plan = tuple[TokenTable, np.ndarray, np.ndarray, np.ndarray, list[bytes], np.ndarray, np.ndarray]
"""``WpmEncoder.plan``: the table, each word's start and end byte, its chunk (an index into the
distinct words to walk, then one per whole-token word), those distinct words, the whole-token
words and their ids."""


class WpmEncoder(Protocol):
    """What this module uses of ``wpm/encoder.py``'s ``WpmEncoder`` (which imports this module)."""

    _norm: dict[int, str | None]
    _lengths: np.ndarray | None

    def plan(self, text: bytes) -> Plan | None: ...

    def distinct_ids(self, table: TokenTable, words: list[bytes]) -> tuple[np.ndarray, np.ndarray]: ...

    def learn(self, cps: set[int] | list[int]) -> None: ...


def fragment_arrays(enc: WpmEncoder, text: bytes) -> PieceArrays | None:
    """``enc.encode_fragment(text)`` as int64 columns (ids, starts, ends), or None (module doc)."""
    plan = enc.plan(text)
    if plan is None:
        return None
    table, starts, ends, occ, distinct, hit, hit_ids = plan
    flat, rel_starts, rel_ends, sizes = _distinct_spans(enc, table, distinct)
    if len(hit):  # a whole-token word covers its own bytes
        flat = np.concatenate([flat, hit_ids])
        rel_starts = np.concatenate([rel_starts, np.zeros(len(hit), dtype=np.int64)])
        rel_ends = np.concatenate([rel_ends, ends[hit] - starts[hit]])
        sizes = np.concatenate([sizes, np.ones(len(hit), dtype=np.int64)])
    base = np.repeat(starts, sizes[occ])  # each token's word start
    out_starts = chain_flat(occ, rel_starts, sizes)
    out_starts += base
    out_ends = chain_flat(occ, rel_ends, sizes)
    out_ends += base
    return chain_flat(occ, flat, sizes), out_starts, out_ends


def _distinct_spans(enc: WpmEncoder, table: TokenTable, words: list[bytes]) -> tuple[np.ndarray, ...]:
    """The ids of ``words`` (distinct, valid UTF-8) flat, each token's start and end byte within
    its word, and each word's token count."""
    if not words:
        none = np.zeros(0, dtype=np.int64)
        return none, none, none, none
    flat, sizes = enc.distinct_ids(table, words)
    # every character of " w0 w1 ...": a space stands for the ▁ before each word (3 normalised
    # bytes, 1 byte of the joined text), so positions in the walked buffer and in the joined
    # bytes are cumulative sums of the two lengths
    joined = (b" " + b" ".join(words)).decode("utf-8")
    cps = np.frombuffer(joined.encode("utf-32-le"), dtype="<u4")
    sep = cps == 0x20
    raw_len = utf8_lens(cps.astype(np.int64))
    norm_len = _normalised_lengths(enc, cps)
    norm_len[sep] = len(_PHANTOM)
    norm_at = np.cumsum(norm_len) - norm_len  # where each character starts in the walked buffer
    raw_end = np.cumsum(raw_len)  # where each character ends in the joined bytes
    raw_at = raw_end - raw_len
    slot = np.flatnonzero(sep)  # each word's ▁
    word_at = raw_at[slot] + 1  # each word's first byte in the joined bytes
    kept = np.flatnonzero((norm_len > 0) & ~sep)
    kept_at = norm_at[kept]
    # each token's end in the walked buffer: its word's ▁ plus the lengths of the tokens before
    # it in that word (per word: an unknown word's one token has no meaningful length)
    word_of = np.repeat(np.arange(len(words), dtype=np.int64), sizes)
    first = np.cumsum(sizes) - sizes
    assert enc._lengths is not None  # built with the table
    lengths = enc._lengths.take(flat)
    run = np.cumsum(lengths)
    run -= np.repeat(run[first] - lengths[first] - norm_at[slot], sizes)
    k_end = np.searchsorted(kept_at, run, side="left")  # the kept characters before each token's end
    word_first = np.searchsorted(kept_at, norm_at[slot], side="left")  # every word has one
    k_begin = np.empty_like(k_end)
    k_begin[1:] = k_end[:-1]
    k_begin[first] = word_first
    origin = word_at[word_of]
    # a token's span ends after its last kept character; one holding no character's first byte
    # (a lone ▁) sits where the previous token of its word ended, or at the word's start
    ends = np.where(k_end > word_first[word_of], raw_end[kept[np.maximum(k_end - 1, 0)]] - origin, 0)
    starts = np.where(k_end > k_begin, raw_at[kept[np.minimum(k_begin, len(kept) - 1)]] - origin, ends)
    # a word of one token (an unknown word too): all its characters up to its last kept one
    single = np.flatnonzero(sizes == 1)
    if len(single):
        word_end = np.append(norm_at[slot[1:]], norm_at[-1] + norm_len[-1])  # the next word's ▁
        last = np.searchsorted(kept_at, word_end, side="left") - 1
        starts[first[single]] = 0
        ends[first[single]] = raw_end[kept[last[single]]] - word_at[single]
    return flat, starts, ends, sizes


def _normalised_lengths(enc: WpmEncoder, cps: np.ndarray) -> np.ndarray:
    """int64 UTF-8 length of each code point's normalised text (0: dropped), learning new ones."""
    unique, inverse = np.unique(cps, return_inverse=True)
    points = unique.tolist()
    norm = enc._norm
    new = [cp for cp in points if cp not in norm]
    if new:
        enc.learn(new)
    lens = [0 if norm[cp] is None else len(norm[cp].encode("utf-8", "surrogatepass")) for cp in points]  # type: ignore[union-attr]
    return np.array(lens, dtype=np.int64)[inverse.reshape(-1)]
