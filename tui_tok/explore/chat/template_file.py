"""Chat templates read from files: ``tui-tok chat --template-file`` and the Chat view's "load template file".

A template file is untrusted like the file's own template, and the path is typed by a person: the
bytes are capped before they are read (``MAX_TEMPLATE_BYTES``, the size of any string a render may
build, ``bounds_checks.Limits.max_size``), a FIFO or device is refused unread when only regular files
are wanted (the explorer: a read that blocks would hold it), and a file that is not UTF-8 text, or
holds a NUL byte (a GGUF, an image), is refused with the byte offset. Every failure is one
``ChatInputError`` line naming the file. Rendering it is ``prompt.chat_prompt``'s business, bounded there.
"""

from __future__ import annotations

import os
from pathlib import Path

from tui_tok.explore.chat.bounds_checks import DEFAULT_LIMITS
from tui_tok.explore.chat.variables import ChatInputError
from tui_tok.json_input import JSONInputError, read_file

MAX_TEMPLATE_BYTES = DEFAULT_LIMITS.max_size
"""1 MB: the largest real templates are ~20 KB (gemma-4's is 12 KB)."""


def read_template_file(path: str | os.PathLike[str], *, regular_only: bool = True) -> str:
    """The template text in ``path``; ``ChatInputError`` ("PATH: cannot read the template: ...").

    ``regular_only=False`` also reads a pipe the user named (``--template-file <(cmd)``) to its end,
    still at most ``MAX_TEMPLATE_BYTES``.
    """
    where = f"{path}: cannot read the template"
    try:
        data = read_file(path, max_bytes=MAX_TEMPLATE_BYTES, regular_only=regular_only)
    except JSONInputError as exc:
        raise ChatInputError(f"{where}: {exc}") from None
    nul = data.find(b"\0")
    if nul >= 0:
        raise ChatInputError(f"{where}: a NUL byte at offset {nul:,}: not a text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ChatInputError(f"{where}: not UTF-8 text (byte {exc.start:,})") from None


def entry_name(path: str | os.PathLike[str], taken: set[str]) -> str:
    """The name a loaded file's template goes by: its file name, ``NAME (2)``... when another template
    (the file's own or another file's) has it.

    >>> entry_name("/tmp/chatml.jinja", {"default"})
    'chatml.jinja'
    >>> entry_name("x/default", {"default", "default (2)"})
    'default (3)'
    """
    name = Path(path).name or str(path)
    if name not in taken:
        return name
    n = 2
    while f"{name} ({n})" in taken:
        n += 1
    return f"{name} ({n})"
