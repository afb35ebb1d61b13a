"""``tui-tok edit MODEL -o OUT [--set KEY=TYPE:VALUE] [--delete KEY] ...``: a copy with the metadata you name changed.

Everything gguf-py's ``gguf_new_metadata.py`` does and what it cannot: ``--set KEY=TYPE:VALUE``
(llama.cpp's --override-kv types int, float, bool, str, or u8 ... f64), ``--delete KEY``,
``--template-file F [--template-name N]``, ``--token-type ID=control|user_defined|normal|unused|byte|unknown``,
``--eog-add ID`` (the first free of the eot and eom ids), ``--special KIND=ID`` (bos, eos, eot, eom, unk,
sep, pad, mask, fim_*). Edits apply in this order: set, delete, template, token types, EOG, special
ids. Tensor data is copied byte for byte; the copy never replaces MODEL. ``--dry-run`` prints the
changes. Exit code 0 when written, 2 for a bad argument, file or output path.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_tok.cli.fix import add_copy_arguments


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("edit", help="write a copy with metadata changed (keys, token types, EOG, templates)",
                              description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("--set", action="append", default=[], metavar="KEY=TYPE:VALUE", dest="set_")
    p.add_argument("--delete", action="append", default=[], metavar="KEY")
    p.add_argument("--template-file", metavar="F", help="a chat template to store")
    p.add_argument("--template-name", metavar="N", help="store it as tokenizer.chat_template.N (listed in "
                   "tokenizer.chat_templates)")  # fmt: skip
    p.add_argument("--token-type", action="append", default=[], metavar="ID=TYPE")
    p.add_argument("--eog-add", action="append", default=[], metavar="ID", help="make generation stop at token ID")
    p.add_argument("--special", action="append", default=[], metavar="KIND=ID")
    add_copy_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_tok.cli.fix import check_copy_target, copy_progress
    from tui_tok.explore.fix import specs
    from tui_tok.explore.fix.edits import Edit, EditError, describe, merge_edits
    from tui_tok.explore.fix.plan import apply_edits, zero_copy_lines
    from tui_tok.explore.visible import visible
    from tui_tok.gguf import read_gguf

    check_copy_target(args)
    if args.template_name is not None and args.template_file is None:
        raise EditError("--template-name needs --template-file")
    gguf = read_gguf(args.model)
    edits: list[Edit] = [specs.parse_set(gguf, s) for s in args.set_]
    for key in args.delete:
        if key not in gguf.fields:
            raise EditError(f"--delete {key}: the file has no such key")
        edits.append(Edit("delete", key))
    if args.template_file is not None:
        edits += specs.template_edits(gguf, args.template_file, args.template_name)
    edits += [specs.parse_token_type(gguf, s) for s in args.token_type]
    taken: dict[str, int] = {}  # EOG slots the earlier --eog-add took
    for text in args.eog_add:
        e = specs.eog_add(gguf, text, taken)
        if e is None:
            print(
                f"note: --eog-add {visible(text)}: generation already stops at it (an eos/eot/eom id)", file=sys.stderr
            )
        else:
            edits.append(e)
            taken[e.key] = int(e.value)
    edits += [specs.parse_special(gguf, s) for s in args.special]
    edits, conflicts = merge_edits(edits)
    if conflicts:
        a, b = conflicts[0]
        raise EditError(f"two edits change {a.key}{'' if a.token_id is None else f'[{a.token_id}]'} differently")
    if not edits:
        raise EditError(
            "nothing to change: give --set, --delete, --template-file, --token-type, --eog-add or --special"
        )
    for line in [describe(gguf, e) for e in edits] + zero_copy_lines(edits):
        print(visible(line))  # values and token texts come from the file and the arguments
    if args.dry_run:
        return 0
    with copy_progress() as progress:
        result = apply_edits(gguf, edits, args.output, force=args.force, progress=progress)
    print(f"wrote {visible(str(result.path))}: {len(edits)} metadata change(s), {result.data_bytes:,} bytes of tensor data "
          "copied unchanged")  # fmt: skip
    return 0
