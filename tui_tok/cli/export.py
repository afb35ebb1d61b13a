"""``tui-tok export-vocab MODEL -o OUT.gguf``: the tokenizer without the weights.

Copies every metadata key (general.architecture and all tokenizer.* keys among them)
with its original type into a new GGUF file with no tensors: a few MB that llama.cpp
(vocab_only), gguf-py and tui-tok all read, and that users can share. The output is
written atomically and never over the input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_tok.gguf import copy_metadata_only, read_gguf


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("export-vocab", help="write a vocab-only GGUF (metadata, no tensors)",
                              description=__doc__.splitlines()[0])
    p.add_argument("model", help="GGUF file to read")
    p.add_argument("-o", "--output", required=True, help="GGUF file to write")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    src = read_gguf(args.model)
    out = copy_metadata_only(src, args.output)
    size = out.stat().st_size
    print(
        f"wrote {out}: {size:,} bytes, {len(src.fields)} metadata keys, "
        f"0 of {len(src.tensors)} tensors (input {src.file_size:,} bytes)",
        file=sys.stderr,
    )
    return 0
