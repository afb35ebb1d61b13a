"""One error hierarchy for tui-tok.

Every error a user can cause (a bad file, an unsupported tokenizer, impossible input)
is a ``TuiTokError``; the command line turns these into one line on stderr and a
non-zero exit code. Anything else escaping is a bug in tui-tok.
"""

from __future__ import annotations

from pathlib import Path


class TuiTokError(Exception):
    """Base class of every error tui-tok raises on purpose."""

    exit_code: int = 1


class GGUFFormatError(TuiTokError):
    """A GGUF file is malformed: says which file, where, and which key was being read.

    >>> str(GGUFFormatError("bad magic b'GGUX'", path="m.gguf", offset=0))
    "m.gguf: offset 0: bad magic b'GGUX'"
    """

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        offset: int | None = None,
        key: str | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.offset = offset
        self.key = key
        super().__init__(self.__str__())

    def __str__(self) -> str:
        parts: list[str] = []
        if self.path is not None:
            parts.append(self.path)
        if self.offset is not None:
            parts.append(f"offset {self.offset}")
        if self.key is not None:
            parts.append(f"key {self.key!r}")
        parts.append(self.message)
        return ": ".join(parts)


class GGUFOpenError(TuiTokError):
    """A GGUF file cannot be opened (missing, a directory, no permission): the message names it.

    Raised by ``tui_tok.gguf.read_gguf`` (and re-exported there); a file that opens but is
    malformed is a ``GGUFFormatError`` instead.
    """

    exit_code = 2


class UnsupportedTokenizerError(TuiTokError):
    """``tokenizer.ggml.model`` or ``tokenizer.ggml.pre`` names something we cannot run.

    >>> str(UnsupportedTokenizerError("tokenizer.ggml.pre", "zzz", ["gpt-2", "qwen2"]))
    "unsupported tokenizer.ggml.pre 'zzz'; supported: gpt-2, qwen2"
    """

    exit_code = 2

    def __init__(self, key: str, value: str, supported: list[str] | tuple[str, ...], *, where: str = "") -> None:
        self.key = key
        self.value = value
        self.supported = tuple(supported)
        self.where = where
        """The file (or URL) it came from, when known: the message starts with it."""
        head = f"{where}: " if where else ""
        super().__init__(f"{head}unsupported {key} {value!r}; supported: {', '.join(self.supported)}")


class VocabError(TuiTokError):
    """The tokenizer metadata is present but unusable (llama.cpp would refuse to load it)."""

    exit_code = 2


class TokenizeError(TuiTokError):
    """Input that llama.cpp itself rejects (e.g. a code point above U+10FFFF in BPE)."""


class ComparisonError(TuiTokError):
    """``tui-tok diff`` cannot compare (bad arguments, a tokenizer.json it cannot read, the optional
    ``tokenizers`` package missing): exit 2, since 1 means "different" there, as in diff(1)."""

    exit_code = 2


class OutputError(TuiTokError):
    """An output path tui-tok will not or cannot write (a device, a FIFO, a symlink, an existing
    file without ``--force``, a missing or read-only directory): the message names it."""

    exit_code = 2
