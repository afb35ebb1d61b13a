"""GGUF files with real tensor data for the fix and edit tests: random bytes of the right size for
each tensor (F32, F16, Q8_0), at a chosen alignment, and ways to compare a copy with its input."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from tui_tok.gguf import GGUFValue, GGUFValueType, read_gguf, write_gguf

TENSORS = (("blk.0.attn_q.weight", (32, 3), 0), ("blk.0.ffn_up.weight", (64, 5), 1),
           ("blk.0.ffn_down.weight", (96, 2), 8), ("output_norm.weight", (7,), 0))  # fmt: skip
"""F32, F16, Q8_0 (three 34-byte blocks a row) and an F32 whose size is not a multiple of the alignment."""


def with_tensors(path: Path, metadata: Mapping[str, Any], *, alignment: int = 32, seed: int = 0) -> Path:
    """``metadata`` and ``TENSORS`` filled with random bytes, written at ``alignment``."""
    meta = dict(metadata)
    meta["general.alignment"] = GGUFValue(GGUFValueType.UINT32, alignment)
    write_gguf(path, meta, tensors=TENSORS, alignment=alignment)
    g = read_gguf(path)
    rng = np.random.default_rng(seed)
    fd = os.open(path, os.O_WRONLY)
    try:
        for t in g.tensors:
            assert t.nbytes is not None
            os.pwrite(fd, rng.bytes(t.nbytes), g.data_offset + t.offset)
    finally:
        os.close(fd)
    return path


def tensor_hashes(path: Path) -> dict[str, str]:
    """Name -> sha256 of each tensor's bytes, found through the file's own index."""
    g = read_gguf(path)
    out: dict[str, str] = {}
    with open(path, "rb") as fh:
        for t in g.tensors:
            fh.seek(g.data_offset + t.offset)
            out[t.name] = hashlib.sha256(fh.read(t.nbytes or 0)).hexdigest()
    return out


def gguf_py_tensors(path: Path) -> dict[str, bytes]:
    """What gguf-py's reader makes of the tensors: name -> raw bytes."""
    import gguf

    return {t.name: t.data.tobytes() for t in gguf.GGUFReader(str(path)).tensors}


def raw_fields(path: Path) -> dict[str, bytes]:
    """Each metadata pair's bytes as stored."""
    g = read_gguf(path)
    data = Path(path).read_bytes()
    return {k: data[f.offset : f.offset + f.nbytes] for k, f in g.fields.items()}
