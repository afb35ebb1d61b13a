"""Keys and pastes that are not valid UTF-8 reach the app instead of killing it.

Textual's Linux driver decodes terminal input with a strict UTF-8 decoder in its input
thread: a lone 0x85 byte (pasted from a Latin-1 file, say) raised ``UnicodeDecodeError``
there and the app died with a traceback. ``accept_invalid_utf8`` makes that decoder use
``surrogateescape``: such a byte arrives as U+DC85, which the editor keeps, the layout counts
as one byte and the tokenizer encodes as the raw byte (``Tokenizer`` reads U+DC80-DCFF that
way), exactly as ``encode --file`` tokenizes it.

Patches the name the driver module looks the decoder up by (it has no option for this;
``textual_compat.patch_linux_driver``); other drivers (Windows, headless tests) are untouched.
"""

from __future__ import annotations

import codecs
import functools
from collections.abc import Callable
from typing import Any

from tui_tok.ui.textual_compat import patch_linux_driver


def lenient_decoder(encoding: str) -> Callable[..., Any]:
    """``codecs.getincrementaldecoder(encoding)`` whose instances default to ``surrogateescape``.

    >>> lenient_decoder("utf-8")().decode(b"a\\x85b", final=True)
    'a\\udc85b'
    """
    return functools.partial(codecs.getincrementaldecoder(encoding), errors="surrogateescape")


def accept_invalid_utf8() -> bool:
    """Make the Linux driver's input thread decode with ``surrogateescape`` (idempotent); False
    when Textual is left plain (``textual_compat``)."""
    return patch_linux_driver("getincrementaldecoder", lenient_decoder)
