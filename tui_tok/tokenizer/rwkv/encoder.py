r"""RWKV "world" tokenizer as llama.cpp runs it (``rwkv/reference.py`` states the algorithm: greedy
longest match in a trie of the unescaped tokens, the unk id for a byte no token starts, and
``TokenizeError`` where llama.cpp would loop forever): fast paths.

The longest match is found without a trie: a token of 3 bytes or more that is a prefix of the
text begins with the text's first 3 bytes, so the longest one is at most the longest token with
those 3 bytes first (a dict of ~50k entries) and the lengths from there down are looked up in
the token dict. Same answer as the trie; no trie to build at load. ``encode`` (ids only)
looks every chunk up whole at once and matches the distinct others together in numpy
(``rwkv/greedy.py``). The escaped texts are decoded in bulk (``rwkv/unescape.py``).

Every path here is equal to ``rwkv/reference.py`` (``tests/tokenizer/test_reference.py``). Does
not split special tokens or add BOS/EOS (RWKV never adds them): see ``tokenizer.py``.

>>> unescape_token(r"\x41\n\\")
b'A\n\\'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.arrays.chunks import chain_flat, word_view
from tui_tok.tokenizer.core.encoder import Encoder
from tui_tok.tokenizer.core.paths import AUTO, Paths
from tui_tok.tokenizer.core.types import Piece, PieceArrays, piece_arrays
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.rwkv.distinct import distinct_misses
from tui_tok.tokenizer.rwkv.greedy import greedy_chunks, spread
from tui_tok.tokenizer.rwkv.table import MAX_LEN, TokenTable, chunk_keys
from tui_tok.tokenizer.rwkv.unescape import unescape_all, unescape_token

__all__ = ["RwkvEncoder", "unescape_token"]

_BLOCK = 1 << 15
"""``_bounds`` looks the byte pairs up this many at a time (``take`` turns its indices into an
intp array: 8 bytes per text byte, 4.5 MB for the 0.56 MB benchmark text, in one go), and
``_whole_chunks`` looks this many chunks up at a time."""


def _inner_cuts(blob: bytes, sizes: np.ndarray) -> np.ndarray:
    """bool[65536]: the byte pairs a, b that occur inside no token, at ``b << 8 | a`` (the pair
    read as a little-endian 16-bit word: no byte swap); ``blob`` is the tokens' bytes end to
    end, ``sizes`` their lengths. A match never crosses these pairs."""
    cuts = np.ones(1 << 16, dtype=bool)
    if len(blob) < 2:
        return cuts
    codes = np.ndarray(shape=(len(blob) - 1,), dtype="<u2", buffer=blob, strides=(1,))
    inside = np.ones(len(codes), dtype=bool)
    token_ends = np.cumsum(sizes) - 1  # a pair starting at a token's last byte spans two tokens
    inside[token_ends[(token_ends >= 0) & (token_ends < len(codes))]] = False
    cuts[codes[inside]] = False
    return cuts


def _longest3(raws: list[bytes], data: np.ndarray, offsets: np.ndarray, sizes: np.ndarray) -> dict[bytes, int]:
    """First 3 bytes -> the longest token of 3 bytes or more starting so: a group maximum in
    numpy (not a Python loop over 65k tokens), then one slice per distinct prefix."""
    three = np.flatnonzero(sizes >= 3)
    at = offsets[three]
    key = (data[at].astype(np.int64) << 16) | (data[at + 1].astype(np.int64) << 8) | data[at + 2]
    order = np.lexsort((sizes[three], key))  # by prefix, then length: the last of a group is longest
    key = key[order]
    last = np.ones(key.size, dtype=bool)
    last[:-1] = key[1:] != key[:-1]
    best = three[order[last]]
    return dict(zip([raws[i][:3] for i in best.tolist()], sizes[best].tolist()))


@dataclass(frozen=True)
class _Tables:
    """What the longest match needs, built once (``RwkvEncoder.prepare``)."""

    token_ids: dict[bytes, int]
    """Raw bytes -> id; a later id with the same bytes wins, as in llama.cpp's trie."""
    longest3: dict[bytes, int]
    """First 3 bytes -> the byte length of the longest token (of 3 bytes or more) starting so."""
    cuts: np.ndarray
    """``_inner_cuts``: the byte pairs a match never crosses."""
    greedy: TokenTable
    """The tokens of up to 15 bytes for ``greedy_chunks``."""
    id_objects: np.ndarray | None
    """object[n + 1]: the Python int of every id (and -1 last, for ``take(-1)``): ``take(ids).tolist()``
    shares them, where ``ids.tolist()`` made a new int per token.
    None if the unk id is outside -1..n-1."""
    lengths: np.ndarray | None
    """int64[n + 1]: the byte length of each id's token (and 1 last, for the unk id -1), so the
    spans of ``encode_fragment`` follow from the ids: every token consumes its own bytes, the
    unk id one byte. None where an id's length would not say what it consumed (the unk id is
    a token of another length, or ``id_objects`` is None): ``RwkvEncoder._walk`` then."""


def _build_tables(vocab: Vocab) -> _Tables:
    texts = vocab.tokens
    every = unescape_all(list(texts))
    token_ids = dict(zip(every, range(len(texts))))
    raws = list(token_ids)
    blob = b"".join(raws)
    sizes = np.fromiter(map(len, raws), dtype=np.int64, count=len(raws))
    offsets = np.cumsum(sizes) - sizes
    data = np.frombuffer(blob + b"\0\0\0", dtype=np.uint8)
    n = len(texts)
    unk = vocab.unk_id
    lengths = None
    if -1 <= unk < n:
        lengths = np.append(np.fromiter(map(len, every), dtype=np.int64, count=n), 1)
        if unk >= 0 and lengths[unk] != 1:
            lengths = None
    return _Tables(
        token_ids=token_ids,
        longest3=_longest3(raws, data, offsets, sizes),
        cuts=_inner_cuts(blob, sizes),
        greedy=TokenTable.from_packed(blob, sizes, np.fromiter(token_ids.values(), dtype=np.int64, count=len(raws))),
        id_objects=np.append(np.arange(n), -1).astype(object) if -1 <= unk < n else None,
        lengths=lengths,
    )


class RwkvEncoder(Encoder):
    """Greedy longest-match as llama.cpp's RWKV byte trie gives it.

    Speed: a match can only cross between two bytes if some token holds that byte pair, so
    the text is first cut wherever the pair occurs in no token (every ~4 bytes of prose with
    rwkv-world). The pieces are independent. ``encode_fragment_ids`` works in whole arrays:
    every chunk looked up whole in ``rwkv/table.py``, the distinct misses matched together by
    ``rwkv/greedy.py``; ``encode_fragment`` takes those ids and their spans from the token
    lengths (where an unknown token longer than a byte makes them ambiguous: ``_walk``). The
    tables are built on first use (all in bulk: ``rwkv/unescape.py``, numpy) or by ``prepare``.
    """

    FRESH_IDS = True
    """``encode_fragment_ids`` returns a new list on every call (``Encoder``)."""

    def __init__(self, vocab: Vocab, *, paths: Paths = AUTO) -> None:
        self.vocab = vocab
        self.paths = paths
        self.unk_id = vocab.unk_id
        self._built: _Tables | None = None

    def prepare(self) -> None:
        """Build the tables now (otherwise on first use), as llama.cpp builds its trie at load."""
        self._tables()

    def _tables(self) -> _Tables:
        built = self._built
        if built is None:
            built = self._built = _build_tables(self.vocab)
        return built

    def _bounds(self, text: bytes) -> np.ndarray:
        """Offsets where a chunk starts: 0 and after every byte pair that no token holds (the
        pairs read as little-endian 16-bit words at every offset: no shifting); then
        ``len(text)``, so chunk k is ``bounds[k]:bounds[k + 1]``."""
        codes = np.ndarray(shape=(len(text) - 1,), dtype="<u2", buffer=text, strides=(1,))
        cut = np.empty(len(text) + 1, dtype=bool)
        cut[0] = cut[-1] = True
        cuts, inner = self._tables().cuts, cut[1:-1]
        for at in range(0, codes.size, _BLOCK):  # take turns the codes into a temporary intp array
            np.take(cuts, codes[at : at + _BLOCK], out=inner[at : at + _BLOCK])
        return np.flatnonzero(cut)

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Tokenize one raw fragment; ``after_special`` does not matter for RWKV."""
        spans = self._length_spans(text)
        if spans is None:
            return self._walk(text)
        found, starts, ends = spans
        objects = self._tables().id_objects
        assert objects is not None  # as lengths
        return list(zip(objects.take(found).tolist(), starts.tolist(), ends.tolist()))

    def encode_fragments_arrays(self, fragments: list[tuple[bytes, bool]]) -> list[PieceArrays]:
        """``encode_fragment`` of each fragment as int64 columns (``Tokenizer.tokenize_arrays``),
        no tuple per token: the ids path's array and spans from the token lengths."""
        return [self.encode_fragment_arrays(text) for text, _ in fragments]

    def encode_fragment_arrays(self, text: bytes) -> PieceArrays:
        """``encode_fragment(text)`` as int64 columns (ids, starts, ends)."""
        spans = self._length_spans(text)
        return piece_arrays(self._walk(text)) if spans is None else spans

    def _length_spans(self, text: bytes) -> PieceArrays | None:
        """The ids' fast path with spans from the token lengths: every token consumes its own
        bytes, the unk id one (a list of distinct chunks and a tuple per chunk occurrence cost
        4x the ids). None for a text of less than 2 bytes, where the lengths do not say what was
        consumed (``_Tables.lengths``: then the walk, a rare vocab), where the ids path raises
        (the walk raises again, with the offset in the whole fragment), or where the lengths do
        not sum to the text's (never, if the ids are right)."""
        lengths = self._tables().lengths
        if lengths is None or len(text) < 2:
            return None
        try:
            found = self._ids(text)
        except TokenizeError:
            return None
        ends = lengths.take(found)
        np.cumsum(ends, out=ends)
        if not ends.size or ends[-1] != len(text):
            return None
        starts = np.empty_like(ends)
        starts[0] = 0
        starts[1:] = ends[:-1]
        return found, starts, ends

    def encode_fragment_ids(self, text: bytes, *, after_special: bool = True) -> list[int]:
        """``encode_fragment``'s ids without spans, in whole arrays: every chunk of up to 15
        bytes is looked up whole in the token table at once (86 % of them are one token); the
        distinct others (``rwkv/distinct.py``) are matched together in numpy rounds
        (``rwkv/greedy.py``); the ids are placed by a mask and a scatter and become Python
        ints by a ``take`` from ``id_objects``. Memory is kept low on purpose (chunks in blocks,
        no copy of the whole ``word_view``, dead arrays dropped): in a fresh process every MB
        the heap grows by is ~256 page faults, which were a third of the first encode's time."""
        if len(text) < 2:
            return [tid for tid, _, _ in self._walk(text)]
        tables = self._tables()
        found = self._ids(text)
        if tables.id_objects is None:
            return found.tolist()  # type: ignore[no-any-return]
        objects = tables.id_objects.take(found)
        del found  # one array of 8 bytes per token fewer before the list's
        return objects.tolist()  # type: ignore[no-any-return]

    def _ids(self, text: bytes) -> np.ndarray:
        """The ids of ``encode_fragment_ids`` as an int64 array (``text`` of 2 bytes or more)."""
        words = word_view(text)
        found, miss, at, size, k1, k2 = self._whole_chunks(text, words)
        if miss.size:
            occ, first, length = distinct_misses(text, words, at, size, k1, k2)
            del at, size, k1, k2
            found = self._with_misses(text, words, occ, first, length, found, miss)
        return found

    def _whole_chunks(self, text: bytes, words: np.ndarray) -> tuple[np.ndarray, ...]:
        """Every chunk of ``text`` looked up whole: the id of each (-1 if it is not one token),
        then of the chunks that missed: their indices, offsets, sizes and lookup keys. The
        chunks go ``_BLOCK`` at a time (five blocks for the benchmark text; the lookups are
        independent, the misses are told apart together afterwards), so that the keys and the
        lookup's temporaries are ~0.25 MB each, not 1.1 MB: they stay in the cache, and the heap
        does not grow by fresh pages to fault in a new process."""
        bounds = self._bounds(text)
        table = self._tables().greedy
        count = bounds.size - 1
        found = np.empty(count, dtype=np.int64)
        parts: list[tuple[np.ndarray, ...]] = []
        for lo in range(0, count, _BLOCK):
            at = bounds[lo : lo + _BLOCK + 1]
            size = at[1:] - at[:-1]
            at = at[:-1]
            k1, k2 = chunk_keys(words, at, size)
            got = found[lo : lo + _BLOCK]
            got[...] = table.find(k1, k2)
            got[size > MAX_LEN] = -1  # the key named only the first 15 bytes
            miss = np.flatnonzero(got < 0)
            parts.append((miss + lo, at[miss], size[miss], k1[miss], k2[miss]))
        if len(parts) == 1:
            return (found, *parts[0])
        return (found, *map(np.concatenate, zip(*parts)))

    def _with_misses(
        self,
        text: bytes,
        words: np.ndarray,
        occ: np.ndarray,
        first: np.ndarray,
        length: np.ndarray,
        found: np.ndarray,
        miss: np.ndarray,
    ) -> np.ndarray:
        """All the ids: ``found`` (one per chunk) with the chunks ``miss`` (not one token; the
        k-th is distinct chunk ``occ[k]``, at ``first``, ``length`` bytes) replaced by their
        greedy matches."""
        try:
            got = greedy_chunks(
                text,
                first,
                length,
                self._tables().greedy,
                unk_id=self.unk_id,
                finish=self._walk_ids,
                words=words,
                whole_missed=True,
                few=self.paths.rwkv_python_max,
            )
        except TokenizeError:
            got = None
        if got is None:
            return np.array([tid for tid, _, _ in self._walk(text)], dtype=np.int64)  # raises, with the offset
        ids, counts = got
        many = counts[occ]
        extra = many - 1
        slot = np.cumsum(extra)  # a missed chunk's first token goes after the chunks before it...
        slot -= extra
        slot += miss  # ...and the extra tokens of the missed chunks before it
        keep = np.ones(found.size + int(extra.sum()), dtype=bool)
        keep[spread(slot + 1, extra)] = False  # True: the first token of some chunk
        out = np.empty(keep.size, dtype=np.int64)
        out[keep] = found  # a missed chunk's slot is written again below
        out[spread(slot, many)] = chain_flat(occ, ids, counts)
        return out

    def _walk_ids(self, text: bytes) -> list[int]:
        return [tid for tid, _, _ in self._walk(text)]

    def _walk(self, text: bytes) -> list[Piece]:
        """llama.cpp's loop: from each offset the longest token that is a prefix of the rest
        (the longest candidate first, module docstring), else the unk id for one byte."""
        tables = self._tables()
        ids = tables.token_ids.get
        longest3 = tables.longest3.get
        out: list[Piece] = []
        n = len(text)
        pos = 0
        while pos < n:
            end = min(n, pos + longest3(text[pos : pos + 3], 2))
            while end > pos:
                tid = ids(text[pos:end])
                if tid is not None:
                    break
                end -= 1
            else:
                if tables.greedy.starts[text[pos]]:
                    raise TokenizeError(
                        f"byte offset {pos}: byte 0x{text[pos]:02X} starts a token but no token matches here; "
                        "llama.cpp's RWKV tokenizer would restart from offset 0 and never finish"
                    )
                out.append((self.unk_id, pos, pos + 1))
                pos += 1
                continue
            out.append((tid, pos, end))
            pos = end
        return out
