"""``tui-tok encode MODEL [options]``: text to llama.cpp token ids, as ``llama-tokenize`` prints them.

Takes ``llama-tokenize``'s flags with its defaults (tools/tokenize/tokenize.cpp), so its command
line pasted after ``tui-tok encode MODEL`` prints the same bytes:

- the text comes from ``-p/--prompt``, ``-f/--file`` or ``--stdin`` (``--stdin`` wins over ``-f``,
  ``-f`` over ``-p``); a positional TEXT is the same as ``-p``; ``-f -`` reads stdin. With none
  of them the text is read from stdin (llama-tokenize refuses; a note on stderr says so when
  stdin is a terminal).
- escapes (``\\n \\r \\t \\' \\" \\\\ \\xHH``) are processed in every source by default
  (``--no-escape`` keeps backslashes as they are);
- special tokens such as ``<|im_start|>`` are parsed by default (``--no-parse-special``);
- BOS/EOS are added when the model asks for a BOS, as llama-tokenize passes
  ``add_special = add_bos && !--no-bos`` (so a model that only adds EOS gets none);
- output: ``%6d -> 'piece'`` lines with the piece's raw bytes (cut at a NUL, as ``printf("%s")``
  does), or with ``--ids`` a Python-style list ``[1, 2, 3]``; ``--show-count`` adds
  ``Total number of tokens: N``. ``-m/--model`` and ``--log-disable`` are accepted. To a
  terminal, controls in pieces are shown as ``␛``/``⟨009B⟩`` unless ``--raw`` is given.

Extras: ``--pieces`` (the piece lines, the default), ``--jsonl`` (one JSON value per stdin line,
a string or ``{"text": ..., "add_special": ..., "parse_special": ...}``, answered by one
``{"ids": [...]}`` line; unset fields take the flags' values). Does not handle chat templates.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, BinaryIO

from tui_tok.cli.model_arg import MODEL_HELP
from tui_tok.cli.terminal import add_raw_flag, escape_for_terminal, visible_bytes
from tui_tok.cli.text_arg import jsonl_items
from tui_tok.errors import TuiTokError

DESCRIPTION = (
    "Print llama.cpp token ids for a text, as llama-tokenize does: same flags, same defaults "
    "(parse special tokens: on; process escapes: on; add BOS/EOS: when the model adds a BOS), "
    "same output ('id -> piece' lines, or --ids for a list)."
)
EPILOG = (
    "examples: tui-tok encode model.gguf -p 'Hello world'; tui-tok encode model.gguf -f prompt.txt --ids; "
    "cat prompt.txt | tui-tok encode model.gguf --stdin --show-count"
)
STDIN_NOTE = "tui-tok encode: reading the text from stdin (end it with Ctrl-D; or give -p TEXT or -f FILE)"


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "encode",
        help="print llama.cpp token ids for a text (like llama-tokenize)",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    p.add_argument("model", nargs="?", help=MODEL_HELP + " (or -m MODEL)")
    p.add_argument("text", nargs="?", help="text to encode, same as -p")
    p.add_argument("-m", "--model", dest="model_option", metavar="FNAME", help="MODEL, as llama-tokenize takes it")
    p.add_argument("-p", "--prompt", metavar="PROMPT", help="text to encode")
    p.add_argument("-f", "--file", metavar="FNAME", help="read the text (raw bytes) from this file; - for stdin")
    p.add_argument("--stdin", action="store_true", help="read the text from stdin (wins over -f and -p)")
    p.add_argument(
        "--no-bos",
        "--no-add-special",
        dest="add_special",
        action="store_false",
        help="add no BOS/EOS (default: add them when the model adds a BOS)",
    )
    escape = p.add_mutually_exclusive_group()
    escape.add_argument(
        "-e",
        "--escape",
        dest="escape",
        action="store_true",
        default=True,
        help="process \\n \\r \\t \\' \\\" \\\\ \\xHH in the text (default: on)",
    )
    escape.add_argument("--no-escape", dest="escape", action="store_false", help="keep backslashes as typed")
    special = p.add_mutually_exclusive_group()
    special.add_argument(
        "--parse-special",
        dest="parse_special",
        action="store_true",
        default=True,
        help="match special tokens such as <|im_start|> in the text (default: on)",
    )
    special.add_argument(
        "--no-parse-special", dest="parse_special", action="store_false", help="treat special token texts as plain text"
    )
    output = p.add_mutually_exclusive_group()
    output.add_argument("--ids", action="store_true", help="print only the ids, as a list like [1, 2, 3]")
    output.add_argument("--pieces", action="store_true", help="print 'id -> piece' lines (the default)")
    output.add_argument("--jsonl", action="store_true", help='JSON lines in on stdin, {"ids": [...]} lines out')
    p.add_argument("--show-count", action="store_true", help="also print the number of tokens")
    add_raw_flag(p)
    p.add_argument(
        "--log-disable", action="store_true", help="accepted for llama-tokenize compatibility (tui-tok does not log)"
    )
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def _model_and_text(args: argparse.Namespace) -> tuple[str, str | None]:
    """The model path and the positional text, whether the model came as MODEL or ``-m``."""
    model, text = args.model, args.text
    if args.model_option is not None:
        if text is not None:
            raise TuiTokError("with -m MODEL give at most one TEXT (or use -p TEXT)")
        model, text = args.model_option, model
    if model is None:
        raise TuiTokError("give the GGUF file: tui-tok encode MODEL (or -m MODEL)")
    if text is not None and args.prompt is not None:
        raise TuiTokError("give either TEXT or -p/--prompt, not both")
    return model, text if text is not None else args.prompt


def run(args: argparse.Namespace) -> int:
    from tui_tok.loader import load_tokenizer

    model, prompt = _model_and_text(args)
    tok = load_tokenizer(model)
    # llama-tokenize: common_tokenize(vocab, prompt, add_bos, parse_special), add_bos being the
    # model's add_bos flag unless --no-bos; it stands for add_special (BOS and EOS) in the API
    add_special = bool(args.add_special and tok.vocab.add_bos)
    if args.jsonl:
        return _run_jsonl(tok, add_special, args.parse_special)
    data = _read_text(args, prompt)
    if args.escape:
        data = unescape(data)
    ids = tok.encode(data, add_special=add_special, parse_special=args.parse_special)
    out: BinaryIO = sys.stdout.buffer
    if args.ids:
        out.write(("[" + ", ".join(map(str, ids)) + "]\n").encode())
    elif escape_for_terminal(args):  # a piece may hold ESC: shown to a terminal, not obeyed
        _write_chunks(out, (visible_bytes(line[:-1]) + b"\n" for line in piece_lines(tok, ids)))
    else:
        _write_chunks(out, piece_lines(tok, ids))
    if args.show_count:
        out.write(f"Total number of tokens: {len(ids)}\n".encode())
    out.flush()
    return 0


def piece_lines(tok: Any, ids: Iterable[int]) -> Iterable[bytes]:
    """llama-tokenize's ``printf("%6d -> '%s'\\n", id, piece)``: the piece's bytes as they are,
    up to a NUL (where ``%s`` stops).

    >>> class T:
    ...     def token_to_piece(self, i): return {1: b"<s>", 2: b" h\\xc3\\xa9", 3: b"a\\x00b"}[i]
    >>> list(piece_lines(T(), [1, 2, 3]))
    [b"     1 -> '<s>'\\n", b"     2 -> ' h\\xc3\\xa9'\\n", b"     3 -> 'a'\\n"]
    """
    for tid in ids:
        piece = tok.token_to_piece(tid)
        cut = piece.find(b"\0")
        if cut >= 0:
            piece = piece[:cut]
        yield b"%6d -> '%s'\n" % (tid, piece)


def _write_chunks(out: BinaryIO, lines: Iterable[bytes], chunk: int = 4096) -> None:
    batch: list[bytes] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= chunk:
            out.write(b"".join(batch))
            batch.clear()
    out.write(b"".join(batch))


def _read_stdin() -> bytes:
    if sys.stdin.isatty():
        print(STDIN_NOTE, file=sys.stderr)
    return sys.stdin.buffer.read()


def _read_text(args: argparse.Namespace, prompt: str | None) -> bytes:
    """The text's bytes by llama-tokenize's precedence: ``--stdin``, then ``-f``, then ``-p``."""
    if args.stdin:
        return _read_stdin()
    if args.file is not None:
        if args.file == "-":
            return _read_stdin()
        try:
            return Path(args.file).read_bytes()
        except OSError as exc:
            raise TuiTokError(f"{args.file}: cannot read: {exc.strerror or exc}") from None
    if prompt is not None:
        return prompt.encode("utf-8", "surrogateescape")
    return _read_stdin()


def _run_jsonl(tok: Any, add_special: bool, parse_special: bool) -> int:
    out = sys.stdout
    for item in jsonl_items(sys.stdin.buffer):
        add = add_special if item.add_special is None else item.add_special
        parse = parse_special if item.parse_special is None else item.parse_special
        ids = tok.encode(item.text, add_special=add, parse_special=parse)
        out.write(json.dumps({"ids": ids}) + "\n")
    return 0


_SIMPLE_ESCAPES = {ord("n"): 0x0A, ord("r"): 0x0D, ord("t"): 0x09, ord("'"): 0x27, ord('"'): 0x22, ord("\\"): 0x5C}
_HEX = frozenset(b"0123456789abcdefABCDEF")
_STRTOL_SPACE = frozenset(b" \t\n\v\f\r")


def _strtol_two(a: int, b: int) -> int | None:
    """``strtol`` of the two characters ``a b`` in base 16 when it reads both, else None: two hex
    digits, or a blank or sign then one digit (``\\x-1`` is byte 0xFF in llama.cpp)."""
    if a in _HEX and b in _HEX:
        return int(bytes((a, b)), 16)
    if b in _HEX and (a in _STRTOL_SPACE or a in b"+-"):
        value = int(bytes((b,)), 16)
        return (-value) & 0xFF if a == ord("-") else value
    return None


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
                out.append(_SIMPLE_ESCAPES[nxt])
                i += 2
                continue
            if nxt == ord("x") and i + 3 < n:
                value = _strtol_two(data[i + 2], data[i + 3])
                if value is not None:
                    out.append(value)
                    i += 4
                    continue
            out += data[i : i + 2]  # an unknown escape: both characters stay
            i += 2
            continue
        out.append(c)
        i += 1
    return bytes(out)
