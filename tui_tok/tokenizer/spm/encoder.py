"""llama.cpp's SPM (``llm_tokenizer_spm_session``, llama-vocab.cpp:115-239), fast.

The algorithm, spans included, is stated once in ``spm/reference.py``; every path here is a
faster form of it, tested equal to it (``tests/tokenizer/test_reference.py``). Results are
cached per chunk; ``spm/chunks.py`` finds cut points that provably do not change the result.
Many new chunks merge together (``batch/merge.py``); a chunk alone with the same merger's heap,
or its whole-array rounds when long. ``encode_fragment_ids`` (what ``Tokenizer.encode`` uses)
skips spans; both cache short fragments whole. A fragment that is not valid UTF-8 takes the
reference itself: lead-byte symbols may then swallow a space, so no cut is safe.

>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "llama",
...     "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "▁", "h", "i", "▁h", "▁hi"],
...     "tokenizer.ggml.scores": [0, 0, 0, -1, -2, -3, -4, -5]})
>>> SpmEncoder(v).encode_fragment(b"hi hi", after_special=True)
[(7, 0, 2), (7, 2, 5)]
"""

from __future__ import annotations

import threading
from itertools import accumulate, chain, repeat
from operator import itemgetter, methodcaller, sub
from typing import Literal, cast

import numpy as np

from tui_tok.tokenizer.arrays.sorted_unique import unique_inverse
from tui_tok.tokenizer.batch.merge import SymbolMerger
from tui_tok.tokenizer.batch.results import Parts, expand_words
from tui_tok.tokenizer.core.encoder import Encoder, Fragments
from tui_tok.tokenizer.core.paths import AUTO, Paths
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.spm.chunks import Chunker
from tui_tok.tokenizer.spm.reference import ReferenceEncoder

_ESC = "\u2581"
_ESC_BYTES = _ESC.encode()
_CACHE_LIMIT = 200_000
# Which path a chunk takes: the ``spm_*`` sizes of ``core/paths.py``.
_FRAGMENT_MAX = 256  # longer fragments are not cached whole (their chunks are)

ChunkResult = tuple[tuple[int, ...], tuple[int, ...]]
"""A chunk's token ids and each token's byte end (relative to the chunk; tokens tile it)."""


class SpmEncoder(Encoder):
    """The encoder of ``tokenizer.ggml.model == "llama"`` vocabularies."""

    def __init__(self, vocab: Vocab, *, paths: Paths = AUTO) -> None:
        self._vocab = vocab
        self.paths = paths
        self._t2id = vocab.token_to_id
        self._add_space_prefix = vocab.add_space_prefix
        self._cache: dict[str, ChunkResult] = {}
        self._fragments: tuple[dict[bytes, tuple[int, ...]], ...] = ({}, {})  # [prefix space?]
        self._piece_fragments: tuple[dict[bytes, tuple[Piece, ...]], ...] = ({}, {})
        self._byte_ids: list[int | None] | None = None
        self._exact: ReferenceEncoder | None = None
        self._chunker = Chunker(vocab.tokens)
        self._batch: SymbolMerger | Literal[False] | None = None  # False: cannot batch this vocab
        self._symbol_parts: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {}
        self._sid_parts: dict[int, Parts] = {}  # batch symbol id -> its ids and input bytes
        self._build_lock = threading.Lock()  # one batch merger per encoder, whatever the threads
        self._misses = 0
        self.fine_after = max(vocab.n_tokens // paths.spm_fine_per_tokens, paths.spm_fine_after_min)
        """Distinct chunks to see before cutting chunks finer (tests set -1 to always cut)."""
        self.fine_min_len = paths.spm_fine_min_len

    # --- public -------------------------------------------------------------------------------

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Pieces for one raw fragment; offsets are bytes of ``text``. Short ones are cached."""
        prefix = self._add_space_prefix and after_special
        frags = self._piece_fragments[prefix]
        hit = frags.get(text)
        if hit is not None:
            return list(hit)
        data = b" " + text if prefix else text
        if not data:
            return []
        try:
            decoded = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._reference().encode_fragment(text, after_special=after_special)
        pieces = self._encode_chunked(decoded, -1 if prefix else 0)
        if len(text) <= _FRAGMENT_MAX:
            if len(frags) >= _CACHE_LIMIT:
                frags.clear()
            frags[text] = tuple(pieces)
        return pieces

    def encode_fragment_ids(self, text: bytes, *, after_special: bool) -> list[int]:
        """Just the ids of ``encode_fragment``: the fast path for ``Tokenizer.encode``.

        Short fragments are cached whole (gemma's whitespace tokens cut code into many small
        fragments, and lines repeat).
        """
        found = self._fragment_chunks(text, after_special)
        if isinstance(found, list):
            return found
        if len(found) >= self.paths.spm_batch_from:
            self._encode_batch(found)
        return self._fragment_ids(text, after_special, found)

    def encode_fragments_ids(self, fragments: Fragments) -> list[list[int]]:
        """``encode_fragment_ids`` of each (fragment, after_special) of one text, with the new
        chunks of all of them merged in one batch (gemma's whitespace tokens cut code into
        thousands of short fragments, each too short to batch on its own)."""
        found = [self._fragment_chunks(text, after) for text, after in fragments]
        self._encode_batch([c for f in found if isinstance(f, tuple) for c in f])
        return [
            f if isinstance(f, list) else self._fragment_ids(text, after, f)
            for (text, after), f in zip(fragments, found)
        ]

    def encode_fragments(self, fragments: Fragments) -> list[list[Piece]]:
        """``encode_fragment`` of each (fragment, after_special) of one text, the new chunks of
        all of them merged in one batch first (see ``encode_fragments_ids``)."""
        if len(fragments) >= 2:
            chunks: list[str] = []
            for text, after in fragments:
                data = b" " + text if self._add_space_prefix and after else text
                try:
                    chunks += self._chunker.coarse(data.decode("utf-8")) if data else ()
                except UnicodeDecodeError:
                    continue
            self._encode_batch(chunks)
        return [self.encode_fragment(text, after_special=after) for text, after in fragments]

    def _fragment_chunks(self, text: bytes, after_special: bool) -> list[int] | tuple[str, ...]:
        """A fragment's ids when it needs no chunks (cached whole, or not valid UTF-8: the
        byte-exact path), else its coarse chunks (a tuple)."""
        prefix = self._add_space_prefix and after_special
        hit = self._fragments[prefix].get(text)
        if hit is not None:
            return list(hit)
        data = b" " + text if prefix else text
        try:
            decoded = data.decode("utf-8")
        except UnicodeDecodeError:
            return [t for t, _, _ in self._reference().encode_fragment(text, after_special=after_special)]
        return tuple(self._chunker.coarse(decoded)) if decoded else ()

    def _fragment_ids(self, text: bytes, after_special: bool, chunks: tuple[str, ...]) -> list[int]:
        """A fragment's ids from its chunks (cached, else encoded now); short ones cached whole."""
        cache = self._cache
        out: list[int] = []
        for chunk in chunks:
            hit = cache.get(chunk)
            if hit is None and len(chunk) >= self.paths.rounds_from:  # huge: ids only, not cached
                ids = self._huge_chunk_ids(chunk)
                if ids is not None:
                    out += ids
                    continue
            out += (hit if hit is not None else self._encode_miss(chunk))[0]
        if len(text) <= _FRAGMENT_MAX:
            frags = self._fragments[self._add_space_prefix and after_special]
            if len(frags) >= _CACHE_LIMIT:
                frags.clear()
            frags[text] = tuple(out)
        return out

    # --- chunked fast path (valid UTF-8) ------------------------------------------------------

    def _encode_chunked(self, text: str, shift: int) -> list[Piece]:
        """``shift`` -1 removes the inserted prefix space from the offsets (clamped at 0).

        A chunk's tokens tile it (see ``_encode_valid``), so each start is the previous end.
        """
        cache = self._cache
        out: list[Piece] = []
        off = shift
        prev = 0
        first = shift < 0
        chunks = self._chunker.coarse(text)
        if len(chunks) >= self.paths.spm_batch_from:
            self._encode_batch(chunks)
        for chunk in chunks:
            hit = cache.get(chunk)
            if hit is None:
                hit = self._encode_miss(chunk)
            ids, ends = hit
            if first:
                e = [max(b + off, 0) for b in ends]
                first = False
            else:
                e = list(map(off.__add__, ends)) if off else list(ends)
            out.extend(zip(ids, [prev, *e[:-1]], e))
            prev = e[-1]
            off = prev
        return out

    def prepare(self) -> None:
        """Build the batch merger and the chunker's table now."""
        self._merger()
        self._chunker.prepare()

    def _encode_batch(self, chunks: list[str] | tuple[str, ...]) -> None:
        """Cache the distinct new chunks of a long text, merged together (``batch/merge.py``)
        when there are enough of them; the rest of the encoder then finds them all cached."""
        get = self._cache.get
        new = [c for c in dict.fromkeys(chunks) if get(c) is None]
        if len(new) < self.paths.spm_batch_from:
            return
        merger = self._merger()
        if merger is None:
            return
        if len(self._cache) + len(new) >= _CACHE_LIMIT:
            self._cache.clear()
        self._misses += len(new)
        short = [c for c in new if len(c) <= self.paths.spm_list_max]
        syms = merger.char_symbol_array("".join(short).replace(" ", _ESC))
        merged = merger.merge_flat(syms, np.fromiter(map(len, short), dtype=np.int64, count=len(short)))
        cache = self._cache
        if _ESC in "".join(short):  # a literal ▁ in the input: those chunks one by one
            plain = [_ESC not in chunk for chunk in short]
            for chunk, sids, ok in zip(short, merged, plain):
                if not ok:
                    cache[chunk] = self._chunk_result(chunk, merger.texts(sids))
            short = [c for c, ok in zip(short, plain) if ok]
            merged = [m for m, ok in zip(merged, plain) if ok]
        cache.update(zip(short, expand_words(merged, self._describe, ends=True)))
        if len(short) < len(new):
            for chunk in new:
                if len(chunk) > self.paths.spm_list_max:  # the heap: O(n log n)
                    sids = merger.merge_long(merger.char_symbols(chunk.replace(" ", _ESC)))
                    cache[chunk] = self._chunk_result(chunk, merger.texts(sids))

    def _huge_chunk_ids(self, chunk: str) -> list[int] | None:
        """Ids of one huge chunk (a run of spaces, of newlines, a blob) without the byte ends a
        cached result keeps (1M ends were ~40 MB of ints): final symbols that are tokens are
        their ids, the others (one character each) its byte tokens. None without a merger."""
        merger = self._merger()
        if merger is None:
            return None
        sids = merger.merge_rounds_array(merger.char_symbol_array(chunk.replace(" ", _ESC)))
        n_tokens = merger.n_tokens
        if not len(sids) or int(sids.max()) < n_tokens:
            return sids.tolist()
        head = np.empty(len(sids), dtype=bool)  # runs of one symbol (1M newlines): per run
        head[0] = True
        np.not_equal(sids[1:], sids[:-1], out=head[1:])
        starts = np.flatnonzero(head)
        if len(starts) * 4 <= len(sids):
            lens = np.diff(np.append(starts, len(sids))).tolist()
            out: list[int] = []
            for sid, n in zip(sids[starts].tolist(), lens):
                out += ([sid] if sid < n_tokens else list(self._parts_of(merger.text(sid))[0])) * n
            return out
        del head, starts
        uniq, inv = unique_inverse(sids)  # expand each symbol to its ids in whole arrays
        parts = [(sid,) if sid < n_tokens else self._parts_of(merger.text(sid))[0] for sid in uniq.tolist()]
        sizes = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
        flat = np.fromiter(chain.from_iterable(parts), dtype=np.int64)
        k = sizes[inv]
        src = np.repeat((np.cumsum(sizes) - sizes)[inv] - (np.cumsum(k) - k), k) + np.arange(int(k.sum()))
        return flat[src].tolist()

    def _describe(self, sids: list[int]) -> list[Parts]:
        """Token ids and input bytes of final symbols, every ▁ standing for a 1-byte space: a
        token covers its bytes, any other symbol (one character) becomes its byte tokens."""
        memo = self._sid_parts
        found = list(map(memo.get, sids))
        if None in found:
            merger = self._merger()
            assert merger is not None
            n_tokens = merger.n_tokens
            new = [sid for sid, part in zip(sids, found) if part is None]
            known = [sid for sid in new if sid < n_tokens]
            texts = list(map(self._vocab.tokens.__getitem__, known))
            # the input bytes each token covers, every ▁ in it standing for a 1-byte space
            sizes = map(sub, map(len, map(methodcaller("encode", "utf-8", "surrogateescape"), texts)),
                        map(_twice_esc, texts))  # fmt: skip
            memo.update(zip(known, zip(zip(known), zip(sizes))))  # sid -> ((sid,), (size,))
            for sid in new:
                if sid >= n_tokens:  # one character that is no token: its byte tokens
                    memo[sid] = self._parts_of(merger.text(sid))
            found = list(map(memo.__getitem__, sids))
        return found  # type: ignore[return-value]

    def _merger(self) -> SymbolMerger | None:
        """The batch merger: priority = the merged token's score, highest first (None when a
        score is NaN, which has no order). Built once, under a lock: ``_sid_parts`` is keyed by
        this merger's symbol ids, and a second merger built by a racing thread gave the other
        threads the texts of other ids."""
        if self._batch is None:
            with self._build_lock:
                if self._batch is None:
                    self._batch = self._new_merger()
        return self._batch or None

    def _new_merger(self) -> SymbolMerger | Literal[False]:
        scores = self._vocab.scores
        if np.isnan(scores).any():
            return False
        _, rank = np.unique(scores, return_inverse=True)  # equal scores, equal rank
        prio = np.append(int(rank.max(initial=0)) - rank, -1).astype(np.int64)  # highest score -> 0
        get = self._t2id.get

        def resolve(lefts: list[str], rights: list[str]) -> tuple[np.ndarray, list[int]]:
            # SPM merges only into tokens; no token: index -1, priority -1
            tids = np.fromiter(map(get, map(str.__add__, lefts, rights), repeat(-1)), dtype=np.int64, count=len(lefts))
            return prio[tids], tids[tids >= 0].tolist()

        return SymbolMerger(self._vocab.tokens, self._t2id, resolve, merges_to_ids=True, paths=self.paths)

    def _encode_miss(self, chunk: str) -> ChunkResult:
        """Encode a coarse chunk not in the cache, reusing cached fine sub-chunks once warm."""
        cache = self._cache
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        self._misses += 1
        long_chunk = len(chunk) >= self.fine_min_len and self._misses > self.fine_after
        parts = self._chunker.fine(chunk) if long_chunk else (chunk,)
        if len(parts) == 1:
            hit = cache[chunk] = self._encode_valid(chunk)
            return hit
        ids: list[int] = []
        ends: list[int] = []
        off = 0
        for part in parts:
            sub = cache.get(part)
            if sub is None:
                sub = cache[part] = self._encode_valid(part)
            ids += sub[0]
            ends += map(off.__add__, sub[1])
            off = ends[-1]
        hit = cache[chunk] = (tuple(ids), tuple(ends))
        return hit

    def _encode_valid(self, orig: str) -> ChunkResult:
        """(ids, byte ends) of one chunk, merging characters of the escaped string.

        The tokens tile the chunk: a merged symbol covers its characters' bytes, a ▁ made from a
        space covers 1 byte (a byte-fallback run for it: the first token takes the byte, the
        other two are empty), any other character covers its UTF-8 bytes one token per byte.
        """
        merger = self._merger()
        if merger is None:  # a NaN score: llama.cpp's heap, plainly
            pieces = self._reference().encode_fragment(orig.encode(), after_special=False)
            return tuple(p[0] for p in pieces), tuple(p[2] for p in pieces)
        s = orig.replace(" ", _ESC)
        if len(s) >= self.paths.rounds_from:  # whole-array rounds
            return self._chunk_result(
                orig, merger.texts(merger.merge_rounds_array(merger.char_symbol_array(s)).tolist())
            )
        return self._chunk_result(orig, merger.texts(merger.merge_heap(merger.char_symbols(s))))

    def _chunk_result(self, orig: str, syms: list[str]) -> ChunkResult:
        """(ids, byte ends) of a chunk from its final symbols (of the escaped chunk)."""
        t2id = self._t2id
        sym_ids = list(map(t2id.get, syms))
        if None not in sym_ids:  # every symbol is a token (no byte fallback)
            if orig.isascii():
                return tuple(cast("list[int]", sym_ids)), tuple(accumulate(map(len, syms)))
            if _ESC not in orig:  # each ▁ stands for a 1-byte space
                lens = map(int.__sub__, map(len, map(str.encode, syms)), map(_twice_esc, syms))
                return tuple(cast("list[int]", sym_ids)), tuple(accumulate(lens))
        elif _ESC not in orig:  # byte fallback: each symbol's (ids, byte lengths), memoised
            parts = self._symbol_parts
            found = list(map(parts.get, syms))
            if None in found:  # each distinct symbol once (a run of 1M newlines is one symbol)
                for sym in set(syms).difference(parts):
                    self._parts_of(sym)
                found = list(map(parts.__getitem__, syms))  # only filled, never emptied
            return (
                tuple(chain.from_iterable(map(itemgetter(0), found))),  # type: ignore[arg-type]
                tuple(accumulate(chain.from_iterable(map(itemgetter(1), found)))),  # type: ignore[arg-type]
            )
        ids: list[int] = []
        ends: list[int] = []
        pos = 0  # character index into orig
        end = 0  # byte offset into orig
        for sym in syms:
            k = len(sym)
            tid = t2id.get(sym)
            if tid is not None:
                ids.append(tid)
                end += len(orig[pos : pos + k].encode())
                ends.append(end)
            else:
                for ch in orig[pos : pos + k]:
                    raw = (_ESC if ch == " " else ch).encode()
                    ids += map(self._byte_token, raw)
                    if ch == " ":
                        end += 1
                        ends += (end, end, end)
                    else:
                        ends += range(end + 1, end + len(raw) + 1)
                        end += len(raw)
            pos += k
        return tuple(ids), tuple(ends)

    def _parts_of(self, sym: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """A final symbol's token ids and the input bytes each covers, when every ▁ is a space:
        a token; else (one character) its UTF-8 bytes as byte tokens, a ▁'s 3 bytes covering
        its 1-byte space with the first."""
        found: ChunkResult
        tid = self._t2id.get(sym)
        if tid is not None:
            found = (tid,), (len(sym.encode()) - _twice_esc(sym),)
        elif sym == _ESC:
            found = tuple(map(self._byte_token, _ESC_BYTES)), (1, 0, 0)
        else:
            raw = sym.encode()
            found = tuple(map(self._byte_token, raw)), (1,) * len(raw)
        self._symbol_parts[sym] = found
        return found

    # --- byte-exact path ----------------------------------------------------------------------

    def _reference(self) -> ReferenceEncoder:
        """``spm/reference.py`` for input that is not valid UTF-8: lead-byte symbols may swallow a
        space there, so no chunking is exact and the whole fragment merges at once, as llama.cpp
        merges it (one Python heap, the cost of the former separate byte path)."""
        ref = self._exact
        if ref is None:
            ref = self._exact = ReferenceEncoder(self._vocab)
        return ref

    def _byte_token(self, byte: int) -> int:
        table = self._byte_ids
        if table is None:
            table = self._byte_ids = [self._lookup_byte(b) for b in range(256)]
        tid = table[byte]
        return tid if tid is not None else self._reference().byte_to_token(byte)  # raises llama.cpp's error

    def _lookup_byte(self, byte: int) -> int | None:
        tid = self._t2id.get(f"<0x{byte:02X}>")
        if tid is None:  # llama.cpp's buf2 is a C string: byte 0 looks up "" (V:4012-4014)
            tid = self._t2id.get(bytes([byte]).decode("utf-8", "surrogateescape") if byte else "")
        return tid


def _twice_esc(sym: str) -> int:
    """Bytes a symbol's ▁ add beyond the 1-byte spaces they stand for."""
    return 2 * sym.count(_ESC)
