"""``unicode_regex_split`` (unicode.cpp:1216-1408): cut text into words with a pre's regex list.

Text arrives as a ``str`` of llama.cpp's code points (lenient decode already done; surrogates
allowed, nothing above U+10FFFF). The regexes are applied in order, each to every chunk the
previous ones produced; a regex whose exact string has a custom splitter uses it (dispatch
U:1050-1082), any other goes through the std::regex emulation (``stdregex.py``). Chunks are
independent: lookaheads and "end of text" stop at chunk ends.

Returns the words as ``str`` slices of the text, in order, tiling it; zero-length words (from
empty regex matches) are kept, as llama.cpp keeps them (they produce no tokens). Byte-level
encoding of words is left to the caller (``bpe/encoder.py``).

``split_spans`` is the plain per-chunk loop (the reference, and explain's). ``split_words`` takes
one of two faster exact forms: a list with a one-pattern form (``onepass.plan``: the custom
splitters, NEWLINES, a single std::regex, STARCODER, DEFAULT, FALCON, the deepseek cuts) is one
pass over the text; any other list whose patterns never look before a chunk (no ``^``, ``\\b``,
lookbehind) runs on chunk *texts*: a chunk's final pieces depend on its text only, so each
distinct chunk is cut once and memoised (``_run``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from itertools import chain

from tui_tok.tokenizer.pretokenize import fast, onepass, regexes as rx, stdregex

Chunks = list[tuple[int, int]]

_DIGITS = (rx.AFMOE_DIGITS, rx.TINY_AYA_DIGITS)
_NEWLINE_RUNS = re.compile(r"\n+|[^\n]+")

Step = tuple[re.Pattern | None, str, bool]
"""How one regex runs: (pattern, name of the view it runs on, whether gaps between matches are
pieces); pattern None: the digit splitter (``_digit_groups``)."""


@cache
def _step(regex_expr: str) -> Step:
    if regex_expr == rx.NEWLINES:
        return (_NEWLINE_RUNS, "text", False)
    if regex_expr in fast.SPLITTERS:
        return (fast.SPLITTERS[regex_expr](), "k2" if regex_expr == rx.K2 else "fast", False)
    if regex_expr in _DIGITS:
        return (None, "fast", False)
    if stdregex.uses_collapsed(regex_expr):
        return (stdregex.compile_collapsed(regex_expr), "collapsed", True)
    return (stdregex.compile_wide(regex_expr), "wide", True)


_VIEW_OF: dict[str, Callable[[str], str | bytes]] = {
    "text": lambda text: text,
    "collapsed": stdregex.collapse_text,
    "wide": stdregex.wide_text,
    "fast": fast.collapse,
    "k2": fast.collapse_k2,
}
"""Each view, as a function of the text (all are per code point, so a slice's view is the view's slice)."""


def split_words(text: str, regexes: Sequence[str]) -> list[str]:
    """Words of ``text`` as llama.cpp's ``unicode_regex_split`` cuts them (before byte encoding).

    >>> split_words("Hello world's 12345", (rx.LLAMA3,))
    ['Hello', ' world', "'s", ' ', '123', '45']
    """
    if not text:
        return []
    key = regexes if type(regexes) is tuple else tuple(regexes)
    one = onepass.plan(key)
    if one is not None and len(text) >= one.min_text:  # the common case: one pass over the whole text
        return one.words(text)
    if _context_free(key):
        return _run(key, 0, [text])
    return [text[a:b] for a, b in split_spans(text, regexes)]


def split_spans(text: str, regexes: Sequence[str]) -> Chunks:
    """Like ``split_words`` but as (start, end) code point offsets, chunk by chunk as llama.cpp."""
    chunks: Chunks = [(0, len(text))] if text else []
    views: dict[str, str | bytes] = {}
    for regex_expr in regexes:
        if not chunks:
            break
        pattern, view, gaps = _step(regex_expr)
        if view not in views:
            views[view] = _VIEW_OF[view](text)
        out = _digit_groups(views[view], chunks) if pattern is None else _cut(pattern, views[view], chunks, gaps)
        if not out and not gaps:  # llama.cpp falls through to std::regex when a custom splitter returns nothing
            std, view_of = _std(regex_expr)
            out = _cut(std, view_of(text), chunks, True)
        chunks = out
    return chunks


def _std(regex_expr: str) -> tuple[re.Pattern, Callable[[str], str | bytes]]:
    if stdregex.uses_collapsed(regex_expr):
        return stdregex.compile_collapsed(regex_expr), stdregex.collapse_text
    return stdregex.compile_wide(regex_expr), stdregex.wide_text


def _cut(pattern: re.Pattern, subject: str | bytes, chunks: Chunks, gaps: bool) -> Chunks:
    """``unicode_regex_split_stl`` per chunk: [gap][match (even empty)]...[tail gap]; without
    ``gaps`` the matches alone (custom splitters' patterns tile their chunk)."""
    out: Chunks = []
    append = out.append
    for start, end in chunks:
        prev = start
        for m in pattern.finditer(subject, start, end):
            a, b = m.span()
            if gaps and a > prev:
                append((prev, a))
            append((a, b))
            prev = b
        if gaps and prev < end:
            append((prev, end))
    return out


def _digit_groups(collapsed: str | bytes, chunks: Chunks) -> Chunks:
    """``unicode_regex_split_custom_afmoe`` over runs (``reference.digits`` is the literal port):
    a run of n numbers is cut into n mod 3, then threes; text before a run joins its first group;
    text after the last run is one piece."""
    out: Chunks = []
    runs = fast.number_runs()
    for start, end in chunks:
        prev = start
        for m in runs.finditer(collapsed, start, end):  # type: ignore[arg-type]
            a, b = m.span()
            cut = a + (b - a) % 3
            if cut == a:
                cut += 3
            out.append((prev, cut))
            out.extend((c, c + 3) for c in range(cut, b, 3))
            prev = b
        if prev < end:
            out.append((prev, end))
    return out


# --- memoised by chunk text -------------------------------------------------------------------


@cache
def _context_free(regexes: tuple[str, ...]) -> bool:
    """Whether every step's pieces of a chunk depend on the chunk's text only (``stdregex.context_free``)."""
    return all(p is None or stdregex.context_free(p.pattern) for p, _, _ in map(_step, regexes))


_LONG = 64
"""Chunks longer than this are cut but not kept in a memo (they rarely repeat)."""
_KEYED_MAX = 1 << 16
_FEW = 16


@cache
def _memos(regexes: tuple[str, ...]) -> list[dict[str, tuple[str, ...]]]:
    """Per step i: chunk text -> its final pieces after steps i.. (plus an always-empty end)."""
    return [{} for _ in range(len(regexes) + 1)]


def _run(regexes: tuple[str, ...], i: int, keys: list[str]) -> list[str]:
    """Final pieces of the chunks ``keys`` (texts) after steps i.. .

    Every view is a per-code-point map of the text, so the pieces a chunk ends up as after
    steps i.. depend on its own text only (``_context_free``); a chunk's text is looked up in
    the memo of steps i.. and only distinct, unseen chunks are cut. llama.cpp's fall-through
    after an empty custom result cannot happen here: pieces tile the (non-empty) chunk.
    """
    if i == len(regexes):
        return keys
    memo = _memos(regexes)[i]
    if len(memo) > _KEYED_MAX:
        memo.clear()
    missing = set(keys).difference(memo)
    new = {key: _final(regexes, i, key) for key in missing}
    for key, final in new.items():
        if len(key) <= _LONG:
            memo[key] = final
    found = list(map(memo.get, keys))
    if None in found:  # long keys (not kept), or another thread emptied the memo meanwhile
        found = [f if f is not None else new[k] if k in new else _final(regexes, i, k) for k, f in zip(keys, found)]
    return list(chain.from_iterable(found))  # type: ignore[arg-type]


def _final(regexes: tuple[str, ...], i: int, key: str) -> tuple[str, ...]:
    """Final pieces of one chunk after steps i.. ; steps that leave it whole are skipped in a loop."""
    memos = _memos(regexes)
    views: dict[str, str | bytes] = {}
    while i < len(regexes):
        if i and (hit := memos[i].get(key)) is not None:
            return hit
        pattern, view, gaps = _step(regexes[i])
        if view not in views:
            views[view] = _VIEW_OF[view](key)
        whole = [(0, len(key))]
        spans = _digit_groups(views[view], whole) if pattern is None else _cut(pattern, views[view], whole, gaps)
        pieces = None if spans == whole else [key[a:b] for a, b in spans]
        if pieces is None:
            i += 1
        elif len(pieces) > _FEW or i + 1 == len(regexes):
            return tuple(_run(regexes, i + 1, pieces))
        else:  # a few pieces: plain lookups beat building a set
            memo = memos[i + 1]
            if len(memo) > _KEYED_MAX:
                memo.clear()
            out: list[str] = []
            for piece in pieces:
                final = memo.get(piece)
                if final is None:
                    final = _final(regexes, i + 1, piece)
                    if len(piece) <= _LONG:
                        memo[piece] = final
                out += final
            return tuple(out)
    return (key,)
