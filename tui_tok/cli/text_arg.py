"""The text a subcommand works on: a TEXT argument, ``--file F`` (``-``: stdin) or stdin.

``encode`` has its own reader (llama-tokenize's ``--stdin`` / ``-f`` / ``-p`` precedence and
escapes); ``diff`` and ``explain`` share this plainer one.
"""

from __future__ import annotations

import argparse
import sys

from tui_tok.errors import TuiTokError


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
