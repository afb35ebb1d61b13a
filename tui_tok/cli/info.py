"""``tui-tok info MODEL``: what a GGUF file holds, without building a tokenizer.

Prints a summary (format, architecture, tokenizer model/pre, vocab and merges size,
special tokens with their text, add_* flags, chat template, tensors) or, with
``--json``, every metadata key. Reads token texts straight from the metadata: it never
imports the tokenizer package, so it works on files the tokenizer would refuse.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

import numpy as np

from tui_tok.gguf import GGUFFile, GGUFValueType, read_gguf

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
JSON_HEAD = 16


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("info", help="summarise a GGUF file's tokenizer and metadata",
                              description=__doc__.splitlines()[0])
    p.add_argument("model", help="GGUF file")
    p.add_argument("--json", action="store_true", help="print all metadata as JSON")
    p.add_argument("--full", action="store_true", help=f"with --json: do not shorten arrays past {JSON_HEAD} items")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    gguf = read_gguf(args.model)
    if args.json:
        json.dump(info_json(gguf, full=args.full), sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write("\n")
    else:
        sys.stdout.write("\n".join(summary_lines(gguf)) + "\n")
    return 0


def summary_lines(gguf: GGUFFile) -> list[str]:
    """The human summary, one line per fact."""
    tokens = gguf.get("tokenizer.ggml.tokens")
    merges = gguf.get("tokenizer.ggml.merges")
    lines = [
        f"file:            {gguf.path}",
        f"size:            {gguf.file_size:,} bytes ({_human(gguf.file_size)})",
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
    lines.append(f"tensors:         {len(gguf.tensors):,} ({_human(gguf.tensor_bytes)} of data)")
    return lines


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
    """Everything but tensor data as JSON-ready data; arrays shortened unless ``full``."""
    return {
        "file": str(gguf.path),
        "file_size": gguf.file_size,
        "gguf_version": gguf.version,
        "endianness": "big" if gguf.big_endian else "little",
        "alignment": gguf.alignment,
        "tensor_count": len(gguf.tensors),
        "tensor_bytes": gguf.tensor_bytes,
        "metadata": {key: _json_field(f.type, f.value, f.type_name, full) for key, f in gguf.fields.items()},
    }


def _json_field(vtype: GGUFValueType, value: Any, type_name: str, full: bool) -> Any:
    if vtype != GGUFValueType.ARRAY:
        return _json_value(value)
    if full or len(value) <= JSON_HEAD:
        return _json_value(value)
    return {"type": type_name, "length": len(value), "head": _json_value(value[:JSON_HEAD])}


def _json_value(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list):
        return [_json_value(v) for v in value]
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:  # invalid UTF-8 kept as surrogates: show the bytes
            raw = value.encode("utf-8", "surrogateescape")
            return {"text": raw.decode("utf-8", "backslashreplace"), "hex": raw.hex()}
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value
