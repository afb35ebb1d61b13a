"""``TokenizeEngine``: what the tokenize view keeps per tokenizer to turn a request into a layout.

Plain Python (no widgets): the kind code of each id, and the line cache of
``explore.incremental`` once it is known whether this vocabulary allows it. Callers hold the
session lock around every method that tokenizes (``layout``, ``pieces``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload

import numpy as np

from tui_tok.explore.display import NULL_PIECE, display_bytes
from tui_tok.explore.incremental import ChunkCache, TokenArrays, chunkable, probes_agree, tokenize_chunked
from tui_tok.explore.layout import KIND_NAMES, TokenLayout, kind_codes, layout_arrays, layout_tokens
from tui_tok.explore.token_info import token_rows
from tui_tok.explore.vocab_index import VocabIndex, token_facts
from tui_tok.tokenizer.arrays.sorted_unique import sorted_unique
from tui_tok.tokenizer.tokenizer import Tokenizer
from tui_tok.tokenizer.core.types import TokenAttr, VocabType


@dataclass(frozen=True, slots=True)
class TokenizeRequest:
    """One tokenization the view asks for: the exact text and the toggles."""

    generation: int
    text: str
    add_special: bool
    parse_special: bool
    show_pieces: bool
    provisional: bool = False
    """Line by line from the cache (shown at once, replaced by the exact result later)."""


class TokenizeEngine:
    """Per-tokenizer caches of the tokenize view."""

    def __init__(self) -> None:
        self._kinds: tuple[Tokenizer, np.ndarray] | None = None
        self._chunks: tuple[Tokenizer, ChunkCache | None] | None = None

    def chunk_cache(self, tok: Tokenizer | None) -> ChunkCache | None:
        """The line cache, once a worker has checked that lines are independent (else None)."""
        if tok is None or self._chunks is None or self._chunks[0] is not tok:
            return None
        return self._chunks[1]

    def check_chunking(self, tok: Tokenizer) -> None:
        """In a worker, holding the lock: build the line cache if this vocabulary allows it."""
        if self._chunks is not None and self._chunks[0] is tok:
            return
        v = tok.vocab
        special = v.attrs & int(TokenAttr.CONTROL | TokenAttr.USER_DEFINED | TokenAttr.UNKNOWN)
        cache: ChunkCache | None = None
        if chunkable(
            is_bpe=v.type is VocabType.BPE,
            special_texts=[v.tokens[i] for i in np.flatnonzero(special)],
            any_lstrip=bool(np.any(v.attrs & int(TokenAttr.LSTRIP))),
        ):
            cache = ChunkCache(lambda c, ps: tok.tokenize(c, add_special=False, parse_special=ps), self.kinds_by_id(tok))
            if not probes_agree(lambda t, ps: tok.encode(t, add_special=False, parse_special=ps), cache):
                cache = None
        self._chunks = (tok, cache)

    @staticmethod
    def pieces(tok: Tokenizer, layout: TokenLayout) -> dict[int, str]:
        return {i: display_bytes(tok.token_to_piece(i)) if i >= 0 else NULL_PIECE for i in sorted_unique(layout.ids).tolist()}

    @overload
    def layout(self, tok: Tokenizer, request: TokenizeRequest, *, chunks: None = None) -> TokenLayout: ...
    @overload
    def layout(self, tok: Tokenizer, request: TokenizeRequest, *, chunks: list[str] | None) -> TokenLayout | None: ...
    def layout(self, tok: Tokenizer, request: TokenizeRequest, *, chunks: list[str] | None = None) -> TokenLayout | None:
        """Tokenize (line by line from the cache when provisional) and lay out; holds the lock.

        With ``chunks`` (the UI thread's fast path) only the line-by-line result is allowed:
        None when the whole text would have to be tokenized.
        """
        kinds = self.kinds_by_id(tok)
        self.check_chunking(tok)
        cache = self.chunk_cache(tok) if request.provisional else None
        if cache is not None:
            added = TokenArrays.of(tok.tokenize("", add_special=request.add_special), kinds)
            n_bos = int(request.add_special and tok.vocab.add_bos)
            if len(added.ids) == n_bos + int(request.add_special and tok.vocab.add_eos):
                cut = lambda a, s: TokenArrays(a.ids[s], a.starts[s], a.ends[s], a.kinds[s])  # noqa: E731
                arr = tokenize_chunked(
                    request.text, cache, parse_special=request.parse_special,
                    before=cut(added, slice(0, n_bos)), after=cut(added, slice(n_bos, None)), chunks=chunks,
                )
                return layout_arrays(request.text, ids=arr.ids, starts=arr.starts, ends=arr.ends, kinds=arr.kinds)
        if chunks is not None:
            return None
        tokens = tok.tokenize(request.text, add_special=request.add_special, parse_special=request.parse_special)
        return layout_tokens(request.text, tokens, kinds_by_id=kinds)

    def kinds_by_id(self, tok: Tokenizer) -> np.ndarray:
        # once per tokenizer: a kind code per id, so a layout never reads Token.kind
        if self._kinds is None or self._kinds[0] is not tok:
            self._kinds = (tok, kind_codes(tok.token_kinds()))  # the tokenizer's own: its unknown token, id -1
        return self._kinds[1]



def details_rows(layout: TokenLayout, index: int, tok: Tokenizer | None, vocab_index: VocabIndex | None) -> list[tuple[str, str]]:
    """The Token panel's rows for token ``index`` of ``layout`` (type, score and rank once the index is built)."""
    token_id = int(layout.ids[index])
    raw: str | None = None
    piece: bytes | None = None
    if tok is not None and token_id >= 0:  # -1: llama.cpp's null id, no vocabulary entry
        raw, piece = tok.vocab.tokens[token_id], tok.token_to_piece(token_id)
    start, end = int(layout.starts[index]), int(layout.ends[index])
    return token_rows(
        token_id=token_id,
        raw=raw,
        piece=piece,
        span=layout.text[start:end],
        kind=KIND_NAMES[int(layout.kinds[index])],
        facts=token_facts(vocab_index, token_id) if vocab_index is not None and token_id >= 0 else None,
        position=(index, layout.n_tokens),
    )
