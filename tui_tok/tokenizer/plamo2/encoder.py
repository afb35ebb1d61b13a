"""PLaMo2 as llama.cpp runs it (``plamo2/reference.py`` states it, suffix table and all): a
best-cost path over code points, byte tokens for the rest.

llama.cpp's ``llm_tokenizer_plamo2`` (llama-vocab.cpp:1367-1646) builds its suffix table only to
list, at each position, the tokens that are prefixes of the rest of the text (seconds for a
real vocabulary). This module lists them with a code-point trie instead and keeps the rest
exactly: the integer scores (``int_score``), the strictly-smaller rule, the unknown step and a
token scoring exactly -10,000,000 ending the candidates, the byte tokens and spans
(``path_pieces``). A token text that is not valid UTF-8 (or that re-encodes differently) never
matches, as in llama.cpp, whose table is keyed by re-encoded strings. Does not split special
tokens: see ``tokenizer.py``.

Equal to ``plamo2/reference.py`` (``tests/tokenizer/plamo2/test_plamo2.py``,
``tests/tokenizer/test_reference.py``).
"""

from __future__ import annotations

import threading

import numpy as np

from tui_tok.errors import VocabError
from tui_tok.tokenizer.core.encoder import Encoder
from tui_tok.tokenizer.core.paths import AUTO, Paths
from tui_tok.tokenizer.core.spans import decode_with_offsets, expand_pieces
from tui_tok.tokenizer.core.types import Piece, TokenAttr
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.plamo2.reference import INVALID_SCORE, UNKNOWN_SCORE, byte_table, int_score, path_pieces
from tui_tok.tokenizer.unicode.data import MAX_CODEPOINTS, cpt_to_utf8

__all__ = ["INVALID_SCORE", "UNKNOWN_SCORE", "Plamo2Encoder", "byte_table", "int_score"]

_INF = 1 << 60
_VALUE = -1  # key under which a trie node stores (token id, int score)
_PAIR = 0x200000  # pair code a * _PAIR + b (decoded code points stay below 0x200000)
_CACHE_LIMIT = 1 << 16


def _candidate_cps(tid: int, text: str) -> list[int] | None:
    """The token's code points, or None if llama.cpp's re-encoded keys can never match it."""
    try:
        return list(map(ord, text.encode("utf-8", "surrogateescape").decode("utf-8")))
    except UnicodeDecodeError:
        pass
    raw = text.encode("utf-8", "surrogateescape")
    cps, _ = decode_with_offsets(raw)
    if any(cp >= MAX_CODEPOINTS for cp in cps):
        raise VocabError(f"PLaMo2 token {tid} decodes to a code point above U+10FFFF: llama.cpp refuses to load it")
    if b"".join(cpt_to_utf8(cp) for cp in cps) != raw:
        return None  # llama.cpp keys its table by re-encoded text: this one never matches
    return cps


class Plamo2Encoder(Encoder):
    """llama.cpp's PLaMo2 dynamic programme for one vocab."""

    def __init__(self, vocab: Vocab, *, paths: Paths = AUTO) -> None:
        self.vocab = vocab
        self.paths = paths
        self.bytes = byte_table(vocab)
        self._root: dict | None = None
        self._pairs: np.ndarray | None = None
        self._cache: dict[bytes, tuple[Piece, ...]] = {}
        self._build_lock = threading.Lock()

    def _trie(self) -> dict:
        """Code-point trie of candidate tokens: node[cp] -> child, node[-1] = (id, int score)."""
        if self._root is None:
            with self._build_lock:  # one build, not one per waiting thread
                if self._root is not None:
                    return self._root
                root: dict = {}
                pairs: set[int] = set()
                for tid, text in enumerate(self.vocab.tokens):
                    if int(self.vocab.attrs[tid]) & TokenAttr.BYTE:
                        continue
                    cps = _candidate_cps(tid, text)
                    if cps is None:
                        continue
                    score = int_score(float(self.vocab.scores[tid]))
                    if score <= INVALID_SCORE:
                        continue
                    node = root
                    for cp in cps:
                        child = node.get(cp)
                        if child is None:
                            child = node[cp] = {}
                        node = child
                    node[_VALUE] = (tid, score)
                    pairs.update(a * _PAIR + b for a, b in zip(cps, cps[1:]))
                self._pairs = np.array(sorted(pairs), dtype=np.int64)
                self._root = root
        return self._root

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Tokenize one raw fragment; ``after_special`` does not matter for PLaMo2.

        Between two code points that no candidate token holds side by side, every path of the
        DP passes, so the text is cut there and each distinct piece is solved once (cached):
        the costs on either side differ by a constant, which changes no comparison.
        """
        cps, offsets = decode_with_offsets(text)
        skip = 1 if cps and cps[0] == 0xFEFF else 0
        n = len(cps) - skip
        if n <= 0:
            return []
        self._trie()
        assert self._pairs is not None
        if n < self.paths.plamo2_split_from:  # short: cutting costs more than it saves
            return self._dp(cps[skip:], offsets[skip:])
        arr = np.array(cps[skip:], dtype=np.int64)
        cuts = np.flatnonzero(~np.isin(arr[:-1] * _PAIR + arr[1:], self._pairs)) + 1 + skip
        bounds = [offsets[skip], *[offsets[k] for k in cuts.tolist()], offsets[-1]]
        chunks = [text[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        return expand_pieces(chunks, np.array(bounds[:-1], dtype=np.int64), self._chunk_pieces)

    def _chunk_pieces(self, chunk: bytes) -> tuple[Piece, ...]:
        """DP of one piece (cut at code point boundaries, so it decodes as within the whole)."""
        pieces = self._cache.get(chunk)
        if pieces is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            cps, offsets = decode_with_offsets(chunk)
            pieces = self._cache[chunk] = tuple(self._dp(cps, offsets))
        return pieces

    def _dp(self, cps: list[int], offsets: list[int]) -> list[Piece]:
        """llama.cpp's DP over ``cps`` (no BOM handling); spans via ``offsets``."""
        n = len(cps)
        root = self._trie()
        cost = [_INF] * (n + 1)
        cost[n] = 0
        path = [(0, -1, 0)] * (n + 1)  # (length, token id or -1, score) of the step from i
        for i in range(n - 1, -1, -1):
            matches: list[tuple[int, int, int]] = []  # (length, id, score), shortest first
            node = root.get(cps[i])
            j = i + 1
            while node is not None:
                hit = node.get(_VALUE)
                if hit is not None:
                    matches.append((j - i, hit[0], hit[1]))
                if j >= n:
                    break
                node = node.get(cps[j])
                j += 1
            best = _INF
            step = (0, -1, 0)
            for match in reversed(matches):
                length, _, score = match
                c = cost[i + length] - score
                if c < best:
                    best, step = c, match
                if score == UNKNOWN_SCORE:
                    break
            else:
                c = cost[i + 1] - UNKNOWN_SCORE
                if c < best:
                    best, step = c, (1, -1, UNKNOWN_SCORE)
            cost[i] = best
            path[i] = step
        return path_pieces(self.bytes, cps, offsets, path, None)
