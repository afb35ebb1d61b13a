"""``tui-tok [MODEL] [--text FILE] [--compare B]``: start the explorer; ``tui-tok --list`` lists
the models other tools keep.

MODEL is a path, a URL, ``hf:OWNER/REPO/FILE.gguf``, ``OWNER/REPO:QUANT`` or ``ollama:NAME[:TAG]``
(``tui_tok.sources`` resolves it). Without MODEL, a picker shows the bundled sample and the
models found (the sample opens directly when none are found).

The explorer paints first (its header and ``loading…``) and reads MODEL, ``--compare`` and
``--text`` in a worker; a file that cannot be read ends it with one line on the shell. The
picker reads its choice itself, and shows its errors inside.

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
from collections.abc import Callable
from typing import TYPE_CHECKING

from tui_tok.errors import TuiTokError

if TYPE_CHECKING:
    from tui_tok.gguf import GGUFFile
    from tui_tok.ui.app import Opening

MERGES = ("tokenizer.ggml.merges",)
"""Read with their text kept, as the explorer's BPE encoder wants (``ui.app.open_model``)."""


class NotATerminalError(TuiTokError):
    """The explorer was asked to draw where there is no terminal."""

    exit_code = 2


class TextFileError(TuiTokError):
    """The ``--text`` file cannot be read."""

    exit_code = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        nargs="?",
        default=None,
        help="GGUF file, URL, hf:OWNER/REPO/FILE.gguf, OWNER/REPO:QUANT or ollama:NAME[:TAG] "
        "(default: pick one of the models found, or the bundled Qwen3 sample)",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="list the GGUF files of ollama, the Hugging Face cache, LM Studio and llama.cpp's cache",
    )
    parser.add_argument("--text", metavar="FILE", help="open the tokenize view on this file's exact bytes ('-': stdin)")
    parser.add_argument("--compare", metavar="B.gguf", help="a second GGUF file to compare with (the compare view, F7)")
    parser.add_argument("--session", metavar="FILE",
                        help="reopen a saved session (alt+s saves one): its text, toggles, conversation and compare "
                             "file, and its model when MODEL is not given; --text and --compare override its own")  # fmt: skip


def read_text(source: str) -> str:
    """The text of ``source`` (a path, or ``-`` for stdin): its bytes, undecodable ones kept raw."""
    if source == "-":
        return sys.stdin.buffer.read().decode("utf-8", "surrogateescape")
    return text_reader(source)()


def text_reader(source: str) -> Callable[[], str]:
    """Open ``source`` now (a missing file is one line on the shell, before the explorer draws)
    and return what reads it (in the explorer's loading worker)."""
    try:
        f = open(source, "rb")
    except OSError as exc:
        raise TextFileError(f"{source}: cannot read: {exc.strerror or exc}") from None

    def read() -> str:
        try:
            with f:
                data = f.read()
        except OSError as exc:
            raise TextFileError(f"{source}: cannot read: {exc.strerror or exc}") from None
        return data.decode("utf-8", "surrogateescape")

    return read


def _keys_from_terminal() -> None:
    """stdin was the text: read keys from the controlling terminal instead."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY)
    except OSError:
        raise NotATerminalError(
            "--text -: stdin was read, and there is no terminal (/dev/tty) to read keys from"
        ) from None
    os.dup2(fd, 0)
    os.close(fd)


def run(args: argparse.Namespace) -> int:
    if args.list:
        from tui_tok.cli.list_models import run_list

        return run_list()
    model: str | None = args.model
    gguf: GGUFFile | None = None
    session = None
    if getattr(args, "session", None) is not None:  # read first: a bad file fails before any model is read
        from tui_tok.explore.session_file import load

        session = load(args.session)
        model = model if model is not None else session.model  # the session's own model
        if args.compare is None:
            args.compare = session.compare
    if model is None:  # the picker draws on the terminal too
        _need_terminal("MODEL")
        from tui_tok.ui.screens.picker import Picked, pick_model

        picked = pick_model()
        if picked is None:
            return 0
        model, gguf = (picked.spec, picked.gguf) if isinstance(picked, Picked) else (picked, None)
    elif not sys.stdout.isatty():
        # nothing to draw on: a file that is not GGUF (or a FIFO nobody writes) still says so first
        from tui_tok.sources import read_model

        read_model(model, texts=MERGES)
    _need_terminal(model)
    text: str | Callable[[], str] | None = None
    if args.text == "-":
        text = read_text("-")
        if not sys.stdin.isatty():
            _keys_from_terminal()
    elif args.text is not None:
        text = text_reader(args.text)
    elif session is not None:
        text = session.text
    from tui_tok.ui.app import run_app

    what = opening(model, gguf=gguf, text=text, compare=args.compare)
    return run_app(what) if session is None else run_app(what, session=session)


def opening(model: str, *, gguf: GGUFFile | None = None, text: str | Callable[[], str] | None = None,
            compare: str | None = None) -> Opening:  # fmt: skip
    """What the explorer reads once it has painted: ``model`` (unless ``gguf`` is it, read), the
    ``compare`` file and the text (a reader, or the text itself)."""
    from tui_tok.ui.app import Opened, Opening

    def read(progress: Callable[[str], None]) -> Opened:
        from tui_tok.sources import display_name, read_model

        def bytes_read(n: int, total: int | None) -> None:
            of = f" of a {total / 1e9:.1f} GB file" if total else ""
            progress(f"reading the header: {n / 1e6:.1f} MB{of}")

        first = gguf if gguf is not None else read_model(model, texts=MERGES, progress=bytes_read)
        second = None if compare is None else read_model(compare, texts=MERGES, progress=bytes_read)
        if callable(text):
            progress("reading the text")
        body = text() if callable(text) else text
        return Opened(first, body, second, label=display_name(model, first),
                      compare_label=None if second is None else display_name(compare or "", second))  # fmt: skip

    return Opening(model, read)


def _need_terminal(model: str) -> None:
    if not sys.stdout.isatty():
        raise NotATerminalError(
            "stdout is not a terminal: the explorer draws on one; "
            f"to write to a file or pipe use `tui-tok info {model}` or `tui-tok encode {model} TEXT`"
        )
