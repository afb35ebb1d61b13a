"""The text forms the explorer copies to the clipboard and exports: pure functions, no Textual.

What is copied is meant to be pasted into code, an issue or a chat: ids as a Python/JSON list,
pieces as a JSON list of strings, everything else as the lines ``tui-tok`` prints for it.
Pieces may be partial UTF-8 (a byte-fallback token, half of a character): ``json_str`` keeps
such bytes as ``\\udcXX`` escapes, which ``json.loads`` reads back as the same lone surrogates
(``bytes_of`` turns them back into the bytes), so nothing is lost and the text stays printable.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from tui_tok.explore.visible import visible

if TYPE_CHECKING:  # the explorer imports this at start-up; the diff and lint modules load with their views
    from tui_tok.explore.diff.text_diff import TextDiff
    from tui_tok.explore.lint.finding import Finding

_LONE = re.compile("[\ud800-\udfff]")
"""Lone surrogates: an invalid byte decoded with ``surrogateescape`` (or a lone surrogate typed)."""


def text_of(data: bytes) -> str:
    """Bytes as the explorer holds them: UTF-8, each invalid byte as U+DC80-DCFF (``surrogateescape``)."""
    return data.decode("utf-8", "surrogateescape")


def bytes_of(text: str) -> bytes:
    """The bytes of a text held by ``text_of`` (a lone surrogate outside U+DC80-DCFF: its 3 UTF-8 bytes,
    as ``surrogatepass`` writes it, so no text fails to encode)."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return b"".join(c.encode("utf-8", "surrogateescape" if "\udc80" <= c <= "\udcff" else "surrogatepass")
                        for c in text)  # fmt: skip


def json_str(text: str) -> str:
    """``text`` as a JSON string literal: readable (non-ASCII kept) and lossless (lone surrogates as ``\\uXXXX``).

    >>> json_str("é\\udce6\\n")
    '"é\\\\udce6\\\\n"'
    """
    return _LONE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(text, ensure_ascii=False))


def ids_list(ids: Iterable[int]) -> str:
    """``[1, 2, 3]``: what Python, JSON and llama.cpp's tests all read.

    >>> ids_list([1, 22, 333])
    '[1, 22, 333]'
    """
    return "[" + ", ".join(str(int(i)) for i in ids) + "]"


def pieces_list(pieces: Iterable[bytes]) -> str:
    """The pieces as a JSON list of strings (partial UTF-8 kept as ``\\udcXX``, see ``json_str``)."""
    return "[" + ", ".join(json_str(text_of(p)) for p in pieces) + "]"


def value_text(value: object) -> str:
    """A metadata value: a string as it is (a chat template pastes as itself), numbers and arrays as JSON.

    >>> value_text("{{ x }}"), value_text(3), value_text(["a", "\\n"]), value_text([1, 2.5, True])
    ('{{ x }}', '3', '["a", "\\\\n"]', '[1, 2.5, true]')
    """
    if isinstance(value, str):
        return value
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        value = value.tolist()
    if not isinstance(value, (list, tuple)) and hasattr(value, "__len__") and hasattr(value, "__getitem__"):
        value = [value[i] for i in range(len(value))]  # the reader's lazily decoded string arrays
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(json_str(v) if isinstance(v, str) else value_text(v) for v in value) + "]"
    if isinstance(value, (bool, int, float)) or value is None:
        return json.dumps(value)
    return str(value)


def rows_text(rows: Sequence[tuple[str, str]]) -> str:
    """A details panel's ``(label, value)`` rows as ``label: value`` lines."""
    width = max((len(label) for label, _ in rows), default=0)
    return "\n".join(f"{label:<{width}}  {value}".rstrip() for label, value in rows)


def finding_text(f: Finding) -> str:
    """One lint finding as ``tui-tok lint`` prints it (with its key, token and context when it has them)."""
    lines = [f"{f.severity.label} {f.code}: {f.message}", f"hint: {f.hint}"]
    if f.key is not None:
        lines.append(f"key: {f.key}" + (f" (line {f.line})" if f.line is not None else ""))
    if f.token_id is not None:
        lines.append(f"token: {f.token_id}")
    if f.context:
        lines.append(f.context)
    return visible("\n".join(lines), lines=True)


def diff_text(diff: TextDiff, name_a: str, name_b: str, *, width: int = 100) -> str:
    """Two tokenizations side by side, then the first difference: ``tui-tok diff``'s report."""
    from tui_tok.explore.diff.align import render_rows, show_piece

    lines = [f"A: {visible(name_a)}  ({len(diff.a)} tokens)", f"B: {visible(name_b)}  ({len(diff.b)} tokens)"]
    lines += render_rows(diff, width=width)
    first = diff.first
    if first is None:
        lines.append("same tokenization")
    else:

        def tok(t: object) -> str:
            if t is None:
                return "end of tokens"
            return f"{t.id} '{show_piece(t.piece)}' [{t.start}:{t.end}]"  # type: ignore[attr-defined]

        lines.append(f"first difference at byte {first.byte} (token {first.index}): A {tok(first.a)}  B {tok(first.b)}")
    lines += [f"A ids: {ids_list(t.id for t in diff.a)}", f"B ids: {ids_list(t.id for t in diff.b)}"]
    return "\n".join(lines)


def token_records(ids: Sequence[int], starts: Sequence[int], ends: Sequence[int],
                  piece: Callable[[int], bytes]) -> Iterable[str]:  # fmt: skip
    """One JSON line per token: ``{"id", "piece", "start", "end"}``, offsets in bytes of the UTF-8 text
    (``Tokenizer.tokenize_arrays``: exact even for a token holding part of a character).
    llama.cpp's null id -1 has no piece: "".

    >>> list(token_records([5, 6], [0, 2], [2, 3], lambda i: b"\\xc3" if i == 5 else b"!"))
    ['{"id": 5, "piece": "\\\\udcc3", "start": 0, "end": 2}', '{"id": 6, "piece": "!", "start": 2, "end": 3}']
    """
    for token_id, start, end in zip(ids, starts, ends):
        data = piece(int(token_id)) if token_id >= 0 else b""
        yield (f'{{"id": {int(token_id)}, "piece": {json_str(text_of(data))}, '
               f'"start": {int(start)}, "end": {int(end)}}}')  # fmt: skip
