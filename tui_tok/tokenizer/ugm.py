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

    ids: dict[str, int]
    """Token text -> id (the trie's id when texts repeat); check ``in_trie`` before use."""
    in_trie: bytes
    """1 at the ids of trie tokens (NORMAL, USER_DEFINED or UNUSED attribute), else 0."""
    scores: list[float]
    """Search score by id: the float32 score, 0 for USER_DEFINED."""
    pair_max_len: dict[str, int]
    """First two characters -> longest token (characters, >= 2) starting with them."""
    unk_score: float
    """float32 ``min(NORMAL scores) - 10`` as a Python float."""
    units_ok: bool
    """Conditions 1-2 of the module docstring hold for this vocab."""
    max_exact_bytes: int
    """Condition 3 holds for normalised fragments up to this many bytes (0: never)."""
    separators: bytes | None
    """``bytes.translate`` table turning every separator into 0x20 (None: 0x20 is the only one)."""


def _frac_bits(values: np.ndarray) -> int:
    """Smallest f with every value a multiple of 2**-f (values finite float32 in float64)."""
    nz = values[values != 0]
    if nz.size == 0:
        return 0
    _, exp = np.frexp(nz)  # |v| = m * 2**exp, 0.5 <= m < 1, m has 24 significant bits
    return int(max(0, int((24 - exp).max())))


def _pair_max_len(cps: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> dict[str, int]:
    """Longest token per first two characters, from the joined code points of all tokens.

    One sort of ``(pair << 20) | length`` keys; the last entry of each pair holds its maximum.
    """
    two = lengths >= 2
    if not two.any():
        return {}
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
    pair, longest = packed_pair[is_last], packed_len[is_last]
    chars = np.empty(2 * pair.size, dtype="<u4")
    chars[0::2] = pair >> 21
    chars[1::2] = pair & 0x1FFFFF
    text = chars.tobytes().decode("utf-32-le", "surrogatepass")
    return dict(zip([text[i : i + 2] for i in range(0, len(text), 2)], longest.tolist()))


def _search_scores(vocab: Vocab) -> np.ndarray:
    """float32 score by id as the search uses it: USER_DEFINED tokens count 0 (V:1019-1024)."""
    user = (vocab.attrs & int(TokenAttr.USER_DEFINED)) != 0
    return np.where(user, np.float32(0.0), vocab.scores.astype(np.float32))


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
        self._cache: dict[object, tuple[list[int], list[int], bool, int]] = {}
        """Unit results: key ``word`` (or ``(word, is_space_prepended)`` when prepend and not
        merge) for a separator + word, ``(True, word, False)`` for a fragment's first word."""

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
        texts = vocab.tokens
        in_trie = self._trie_mask()
        normal = (vocab.attrs & int(TokenAttr.NORMAL)) != 0
        normal_scores = vocab.scores.astype(np.float32)[normal]
        normal_scores = normal_scores[~np.isnan(normal_scores)]  # std::min never picks a NaN
        min_score = np.float32(normal_scores.min()) if normal_scores.size else np.float32(_FLT_MAX)
        unk_score = float(np.float32(min_score - np.float32(10.0)))
        scores32 = _search_scores(vocab)

        if len(vocab.token_to_id) == len(texts):
            ids = vocab.token_to_id  # texts are unique (llama.cpp refuses duplicates)
        else:  # keep the trie's id: the last trie token with that text, as naive_trie::insert
            trie_ids = np.flatnonzero(in_trie).tolist()
            ids = dict(zip([texts[i] for i in trie_ids], trie_ids))
        # first character and length of every token, vectorised over one joined string
        lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
        joined = "\0".join(texts)
        cps = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype="<u4")
        starts = np.cumsum(lengths + 1) - (lengths + 1)
        last = max(cps.size - 1, 0)
        first_cp = np.where(lengths > 0, cps[np.minimum(starts, last)], 0)
        pair_max_len = _pair_max_len(cps, starts, lengths)

        space = self.normalizer.space.decode("utf-8")
        inner = joined.count(space) - int(np.count_nonzero((first_cp == ord(space)) & (lengths > 0)))
        inner -= sum(texts[i].count(space) - texts[i].startswith(space) for i in np.flatnonzero(~in_trie))
        separators = self._separators()
        units_ok = inner == 0 and b" " in separators

        search = np.append(scores32[in_trie], np.float32(unk_score)).astype(np.float64)
        single = in_trie & (lengths == 1)
        single_max = float(np.abs(scores32[single]).max()) if single.any() else 0.0
        max_exact = 0
        if np.isfinite(search).all():
            f = _frac_bits(search)
            a = float(np.abs(search).max())
            b = max(abs(unk_score), single_max, float(search.max()), 1.0)
            limit = 2.0**53 / 2.0**f - a
            max_exact = int(max(0.0, limit / b - 1))
        return _Tables(
            ids=ids,
            in_trie=in_trie.astype(np.uint8).tobytes(),
            scores=scores32.astype(np.float64).tolist(),
            pair_max_len=pair_max_len,
            unk_score=unk_score,
            units_ok=units_ok,
            max_exact_bytes=max_exact,
            separators=bytes.maketrans(separators, b" " * len(separators)) if len(separators) > 1 else None,
        )

    def _separators(self) -> bytes:
        """Condition 1: ASCII bytes that are always a chunk of their own whose output is 0x20.

        Such a byte is in no user-defined token, only the XCDA root can step on it (one entry
        carries its label) and its walk cannot go on. Each behaves exactly like an input space.
        """
        found = []
        for b in range(0x80):
            if any(b in t for t in self.normalizer.user_defined):
                continue
            if self.charsmap is not None and self.charsmap.label_count(b) > 1:
                continue
            rep, used, cont = self.normalizer._unit_result(bytes((b,)))
            if rep == b" " and used == 1 and not cont:
                found.append(b)
        return bytes(found)

    def _bytes_tables(self) -> tuple[dict[bytes, tuple[int, float]], int]:
        if self._byte_tables is None:
            in_trie = self._trie_mask()
            ids = np.flatnonzero(in_trie).tolist()
            scores = _search_scores(self.vocab)[in_trie].astype(np.float64).tolist()
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
        """Conditions 1-3 hold: encode unit by unit through the cache (None: use the slow path).

        Spans tile the normalised output (a token starts where the previous one ended, input
        that vanished in between belongs to the next token), so only ends are kept.
        """
        keyed = self.normalizer.prepend and not self.normalizer.merge
        cache = self._cache
        ids: list[int] = []
        ends: list[int] = []
        unit_pos: list[int] = []
        unit_count: list[int] = []
        spaced = text if tables.separators is None else text.translate(tables.separators)
        words = spaced.split(b" ")
        hit = self._unit((True, words[0], False), words[0], False, tables)
        if hit is None:
            return None
        ids.extend(hit[0])
        ends.extend(hit[1])
        unit_pos.append(0)
        unit_count.append(len(hit[0]))
        flag = hit[2]
        norm_len = hit[3]
        pos = len(words[0])
        for k in range(1, len(words)):
            word = words[k]
            key = (word, flag) if keyed else word
            hit = cache.get(key)
            if hit is None:
                hit = self._unit(key, b" " + word, flag, tables)
                if hit is None:
                    return None
            if hit[0]:
                ids.extend(hit[0])
                ends.extend(hit[1])
                unit_pos.append(pos)
                unit_count.append(len(hit[0]))
            flag = hit[2]
            norm_len += hit[3]
            pos += len(word) + 1
        if norm_len > tables.max_exact_bytes:
            return None
        if not ids:
            return []
        id_arr = np.array(ids, dtype=np.int64)
        end_arr = np.array(ends, dtype=np.int64) + np.repeat(
            np.array(unit_pos, dtype=np.int64), np.array(unit_count, dtype=np.int64)
        )
        # consecutive unknown tokens collapse across units (inside a unit they already have)
        unk = self.vocab.unk_id
        keep = np.ones(id_arr.size, dtype=bool)
        keep[:-1] = ~((id_arr[:-1] == unk) & (id_arr[1:] == unk))
        if not keep.all():
            id_arr = id_arr[keep]
            end_arr = end_arr[keep]
        start_arr = np.empty_like(end_arr)
        start_arr[0] = 0
        start_arr[1:] = end_arr[:-1]
        return list(zip(id_arr.tolist(), start_arr.tolist(), end_arr.tolist()))

    def _unit(
        self, key: object, unit: bytes, flag: bool, tables: _Tables
    ) -> tuple[list[int], list[int], bool, int] | None:
        """``_encode_unit`` through the cache (short units only; cleared when full)."""
        hit = self._cache.get(key)
        if hit is None:
            hit = self._encode_unit(unit, flag, tables)
            if hit is not None and len(unit) <= _CACHE_UNIT_BYTES:
                if len(self._cache) >= _CACHE_LIMIT:
                    self._cache.clear()
                self._cache[key] = hit
        return hit

    def _encode_unit(
        self, unit: bytes, flag: bool, tables: _Tables
    ) -> tuple[list[int], list[int], bool, int] | None:
        """One unit: token ids, token end offsets in ``unit``, is_space_prepended after it,
        normalised length; None if the normalised bytes are not valid UTF-8."""
        norm = self.normalizer.normalize(unit, space_prepended=flag)
        try:
            s = norm.text.decode("utf-8")
        except UnicodeDecodeError:
            return None
        raw = viterbi_str(
            s,
            tables.ids,
            tables.in_trie,
            tables.scores,
            tables.pair_max_len,
            unk_id=self.vocab.unk_id,
            unk_score=tables.unk_score,
        )
        offsets = norm.offsets
        if len(s) == len(norm.text):
            ends = [offsets[e] for _, _, e in raw]
        else:  # character ends -> byte ends, one token at a time
            ends = []
            at = 0
            for _, a, e in raw:
                at += len(s[a:e].encode("utf-8"))
                ends.append(offsets[at])
        return [p[0] for p in raw], ends, norm.space_prepended, len(norm.text)
