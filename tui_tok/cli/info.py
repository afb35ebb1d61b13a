"""``tui-tok info MODEL``: what a GGUF file holds, without building a tokenizer.

Prints a summary (format, architecture, tokenizer model/pre, vocab and merges size,
special tokens with their text, add_* flags, chat templates: the default and the named ones,
tensors) or, with ``--json``, every metadata key. Reads token texts straight from the metadata: it never
imports the tokenizer package, so it works on files the tokenizer would refuse.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_tok.cli.model_arg import MODEL_HELP
from tui_tok.explore.visible import json_dumps, visible
from tui_tok.gguf import GGUFFile

SPECIAL_TOKEN_KEYS = (
    ("bos", "tokenizer.ggml.bos_token_id"),
    ("eos", "tokenizer.ggml.eos_token_id"),
    ("eot", "tokenizer.ggml.eot_token_id"),
    ("eom", "tokenizer.ggml.eom_token_id"),
    ("unk", "tokenizer.ggml.unknown_token_id"),
    ("sep", "tokenizer.ggml.seperator_token_id"),
    ("pad", "tokenizer.ggml.padding_token_id"),
    ("cls", "tokenizer.ggml.cls_token_id"),
    ("mask", "tokenizer.ggml.mask_token_id"),
    ("fim_pre", "tokenizer.ggml.fim_pre_token_id"),
    ("fim_suf", "tokenizer.ggml.fim_suf_token_id"),
    ("fim_mid", "tokenizer.ggml.fim_mid_token_id"),
    ("fim_pad", "tokenizer.ggml.fim_pad_token_id"),
    ("fim_rep", "tokenizer.ggml.fim_rep_token_id"),
    ("fim_sep", "tokenizer.ggml.fim_sep_token_id"),
)
ADD_FLAG_KEYS = (
    ("add_bos", "tokenizer.ggml.add_bos_token"),
    ("add_eos", "tokenizer.ggml.add_eos_token"),
    ("add_sep", "tokenizer.ggml.add_sep_token"),
)


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "info", help="summarise a GGUF file's tokenizer and metadata", description=__doc__.splitlines()[0]
    )
    p.add_argument("model", help=MODEL_HELP)
    p.add_argument("--json", action="store_true", help="print all metadata as JSON (long values cut, lengths given)")
    p.add_argument(
        "--full",
        action="store_true",
        help="with --json: a typed dump of every key, value and tensor (schema in the README)",
    )
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_tok.cli.progress import stderr_progress
    from tui_tok.sources import read_model

    with stderr_progress() as progress:
        gguf = read_model(args.model, progress=progress)
    if args.json:
        sys.stdout.write(json_dumps(info_json(gguf, full=args.full), indent=1) + "\n")
    else:
        sys.stdout.write("\n".join(summary_lines(gguf)) + "\n")
    return 0


def summary_lines(gguf: GGUFFile) -> list[str]:
    """The human summary, one line per fact."""
    tokens = gguf.get("tokenizer.ggml.tokens")
    merges = gguf.get("tokenizer.ggml.merges")
    from tui_tok.sources import split_info

    lines = [
        f"file:            {visible(str(gguf.location))}",
        f"size:            {gguf.file_size:,} bytes ({_human(gguf.file_size)})"
        + ("" if gguf.size_known else " (implied by the tensor index: the stream was not read to its end)"),
        f"format:          GGUF v{gguf.version}, {'big' if gguf.big_endian else 'little'}-endian, "
        f"alignment {gguf.alignment}, {len(gguf.fields)} metadata keys",
        f"architecture:    {_text(gguf.get('general.architecture', '-'))}",
        f"name:            {_text(gguf.get('general.name', '-'))}",
        f"tokenizer:       model {_text(gguf.get('tokenizer.ggml.model', '-'))}, "
        f"pre {_text(gguf.get('tokenizer.ggml.pre', '-'))}",
        f"vocab size:      {f'{len(tokens):,}' if tokens is not None else '-'}",
        f"merges:          {f'{len(merges):,}' if merges is not None else '-'}",
        "special tokens:",
    ]
    specials = [(label, gguf.get(key)) for label, key in SPECIAL_TOKEN_KEYS if key in gguf]
    for label, token_id in specials:
        lines.append(f"  {label:<8} {token_id!s:>7}  {_token_text(tokens, token_id)}")
    if not specials:
        lines.append("  (none)")
    flags = ", ".join(f"{label} {_flag(gguf.get(key))}" for label, key in ADD_FLAG_KEYS)
    lines.append(f"flags:           {flags}")
    template = gguf.get("tokenizer.chat_template")
    if isinstance(template, str):
        lines.append(f"chat template:   present ({len(template):,} characters)")
    else:
        lines.append("chat template:   none")
    named = _named_templates(gguf)
    if named:
        lines.append("named templates: " + ", ".join(named))
    lines.append(f"tensors:         {len(gguf.tensors):,} ({_human(gguf.tensor_bytes)} of data)")
    split = split_info(gguf)
    if split is not None:
        shard, count = split
        note = (
            "the first shard holds the model's metadata"
            if shard == 1
            else "the first shard holds the model's metadata: open -00001-of- for the tokenizer"
        )
        lines.append(f"split:           shard {shard} of {count} ({note})")
    return lines


def _named_templates(gguf: GGUFFile) -> list[str]:
    """``tool_use (4,911 characters)``: each ``tokenizer.chat_template.NAME`` key (what llama.cpp's
    ``llama_model_chat_template(model, name)`` reads; llama-server takes ``tool_use`` for requests
    with tools), then any name ``tokenizer.chat_templates`` lists without its key."""
    prefix = "tokenizer.chat_template."
    out = []
    names: list[str] = []
    for key in gguf.fields:
        if key.startswith(prefix):
            value = gguf.get(key)
            names.append(key[len(prefix) :])
            size = f"{len(value):,} character{'s' * (len(value) != 1)}" if isinstance(value, str) else "not a string"
            out.append(f"{_text(names[-1])[1:-1]} ({size})")
    listed = gguf.get("tokenizer.chat_templates")
    if isinstance(listed, (list, tuple)):
        out += [f"{_text(n)[1:-1]} (listed, no {prefix}{_text(n)[1:-1]} key)"
                for n in listed if isinstance(n, str) and n not in names]  # fmt: skip
    return out


def _token_text(tokens: Any, token_id: Any) -> str:
    if tokens is None:
        return "(no token list)"
    if not isinstance(token_id, int) or not 0 <= token_id < len(tokens):
        return f"(out of range: vocab has {len(tokens):,} tokens)"
    return _text(tokens[token_id])


def _text(value: Any) -> str:
    """A string as a Python literal (escapes control bytes and undecodable bytes)."""
    if isinstance(value, str):
        return repr(value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace"))
    return str(value)


def _flag(value: Any) -> str:
    return "-" if value is None else str(bool(value)).lower()


def _human(n: int) -> str:
    size = float(n)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} bytes"


def info_json(gguf: GGUFFile, *, full: bool = False) -> dict[str, Any]:
    """``--json`` (a bounded summary) or ``--json --full`` (the typed dump): see info_json.py."""
    from tui_tok.cli.info_json import full_json, summary_json

    return full_json(gguf) if full else summary_json(gguf)
