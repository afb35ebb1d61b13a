"""Metadata as the browser shows it: one row per key, readable values, token text for ids.

Takes plain ``(key, type_name, value)`` triples (what ``GGUFFile.fields`` holds) so it never
imports the reader. Arrays show their length and first items; ``full_lines`` expands one
value for the detail view; ``readable_template`` lays out a one-line Jinja chat template.
Does not interpret architecture keys beyond naming them in the header line.

>>> rows = metadata_rows([("tokenizer.ggml.bos_token_id", "u32", 1)], tokens=["<unk>", "<s>"])
>>> rows[0].summary
'1  <s>'
>>> summarize_value(list(range(100)))
'0, 1, 2, 3, 4, 5, 6, 7, … (100 items)'
>>> summarize_value([5]), summarize_value(list(range(12345)))[-14:]
('5 (1 item)', '(12,345 items)')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tui_tok.explore.counts import counted
from tui_tok.explore.display import display_piece

PREVIEW_ITEMS = 8
"""How many array items a row shows before the ellipsis."""

MAX_SUMMARY = 200
"""Longest one-line summary of a string value."""


@dataclass(frozen=True, slots=True)
class MetaRow:
    """One metadata key as a table row."""

    key: str
    type_name: str
    """``u32``, ``string``, ``[string; 151669]``."""
    summary: str
    """One line: the value, or the first items of an array."""
    is_array: bool
    length: int | None
    """Items in an array value, else None."""
    searchable: str
    """Lower-cased key and summary, for the filter box."""


def _one_line(text: str) -> str:
    shown = display_piece(text)
    return shown if len(shown) <= MAX_SUMMARY else shown[: MAX_SUMMARY - 1] + "…"


def _item(v: Any) -> str:
    if isinstance(v, str):
        return repr(display_piece(v)) if len(v) < 40 else repr(display_piece(v[:37]) + "…")
    if isinstance(v, (np.floating, float)):
        return f"{float(v):g}"
    if isinstance(v, (np.integer, int, np.bool_, bool)):
        return str(v.item() if isinstance(v, np.generic) else v)
    if isinstance(v, (list, np.ndarray)):
        return f"[{counted(len(v), 'item')}]"
    return str(v)


def summarize_value(value: Any) -> str:
    """A value on one line; arrays as their first items and length."""
    if isinstance(value, str):
        return _one_line(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        n = len(value)
        head = ", ".join(_item(v) for v in value[:PREVIEW_ITEMS])
        return (
            f"{head}, … ({counted(n, 'item')})"
            if n > PREVIEW_ITEMS
            else f"{head} ({counted(n, 'item')})"
            if n
            else "(empty)"
        )
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def metadata_rows(fields: Iterable[tuple[str, str, Any]], *, tokens: Sequence[str] = ()) -> list[MetaRow]:
    """Rows for ``(key, type_name, value)`` triples; ``*_token_id`` keys get the token text."""
    rows: list[MetaRow] = []
    for key, type_name, value in fields:
        is_array = isinstance(value, (list, tuple, np.ndarray))
        summary = summarize_value(value)
        if key.endswith("_token_id") and isinstance(value, int) and 0 <= value < len(tokens):
            summary = f"{value}  {display_piece(tokens[value])}"
        rows.append(
            MetaRow(
                key=key,
                type_name=type_name,
                summary=summary,
                is_array=is_array,
                length=len(value) if is_array else None,
                searchable=f"{key}\n{summary}".lower(),
            )
        )
    return rows


def filter_rows(rows: Sequence[MetaRow], query: str, *, values: Mapping[str, Any] | None = None) -> list[MetaRow]:
    """Rows whose key or shown value contains ``query`` (case-blind); with ``values``, string
    values are searched in full (a chat template longer than its summary)."""
    q = query.strip().lower()
    if not q:
        return list(rows)
    out = []
    for row in rows:
        if q in row.searchable:
            out.append(row)
        elif values is not None and isinstance(values.get(row.key), str) and q in values[row.key].lower():
            out.append(row)
    return out


def full_lines(key: str, value: Any, *, tokens: Sequence[str] = ()) -> list[str]:
    """Every line of a value for the detail view: arrays one item per line with its index."""
    if isinstance(value, str):
        if "chat_template" in key:
            return readable_template(value)
        return value.split("\n")
    if isinstance(value, (list, tuple, np.ndarray)):
        return [array_item_line(value, i) for i in range(len(value))]
    text = summarize_value(value)
    if key.endswith("_token_id") and isinstance(value, int) and 0 <= value < len(tokens):
        text += f"  {display_piece(tokens[value])}"
    return [text]


def array_item_line(value: Sequence[Any] | np.ndarray, i: int) -> str:
    """Item ``i`` of an array value, with its index right-aligned to the array's length.

    >>> array_item_line(["a b", "c"], 0)
    "0  'a·b'"
    """
    width = len(str(max(len(value) - 1, 0)))
    item = value[i]
    shown = repr(display_piece(item)) if isinstance(item, str) else _item(item)
    return f"{i:>{width}}  {shown}"


def _full_item(v: Any) -> str:
    if isinstance(v, str):
        return display_piece(v)
    return _item(v)


_OPENERS = ("if ", "for ", "macro ", "call ", "filter ", "block ", "generation")
_MIDDLES = ("elif ", "else")


def readable_template(template: str) -> list[str]:
    """A Jinja chat template as indented lines, one tag per line when it was squeezed.

    Templates already written with at most one tag per line are returned as they are; otherwise each tag goes on its own line and newlines inside the
    template's text become ``↵`` so they do not break the layout.

    >>> readable_template("{%- if a %}{{ x }}{%- else %}y{%- endif %}")
    ['{%- if a %}', '  {{ x }}', '{%- else %}', '  y', '{%- endif %}']
    """
    if max(line.count("{%") for line in template.split("\n")) <= 1:
        return template.split("\n")
    pieces: list[str] = []
    pos = 0
    n = len(template)
    while pos < n:
        start = template.find("{%", pos)
        if start < 0:
            pieces.append(template[pos:])
            break
        if start > pos:
            pieces.append(template[pos:start])
        end = template.find("%}", start)
        end = n if end < 0 else end + 2
        pieces.append(template[start:end])
        pos = end
    lines: list[str] = []
    depth = 0
    for piece in pieces:
        body = piece.strip("{%-+ }") if piece.startswith("{%") else ""
        if piece.startswith("{%") and body.startswith("end"):
            depth = max(0, depth - 1)
            lines.append("  " * depth + piece)
        elif piece.startswith("{%") and body.startswith(_MIDDLES):
            lines.append("  " * max(0, depth - 1) + piece)
        elif piece.startswith("{%") and body.startswith(_OPENERS):
            lines.append("  " * depth + piece)
            depth += 1
        else:
            lines.append("  " * depth + piece.replace("\n", "↵"))
    return lines


def header_line(metadata: Mapping[str, Any], *, file_name: str) -> str:
    """``name.gguf · qwen3 · gpt2/qwen2 · 151,669 tokens``: what the title bar shows."""
    arch = metadata.get("general.architecture", "?")
    model = metadata.get("tokenizer.ggml.model", "?")
    pre = metadata.get("tokenizer.ggml.pre")
    tokens = metadata.get("tokenizer.ggml.tokens")
    n = counted(len(tokens), "token") if tokens is not None else "no tokens"
    tok = f"{model}/{pre}" if pre else str(model)
    return f"{file_name} · arch {arch} · tokenizer {tok} · {n}"
