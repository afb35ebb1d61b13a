"""``tui-tok export-vocab MODEL -o OUT.gguf``: the tokenizer without the weights.

Copies every metadata key (general.architecture and all tokenizer.* keys among them) byte for
byte, with its original type, into a new GGUF file with no tensors: a few MB that llama.cpp
(vocab_only), gguf-py and tui-tok all read, and that users can share. MODEL may be a URL or a
shorthand (only its header is fetched). The output is written atomically, never over the input,
never through a symlink, device or FIFO, and over an existing file only with ``--force``
(keeping its permissions).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tui_tok.cli.model_arg import MODEL_HELP


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "export-vocab", help="write a vocab-only GGUF (metadata, no tensors)", description=__doc__.splitlines()[0]
    )
    p.add_argument("model", help=MODEL_HELP)
    p.add_argument("-o", "--output", required=True, help="GGUF file to write")
    p.add_argument("--force", action="store_true", help="replace OUTPUT if it exists (its permissions are kept)")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_tok.gguf.export import check_target, export_metadata
    from tui_tok.sources import open_source

    check_target(args.output, force=args.force, source=Path(args.model))  # before any download
    src = open_source(args.model)
    try:
        gguf, out = export_metadata(src, args.output, force=args.force)
    finally:
        src.close()
    from tui_tok.explore.visible import visible

    size = out.stat().st_size
    print(
        f"wrote {visible(str(out))}: {size:,} bytes, {len(gguf.fields)} metadata keys, "
        f"0 of {len(gguf.tensors)} tensors (input {gguf.file_size:,} bytes)",
        file=sys.stderr,
    )
    return 0
