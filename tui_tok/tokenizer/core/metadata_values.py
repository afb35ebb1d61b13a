"""Typed values out of GGUF metadata: what each tokenizer key must hold, checked before use.

llama.cpp reads every key with its GGUF type and refuses a value of another type ("key ... has
wrong type"); a file can also lie about an array's length or content. Each reader here returns
the value in the form the vocab needs, or raises ``VocabError`` naming the key, so a hostile or
broken file gives one line instead of a ValueError from deep inside. The metadata is a plain
mapping (the GGUF reader's values, or lists a test writes by hand): no reader is imported.

>>> meta_int({"k": 5}, "k"), meta_bool({"f": 0}, "f"), meta_str({}, "s", None)
(5, False, None)
>>> meta_int({"k": "5"}, "k")
Traceback (most recent call last):
...
tui_tok.errors.VocabError: key 'k' should be an integer token id, got str '5'
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tui_tok.errors import VocabError


def meta_str(meta: Mapping[str, Any], key: str, default: str | None) -> str | None:
    """A string (bytes are decoded with ``surrogateescape``), ``default`` when absent."""
    value = meta.get(key, default)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    raise VocabError(f"key {key!r} should be a string, got {type(value).__name__}")


def meta_bool(meta: Mapping[str, Any], key: str) -> bool | None:
    """A flag, or None when the key is absent. llama.cpp refuses a flag of another GGUF type;
    integers pass as 0/1, anything else is refused here too."""
    value = meta.get(key)
    if value is None:
        return None
    if isinstance(value, int | np.integer | np.bool_):  # bool is an int
        return bool(value)
    raise VocabError(f"key {key!r} should be a boolean, got {type(value).__name__} {short_repr(value)}")


def meta_int(meta: Mapping[str, Any], key: str) -> int | None:
    """A token id, or None when the key is absent; a value of another type is refused, as
    llama.cpp refuses it."""
    value = meta.get(key)
    if value is None:
        return None
    if isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_):
        return int(value)
    raise VocabError(f"key {key!r} should be an integer token id, got {type(value).__name__} {short_repr(value)}")


def short_repr(value: Any) -> str:
    """A value for an error message, cut to one short line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def numeric_array(meta: Mapping[str, Any], key: str, n: int, dtype: type, default: float) -> np.ndarray:
    """The first ``n`` entries of a numeric array as ``dtype``, ``default`` everywhere when the key
    is absent; too short or not numeric is refused."""
    raw = meta.get(key)
    if raw is None:
        return np.full(n, default, dtype=dtype)
    try:
        arr = np.asarray(raw)
    except (TypeError, ValueError) as exc:
        raise VocabError(f"key {key!r} should be a numeric array: {exc}") from exc
    if arr.ndim != 1 or arr.dtype.kind not in "iuf" and arr.size:
        raise VocabError(f"key {key!r} should be a numeric array")
    if arr.shape[0] < n:
        raise VocabError(f"key {key!r} has {arr.shape[0]} entries for {n} tokens")
    return np.ascontiguousarray(arr[:n], dtype=dtype)


def string_list(raw: Any, key: str, *, checked: bool = False) -> list[str]:
    """A list of str from a string array (bytes entries decoded with surrogateescape); a list of
    str is returned as is (callers copy before changing it), without looking at its entries when
    ``checked`` (the caller knows them to be str)."""
    if checked and type(raw) is list:
        return raw
    if isinstance(raw, str | bytes) or not hasattr(raw, "__len__"):
        raise VocabError(f"key {key!r} should be an array of strings, got {type(raw).__name__}")
    items = raw if type(raw) is list else list(raw)
    try:
        "".join(items)  # C-speed check that every entry is a str
    except TypeError:
        items = [t.decode("utf-8", "surrogateescape") if isinstance(t, bytes) else t for t in items]
        bad = next((t for t in items if not isinstance(t, str)), None)
        if bad is not None:
            raise VocabError(f"key {key!r} should be an array of strings, has a {type(bad).__name__}") from None
    return items


def charsmap_blob(meta: Mapping[str, Any]) -> bytes | None:
    """UGM's ``precompiled_charsmap`` as bytes (None when absent), its header checked as llama.cpp
    checks it."""
    raw = meta.get("tokenizer.ggml.precompiled_charsmap")
    if raw is None:
        return None
    if isinstance(raw, bytes | bytearray):
        blob = bytes(raw)
    else:
        try:
            arr = None if isinstance(raw, str) else np.asarray(raw)
        except (TypeError, ValueError):  # e.g. nested arrays of different lengths
            arr = None
        if arr is None or arr.ndim != 1 or arr.dtype.kind not in "iu":
            raise VocabError("key 'tokenizer.ggml.precompiled_charsmap' should be an array of bytes, "
                             f"got {type(raw).__name__} {short_repr(raw)}")  # fmt: skip
        blob = arr.astype(np.int64).astype(np.uint8).tobytes()
    if len(blob) < 4:
        raise VocabError("precompiled_charsmap too small for xcda_blob_size header")
    if int.from_bytes(blob[:4], "little") + 4 >= len(blob):
        raise VocabError("index out of array bounds in precompiled_charsmap")
    return blob
