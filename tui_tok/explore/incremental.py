"""Provisional re-tokenization while typing: re-encode only the lines an edit touched.

The text is cut after a newline that is followed by a non-space character; each part is
tokenized on its own and cached, so an edit re-encodes one part. For byte-level BPE
pre-tokenizers such a point is a word boundary in every regex we know, but that is not
proven for all of them (and SPM, UGM, WPM merge across lines), so the result is only
*provisional*: the UI shows it at once and replaces it with a full ``tokenize`` of the
whole text when typing pauses. ``chunkable`` says when the shortcut may be tried at all.
``EditPlanner`` is the exact path, for every family: an edit of the last exact text is
re-encoded only between proven cuts around it (``explore.edit``, ``explore.cut_edit``).

>>> split_chunks("a\\nb\\n\\n  c\\nd")
['a\\n', 'b\\n\\n  c\\n', 'd']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from tui_tok.errors import TuiTokError
from tui_tok.explore.cut_edit import plan_cut_edit, table_for
from tui_tok.explore.edit import Splice, edit_margin, plan_edit
from tui_tok.tokenizer.core.tokens import token_columns
from tui_tok.tokenizer.core.types import PieceArrays, Token
from tui_tok.tokenizer.cuts import CutTable
from tui_tok.tokenizer.tokenizer import Tokenizer

_CUT = re.compile(r"\n(?=\S)")

MAX_CACHED = 20_000
"""Chunks kept (oldest dropped first)."""


def split_chunks(text: str) -> list[str]:
    """Cut ``text`` after every newline followed by a non-whitespace character."""
    # matching the newlines, not splitting on a look-behind (tried at every character): faster
    ends = [m.end() for m in _CUT.finditer(text)]
    return [text[a:b] for a, b in zip([0, *ends], [*ends, len(text)])]


@dataclass(frozen=True, slots=True, eq=False)
class TokenArrays:
    """A tokenization as columns: id, byte start, byte end, kind code."""

    ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    kinds: np.ndarray

    @classmethod
    def columns(cls, columns: PieceArrays, kinds_by_id: np.ndarray) -> TokenArrays:
        """From ``Tokenizer.tokenize_arrays``'s columns."""
        ids, starts, ends = columns
        return cls(
            ids=ids, starts=starts, ends=ends, kinds=kinds_by_id[ids] if len(ids) else np.zeros(0, dtype=np.uint8)
        )

    @classmethod
    def of(cls, tokens: Sequence[Token], kinds_by_id: np.ndarray) -> TokenArrays:
        """From ``Token`` values; a ``Tokens`` (what ``Tokenizer.tokenize`` returns) gives its columns."""
        return cls.columns(token_columns(tokens), kinds_by_id)


class ChunkCache:
    """Tokens of each chunk (spans relative to the chunk), per ``parse_special`` setting."""

    def __init__(self, encode: Callable[[str, bool], Sequence[Token] | PieceArrays], kinds_by_id: np.ndarray) -> None:
        """``encode(chunk, parse_special)`` gives ``Tokenizer.tokenize``'s tokens or ``tokenize_arrays``'s columns."""
        self._encode = encode
        self._kinds = kinds_by_id
        self._cache: dict[tuple[str, bool], tuple[TokenArrays, int]] = {}
        """(chunk, parse_special) -> its tokens and its UTF-8 length."""

    def get(self, chunk: str, parse_special: bool) -> TokenArrays:
        return self._entry(chunk, parse_special)[0]

    def _entry(self, chunk: str, parse_special: bool) -> tuple[TokenArrays, int]:
        key = (chunk, parse_special)
        hit = self._cache.get(key)
        if hit is None:
            got = self._encode(chunk, parse_special)
            arrays = (
                TokenArrays.columns(got, self._kinds)  # type: ignore[arg-type]
                if isinstance(got, tuple) and len(got) == 3 and isinstance(got[0], np.ndarray)
                else TokenArrays.of(got, self._kinds)  # type: ignore[arg-type]
            )
            hit = (arrays, len(chunk.encode("utf-8", "surrogatepass")))
            if len(self._cache) >= MAX_CACHED:
                self._cache.pop(next(iter(self._cache)))
            self._cache[key] = hit
        return hit

    def entries(self, chunks: Sequence[str], parse_special: bool) -> list[tuple[TokenArrays, int]]:
        """``(tokens, UTF-8 length)`` of each chunk, encoding the ones not cached yet."""
        get = self._cache.get
        found = [get((c, parse_special)) for c in chunks]
        return [hit if hit is not None else self._entry(c, parse_special) for c, hit in zip(chunks, found)]

    def missing_chars(self, chunks: Sequence[str], parse_special: bool) -> int:
        """Characters of ``chunks`` not cached yet: what ``tokenize_chunked`` would encode."""
        cache = self._cache
        return sum(len(c) for c in chunks if (c, parse_special) not in cache)


def tokenize_chunked(
    text: str,
    cache: ChunkCache,
    *,
    parse_special: bool,
    before: TokenArrays,
    after: TokenArrays,
    chunks: Sequence[str] | None = None,
) -> TokenArrays:
    """Concatenate cached chunk tokenizations, shifted to their place in ``text``.

    ``before``/``after`` are the tokens added around the text (BOS, EOS), with empty spans.
    ``chunks`` is ``split_chunks(text)`` when the caller already has it. The shift is one
    ``np.repeat`` over all tokens, not an array operation per chunk (a 100 KB text has ~700).
    """
    if chunks is None:
        chunks = split_chunks(text)
    entries = cache.entries(chunks, parse_special)
    parts = [before, *(tokens for tokens, _ in entries), after]
    sizes = [0, 0, *(size for _, size in entries)]  # before, first chunk; then each chunk shifts the next part
    # byte offset of each part: 0 for `before`, the text's length for `after`
    offsets = np.cumsum(np.array(sizes, dtype=np.int64))
    counts = np.fromiter((len(p.ids) for p in parts), dtype=np.int64, count=len(parts))
    shift = np.repeat(offsets, counts)
    return TokenArrays(
        ids=np.concatenate([p.ids for p in parts]),
        starts=np.concatenate([p.starts for p in parts]) + shift,
        ends=np.concatenate([p.ends for p in parts]) + shift,
        kinds=np.concatenate([p.kinds for p in parts]).astype(np.uint8),
    )


PROBES: tuple[str, ...] = (
    "a\r\nb",
    "x  \ny",
    "trailing  \nmultiple   spaces\n\ttab\tsep\t\nz",
    "\r\n\na\r\nb\nHello world\n Hello world\nHello World",
    'line1\nline2\ttab\nfn main() { println!("hello"); }\nThe capital',
    "foo.\nbar!!\n\n\nbaz 12\n345",
    "日本\n語 🙂\n\u00a0x\n\u3000y",
    "a \n b\n c\n\n  d",
)
"""Texts where a line cut would show a pre-tokenizer's dependence on what follows a newline."""


def probes_agree(full: Callable[[str, bool], list[int]], cache: ChunkCache) -> bool:
    """Does line-by-line tokenization give the whole-text ids on every probe, both ways?

    GPT-2-style ``\\s+(?!\\S)`` pre-tokenizers fail here (the end of a line looks like the end
    of the text to the lookahead); the llama-3 / qwen2 family passes.
    """
    empty = TokenArrays(
        ids=np.zeros(0, dtype=np.int64),
        starts=np.zeros(0, dtype=np.int64),
        ends=np.zeros(0, dtype=np.int64),
        kinds=np.zeros(0, dtype=np.uint8),
    )
    for parse_special in (False, True):
        for text in PROBES:
            got = tokenize_chunked(text, cache, parse_special=parse_special, before=empty, after=empty)
            if got.ids.tolist() != full(text, parse_special):
                return False
    return True


def chunkable(*, is_bpe: bool, special_texts: Sequence[str], any_lstrip: bool) -> bool:
    """May ``tokenize_chunked`` be tried for this vocabulary?

    Only BPE (the others merge across lines), only when no special or user-defined token
    holds a newline (a cut could split it) and none strips whitespace to its left (it would
    reach across a cut).
    """
    return is_bpe and not any_lstrip and not any("\n" in t for t in special_texts)


class EditPlanner:
    """Exact splices of an edit for every family: ``explore.edit`` for BPE with a one-pass
    pre-tokenizer, ``explore.cut_edit`` (proven cuts) for SPM, UGM, WPM and RWKV.

    The cut table is built once per vocab (a pass over every token): ``prepare`` builds it
    in a worker; ``plan`` only uses a table already built (else None: a full tokenize).
    """

    def __init__(self) -> None:
        self._tables: tuple[Tokenizer, CutTable | None, bool] | None = None
        """The tokenizer, its cut table, whether either kind of splice applies."""

    def prepare(self, tok: Tokenizer) -> None:
        """Build the cut table of ``tok`` (in a worker, holding the session lock)."""
        if self._tables is None or self._tables[0] is not tok:
            try:
                table = table_for(tok)
            except TuiTokError:  # a table the vocab's own encoder would refuse too: no cuts
                table = None
            self._tables = (tok, table, table is not None or edit_margin(tok) is not None)

    def table(self, tok: Tokenizer) -> CutTable | None:
        """The cut table of ``tok`` once ``prepare`` built it (None: not built, or no cuts)."""
        return self._tables[1] if self._tables is not None and self._tables[0] is tok else None

    def ready(self, tok: Tokenizer) -> bool:
        """Can edits of ``tok``'s text be spliced (a cut table built, or BPE's own cuts)?"""
        return self._tables is not None and self._tables[0] is tok and self._tables[2]

    def plan(
        self, tok: Tokenizer, old: bytes, old_tokens: PieceArrays, new: bytes, *, parse_special: bool, max_bytes: int
    ) -> Splice | None:
        splice = plan_edit(tok, old, old_tokens, new, parse_special=parse_special, max_bytes=max_bytes)
        if splice is not None or self._tables is None or self._tables[0] is not tok or self._tables[1] is None:
            return splice
        return plan_cut_edit(
            tok, self._tables[1], old, old_tokens, new, parse_special=parse_special, max_bytes=max_bytes
        )
