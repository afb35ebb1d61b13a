"""``tui-tok [MODEL] [--text FILE]``: start the explorer.

``--text FILE`` (``-`` for stdin) opens the tokenize view on that file's exact bytes: bytes
that are not UTF-8 stay raw (``surrogateescape``, drawn as ``\\xNN``, tokenized as the bytes
themselves, as ``encode --file`` does). After reading stdin the explorer takes its keys from
the terminal (``/dev/tty``). The explorer draws on a terminal: with stdout redirected it
refuses in one line and names the subcommands that write to files and pipes.
"""

from __future__ import annotations

import argparse
import os
import sys

from tui_tok.errors import TuiTokError
from tui_tok.samples import DEFAULT_SAMPLE


class NotATerminalError(TuiTokError):
    """The explorer was asked to draw where there is no terminal."""

    exit_code = 2


class TextFileError(TuiTokError):
    """The ``--text`` file cannot be read."""

    exit_code = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", nargs="?", default=str(DEFAULT_SAMPLE), help="GGUF file (default: bundled Qwen3 sample)")
    parser.add_argument(
        "--text", metavar="FILE", help="open the tokenize view on this file's exact bytes ('-': stdin)"
    )
    parser.add_argument("--compare", metavar="B.gguf", help="a second GGUF file to compare with (the compare view, F7)")


def read_text(source: str) -> str:
    """The text of ``source`` (a path, or ``-`` for stdin): its bytes, undecodable ones kept raw."""
    if source == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            with open(source, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise TextFileError(f"{source}: cannot read: {exc.strerror or exc}") from None
    return data.decode("utf-8", "surrogateescape")


def _keys_from_terminal() -> None:
    """stdin was the text: read keys from the controlling terminal instead."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        raise NotATerminalError("--text -: stdin was read, and there is no terminal (/dev/tty) to read keys from") from None
    os.dup2(fd, 0)
    os.close(fd)


def run(args: argparse.Namespace) -> int:
    if not sys.stdout.isatty():
        raise NotATerminalError(
            "stdout is not a terminal: the explorer draws on one; "
            f"to write to a file or pipe use `tui-tok info {args.model}` or `tui-tok encode {args.model} TEXT`"
        )
    text = read_text(args.text) if args.text is not None else None
    if args.text == "-" and not sys.stdin.isatty():
        _keys_from_terminal()
    from tui_tok.ui.app import run_app

    return run_app(args.model, text=text, compare=args.compare)
