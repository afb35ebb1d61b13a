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
from typing import Any

from tui_tok.errors import TuiTokError

# subcommand name -> module under tui_tok.cli; imported lazily to keep start-up fast
SUBCOMMANDS: dict[str, str] = {
    "info": "tui_tok.cli.info",
    "export-vocab": "tui_tok.cli.export",
    "encode": "tui_tok.cli.encode",
    "decode": "tui_tok.cli.decode",
    "lint": "tui_tok.cli.lint",
    "chat": "tui_tok.cli.chat",
    "diff": "tui_tok.cli.diff",
    "explain": "tui_tok.cli.explain",
    "fix": "tui_tok.cli.fix",
    "edit": "tui_tok.cli.edit",
}


class _PlainHelp(argparse.HelpFormatter):
    """Help as plain text: the module docstrings it is cut from mark code with reST's double
    backticks, which a terminal would show as they are."""

    def _format_text(self, text: str) -> str:
        return super()._format_text(text.replace("``", ""))

    def _expand_help(self, action: argparse.Action) -> str:
        return super()._expand_help(action).replace("``", "")


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose help, and its subcommands' help, is plain text."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _PlainHelp)
        super().__init__(*args, **kwargs)


def _build_parser(subcommand: str | None) -> argparse.ArgumentParser:
    from tui_tok import __version__

    parser = _Parser(
        prog="tui-tok",
        description="Explore a GGUF tokenizer. Without a subcommand, open MODEL in the explorer.",
    )
    parser.add_argument("--version", action="version", version=f"tui-tok {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    if subcommand is None:
        from tui_tok.cli import app as app_cmd

        app_cmd.add_arguments(parser)
        parser.epilog = "subcommands: " + ", ".join(SUBCOMMANDS) + " (tui-tok SUBCOMMAND -h)"
        parser.set_defaults(run=app_cmd.run)
        return parser
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
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
        from tui_tok.explore.visible import visible

        if args.debug:
            traceback.print_exc()
        # messages quote files, templates and servers: their controls are drawn, never sent
        print(f"tui-tok: error: {visible(str(exc), lines=True)}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: still one line unless --debug
        from tui_tok.explore.visible import visible

        if args.debug:
            traceback.print_exc()
        print(
            f"tui-tok: internal error: {type(exc).__name__}: {visible(str(exc), lines=True)} (rerun with --debug)",
            file=sys.stderr,
        )
        return 1


def _exit() -> None:
    sys.exit(main())
