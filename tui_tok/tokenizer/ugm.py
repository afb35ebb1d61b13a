"""UGM (T5, XLM-R unigram) fragment encoder with llama.cpp's exact ids and input spans.

Tables (V:903-950): the trie holds every token whose attributes include NORMAL,
USER_DEFINED or UNUSED (a CONTROL|UNUSED token joins); a USER_DEFINED token scores 0 in the
search; ``unk_score = min(NORMAL scores) - 10`` computed in float32 (``FLT_MAX - 10`` if there
is no NORMAL token). Each fragment is normalised (``ugm_normalize.py``) and searched
(``ugm_viterbi.py``); spans are mapped back through the normaliser's offsets.

Speed: the whole fragment is cut at input spaces into *units* (the first word, then each
space with the word after it); each unit is normalised and searched once and cached. This
gives llama.cpp's answer exactly when all of the following hold, each checked (see
``_units_exact`` and ``_Tables``), otherwise the fragment goes through the slow faithful path:

1. Normalisation restarts at an input space: no charsmap walk can step on byte 0x20 (no XCDA
   entry has LCHECK 0x20) and no user-defined token contains it, so an input space is always
   its own chunk, is copied as 0x20, and ends the non-space run (the only state carried is
   ``is_space_prepended``, which is part of the cache key when it matters: prepend and not
   merge).
2. The search restarts at each unit: a unit's output is empty or starts with the space
   string SP (the input space becomes SP unless merge; with merge the first non-space byte
   inserts SP), and every unit's output is valid UTF-8, so each unit start is a code point
   start of the whole text. A token spanning a unit start would contain SP at an offset > 0
   (a token ending inside SP's bytes ends off a code point start, which llama.cpp never
   extends); no trie token contains SP except at offset 0 (checked). Unknown tokens cover one
   code point. So every path of the search passes through every unit start.
3. Sums are exact: every score (float32) and unk_score is a multiple of 2**-f, and every
   partial sum stays below 2**(53-f) in magnitude (|best| <= cps * B, where B bounds the
   score of a single code point step, plus one token score A), so a double sum never rounds,
   and best values computed from a unit start equal those computed from 0 shifted by a
   constant: every comparison, ties included, comes out the same.

Consecutive unknown tokens collapse across unit boundaries too (the path is the concatenation).

Does not split specials or add BOS/EOS: see ``tokenizer.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate

import numpy as np

from tui_tok.tokenizer.charsmap import Charsmap, parse_charsmap
from tui_tok.tokenizer.types import Piece, TokenAttr
from tui_tok.tokenizer.ugm_normalize import ESCAPED_SPACE, UgmNormalizer
from tui_tok.tokenizer.ugm_viterbi import viterbi_bytes, viterbi_str
from tui_tok.tokenizer.vocab import Vocab

_FLT_MAX = float(np.finfo(np.float32).max)
_CACHE_LIMIT = 100_000
_CACHE_UNIT_BYTES = 256


@dataclass(frozen=True, slots=True)
class _Tables:
    """Search tables built on first use."""

    tokens: dict[str, tuple[int, float]]
    """Trie token text -> (id, search score)."""
    first_max_len: dict[str, int]
    """First character -> longest trie token (characters) starting with it."""
    unk_score: float
    """float32 ``min(NORMAL scores) - 10`` as a Python float."""
    units_ok: bool
    """Conditions 1-2 of the module docstring hold for this vocab."""
    max_exact_bytes: int
    """Condition 3 holds for normalised fragments up to this many bytes (0: never)."""


def _frac_bits(values: np.ndarray) -> int:
    """Smallest f with every value a multiple of 2**-f (values finite float32 in float64)."""
    nz = values[values != 0]
    if nz.size == 0:
        return 0
    _, exp = np.frexp(nz)  # |v| = m * 2**exp, 0.5 <= m < 1, m has 24 significant bits
    return int(max(0, int((24 - exp).max())))


def _search_scores(vocab: Vocab, in_trie: np.ndarray) -> np.ndarray:
    user = (vocab.attrs & int(TokenAttr.USER_DEFINED)) != 0
    return np.where(user, np.float32(0.0), vocab.scores.astype(np.float32))[in_trie]


class UgmEncoder:
    """llama.cpp's ``llm_tokenizer_ugm`` + session for one vocab (implements FragmentEncoder).

    >>> from tui_tok.tokenizer.vocab import vocab_from_metadata
    >>> v = vocab_from_metadata({"tokenizer.ggml.model": "t5",
    ...     "tokenizer.ggml.tokens": ["<pad>", "</s>", "<unk>", "▁hi", "▁", "h", "i"],
    ...     "tokenizer.ggml.scores": [0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -3.0],
    ...     "tokenizer.ggml.token_type": [3, 3, 2, 1, 1, 1, 1],
    ...     "tokenizer.ggml.add_space_prefix": True,
    ...     "tokenizer.ggml.remove_extra_whitespaces": True})
    >>> UgmEncoder(v).encode_fragment(b"  hi  hix", after_special=False)
    [(3, 0, 4), (3, 4, 8), (2, 8, 9)]
    """

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self.charsmap: Charsmap | None = parse_charsmap(vocab.precompiled_charsmap)
        attrs = vocab.attrs
        user = np.flatnonzero(attrs & int(TokenAttr.USER_DEFINED))
        self.normalizer = UgmNormalizer(
            charsmap=self.charsmap,
            user_defined=tuple(vocab.tokens[int(i)].encode("utf-8", "surrogateescape") for i in user),
            prepend=vocab.add_space_prefix,
            merge=vocab.remove_extra_whitespaces,
            space=ESCAPED_SPACE if vocab.escape_whitespaces else b" ",
        )
        self._tables: _Tables | None = None
        self._byte_tables: tuple[dict[bytes, tuple[int, float]], int] | None = None
        self._cache: dict[object, tuple[tuple[Piece, ...], bool, int]] = {}

    # -- tables ----------------------------------------------------------------------------

    @property
    def tables(self) -> _Tables:
        if self._tables is None:
            self._tables = self._build_tables()
        return self._tables

    def _trie_mask(self) -> np.ndarray:
        attrs = self.vocab.attrs
        mask = int(TokenAttr.NORMAL | TokenAttr.USER_DEFINED | TokenAttr.UNUSED)
        return (attrs & mask) != 0

    def _build_tables(self) -> _Tables:
        vocab = self.vocab
        in_trie = self._trie_mask()
        normal = (vocab.attrs & int(TokenAttr.NORMAL)) != 0
        normal_scores = vocab.scores.astype(np.float32)[normal]
        normal_scores = normal_scores[~np.isnan(normal_scores)]  # std::min never picks a NaN
        min_score = np.float32(normal_scores.min()) if normal_scores.size else np.float32(_FLT_MAX)
        unk_score = float(np.float32(min_score - np.float32(10.0)))

        ids = np.flatnonzero(in_trie).tolist()
        scores = _search_scores(vocab, in_trie).astype(np.float64).tolist()
        texts = vocab.tokens
        tokens: dict[str, tuple[int, float]] = {}
        first_max_len: dict[str, int] = {}
        space = self.normalizer.space.decode("utf-8")
        inner_space = False
        single_max = 0.0
        for tid, score in zip(ids, scores):
            text = texts[tid]
            tokens[text] = (tid, score)  # later ids win, as naive_trie::insert overwrites
            first = text[0]
            if first_max_len.get(first, 0) < len(text):
                first_max_len[first] = len(text)
            if text.find(space, 1) >= 0:
                inner_space = True
            if len(text) == 1 and abs(score) > single_max:
                single_max = abs(score)
        units_ok = not inner_space and self._space_restarts()
        search = np.array(scores + [unk_score], dtype=np.float64)
        max_exact = 0
        if np.isfinite(search).all():
            f = _frac_bits(search)
            a = float(np.abs(search).max())
            b = max(abs(unk_score), single_max, float(search.max()), 1.0)
            limit = 2.0**53 / 2.0**f - a
            max_exact = int(max(0.0, limit / b - 1))
        return _Tables(tokens, first_max_len, unk_score, units_ok, max_exact)

    def _space_restarts(self) -> bool:
        """Condition 1: an input space is always a chunk of its own, copied as 0x20."""
        if any(b" " in t for t in self.normalizer.user_defined):
            return False
        return self.charsmap is None or not self.charsmap.may_step_on(0x20)

    def _bytes_tables(self) -> tuple[dict[bytes, tuple[int, float]], int]:
        if self._byte_tables is None:
            in_trie = self._trie_mask()
            ids = np.flatnonzero(in_trie).tolist()
            scores = _search_scores(self.vocab, in_trie).astype(np.float64).tolist()
            texts = self.vocab.tokens
            table = {texts[t].encode("utf-8", "surrogateescape"): (t, s) for t, s in zip(ids, scores)}
            self._byte_tables = (table, max((len(k) for k in table), default=0))
        return self._byte_tables

    # -- encoding --------------------------------------------------------------------------

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Token ids with input byte spans for one raw fragment (``after_special`` is unused:
        llama.cpp normalises every fragment afresh)."""
        if not text:
            return []
        tables = self.tables
        if tables.units_ok:
            pieces = self._encode_units(text, tables)
            if pieces is not None:
                return pieces
        return self.encode_reference(text)

    def encode_reference(self, text: bytes) -> list[Piece]:
        """The faithful path: normalise the whole fragment, search it byte by byte."""
        norm = self.normalizer.normalize(text)
        table, max_len = self._bytes_tables()
        raw = viterbi_bytes(
            norm.text, table, max_len, unk_id=self.vocab.unk_id, unk_score=self.tables.unk_score
        )
        offsets = norm.offsets
        return [(tid, offsets[s], offsets[e]) for tid, s, e in raw]

    def _encode_units(self, text: bytes, tables: _Tables) -> list[Piece] | None:
        unk = self.vocab.unk_id
        keyed = self.normalizer.prepend and not self.normalizer.merge
        cache = self._cache
        out: list[Piece] = []
        pos = 0
        flag = False
        norm_len = 0
        for k, word in enumerate(text.split(b" ")):
            unit = word if k == 0 else b" " + word
            key: object = (unit, flag) if keyed else unit
            hit = cache.get(key)
            if hit is None:
                hit = self._encode_unit(unit, flag, tables)
                if hit is None:
                    return None
                if len(unit) <= _CACHE_UNIT_BYTES:
                    if len(cache) >= _CACHE_LIMIT:
                        cache.clear()
                    cache[key] = hit
            pieces, flag, n = hit
            norm_len += n
            if pieces:
                # Spans tile the normalised output: a unit's first token starts where the
                # previous token ended (input that vanished in between belongs to it).
                tid, _, e = pieces[0]
                if out and out[-1][0] == unk and tid == unk:
                    out[-1] = (unk, out[-1][1], pos + e)
                else:
                    out.append((tid, out[-1][2] if out else 0, pos + e))
                for i in range(1, len(pieces)):
                    tid, s, e = pieces[i]
                    out.append((tid, pos + s, pos + e))
            pos += len(unit)
        if norm_len > tables.max_exact_bytes:
            return None
        return out

    def _encode_unit(
        self, unit: bytes, flag: bool, tables: _Tables
    ) -> tuple[tuple[Piece, ...], bool, int] | None:
        norm = self.normalizer.normalize(unit, space_prepended=flag)
        try:
            s = norm.text.decode("utf-8")
        except UnicodeDecodeError:
            return None
        raw = viterbi_str(
            s, tables.tokens, tables.first_max_len, unk_id=self.vocab.unk_id, unk_score=tables.unk_score
        )
        offsets = norm.offsets
        if len(s) != len(norm.text):
            byte_at = [0, *accumulate(len(c.encode("utf-8")) for c in s)]
            offsets = [offsets[b] for b in byte_at]
        pieces = tuple((tid, offsets[a], offsets[b]) for tid, a, b in raw)
        return pieces, norm.space_prepended, len(norm.text)
