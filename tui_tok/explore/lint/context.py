"""``LintContext``: what the checks read, built once per file: metadata, token texts and types, the
embedding shapes, and — only when a check asks and only if it can be built — the llama.cpp-exact
vocabulary and tokenizer.

Lint must work on files the tokenizer refuses (that is when it is needed most), so every field
here tolerates wrong types and missing keys, and ``vocab``/``tokenizer`` are None (with the reason
in ``load_error``) instead of raising.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from tui_tok.explore.lint.tables import BPE_MODELS, NORMAL

if TYPE_CHECKING:
    from tui_tok.tokenizer import Tokenizer, Vocab

UNSET: Any = object()


@dataclass(eq=False)
class LintContext:
    """One file's metadata and tensor shapes, with lazily derived tables."""

    metadata: Mapping[str, Any]
    tensor_shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    """Tensor name -> shape (ggml order) from the tensor index; empty for vocab-only files."""
    given_tokenizer: Any = UNSET
    """A tokenizer the caller already built (the explorer has one), None for "do not build one",
    or ``UNSET``: build it on first use."""
    source: Any = None
    """The ``GGUFFile`` the metadata came from, when there is one (``tui_tok.loader`` builds its
    tokenizer faster: the reader already checked the string arrays)."""
    lock: Any = field(default_factory=nullcontext)
    """Held around each call into a tokenizer the caller shares with other threads (the explorer's
    session lock): only while it runs, not for the whole lint."""
    load_error: str | None = None
    """Why the vocab or tokenizer could not be built (set when a check asked for it)."""

    # --- plain metadata ---------------------------------------------------------------------------

    @cached_property
    def model(self) -> str | None:
        value = self.metadata.get("tokenizer.ggml.model")
        return value if isinstance(value, str) else None

    @cached_property
    def pre(self) -> str | None:
        value = self.metadata.get("tokenizer.ggml.pre")
        return value if isinstance(value, str) else None

    model_key = "tokenizer.ggml.model"

    @property
    def is_bpe(self) -> bool:
        return self.model in BPE_MODELS

    @cached_property
    def tokens(self) -> list[str]:
        """Token texts (empty when the key is missing or not a string array)."""
        value = self.metadata.get("tokenizer.ggml.tokens")
        if isinstance(value, list) and all(type(t) is str for t in value[:16]):
            return [t if type(t) is str else "" for t in value]
        return []

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)

    @cached_property
    def types(self) -> np.ndarray:
        """int64 token type per token; NORMAL where the key is missing, short or not numeric."""
        n = self.n_tokens
        value = self.metadata.get("tokenizer.ggml.token_type")
        try:
            arr = np.asarray(value)
            if arr.ndim == 1 and arr.dtype.kind in "iu" and len(arr) >= n:
                return arr[:n].astype(np.int64)
        except (TypeError, ValueError):
            pass
        return np.full(n, NORMAL, dtype=np.int64)

    @cached_property
    def token_to_id(self) -> dict[str, int]:
        """Text -> id as llama.cpp's map ends up (a repeated text keeps its last id)."""
        return {t: i for i, t in enumerate(self.tokens)}

    @cached_property
    def merges(self) -> list[str] | None:
        value = self.metadata.get("tokenizer.ggml.merges")
        return value if isinstance(value, list) else None

    @cached_property
    def merges_text(self) -> str | None:
        """The merges joined with NUL, when the reader kept that text (``read_gguf(texts=...)``)."""
        field = getattr(self.source, "fields", {}).get("tokenizer.ggml.merges")
        text = getattr(field, "text", None)
        return text.strip("\0") if isinstance(text, str) else None

    def special_id(self, key: str) -> int | None:
        """An integer id key's value (None when absent or not an integer)."""
        value = self.metadata.get(key)
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return int(value)
        return None

    def type_of(self, token_id: int) -> int:
        return int(self.types[token_id])

    # --- what needs the tokenizer -----------------------------------------------------------------

    @cached_property
    def vocab(self) -> Vocab | None:
        """The vocabulary as llama.cpp loads it, or None (reason in ``load_error``)."""
        tok = self.tokenizer
        if tok is not None:
            return tok.vocab
        if self.given_tokenizer is None:  # the caller said not to build anything
            from tui_tok.tokenizer import vocab_from_metadata

            return self._guarded(lambda: vocab_from_metadata(self.metadata))
        return None

    @cached_property
    def tokenizer(self) -> Tokenizer | None:
        """The llama.cpp-exact tokenizer, or None when it cannot be built (or must not be)."""
        if self.given_tokenizer is not UNSET:
            return self.given_tokenizer
        if self.source is not None:
            from tui_tok.loader import load_tokenizer

            return self._guarded(lambda: load_tokenizer(self.source))
        from tui_tok.tokenizer import Tokenizer, vocab_from_metadata

        return self._guarded(lambda: Tokenizer(vocab_from_metadata(self.metadata)))

    def encode(self, text: str, *, parse_special: bool) -> list[int] | None:
        """``tokenizer.encode(text, add_special=False)`` under ``lock``; None without a tokenizer or
        when the engine fails (a check then falls back to look-ups)."""
        tok = self.tokenizer
        if tok is None:
            return None
        try:
            with self.lock:
                return tok.encode(text, add_special=False, parse_special=parse_special)
        except Exception:
            return None

    def decode(self, token_id: int) -> str | None:
        tok = self.tokenizer
        if tok is None:
            return None
        try:
            with self.lock:
                return tok.decode([token_id])
        except Exception:
            return None

    def _guarded(self, build: Any) -> Any:
        from tui_tok.errors import TuiTokError

        try:
            return build()
        except TuiTokError as exc:
            self.load_error = str(exc)
        except Exception as exc:  # a bug in the engine must not stop the lint
            self.load_error = f"internal error: {type(exc).__name__}: {exc}"
        return None


def shapes_of(tensors: Sequence[Any]) -> dict[str, tuple[int, ...]]:
    """``{name: shape}`` of ``TensorInfo``-like objects (anything with ``name`` and ``shape``)."""
    return {t.name: tuple(t.shape) for t in tensors}
