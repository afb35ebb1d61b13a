"""Build broken GGUF files from the bundled assets with the project's writer, and lint them."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from support import ASSETS
from tui_tok.explore.lint import Finding, LintReport, lint_gguf
from tui_tok.gguf import read_gguf, write_gguf

DROP = object()
"""A value meaning "remove this key"."""


@cache
def asset_metadata(name: str) -> dict[str, Any]:
    return dict(read_gguf(ASSETS / name).metadata)


def broken(tmp_path: Path, asset: str, *, tensors: Any = (), **changes: Any) -> Path:
    """``asset``'s metadata with ``changes`` (short key names under ``tokenizer.ggml.``, or full keys
    with dots written as ``__``), written with ``write_gguf``."""
    meta = dict(asset_metadata(asset))
    for short, value in changes.items():
        key = short.replace("__", ".") if "__" in short else f"tokenizer.ggml.{short}"
        if value is DROP:
            meta.pop(key, None)
        else:
            meta[key] = value
    return write_gguf(tmp_path / f"broken-{asset}", meta, tensors=tensors)


def lint_file(path: Path) -> LintReport:
    return lint_gguf(read_gguf(path, texts=("tokenizer.ggml.merges",)))


def codes(report: LintReport) -> set[str]:
    return {f.code for f in report.findings}


def only(report: LintReport, code: str) -> Finding:
    found = [f for f in report.findings if f.code == code]
    assert len(found) == 1, (code, report.findings)
    return found[0]
