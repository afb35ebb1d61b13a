"""Where the bundled sample GGUF files live (``assets/`` at the project root)."""

from __future__ import annotations

from pathlib import Path

ASSETS_DIR = Path(__file__).resolve().parent.parent / "assets"
"""The repository's ``assets/`` folder (the package is installed editable, see README)."""

DEFAULT_SAMPLE = ASSETS_DIR / "qwen3-vocab.gguf"
"""Opened by ``tui-tok`` with no MODEL: Qwen3, the tokenizer users meet most."""
