"""UGM (T5, XLM-R unigram) fragment encoder with llama.cpp's exact ids and input spans.

llama.cpp (V:903-1252) normalises each raw fragment (``ugm/normalize.py``: user-defined
tokens, precompiled charsmap, whitespace rules) and runs a Viterbi search over the result
(``ugm/pieces.py`` on ``ugm/batch.py``) with the tables of ``ugm/tables.py``. Spans map back
through the normaliser's offsets; they tile the normalised text (a token starts where the
previous one ended, so input that vanished, like merged spaces, belongs to the token after it).

Four ways to the same answer, fastest first:

* **whole text** (``ugm/textids.py``, fragments from ``whole_from`` bytes, or with
  ``batch_from`` units the cache does not hold): normalised in numpy passes (only the
  few regions that the charsmap or a user-defined token changes go through the normaliser)
  and searched by pieces, each distinct piece once; ids and spans, no Python work per unit;
* **units** (``_encode_units``): the fragment is cut before every *separator* byte (0x20, and
  any ASCII byte the charsmap turns into exactly 0x20, e.g. \\n for XLM-R) into units: the
  first word, then each separator with the word after it. Each distinct unit is normalised
  and searched once and cached, so text typed again and again costs a few dict lookups per
  unit. Exact when the three conditions below hold (all checked);
* **whole** (``encode_whole``): normalise the whole fragment, one search: the same additions
  in the same order as llama.cpp, so exact with no condition;
* **reference** (``encode_reference``): ``ugm/reference.py``, the algorithm written once as
  llama.cpp runs it (byte by byte); used when the normalised text is not valid UTF-8
  (llama.cpp's decoder accepts overlong forms and surrogates, Python does not), and as the
  oracle in tests: every path here is tested equal to it (``tests/tokenizer/test_reference.py``).

Why the units are exact (SP = the space string, U+2581):

1. Normalisation restarts at a separator: it is in no user-defined token, only the XCDA
   root steps on it and its walk stops there, so it is always a chunk of its own whose output
   is 0x20; that ends the non-space run, and the only state carried over is
   ``is_space_prepended`` (part of the cache key when it matters: prepend and not merge).
2. The search restarts at each unit: a unit's output is empty or starts with SP (the
   separator becomes SP unless merge; with merge the first non-space byte inserts SP), and
   every unit's output is valid UTF-8 (checked per unit), so each unit start is a code point
   start of the whole text. A token spanning it would contain SP at an offset > 0 (a token
   ending inside SP's bytes ends off a code point start, which llama.cpp never extends);
   ``build_tables`` checks that no trie token does. Unknown tokens cover one code point. So
   every path passes through every unit start, and consecutive unknown tokens are collapsed
   across units afterwards.
3. Sums are exact: every search score and unk_score (float32) is a multiple of 2**-f and
   every partial sum stays below 2**(53-f) (|best| <= code points * B, B bounding one code
   point's step, plus one token's score), so no double addition rounds: best values computed
   from a unit start are those from the fragment start shifted by a constant, and every
   comparison, ties included, comes out the same. Checked against the normalised length.

Does not split specials or add BOS/EOS: see ``tokenizer.py``.
"""

from __future__ import annotations

import threading
from itertools import chain, repeat
from operator import itemgetter
from typing import Any, ClassVar

import numpy as np

from tui_tok.tokenizer.arrays.chunks import chain_flat, distinct_chunks
from tui_tok.tokenizer.core.encoder import Encoder, Fragments
from tui_tok.tokenizer.core.gc_pause import gc_paused
from tui_tok.tokenizer.core.paths import AUTO, Paths
from tui_tok.tokenizer.core.types import Piece, PieceArrays
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.ugm.batch import keep_one_unknown
from tui_tok.tokenizer.ugm.charsmap import Charsmap
from tui_tok.tokenizer.ugm.hash import TokenHash
from tui_tok.tokenizer.ugm.pieces import letter_search
from tui_tok.tokenizer.ugm.reference import ReferenceEncoder, vocab_normalizer
from tui_tok.tokenizer.ugm.tables import UgmTables, build_tables, trie_hash
from tui_tok.tokenizer.ugm.textids import TextIds, utf8_widths

_CACHE_LIMIT = 100_000
_CACHE_BYTES = 8 << 20  # normalised bytes of all cached units
_Unit = tuple[list[int], list[int], bool, int]
"""One encoded unit: token ids, token end offsets, is_space_prepended after it, normalised length."""
Found = tuple[np.ndarray, np.ndarray | None]
"""Token ids and, when spans are asked, each token's end offset in the fragment."""


class UgmEncoder(Encoder):
    """llama.cpp's ``llm_tokenizer_ugm`` + session for one vocab.

    >>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
    >>> v = vocab_from_metadata({"tokenizer.ggml.model": "t5",
    ...     "tokenizer.ggml.tokens": ["<pad>", "</s>", "<unk>", "▁hi", "▁", "h", "i"],
    ...     "tokenizer.ggml.scores": [0.0, 0.0, 0.0, -1.0, -2.0, -3.0, -3.0],
    ...     "tokenizer.ggml.token_type": [3, 3, 2, 1, 1, 1, 1],
    ...     "tokenizer.ggml.add_space_prefix": True,
    ...     "tokenizer.ggml.remove_extra_whitespaces": True})
    >>> UgmEncoder(v).encode_fragment(b"  hi  hix", after_special=False)
    [(3, 0, 4), (3, 4, 8), (2, 8, 9)]
    """

    TOKENIZE_FROM_ARRAYS: ClassVar[bool] = True
    FRESH_IDS: ClassVar[bool] = True

    def __init__(self, vocab: Vocab, *, paths: Paths = AUTO) -> None:
        self.vocab = vocab
        self.normalizer = vocab_normalizer(vocab)
        self.charsmap: Charsmap | None = self.normalizer.charsmap
        self._tables: UgmTables | None = None
        self._reference: ReferenceEncoder | None = None
        self._token_hash: TokenHash | None = None
        self._text_ids = TextIds(self.normalizer)
        self.whole_from = paths.ugm_whole_from
        """Fragments from this many bytes take ``ugm/textids.py`` (0: always, tests)."""
        self.batch_from = paths.ugm_batch_from
        """From this many new units the whole fragment is encoded at once instead (0: always)."""
        self._cache: dict[object, _Unit] = {}
        """Unit results: key ``word`` (or ``(word, is_space_prepended)`` when prepend and not
        merge) for a separator + word, ``(True, word, False)`` for a fragment's first word."""
        self._build_lock = threading.Lock()
        self._cache_bytes = 0
        """Normalised bytes of the cached units (the cache is emptied past ``_CACHE_BYTES``)."""

    def clear_cache(self) -> None:
        """Forget every unit result (the next encode is cold again; tables are kept)."""
        self._cache.clear()
        self._cache_bytes = 0

    def prepare(self) -> None:
        """Build now the search tables, the trie's hash table and the letters (otherwise built by
        the first encode), as llama.cpp builds its token matcher at load."""
        self._text_ids.alphabet(self.tables, self.token_hash, self.vocab.unk_id)

    @property
    def tables(self) -> UgmTables:
        """Search tables, built on first use (or by ``prepare``)."""
        tables = self._tables
        if tables is None:
            with self._build_lock:  # one build, not one per waiting thread
                tables = self._tables
                if tables is None:
                    tables = self._tables = build_tables(self.vocab, self.normalizer)
        return tables

    @property
    def token_hash(self) -> TokenHash:
        """The trie tokens' hash table for the searches (``ugm/hash.py``), built on first use (or by ``prepare``)."""
        found = self._token_hash
        if found is None:
            found = self._token_hash = trie_hash(self.tables)
        return found

    # -- encoding --------------------------------------------------------------------------

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Token ids with input byte spans for one raw fragment (``after_special`` is unused:
        llama.cpp normalises every fragment afresh)."""
        return _pieces(self._encode(text, spans=True))

    def encode_fragment_ids(self, text: bytes, *, after_special: bool) -> list[int]:
        """``[p[0] for p in encode_fragment(text)]`` without computing the spans."""
        return self._encode(text, spans=False)[0].tolist()  # type: ignore[no-any-return]

    def encode_fragments_arrays(self, fragments: Fragments) -> list[PieceArrays]:
        """``encode_fragment`` of each fragment as int64 columns, with no tuple per token."""
        out = []
        for text, _ in fragments:
            ids, ends = self._encode(text, spans=True)
            assert ends is not None
            ends = ends.astype(np.int64)
            starts = np.zeros_like(ends)
            starts[1:] = ends[:-1]
            out.append((ids.astype(np.int64), starts, ends))
        return out

    def _encode(self, text: bytes, *, spans: bool) -> Found:
        """Ids (and token ends) of one raw fragment by the first path of the module docstring
        that applies."""
        if not text:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64) if spans else None
        tables = self.tables
        if tables.units_ok:
            if len(text) < self.whole_from:
                with gc_paused(len(text)):
                    found = self._encode_units(text, tables, spans=spans)
                if found is not None:
                    return found
            if tables.max_exact_bytes:
                found = self._text_ids.encode(text, tables, self.token_hash, unk_id=self.vocab.unk_id, spans=spans)
                if found is not None:
                    return found
        return self._encode_whole(text)

    def encode_whole(self, text: bytes) -> list[Piece]:
        """Normalise and search the whole fragment at once: llama.cpp's exact computation (same
        additions in the same order), with no condition."""
        return _pieces(self._encode_whole(text))

    def _encode_whole(self, text: bytes) -> Found:
        """``encode_whole`` as arrays: the reference when the normalised text is not valid UTF-8."""
        norm = self.normalizer.normalize(text)
        found = self._search(norm.text, norm.offsets, exact=len(norm.text) <= self.tables.max_exact_bytes)
        if found is None:
            pieces = self.encode_reference(text)
            return np.array([p[0] for p in pieces], dtype=np.int64), np.array([p[2] for p in pieces], dtype=np.int64)
        return found

    def encode_reference(self, text: bytes) -> list[Piece]:
        """``ugm/reference.py``: normalise byte by byte, search byte by byte (its trie built once)."""
        ref = self._reference
        if ref is None:
            ref = self._reference = ReferenceEncoder(self.vocab)
        return ref.encode_fragment(text, after_special=False)

    def _search(self, text: bytes, offsets: list[int], *, exact: bool) -> tuple[np.ndarray, np.ndarray] | None:
        """Token ids of normalised ``text`` and their ends mapped through ``offsets`` (None: not
        valid UTF-8). ``exact``: condition 3 holds, so the search may cut where no edge crosses."""
        try:
            s = text.decode("utf-8")
        except UnicodeDecodeError:
            return None
        cps = np.frombuffer(s.encode("utf-32-le"), dtype="<u4")
        alphabet = self._text_ids.alphabet(self.tables, self.token_hash, self.vocab.unk_id)
        ids, ends = letter_search(
            alphabet.letters(cps, s),
            alphabet,
            self.tables,
            self.token_hash,
            unk_id=self.vocab.unk_id,
            ends=True,
            exact=exact,
        )
        assert ends is not None
        if len(s) != len(text):  # character ends -> byte ends
            ends = np.append(0, np.cumsum(utf8_widths(cps), dtype=np.int64))[ends]
        return ids, np.array(offsets, dtype=np.int64)[ends]

    def _encode_units(self, text: bytes, tables: UgmTables, *, spans: bool) -> Found | None:
        """Conditions 1-3 hold: encode unit by unit through the cache, the distinct units found
        and the results chained in whole arrays (``arrays/chunks.py``), so the Python work is
        per distinct unit (123k units, 11k distinct in 0.56 MB of mixed text). None: use a
        slower path, or ``batch_from`` units are new (the whole text at once is faster)."""
        keyed = self.normalizer.prepend and not self.normalizer.merge
        spaced = text if tables.separators is None else text.translate(tables.separators)
        seps = np.flatnonzero(np.frombuffer(spaced, dtype=np.uint8) == 0x20)
        starts = np.concatenate(([0], seps + 1))  # word k: starts[k] to ends[k]
        ends = np.append(seps, len(spaced))
        first = spaced[: int(ends[0])]
        hit = self._unit((True, first, False), first, False, tables)
        if hit is None:
            return None
        done = [hit]  # units encoded one at a time, in order
        flag = hit[2]
        k = 1
        while keyed and not flag and k < len(starts):  # is_space_prepended matters and only changes once
            word = spaced[int(starts[k]) : int(ends[k])]
            hit = self._unit((word, flag), b" " + word, flag, tables)
            if hit is None:
                return None
            done.append(hit)
            flag = hit[2]
            k += 1
        occ, distinct = distinct_chunks(spaced, starts[k:], ends[k:])
        keys: list[Any] = list(zip(distinct, repeat(True))) if keyed else distinct
        cache = self._cache
        units: list[_Unit | None] = list(map(cache.get, keys)) if cache else [None] * len(keys)
        missing = [i for i, u in enumerate(units) if u is None]
        if len(missing) >= max(self.batch_from, 1):
            return None
        for i in missing:  # read from ``units``: another thread may empty the shared cache
            units[i] = self._unit(keys[i], b" " + distinct[i], flag, tables)
            if units[i] is None:
                return None
        got: list[_Unit] = units  # type: ignore[assignment]
        sizes = np.fromiter(map(len, map(itemgetter(0), got)), dtype=np.int64, count=len(got))
        norm = np.fromiter(map(itemgetter(3), got), dtype=np.int64, count=len(got))
        if sum(map(itemgetter(3), done)) + int(norm[occ].sum()) > tables.max_exact_bytes:
            return None
        head = np.array(list(chain.from_iterable(map(itemgetter(0), done))), dtype=np.int64)
        flat = np.fromiter(chain.from_iterable(map(itemgetter(0), got)), dtype=np.int64, count=int(sizes.sum()))
        ids = np.concatenate((head, chain_flat(occ, flat, sizes)))
        end_arr = None
        if spans:  # unit k > 0 starts at separator k - 1
            head_pos = np.repeat([0, *seps[: len(done) - 1].tolist()], [len(u[0]) for u in done])
            head_ends = np.array(list(chain.from_iterable(map(itemgetter(1), done))), dtype=np.int64) + head_pos
            flat = np.fromiter(chain.from_iterable(map(itemgetter(1), got)), dtype=np.int64, count=flat.size)
            tail = chain_flat(occ, flat, sizes) + np.repeat(seps[k - 1 :], sizes[occ])
            end_arr = np.concatenate((head_ends, tail))
        unk = self.vocab.unk_id
        if ids.size and (ids == unk).any():
            keep = keep_one_unknown(ids, unk)
            ids = ids[keep]
            end_arr = None if end_arr is None else end_arr[keep]
        return ids, end_arr

    def _unit(self, key: object, unit: bytes, flag: bool, tables: UgmTables) -> _Unit | None:
        """One unit through the cache (emptied when full): token ids, token end offsets in
        ``unit``, is_space_prepended after it, normalised length; None if the normalised bytes
        are not valid UTF-8."""
        hit = self._cache.get(key)
        if hit is None:
            norm = self.normalizer.normalize(unit, space_prepended=flag)
            found = self._search(norm.text, norm.offsets, exact=True)
            if found is None:
                return None
            hit = (found[0].tolist(), found[1].tolist(), norm.space_prepended, len(norm.text))
            if len(self._cache) > _CACHE_LIMIT or self._cache_bytes > _CACHE_BYTES:
                self.clear_cache()
            self._cache[key] = hit
            self._cache_bytes += hit[3]
        return hit


def _pieces(found: Found) -> list[Piece]:
    """Ids and token ends as (id, start, end) per token: a token starts where the one before ends."""
    ids, ends = found
    assert ends is not None
    end_list = ends.tolist()
    return list(zip(ids.tolist(), [0, *end_list[:-1]], end_list))
