"""Search tables of the UGM encoder, built once per vocab (V:903-950), plus the vocab checks
that decide whether the per-unit cache of ``ugm/encoder.py`` is exact (its conditions 1-3).

The trie of llama.cpp holds every token whose attributes include NORMAL, USER_DEFINED or
UNUSED (so a CONTROL|UNUSED token joins); here it is a dict text -> id plus an ``in_trie_mask``
flag per id, and the longest token per first two characters bounds the lookups at a position.
A USER_DEFINED token scores 0 in the search; ``unk_score = min(NORMAL scores) - 10`` in
float32 (``FLT_MAX - 10`` without NORMAL tokens; NaN scores never win ``std::min``).

Everything is vectorised over one joined string of all token texts. Does not search: see ``ugm/batch.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_tok.errors import VocabError
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.ugm.hash import TokenHash, build_token_hash
from tui_tok.tokenizer.ugm.normalize import UgmNormalizer
from tui_tok.tokenizer.ugm.reference import search_scores, trie_mask, unknown_score

_JOINER = "\0"


@dataclass(frozen=True)
class UgmTables:
    """What the search needs, and what the unit cache may assume."""

    ids: dict[str, int]
    """Token text -> id (the trie's id when texts repeat); check ``in_trie_mask`` before use."""
    unk_score: float
    """float32 ``min(NORMAL scores) - 10`` as a Python float."""
    units_ok: bool
    """Conditions 1-2 of ``ugm/encoder.py``'s docstring hold for this vocab."""
    max_exact_bytes: int
    """Condition 3 of ``ugm/encoder.py`` holds for normalised fragments up to this many bytes (0: never)."""
    separators: bytes | None
    """``bytes.translate`` table turning every separator into 0x20 (None: 0x20 is the only one)."""
    in_trie_mask: np.ndarray
    """1 at the ids of trie tokens (NORMAL, USER_DEFINED or UNUSED attribute), as a bool array."""
    score_array: np.ndarray
    """Search score by id (the float32 score, 0 for USER_DEFINED) as a float64 array."""
    pair_keys: np.ndarray
    """Sorted int64 keys ``(first << 21) | second`` of the code-point pairs that begin a token (of >= 2 characters)."""
    pair_lens: np.ndarray
    """The longest token (characters) starting with each pair of ``pair_keys``."""
    token_cps: np.ndarray
    """Code points of all token texts, joined (uint32), for ``trie_hash``."""
    token_starts: np.ndarray
    """Where each token's text starts in ``token_cps`` (int64, by id)."""
    token_lengths: np.ndarray
    """Each token's length in characters (int64, by id)."""


def _frac_bits(values: np.ndarray) -> int:
    """Smallest f with every value a multiple of 2**-f (values finite float32 in float64)."""
    nz = values[values != 0]
    if nz.size == 0:
        return 0
    _, exp = np.frexp(nz)  # |v| = m * 2**exp, 0.5 <= m < 1, m has 24 significant bits
    return int(max(0, int((24 - exp).max())))


def _pair_max_len(cps: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Longest token per first two characters, from the joined code points of all tokens: sorted
    ``(first << 21) | second`` keys with their lengths.

    One sort of ``(pair << 20) | length`` keys; the last entry of each pair holds its maximum.
    """
    two = lengths >= 2
    if not two.any():
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    length = lengths[two]
    if int(length.max()) >= 1 << 20:  # cannot pack: an exact (slower) two-key sort
        pair = (cps[starts[two]].astype(np.int64) << 21) | cps[starts[two] + 1].astype(np.int64)
        order = np.lexsort((length, pair))
        packed_pair, packed_len = pair[order], length[order]
    else:
        packed = (cps[starts[two]].astype(np.int64) << 41) | (cps[starts[two] + 1].astype(np.int64) << 20) | length
        packed.sort()
        packed_pair, packed_len = packed >> 20, packed & ((1 << 20) - 1)
    is_last = np.append(packed_pair[1:] != packed_pair[:-1], True)
    return packed_pair[is_last].astype(np.int64), packed_len[is_last].astype(np.int64)


def build_tables(vocab: Vocab, normalizer: UgmNormalizer) -> UgmTables:
    """The search tables, and whether (and up to what length) the unit cache is exact."""
    texts = vocab.tokens
    in_trie = trie_mask(vocab)
    unk_score = unknown_score(vocab)
    scores32 = search_scores(vocab)

    if len(vocab.token_to_id) == len(texts):
        ids = vocab.token_to_id  # texts are unique (llama.cpp refuses duplicates)
    else:  # keep the trie's id: the last trie token with that text, as naive_trie::insert
        trie_ids = np.flatnonzero(in_trie).tolist()
        ids = dict(zip([texts[i] for i in trie_ids], trie_ids))
    # first character and length of every token, vectorised over one joined string
    # joined with NUL: token boundaries are where it is (no per-token len()) unless a text
    # holds NUL itself
    joined = _JOINER.join(texts)
    cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    cuts = np.flatnonzero(cps == ord(_JOINER))
    if cuts.size == len(texts) - 1:
        starts = np.zeros(len(texts), dtype=np.int64)
        starts[1:] = cuts + 1
        lengths = np.empty(len(texts), dtype=np.int64)
        lengths[:-1] = cuts - starts[:-1]
        lengths[-1:] = cps.size - starts[-1:]
    else:  # some text holds the joiner itself
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        starts = np.cumsum(lengths + 1) - (lengths + 1)
    last = max(cps.size - 1, 0)
    first_cp = np.where(lengths > 0, cps[np.minimum(starts, last)], 0)
    pair_keys, pair_lens = _pair_max_len(cps, starts, lengths)

    space = normalizer.space.decode("utf-8")
    inner = joined.count(space) - int(np.count_nonzero((first_cp == ord(space)) & (lengths > 0)))
    inner -= sum(texts[i].count(space) - texts[i].startswith(space) for i in np.flatnonzero(~in_trie))
    separators = separator_bytes(normalizer)
    units_ok = inner == 0 and b" " in separators

    search = np.append(scores32[in_trie], np.float32(unk_score)).astype(np.float64)
    single = in_trie & (lengths == 1)
    single_max = float(np.abs(scores32[single]).max()) if single.any() else 0.0
    score_array = scores32.astype(np.float64)
    max_exact = 0
    if np.isfinite(search).all():
        f = _frac_bits(search)
        a = float(np.abs(search).max())
        b = max(abs(unk_score), single_max, float(search.max()), 1.0)
        limit = 2.0**53 / 2.0**f - a
        max_exact = int(max(0.0, limit / b - 1))
    return UgmTables(
        ids=ids,
        unk_score=unk_score,
        units_ok=units_ok,
        max_exact_bytes=max_exact,
        separators=bytes.maketrans(separators, b" " * len(separators)) if len(separators) > 1 else None,
        in_trie_mask=in_trie,
        score_array=score_array,
        pair_keys=pair_keys,
        pair_lens=pair_lens,
        token_cps=cps,
        token_starts=starts,
        token_lengths=lengths,
    )


def trie_hash(tables: UgmTables) -> TokenHash:
    """The bulk-lookup table of the trie tokens (``ugm/hash.py``): each text in ``ids`` whose
    id is in the trie (empty texts never match in llama.cpp's trie walk)."""
    if len(tables.ids) == tables.token_lengths.size:  # unique texts: every id is its text's id
        chosen = np.flatnonzero(tables.in_trie_mask & (tables.token_lengths > 0))
    else:
        chosen = np.fromiter(tables.ids.values(), dtype=np.int64, count=len(tables.ids))
        chosen = chosen[tables.in_trie_mask[chosen] & (tables.token_lengths[chosen] > 0)]
    return build_token_hash(
        tables.token_cps,
        tables.token_starts,
        tables.token_lengths,
        chosen,
        tables.pair_keys.astype(np.uint64),
        tables.pair_lens,
    )


def separator_bytes(normalizer: UgmNormalizer) -> bytes:
    """Condition 1: ASCII bytes that are always a chunk of their own whose output is 0x20.

    Such a byte is in no user-defined token, only the XCDA root can step on it (one entry
    carries its label) and its walk cannot go on. Each behaves exactly like an input space.
    """
    found = []
    for b in range(0x80):
        if any(b in t for t in normalizer.user_defined):
            continue
        if normalizer.charsmap is not None and normalizer.charsmap.label_count(b) > 1:
            continue
        try:
            rep, used, cont = normalizer.isolated_chunk(bytes((b,)))
        except VocabError:  # a corrupt charsmap: only text holding b raises (as llama.cpp)
            continue
        if rep == b" " and used == 1 and not cont:
            found.append(b)
    return bytes(found)
