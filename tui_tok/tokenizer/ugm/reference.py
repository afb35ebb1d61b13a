"""UGM stated once, as llama.cpp runs it: the reference every fast UGM path is tested equal to.

``llm_tokenizer_ugm_session::tokenize`` (llama-vocab.cpp:983-1067) per raw fragment:

1. normalise (``normalize``, V:1078-1122; ``normalize_prefix``, V:1171-1248): the byte-by-byte
   loop of ``UgmNormalizer.normalize`` (``ugm/normalize.py``: user-defined tokens
   copied, the precompiled charsmap's longest match, else one character or U+FFFD, then the
   whitespace rules), which also maps each normalised byte boundary back to the input;
2. Viterbi (V:996-1049): ``best[0] = 0``; stepping from code point start to code point start
   (the lead byte's announced length, clipped at the end), every token of the trie (NORMAL,
   USER_DEFINED and UNUSED tokens, built at V:925-942) that prefixes the rest offers
   ``best[start] + score`` (a double sum of float32 scores, 0 for USER_DEFINED) to
   ``best[start + len]``, which takes it only if strictly greater; when no token is exactly
   that code point, the unknown token offers ``best[start] + unknown_token_score`` (float32
   ``min(NORMAL scores) - 10``, V:944) for that code point;
3. backtrack from the end (V:1051-1066), consecutive unknown tokens collapsed into one.

The trie walk is written as lookups of ``text[start:start + k]`` for growing k, up to the longest
token beginning with the two bytes at ``start``: the same tokens, shortest first, as walking
``naive_trie`` byte by byte (which cannot get further than such a token).

Hook (for ``explain``): ``on_edge(start, end, token_id, score, total, taken)`` for every offer in
llama.cpp's order (normalised byte offsets; ``total`` the challenger sum, ``taken`` whether it
became the best at ``end``). ``normalize`` and ``search`` are the two steps, public so that explain
can show each.

>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "t5",
...     "tokenizer.ggml.tokens": ["<pad>", "</s>", "<unk>", "▁hi", "▁", "h", "i"],
...     "tokenizer.ggml.scores": [0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -3.0],
...     "tokenizer.ggml.token_type": [3, 3, 2, 1, 1, 1, 1],
...     "tokenizer.ggml.add_space_prefix": True, "tokenizer.ggml.remove_extra_whitespaces": True})
>>> ReferenceEncoder(v).encode_fragment(b"  hi  hix", after_special=False)
[(3, 0, 4), (3, 4, 8), (2, 8, 9)]
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from tui_tok.tokenizer.core.spans import utf8_len
from tui_tok.tokenizer.core.types import Piece, TokenAttr
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.ugm.charsmap import parse_charsmap
from tui_tok.tokenizer.ugm.normalize import ESCAPED_SPACE, Normalized, UgmNormalizer

DBL_MAX = sys.float_info.max
_FLT_MAX = float(np.finfo(np.float32).max)

OnEdge = Callable[[int, int, int, float, float, bool], None]
"""``on_edge(start, end, token_id, score, total, taken)``: one offer of the search, in order."""


def vocab_normalizer(vocab: Vocab) -> UgmNormalizer:
    """The normaliser llama.cpp's UGM builds for ``vocab`` (charsmap, user-defined tokens, flags)."""
    user = np.flatnonzero(vocab.attrs & int(TokenAttr.USER_DEFINED)).tolist()
    return UgmNormalizer(
        charsmap=parse_charsmap(vocab.precompiled_charsmap),
        user_defined=tuple(vocab.tokens[i].encode("utf-8", "surrogateescape") for i in user),
        prepend=vocab.add_space_prefix,
        merge=vocab.remove_extra_whitespaces,
        space=ESCAPED_SPACE if vocab.escape_whitespaces else b" ",
    )


def trie_mask(vocab: Vocab) -> np.ndarray:
    """Ids that llama.cpp puts in its token trie: NORMAL, USER_DEFINED and UNUSED (V:933-937)."""
    mask = int(TokenAttr.NORMAL | TokenAttr.USER_DEFINED | TokenAttr.UNUSED)
    return (vocab.attrs & mask) != 0


def search_scores(vocab: Vocab) -> np.ndarray:
    """float32 score by id as the search uses it: USER_DEFINED tokens count 0 (V:1019-1024)."""
    user = (vocab.attrs & int(TokenAttr.USER_DEFINED)) != 0
    return np.where(user, np.float32(0.0), vocab.scores.astype(np.float32))


def unknown_score(vocab: Vocab) -> float:
    """``unknown_token_score`` (V:928-944): float32 ``min_score - 10``, ``min_score`` taken over the
    NORMAL scores as ``std::min`` takes it (a NaN never wins; it starts at FLT_MAX)."""
    normal_scores = vocab.scores.astype(np.float32)[(vocab.attrs & int(TokenAttr.NORMAL)) != 0]
    min_score = np.float32(normal_scores[~np.isnan(normal_scores)].min(initial=_FLT_MAX))
    return float(np.float32(min_score - np.float32(10.0)))


class ReferenceEncoder:
    """llama.cpp's UGM for one vocab, plainly (a ``FragmentEncoder``; slow: a Python loop per byte)."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self.normalizer = vocab_normalizer(vocab)
        self._trie: dict[bytes, tuple[int, float]] | None = None
        self._longest: dict[bytes, int] = {}  # first two bytes -> longest trie token beginning with them
        self._unk_score = 0.0

    def trie(self) -> dict[bytes, tuple[int, float]]:
        """Token bytes -> (id, search score) of the trie's tokens (V:925-944), built on first use
        (a later id with the same bytes wins, as ``naive_trie::insert``)."""
        if self._trie is None:
            v = self.vocab
            ids = np.flatnonzero(trie_mask(v)).tolist()
            texts = [v.tokens[i].encode("utf-8", "surrogateescape") for i in ids]
            trie = dict(zip(texts, zip(ids, search_scores(v)[ids].tolist())))
            self._unk_score = unknown_score(v)
            longest: dict[bytes, int] = {}
            for raw in trie:
                if len(raw) > longest.get(raw[:2], 0):
                    longest[raw[:2]] = len(raw)
            self._longest = longest
            self._trie = trie  # last: another thread that sees it sees the rest built
        return self._trie

    @property
    def unk_score(self) -> float:
        """``unknown_token_score`` (float32 ``min_score - 10``)."""
        self.trie()
        return self._unk_score

    def normalize(self, text: bytes) -> Normalized:
        """Step 1: the normalised bytes and the input offset of each of their boundaries."""
        return self.normalizer.normalize(text)

    def search(self, text: bytes, *, on_edge: OnEdge | None = None) -> list[Piece]:
        """Steps 2 and 3 on normalised bytes: (id, start, end) per token, in normalised byte offsets."""
        n = len(text)
        if n == 0:
            return []
        trie = self.trie()
        unk_id = self.vocab.unk_id
        # tokenization_results: (token id, start, score sum) per end offset
        results: list[tuple[int, int, float]] = [(unk_id, 0, -DBL_MAX)] * (n + 1)
        results[0] = (unk_id, 0, 0.0)

        def offer(start: int, end: int, tid: int, score: float) -> None:
            total = results[start][2] + score
            taken = total > results[end][2]
            if taken:
                results[end] = (tid, start, total)
            if on_edge is not None:
                on_edge(start, end, tid, score, total, taken)

        start = 0
        while start < n:
            n_units = min(utf8_len(text[start]), n - start)
            single = False
            for end in range(start + 1, min(start + self._longest.get(text[start : start + 2], 1), n) + 1):
                hit = trie.get(text[start:end])
                if hit is not None:
                    single = single or end - start == n_units
                    offer(start, end, hit[0], hit[1])
            if not single:
                offer(start, start + n_units, unk_id, self._unk_score)
            start += n_units
        out: list[Piece] = []
        end = n
        prev_unknown = False
        while True:  # backtrack, collapsing runs of unknown tokens
            tid, start, _ = results[end]
            unknown = tid == unk_id
            if prev_unknown and unknown:
                out[-1] = (tid, start, out[-1][2])
            else:
                out.append((tid, start, end))
            if start == 0:
                break
            prev_unknown = unknown
            end = start
        out.reverse()
        return out

    def encode_fragment(self, text: bytes, *, after_special: bool, on_edge: OnEdge | None = None) -> list[Piece]:
        """Pieces of one raw fragment, spans in its bytes (``after_special`` is unused: llama.cpp
        normalises every fragment afresh)."""
        del after_special
        if not text:
            return []
        norm = self.normalize(text)
        offsets = norm.offsets
        return [(tid, offsets[a], offsets[b]) for tid, a, b in self.search(norm.text, on_edge=on_edge)]
