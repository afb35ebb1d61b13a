"""tui-tok: look inside any GGUF tokenizer, with llama.cpp's exact token ids.

>>> import tui_tok
>>> gguf = tui_tok.read_gguf("assets/qwen3-vocab.gguf")      # doctest: +SKIP
>>> tok = tui_tok.load_tokenizer(gguf)                          # doctest: +SKIP
>>> tok.encode("Hello world", add_special=False)                # doctest: +SKIP
[9707, 1879]

Imports are lazy so ``tui-tok info`` starts fast.

Importing this package before numpy sets ``OPENBLAS_NUM_THREADS=1`` (unless a thread count is
already set): numpy's bundled OpenBLAS otherwise starts a worker thread per core at
``import numpy``, a fair share of the time ``tui-tok info`` takes on a busy 2-core machine, and
tui-tok never calls BLAS. A program that imports tui_tok first and then wants multi-threaded numpy linear
algebra should set the variable itself (or import numpy first).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

if "numpy" not in sys.modules and not any(
    v in os.environ for v in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"

__version__ = "0.1.0"

__all__ = ["read_gguf", "load_tokenizer", "__version__"]

if TYPE_CHECKING:
    from tui_tok.gguf import read_gguf
    from tui_tok.loader import load_tokenizer


def __getattr__(name: str) -> Any:
    if name == "read_gguf":
        from tui_tok.gguf import read_gguf

        return read_gguf
    if name == "load_tokenizer":
        from tui_tok.loader import load_tokenizer

        return load_tokenizer
    raise AttributeError(f"module 'tui_tok' has no attribute {name!r}")
