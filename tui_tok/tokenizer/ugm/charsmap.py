"""SentencePiece's ``precompiled_charsmap``: the normaliser table of UGM (T5, XLM-R) vocabs.

The blob (``tokenizer.ggml.precompiled_charsmap``) is read straight from its bytes, as
llama.cpp does (llama-vocab.cpp V:903-925, 1125-1236), without sentencepiece:

* ``blob[0:4]``: u32 little-endian S, the byte size of the XCDA;
* ``blob[4:4+S]``: XOR-compressed compact double array (XCDA) entries, u32 LE each;
* the rest: NUL-terminated replacement strings, addressed by byte offset.

An XCDA entry ``e`` packs BASE (``(e >> 10) << (8 if e & 0x200 else 0)``), LCHECK
(``e & 0x800000FF``), LEAF (bit 8) and VALUE (``e & 0x7FFFFFFF``). ``longest_match`` walks
it exactly as llama.cpp does; ``mapping`` enumerates every key once (vectorised) so the
normaliser can use a plain dict on the common path.

Errors follow llama.cpp: a header that does not fit is refused when parsed (llama.cpp refuses
to load); an out-of-bounds index or an unterminated replacement is only an error when a walk
reaches it (llama.cpp throws while tokenizing), and raises ``VocabError``.

Does not apply the whitespace rules or user-defined tokens: see ``ugm/normalize.py``.

>>> cm = Charsmap.from_blob(build_charsmap({"\\uff21".encode(): b"A"}))
>>> cm.longest_match("\\uff21x".encode(), 0)
(3, b'A')
>>> cm.longest_match(b"x", 0) is None
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from tui_tok.errors import VocabError

_KEY = "tokenizer.ggml.precompiled_charsmap"
_BYTES = np.arange(1, 256, dtype=np.int64)


def _as_bytes(blob: bytes | bytearray | memoryview | np.ndarray) -> bytes:
    if isinstance(blob, np.ndarray):
        if blob.dtype.itemsize != 1:
            raise VocabError(f"{_KEY}: expected an array of int8/uint8, got {blob.dtype}")
        return blob.tobytes()
    return bytes(blob)


@dataclass(frozen=True, slots=True, eq=False)
class Charsmap:
    """A parsed precompiled charsmap: the XCDA entries and the replacement pool."""

    xcda: tuple[int, ...]
    """u32 XCDA entries (``S // 4`` of them, as llama.cpp truncates)."""
    replacements: bytes
    """Pool of NUL-terminated replacement strings."""
    _cache: dict[str, object] = field(default_factory=dict, repr=False)

    @classmethod
    def from_blob(cls, blob: bytes | bytearray | memoryview | np.ndarray) -> Charsmap:
        """Parse the GGUF value (bytes, or the int8/uint8 array a GGUF reader returns).

        Raises ``VocabError`` where llama.cpp refuses to load the vocab (V:2065-2071).
        """
        data = _as_bytes(blob)
        if len(data) < 4:
            raise VocabError(f"{_KEY} is {len(data)} bytes, too small for its 4-byte XCDA size header")
        size = int.from_bytes(data[:4], "little")
        if size + 4 >= len(data):
            raise VocabError(
                f"{_KEY}: XCDA size {size} + 4-byte header does not leave room for replacement "
                f"strings in a {len(data)}-byte blob (index out of array bounds)"
            )
        n = size // 4
        xcda = np.frombuffer(data, dtype="<u4", count=n, offset=4)
        parsed = cls(xcda=tuple(xcda.tolist()), replacements=data[4 + size :])
        parsed._cache["entries"] = xcda  # for ``array()``: no second conversion of the tuple
        return parsed

    def array(self) -> np.ndarray:
        """The XCDA entries as a read-only uint32 array (for the bulk walks of ``ugm/charwalk.py``)."""
        if "entries" not in self._cache:
            self._cache["entries"] = np.array(self.xcda, dtype="<u4")
        return self._cache["entries"]  # type: ignore[return-value]

    # -- the walk, exactly as llama.cpp --------------------------------------------------

    def _node(self, index: int) -> int:
        if index >= len(self.xcda):
            raise VocabError(
                f"{_KEY}: XCDA index {index} out of bounds ({len(self.xcda)} entries); the charsmap is corrupt"
            )
        return self.xcda[index]

    def _base(self, index: int) -> int:
        e = self._node(index)
        return (e >> 10) << (8 if e & 0x200 else 0)

    def replacement(self, offset: int) -> bytes:
        """The NUL-terminated string at ``offset`` of the pool (V:1208-1219)."""
        pool = self.replacements
        if offset >= len(pool):
            raise VocabError(f"{_KEY}: replacement offset {offset} out of bounds ({len(pool)}-byte pool)")
        end = pool.find(b"\0", offset)
        if end < 0:
            raise VocabError(f"{_KEY}: replacement string at offset {offset} is not NUL-terminated")
        return pool[offset:end]

    def longest_match(self, data: bytes, pos: int) -> tuple[int, bytes] | None:
        """Longest key that prefixes ``data[pos:]``: (bytes consumed, replacement), or None.

        A NUL byte ends the walk (V:1185-1188).
        """
        return self.walk_unit(data, pos)[0]

    def match_unit(self, unit: bytes) -> tuple[tuple[int, bytes] | None, frozenset[int]]:
        """Walk ``unit`` alone: (longest match inside it or None, bytes that could extend the walk).

        The second item is empty if the walk dies inside ``unit``; a byte whose step would
        index out of bounds counts as extending (so a caller walks for real and raises where
        llama.cpp throws). If the byte after ``unit`` is not in it, ``longest_match`` on the
        longer input gives the same first item.
        """
        best, node = self.walk_unit(unit)
        return best, frozenset() if node < 0 else self._continuations(node)

    def _continuations(self, node: int) -> frozenset[int]:
        """The bytes 1-255 whose step from ``node`` goes on (or would index out of bounds), in
        whole arrays: building a UGM encoder asks this for every ASCII byte, and the loop over
        255 bytes took ~1.5 ms of each load for them (this: ~0.6 ms)."""
        entries = self.array()
        step = _BYTES ^ node
        goes = step >= entries.size
        inside = np.flatnonzero(~goes)
        goes[inside] = (entries[step[inside]] & 0x800000FF) == _BYTES[inside]
        return frozenset(_BYTES[goes].tolist())

    def walk_unit(self, data: bytes, pos: int = 0) -> tuple[tuple[int, bytes] | None, int]:
        """Walk ``data[pos:]``: (longest match or None, the node reached at the end of ``data``,
        or -1 if the walk ended before). Raises ``VocabError`` where llama.cpp throws (V:1195-1236).
        """
        if not self.xcda:
            return None, -1
        node = self._base(0)
        best: tuple[int, bytes] | None = None
        for i in range(pos, len(data)):
            c = data[i]
            if c == 0:
                return best, -1
            node ^= c
            e = self._node(node)
            if e & 0x800000FF != c:
                return best, -1
            node ^= (e >> 10) << (8 if e & 0x200 else 0)
            if (e >> 8) & 1:
                best = (i - pos + 1, self.replacement(self._node(node) & 0x7FFFFFFF))
        return best, node

    def label_count(self, byte: int) -> int:
        """How many entries carry LCHECK ``byte`` (1 means only the root can step on it)."""
        if "label_counts" not in self._cache:
            x = np.array(self.xcda, dtype=np.uint32) & 0x800000FF
            values, counts = np.unique(x, return_counts=True)
            self._cache["label_counts"] = dict(zip(values.tolist(), counts.tolist()))
        return self._cache["label_counts"].get(byte, 0)  # type: ignore[attr-defined]

    # -- every key at once -----------------------------------------------------------------

    def mapping(self) -> dict[bytes, bytes] | None:
        """Every key → replacement, or None if some walk would raise (then walk instead).

        Breadth-first over the XCDA, all 255 non-NUL labels of a level at once with numpy.
        Keys are byte strings; a walk's longest match is the longest key prefixing the input.
        """
        if "mapping" not in self._cache:
            self._cache["mapping"] = self._enumerate()
        return self._cache["mapping"]  # type: ignore[return-value]

    def _enumerate(self) -> dict[bytes, bytes] | None:
        out: dict[bytes, bytes] = {}
        if not self.xcda:
            return out
        x = np.array(self.xcda, dtype=np.uint64)
        size = x.shape[0]
        base = (x >> 10) << np.where(x & 0x200, 8, 0).astype(np.uint64)
        lcheck = x & 0x800000FF
        leaf = (x >> 8) & 1
        value = x & 0x7FFFFFFF
        labels = np.arange(1, 256, dtype=np.uint64)
        states = np.array([int(base[0])], dtype=np.uint64)
        keys: list[bytes] = [b""]
        depth = 0
        while states.size:
            child = states[:, None] ^ labels[None, :]
            if bool((child >= size).any()):
                return None  # some input byte would index out of bounds: llama.cpp throws
            hit = lcheck[child] == labels[None, :]
            rows, cols = np.nonzero(hit)
            kids = child[rows, cols]
            new_states = kids ^ base[kids]
            is_leaf = leaf[kids].astype(bool)
            if bool((new_states[is_leaf] >= size).any()):
                return None
            new_keys = [keys[r] + bytes((int(c) + 1,)) for r, c in zip(rows.tolist(), cols.tolist())]
            for k, s, lf in zip(new_keys, new_states.tolist(), is_leaf.tolist()):
                if lf:
                    try:
                        out[k] = self.replacement(int(value[s]))
                    except VocabError:
                        return None
            states, keys = new_states, new_keys
            depth += 1
            if depth > 1024:  # a cycle: only a corrupt array has one
                return None
        return out


def parse_charsmap(blob: bytes | bytearray | memoryview | np.ndarray | None) -> Charsmap | None:
    """``Charsmap.from_blob`` or None when there is no blob (the key is absent)."""
    if blob is None:
        return None
    return Charsmap.from_blob(blob)


def build_charsmap(mapping: Mapping[bytes, bytes]) -> bytes:
    """Build a valid blob for ``mapping`` (for tests and fixtures; keys must not contain NUL).

    A simple (not compact) XCDA: each node gets its own 256-entry block, so any XOR with a
    label stays in bounds, exactly like a real darts-clone array.
    """
    pool = bytearray()
    offsets: dict[bytes, int] = {}
    for key, rep in mapping.items():
        if not key or b"\0" in key or b"\0" in rep:
            raise ValueError(f"bad key/replacement {key!r} -> {rep!r}")
        offsets[key] = len(pool)
        pool += rep + b"\0"
    # trie of keys: node -> {byte: child}; node 0 is the root
    children: list[dict[int, int]] = [{}]
    terminal: dict[int, int] = {}
    for key, off in offsets.items():
        n = 0
        for c in key:
            if c not in children[n]:
                children[n][c] = len(children)
                children.append({})
            n = children[n][c]
        terminal[n] = off
    # Layout: block b (256 entries at 256*b) holds the children of trie node b; index 0 of
    # each block is the value slot (label 0). Entry for a child c of node b sits at 256*b + c
    # and its BASE points (by XOR) to its own block.
    n_nodes = len(children)
    entries = [0] * (256 * (n_nodes + 1))
    block_of = {i: i + 1 for i in range(n_nodes)}  # block 0 holds the root entry only

    def pack(base: int, lcheck: int, leaf: bool) -> int:
        if base < (1 << 21):
            return (base << 10) | (int(leaf) << 8) | lcheck
        if base & 0xFF or base >> 8 >= (1 << 21):
            raise ValueError("charsmap too large for this simple builder")
        return ((base >> 8) << 10) | 0x200 | (int(leaf) << 8) | lcheck

    entries[0] = pack(256 * block_of[0], 0, False)
    for node, kids in enumerate(children):
        here = 256 * block_of[node]
        for c, kid in kids.items():
            idx = here ^ c
            kid_base = 256 * block_of[kid]
            entries[idx] = pack(idx ^ kid_base, c, kid in terminal)
        if node in terminal:
            entries[here] = terminal[node] | 0x80000000  # value slot: bit 31 set, as sentencepiece
    blob = np.array(entries, dtype="<u4").tobytes()
    return len(blob).to_bytes(4, "little") + blob + bytes(pool or b"\0")
