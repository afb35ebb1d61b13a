"""What every view shares: the open file, its tokenizer (once built) and a lock around it.

``Session.lock`` serialises the explorer's calls into the tokenizer and what they reach. The
``Tokenizer``'s public methods may be shared between threads (its encoders build their tables
under their own locks; ``tests/tokenizer/test_threads.py``); the lock protects what that promise
does not cover:

- the encoder internals ``tokenizer.explain`` reaches into (the encoder's private tables and
  caches, called without the encoder's own locks), from the Explain view and the chunk cuts;
- the Tokenize view's engine (``TokenizeEngine``: its line cache, the last exact result an edit
  is spliced from, the cut table), which the UI thread and the view's workers both use;
- the interpreter itself: a cancelled thread worker cannot be stopped, so without the lock a
  stale worker and its successor would run at once and share one GIL.

Who takes it: the tokenizer build (``TuiTokApp.build_tokenizer``); the Tokenize view's worker,
and its keystroke path without waiting (a held lock leaves the key to a worker); the chunk cuts,
Explain (its worker and the "Why not?" box), Stream, Compare and the token export; Chat and
lint only around each tokenizer call (``explore.chat.locked.Locked``), never a whole render.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui_tok.gguf import GGUFFile


@dataclass(eq=False)
class Session:
    """The open GGUF file and the locks the workers share."""

    gguf: GGUFFile
    label: str | None = None
    """The name to show (``ollama:NAME`` for a blob named by a hash); None: the file name."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def path(self) -> Path:
        return Path(self.gguf.path)

    @property
    def name(self) -> str:
        """What the header and messages call the file."""
        return self.label if self.label is not None else self.path.name

    @property
    def metadata(self) -> dict[str, Any]:
        return self.gguf.metadata

    def field_triples(self) -> list[tuple[str, str, Any]]:
        """``(key, type name, value)`` per metadata key, in file order."""
        return [(k, f.type_name, f.value) for k, f in self.gguf.fields.items()]
