"""What explain traces: each family's reference encoder (``<family>/reference.py``), one per vocab.

The references state llama.cpp's algorithms once; explain records their hooks (``on_merge``,
``on_word``, ``on_edge`` ...) instead of replaying the algorithms itself, so the steps it shows
are the steps of the one written algorithm, and ``build.py`` checks the ids against the fast
encoder's. A reference builds its tables (merge ranks, tries) on first use: they are kept here
for the last few vocabularies explained, so the explorer pays for them once per model.

``LivePositions`` turns llama.cpp's symbol indices (stable for a symbol's life) into what the
merge debugger shows: the position of a symbol among the symbols alive at that step.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from tui_tok.tokenizer.core.vocab import Vocab

T = TypeVar("T")
_KEEP = 4
_cache: dict[tuple[int, str], tuple[Vocab, Any]] = {}
_lock = threading.Lock()


def cached(vocab: Vocab, name: str, build: Callable[[], T]) -> T:
    """``build()``'s object for this vocab object, kept for the last few vocabs (keyed by identity:
    a Vocab is not hashable by value)."""
    key = (id(vocab), name)
    hit = _cache.get(key)
    if hit is not None and hit[0] is vocab:
        return hit[1]  # type: ignore[no-any-return]
    value = build()
    with _lock:
        _cache[key] = (vocab, value)
        while len(_cache) > _KEEP * 2:
            del _cache[next(iter(_cache))]
    return value


def reference(vocab: Vocab) -> Any:
    """The family's ``ReferenceEncoder`` for ``vocab`` (tables built once and kept)."""

    def build() -> Any:
        module = importlib.import_module(f"tui_tok.tokenizer.{vocab.type.value}.reference")
        return module.ReferenceEncoder(vocab)

    return cached(vocab, "reference", build)


class LivePositions:
    """Position of a symbol among the live ones, as symbols die: a Fenwick tree of dead indices
    that doubles as indices grow (a new root covers the old tree), so the number of symbols need
    not be known and a short word costs a short tree."""

    def __init__(self) -> None:
        self._dead: list[int] = [0, 0]  # 1-based; covers indices 0 .. size - 1
        self._size = 1

    def before(self, index: int) -> int:
        """Live symbols with a smaller index than ``index``."""
        dead = 0
        j = min(index, self._size)
        tree = self._dead
        while j > 0:
            dead += tree[j]
            j -= j & -j
        return index - dead

    def kill(self, index: int) -> None:
        """Mark symbol ``index`` merged away."""
        tree = self._dead
        while index >= self._size:  # double: the new root holds the old tree's total
            size = self._size
            tree.extend([0] * size)
            tree[2 * size] = tree[size]
            self._size = 2 * size
        j = index + 1
        while j <= self._size:
            tree[j] += 1
            j += j & -j

    def merge(self, left: int, right: int) -> int:
        """Record ``right`` merged into ``left``; returns ``left``'s position just before."""
        at = self.before(left)
        self.kill(right)
        return at
