"""``tui-tok info --json``: a bounded summary, and with ``--full`` a faithful dump.

The summary (``summary_json``) keeps a stable shape and a bounded size: arrays past ``JSON_HEAD``
items and strings past ``MAX_CHARS`` characters become ``{"type", "length", "head"}`` (length in
items, or in bytes for a string), so a 100 MB value prints a few hundred bytes.

The dump (``full_json``, schema ``tui-tok/info-full/1``, documented in the README) is what gguf-py's
``GGUFReader`` reads, typed: every key as ``{"type": "u32", "value": 7}``; arrays as
``{"type": "array", "item_type": "string", "count": N, "value": [...]}`` (arrays of arrays nest the
same objects); f32 as the shortest decimal that round-trips in f32 (``1e-06``, not
``9.999999974752427e-07``); NaN and infinities as the strings ``"nan"``, ``"inf"``, ``"-inf"``;
strings that are not UTF-8 as ``{"text": escaped, "hex": bytes}``; and every tensor as
``{"name", "shape", "type", "type_code", "offset", "bytes"}`` (offset from ``data_offset``,
``bytes`` null for an unknown type).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tui_tok.gguf import GGUFField, GGUFFile, GGUFValueType

JSON_HEAD = 16
MAX_CHARS = 4096
FULL_SCHEMA = "tui-tok/info-full/1"
_T = GGUFValueType


def _header(gguf: GGUFFile) -> dict[str, Any]:
    return {
        "file": gguf.location,
        "file_size": gguf.file_size,
        "gguf_version": gguf.version,
        "endianness": "big" if gguf.big_endian else "little",
        "alignment": gguf.alignment,
        "tensor_count": len(gguf.tensors),
        "tensor_bytes": gguf.tensor_bytes,
    }


def summary_json(gguf: GGUFFile) -> dict[str, Any]:
    """Every key with a bounded rendering of its value (see the module docstring)."""
    doc = _header(gguf)
    doc["metadata"] = {key: _summary_field(f) for key, f in gguf.fields.items()}
    return doc


def _summary_field(f: GGUFField) -> Any:
    return _capped(f.value, f.type_name if f.type == _T.ARRAY else "array")


def _capped(value: Any, type_name: str = "array") -> Any:
    """``value`` as JSON, with every string and array (nested ones too) cut to a head."""
    if isinstance(value, str):
        if len(value) <= MAX_CHARS:
            return _text(value)
        return {
            "type": "string",
            "length": len(value.encode("utf-8", "surrogateescape")),
            "head": _text(value[:MAX_CHARS]),
        }
    if isinstance(value, (list, np.ndarray)):
        if len(value) <= JSON_HEAD:
            return [_capped(v) for v in value] if isinstance(value, list) else _plain(value)
        head = value[:JSON_HEAD]
        return {
            "type": type_name,
            "length": len(value),
            "head": [_capped(v) for v in head] if isinstance(head, list) else _plain(head),
        }
    return _plain(value)


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def _text(value: str) -> Any:
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:  # invalid UTF-8 kept as surrogates: show the bytes
        raw = value.encode("utf-8", "surrogateescape")
        return {"text": raw.decode("utf-8", "backslashreplace"), "hex": raw.hex()}


def full_json(gguf: GGUFFile) -> dict[str, Any]:
    """The typed dump of every key and tensor (schema in the module docstring)."""
    doc = {"schema": FULL_SCHEMA, **_header(gguf), "data_offset": gguf.data_offset}
    doc["metadata"] = {key: _typed(f.type, f.value, f.item_type, f.layout) for key, f in gguf.fields.items()}
    doc["tensors"] = [
        {
            "name": _text(t.name),
            "shape": list(t.shape),
            "type": t.type_name,
            "type_code": t.ggml_type,
            "offset": t.offset,
            "bytes": t.nbytes,
        }
        for t in gguf.tensors
    ]
    return doc


def _typed(vtype: GGUFValueType, value: Any, item_type: GGUFValueType | None, layout: Any) -> dict[str, Any]:
    if vtype != _T.ARRAY:
        return {"type": vtype.short_name, "value": _scalar(vtype, value)}
    assert item_type is not None
    if item_type == _T.ARRAY:
        inner = [_typed(_T.ARRAY, v, t, sub) for (t, sub), v in zip(layout or (), value)]
        return {"type": "array", "item_type": "array", "count": len(value), "value": inner}
    if item_type == _T.STRING:
        items: list[Any] = [_text(v) for v in value]
    elif item_type == _T.FLOAT32:
        items = _f32_list(np.asarray(value))
    elif item_type == _T.FLOAT64:
        items = [_finite(v) for v in np.asarray(value).tolist()]
    else:
        items = np.asarray(value).tolist()
    return {"type": "array", "item_type": item_type.short_name, "count": len(value), "value": items}


def _scalar(vtype: GGUFValueType, value: Any) -> Any:
    if vtype == _T.STRING:
        return _text(value)
    if vtype == _T.FLOAT32:
        return _f32_list(np.array([value], dtype=np.float32))[0]
    if vtype == _T.FLOAT64:
        return _finite(float(value))
    return value


def _f32_list(arr: np.ndarray) -> list[Any]:
    """Each f32 as the shortest decimal that reads back as the same f32 (numpy's repr)."""
    out: list[Any] = []
    for s in arr.astype(np.float32).astype(str).tolist():
        f = float(s)
        out.append(f if math.isfinite(f) else s)
    return out


def _finite(v: float) -> Any:
    return v if math.isfinite(v) else str(v)
