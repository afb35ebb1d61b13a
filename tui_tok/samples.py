"""Where the bundled sample GGUF files live, in a clone and in an installed wheel alike.

The files are kept once, in the repository's top-level ``assets/``; the build maps that folder onto the package
``tui_tok.assets`` (``setup.py``), so ``importlib.resources`` finds them wherever tui-tok is installed: in
``site-packages`` from a wheel, or in the clone for an editable install. Run from a source tree that was never
installed (``PYTHONPATH=.``), the package is not mapped and the clone's ``assets/`` is used directly.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SAMPLE_NAME = "qwen3-vocab.gguf"
"""Opened by ``tui-tok`` with no MODEL: Qwen3, the tokenizer users meet most."""

_SOURCE_TREE_ASSETS = Path(__file__).resolve().parent.parent / "assets"


def _assets_dir() -> Path:
    """The folder holding the samples: the installed ``tui_tok.assets`` package, else the clone's ``assets/``.

    A namespace package (``assets/`` has no ``__init__.py``) gives a multiplexed path; asking it for the sample
    file gives a real file path, whose parent is the folder.
    """
    try:
        found = resources.files("tui_tok.assets").joinpath(SAMPLE_NAME)
    except (ModuleNotFoundError, ValueError, TypeError):
        return _SOURCE_TREE_ASSETS
    path = Path(str(found))
    return path.parent if path.is_file() else _SOURCE_TREE_ASSETS


ASSETS_DIR: Path = _assets_dir()
"""The sample files' folder (see the module docstring)."""

DEFAULT_SAMPLE: Path = ASSETS_DIR / SAMPLE_NAME
"""The sample ``tui-tok`` opens when no MODEL is given."""


def bundled_samples() -> list[Path]:
    """Every bundled sample GGUF (one per tokenizer family), the default one first."""
    others = sorted(p for p in ASSETS_DIR.glob("*.gguf") if p.name != SAMPLE_NAME)
    return [DEFAULT_SAMPLE, *others]
