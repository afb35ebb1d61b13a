"""``tui-tok [MODEL] [--text FILE] [--compare B]``: start the explorer; ``tui-tok --list`` lists
the models other tools keep.

MODEL is a path, a URL, ``hf:OWNER/REPO/FILE.gguf``, ``OWNER/REPO:QUANT`` or ``ollama:NAME[:TAG]``
(``tui_tok.sources`` resolves it). Without MODEL, a picker shows the bundled sample and the
models found (the sample opens directly when none are found).

``--text FILE`` (``-`` for stdin) opens the tokenize view on that file's exact bytes: bytes
that are not UTF-8 stay raw (``surrogateescape``, drawn as ``\\xNN``, tokenized as the bytes
themselves, as ``encode --file`` does). After reading stdin the explorer takes its keys from
the terminal (``/dev/tty``). The explorer draws on a terminal: with stdout redirected it
refuses in one line and names the subcommands that write to files and pipes.
"""

from __future__ import annotations

import argparse
import os
import sys

from tui_tok.errors import TuiTokError


class NotATerminalError(TuiTokError):
    """The explorer was asked to draw where there is no terminal."""

    exit_code = 2


class TextFileError(TuiTokError):
    """The ``--text`` file cannot be read."""

    exit_code = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", nargs="?", default=None,
                        help="GGUF file, URL, hf:OWNER/REPO/FILE.gguf, OWNER/REPO:QUANT or ollama:NAME[:TAG] "
                             "(default: pick one of the models found, or the bundled Qwen3 sample)")
    parser.add_argument("--list", action="store_true",
                        help="list the GGUF files of ollama, the Hugging Face cache, LM Studio and llama.cpp's cache")
    parser.add_argument(
        "--text", metavar="FILE", help="open the tokenize view on this file's exact bytes ('-': stdin)"
    )
    parser.add_argument("--compare", metavar="B.gguf", help="a second GGUF file to compare with (the compare view, F7)")
    parser.add_argument("--session", metavar="FILE",
                        help="reopen a saved session (alt+s saves one): its text, toggles, conversation and compare "
                             "file, and its model when MODEL is not given; --text and --compare override its own")  # fmt: skip


def read_text(source: str) -> str:
    """The text of ``source`` (a path, or ``-`` for stdin): its bytes, undecodable ones kept raw."""
    if source == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            with open(source, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise TextFileError(f"{source}: cannot read: {exc.strerror or exc}") from None
    return data.decode("utf-8", "surrogateescape")


def _keys_from_terminal() -> None:
    """stdin was the text: read keys from the controlling terminal instead."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        raise NotATerminalError("--text -: stdin was read, and there is no terminal (/dev/tty) to read keys from") from None
    os.dup2(fd, 0)
    os.close(fd)


def run(args: argparse.Namespace) -> int:
    if args.list:
        from tui_tok.cli.list_models import run_list

        return run_list()
    model = args.model
    if model is None and getattr(args, "session", None) is not None:  # the session's own model
        from tui_tok.explore.session_file import load

        model = load(args.session).model
    if model is None:  # the picker draws on the terminal too
        _need_terminal("MODEL")
        from tui_tok.ui.screens.picker import pick_model

        model = pick_model()
        if model is None:
            return 0
    from tui_tok.cli.progress import stderr_progress
    from tui_tok.sources import display_name, read_model

    session = None
    if getattr(args, "session", None) is not None:  # read first: a bad file fails before any download
        from tui_tok.explore.session_file import load

        session = load(args.session)
        if args.compare is None:
            args.compare = session.compare
    # the files first: a file that is not GGUF (or a FIFO nobody writes) says so before anything else
    with stderr_progress() as progress:
        gguf = read_model(model, texts=("tokenizer.ggml.merges",), progress=progress)
        second = None if args.compare is None else read_model(args.compare, texts=("tokenizer.ggml.merges",),
                                                               progress=progress)  # fmt: skip
    _need_terminal(model)
    text = read_text(args.text) if args.text is not None else session.text if session is not None else None
    if args.text == "-" and not sys.stdin.isatty():
        _keys_from_terminal()
    from tui_tok.ui.app import run_app

    return run_app(gguf, text=text, compare=second, label=display_name(model, gguf),
                   compare_label=None if second is None else display_name(args.compare, second),
                   session=session)  # fmt: skip


def _need_terminal(model: str) -> None:
    if not sys.stdout.isatty():
        raise NotATerminalError(
            "stdout is not a terminal: the explorer draws on one; "
            f"to write to a file or pipe use `tui-tok info {model}` or `tui-tok encode {model} TEXT`"
        )
