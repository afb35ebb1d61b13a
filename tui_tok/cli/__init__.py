"""Command line: ``tui-tok [MODEL]`` starts the explorer; subcommands run the core.

Each subcommand lives in its own module exposing ``add_parser(subparsers)`` and
``run(args) -> int``. Errors a user can cause (``TuiTokError``) become one line on
stderr and the error's exit code (2 for a bad file); ``--debug`` shows the traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback
from collections.abc import Sequence

from tui_tok.errors import TuiTokError

# subcommand name -> module under tui_tok.cli; imported lazily to keep start-up fast
SUBCOMMANDS: dict[str, str] = {
    "info": "tui_tok.cli.info",
    "export-vocab": "tui_tok.cli.export",
    "encode": "tui_tok.cli.encode",
    "decode": "tui_tok.cli.decode",
    "explain": "tui_tok.cli.explain",
}


def _build_parser(subcommand: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tui-tok",
        description="Explore a GGUF tokenizer. Without a subcommand, open MODEL in the explorer.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    if subcommand is None:
        from tui_tok.cli import app as app_cmd

        app_cmd.add_arguments(parser)
        parser.epilog = "subcommands: " + ", ".join(SUBCOMMANDS) + " (tui-tok SUBCOMMAND -h)"
        parser.set_defaults(run=app_cmd.run)
        return parser
    subparsers = parser.add_subparsers(dest="command", required=True)
    module = importlib.import_module(SUBCOMMANDS[subcommand])
    module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tui-tok`` console script; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    positional = [a for a in args_list if not a.startswith("-")]
    subcommand = positional[0] if positional and positional[0] in SUBCOMMANDS else None
    parser = _build_parser(subcommand)
    args = parser.parse_args(args_list)
    try:
        return int(args.run(args) or 0)
    except TuiTokError as exc:
        if args.debug:
            traceback.print_exc()
        print(f"tui-tok: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: still one line unless --debug
        if args.debug:
            traceback.print_exc()
        print(f"tui-tok: internal error: {type(exc).__name__}: {exc} (rerun with --debug)", file=sys.stderr)
        return 1


def _exit() -> None:
    sys.exit(main())
