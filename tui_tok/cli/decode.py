"""``tui-tok decode MODEL ID...``: token ids back to text, as llama.cpp's ``detokenize``.

Ids may be separate arguments or one list (``"[1, 2, 3]"``); ``-`` reads them from stdin.
``--remove-special`` drops a leading BOS / trailing EOS the model adds; ``--unparse-special``
renders CONTROL tokens as their text. ``--hex`` prints the raw bytes in hex (pieces can be
partial UTF-8; otherwise invalid bytes print as U+FFFD). To a terminal, controls are shown as
``␛``/``⟨009B⟩`` and invalid bytes as ``\\xNN`` unless ``--raw`` is given.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from tui_tok.cli.model_arg import MODEL_HELP
from tui_tok.cli.terminal import add_raw_flag, escape_for_terminal, visible_bytes
from tui_tok.errors import TuiTokError

_ITEM = re.compile(r"\s*(?:(-?\d+)|([\[\],]))")
"""One id, bracket or comma, after optional whitespace."""


class IdsError(TuiTokError):
    """Token ids that do not parse (exit code 2, like the other argument errors)."""

    exit_code = 2


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("decode", help="print the text of token ids", description=__doc__.splitlines()[0])
    p.add_argument("model", help=MODEL_HELP)
    p.add_argument("ids", nargs="+", help="token ids (or one '[1, 2, 3]' list, or '-' for stdin)")
    p.add_argument("--remove-special", action="store_true", help="drop the BOS/EOS the model adds")
    p.add_argument("--unparse-special", action="store_true", help="show CONTROL tokens as their text")
    p.add_argument("--hex", action="store_true", help="print the bytes in hex")
    add_raw_flag(p)
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def parse_ids(args: list[str]) -> list[int]:
    """Integers from arguments such as ``1 2 3``, ``[1, 2, 3]`` or ``1,2,3``; a bracket that is not
    closed (``[1,2``), one closed twice or nested, and anything that is no integer, are errors.

    >>> parse_ids(["[1,", "2]", "3"])
    [1, 2, 3]
    >>> parse_ids(["[1,2"])
    Traceback (most recent call last):
    ...
    tui_tok.cli.decode.IdsError: token ids: '[' at column 1 is never closed
    """
    text = " ".join(args)
    ids: list[int] = []
    pos = 0
    opened = -1  # column of the open '[', -1 when none
    while pos < len(text):
        m = _ITEM.match(text, pos)
        if m is None:
            if not text[pos:].strip():
                break
            at = pos + len(text[pos:]) - len(text[pos:].lstrip())
            raise IdsError(f"token ids must be integers, got {text[at : at + 20]!r} at column {at + 1} of {text!r}")
        number, mark = m.groups()
        col = m.end()
        if number is not None:
            ids.append(int(number))
        elif mark == "[":
            if opened >= 0:
                raise IdsError(f"token ids: '[' at column {col} inside the list opened at column {opened}")
            opened = col
        elif mark == "]":
            if opened < 0:
                raise IdsError(f"token ids: ']' at column {col} closes no '['")
            opened = -1
        pos = m.end()
    if opened >= 0:
        raise IdsError(f"token ids: '[' at column {opened} is never closed")
    return ids


def run(args: argparse.Namespace) -> int:
    from tui_tok.loader import load_tokenizer

    raw = [sys.stdin.read()] if args.ids == ["-"] else args.ids
    ids = parse_ids(raw)
    tok = load_tokenizer(args.model)
    data = tok.detokenize(ids, remove_special=args.remove_special, unparse_special=args.unparse_special)
    if args.hex:
        sys.stdout.write(data.hex() + "\n")
    elif escape_for_terminal(args):  # a token may hold ESC: shown, not obeyed (--raw: as it is)
        sys.stdout.buffer.write(visible_bytes(data) + b"\n")
        sys.stdout.flush()
    else:
        sys.stdout.write(data.decode("utf-8", "replace") + "\n")
    return 0
