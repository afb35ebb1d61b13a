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

from tui_tok.cli.terminal import add_raw_flag, escape_for_terminal, visible_bytes
from tui_tok.errors import TuiTokError

_INT = re.compile(r"-?\d+")


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("decode", help="print the text of token ids", description=__doc__.splitlines()[0])
    p.add_argument("model", help="GGUF file")
    p.add_argument("ids", nargs="+", help="token ids (or one '[1, 2, 3]' list, or '-' for stdin)")
    p.add_argument("--remove-special", action="store_true", help="drop the BOS/EOS the model adds")
    p.add_argument("--unparse-special", action="store_true", help="show CONTROL tokens as their text")
    p.add_argument("--hex", action="store_true", help="print the bytes in hex")
    add_raw_flag(p)
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def parse_ids(args: list[str]) -> list[int]:
    """Integers from arguments such as ``1 2 3``, ``[1, 2, 3]`` or ``1,2,3``.

    >>> parse_ids(["[1,", "2]", "3"])
    [1, 2, 3]
    """
    text = " ".join(args)
    leftover = _INT.sub(" ", text).replace(",", " ").replace("[", " ").replace("]", " ")
    if leftover.strip():
        raise TuiTokError(f"token ids must be integers, got {text!r}")
    return [int(m) for m in _INT.findall(text)]


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
