"""``tui-tok fix MODEL -o OUT [--only CODE ...] [--dry-run]``: a copy of MODEL with what lint finds repaired.

For every finding a metadata edit can repair (``tui-tok lint --json`` shows each one's ``fix``), the
edit is made in a new file: metadata changed only there, tensor data copied byte for byte, never
over MODEL. Also printed: the llama.cpp ``--override-kv`` flags and ollama Modelfile lines that make
the same repair without a copy, where they can. ``--dry-run`` prints the changes and writes nothing.
After writing, the copy is linted again and what is left is named. Exit code 0 when the copy is
written (or, with ``--dry-run``, planned), 2 for a bad file or output path.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("fix", help="write a copy with the lint findings repaired",
                              description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("--only", nargs="+", metavar="CODE", default=(), help="fix only the findings of these lint codes")
    add_copy_arguments(p)
    p.set_defaults(run=run)


def add_copy_arguments(p: argparse.ArgumentParser) -> None:
    """MODEL, -o, --dry-run, --force: how ``fix`` and ``edit`` name what they read and the copy they write."""
    p.add_argument("model", help="GGUF file (local: its tensor data is copied)")
    p.add_argument("-o", "--output", help="GGUF file to write (not needed with --dry-run)")
    p.add_argument("--dry-run", action="store_true", help="print the changes, write nothing")
    p.add_argument("--force", action="store_true", help="replace OUTPUT if it exists")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")


def check_copy_target(args: argparse.Namespace) -> None:
    """Unless ``--dry-run``: ``-o`` is given, and names a file that may be written (never the input)."""
    from pathlib import Path

    from tui_tok.errors import OutputError
    from tui_tok.gguf.export import check_target

    if not args.dry_run:
        if not args.output:
            raise OutputError("name the copy to write with -o OUT (or pass --dry-run)")
        check_target(args.output, force=args.force, source=Path(args.model))


def run(args: argparse.Namespace) -> int:
    from tui_tok.explore.fix.plan import after_summary, apply_edits, plan_until_fixed
    from tui_tok.explore.lint import lint_gguf
    from tui_tok.explore.visible import visible
    from tui_tok.gguf import read_gguf

    check_copy_target(args)
    gguf = read_gguf(args.model, texts=("tokenizer.ggml.merges",))
    plan = plan_until_fixed(gguf, lint_gguf(gguf), args.only)
    lines = [visible(line) for line in plan.lines(gguf)]  # messages quote the file: nothing raw to a terminal
    sys.stdout.write("\n".join(lines) + "\n" if lines else "")
    if not plan.fixes:
        print(f"{visible(str(gguf.path))}: nothing to fix" + (" (of the codes asked for)" if args.only else ""))
        return 0
    if args.dry_run:
        return 0
    with copy_progress() as progress:
        result = apply_edits(gguf, plan.edits, args.output, force=args.force, progress=progress)
    print(f"wrote {visible(str(result.path))}: {len(plan.edits)} metadata change(s), {result.data_bytes:,} bytes of tensor data "
          "copied unchanged")  # fmt: skip
    print(visible(after_summary(result.path, {p.finding.code for p in plan.fixes})))
    return 0


@contextmanager
def copy_progress() -> Iterator[Callable[[int, int], None] | None]:
    """A progress callback drawing ``copying tensor data: 41% of 9.8 GB`` on a terminal's stderr."""
    if not sys.stderr.isatty():
        yield None
        return
    last = [0.0, False]

    def show(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] < 0.1 or not total:
            return
        last[0], last[1] = now, True
        sys.stderr.write(f"\rcopying tensor data: {100 * done // total}% of {total / 1e9:.1f} GB\x1b[K")
        sys.stderr.flush()

    try:
        yield show
    finally:
        if last[1]:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
