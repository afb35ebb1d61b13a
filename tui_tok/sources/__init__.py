"""Open any model a user has or can name: local paths, URLs read by range, hub shorthands, and the
models other tools keep (ollama, the Hugging Face cache, LM Studio, llama.cpp's cache).

``read_model(spec)`` is ``read_gguf`` for every kind of argument (see resolve.py for the forms);
``find_models()`` lists the stores' GGUF files (stores.py). Sits above ``tui_tok.gguf`` (it hands
the reader an ``HttpSource``) and below the command line and the UI.

>>> read_model("hf:Qwen/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf").get("tokenizer.ggml.pre")   # doctest: +SKIP
'qwen2'
"""

from __future__ import annotations

import os
from collections.abc import Collection

from tui_tok.gguf import GGUFFile, read_gguf
from tui_tok.gguf.source import ByteSource, Progress, open_local
from tui_tok.sources.resolve import Resolved, resolve, split_of
from tui_tok.sources.stores import StoredModel, find_models, ollama_blob  # light: json is imported anyway

__all__ = ["Resolved", "StoredModel", "display_name", "find_models", "ollama_blob", "open_source", "read_model", "resolve",
           "split_info"]  # fmt: skip


def read_model(
    spec: str | os.PathLike[str],
    *,
    texts: Collection[str] = (),
    progress: Progress | None = None,
    timeout: float = 30.0,
) -> GGUFFile:
    """Read the GGUF metadata ``spec`` names (a path, URL, ``hf:``, ``OWNER/REPO:QUANT``, ``ollama:``).

    Remote files cost about their header (HTTP range requests); ``HF_TOKEN`` is sent only to
    ``HF_ENDPOINT``'s scheme, host and port (default https://huggingface.co). ``progress(bytes, total)`` is called while a remote header arrives.
    """
    src = open_source(spec, progress=progress, timeout=timeout)
    return read_gguf(src, texts=texts, url=getattr(src, "url", None))


def open_source(spec: str | os.PathLike[str], *, progress: Progress | None = None, timeout: float = 30.0) -> ByteSource:
    """The ``ByteSource`` of what ``spec`` names (the caller closes it)."""
    if not isinstance(spec, str):
        return open_local(spec)
    where = resolve(spec)
    if where.url is None:
        assert where.path is not None
        return open_local(where.path)
    from tui_tok.sources.http import HttpSource, deadline_from_env, origin
    from tui_tok.sources.resolve import hf_endpoint

    return HttpSource(
        where.url,
        token=os.environ.get("HF_TOKEN") or None,
        token_origin=origin(hf_endpoint()),
        timeout=timeout,
        deadline=deadline_from_env(),
        progress=progress,
    )


def display_name(spec: str | os.PathLike[str], gguf: GGUFFile) -> str:
    """The name to show for a model opened from ``spec``: ``ollama:NAME`` as typed (its file is a
    blob named by a hash), else the file name (a URL's last segment)."""
    if isinstance(spec, str) and spec.startswith("ollama:"):
        return spec
    return gguf.path.name


def split_info(gguf: GGUFFile) -> tuple[int, int] | None:
    """(shard number from 1, shard count) of a split model, from ``split.no``/``split.count`` or
    the file name; None when the model is in one file."""
    count = gguf.get("split.count")
    no = gguf.get("split.no")
    if isinstance(count, int) and not isinstance(count, bool) and count > 1 and isinstance(no, int):
        return int(no) + 1, int(count)
    return split_of(gguf.location)
