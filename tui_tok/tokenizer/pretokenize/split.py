"""``unicode_regex_split`` (unicode.cpp:1216-1408): cut text into words with a pre's regex list.

Text arrives as a ``str`` of llama.cpp's code points (lenient decode already done; surrogates
allowed, nothing above U+10FFFF). The regexes are applied in order, each to every chunk the
previous ones produced; a regex whose exact string has a custom splitter uses it (dispatch
U:1050-1082), any other goes through the std::regex emulation (``stdregex.py``). Chunks are
independent: lookaheads and "end of text" stop at chunk ends.

Returns the words as ``str`` slices of the text, in order, tiling it; zero-length words (from
empty regex matches) are kept, as llama.cpp keeps them (they produce no tokens). Byte-level
encoding of words is left to the caller (``bpe/encoder.py``).

Speed: a list with an exact one-pattern form (``onepass.plan``: the custom splitters, NEWLINES,
a single std::regex, STARCODER, DEFAULT, FALCON) is one ``findall`` over the text. Otherwise, a
regex list whose patterns never look before a chunk (no ``^``, ``\\b``, lookbehind) runs
on chunk *texts*: a chunk's final pieces depend on its text only, so each distinct chunk is cut
once and memoised (``_split_keyed``); ``split_spans`` is the plain per-chunk form, kept for the
digit splitters and as the reference the memoised path is tested against.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from itertools import chain

from tui_tok.tokenizer.pretokenize import fast, onepass, regexes as rx, stdregex

Chunks = list[tuple[int, int]]

_FAST: dict[str, Callable[[], re.Pattern[str]]] = {
    rx.GPT2: fast.gpt2,
    rx.LLAMA3: fast.llama3,
    rx.LLAMA3_ORIGINAL: fast.llama3,
    rx.QWEN2: fast.qwen2,
    rx.QWEN35: fast.qwen35,
}
"""Custom splitters that have an exact one-pattern form."""

_DIGITS = (rx.AFMOE_DIGITS, rx.TINY_AYA_DIGITS)


def is_custom(regex_expr: str) -> bool:
    """True when llama.cpp uses a hand-written splitter for this exact string."""
    return regex_expr in _FAST or regex_expr in _DIGITS or regex_expr in (rx.NEWLINES, rx.K2)


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
    steps = _steps(key)
    if steps is not None:
        return _split_keyed(text, regexes, steps)
    return [text[a:b] for a, b in split_spans(text, regexes)]


Step = tuple[re.Pattern, str, bool]
"""(pattern, name of the view it runs on, whether gaps between matches are pieces)."""


@cache
def _steps(regexes: tuple[str, ...]) -> tuple[Step, ...] | None:
    steps = tuple(map(_step, regexes))
    return steps if all(steps) else None  # type: ignore[return-value]


def _step(regex_expr: str) -> Step | None:
    """How ``split_chunks`` would run this regex, when its pieces depend on the chunk text only
    (None for the digit splitters and for patterns that look before a chunk)."""
    if regex_expr == rx.NEWLINES:
        step: Step = (_NEWLINE_RUNS, "text", False)
    elif regex_expr in _FAST:
        step = (_FAST[regex_expr](), "fast", False)
    elif regex_expr == rx.K2:
        step = (fast.kimi_k2(), "k2", False)
    elif regex_expr in _DIGITS:
        return None
    else:
        step = _std_step(regex_expr)
    return step if stdregex.is_context_free(step[0]) else None


def _std_step(regex_expr: str) -> Step:
    if stdregex.uses_collapsed(regex_expr):
        return (stdregex.compile_collapsed(regex_expr), "collapsed", True)
    return (stdregex.compile_wide(regex_expr), "wide", True)


def _split_keyed(text: str, regexes: Sequence[str], steps: tuple[Step, ...]) -> list[str]:
    """``split_spans`` as a function of chunk texts, memoised.

    Every view is a per-code-point map of the text, so the pieces a chunk ends up as after
    regexes i.. depend on its own text only (the steps are context-free, see ``_step``); a
    chunk's text is looked up in the memo of steps i.. and only distinct, unseen chunks are cut.
    llama.cpp's fall-through after an empty custom result cannot happen here: pieces always tile
    the (non-empty) text, and the custom splitters give at least one piece per non-empty chunk.
    """
    return _run(steps, 0, [text])


_LONG = 64
"""Chunks longer than this are cut but not kept in a memo (they rarely repeat)."""
_KEYED_MAX = 1 << 16
_FEW = 16


@cache
def _memos(steps: tuple[Step, ...]) -> list[dict[str, tuple[str, ...]]]:
    """Per step i: chunk text -> its final pieces after steps i.. (plus an always-empty end)."""
    return [{} for _ in range(len(steps) + 1)]


def _run(steps: tuple[Step, ...], i: int, keys: list[str]) -> list[str]:
    """Final pieces of the chunks ``keys`` (texts) after steps i.. ."""
    if i == len(steps):
        return keys
    memo = _memos(steps)[i]
    if len(memo) > _KEYED_MAX:
        memo.clear()
    missing = set(keys).difference(memo)
    new = {key: _final(steps, i, key) for key in missing}
    for key, final in new.items():
        if len(key) <= _LONG:
            memo[key] = final
    found = list(map(memo.get, keys))
    if None in found:  # long keys (not kept), or another thread emptied the memo meanwhile
        found = [f if f is not None else new[k] if k in new else _final(steps, i, k) for k, f in zip(keys, found)]
    return list(chain.from_iterable(found))  # type: ignore[arg-type]


def _final(steps: tuple[Step, ...], i: int, key: str) -> tuple[str, ...]:
    """Final pieces of one chunk after steps i.. ; steps that leave it whole are skipped in a loop."""
    memos = _memos(steps)
    views: dict[str, str | bytes] = {}
    while i < len(steps):
        if i and (hit := memos[i].get(key)) is not None:
            return hit
        pattern, view, gaps = steps[i]
        subject = views.get(view)
        if subject is None:
            subject = views[view] = _VIEW_OF[view](key)
        pieces = stdregex.cut_texts(pattern, subject, key, gaps=gaps)
        if pieces is None:
            i += 1
        elif len(pieces) > _FEW or i + 1 == len(steps):
            return tuple(_run(steps, i + 1, pieces))
        else:  # a few pieces: plain lookups beat building a set
            memo = memos[i + 1]
            if len(memo) > _KEYED_MAX:
                memo.clear()
            out: list[str] = []
            for piece in pieces:
                final = memo.get(piece)
                if final is None:
                    final = _final(steps, i + 1, piece)
                    if len(piece) <= _LONG:
                        memo[piece] = final
                out += final
            return tuple(out)
    return (key,)


_VIEW_OF: dict[str, Callable[[str], str | bytes]] = {
    "text": lambda text: text,
    "collapsed": stdregex.collapse_text,
    "wide": stdregex.wide_text,
    "fast": fast.collapse,
    "k2": fast.collapse_k2,
}
"""Each view, as a function of the text (all are per code point, so a slice's view is the view's slice)."""


def split_spans(text: str, regexes: Sequence[str]) -> Chunks:
    """Like ``split_words`` but as (start, end) code point offsets."""
    chunks: Chunks = [(0, len(text))] if text else []
    lazy = _Views(text)
    for regex_expr in regexes:
        if not chunks:
            break
        if is_custom(regex_expr):
            out = _custom(regex_expr, lazy, chunks)
            if out:
                chunks = out
                continue
            # llama.cpp falls through to std::regex when a custom splitter returns nothing
        if stdregex.uses_collapsed(regex_expr):
            chunks = stdregex.split_chunks(stdregex.compile_collapsed(regex_expr), lazy.collapsed(), chunks)
        else:
            chunks = stdregex.split_chunks(stdregex.compile_wide(regex_expr), lazy.wide(), chunks)
    return chunks


class _Views:
    """The text in the forms the splitters need, each computed once."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._collapsed: bytes | None = None
        self._wide: str | None = None
        self._fast: str | None = None

    def collapsed(self) -> bytes:
        if self._collapsed is None:
            self._collapsed = stdregex.collapse_text(self.text)
        return self._collapsed

    def wide(self) -> str:
        if self._wide is None:
            self._wide = stdregex.wide_text(self.text)
        return self._wide

    def fast(self) -> str:
        if self._fast is None:
            self._fast = fast.collapse(self.text)
        return self._fast


def _custom(regex_expr: str, views: _Views, chunks: Chunks) -> Chunks:
    if regex_expr == rx.NEWLINES:
        return _finditer_chunks(_NEWLINE_RUNS, views.text, chunks)
    if regex_expr in _FAST:
        return _finditer_chunks(_FAST[regex_expr](), views.fast(), chunks)
    if regex_expr in _DIGITS:
        return _digit_groups(views.fast(), chunks)
    return _finditer_chunks(fast.kimi_k2(), fast.collapse_k2(views.text), chunks)  # rx.K2


_NEWLINE_RUNS = re.compile(r"\n+|[^\n]+")


def _finditer_chunks(pattern: re.Pattern[str], subject: str, chunks: Chunks) -> Chunks:
    """Pieces of patterns that tile their chunk (custom splitters never leave gaps)."""
    return stdregex.split_chunks(pattern, subject, chunks, gaps=False)


def _digit_groups(collapsed: str, chunks: Chunks) -> Chunks:
    """``unicode_regex_split_custom_afmoe`` over runs (``reference.digits`` is the literal port):
    a run of n numbers is cut into n mod 3, then threes; text before a run joins its first group;
    text after the last run is one piece."""
    out: Chunks = []
    runs = fast.number_runs()
    for start, end in chunks:
        prev = start
        for m in runs.finditer(collapsed, start, end):
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
