"""``tui-tok edit``'s arguments as ``Edit`` values, checked against the file they will change.

``--set KEY=TYPE:VALUE`` takes llama.cpp's ``--override-kv`` types (``int``, ``float``, ``bool``,
``str``) and gguf's own (``u8`` ... ``f64``, ``string``); ``int`` and ``float`` keep the type the key
already has. What gguf-py's ``gguf_new_metadata.py`` cannot do is here too: token types, special
ids, EOG additions, named chat templates. Every error names the argument.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from tui_tok.explore.fix.edits import SHORT_TYPES, TOKEN_TYPE_KEY, TOKEN_TYPES, Edit, EditError, set_edit
from tui_tok.gguf.types import GGUFFile, GGUFValueType

TEMPLATE_KEY = "tokenizer.chat_template"
TEMPLATES_LIST_KEY = "tokenizer.chat_templates"
SPECIAL_KINDS: dict[str, str] = {
    "bos": "bos", "eos": "eos", "eot": "eot", "eom": "eom", "unk": "unknown", "sep": "seperator", "pad": "padding",
    "mask": "mask", "cls": "cls", "fim_pre": "fim_pre", "fim_suf": "fim_suf", "fim_mid": "fim_mid",
    "fim_pad": "fim_pad", "fim_rep": "fim_rep", "fim_sep": "fim_sep",
}  # fmt: skip
"""``--special KIND=ID`` -> ``tokenizer.ggml.<name>_token_id`` (llama.cpp spells the separator 'seperator')."""
EOG_SLOTS = ("tokenizer.ggml.eot_token_id", "tokenizer.ggml.eom_token_id")
_T = GGUFValueType
_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def parse_set(gguf: GGUFFile, spec: str) -> Edit:
    """``KEY=TYPE:VALUE`` -> a ``set`` edit."""
    key, eq, rest = spec.partition("=")
    type_name, colon, text = rest.partition(":")
    if not eq or not colon or not key:
        raise EditError(f"--set {spec!r}: expected KEY=TYPE:VALUE, e.g. tokenizer.ggml.pre=str:llama3")
    field = gguf.fields.get(key)
    old = field.type if field is not None else None
    if type_name == "int":
        value: Any = _int(spec, text)
        type_name = (
            old.short_name
            if old is not None and old.is_numeric and old.numpy_dtype is not None and old.numpy_dtype.kind in "iu"
            else ("u32" if 0 <= value < 2**32 else "i64")
        )
    elif type_name == "float":
        value = _float(spec, text)
        type_name = old.short_name if old in (_T.FLOAT32, _T.FLOAT64) else "f32"
    elif type_name == "bool":
        if text.lower() not in ("true", "false", "1", "0"):
            raise EditError(f"--set {spec!r}: a bool is true or false")
        value = text.lower() in ("true", "1")
    elif type_name in ("str", "string"):
        value = text
    elif type_name in SHORT_TYPES:
        t = SHORT_TYPES[type_name]
        value = _float(spec, text) if t in (_T.FLOAT32, _T.FLOAT64) else _int(spec, text)
    else:
        raise EditError(f"--set {spec!r}: unknown type {type_name!r} (int, float, bool, str, or one of "
                        f"{', '.join(sorted(SHORT_TYPES))})")  # fmt: skip
    return set_edit(key, value, type_name)


def _int(spec: str, text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise EditError(f"--set {spec!r}: {text!r} is not an integer") from None


def _float(spec: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise EditError(f"--set {spec!r}: {text!r} is not a number") from None


def _n_tokens(gguf: GGUFFile) -> int:
    tokens = gguf.get("tokenizer.ggml.tokens")
    return len(tokens) if isinstance(tokens, list) else 0


def _token_id(gguf: GGUFFile, flag: str, spec: str, text: str) -> int:
    try:
        token_id = int(text, 0)
    except ValueError:
        raise EditError(f"{flag} {spec!r}: {text!r} is not a token id") from None
    n = _n_tokens(gguf)
    if not 0 <= token_id < n:
        raise EditError(f"{flag} {spec!r}: token id {token_id} is not below the vocabulary size {n}")
    return token_id


def parse_token_type(gguf: GGUFFile, spec: str) -> Edit:
    """``ID=control`` -> a ``token-type`` edit."""
    text, eq, name = spec.partition("=")
    if not eq or name.lower() not in TOKEN_TYPES:
        raise EditError(f"--token-type {spec!r}: expected ID=TYPE with TYPE one of {', '.join(TOKEN_TYPES)}")
    token_id = _token_id(gguf, "--token-type", spec, text)
    return Edit("token-type", TOKEN_TYPE_KEY, name.lower(), token_id=token_id)


def parse_special(gguf: GGUFFile, spec: str) -> Edit:
    """``eos=151645`` -> a ``set`` of ``tokenizer.ggml.eos_token_id``."""
    kind, eq, text = spec.partition("=")
    if not eq or kind.lower() not in SPECIAL_KINDS:
        raise EditError(f"--special {spec!r}: expected KIND=ID with KIND one of {', '.join(SPECIAL_KINDS)}")
    token_id = _token_id(gguf, "--special", spec, text)
    key = f"tokenizer.ggml.{SPECIAL_KINDS[kind.lower()]}_token_id"
    stop = _text(gguf, token_id) if kind.lower() in ("eos", "eot", "eom") else None
    return Edit("set", key, token_id, "u32", stop=stop)


def eog_add(gguf: GGUFFile, text: str, taken: Mapping[str, int] | None = None) -> Edit | None:
    """``--eog-add ID``: the eot or eom key naming ``ID`` (the first free one), None when an EOG key
    already names it. llama.cpp's EOG set holds the eos, eot and eom ids (and a few texts it knows).
    ``taken``: slots earlier edits set (key -> id)."""
    token_id = _token_id(gguf, "--eog-add", text, text)
    n = _n_tokens(gguf)
    ids = {k: _id(gguf, k) for k in ("tokenizer.ggml.eos_token_id", *EOG_SLOTS)}
    ids.update(taken or {})
    if token_id in ids.values():
        return None
    for key in EOG_SLOTS:
        current = ids[key]
        if key not in (taken or {}) and (current is None or not 0 <= current < n):
            return Edit("set", key, token_id, "u32", stop=_text(gguf, token_id))
    raise EditError(f"--eog-add {text}: eot and eom already name tokens {ids[EOG_SLOTS[0]]} and {ids[EOG_SLOTS[1]]} "
                    "(llama.cpp's EOG set has no other key): replace one with --special eot=ID or eom=ID")  # fmt: skip


def _id(gguf: GGUFFile, key: str) -> int | None:
    v = gguf.get(key)
    return int(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else None


def _text(gguf: GGUFFile, token_id: int) -> str | None:
    tokens = gguf.get("tokenizer.ggml.tokens")
    return tokens[token_id] if isinstance(tokens, list) and 0 <= token_id < len(tokens) else None


def template_edits(gguf: GGUFFile, path: str, name: str | None) -> list[Edit]:
    """``--template-file F [--template-name N]``: the template key, and N added to the list of names."""
    try:
        text = Path(path).read_bytes().decode("utf-8")
    except OSError as exc:
        raise EditError(f"--template-file {path}: cannot read it: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise EditError(f"--template-file {path}: not UTF-8 (byte {exc.start})") from None
    if name is None or name == "default":
        return [set_edit(TEMPLATE_KEY, text, "string")]
    if not _NAME.fullmatch(name):
        raise EditError(f"--template-name {name!r}: use letters, digits, '_', '.', '-' (at most 64)")
    edits = [set_edit(f"{TEMPLATE_KEY}.{name}", text, "string")]
    names = gguf.get(TEMPLATES_LIST_KEY)
    current = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    if name not in current:  # llama.cpp and tui-tok find named templates through this list
        edits.append(Edit("set-strings", TEMPLATES_LIST_KEY, [*current, name], "string"))
    return edits
