"""Open a GGUF file (or an already-read ``GGUFFile``) as a ready-to-use ``Tokenizer``.

The one place that joins the GGUF reader and the tokenizer engine: the engine takes plain
metadata, so it never imports the reader (import-linter enforces that).

>>> tok = load_tokenizer("assets/ggml-vocab-phi-3.gguf")      # doctest: +SKIP
>>> tok.encode("Hello world")                                  # doctest: +SKIP
[1, 15043, 3186]
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from tui_tok.errors import UnsupportedTokenizerError, VocabError

if TYPE_CHECKING:
    from tui_tok.gguf import GGUFFile
    from tui_tok.tokenizer.core.paths import Paths, PathsMode
    from tui_tok.tokenizer.tokenizer import Tokenizer


def load_tokenizer(source: str | os.PathLike[str] | GGUFFile, *, paths: PathsMode | Paths | None = None) -> Tokenizer:
    """Read ``source`` (a path, a URL or shorthand that ``tui_tok.sources`` resolves, or a
    ``GGUFFile``) and build its tokenizer, with the code paths ``paths`` (``Tokenizer``).

    Raises ``GGUFFormatError``/``GGUFOpenError`` for unreadable files, ``VocabError`` (with the
    path) when llama.cpp would refuse the vocab, ``UnsupportedTokenizerError`` (with the path) for
    an unknown ``tokenizer.ggml.model``/``pre``.
    """
    from tui_tok.gguf import GGUFFile, GGUFValueType
    from tui_tok.sources import read_model
    from tui_tok.tokenizer.core.vocab import vocab_from_metadata
    from tui_tok.tokenizer.tokenizer import Tokenizer

    # the merges' whole text comes free with decoding them (the merge-rank search wants it)
    gguf = source if isinstance(source, GGUFFile) else read_model(source, texts=("tokenizer.ggml.merges",))
    # the reader returns every string array as a list of str: the vocab need not check each entry
    str_lists = {k for k, f in gguf.fields.items()
                 if f.item_type is GGUFValueType.STRING and type(f.value) is list}  # fmt: skip
    texts = {k: f.text for k, f in gguf.fields.items() if f.text is not None}
    try:
        return Tokenizer(vocab_from_metadata(gguf.metadata, str_lists=str_lists, texts=texts), paths=paths)
    except VocabError as exc:
        path = getattr(gguf, "location", None)
        if path is not None and str(path) not in str(exc):
            raise VocabError(f"{path}: {exc}") from exc
        raise
    except UnsupportedTokenizerError as exc:  # name the file, as every other load error does
        path = getattr(gguf, "location", None)
        if path is not None and not exc.where:
            raise UnsupportedTokenizerError(exc.key, exc.value, exc.supported, where=str(path)) from exc
        raise
