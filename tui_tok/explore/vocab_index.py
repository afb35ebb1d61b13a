"""The vocabulary as a searchable table: display pieces, types, scores, merge ranks, byte lengths.

Built straight from GGUF metadata (``tokenizer.ggml.*`` keys), not from a loaded tokenizer,
so a file whose tokenizer cannot be built still has a browsable vocabulary. Every display
piece is joined with ``\\n`` into one string once; a search is then one ``regex`` scan plus
``numpy.searchsorted`` to turn match offsets into ids (a regex scans the text the pieces decode to
instead, built once on first use; a query matching most pieces costs most in its matches).
Does not tokenize anything and does not know llama.cpp's attribute overrides (see
``tui_tok.tokenizer.core.vocab``); types shown are the stored ``token_type`` values.

>>> idx = build_vocab_index({"tokenizer.ggml.model": "gpt2",
...     "tokenizer.ggml.tokens": ["a", "b", "Ġthe", "ab"], "tokenizer.ggml.merges": ["a b"]})
>>> search(idx, "the").ids.tolist(), search(idx, "/^a/").ids.tolist(), search(idx, "#1").ids.tolist()
([2], [0, 3], [1])
>>> search(idx, " the").ids.tolist(), int(idx.merge_ranks[3]), int(idx.byte_lengths[2])
([2], 0, 4)
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

import numpy as np
import regex

from tui_tok.explore.display import PIECE_TABLE, display_piece
from tui_tok.explore.joined_lines import JoinedLines
from tui_tok.tokenizer.arrays.sorted_unique import sorted_unique
from tui_tok.tokenizer.core.byte_level import BYTE_TO_CHAR, CHAR_TO_BYTE, byte_encode
from tui_tok.tokenizer.core.types import TokenType

BYTE_LEVEL_MODELS = frozenset({"gpt2", "hybriddna", "whitespace"})
"""``tokenizer.ggml.model`` values whose pieces are GPT-2 byte-level strings (``Ġ`` = space)."""

SPACE_CLASS = "[ ·Ġ▁]"
"""What a space typed in a substring query matches: a real space or any tokenizer's marker."""

SPACE_FOLD = {ord("·"): " ", ord("Ġ"): " ", ord("▁"): " "}
"""Same length in and out, so offsets in the folded string are offsets in ``joined``."""

SEARCH_TIMEOUT_S = 2.0
"""A pathological regex gives up after this long instead of freezing a worker forever."""


def type_name(code: int) -> str:
    """``TokenType`` name in lower case (``'control'``), or the number if unknown."""
    try:
        return TokenType(int(code)).name.lower()
    except ValueError:
        return str(int(code))


@dataclass(frozen=True, slots=True, eq=False)
class VocabIndex:
    """Per-token columns of a vocabulary plus the joined string searches run over."""

    model: str
    pieces: list[str]
    """Raw token texts as stored (``Ġthe``, ``▁the``, ``<0xE6>``)."""
    display: Sequence[str]
    """One-line display of each piece (whitespace visible, invalid bytes as ``\\xNN``): lines of
    ``joined``, read one at a time (``JoinedLines``: no list of strings)."""
    joined: str
    """``'\\n'.join(display)``: what regex searches scan."""
    line_starts: np.ndarray
    """int64 offset of each piece in ``joined``."""
    types: np.ndarray
    """int32 stored token type per token (NORMAL when the key is absent)."""
    scores: np.ndarray | None
    """float32 score per token, or None when the file has none."""
    merge_ranks: np.ndarray | None
    """int64 rank of the first merge producing each token (-1: none), None without merges."""
    byte_lengths: np.ndarray
    """int64 bytes the piece decodes to."""
    _decoded: list[tuple[str, np.ndarray]] = field(default_factory=list, repr=False)
    """Cache of ``decoded_view`` (built on first use: a pass over every piece)."""
    _decoded_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    """One build even when searches typed in a row all ask for it."""
    _folded: dict[bool, str] = field(default_factory=dict, repr=False)
    """Cache of ``folded``: built by the first substring search, not with the index (the index is
    built in the background for every file; two more copies of ``joined`` held from start-up)."""

    def folded(self, *, lower: bool = False) -> str:
        """``joined`` with every space marker (``·``, ``Ġ``, ``▁``) as a plain space (substring
        searches); ``lower``: then lower-cased character by character, length kept (case-blind)."""
        with self._decoded_lock:
            if False not in self._folded:
                self._folded[False] = fold_spaces(self.joined)
            if lower and True not in self._folded:
                self._folded[True] = _lower_same_length(self._folded[False])
        return self._folded[lower]

    def decoded_view(self) -> tuple[str, np.ndarray]:
        """What each piece decodes to, as regexes search it: ``æĹ¥æľ¬`` is ``日本``, ``Ġhello``
        and ``▁hello`` are `` hello`` (spaces and tabs as they are; newlines and other controls
        visible, as ``display`` shows them, since lines are pieces; byte tokens ``<0xE6>`` as
        stored, as substrings see them), joined by newlines, with where each starts."""
        with self._decoded_lock:
            if not self._decoded:
                if self.model in BYTE_LEVEL_MODELS:
                    self._decoded.append(_decoded_display(self.pieces))
                else:
                    self._decoded.append(_join_display(_unescaped(self.pieces), SEARCH_TABLE))
        return self._decoded[0]

    def decoded_text(self, token_id: int) -> str:
        """What one piece decodes to, shown as ``display`` shows pieces (``·`` for a space): the
        table's text column for byte-level vocabularies (per row: no whole-vocabulary build)."""
        piece = self.pieces[token_id]
        return display_piece(_decoded_one(piece) if self.model in BYTE_LEVEL_MODELS else piece.replace("\u2581", " "))

    @property
    def n_tokens(self) -> int:
        return len(self.pieces)


def _utf8_cost(cps: np.ndarray) -> np.ndarray:
    """UTF-8 bytes of each code point, as uint8 (one byte per character: a whole vocabulary's)."""
    cost = np.ones(len(cps), dtype=np.uint8)
    cost += cps >= 0x80
    cost += cps >= 0x800
    cost += cps >= 0x10000
    cost[(cps >= 0xDC80) & (cps < 0xDD00)] = 1  # surrogateescape: one raw byte
    return cost


def merge_ranks(tokens: list[str], merges: list[str]) -> np.ndarray:
    """Rank (index in ``merges``) of the first merge whose result is each token; -1 if none.

    A merge string is split at the first space searched from its second character, as
    llama.cpp does, so a merge of a space-like piece still splits correctly.
    """
    if not merges:
        return np.full(len(tokens), -1, dtype=np.int64)
    joined = "\0".join(merges)
    one_space_each = list(map(str.count, merges, repeat(" "))) == [1] * len(merges)
    if one_space_each and joined.count("\0") == len(merges) - 1 and joined[0] != " " and "\0 " not in joined:
        merged = joined.replace(" ", "").split("\0")  # one space each, never first: all at once
    else:
        merged = [m.replace(" ", "", 1) if m[:1] != " " else m[0] + m[1:].replace(" ", "", 1) for m in merges]
    # reversed, so the lowest rank of a duplicate result is the one kept
    first = dict(zip(reversed(merged), range(len(merged) - 1, -1, -1)))
    return np.fromiter(map(first.get, tokens, repeat(-1)), dtype=np.int64, count=len(tokens))


_LOWER_APART = re.compile("([\u0130\u03a3])")
"""The characters ``str.lower`` does not lower one by one: İ (whose lower case is two characters)
and Σ (σ or, ending a word, ς)."""


def _lower_same_length(text: str) -> str:
    """Each character lower-cased on its own, except those whose lower case is longer (``İ``)
    stay as they are, so offsets are kept. ``str.lower`` of the text between İ and Σ, which it
    lowers one by one like this (a ``translate`` looked every character up: much slower)."""
    parts = _LOWER_APART.split(text)
    parts[::2] = [p.lower() for p in parts[::2]]
    parts[1::2] = ["\u03c3" if p == "\u03a3" else p for p in parts[1::2]]
    return "".join(parts)


def fold_spaces(text: str) -> str:
    """``text.translate(SPACE_FOLD)``, by three C-level replaces (a dict lookup per character is slower)."""
    return text.replace("\u00b7", " ").replace("\u0120", " ").replace("\u2581", " ")


SEARCH_TABLE: dict[int, str] = {cp: c for cp, c in PIECE_TABLE.items() if cp not in (0x20, 0x09)}
"""``PIECE_TABLE`` with spaces and tabs kept: how decoded text is searched (``/^ hello$/``)."""

_SEARCH_CHARS = re.compile("[" + "".join(map(re.escape, map(chr, sorted(SEARCH_TABLE)))) + "]")


def _search_form(text: str) -> str:
    """``text.translate(SEARCH_TABLE)``, by a regex over the few characters it changes (fast on a
    whole vocabulary, as ``display_piece`` does)."""
    return _SEARCH_CHARS.sub(lambda m: SEARCH_TABLE[ord(m.group())], text)


def _join_display(tokens: list[str], table: dict[int, str] = PIECE_TABLE) -> tuple[str, np.ndarray]:
    """Pieces shown with ``table`` (``display_piece``'s by default) joined by newlines, and where
    each starts; one pass in all."""
    show = display_piece if table is PIECE_TABLE else _search_form
    whole = "".join(tokens)
    sep = next((c for c in ("\ufdd0", "\ufdd1", "\ufdd2", "\x00") if c not in whole), None)
    if sep is None:  # every candidate separator occurs in some token: one call per piece
        display = "\n".join(show(t) for t in tokens)
    else:
        display = show(sep.join(tokens)).replace(sep, "\n")
    cps = np.frombuffer(display.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    newlines = np.flatnonzero(cps == 10)
    starts = np.concatenate(([0], newlines + 1)).astype(np.int64) if tokens else np.zeros(0, dtype=np.int64)
    return display, starts


_BYTE_LEVEL_LUT = np.full(0x144, -1, dtype=np.int64)
for _b, _c in enumerate(BYTE_TO_CHAR):
    _BYTE_LEVEL_LUT[ord(_c)] = _b
"""GPT-2 byte character (all below U+0144) -> its byte; -1 for the characters that are none."""


def _decoded_display(tokens: list[str]) -> tuple[str, np.ndarray]:
    """What each byte-level piece decodes to, as ``_join_display`` shows pieces: ``æĹ¥æľ¬`` is
    ``日本``, ``Ġthe`` is ``·the``; bytes that are not whole UTF-8 characters show as ``\\xNN``.
    Characters outside the byte alphabet (in added tokens) stay as they are. One numpy lookup
    over the whole vocabulary: its pieces are joined by a character that is not a byte character,
    so no UTF-8 sequence runs from one piece into the next."""
    whole = "".join(tokens)
    sep = next((c for c in ("\ufdd0", "\ufdd1", "\ufdd2", "\x00") if c not in whole), None)
    if sep is None or not tokens:
        pieces = [_decoded_one(t) for t in tokens]
    else:
        cps = np.frombuffer(sep.join(tokens).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.int64)
        small = cps < len(_BYTE_LEVEL_LUT)
        byte = np.where(small, _BYTE_LEVEL_LUT[np.minimum(cps, len(_BYTE_LEVEL_LUT) - 1)], -1)
        # a byte below 0x80 is its ASCII character; above, a surrogateescape character, so the
        # UTF-8 round trip below turns runs of them into the characters they spell
        out = np.where(byte < 0, cps, np.where(byte < 0x80, byte, 0xDC00 + byte)).astype(np.uint32)
        text = out.tobytes().decode("utf-32-le", "surrogatepass")
        text = text.encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")
        pieces = text.split(sep)
    return _join_display(pieces, SEARCH_TABLE)


def _unescaped(tokens: list[str]) -> list[str]:
    """What the pieces of a vocabulary that is not byte-level decode to: ``▁`` is a space (byte
    tokens ``<0xNN>`` stay as stored: substrings find them so, and a byte alone is no text)."""
    whole = "".join(tokens)
    sep = next((c for c in ("\ufdd0", "\ufdd1", "\ufdd2", "\x00") if c not in whole), None)
    if sep is None or not tokens:
        return [t.replace("\u2581", " ") for t in tokens]
    return sep.join(tokens).replace("\u2581", " ").split(sep)  # one C-level replace in all


def _decoded_one(token: str) -> str:
    data = bytearray()
    for c in token:
        b = CHAR_TO_BYTE.get(c)
        data += c.encode("utf-8", "surrogateescape") if b is None else bytes((b,))
    return bytes(data).decode("utf-8", "surrogateescape")


def _byte_lengths(tokens: list[str], types: np.ndarray, *, byte_level: bool) -> np.ndarray:
    """Bytes each piece stands for, computed over all pieces at once with numpy."""
    if not tokens:
        return np.zeros(0, dtype=np.int64)
    raw = "".join(tokens)
    cps = np.frombuffer(raw.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    cost = _utf8_cost(cps)
    if byte_level:
        cost[cps < 0x144] = 1  # every GPT-2 byte character is below U+0144 and is one byte
    else:
        cost[cps == 0x2581] = 1  # ▁ stands for a space
    lengths = np.fromiter(map(len, tokens), dtype=np.int64, count=len(tokens))
    offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    sums = np.add.reduceat(cost, offsets, dtype=np.int64) if len(cost) else np.zeros(len(tokens), dtype=np.int64)
    sums[lengths == 0] = 0
    byte_tokens = (types == int(TokenType.BYTE)) & (lengths == 6)
    sums[byte_tokens] = 1
    return sums.astype(np.int64)


def _strings(values: Any) -> list[str]:
    """``[str(v) for v in values]``, or the list itself when it holds only strings already (the
    reader's string arrays; found with one C-level join instead of a pass of ``str`` calls)."""
    if type(values) is list:
        try:
            "".join(values)
            return values
        except TypeError:
            pass
    return [str(v) for v in values]


def build_vocab_index(metadata: Mapping[str, Any]) -> VocabIndex:
    """Index ``tokenizer.ggml.tokens`` (and scores, types, merges when present)."""
    tokens = _strings(metadata.get("tokenizer.ggml.tokens", []))
    n = len(tokens)
    model = str(metadata.get("tokenizer.ggml.model", ""))
    raw_types = metadata.get("tokenizer.ggml.token_type")
    types = np.full(n, int(TokenType.NORMAL), dtype=np.int32)
    if raw_types is not None:
        arr: np.ndarray = np.asarray(raw_types, dtype=np.int64)[:n]  # reused for the float32 scores
        types[: len(arr)] = arr
    raw_scores = metadata.get("tokenizer.ggml.scores")
    scores = None
    if raw_scores is not None and len(raw_scores):
        scores = np.zeros(n, dtype=np.float32)
        arr = np.asarray(raw_scores, dtype=np.float32)[:n]
        scores[: len(arr)] = arr
    raw_merges = metadata.get("tokenizer.ggml.merges")
    ranks = merge_ranks(tokens, _strings(raw_merges)) if raw_merges is not None else None
    joined, line_starts = _join_display(tokens)
    byte_level = model in BYTE_LEVEL_MODELS
    return VocabIndex(
        model=model,
        pieces=tokens,
        display=JoinedLines(joined, line_starts),
        joined=joined,
        line_starts=line_starts,
        types=types,
        scores=scores,
        merge_ranks=ranks,
        byte_lengths=_byte_lengths(tokens, types, byte_level=byte_level),
    )


@dataclass(frozen=True, slots=True, eq=False)
class SearchResult:
    """Ids matching a query, in id order."""

    query: str
    kind: str
    """'all', 'substring', 'regex' or 'id'."""
    ids: np.ndarray
    """int64 matching ids."""
    error: str | None = None
    """Why the query could not run (bad regex, id out of range); ``ids`` is then empty."""


_ID_QUERY = re.compile(r"#\s*([+-]?\d+)\s*")
"""``#123`` (and ``#-1``, an error): an id, never a substring."""


class QueryError(Exception):
    """A query that cannot run; the message is what the status line shows."""


def _compile(query: str, index: VocabIndex) -> tuple[str, Any, str]:
    """(kind, compiled pattern, string to scan)."""
    if query.startswith("/") and len(query) > 1:
        body, flags = query[1:], regex.MULTILINE | regex.VERSION1
        if len(body) >= 2 and body.endswith("/i"):
            body, flags = body[:-2], flags | regex.IGNORECASE
        elif body.endswith("/"):
            body = body[:-1]
        body = fold_spaces(body)  # a space marker means a space, as in substrings: /^Ġthe$/ is /^ the$/
        try:  # the body alone first: its error positions are the user's (plus the leading /),
            # and a body such as a)(b cannot close the group it is wrapped in below
            regex.compile(body, flags)
            pattern = regex.compile(f"(?:{body})[^\\n]*", flags)
        except regex.error as exc:
            where = f" at column {exc.pos + 2}" if exc.pos is not None else ""
            raise QueryError(f"bad regex: {exc.msg}{where}") from None
        return "regex", pattern, index.joined
    # plain text: the standard library's engine finds a literal fast and needs no timeout;
    # spaces match the space-folded copy, lower case matches the lower-cased copy
    text = query.translate(SPACE_FOLD)
    if any(c.isupper() for c in text):
        return "substring", re.compile(f"{re.escape(text)}[^\\n]*"), index.folded()
    return "substring", re.compile(f"{re.escape(text)}[^\\n]*"), index.folded(lower=True)


class SearchCancelled(Exception):
    """``search`` stopped because its ``cancelled`` callback said so."""


def _scan(pattern: Any, haystack: str, *, regex_engine: bool, cancelled: Callable[[], bool] | None) -> list[Any]:
    """Match starts (substrings) or (start, end) spans (regexes, whose matches may cross lines)."""
    if regex_engine:  # concurrent: the regex engine lets go of the GIL while it scans, so the
        # UI thread keeps drawing while a worker searches
        return _starts(pattern.finditer(haystack, timeout=SEARCH_TIMEOUT_S, concurrent=True), cancelled, span=True)
    return _starts(pattern.finditer(haystack), cancelled)


def _starts(matches: Any, cancelled: Callable[[], bool] | None, *, span: bool = False) -> list[Any]:
    if cancelled is None:
        return [m.span() for m in matches] if span else [m.start() for m in matches]
    out: list[Any] = []
    for n, m in enumerate(matches):
        out.append(m.span() if span else m.start())
        if n % 4096 == 4095 and cancelled():  # a stale query matching most pieces: stop early
            raise SearchCancelled(n)
    return out


def _regex_lines(pattern: Any, haystack: str, line_starts: np.ndarray, spans: list[tuple[int, int]]) -> np.ndarray:
    """Lines (pieces) the regex matches, from the spans of one scan over all of them.

    A regex can match a newline (``\\s``, ``[^a]``), so a match may run from one piece into the
    next: it says nothing of the lines it covers, which are matched again one by one (rare)."""
    if not spans:
        return np.zeros(0, dtype=np.int64)
    arr = np.asarray(spans, dtype=np.int64)
    first = np.searchsorted(line_starts, arr[:, 0], side="right") - 1
    ends = np.append(line_starts[1:] - 1, len(haystack))  # where each line's newline is
    crossing = arr[:, 1] > ends[first]
    lines = sorted_unique(first[~crossing], runs=True)
    if not crossing.any():
        return lines
    last = np.searchsorted(line_starts, arr[crossing, 1] - 1, side="right") - 1
    again = {k for a, b in zip(first[crossing].tolist(), last.tolist()) for k in range(a, b + 1)}
    found = [k for k in sorted(again)
             if pattern.search(haystack[int(line_starts[k]) : int(ends[k])], timeout=SEARCH_TIMEOUT_S)]  # fmt: skip
    return np.union1d(lines, np.asarray(found, dtype=np.int64))


def search(
    index: VocabIndex, query: str, *, token_type: int | None = None, cancelled: Callable[[], bool] | None = None
) -> SearchResult:
    """Find tokens: ``#123`` by id, ``/regex/`` (``/regex/i`` ignores case), else a substring.

    Substrings ignore case unless they contain a capital; a space in a substring matches a
    space or any tokenizer's space marker (``·``, ``Ġ``, ``▁``); in a byte-level vocabulary,
    non-ASCII text also matches the pieces that spell its UTF-8 bytes (``你`` finds ``ä½ł``). A
    regex matches the text each piece decodes to, spaces as spaces, and a space marker in it
    means a space, as in substrings (``/^ the$/`` and ``/^Ġthe$/`` find ``Ġthe`` and ``▁the``;
    ``/\\p{Han}{2}/`` finds ``æĹ¥æľ¬``). A bad regex is
    reported at its column in the query as typed (``/(/``: column 3); ``#`` and a number that is
    no id (``#-1``) is an error, not a substring. ``token_type`` keeps only that stored type.
    ``cancelled`` is polled while collecting many matches; when it returns true the search
    raises ``SearchCancelled``.
    """
    q = query.strip("\n")
    kind = "all"
    error = None
    number = _ID_QUERY.fullmatch(q)
    if not q:
        ids = np.arange(index.n_tokens, dtype=np.int64)
    elif number is not None:
        kind = "id"
        wanted = int(number.group(1))
        ok = 0 <= wanted < index.n_tokens
        ids = np.asarray([wanted] if ok else [], dtype=np.int64)
        if not ok:
            error = f"no token #{wanted}: ids go from 0 to {index.n_tokens - 1}"
    else:
        try:
            kind, pattern, haystack = _compile(q, index)
            if kind == "regex":  # the decoded text of every piece (one scan, as fast as the pieces')
                haystack, line_starts = index.decoded_view()
                lines = _regex_lines(pattern, haystack, line_starts, _scan(pattern, haystack, regex_engine=True,
                                                                           cancelled=cancelled))  # fmt: skip
                return _filtered(index, SearchResult(q, kind, lines, None), token_type)
            starts = _scan(pattern, haystack, regex_engine=False, cancelled=cancelled)
        except QueryError as exc:
            return SearchResult(q, "regex", np.zeros(0, dtype=np.int64), str(exc))
        except TimeoutError:
            return SearchResult(q, "regex", np.zeros(0, dtype=np.int64), f"regex gave up after {SEARCH_TIMEOUT_S:g} s")
        if kind == "substring" and index.model in BYTE_LEVEL_MODELS and not q.isascii():
            # byte-level pieces spell non-ASCII text by its bytes (你 is "ä½ł", " 你" is "Ġä½ł"):
            # look for that spelling too, exactly as the pieces hold it (Ã and ã are the bytes C3
            # and E3, not one letter; · is the byte B7, not a space)
            spelled = byte_encode(q.encode("utf-8", "surrogatepass"))
            starts += _starts(re.compile(f"{re.escape(spelled)}[^\\n]*").finditer(index.joined), cancelled)
            starts.sort()
        # matches come in order, so their lines are sorted already (with repeats)
        ids = sorted_unique(
            np.searchsorted(index.line_starts, np.asarray(starts, dtype=np.int64), side="right") - 1, runs=True
        )
    return _filtered(index, SearchResult(q, kind, ids, error), token_type)


def _filtered(index: VocabIndex, result: SearchResult, token_type: int | None) -> SearchResult:
    """``result`` keeping only ``token_type`` (when given), its ids as int64."""
    ids = result.ids
    if token_type is not None and len(ids):
        ids = ids[index.types[ids] == token_type]
    return SearchResult(result.query, result.kind, ids.astype(np.int64), result.error)


@dataclass(frozen=True, slots=True)
class TokenFacts:
    """What the vocabulary says about one id."""

    id: int
    piece: str
    display: str
    type_name: str
    score: float | None
    merge_rank: int | None


def token_facts(index: VocabIndex, token_id: int) -> TokenFacts:
    """Facts of ``token_id`` for the details panel."""
    score = float(index.scores[token_id]) if index.scores is not None else None
    rank = None
    if index.merge_ranks is not None and index.merge_ranks[token_id] >= 0:
        rank = int(index.merge_ranks[token_id])
    return TokenFacts(
        id=token_id,
        piece=index.pieces[token_id],
        display=index.display[token_id],
        type_name=type_name(int(index.types[token_id])),
        score=score,
        merge_rank=rank,
    )
