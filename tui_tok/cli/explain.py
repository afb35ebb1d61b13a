"""``tui-tok explain MODEL [TEXT | --file F] [--parse-special] [--json | --jsonl]``: why this split.

A readable report by default: the special-token partition, each raw fragment's chunks with the
pre-tokenizer rule that cut before each, and per chunk the model's steps (BPE merges with ranks,
SPM merges with scores and byte fallback, UGM normalisation / path / alternatives, WPM and RWKV
matches). ``--json`` prints one object; ``--jsonl`` reads ``{"text": ...}`` lines (optional
``parse_special``) on stdin and writes one object per line::

    {"ids": [...],                      # == encode(text, add_special=False, parse_special=flag)
     "fragments": [{"start": B, "end": B, "special": bool, "ids": [...],
                    "chunks": [{"start": B, "end": B, "ids": [...], "steps": [...]}]}]}

B = byte offsets of the UTF-8 text; fragments tile the text, chunks tile their fragment
(special fragments have ``"chunks": []``). BPE steps are ``{"left", "right", "rank"}`` with
``tokenizer.ggml.merges[rank] == left + " " + right``. Other families' steps carry ``"kind"``:
SPM ``merge`` {left, right, score}, ``bytes`` {token, ids}; UGM ``normalize`` {start, end, from,
to}, ``piece`` {token, id, start, end, score, total, rival, rival_total}, ``path`` {rank, tokens,
total} (the 3 best segmentations); WPM ``word`` {token, start, end}, ``match`` {token, id, start,
end, rival = the longest prefix tried beyond the match}, ``unknown`` {token, id, start, end, at};
RWKV ``match`` {token, id, start, end}; PLaMo2 ``piece`` {token, id, start, end, score},
``bytes`` {ids, start, end}.

``--why-not SPLIT`` (e.g. ``Hel|lo``; ``\\|`` is a bar inside a piece) or ``--why-not-token TOKEN``
adds what decided against it, for the chunk where it occurs.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_tok.cli.model_arg import MODEL_HELP
from tui_tok.cli.text_arg import jsonl_items, read_text_arg as _read_text
from tui_tok.errors import TuiTokError
from tui_tok.explore.visible import json_dumps, visible


class ExplainInputError(TuiTokError):
    """Bad input on stdin or on the command line (exit code 2)."""

    exit_code = 2


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "explain", help="explain how a text becomes its tokens", description=__doc__.splitlines()[0]
    )
    p.add_argument("model", help=MODEL_HELP)
    p.add_argument("text", nargs="?", help="text to explain (default: stdin)")
    p.add_argument("--file", "-f", type=__import__("pathlib").Path, help="read the text (raw bytes) from this file")
    p.add_argument("--parse-special", action="store_true", help="match CONTROL tokens in the text (default: off)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument("--jsonl", action="store_true", help='{"text": ...} lines on stdin, one object per line out')
    p.add_argument("--why-not", metavar="SPLIT", help="a split to argue against, pieces joined by | (e.g. Hel|lo)")
    p.add_argument("--why-not-token", metavar="TOKEN", help="a token (text or id) you expected")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_tok.loader import load_tokenizer
    from tui_tok.tokenizer.explain import explain, to_json

    tok = load_tokenizer(args.model)
    out = sys.stdout
    if args.jsonl:
        for item in jsonl_items(sys.stdin.buffer, ExplainInputError):
            parse = args.parse_special if item.parse_special is None else item.parse_special
            out.write(json_dumps(to_json(explain(tok, item.text, parse_special=parse))) + "\n")
        return 0
    data = _read_text(args)
    expl = explain(tok, data, parse_special=args.parse_special)
    if args.json:
        out.write(json_dumps(to_json(expl)) + "\n")
    else:
        from tui_tok.explore.explain_text import report_lines

        def piece(tid: int) -> str:
            return tok.token_to_piece(tid).decode("utf-8", "replace")

        for line in report_lines(expl, piece):
            out.write(visible(line) + "\n")  # pieces are the file's: ESC drawn, not sent
    if args.why_not or args.why_not_token:
        _why_not(tok, expl, args, out)
    return 0


def _why_not(tok: Any, expl: Any, args: argparse.Namespace, out: Any) -> None:
    from tui_tok.tokenizer.explain import why_not
    from tui_tok.tokenizer.explain.whynot import spell, split_pieces

    wanted = args.why_not_token or args.why_not
    needle = wanted if args.why_not_token or wanted in tok.vocab.token_to_id else "".join(split_pieces(wanted))
    chunks = [c for f in expl.fragments for c in f.chunks]
    if not chunks:
        raise ExplainInputError("the text has no raw chunk to argue about")
    chunk = next((c for c in chunks if needle in c.text or spell(tok, needle) in c.text), chunks[0])
    answer = why_not(tok, expl, chunk, split=args.why_not, token=args.why_not_token)
    out.write(f"why not {wanted!r}? {visible(answer.verdict)}\n")
    for r in answer.reasons:
        out.write(f"  - {visible(r)}\n")
