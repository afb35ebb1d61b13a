"""A tokenizer whose method calls each hold a lock: renders run outside the lock, tokenizing inside.

The explorer shares one tokenizer between its views' workers (``ui/session.py``'s lock); a chat render can
take up to its deadline (``chat/bounds.py``), and must never hold the tokenizer for that long. Handing
``chat_prompt`` this proxy instead of the tokenizer takes the lock around each tokenizer call only.
"""

from __future__ import annotations

from typing import Any


class Locked:
    """A tokenizer (or its partitioner) whose method calls each hold ``lock``; data passes through."""

    def __init__(self, target: Any, lock: Any) -> None:
        self._target, self._lock = target, lock

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if name == "partitioner":
            return Locked(value, self._lock)
        if not callable(value):
            return value

        def locked(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return value(*args, **kwargs)

        return locked
