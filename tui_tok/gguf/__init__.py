"""GGUF files: read the header, metadata and tensor index; write vocab-only files and copies with
metadata changed (``rewrite.rewrite_gguf``: tensor data copied byte for byte).

Knows nothing of tokenizers. ``read_gguf(path)`` returns a ``GGUFFile`` (fields in
file order, values as Python scalars, numpy arrays or ``list[str]``); ``write_gguf``
writes metadata with inferred or forced (``GGUFValue``) types. ``GGUFOpenError`` is defined in
``tui_tok.errors`` with the other errors and re-exported here.

The writer is imported on first use (``tempfile``/``shutil`` cost a few ms of every open).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui_tok.errors import GGUFOpenError
from tui_tok.gguf.reader import parse_gguf_bytes, read_gguf
from tui_tok.gguf.types import (
    GGML_TYPES,
    GGUFField,
    GGUFFile,
    GGUFValue,
    GGUFValueType,
    TensorInfo,
    ggml_type_name,
)

if TYPE_CHECKING:
    from tui_tok.gguf.writer import copy_metadata_only, write_gguf

__all__ = [
    "GGML_TYPES",
    "GGUFField",
    "GGUFFile",
    "GGUFOpenError",
    "GGUFValue",
    "GGUFValueType",
    "TensorInfo",
    "copy_metadata_only",
    "ggml_type_name",
    "parse_gguf_bytes",
    "read_gguf",
    "write_gguf",
]


def __getattr__(name: str) -> Any:
    if name in ("write_gguf", "copy_metadata_only"):
        from tui_tok.gguf import writer

        return getattr(writer, name)
    raise AttributeError(f"module 'tui_tok.gguf' has no attribute {name!r}")
