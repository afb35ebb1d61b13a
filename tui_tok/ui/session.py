"""What every view shares: the open file, its tokenizer (once built) and a lock around it.

The tokenizer's caches are not thread-safe while they warm up, and a cancelled thread
worker cannot be stopped, so every background call into the tokenizer holds ``lock``.
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
