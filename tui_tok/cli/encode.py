"""``tui-tok encode MODEL [TEXT | --file F]``: text to llama.cpp token ids, like ``llama-tokenize``.

Prints ``[1, 2, 3]`` (``llama-tokenize --ids``) by default, or ``id -> 'piece'`` lines with
``--pieces``. ``add_special`` defaults on (BOS/EOS as the model asks; ``--no-add-special`` or
``--no-bos`` turn it off). ``parse_special`` defaults **off**, as in ``llama-tokenize``
(``--parse-special`` turns it on; ``--no-parse-special`` is accepted for symmetry). Without TEXT
or ``--file`` the text is read from stdin. ``--escape`` processes ``\\n \\r \\t \\' \\" \\\\ \\xHH``
like llama-tokenize does by default. ``--jsonl`` reads one JSON value per stdin line (a string,
or an object with ``text`` and optional ``add_special``/``parse_special``) and writes one object
``{"ids": [...]}`` per line.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tui_tok.errors import TuiTokError


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("encode", help="print llama.cpp token ids for a text", description=__doc__.splitlines()[0])
    p.add_argument("model", help="GGUF file")
    p.add_argument("text", nargs="?", help="text to encode (default: stdin)")
    p.add_argument("--file", "-f", type=Path, help="read the text (raw bytes) from this file")
    p.add_argument("--no-add-special", "--no-bos", dest="add_special", action="store_false",
                   help="do not add BOS/EOS/SEP (default: add them as the model asks)")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--parse-special", dest="parse_special", action="store_true", default=False,
                       help="match CONTROL tokens such as <|im_start|> in the text (default: off)")
    group.add_argument("--no-parse-special", dest="parse_special", action="store_false",
                       help="treat CONTROL token texts as plain text (the default)")
    p.add_argument("--pieces", action="store_true", help="print 'id -> piece' lines instead of an id list")
    p.add_argument("--show-count", action="store_true", help="also print the number of tokens")
    p.add_argument("--escape", action="store_true", help="process backslash escapes in the text")
    p.add_argument("--jsonl", action="store_true", help="JSON lines in on stdin, {\"ids\": [...]} lines out")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_tok.loader import load_tokenizer

    tok = load_tokenizer(args.model)
    if args.jsonl:
        return _run_jsonl(tok, args)
    data = _read_text(args)
    if args.escape:
        data = unescape(data)
    ids = tok.encode(data, add_special=args.add_special, parse_special=args.parse_special)
    out = sys.stdout
    if args.pieces:
        for tid in ids:
            piece = tok.token_to_piece(tid).decode("utf-8", "backslashreplace")
            out.write(f"{tid:6d} -> '{piece}'\n")
    else:
        out.write("[" + ", ".join(map(str, ids)) + "]\n")
    if args.show_count:
        out.write(f"Total number of tokens: {len(ids)}\n")
    return 0


def _read_text(args: argparse.Namespace) -> bytes:
    if args.file is not None:
        if args.text is not None:
            raise TuiTokError("give either TEXT or --file, not both")
        try:
            return args.file.read_bytes()
        except OSError as exc:
            raise TuiTokError(f"{args.file}: cannot read: {exc.strerror or exc}") from None
    if args.text is not None:
        return args.text.encode("utf-8", "surrogateescape")
    return sys.stdin.buffer.read()


def _run_jsonl(tok: Any, args: argparse.Namespace) -> int:
    out = sys.stdout
    for n, line in enumerate(sys.stdin.buffer, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TuiTokError(f"stdin line {n}: not JSON: {exc}") from None
        add, parse = args.add_special, args.parse_special
        if isinstance(item, dict):
            text = item.get("text")
            add = _flag(item, "add_special", add, n)
            parse = _flag(item, "parse_special", parse, n)
        else:
            text = item
        if not isinstance(text, str):
            raise TuiTokError(f"stdin line {n}: expected a string or an object with a 'text' string")
        ids = tok.encode(text, add_special=add, parse_special=parse)
        out.write(json.dumps({"ids": ids}) + "\n")
    return 0


def _flag(item: dict, key: str, default: bool, n: int) -> bool:
    """A JSON true/false field (``"no"`` or 0 would be taken as true by ``bool()``)."""
    value = item.get(key, default)
    if not isinstance(value, bool):
        raise TuiTokError(f"stdin line {n}: {key!r} must be true or false, not {json.dumps(value)}")
    return value


_SIMPLE_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("'"): b"'", ord('"'): b'"', ord("\\"): b"\\"}
_HEX = b"0123456789abcdefABCDEF"


def unescape(data: bytes) -> bytes:
    r"""llama.cpp's ``string_process_escapes``: ``\n \r \t \' \" \\ \xHH``; others stay as they are.

    >>> unescape(rb"a\nb\x41\q")
    b'a\nbA\\q'
    """
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        c = data[i]
        if c == 0x5C and i + 1 < n:
            nxt = data[i + 1]
            if nxt in _SIMPLE_ESCAPES:
                out += _SIMPLE_ESCAPES[nxt]
                i += 2
                continue
            if nxt == ord("x") and i + 3 < n and data[i + 2] in _HEX and data[i + 3] in _HEX:
                out.append(int(data[i + 2 : i + 4], 16))
                i += 4
                continue
        out.append(c)
        i += 1
    return bytes(out)
