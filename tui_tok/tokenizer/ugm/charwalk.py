"""Walks of a precompiled charsmap for many characters at once, in numpy.

``ugm/textids.py`` must know, for every distinct character of a long text, whether it is its
own chunk copied unchanged, and, at the few positions where it may not be, how far a chunk
starting there can reach. ``Charsmap`` walks one input at a time in Python (llama.cpp's loop,
the reference); here the same steps (``node ^= byte``, check LCHECK, ``node ^= BASE``) run for
all inputs together, one byte position per numpy step.

An index out of bounds, where llama.cpp throws, never raises here: such a character counts as
changed, so the caller normalises it with ``UgmNormalizer``, which raises where llama.cpp does.

A fast path: what it computes equals ``ugm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).

>>> from tui_tok.tokenizer.ugm.charsmap import build_charsmap
>>> walk = CharWalk.of(Charsmap.from_blob(build_charsmap({"e\\u0301".encode(): "\\u00e9".encode(), b"x": b"y"})))
>>> kind, node = walk.kinds(np.array([ord("a"), ord("e"), ord("x")]))
>>> kind.tolist(), walk.extends(node[1:2], np.array([0xCC])).tolist(), walk.depth
([0, 1, 2], [True], 3)
>>> walk.reach(np.array([ord(c) for c in "ae\\u0301e"]), np.array([1, 3]))
(array([2, 1]), False)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.ugm.charsmap import Charsmap

_PREFIX = np.array([0, 0, 0xC0, 0xE0, 0xF0], dtype=np.int64)
_SHIFT = np.array([[max(0, 6 * (w - 1 - k)) for w in range(5)] for k in range(4)], dtype=np.int64)
"""By byte index and width: how far the code point shifts right for that byte (0 past the end)."""


def _utf8(cps: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """UTF-8 width of each code point and its bytes (4 arrays, int64; unused ones garbage),
    by table (a few steps per byte: ``CharWalk.reach`` calls this once per character step)."""
    c = cps.astype(np.int64)
    width = 1 + (c >= 0x80).astype(np.int64)
    width += c >= 0x800
    width += c >= 0x10000
    lead = c >> _SHIFT[0][width]
    lead |= _PREFIX[width]
    rest = []
    for k in range(1, 4):
        byte = c >> _SHIFT[k][width]
        byte &= 0x3F
        byte |= 0x80
        rest.append(byte)
    return width, [lead, *rest]


@dataclass(frozen=True, slots=True, eq=False)
class CharWalk:
    """The XCDA of one charsmap as arrays, and the walks over many inputs."""

    entries: np.ndarray
    """The u32 XCDA entries (int64)."""
    root: int
    """The node the walk starts from (BASE of entry 0)."""
    depth: int | None
    """The most bytes any walk consumes (every match is at most this long); None if the array
    is corrupt (a cycle, a node out of bounds)."""

    @classmethod
    def of(cls, charsmap: Charsmap) -> CharWalk:
        """The arrays of ``charsmap`` (built once per vocab by the caller)."""
        x = charsmap.array().astype(np.int64)
        root = (int(x[0]) >> 10) << (8 if int(x[0]) & 0x200 else 0) if x.size else 0
        return cls(entries=x, root=root, depth=_depth(x, root))

    def _step(self, node: np.ndarray, byte: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One step of many walks: (stepped, next node, reached a leaf, index out of bounds)."""
        x = self.entries
        child = node ^ byte
        oob = child >= x.size
        e = x[np.where(oob, 0, child)]
        ok = ~oob & (byte != 0) & ((e & 0x800000FF) == byte)
        nxt = child ^ ((e >> 10) << np.where(e & 0x200, 8, 0))
        return ok, nxt, ok & (((e >> 8) & 1) == 1), oob

    def kinds(self, cps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Walk each character alone: its kind (0: the walk dies inside it with no key matched,
        so it is its own chunk, unchanged, whatever follows; 1: still going at its end with no
        key matched, so unchanged unless the next byte extends the walk; 2: anything else) and
        the node reached (kind 1)."""
        count = cps.size
        node = np.full(count, self.root, dtype=np.int64)
        alive = np.ones(count, dtype=bool)
        bad = np.zeros(count, dtype=bool)
        if not self.entries.size:
            return np.zeros(count, dtype=np.int8), np.zeros(count, dtype=np.int64)
        width, parts = _utf8(cps)
        for k, byte in enumerate(parts):
            at = np.flatnonzero(alive & (k < width))
            ok, nxt, leaf, oob = self._step(node[at], byte[at])
            bad[at[oob | leaf]] = True  # a key ends inside or at the character
            alive[at[~ok]] = False
            node[at[ok]] = nxt[ok]
        kind = np.zeros(count, dtype=np.int8)
        kind[alive] = 1
        kind[bad] = 2
        return kind, np.where(alive, node, 0)

    def extends(self, node: np.ndarray, byte: np.ndarray) -> np.ndarray:
        """Whether the walk at each ``node`` (from ``kinds``, kind 1) steps on ``byte`` (an index
        out of bounds counts: a real walk then raises)."""
        ok, _, _, oob = self._step(node, byte)
        return ok | (oob & (byte != 0))

    def enters(self, node: np.ndarray, cps: np.ndarray) -> np.ndarray:
        """Whether the walk at each ``node`` (from ``kinds``, kind 1), going on through all the
        bytes of the character ``cps`` (non-ASCII), matches a key inside or at that character, goes
        out of bounds (a real walk raises) or is still going after it. False: the walk dies
        inside it with no key matched, so the character before is its own chunk, unchanged.
        ``extends`` (the first byte only) is not enough where a lead byte is shared: every kana
        and most CJK start with 0xE3, as the combining voiced marks (U+3099, U+309A) that
        compose with kana do."""
        width, parts = _utf8(cps)
        hit = np.zeros(cps.size, dtype=bool)
        cur = node.copy()
        going = np.arange(cps.size)
        for k, byte in enumerate(parts):
            done = width[going] <= k
            hit[going[done]] = True  # still going after the whole character
            at = going[~done]
            if not at.size:
                return hit
            ok, nxt, leaf, oob = self._step(cur[at], byte[at])
            hit[at[leaf | oob]] = True
            on = ok & ~leaf
            going = at[on]
            cur[going] = nxt[on]
        hit[going] = True
        return hit

    def entered(self, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Code point ranges ``[lo, hi)`` holding every non-ASCII character ``c`` for which
        ``enters(n, c)`` holds for some ``n`` of ``nodes`` (some surrogates and overlong forms
        too: never a text's characters), by walking from the nodes every byte sequence a
        character can have, one byte position per step, as ``enters`` walks one character.
        A few hundred steps per node, not one walk per position of a text: most characters
        after a guarded one (a kana after a kana) enter nothing, and a table of these ranges
        rules them out before ``enters`` walks the few left."""
        los: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        his: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        if not self.entries.size:
            nodes = nodes[:0]
        lead = np.arange(0xC2, 0xF5, dtype=np.int64)
        width = np.where(lead < 0xE0, 2, np.where(lead < 0xF0, 3, 4))
        span = np.int64(1) << (6 * (width - 1))  # code points per lead byte
        # the walks alive: node, first code point of the range its bytes so far select, its size
        cur = np.repeat(nodes.astype(np.int64), lead.size)
        byte = np.tile(lead, nodes.size)
        lo = np.tile((lead & (0xFF >> (width + 1))) * span, nodes.size)
        size = np.tile(span, nodes.size)
        while cur.size:
            ok, nxt, leaf, oob = self._step(cur, byte)
            hit = leaf | oob
            on = ok & ~leaf
            done = on & (size == 1)  # still going after the whole character
            hit |= done
            los.append(lo[hit])
            his.append(lo[hit] + size[hit])
            on &= ~done
            cur, lo, size = nxt[on], lo[on], size[on] >> 6
            count = cur.size
            cur = np.repeat(cur, 64)  # each continuation byte 0x80..0xBF
            byte = np.tile(np.arange(0x80, 0xC0, dtype=np.int64), count)
            lo = np.repeat(lo, 64) + (byte & 0x3F) * np.repeat(size, 64)
            size = np.repeat(size, 64)
        return np.concatenate(los), np.concatenate(his)

    def reach(self, cps: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, bool]:
        """For walks of ``cps`` from each position in ``starts``: how many characters each walk
        enters (at least 1; a chunk starting there ends within them), and whether some key
        ends inside a character (the caller then gives up: a chunk could end off a
        character start). An index out of bounds counts as entering the rest (``depth``)."""
        count = starts.size
        entered = np.ones(count, dtype=np.int64)
        if not self.entries.size or not count:
            return entered, False
        depth = self.depth or 1
        node = np.full(count, self.root, dtype=np.int64)
        alive = np.ones(count, dtype=bool)
        for j in range(depth):
            pos = starts + j
            going = np.flatnonzero(alive & (pos < cps.size))
            if not going.size:
                break
            alive[:] = False
            width, parts = _utf8(cps[pos[going]])
            live = np.ones(going.size, dtype=bool)
            cur = node[going]
            for k, byte in enumerate(parts):
                at = np.flatnonzero(live & (k < width))
                if not at.size:
                    break
                ok, nxt, leaf, oob = self._step(cur[at], byte[at])
                if k == 0:  # the walk goes into character j
                    entered[going[at[ok]]] = j + 1
                if (leaf & (k < width[at] - 1)).any():
                    return entered, True
                if oob.any():  # a real walk raises here: let the caller's normaliser do it
                    entered[going[at[oob]]] = depth
                live[at[~ok]] = False
                cur[at[ok]] = nxt[ok]
            alive[going[live]] = True
            node[going] = cur
        return entered, False


def _depth(x: np.ndarray, root: int) -> int | None:
    """Longest path from ``root``, level by level over the entries: entry ``i`` with label
    ``c`` hangs below node ``i ^ c`` and leads to node ``i ^ BASE(i)``."""
    size = x.size
    if not size:
        return 0
    if root >= size:
        return None
    index = np.arange(size, dtype=np.int64)
    label = x & 0x800000FF
    real = (label >= 1) & (label <= 255)
    parent = (index ^ label)[real]
    child = (index ^ ((x >> 10) << np.where(x & 0x200, 8, 0)))[real]
    level = np.zeros(size + 256, dtype=bool)  # the nodes a walk reaches after ``depth`` bytes
    level[root] = True
    depth = 0
    while True:
        kids = child[level[parent]]
        if not kids.size:
            return depth
        if depth >= 1024 or (kids >= size).any():  # a cycle or a node out of bounds: corrupt
            return None
        level = np.zeros(size + 256, dtype=bool)
        level[kids] = True
        depth += 1
