"""``--raw``: whether a command's text output (decoded or rendered text, token pieces) is
written as it is or with its controls drawn visibly.

A token or a chat template can hold ESC or an 8-bit CSI: written to a terminal they would
retitle it or hide what follows. ``llama-tokenize`` writes them raw; so do we into a pipe or a
file (the bytes are the answer there), and with ``--raw``. To a terminal they are shown as
``explore.visible`` draws them.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_tok.explore.visible import visible


def add_raw_flag(p: Any) -> None:
    p.add_argument("--raw", action="store_true",
                   help="write the text as it is even to a terminal (by default controls are shown as ␛, ⟨009B⟩)")  # fmt: skip


def escape_for_terminal(args: argparse.Namespace) -> bool:
    """True when the output goes to a terminal and ``--raw`` was not given."""
    return not getattr(args, "raw", False) and sys.stdout.isatty()


def visible_bytes(data: bytes, *, lines: bool = True) -> bytes:
    """``data`` (UTF-8, maybe not valid) with controls and bytes that are not UTF-8 drawn visibly.

    >>> visible_bytes(b"a\\x1b[7m\\n\\xff")
    b'a\\xe2\\x90\\x9b[7m\\n\\\\xFF'
    """
    return visible(data.decode("utf-8", "surrogateescape"), lines=lines).encode("utf-8")
