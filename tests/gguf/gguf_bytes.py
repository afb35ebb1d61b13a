"""Raw GGUF byte builders for hostile-file tests (no writer involved, so anything goes)."""

from __future__ import annotations

import struct

from tui_tok.gguf import GGUFValueType

T = GGUFValueType


def u32(v: int, order: str = "<") -> bytes:
    return struct.pack(order + "I", v)


def u64(v: int, order: str = "<") -> bytes:
    return struct.pack(order + "Q", v)


def gstr(s: str | bytes, order: str = "<") -> bytes:
    b = s.encode() if isinstance(s, str) else s
    return u64(len(b), order) + b


def header(n_tensors: int, n_kv: int, *, version: int = 3, order: str = "<") -> bytes:
    return b"GGUF" + u32(version, order) + u64(n_tensors, order) + u64(n_kv, order)


def kv(key: str | bytes, vtype: int, payload: bytes, order: str = "<") -> bytes:
    return gstr(key, order) + u32(vtype, order) + payload


def kv_u32(key: str, v: int) -> bytes:
    return kv(key, T.UINT32, u32(v))


def kv_str(key: str, s: str | bytes) -> bytes:
    return kv(key, T.STRING, gstr(s))


def array(item_type: int, count: int, payload: bytes = b"") -> bytes:
    return u32(item_type) + u64(count) + payload


def string_array(strings: list[bytes]) -> bytes:
    return array(T.STRING, len(strings), b"".join(gstr(s) for s in strings))


def tensor_info(name: str, shape: tuple[int, ...], ggml_type: int, offset: int) -> bytes:
    return gstr(name) + u32(len(shape)) + b"".join(u64(d) for d in shape) + u32(ggml_type) + u64(offset)


def file(
    kvs: list[bytes],
    tensors: list[bytes] = (),
    *,
    n_kv: int | None = None,
    n_tensors: int | None = None,
    version: int = 3,
    tail: bytes = b"",
) -> bytes:
    """Header + key/values + tensor infos (+ ``tail``); counts default to the true ones."""
    return (
        header(len(tensors) if n_tensors is None else n_tensors, len(kvs) if n_kv is None else n_kv, version=version)
        + b"".join(kvs)
        + b"".join(tensors)
        + tail
    )
