"""``tui-tok [MODEL]``: start the explorer (the UI issue fills this in)."""

from __future__ import annotations

import argparse

from tui_tok.samples import DEFAULT_SAMPLE


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", nargs="?", default=str(DEFAULT_SAMPLE), help="GGUF file (default: bundled Qwen3 sample)")
    parser.add_argument("--compare", metavar="B.gguf", help="a second GGUF file to compare with (the compare view, F7)")


def run(args: argparse.Namespace) -> int:
    from tui_tok.ui.app import run_app

    return run_app(args.model, compare=args.compare)
