r"""RWKV "world" tokenizer as llama.cpp runs it: escaped token texts, byte trie, greedy longest match.

llama.cpp (llama-vocab.cpp:1258-1365, TOKENIZER-PARITY.md §4.5) stores RWKV tokens as escaped
text and unescapes them at load (``unescape_token``). Every token, CONTROL ones included, goes
into one byte trie (a later id with the same bytes wins). Encoding takes, from each offset, the
longest token that is a prefix of the rest; a byte that starts no token at all becomes the unk
id (-1 = NULL unless the file sets one) and consumes one byte.

llama.cpp has one more case, which never arises with a vocab holding all 256 single bytes: if
the byte starts some token's path but no token is a prefix of the text there, it emits id 0 and
restarts *from offset 0*, looping forever. We raise ``TokenizeError`` instead.

Does not split special tokens or add BOS/EOS (RWKV never adds them): see ``tokenizer.py``.

>>> unescape_token(r"\x41\n\\")
b'A\n\\'
"""

from __future__ import annotations

import numpy as np

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.arrays.chunks import chain_ids, distinct_chunks
from tui_tok.tokenizer.core.spans import expand_pieces
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab

_VALUE = -1  # key under which a trie node stores its token id
_CACHE_LIMIT = 1 << 17


def unescape_token(text: str) -> bytes:
    r"""llama.cpp's ``llama_unescape_rwkv_token``: ``\\t \\n \\r``, ``\\xHH``, ``\\c`` -> c.

    The ``\\xHH`` digits go through ``c >= 'a' ? c - 'a' + 10 : c - '0'`` on a *signed*
    ``char`` (x86), modulo 256: only 0-9 and a-f mean what they say, and anything else
    (``A``-``F``, ``g``, non-ASCII bytes) is mirrored exactly. An escape cut off by the end
    of the text produces nothing.

    >>> unescape_token(r"\xe4\xbd\xa0"), unescape_token(r"\xAB"), unescape_token(r"a\qb")
    (b'\xe4\xbd\xa0', b'"', b'aqb')
    """
    data = text.encode("utf-8", "surrogateescape")
    if b"\\" not in data:
        return data
    out = bytearray()
    escaping = False
    hex_remaining = 0
    hex_acc = 0
    for c in data:
        if hex_remaining:
            signed = c - 256 if c >= 0x80 else c
            value = (signed - ord("a") + 10) if signed >= ord("a") else (signed - ord("0"))
            hex_acc = ((hex_acc << 4) + value) & 0xFF
            hex_remaining -= 1
            if hex_remaining == 0:
                out.append(hex_acc)
                hex_acc = 0
            continue
        if escaping:
            if c == 0x74:  # t
                out.append(0x09)
            elif c == 0x6E:  # n
                out.append(0x0A)
            elif c == 0x72:  # r
                out.append(0x0D)
            elif c == 0x78:  # x
                hex_remaining = 2
            else:
                out.append(c)
            escaping = False
            continue
        if c == 0x5C:  # backslash
            escaping = True
            continue
        out.append(c)
    return bytes(out)


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


class RwkvEncoder:
    """Greedy longest-match over llama.cpp's RWKV byte trie; implements ``FragmentEncoder``.

    Speed: a match can only cross between two bytes if some token holds that byte pair, so
    the text is first cut wherever the pair occurs in no token (every ~4 bytes of prose with
    rwkv-world). The pieces are independent; each distinct one is walked once and cached.
    The trie (nested dicts keyed by byte) is built on first use: about 0.4 s for rwkv-world.
    """

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self.unk_id = vocab.unk_id
        self._root: dict[int, dict] | None = None
        self._pairs: np.ndarray | None = None
        self._cache: dict[bytes, tuple[Piece, ...]] = {}
        self._ids_cache: dict[bytes, tuple[int, ...]] = {}
        self._token_ids: dict[bytes, int] = {}  # raw bytes -> id, a later id winning as in the trie

    def prepare(self) -> None:
        """Build the trie now (otherwise on first use), as llama.cpp builds its at load."""
        self._trie()

    def _trie(self) -> dict[int, dict]:
        if self._root is None:
            root: dict[int, dict] = {}
            raws = [unescape_token(text) for text in self.vocab.tokens]
            self._pairs = _inner_pairs(raws)
            self._token_ids = dict(zip(raws, range(len(raws))))
            for tid, raw in enumerate(raws):
                node = root
                for byte in raw:
                    child = node.get(byte)
                    if child is None:
                        child = node[byte] = {}
                    node = child
                node[_VALUE] = tid  # type: ignore[assignment]
            self._root = root
        return self._root

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Tokenize one raw fragment; ``after_special`` does not matter for RWKV."""
        self._trie()
        assert self._pairs is not None
        if len(text) < 2:
            return self._walk(text)
        arr = np.frombuffer(text, dtype=np.uint8).astype(np.int64)
        cuts = np.flatnonzero(~self._pairs[(arr[:-1] << 8) | arr[1:]]) + 1
        bounds = [0, *cuts.tolist(), len(text)]
        chunks = [text[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        try:
            return expand_pieces(chunks, np.array(bounds[:-1], dtype=np.int64), self._chunk_pieces)
        except TokenizeError:
            return self._walk(text)  # raises again, with the offset in the whole fragment

    def encode_fragment_ids(self, text: bytes, *, after_special: bool = True) -> list[int]:
        """``encode_fragment``'s ids without spans: the distinct chunks found and the ids chained
        in whole arrays (``arrays/chunks.py``), each distinct chunk's ids cached."""
        self._trie()
        assert self._pairs is not None
        if len(text) < 2:
            return [tid for tid, _, _ in self._walk(text)]
        arr = np.frombuffer(text, dtype=np.uint8)
        cut = ~self._pairs[(arr[:-1].astype(np.uint16) << 8) | arr[1:]]
        starts = np.flatnonzero(np.concatenate(([True], cut)))
        occ, distinct = distinct_chunks(text, starts)
        try:
            ids = list(map(self._chunk_ids, distinct))
        except TokenizeError:
            self._walk(text)  # raises again, with the offset in the whole fragment
            raise
        return chain_ids(occ, ids)

    def _chunk_ids(self, chunk: bytes) -> tuple[int, ...]:
        ids = self._ids_cache.get(chunk)
        if ids is None:
            if len(self._ids_cache) >= _CACHE_LIMIT:
                self._ids_cache.clear()
            tid = self._token_ids.get(chunk)
            ids = self._ids_cache[chunk] = (tid,) if tid is not None else self._walk_ids(chunk)
        return ids

    def _walk_ids(self, text: bytes) -> tuple[int, ...]:
        """``_walk``'s ids alone; after each token, the rest of the text is looked up whole
        (most chunks are one or two tokens)."""
        root = self._trie()
        whole = self._token_ids.get
        out: list[int] = []
        n = len(text)
        pos = 0
        while pos < n:
            node = root.get(text[pos])
            if node is None:
                out.append(self.unk_id)
                pos += 1
                continue
            best = node.get(_VALUE, -1)
            end = pos + 1
            j = pos + 1
            while j < n:
                node = node.get(text[j])
                if node is None:
                    break
                j += 1
                tid = node.get(_VALUE)
                if tid is not None:
                    best = tid  # type: ignore[assignment]
                    end = j
            if best < 0:
                self._walk(text)  # raises, with the offset
            out.append(best)
            pos = end
            if pos < n:
                tid = whole(text[pos:])
                if tid is not None:
                    out.append(tid)
                    break
        return tuple(out)

    def _chunk_pieces(self, chunk: bytes) -> tuple[Piece, ...]:
        pieces = self._cache.get(chunk)
        if pieces is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            pieces = self._cache[chunk] = tuple(self._walk(chunk))
        return pieces

    def _walk(self, text: bytes) -> list[Piece]:
        """llama.cpp's loop, byte by byte through the trie."""
        root = self._trie()
        out: list[Piece] = []
        n = len(text)
        pos = 0
        while pos < n:
            node = root.get(text[pos])
            if node is None:
                out.append((self.unk_id, pos, pos + 1))
                pos += 1
                continue
            best = -1
            end = pos
            j = pos
            while node is not None:
                tid = node.get(_VALUE)
                if tid is not None:
                    best = tid  # type: ignore[assignment]
                    end = j + 1
                j += 1
                if j >= n:
                    break
                node = node.get(text[j])
            if best < 0:
                raise TokenizeError(
                    f"byte offset {pos}: byte 0x{text[pos]:02X} starts a token but no token matches here; "
                    "llama.cpp's RWKV tokenizer would restart from offset 0 and never finish"
                )
            out.append((best, pos, end))
            pos = end
        return out
