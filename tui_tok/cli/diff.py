"""``tui-tok diff A B [TEXT | --file F | --jsonl] [--vocab]`` and ``tui-tok diff MODEL --hf DIR [--fuzz N]``.

Compares two GGUF tokenizers on a text (tokens as start byte, end byte and piece; ids may differ
where pieces agree), their vocabularies and metadata (``--vocab``), or a GGUF with the
Hugging Face ``tokenizer.json`` it came from (``--hf``, needs ``pip install 'tui-tok[hf]'``; ids
compared, special tokens always matched as HF does). ``--fuzz N`` compares N generated texts
(llama.cpp's test-tokenizer-random.py families) and shrinks each mismatch to a minimal text.
Exit status as diff(1): 0 the same, 1 different, 2 an error.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_tok.cli.model_arg import MODEL_HELP
from tui_tok.cli.text_arg import jsonl_items, read_text_arg
from tui_tok.errors import ComparisonError, TuiTokError
from tui_tok.explore.visible import json_dumps, visible


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("diff", help="compare two tokenizers (exit 0 same, 1 different)",
                              description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("a", help="model A: " + MODEL_HELP)
    p.add_argument("b", nargs="?", help="model B, the same forms (not with --hf)")
    p.add_argument("text", nargs="?", help="text to compare on (default: stdin)")
    p.add_argument("--file", "-f", type=_path, help="read the text (raw bytes) from this file")
    p.add_argument("--jsonl", action="store_true", help='{"text": ...} lines in on stdin, one JSON result per line out')
    p.add_argument("--parse-special", action="store_true", help="match CONTROL tokens in the text (default: off)")
    p.add_argument("--no-add-special", dest="add_special", action="store_false", help="do not add BOS/EOS")
    p.add_argument("--json", action="store_true", help="print JSON instead of the aligned report")
    p.add_argument("--vocab", action="store_true", help="compare vocabularies and metadata instead of a text")
    # nargs="+": argparse cannot take `MODEL --hf DIR TEXT` positionals after the option otherwise
    p.add_argument("--hf", nargs="+", metavar="DIR_OR_JSON",
                   help="compare MODEL with a Hugging Face tokenizer.json (folder or file); TEXT may follow")  # fmt: skip
    p.add_argument("--fuzz", type=int, metavar="N", help="with --hf: compare N generated texts, shrink mismatches")
    p.add_argument("--seed", type=int, default=0, help="seed of --fuzz (default 0)")
    p.add_argument("--width", type=int, default=100, help="width of the aligned rows (default 100)")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def _path(value: str) -> Any:
    from pathlib import Path

    return Path(value)


def _read_text(args: argparse.Namespace) -> bytes:
    return read_text_arg(args, ComparisonError)  # exit 2: 1 means 'different' here


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except TuiTokError as exc:
        if exc.exit_code == 2:
            raise
        raise ComparisonError(str(exc)) from exc  # exit 1 means "different" here


def _run(args: argparse.Namespace) -> int:
    if args.hf is not None:
        return _run_hf(args)
    if args.fuzz is not None:
        raise ComparisonError("--fuzz needs --hf (it compares a GGUF with its Hugging Face original)")
    if args.b is None:
        raise ComparisonError("give two GGUF files (A B), or MODEL --hf DIR")
    if args.vocab:
        return _run_vocab(args)
    from tui_tok.loader import load_tokenizer

    tok_a, tok_b = load_tokenizer(args.a), load_tokenizer(args.b)
    if args.jsonl:
        return _run_jsonl(args, lambda data, add, parse: _diff(tok_a, tok_b, data, add, parse))
    diff = _diff(tok_a, tok_b, _read_text(args), args.add_special, args.parse_special)
    _print_diff(args, diff, args.a, args.b)
    return 0 if diff.same else 1


def _diff(tok_a: Any, tok_b: Any, data: bytes, add: bool, parse: bool) -> Any:
    from tui_tok.explore.diff.text_diff import diff_texts

    return diff_texts(tok_a, tok_b, data, add_special=add, parse_special=parse)


def _run_jsonl(args: argparse.Namespace, compare: Any) -> int:
    if args.text is not None or args.file is not None:
        raise ComparisonError("--jsonl reads stdin: give no TEXT or --file")
    differ = False
    for item in jsonl_items(sys.stdin.buffer, ComparisonError):
        text = item.text
        add = args.add_special if item.add_special is None else item.add_special
        parse = args.parse_special if item.parse_special is None else item.parse_special
        diff = compare(text.encode("utf-8", "surrogatepass"), add, parse)
        differ |= not diff.same
        sys.stdout.write(json_dumps(diff.to_json()) + "\n")
    return 1 if differ else 0


def _print_diff(args: argparse.Namespace, diff: Any, name_a: str, name_b: str, known: Any = None) -> None:
    from tui_tok.explore.diff.align import render_rows, show_piece

    out = sys.stdout
    if args.json:
        doc = diff.to_json()
        if known is not None:
            doc["known"] = known.to_json()
        out.write(json_dumps(doc) + "\n")
        return
    out.write(f"A: {visible(name_a)}  ({len(diff.a)} tokens)\nB: {visible(name_b)}  ({len(diff.b)} tokens)\n")
    for line in render_rows(diff, width=args.width):
        out.write(line + "\n")
    first = diff.first
    if first is None:
        out.write("same tokenization\n")
        return

    def tok(t: Any) -> str:
        return "end of tokens" if t is None else f"{t.id} '{show_piece(t.piece)}' [{t.start}:{t.end}]"

    out.write(f"first difference at byte {first.byte} (token {first.index}): A {tok(first.a)}  B {tok(first.b)}\n")
    if known is not None:
        out.write(f"known difference ({known.name}): {visible(known.detail)}\n")


def _run_vocab(args: argparse.Namespace) -> int:
    from tui_tok.explore.diff.vocab_diff import diff_vocabs
    from tui_tok.sources import read_model

    diff = diff_vocabs(read_model(args.a).metadata, read_model(args.b).metadata)
    if args.json:
        sys.stdout.write(json_dumps(diff.to_json()) + "\n")
    else:
        sys.stdout.write(f"A: {visible(args.a)}\nB: {visible(args.b)}\n" + "\n".join(diff.report_lines()) + "\n")
    return 0 if diff.same else 1


def _run_hf(args: argparse.Namespace) -> int:
    from tui_tok.explore.diff.compare import HfPair, fuzz, minimal_mismatch
    from tui_tok.explore.diff.hf import decode_utf8, load_hf
    from tui_tok.explore.diff.known import explain
    from tui_tok.loader import load_tokenizer

    if args.vocab:
        raise ComparisonError("--vocab compares two GGUF files, not --hf")
    texts = [t for t in (args.b, args.text, *args.hf[1:]) if t is not None]
    if len(texts) > 1:
        raise ComparisonError("with --hf give one GGUF file and at most one TEXT")
    args.text = texts[0] if texts else None
    hf = load_hf(args.hf[0])
    pair = HfPair(load_tokenizer(args.a), hf, add_special=args.add_special)
    if args.fuzz is not None:
        report = fuzz(pair, args.fuzz, seed=args.seed)
        _print_fuzz(args, report)
        return 0 if report.failing == 0 else 1
    if args.jsonl:
        return _run_jsonl(args, lambda data, add, parse: HfPair(pair.gguf, hf, add_special=add).diff(decode_utf8(data)))
    text = decode_utf8(_read_text(args))
    diff = pair.diff(text)
    known = None if diff.same else explain(pair, text)
    _print_diff(args, diff, args.a, str(hf.path), known)
    if not diff.same and not args.json and known is None:
        m = minimal_mismatch(pair, text)
        sys.stdout.write(f"minimal text that still differs: {m.minimal!r}\n")
    return 0 if diff.same else 1


def _print_fuzz(args: argparse.Namespace, report: Any) -> None:
    from tui_tok.explore.diff.align import render_rows

    out = sys.stdout
    if args.json:
        out.write(json_dumps(report.to_json()) + "\n")
        return
    out.write(f"{report.tested} texts compared, {report.failing} differ, {len(report.mismatches)} minimal mismatches\n")
    for m in report.mismatches:
        name = f"known: {m.known.name}: {visible(m.known.detail)}" if m.known is not None else "not a known difference"
        out.write(f"\n{m.minimal!r}  ({name})\n")
        for line in render_rows(m.diff, width=args.width):
            out.write("  " + line + "\n")
