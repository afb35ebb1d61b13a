"""A few facts about a model file for lists and pickers: architecture, tokenizer, vocabulary size.

Reads the metadata with string arrays walked, not decoded (``decode_strings=False``), so a
262k-token vocabulary costs a scan, not a decode; a file that cannot be read gets its error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tui_tok.errors import GGUFFormatError, TuiTokError
from tui_tok.gguf.reader import parse_source
from tui_tok.gguf.source import open_local


@dataclass(frozen=True, slots=True)
class ModelFacts:
    """What ``tui-tok --list`` and the picker show of a file."""

    architecture: str = "-"
    tokenizer: str = "-"
    """``model/pre`` (``gpt2/qwen2``), or ``-`` when the file has no tokenizer."""
    n_tokens: int | None = None
    split: str = ""
    """``shard 1 of 3`` for a split model, else empty."""
    error: str | None = None
    """Why the file could not be read (then the other fields are defaults)."""
    reason: str | None = None
    """``error`` without the file's name (a row that already names the file)."""


def model_facts(path: Path) -> ModelFacts:
    """Facts of the GGUF file at ``path`` (never raises for a bad file)."""
    from tui_tok.sources import split_info

    try:
        src = open_local(path)
        try:
            gguf = parse_source(src, decode_strings=False)
        finally:
            src.close()
    except TuiTokError as exc:
        reason = exc.message if isinstance(exc, GGUFFormatError) else str(exc).removeprefix(f"{path}: ")
        return ModelFacts(error=str(exc), reason=reason)
    model, pre = gguf.get("tokenizer.ggml.model"), gguf.get("tokenizer.ggml.pre")
    tok = "-" if model is None else str(model) + (f"/{pre}" if pre else "")
    tokens = gguf.fields.get("tokenizer.ggml.tokens")
    split = split_info(gguf)
    return ModelFacts(
        architecture=str(gguf.get("general.architecture", "-")),
        tokenizer=tok,
        n_tokens=len(tokens.value) if tokens is not None else None,
        split="" if split is None else f"shard {split[0]} of {split[1]}",
    )


def human_size(n: int) -> str:
    """``4.7 GiB``, ``812 KiB``."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024:
            return f"{size:.0f} {unit}" if unit in ("B", "KiB") else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} TiB"
