"""Untrusted text (from a GGUF file, a model store, a server) in a form safe to draw or print.

A string from a file can hold ESC (``\\x1b]2;TITLE\\x07`` retitles the terminal, ``\\x1b[7m``
breaks layouts), 8-bit controls (U+009B is CSI to many terminals), bidirectional overrides
that reorder what is shown, and bytes that are not UTF-8 (a lone surrogate cannot even be
printed). ``visible`` maps all of these to the forms the token view already uses
(``display.py``): control pictures for C0 controls and DEL (``␛``, ``␡``), a code in angle
brackets for C1 controls and characters that take no cell (``⟨009B⟩``, ``⟨202E⟩``), ``\\xNN``
for bytes that were not UTF-8. Everything else is kept, so a name stays readable.

It does not escape Rich markup: the UI gives these strings to widgets as ``rich.text.Text``,
never as markup. ``json_dumps`` is the rule for JSON output: ``json.dumps`` escapes C0
controls but with ``ensure_ascii=False`` leaves DEL, C1 controls and the rest raw.

>>> visible("phi3\\x1b]2;T\\x07")
'phi3␛]2;T␇'
>>> visible("a\\x9b7m\\u202eb\\udcff")
'a⟨009B⟩7m⟨202E⟩b\\\\xFF'
>>> visible("two\\nlines\\tok", lines=True)
'two\\nlines\\tok'
>>> json_dumps({"k": "\\x1b\\x9b\\u2028é"})
'{"k": "\\\\u001b\\\\u009b\\\\u2028é"}'
"""

from __future__ import annotations

import json
from typing import Any

import regex

from tui_tok.explore.display import INVISIBLE, invisible_form


def _control_table(keep: str) -> dict[int, str]:
    table = {cp: chr(0x2400 + cp) for cp in range(0x20) if chr(cp) not in keep}  # ␀ ␁ … ␛ …
    table[0x7F] = "␡"
    return table


_ONE_LINE = _control_table("")
_LINES = _control_table("\n\t")
_UNSAFE = regex.compile(r"[\x00-\x1f\x7f\p{Cf}\p{Zl}\p{Zp}\p{Cs}\x80-\x9f]")
"""Characters ``visible`` changes: a string without any is returned as it is."""


def visible(text: str, *, lines: bool = False) -> str:
    """``text`` with every control, invisible character and non-UTF-8 byte drawn visibly.

    ``lines=True`` keeps newlines and tabs (a template source, an error pane, decoded text);
    otherwise they are control pictures too, so the result is one line.
    """
    if _UNSAFE.search(text) is None:
        return text
    out = text.translate(_LINES if lines else _ONE_LINE)
    return INVISIBLE.sub(lambda m: invisible_form(m.group()), out)


def visible_repr(text: str) -> str:
    """``repr(text)`` with bytes that were not UTF-8 as ``\\xNN`` (repr escapes every other
    character a terminal would act on: C0, DEL, C1, format characters)."""
    return repr(text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))


_JSON_RAW = regex.compile(r"[\x7f\p{Cf}\p{Zl}\p{Zp}\p{Cs}\x80-\x9f]")
"""What ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal would act on or cannot print.
Such characters only occur inside JSON strings, where ``\\uXXXX`` means the same character."""


def json_dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps(value, ensure_ascii=False, **kwargs)`` with DEL, C1 controls, format
    characters, line separators and lone surrogates escaped as ``\\uXXXX`` (same JSON value)."""
    out = json.dumps(value, ensure_ascii=False, **kwargs)
    return _JSON_RAW.sub(_json_escape, out)


def _json_escape(match: regex.Match[str]) -> str:
    """``\\uXXXX``; a character above U+FFFF (tag characters are format characters) as its
    UTF-16 surrogate pair, as JSON spells it.

    >>> json_dumps("\\U000e0067") == json.dumps("\\U000e0067")
    True
    """
    cp = ord(match.group())
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    cp -= 0x10000
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"
