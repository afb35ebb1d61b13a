"""How llama.cpp's Jinja engine turns values into text (common/jinja/value.cpp, runtime.h): printing
``{{ x }}``, ``as_string`` (concatenation, ``|string``), ``tojson``. A jinja2 value stands for the
llama.cpp value of the same JSON type; a tuple is an array, a generator from a filter too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

import jinja2

from tui_tok.explore.chat.llama_server.stats import note_used


class LlamaError(Exception):
    """A render llama.cpp's engine refuses (its ``std::runtime_error``)."""


def printed(value: Any) -> str:
    """What ``{{ value }}`` outputs (``gather_string_parts_recursive``): strings, numbers and booleans
    as text, arrays as their items' output one after the other, none, undefined and objects nothing."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, int, float)):
        return as_string(value)
    if isinstance(value, (list, tuple, Iterator)):
        return "".join(printed(v) for v in value)
    return ""


def string_filter(value: Any) -> str:
    """``|string``: numbers as ``tojson`` writes them (the number types' ``string`` builtin), the rest
    as ``as_string``."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return to_json(value)
    return as_string(value)


def as_string(value: Any) -> str:
    """A value as a string (``as_string`` of each value type in value.h): what ``+``/``~`` concatenate."""
    if isinstance(value, str):
        return value
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        out = f"{value:f}".rstrip("0")
        return out + "0" if out.endswith(".") else out
    if isinstance(value, jinja2.Undefined):
        return ""
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_repr(v) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_repr(k)}: {_repr(v)}" for k, v in value.items()) + "}"
    return str(value)


def _repr(value: Any) -> str:
    """``value_to_string_repr``: strings quoted ('' unless they hold a quote, then JSON)."""
    if isinstance(value, str):
        return to_json(value) if "'" in value else f"'{value}'"
    if value is None or isinstance(value, jinja2.Undefined):
        return "None" if value is None else "Undefined"
    return as_string(value)


def to_json(value: Any, indent: int | None = None, item_sep: str | None = None, key_sep: str = ": ") -> str:
    """``value_to_json``: keys in insertion order, ``", "`` between items without indent, floats as
    C++ streams print them, undefined as ``null``."""
    ind = -1 if indent is None else indent
    sep = item_sep if item_sep is not None else (", " if ind < 0 else ",")
    out: list[str] = []
    _json_into(out, value, 0, ind, sep, key_sep)
    return "".join(out)


def _json_into(out: list[str], value: Any, level: int, indent: int, sep: str, key_sep: str) -> None:
    note_used(value, deep=True)
    newline = "\n" if indent >= 0 else ""
    pad = " " * (level * indent) if indent > 0 else ""
    step = " " * indent if indent > 0 else ""
    if value is None or isinstance(value, jinja2.Undefined):
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(f"{value:g}")
    elif isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False).replace("\x7f", "\x7f"))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        if value:
            out.append(newline)
            for i, item in enumerate(value):
                out.append(pad + step)
                _json_into(out, item, level + 1, indent, sep, key_sep)
                if i < len(value) - 1:
                    out.append(sep)
                out.append(newline)
            out.append(pad)
        out.append("]")
    elif isinstance(value, Mapping):
        out.append("{")
        if value:
            out.append(newline)
            for i, (k, v) in enumerate(value.items()):
                out.append(pad + step)
                _json_into(out, as_string(k), level + 1, indent, sep, key_sep)
                out.append(key_sep)
                _json_into(out, v, level + 1, indent, sep, key_sep)
                if i < len(value) - 1:
                    out.append(sep)
                out.append(newline)
            out.append(pad)
        out.append("}")
    elif isinstance(value, Iterator):  # a filter's generator (map, select ...) is an array in llama.cpp
        _json_into(out, list(value), level, indent, sep, key_sep)
    else:
        out.append("null")


def tojson(value: Any, ensure_ascii: Any = False, indent: Any = None, separators: Any = None,
            sort_keys: Any = False) -> str:  # fmt: skip
    if sort_keys and not isinstance(sort_keys, jinja2.Undefined):
        raise LlamaError("tojson sort_keys=true not implemented")
    ind = indent if isinstance(indent, int) and not isinstance(indent, bool) else None
    seps = list(separators) if isinstance(separators, (list, tuple)) else []
    text = to_json(value, ind, as_string(seps[0]) if seps else None, as_string(seps[1]) if len(seps) > 1 else ": ")
    if ensure_ascii and not isinstance(ensure_ascii, jinja2.Undefined):
        text = "".join(c if ord(c) < 0x80 else _escape_ascii(c) for c in text)
    return text


def _escape_ascii(char: str) -> str:
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def type_name(value: Any) -> str:
    """The value's ``type()`` in llama.cpp's messages."""
    if isinstance(value, str):
        return "String"
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, float):
        return "Float"
    if isinstance(value, (list, tuple)):
        return "Array"
    if isinstance(value, Mapping):
        return "Object"
    return "None" if value is None else "Undefined"
