"""The tensor index, fast: a million entries (a hostile file's, or a future model's) in about a second.

An entry is ``[u64 name length][name][u32 n_dims][n_dims x u64][u32 type][u64 offset]``: each one's
position depends on the previous, so only that chain is walked in Python (two unpacks per entry);
shapes, types and offsets are then gathered and checked with numpy over all entries at once, and
the entries built in bulk. The fast path takes the plainly valid entries and stops before the first
that is cut by the end of the buffer or fails any check: the reader's checked, one-by-one path takes
it from there and names what is wrong. ``check_layout`` does the same for the data layout rule.

Leaves out: the rest of the file (reader.py).
"""

from __future__ import annotations

import gc
import struct
from typing import Any

import numpy as np

from tui_tok.gguf.types import GGML_TYPES, TensorInfo

MAX_DIMS = 4
_SAFE = 2**62  # products and sizes below this cannot overflow the checks done in uint64
_MAX_CODE = max(GGML_TYPES) + 1
_BLOCK = np.zeros(_MAX_CODE, dtype=np.uint64)
_TYPE_SIZE = np.zeros(_MAX_CODE, dtype=np.uint64)
for _code, _info in GGML_TYPES.items():
    _BLOCK[_code] = _info.block_size
    _TYPE_SIZE[_code] = _info.type_size


def fast_tensor_infos(
    buf: Any, pos: int, avail: int, limit: int, order: str, seen: set[str]
) -> tuple[list[TensorInfo], list[int], int]:
    """Up to ``limit`` valid entries from ``pos``: (entries, their offsets, the offset after them).

    Adds their names to ``seen``. Returns no entries when the first one needs the checked path.
    """
    q = struct.Struct(order + "Q").unpack_from
    u32 = struct.Struct(order + "I").unpack_from
    starts: list[int] = []
    lens: list[int] = []
    nds: list[int] = []
    start0 = pos
    while len(starts) < limit and avail - pos >= 8:
        (ln,) = q(buf, pos)
        p = pos + 8 + ln
        if ln > avail or p + 4 > avail:
            break
        (nd,) = u32(buf, p)
        nxt = p + 16 + 8 * nd
        if nd > MAX_DIMS or nxt > avail:
            break
        starts.append(pos)
        lens.append(ln)
        nds.append(nd)
        pos = nxt
    if len(starts) < 64:  # not worth the set-up: the checked path is as fast
        return [], [], start0
    n = len(starts)
    s = np.array(starts, dtype=np.int64)
    nd_arr = np.array(nds, dtype=np.int64)
    dims_at = s + 12 + np.array(lens, dtype=np.int64)
    view64 = np.ndarray((avail - 7,), dtype=order + "u8", buffer=buf, strides=(1,))
    view32 = np.ndarray((avail - 3,), dtype=order + "u4", buffer=buf, strides=(1,))
    shape = np.ones((n, MAX_DIMS), dtype=np.uint64)
    for j in range(MAX_DIMS):
        rows = np.flatnonzero(nd_arr > j)
        shape[rows, j] = view64[dims_at[rows] + 8 * j]
    tail = dims_at + 8 * nd_arr
    types = view32[tail].astype(np.int64)
    offsets = view64[tail + 4]
    known = types < _MAX_CODE
    code = np.where(known, types, 0)
    block = _BLOCK[code]
    ok = known & (block > 0) & (shape < _SAFE).all(axis=1)
    ok &= shape.astype(np.float64).prod(axis=1) < _SAFE  # no product near 2^63 (exactness: checked path)
    ok &= shape[:, 0] % np.where(block > 0, block, 1) == 0
    n_el = shape.prod(axis=1)  # exact: every product is below 2^62 where ok
    nbytes = n_el // np.where(block > 0, block, 1) * _TYPE_SIZE[code]
    if not ok.all():
        n = int(np.argmin(ok))
    if n == 0:
        return [], [], start0
    # a million small acyclic objects: the cyclic collector would walk them all again and again
    paused = gc.isenabled() and n > 10_000
    if paused:
        gc.disable()
    try:
        return _build(buf, starts, lens, nd_arr, shape, types, offsets, nbytes, n, pos, seen, start0)
    finally:
        if paused:
            gc.enable()


def _build(
    buf: Any,
    starts: list[int],
    lens: list[int],
    nd_arr: np.ndarray,
    shape: np.ndarray,
    types: np.ndarray,
    offsets: np.ndarray,
    nbytes: np.ndarray,
    n: int,
    pos: int,
    seen: set[str],
    start0: int,
) -> tuple[list[TensorInfo], list[int], int]:
    """The first ``n`` gathered entries as ``TensorInfo`` (fewer when a name repeats)."""
    names = [str(buf[a + 8 : a + 8 + b], "utf-8", "surrogateescape") for a, b in zip(starts[:n], lens[:n])]
    for k, name in enumerate(names):  # a duplicate name is the checked path's to report
        if name in seen:
            del names[k:]
            n = k
            break
        seen.add(name)
    if n == 0:
        return [], [], start0
    shapes: list[Any] = [()] * n
    for d in range(1, MAX_DIMS + 1):
        rows = np.flatnonzero(nd_arr[:n] == d)
        if rows.size:
            for r, dims in zip(rows.tolist(), shape[rows, :d].tolist()):
                shapes[r] = tuple(dims)
    make = TensorInfo._make
    infos = list(map(make, zip(names, shapes, types[:n].tolist(), offsets[:n].tolist(), nbytes[:n].tolist())))
    end = starts[n] if n < len(starts) else pos
    return infos, starts[:n], end


def layout_is_valid(tensors: list[TensorInfo], data_offset: int, alignment: int, file_end: int) -> bool:
    """llama.cpp's data layout rule for every tensor at once; False sends the caller to its
    one-by-one check (which names the first offender), as do unknown types and huge sizes."""
    if len(tensors) < 64:
        return False
    nbytes = [t.nbytes for t in tensors]
    if None in nbytes:
        return False
    try:
        nb = np.array(nbytes, dtype=np.int64)
        off = np.array([t.offset for t in tensors], dtype=np.int64)
    except OverflowError:
        return False
    if (
        nb.max(initial=0) >= _SAFE // 4
        or off.max(initial=0) >= _SAFE // 4
        or file_end >= _SAFE
        or float(nb.astype(np.float64).sum()) + len(nb) * alignment >= _SAFE
    ):
        return False
    padded = -(-nb // alignment) * alignment
    expected = np.concatenate(([0], np.cumsum(padded)[:-1]))
    ok = (off % alignment == 0) & (off == expected) & (data_offset + off + nb <= file_end)
    return bool(ok.all())
