"""The frozen results of ``explain``: an ``Explanation`` of fragments, chunks and steps.

Offsets are bytes of the UTF-8 input. Fragments tile the input (a special token's fragment
includes the whitespace an LSTRIP/RSTRIP token swallowed); chunks tile their raw fragment
(special fragments have none). ``Step`` is one family step; ``kind`` says which fields mean
something (the others keep their defaults):

=========  ======  =================================================================
family     kind    fields
=========  ======  =================================================================
BPE        merge   left, right, rank, at (index of ``left`` among the symbols then)
SPM        merge   left, right, score, at
SPM        bytes   token (the symbol no token is), ids (its byte tokens)
UGM        normalize  start, end (input bytes), text_from, text_to
UGM        piece   token, id, start, end, score, rival, rival_total, total (best sum at its end)
UGM        path    rank (1 = llama.cpp's), tokens, total
WPM        word    token (the normalised word with its ``▁``), start, end
WPM        match   token, id, start, end, rival (the longest prefix tried beyond it)
WPM        unknown token (the word), start, end, at (byte of the ``▁``-word nothing matched at)
RWKV       match   token, id, start, end (``id`` may be the unk id for a byte no token starts)
PLaMo2     piece   token, id, start, end, score; ``bytes``: ids, start, end
TEST       hash    id, start, end
=========  ======  =================================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui_tok.errors import TokenizeError


class ExplainMismatchError(TokenizeError):
    """The explanation's ids differ from ``encode``'s: a bug in tui-tok, never silent."""


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a chunk's model (see the module docstring for which fields each kind sets)."""

    kind: str
    left: str = ""
    right: str = ""
    rank: int = -1
    score: float = 0.0
    at: int = -1
    token: str = ""
    id: int = -1
    start: int = -1
    end: int = -1
    ids: tuple[int, ...] = ()
    tokens: tuple[str, ...] = ()
    total: float = 0.0
    text_from: str = ""
    text_to: str = ""
    rival: str = ""
    rival_total: float | None = None


@dataclass(frozen=True, slots=True)
class Chunk:
    """One pre-tokenizer chunk of a raw fragment: the unit the model worked on."""

    start: int
    end: int
    ids: tuple[int, ...]
    steps: tuple[Step, ...]
    cut: int = -1
    """Index in ``Explanation.rules`` of the rule that cut before this chunk (-1: fragment start)."""
    text: str = ""
    """The chunk as the model saw it (byte-mapped for byte-level BPE, ``▁`` for spaces in SPM ...)."""
    symbols: tuple[str, ...] = ()
    """Initial symbols of a merging model (BPE, SPM), in ``text``'s spelling."""
    final: tuple[str, ...] = ()
    """Symbols after the last merge."""
    shortcut: str = ""
    """Why no merge ran although the chunk has several symbols (BPE ``ignore_merges`` ...)."""
    detail: object = None
    """Family extras (``ugm.UgmDetail``: lattice and normalised text)."""


@dataclass(frozen=True, slots=True)
class Fragment:
    """A special token (``special``; its id in ``ids``) or raw text cut into chunks."""

    start: int
    end: int
    special: bool
    ids: tuple[int, ...]
    chunks: tuple[Chunk, ...] = ()
    stripped: int = 0
    """Bytes of whitespace an LSTRIP/RSTRIP special token swallowed (inside its span)."""


@dataclass(frozen=True, slots=True)
class Explanation:
    """How ``text`` became ``ids`` (``encode(text, add_special=False, parse_special=...)``)."""

    text: bytes
    family: str
    parse_special: bool
    ids: tuple[int, ...]
    fragments: tuple[Fragment, ...]
    rules: tuple[str, ...] = ()
    """The pre-tokenizer's rules (regexes for BPE), indexed by ``Chunk.cut``."""
    notes: tuple[str, ...] = field(default=())
    """Family facts that shaped every chunk (prefix space, byte fallback, normaliser flags ...)."""

    def chunk_at(self, offset: int) -> tuple[Fragment, Chunk | None]:
        """The fragment and chunk holding input byte ``offset`` (the last one at the end)."""
        for frag in self.fragments:
            if frag.start <= offset < frag.end or frag is self.fragments[-1]:
                for chunk in frag.chunks:
                    if chunk.start <= offset < chunk.end:
                        return frag, chunk
                return frag, (frag.chunks[-1] if frag.chunks else None)
        raise IndexError(offset)
