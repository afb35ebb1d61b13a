"""UGM (T5, XLM-R unigram) fragment encoder with llama.cpp's exact ids and input spans.

llama.cpp (V:903-1252) normalises each raw fragment (``ugm/normalize.py``: user-defined
tokens, precompiled charsmap, whitespace rules) and runs a Viterbi search over the result
(``ugm/batch.py``) with the tables of ``ugm/tables.py``. Spans map back through the
normaliser's offsets; they tile the normalised text (a token starts where the previous one
ended, so input that vanished, like merged spaces, belongs to the token after it).

Four ways to the same answer, fastest first:

* **whole text, ids only** (``ugm/textids.py``, fragments from ``whole_from`` bytes whose
  words the unit cache does not already hold): the whole fragment normalised in numpy passes
  (only the few regions the charsmap changes go through the normaliser), then searched by
  pieces, each distinct piece once (a piece ends where two characters sit side by side in no
  token; ``ugm/pieces.py``). No Python work per unit: faster than the unit path on mixed text;
* **units** (``_encode_units``): the fragment is cut before every *separator* byte (0x20, and
  any ASCII byte the charsmap turns into exactly 0x20, e.g. \\n for XLM-R) into units: the
  first word, then each separator with the word after it. Each unit is normalised and
  searched once and cached. Exact when the three conditions below hold (all checked). A
  long cold text brings thousands of new units: they are encoded together
  (``ugm/units.py``: most words normalise character by character, ``ugm/words.py``; one
  numpy Viterbi over all of them, each distinct piece once, ``ugm/pieces.py``, its lattice
  found in an exact hash table of the trie tokens, ``ugm/hash.py``), so the Python work per
  unit is a few dict lookups;
* **whole** (``encode_whole``): normalise the whole fragment, one character search: the same
  additions in the same order as llama.cpp, so exact with no condition;
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
from itertools import chain, compress, repeat
from operator import itemgetter, not_
from typing import Any, cast

import numpy as np

from tui_tok.tokenizer.arrays.chunks import chain_flat, distinct_chunks
from tui_tok.tokenizer.core.encoder import Encoder
from tui_tok.tokenizer.core.gc_pause import gc_paused
from tui_tok.tokenizer.core.paths import AUTO, Paths
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.ugm.batch import keep_one_unknown
from tui_tok.tokenizer.ugm.charsmap import Charsmap
from tui_tok.tokenizer.ugm.hash import TokenHash
from tui_tok.tokenizer.ugm.reference import ReferenceEncoder, vocab_normalizer
from tui_tok.tokenizer.ugm.tables import UgmTables, build_tables, trie_hash
from tui_tok.tokenizer.ugm.textids import TextIds
from tui_tok.tokenizer.ugm.units import encode_units, search_text
from tui_tok.tokenizer.ugm.words import WordForms

_CACHE_LIMIT = 100_000
_CACHE_BYTES = 8 << 20  # normalised bytes of all cached units
# The paths (core/paths.py): from ``ugm_batch_from`` missing units ``ugm/units.encode_units`` beats
# encoding them one by one, long units included (both searches restart where no lattice edge
# crosses, ``ugm/batch.py``; the generic normaliser is the per-unit path's cost). Fragments from ``ugm_whole_from`` bytes take the
# whole-text ids path (``ugm/textids.py``): below, the unit cache's lookups win (and keep the
# units of text typed again and again).
_SAMPLE = 64
"""Words sampled to tell whether the unit cache knows a long text (``_cache_knows``)."""
_Unit = tuple[list[int], list[int], bool, int]
"""One encoded unit: token ids, token end offsets, is_space_prepended after it, normalised length."""


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

    FRESH_IDS = True
    """``encode_fragment_ids`` returns a new list on every call (``Encoder``)."""

    def __init__(self, vocab: Vocab, *, paths: Paths = AUTO) -> None:
        self.vocab = vocab
        self.paths = paths
        self.normalizer = vocab_normalizer(vocab)
        self.charsmap: Charsmap | None = self.normalizer.charsmap
        self._tables: UgmTables | None = None
        self._reference: ReferenceEncoder | None = None
        self._token_hash: TokenHash | None = None
        self._forms = WordForms(self.normalizer)
        self._text_ids = TextIds(self.normalizer)
        self.whole_from = paths.ugm_whole_from
        """Fragments from this many bytes take ``ugm/textids.py`` for ids (0: always, tests)."""
        self.batch_from = paths.ugm_batch_from
        """Missing units from which they are encoded together (``ugm/units.py``); 0 always batches (tests)."""
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

    def _trim_cache(self) -> None:
        """Empty the cache once it holds too many units or too many normalised bytes."""
        if len(self._cache) > _CACHE_LIMIT or self._cache_bytes > _CACHE_BYTES:
            self.clear_cache()

    def prepare(self) -> None:
        """Build now the search tables and the trie's hash table (otherwise built by the first
        encode), as llama.cpp builds its token matcher at load."""
        token_hash = self.token_hash
        if self.tables.units_ok and self._text_ids.usable():  # the whole-text path's tables too
            self._text_ids.alphabet(self.tables, token_hash, self.vocab.unk_id)

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
        if not text:
            return []
        tables = self.tables
        if tables.units_ok:
            with gc_paused(len(text)):
                pieces = self._encode_units(text, tables)
            if pieces is not None:
                return pieces
        return self.encode_whole(text)

    def encode_fragment_ids(self, text: bytes, *, after_special: bool) -> list[int]:
        """``[p[0] for p in encode_fragment(text)]`` without computing the spans."""
        if not text:
            return []
        tables = self.tables
        if tables.units_ok and len(text) >= self.whole_from and tables.max_exact_bytes and not self._cache_knows(text):
            found = self._text_ids.encode(text, tables, self.token_hash, unk_id=self.vocab.unk_id)
            if found is not None:
                return found
        if tables.units_ok:
            with gc_paused(len(text)):
                ids = self._encode_units_ids(text, tables)
            if ids is not None:
                return ids
        return [p[0] for p in self.encode_whole(text)]

    def _cache_knows(self, text: bytes) -> bool:
        """Whether the unit cache holds most of ``text``'s words (checked on a sample): then
        the unit path is faster than the whole-text path, which fills no cache."""
        cache = self._cache
        if len(cache) < _SAMPLE or len(text) < 16 * _SAMPLE or self.normalizer.prepend and not self.normalizer.merge:
            return False  # (keyed units: the whole-text path does not apply anyway)
        tables = self.tables
        spaced = text if tables.separators is None else text.translate(tables.separators)
        step = len(spaced) // _SAMPLE
        hits = 0
        for at in range(0, step * _SAMPLE, step):
            start = spaced.rfind(b" ", 0, at) + 1
            end = spaced.find(b" ", at)
            hits += spaced[start : end if end >= 0 else len(spaced)] in cache
        return hits * 4 >= _SAMPLE * 3

    def encode_whole(self, text: bytes) -> list[Piece]:
        """Normalise and search the whole fragment at once: llama.cpp's exact computation (same
        additions in the same order), with no condition; the character search when the
        normalised text is valid UTF-8, else the byte search."""
        tables = self.tables
        norm = self.normalizer.normalize(text)
        hit = self._search(norm.text, norm.offsets, tables)
        if hit is None:
            return self.encode_reference(text)
        ids, ends = hit
        return [(tid, ends[k - 1] if k else 0, ends[k]) for k, tid in enumerate(ids)]

    def encode_reference(self, text: bytes) -> list[Piece]:
        """``ugm/reference.py``: normalise byte by byte, search byte by byte (its trie built once)."""
        ref = self._reference
        if ref is None:
            ref = self._reference = ReferenceEncoder(self.vocab)
        return ref.encode_fragment(text, after_special=False)

    def _encode_units(self, text: bytes, tables: UgmTables) -> list[Piece] | None:
        """Conditions 1-3 hold: encode unit by unit through the cache (None: use the slow path).

        Spans tile the normalised output (a token starts
        where the previous one ended, input that vanished in between belongs to the next
        token), so only ends are kept. Missing units are encoded together (``ugm/units.py``)
        when there are enough of them, so the per-unit Python work is the lookups.
        """
        keyed = self.normalizer.prepend and not self.normalizer.merge
        spaced = text if tables.separators is None else text.translate(tables.separators)
        words = spaced.split(b" ")
        done = []  # units encoded one at a time, in order
        flag = False
        k = 1
        if keyed:  # is_space_prepended matters and only changes once: follow it to True
            hit = self._unit((True, words[0], False), words[0], False, tables)
            if hit is None:
                return None
            done.append(hit)
            flag = hit[2]
        while keyed and not flag and k < len(words):
            hit = self._unit((words[k], flag), b" " + words[k], flag, tables)
            if hit is None:
                return None
            done.append(hit)
            flag = hit[2]
            k += 1
        rest = words[k:]
        keys: list[Any] = list(zip(rest, repeat(True))) if keyed else rest
        cache = self._cache
        hits: list[_Unit | None] = list(map(cache.get, keys)) if cache else [None] * len(keys)
        if None in hits:
            missing = list(dict.fromkeys(compress(keys, map(not_, hits))))
            filled: dict[Any, _Unit] = {}
            if not self._fill(missing, [key[0] for key in missing] if keyed else missing, flag, tables, filled):
                return None
            hits = [filled[key] if h is None else h for key, h in zip(keys, hits)]
            self._trim_cache()
        if not keyed:  # the first word last: a batch above leaves the batched search ready
            hit = self._unit((True, words[0], False), words[0], False, tables)
            if hit is None:
                return None
            done.append(hit)
        units = done + cast("list[_Unit]", hits)  # every key is cached by now: no None
        norm_len = sum(map(itemgetter(3), units))
        if norm_len > tables.max_exact_bytes:
            return None
        ids = list(chain.from_iterable(map(itemgetter(0), units)))
        if not ids:
            return []
        unk = self.vocab.unk_id
        # C-level lists first: np.array of a list is much faster than np.fromiter of a chain
        unit_pos = np.zeros(len(words), dtype=np.int64)  # unit k > 0 starts at separator k - 1
        unit_pos[1:] = np.flatnonzero(np.frombuffer(spaced, dtype=np.uint8) == 0x20)
        counts = np.array(list(map(len, map(itemgetter(0), units))), dtype=np.int64)
        end_arr = np.array(list(chain.from_iterable(map(itemgetter(1), units))), dtype=np.int64)
        end_arr += np.repeat(unit_pos, counts)
        if unk in ids:
            id_arr = np.array(ids, dtype=np.int64)
            keep = keep_one_unknown(id_arr, unk)
            ids = id_arr[keep].tolist()
            end_arr = end_arr[keep]
        ends = end_arr.tolist()
        return list(zip(ids, [0, *ends[:-1]], ends))

    def _encode_units_ids(self, text: bytes, tables: UgmTables) -> list[int] | None:
        """``_encode_units`` without the spans, with the units as byte ranges: the distinct ones found
        and the ids chained in whole arrays (``arrays/chunks.py``), so the Python work is per
        distinct unit, not per unit (123k units, 11k distinct in 0.56 MB of mixed text)."""
        keyed = self.normalizer.prepend and not self.normalizer.merge
        spaced = text if tables.separators is None else text.translate(tables.separators)
        seps = np.flatnonzero(np.frombuffer(spaced, dtype=np.uint8) == 0x20)
        starts = np.concatenate(([0], seps + 1))  # word k: starts[k] to ends[k]
        ends = np.append(seps, len(spaced))
        done = []  # units encoded one at a time, in order
        flag = False
        k = 1
        first = spaced[: int(ends[0])]
        if keyed:  # is_space_prepended matters and only changes once: follow it to True
            hit = self._unit((True, first, False), first, False, tables)
            if hit is None:
                return None
            done.append(hit)
            flag = hit[2]
        while keyed and not flag and k < len(starts):
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
        hits: list[_Unit | None] = list(map(cache.get, keys)) if cache else [None] * len(keys)
        if None in hits:
            missing = list(compress(keys, map(not_, hits)))
            filled: dict[Any, _Unit] = {}  # read from here: another thread may empty the shared cache
            if not self._fill(missing, [key[0] for key in missing] if keyed else missing, flag, tables, filled):
                return None
            hits = [filled[key] if h is None else h for key, h in zip(keys, hits)]
            self._trim_cache()
        if not keyed:  # the first word last: a batch above leaves the batched search ready
            hit = self._unit((True, first, False), first, False, tables)
            if hit is None:
                return None
            done.append(hit)
        units = cast("list[_Unit]", hits)  # every key is cached by now: no None
        sizes = np.fromiter(map(len, map(itemgetter(0), units)), dtype=np.int64, count=len(units))
        norm = np.fromiter(map(itemgetter(3), units), dtype=np.int64, count=len(units))
        norm_len = sum(map(itemgetter(3), done)) + int(norm[occ].sum())
        if norm_len > tables.max_exact_bytes:
            return None
        flat = np.fromiter(chain.from_iterable(map(itemgetter(0), units)), dtype=np.int64, count=int(sizes.sum()))
        head = list(chain.from_iterable(map(itemgetter(0), done)))
        id_arr = np.concatenate((np.array(head, dtype=np.int64), chain_flat(occ, flat, sizes)))
        unk = self.vocab.unk_id
        if id_arr.size and (id_arr == unk).any():
            id_arr = id_arr[keep_one_unknown(id_arr, unk)]
        return id_arr.tolist()

    def _fill(
        self, keys: list[Any], words: list[bytes], flag: bool, tables: UgmTables, filled: dict[Any, _Unit]
    ) -> bool:
        """Encode the units ``b" " + word`` into ``filled`` and the cache under ``keys`` (False: some
        unit's normalised bytes are not valid UTF-8). The caller reads ``filled``: another thread
        may empty the shared cache at any time."""
        if len(keys) < self.batch_from:
            for key, word in zip(keys, words):
                hit = self._encode_unit(b" " + word, flag, tables)
                if hit is None:
                    return False
                filled[key] = self._cache[key] = hit
                self._cache_bytes += hit[3]
            return True
        results = encode_units(
            words,
            flag=flag,
            forms=self._forms,
            tables=tables,
            token_hash=self.token_hash,
            unk_id=self.vocab.unk_id,
        )
        if results is None:
            return False
        filled.update(zip(keys, results))
        self._cache.update(zip(keys, results))
        self._cache_bytes += sum(map(itemgetter(3), results))
        return True

    def _unit(self, key: object, unit: bytes, flag: bool, tables: UgmTables) -> _Unit | None:
        """``_encode_unit`` through the cache (emptied when full)."""
        hit = self._cache.get(key)
        if hit is None:
            hit = self._encode_unit(unit, flag, tables)
            if hit is not None:
                self._trim_cache()
                self._cache[key] = hit
                self._cache_bytes += hit[3]
        return hit

    def _encode_unit(self, unit: bytes, flag: bool, tables: UgmTables) -> _Unit | None:
        """One unit: token ids, token end offsets in ``unit``, is_space_prepended after it,
        normalised length; None if the normalised bytes are not valid UTF-8."""
        norm = self.normalizer.normalize(unit, space_prepended=flag)
        hit = self._search(norm.text, norm.offsets, tables, restart=True)
        if hit is None:
            return None
        return hit[0], hit[1], norm.space_prepended, len(norm.text)

    def _search(
        self, text: bytes, offsets: list[int], tables: UgmTables, *, restart: bool = False
    ) -> tuple[list[int], list[int]] | None:
        """``units.search_text`` with this vocab's tables."""
        return search_text(text, offsets, tables, self.token_hash, unk_id=self.vocab.unk_id, restart=restart)
