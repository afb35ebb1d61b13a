"""The text a subcommand works on: a TEXT argument, ``--file F`` (``-``: stdin) or stdin; and
the ``--jsonl`` lines of ``encode``, ``diff`` and ``explain``.

``encode`` has its own reader (llama-tokenize's ``--stdin`` / ``-f`` / ``-p`` precedence and
escapes); ``diff`` and ``explain`` share this plainer one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

from tui_tok.errors import TuiTokError
from tui_tok.json_input import JSONInputError, json_lines


class TextArgError(TuiTokError):
    """The text to work on cannot be read."""

    exit_code = 2


def read_text_arg(args: argparse.Namespace, error: type[TuiTokError] = TextArgError) -> bytes:
    """``args.text`` as UTF-8, the bytes of ``args.file``, or stdin; unreadable: one ``error`` line."""
    if args.file is not None:
        if args.text is not None:
            raise error("give either TEXT or --file, not both")
        if str(args.file) == "-":
            return sys.stdin.buffer.read()
        try:
            with open(args.file, "rb") as f:
                return f.read()
        except OSError as exc:
            raise error(f"{args.file}: cannot read: {exc.strerror or exc}") from None
    if args.text is not None:
        return str(args.text).encode("utf-8", "surrogateescape")
    if sys.stdin.isatty():
        print("tui-tok: reading the text from stdin (end with Ctrl-D)", file=sys.stderr)
    return sys.stdin.buffer.read()


@dataclass(frozen=True, slots=True)
class JsonlItem:
    """One line of ``--jsonl`` input: its text and the flags it sets (None: the command line's)."""

    line: int
    text: str
    add_special: bool | None
    parse_special: bool | None


def jsonl_items(stream: BinaryIO, error: type[TuiTokError] = TextArgError) -> Iterator[JsonlItem]:
    """``{"text": ..., "add_special": bool, "parse_special": bool}`` (or a bare JSON string) per
    line; blank lines skipped. A line that is not that is one ``error`` naming the line: a flag
    must be a JSON boolean (``"no"`` is not false)."""
    lines = json_lines(stream)
    while True:
        try:
            n, item = next(lines)
        except StopIteration:
            return
        except JSONInputError as exc:
            raise error(f"stdin {exc}") from None
        flags: dict[str, bool | None] = {"add_special": None, "parse_special": None}
        if isinstance(item, dict):
            text = item.get("text")
            for key in [k for k in flags if k in item]:
                value = item[key]
                if not isinstance(value, bool):
                    raise error(f"stdin line {n}: {key!r} must be true or false, not {json.dumps(value)}")
                flags[key] = value
        else:
            text = item
        if not isinstance(text, str):
            raise error(f"stdin line {n}: expected a string or an object with a 'text' string")
        yield JsonlItem(n, text, flags["add_special"], flags["parse_special"])
