r"""RWKV "world" tokenizer as llama.cpp runs it: escaped token texts, greedy longest match.

llama.cpp (llama-vocab.cpp:1258-1365, TOKENIZER-PARITY.md §4.5) stores RWKV tokens as escaped
text and unescapes them at load (``unescape_token``). Every token, CONTROL ones included, goes
into one byte trie (a later id with the same bytes wins). Encoding takes, from each offset, the
longest token that is a prefix of the rest; a byte that starts no token at all becomes the unk
id (-1 = NULL unless the file sets one) and consumes one byte.

llama.cpp has one more case, which never arises with a vocab holding all 256 single bytes: if
the byte starts some token's path but no token is a prefix of the text there, it emits id 0 and
restarts *from offset 0*, looping forever. We raise ``TokenizeError`` instead.

The longest match is found without a trie: a token of 3 bytes or more that is a prefix of the
text begins with the text's first 3 bytes, so the longest one is at most the longest token with
those 3 bytes first (a dict of ~50k entries) and the lengths from there down are looked up in
the token dict. Same answer as the trie; no 0.2 s trie build at load. ``encode`` (ids only)
matches the distinct chunks of up to 15 bytes all together in numpy (``rwkv/greedy.py``).

Does not split special tokens or add BOS/EOS (RWKV never adds them): see ``tokenizer.py``.

>>> unescape_token(r"\x41\n\\")
b'A\n\\'
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from itertools import chain

import numpy as np

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.arrays.chunks import chain_flat, distinct_spans
from tui_tok.tokenizer.rwkv.greedy import MAX_LEN, TokenTable, greedy_chunks
from tui_tok.tokenizer.core.spans import expand_pieces
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab

_CACHE_LIMIT = 1 << 17


_ESCAPE = re.compile(rb"\\(?:x(.{0,2})|(.)|\Z)", re.DOTALL)
_SIMPLE = {b"t": b"\t", b"n": b"\n", b"r": b"\r"}
_PLAIN_ESCAPES = re.compile(rb"(?:[^\\]|\\(?:x[0-9a-f]{2}|[tnr\\'\"]))*", re.DOTALL)
"""Text whose every escape is ``\\xHH`` in lowercase hex or ``\\t \\n \\r \\\\ \\' \\"``: there
``codecs.escape_decode`` (C) gives llama.cpp's bytes (nearly all escaped rwkv-world tokens)."""


def _hex_digit(c: int) -> int:
    signed = c - 256 if c >= 0x80 else c
    return (signed - ord("a") + 10) if signed >= ord("a") else (signed - ord("0"))


def _unescape_one(m: re.Match[bytes]) -> bytes:
    digits, other = m.group(1), m.group(2)
    if digits is not None:
        if len(digits) < 2:
            return b""
        return bytes([((_hex_digit(digits[0]) << 4) + _hex_digit(digits[1])) & 0xFF])
    if other is None:  # a backslash at the very end
        return b""
    return _SIMPLE.get(other, other)


def unescape_token(text: str) -> bytes:
    r"""llama.cpp's ``llama_unescape_rwkv_token``: ``\\t \\n \\r``, ``\\xHH``, ``\\c`` -> c.

    The ``\\xHH`` digits go through ``c >= 'a' ? c - 'a' + 10 : c - '0'`` on a *signed*
    ``char`` (x86), modulo 256: only 0-9 and a-f mean what they say, and anything else
    (``A``-``F``, ``g``, non-ASCII bytes) is mirrored exactly. An escape cut off by the end
    of the text produces nothing. (llama.cpp's byte loop; here a regex finds the escapes.)

    >>> unescape_token(r"\xe4\xbd\xa0"), unescape_token(r"\xAB"), unescape_token(r"a\qb")
    (b'\xe4\xbd\xa0', b'"', b'aqb')
    """
    data = text.encode("utf-8", "surrogateescape")
    if b"\\" not in data:
        return data
    if _PLAIN_ESCAPES.fullmatch(data):  # escapes Python's own decoder reads the same way
        return codecs.escape_decode(data)[0]  # type: ignore[attr-defined, no-any-return]
    return _ESCAPE.sub(_unescape_one, data)


def _inner_pairs(raws: list[bytes]) -> np.ndarray:
    """bool[65536]: which byte pairs (a << 8 | b) occur inside some token."""
    joined = np.frombuffer(b"".join(raws), dtype=np.uint8).astype(np.int64)
    pairs = np.zeros(1 << 16, dtype=bool)
    if len(joined) < 2:
        return pairs
    codes = (joined[:-1] << 8) | joined[1:]
    inside = np.ones(len(codes), dtype=bool)
    token_ends = np.cumsum([len(r) for r in raws]) - 1  # a pair starting at a token's last byte spans two tokens
    inside[token_ends[(token_ends >= 0) & (token_ends < len(codes))]] = False
    pairs[codes[inside]] = True
    return pairs



@dataclass(frozen=True)
class _Tables:
    """What the longest match needs, built once (``RwkvEncoder.prepare``)."""

    token_ids: dict[bytes, int]
    """Raw bytes -> id; a later id with the same bytes wins, as in llama.cpp's trie."""
    longest3: dict[bytes, int]
    """First 3 bytes -> the byte length of the longest token (of 3 bytes or more) starting so."""
    first_bytes: frozenset[int]
    """Bytes that start some token (a byte that starts none is the unk id)."""
    pairs: np.ndarray
    """``_inner_pairs``: where a match may cross between two bytes."""
    greedy: TokenTable
    """The tokens of up to 15 bytes for ``greedy_chunks``."""


def _build_tables(vocab: Vocab) -> _Tables:
    raws = [unescape_token(text) for text in vocab.tokens]
    longest3: dict[bytes, int] = {}
    get = longest3.get
    for raw in raws:
        if len(raw) >= 3 and len(raw) > get(raw[:3], 0):
            longest3[raw[:3]] = len(raw)
    token_ids = dict(zip(raws, range(len(raws))))
    return _Tables(
        token_ids=token_ids,
        longest3=longest3,
        first_bytes=frozenset(raw[0] for raw in raws if raw),
        pairs=_inner_pairs(raws),
        greedy=TokenTable.build(token_ids),
    )


def _spread(first: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Every index ``first[k] + i`` for ``i < counts[k]``, in order."""
    total = int(counts.sum())
    return np.arange(total, dtype=np.int64) + np.repeat(first - (np.cumsum(counts) - counts), counts)


class RwkvEncoder:
    """Greedy longest-match as llama.cpp's RWKV byte trie gives it; implements ``FragmentEncoder``.

    Speed: a match can only cross between two bytes if some token holds that byte pair, so
    the text is first cut wherever the pair occurs in no token (every ~4 bytes of prose with
    rwkv-world). The pieces are independent; each distinct one is matched once and cached
    (``encode_fragment_ids``: distinct chunks and chaining in whole arrays, ``arrays/chunks.py``).
    The tables are built on first use (~0.05 s for rwkv-world) or by ``prepare``.
    """

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self.unk_id = vocab.unk_id
        self._built: _Tables | None = None
        self._cache: dict[bytes, tuple[Piece, ...]] = {}
        self._ids_cache: dict[bytes, tuple[int, ...]] = {}

    def prepare(self) -> None:
        """Build the tables now (otherwise on first use), as llama.cpp builds its trie at load."""
        self._tables()

    def _tables(self) -> _Tables:
        built = self._built
        if built is None:
            built = self._built = _build_tables(self.vocab)
        return built

    def _starts(self, text: bytes) -> np.ndarray:
        """Offsets where a chunk starts: 0 and after every byte pair that no token holds."""
        arr = np.frombuffer(text, dtype=np.uint8)
        cut = ~self._tables().pairs[(arr[:-1].astype(np.uint16) << 8) | arr[1:]]
        return np.flatnonzero(np.concatenate(([True], cut)))

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Tokenize one raw fragment; ``after_special`` does not matter for RWKV."""
        if len(text) < 2:
            return self._walk(text)
        starts = self._starts(text)
        bounds = [*starts.tolist(), len(text)]
        chunks = [text[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        try:
            return expand_pieces(chunks, starts.astype(np.int64), self._chunk_pieces)
        except TokenizeError:
            return self._walk(text)  # raises again, with the offset in the whole fragment

    def encode_fragment_ids(self, text: bytes, *, after_special: bool = True) -> list[int]:
        """``encode_fragment``'s ids without spans: the distinct chunks found in whole arrays
        (``arrays/chunks.py``); those of up to 15 bytes (nearly all) matched together in numpy
        (``rwkv/greedy.py``), longer ones one at a time (cached); the ids chained by a gather."""
        if len(text) < 2:
            return [tid for tid, _, _ in self._walk(text)]
        tables = self._tables()
        occ, at, size = distinct_spans(text, self._starts(text))
        short = size <= MAX_LEN
        got = greedy_chunks(text, at[short], size[short], tables.greedy, unk_id=self.unk_id)
        if got is None:
            return [tid for tid, _, _ in self._walk(text)]  # raises, with the offset
        short_ids, short_counts = got
        if short.all():
            return chain_flat(occ, short_ids, short_counts).tolist()
        long = np.flatnonzero(~short)
        ends = at[long] + size[long]
        try:
            long_ids = list(map(self._chunk_ids, map(text.__getitem__, map(slice, at[long].tolist(), ends.tolist()))))
        except TokenizeError:
            self._walk(text)  # raises again, with the offset in the whole fragment
            raise
        counts = np.empty(at.size, dtype=np.int64)
        counts[short] = short_counts
        counts[long] = np.fromiter(map(len, long_ids), dtype=np.int64, count=len(long_ids))
        flat = np.empty(int(counts.sum()), dtype=np.int64)
        place = np.cumsum(counts) - counts  # where each distinct chunk's ids go
        flat[_spread(place[short], short_counts)] = short_ids
        flat[_spread(place[long], counts[long])] = np.fromiter(chain.from_iterable(long_ids), dtype=np.int64)
        return chain_flat(occ, flat, counts).tolist()

    def _chunk_ids(self, chunk: bytes) -> tuple[int, ...]:
        ids = self._ids_cache.get(chunk)
        if ids is None:
            if len(self._ids_cache) >= _CACHE_LIMIT:
                self._ids_cache.clear()
            ids = self._ids_cache[chunk] = self._walk_ids(chunk)
        return ids

    def _walk_ids(self, text: bytes) -> tuple[int, ...]:
        """``_walk``'s ids alone (most chunks are one token: looked up whole first)."""
        tid = self._tables().token_ids.get(text)
        if tid is not None:
            return (tid,)
        return tuple(tid for tid, _, _ in self._walk(text))

    def _chunk_pieces(self, chunk: bytes) -> tuple[Piece, ...]:
        pieces = self._cache.get(chunk)
        if pieces is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            pieces = self._cache[chunk] = tuple(self._walk(chunk))
        return pieces

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
                if text[pos] in tables.first_bytes:
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
