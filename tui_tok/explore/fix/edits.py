"""One metadata edit (``Edit``), what it changes in a file (``changes_of``), how to say it
(``describe``), and its zero-copy forms: llama.cpp's ``--override-kv`` and ollama's Modelfile.

An edit is plain data, so lint can attach it to a finding (``Finding.fix``, printed by ``lint
--json``) and ``tui-tok fix``/``edit`` and the explorer can apply it. Kinds:

- ``set``: ``key`` = ``value`` typed ``type`` (a gguf short name: ``string``, ``bool``, ``u32`` ...);
- ``set-strings``: ``key`` = ``value``, an array of strings;
- ``delete``: drop ``key``;
- ``token-type``: token ``token_id``'s ``tokenizer.ggml.token_type`` becomes ``value`` (a type name);
- ``merges-join``: ``tokenizer.ggml.merges`` stored as ``[left, right]`` pairs becomes the
  ``"left right"`` strings llama.cpp reads.

Leaves out: which edits a finding calls for (``explore.lint.fixes``), writing the file
(``gguf.rewrite``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tui_tok.errors import TuiTokError
from tui_tok.gguf.types import GGUFFile, GGUFValue, GGUFValueType, preview_value

TOKEN_TYPES: dict[str, int] = {"undefined": 0, "normal": 1, "unknown": 2, "control": 3, "user_defined": 4,
                               "unused": 5, "byte": 6}  # fmt: skip
"""``llama_token_type`` by name (llama.h)."""
TYPE_NAMES = {v: k.upper() for k, v in TOKEN_TYPES.items()}
TOKEN_TYPE_KEY = "tokenizer.ggml.token_type"
MERGES_KEY = "tokenizer.ggml.merges"

_T = GGUFValueType
SHORT_TYPES: dict[str, GGUFValueType] = {t.short_name: t for t in GGUFValueType if t != _T.ARRAY}
SHORT_TYPES["str"] = _T.STRING
_OVERRIDE_TYPES = {_T.STRING: "str", _T.BOOL: "bool", _T.FLOAT32: "float", _T.FLOAT64: "float"}
_MAX_OVERRIDE_STR = 127
"""llama.cpp's ``llama_model_kv_override.val_str`` holds 128 bytes with the NUL."""


class EditError(TuiTokError):
    """An edit that cannot apply to this file (a token id past the vocabulary, a bad value)."""

    exit_code = 2


@dataclass(frozen=True, slots=True)
class Edit:
    """One change to a file's metadata (see the module docstring for the kinds)."""

    kind: str
    key: str
    value: Any = None
    type: str | None = None
    """For ``set``: the gguf short type name of ``value``."""
    token_id: int | None = None
    """For ``token-type``: the token."""
    stop: str | None = None
    """The token text generation must stop at, when the edit is about that (ollama's ``PARAMETER stop``)."""

    def as_json(self) -> dict[str, Any]:
        """What ``lint --json`` prints as a finding's ``fix``."""
        out: dict[str, Any] = {"kind": self.kind, "key": self.key}
        if self.type is not None:
            out["type"] = self.type
        if self.token_id is not None:
            out["token_id"] = self.token_id
        if self.kind in ("set", "set-strings", "token-type"):
            out["value"] = self.value
        override = override_kv(self)
        if override is not None:
            out["override_kv"] = override
        if self.stop is not None:
            out["modelfile"] = modelfile_line(self.stop)
        return out


def modelfile_line(stop: str) -> str:
    """``PARAMETER stop "<|im_end|>"``: ollama's way to stop at a text the file does not stop at."""
    return 'PARAMETER stop "' + stop.replace("\\", "\\\\").replace('"', '\\"') + '"'


def set_edit(key: str, value: Any, type_name: str) -> Edit:
    if type_name not in SHORT_TYPES:
        raise EditError(f"{key}: unknown type {type_name!r} (use one of {', '.join(sorted(SHORT_TYPES))})")
    return Edit("set", key, value, "string" if type_name == "str" else type_name)


def override_kv(edit: Edit) -> str | None:
    """The ``--override-kv KEY=TYPE:VALUE`` llama.cpp accepts for ``edit``, or None when no flag can
    say it (deletions, arrays, token types, strings over 127 bytes)."""
    if edit.kind != "set" or edit.type is None:
        return None
    t = SHORT_TYPES[edit.type]
    kind = _OVERRIDE_TYPES.get(t, "int" if t.is_numeric else None)
    if kind is None:
        return None
    value = edit.value
    if kind == "str":
        if len(str(value).encode("utf-8")) > _MAX_OVERRIDE_STR or "\n" in str(value):
            return None
        text = str(value)
    elif kind == "bool":
        text = "true" if value else "false"
    else:
        text = repr(value) if kind == "float" else str(int(value))
    return f"{edit.key}={kind}:{text}"


def changes_of(gguf: GGUFFile, edits: Iterable[Edit]) -> dict[str, GGUFValue | None]:
    """The key -> new value (None: deleted) map ``gguf.rewrite.rewrite_gguf`` takes; token-type edits
    are gathered into one new ``token_type`` array. Later edits of a key win."""
    changes: dict[str, GGUFValue | None] = {}
    types: np.ndarray | None = None
    for e in edits:
        if e.kind == "set":
            changes[e.key] = GGUFValue(SHORT_TYPES[e.type or "string"], _checked(e))
        elif e.kind == "set-strings":
            changes[e.key] = GGUFValue(_T.ARRAY, [str(v) for v in e.value], _T.STRING)
        elif e.kind == "delete":
            changes[e.key] = None
        elif e.kind == "token-type":
            if types is None:
                types = _token_types(gguf)
            assert e.token_id is not None
            if not 0 <= e.token_id < len(types):
                raise EditError(f"token id {e.token_id} is not below the vocabulary size {len(types)}")
            types[e.token_id] = TOKEN_TYPES[str(e.value)]
        elif e.kind == "merges-join":
            changes[e.key] = GGUFValue(_T.ARRAY, joined_merges(gguf.get(e.key)), _T.STRING)
        else:
            raise EditError(f"unknown edit kind {e.kind!r}")
    if types is not None:
        field = gguf.fields.get(TOKEN_TYPE_KEY)
        item = field.item_type if field is not None and field.item_type is not None else _T.INT32
        changes[TOKEN_TYPE_KEY] = GGUFValue(_T.ARRAY, types, item)
    return changes


def _checked(e: Edit) -> Any:
    """``e.value`` as its type holds it (an integer in range, a bool, a string)."""
    t = SHORT_TYPES[e.type or "string"]
    v = e.value
    if t == _T.STRING:
        return str(v)
    if t == _T.BOOL:
        return bool(v)
    if t in (_T.FLOAT32, _T.FLOAT64):
        return float(v)
    dtype = t.numpy_dtype
    assert dtype is not None
    info = np.iinfo(dtype)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not info.min <= int(v) <= info.max:
        raise EditError(f"{e.key}: {v!r} is not a {t.short_name} ({info.min}..{info.max})")
    return int(v)


def _token_types(gguf: GGUFFile) -> np.ndarray:
    tokens = gguf.get("tokenizer.ggml.tokens")
    n = len(tokens) if isinstance(tokens, list) else 0
    value = gguf.get(TOKEN_TYPE_KEY)
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
        arr = value.astype(np.int64)
        if len(arr) < n:
            arr = np.concatenate([arr, np.full(n - len(arr), 1, dtype=np.int64)])
        return arr
    return np.full(n, TOKEN_TYPES["normal"], dtype=np.int64)


def joined_merges(value: Any) -> list[str]:
    """``[["Ġ", "t"], ...]`` -> ``["Ġ t", ...]``; raises ``EditError`` when an entry is not a pair of strings."""
    out: list[str] = []
    for i, pair in enumerate(value if isinstance(value, list) else []):
        if isinstance(pair, list) and len(pair) == 2 and all(isinstance(p, str) for p in pair):
            out.append(f"{pair[0]} {pair[1]}")
        else:
            raise EditError(f"{MERGES_KEY}[{i}] is not a pair of strings: cannot join it")
    return out


def describe(gguf: GGUFFile, edit: Edit) -> str:
    """One line: what ``edit`` changes in ``gguf``, old value included."""
    field = gguf.fields.get(edit.key)
    old = "(missing)" if field is None else field.preview(max_chars=60)
    if edit.kind in ("set", "set-strings"):
        type_name = edit.type if edit.kind == "set" else "[string]"
        return f"set {edit.key} ({type_name}): {old} -> {preview_value(edit.value, max_chars=80)}"
    if edit.kind == "delete":
        return f"delete {edit.key} (was {old})"
    if edit.kind == "token-type":
        assert edit.token_id is not None
        tokens = gguf.get("tokenizer.ggml.tokens") or []
        text = tokens[edit.token_id] if 0 <= edit.token_id < len(tokens) else "?"
        types = _token_types(gguf)
        before = TYPE_NAMES.get(int(types[edit.token_id]), "?") if 0 <= edit.token_id < len(types) else "?"
        return (f"{TOKEN_TYPE_KEY}[{edit.token_id}] {preview_value(text)}: {before} -> "
                f"{str(edit.value).upper()}")  # fmt: skip
    if edit.kind == "merges-join":
        n = len(field.value) if field is not None and isinstance(field.value, list) else 0
        return f"{edit.key}: {n:,} [left, right] pairs -> 'left right' strings"
    return f"{edit.kind} {edit.key}"


def merge_edits(edits: Iterable[Edit]) -> tuple[list[Edit], list[tuple[Edit, Edit]]]:
    """``edits`` without repeats, and the pairs where a later edit of a key contradicts an earlier
    one (the earlier is kept: two findings must not fight over one key)."""
    kept: list[Edit] = []
    by_target: dict[tuple[str, int | None], Edit] = {}
    conflicts: list[tuple[Edit, Edit]] = []
    for e in edits:
        target = (e.key, e.token_id)
        first = by_target.get(target)
        if first is None:
            by_target[target] = e
            kept.append(e)
        elif first != e:
            conflicts.append((first, e))
    return kept, conflicts
