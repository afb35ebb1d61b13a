"""UGM's proof (5) of ``tokenizer/cuts.py``: when every Viterbi score sum is exact in double.

A cut's right side is encoded apart and its comparisons are those of the whole text shifted by
one constant only when no sum rounds, in the whole text and in the stretch. ``exact_sums`` proves
it for every text up to a length; ``UgmSums`` for one text of any length, from its own tokens.
Line numbers are llama.cpp's ``src/llama-vocab.cpp``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from tui_tok.tokenizer.core.types import PieceArrays, TokenAttr
from tui_tok.tokenizer.core.vocab import Vocab

Spread = tuple[Fraction, int] | None
"""What ``cuts.charsmap_ends`` finds of the charsmap's replacements for ``UgmSums`` (its doc)."""


def exact_sums(vocab: Vocab, scores32: np.ndarray) -> int | None:
    """The longest normalised text (bytes) on which every Viterbi score sum is exact in double.

    Every search score (float32, 0 for user-defined, and the unknown score) is a multiple of
    ``2**e`` (``e`` the smallest exponent of a last mantissa bit); a path has at most one edge per
    byte of normalised text, so its sum is at most ``n * max|score|``. A double holds every
    multiple of ``2**e`` up to ``2**(53 + e)`` exactly, so with ``n * max|score| < 2**(53 + e)``
    no sum rounds (the caller divides by how much the normalisation can grow a text). Returns
    None for "any length" only when all scores are 0.
    """
    s = np.append(scores32[np.isfinite(scores32)].astype(np.float32), np.float32(_unknown_score(vocab)))
    if not np.all(np.isfinite(scores32)) or not np.isfinite(s[-1]):
        return 0
    nz = s[s != 0].astype(np.float64)
    if not nz.size:
        return None
    e = _unit_exponent(nz)
    top = float(np.abs(nz).max())
    return max(0, int(math.ldexp(1.0, 53 + e) / top) - 2)


def _unit_exponent(nz: np.ndarray) -> int:
    """The largest ``e`` with every value (nonzero float32s, as float64) a multiple of ``2**e``."""
    mant, exp = np.frexp(nz)  # nz = mant * 2**exp, 0.5 <= |mant| < 1, 24 significant bits
    scaled = (np.abs(mant) * 2.0**24).astype(np.int64)  # an integer
    lowest = np.frexp((scaled & -scaled).astype(np.float64))[1] - 1  # its lowest set bit
    return int((exp - 24 + lowest).min())


def _unknown_score(vocab: Vocab) -> float:
    """llama.cpp's ``unknown_token_score`` (V:928-944): float32 ``min(NORMAL scores) - 10``, a NaN
    never the min (``std::min``), ``FLT_MAX - 10`` without NORMAL tokens."""
    normal = vocab.scores.astype(np.float32)[(vocab.attrs & int(TokenAttr.NORMAL)) != 0]
    low = np.float32(normal[~np.isnan(normal)].min(initial=np.finfo(np.float32).max))
    return float(np.float32(low - np.float32(10.0)))


@dataclass(frozen=True, eq=False)
class UgmSums:
    """Proof (5) for one text of any length, from the weight of its own tokens (every search
    score <= 0 needed).

    llama.cpp's search (V:996-1049) sets ``best[0] = 0`` and offers ``best[i] + s`` at each step
    start i (steps of ``unicode_len_utf8``), s a trie token's search score or the unknown
    score; with every s <= 0, every offer is <= 0. Let P be the best path under exact sums, T
    its total. A step start i lies in an edge [u, v) of P: ``best[u] >= T`` (the rest of P only
    adds scores <= 0), and single steps lead from u to i (a one-character token or the unknown
    edge each, each >= -M, M the largest |score|), fewer than L of them (L: 4 bytes per
    character of the longest trie token; a step takes a byte at least). So every offer is
    >= T - L*M. Scores are multiples of ``2**e`` and a double holds each such multiple up to
    ``2**(53 + e)``: by induction over the search no sum rounds when ``|T| + L*M < 2**(53 + e)``.
    The search's output is a path, so T >= its exact sum and ``|T| <= weight(output) * 2**e``:
    ``weight <= cap`` proves the text after its encode, even one whose sums rounded. An edit
    between cuts changes the weight by the new stretch's minus the old one's
    (``explore/cut_edit.py``); raw fragments of one text are searched apart, each lighter.

    ``weight`` counts a token's |score| / ``2**e``. An unknown token (unknown edges merged,
    V:1052-1062) has one edge per step of its normalised bytes. The normaliser (V:1078-1122,
    1171-1248) cuts the input into chunks (a user-defined prefix, a charsmap key or one
    character); a chunk's output has at most its replacement's steps plus one (a space in it
    becomes one space string, or none and one is inserted before the next character; one
    more may be inserted before its first), at most ``per_byte`` per input byte and
    ``per_token`` in all; and a boundary inside a chunk's output maps to the chunk's start or
    end (``ugm/normalize.py``). So a token over input bytes ``[s, e)`` holds the chunks inside
    them, the rest of the one ending at s and an inserted space of the one starting at e: at
    most ``per_byte * (e - s) + per_token`` steps. Counting per chunk needs whole steps in each
    output: user-defined texts in ASCII (a prefix of one is copied) and charsmap replacements
    of whole steps (``charsmap_ends``).
    """

    weights: np.ndarray
    """int64 |search score| / 2**e by id (0 for ids not in the trie: never a search edge)."""
    unk_id: int
    unk_weight: int
    """The largest |score| / 2**e of an edge an unknown token can hold."""
    per_byte: Fraction
    per_token: int
    cap: int
    """The largest weight of a proven text: ``2**53 - 1 - L*M / 2**e``."""

    @classmethod
    def of(cls, vocab: Vocab, scores32: np.ndarray, spread: Spread, user: list[bytes]) -> UgmSums | None:
        """The proof's constants for ``vocab``, or None where it does not hold."""
        in_trie = (vocab.attrs & int(TokenAttr.NORMAL | TokenAttr.USER_DEFINED | TokenAttr.UNUSED)) != 0  # V:933
        unk, unk_id = _unknown_score(vocab), vocab.unk_id
        trie = scores32[in_trie].astype(np.float64)
        if spread is None or not all(t.isascii() for t in user) or not 0 <= unk_id < len(scores32):
            return None
        if not (np.isfinite(trie).all() and (trie <= 0).all() and math.isfinite(unk) and unk <= 0):
            return None
        nz = np.append(trie[trie != 0], unk)
        e = _unit_exponent(nz[nz != 0]) if nz.any() else 0
        weights = np.ldexp(np.where(in_trie, -scores32.astype(np.float64), 0.0), -e)
        unk_weight = math.ldexp(max(-unk, float(weights[unk_id]) * 2.0**e), -e)
        top = max(float(weights.max(initial=0.0)), unk_weight)
        longest = 4 * max(map(len, (vocab.tokens[i] for i in np.flatnonzero(in_trie))), default=1)
        cap = 2**53 - 1 - longest * int(top)
        if cap <= 0 or spread[0].numerator >= 2**20:
            return None
        per_user = max(map(len, user), default=0) + 1
        return cls(
            weights.astype(np.int64), unk_id, int(unk_weight), max(spread[0], Fraction(2)),
            max(spread[1], 2, per_user), cap,
        )  # fmt: skip

    def weight(self, tokens: PieceArrays) -> int:
        """The weight of a text's tokens (ids and input spans): its best path's total bounded."""
        ids, starts, ends = tokens
        step = max(1, 2**63 // max(1, int(self.weights.max(initial=0))))  # ids per int64 sum that cannot overflow
        total = 0
        for at in range(0, len(ids), step):
            total += int(self.weights[ids[at : at + step]].sum())
            if total > self.cap:
                return total
        unknown = ids == self.unk_id
        if unknown.any():
            spans = ends[unknown].astype(np.int64) - starts[unknown]
            f = self.per_byte
            steps = int((spans * f.numerator // f.denominator).sum()) + self.per_token * len(spans)
            total += self.unk_weight * steps
        return total
