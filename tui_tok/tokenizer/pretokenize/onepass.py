"""Regex lists that can run as ONE tiling pattern over the whole text (``tiled.findall_tiled``).

``split.split_spans`` applies a pre's regexes one after the other, each to every chunk the
previous ones left; in Python that is work per chunk. Where the whole list has an exact one-pattern
form, the words come from a single ``findall`` instead:

- one custom splitter (GPT2, LLAMA3, QWEN2, QWEN35, Kimi-K2): its ``fast.py`` pattern;
- NEWLINES (gemma4): ``\\n+|[^\\n]+`` on the text itself;
- one std::regex ``P`` that can never match empty and never looks before its start:
  ``P|(?:(?!P).)+`` on llama.cpp's collapsed text (the second branch is exactly a gap: the
  characters where ``P`` does not match), ``simplify``-ed as ``stdregex`` compiles it;
- STARCODER, DEFAULT, FALCON (a category step, then GPT-2, then digit steps): hand-derived below;
- DEEPSEEK_LLM, DEEPSEEK_CODER: not a pattern but cut positions (``cuts.py``).

Why the hand-derived forms equal the step-by-step split (on ``fast.collapse``d text, whose P
marker tells punctuation apart; every code point has exactly one category):

- STARCODER ``(\\p{N}, GPT2)``: every number is its own chunk, GPT-2 runs between them. So a
  number is one word (first branch); GPT-2's ``' ?\\p{N}+'`` can never match; a chunk ends where a
  number starts, so ``\\s+(?!\\S)`` also stops before a number.
- DEFAULT ``([\\p{P}$+<=>^~|]+, GPT2, \\p{N}+, [0-9]{3})`` and FALCON (the same set plus `` ` ``,
  no ``\\p{N}+``): a run Q of that set is one chunk, and GPT-2 leaves it whole (all its characters
  are GPT-2 punctuation; contractions need a letter, which Q lacks); GPT-2 runs between the runs,
  so its punctuation class loses Q, ``\\s+(?!\\S)`` stops before Q, and its contractions never
  match (``'`` is in Q). GPT-2's number word ``' ?N+'`` (a maximal number run) is cut by the later
  steps: DEFAULT splits the space off (``\\p{N}+`` with gaps), then both cut the run at the
  leftmost non-overlapping ``[0-9]{3}``: the tiling ``[0-9]{3}|(?:(?![0-9]{3})N)+`` (FALCON's
  gap may start with the space).

The custom splitters and the hand-derived forms are safe to cut at ``tiled``'s boundaries after
``\\n`` and before any non-space (``\\n`` is only consumed by whitespace runs and ``[\\r\\n]*``
tails, which stop there); TEKKEN only before an ASCII letter or digit (its ``[\\r\\n/]*`` tail
can take ``\\n/``). Tested against ``split_spans`` (and llama.cpp's C++ ports) in
``tests/tokenizer/pretokenize/test_pretokenize_onepass.py``.

Leaves out the other lists (digit splitters, DEEPSEEK3, YOUTU, ...): ``split._run`` memoises them per chunk.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass
from functools import cache

from tui_tok.tokenizer.pretokenize import cuts, fast, regexes as rx, stdregex
from tui_tok.tokenizer.pretokenize.tiled import (
    NEWLINE_BEFORE_ALNUM,
    NEWLINE_BEFORE_NON_SPACE,
    Boundary,
    View,
    findall_tiled,
)


@dataclass(frozen=True, slots=True)
class OnePass:
    """A regex list's exact single-pattern form."""

    pattern: re.Pattern[str]
    view: View | None
    """What the pattern runs on (None: the text itself)."""
    boundary: Boundary | None
    """Where the text may be cut into segments (``tiled``; hand-checked forms only)."""
    ascii_marker: str = ""
    """An ASCII character the view also gives non-ASCII code points (U+000B in llama.cpp's views)."""
    min_text: int = 0
    """Shorter texts take ``split``'s memoised per-chunk path instead (never, here)."""

    def words(self, text: str) -> list[str]:
        return findall_tiled(self.pattern, text, self.view, boundary=self.boundary, ascii_marker=self.ascii_marker)


@cache
def plan(regexes: tuple[str, ...]) -> OnePass | cuts.DeepseekCuts | None:
    """The one-pass form of ``regexes`` (a pre's list), or None when there is none here
    (the deepseek lists: cut positions from numpy, ``cuts.py``)."""
    if (deepseek := cuts.plan(regexes)) is not None:
        return deepseek
    if len(regexes) == 1:
        (regex_expr,) = regexes
        if regex_expr in fast.SPLITTERS:
            view = fast.collapse_k2 if regex_expr == rx.K2 else fast.collapse
            return OnePass(fast.SPLITTERS[regex_expr](), view, NEWLINE_BEFORE_NON_SPACE)
        if regex_expr == rx.NEWLINES:
            return OnePass(re.compile(r"\n+|[^\n]+"), None, None)
        return _single_std(regex_expr)
    if regexes == rx.STARCODER:
        return OnePass(_starcoder(), fast.collapse, NEWLINE_BEFORE_NON_SPACE)
    if regexes == rx.DEFAULT:
        return OnePass(_default_like(extra="$+<=>^~|", split_space=True), fast.collapse, NEWLINE_BEFORE_NON_SPACE)
    if regexes == rx.FALCON:
        return OnePass(_default_like(extra="$+<=>^~|`", split_space=False), fast.collapse, NEWLINE_BEFORE_NON_SPACE)
    return None


_SAFE_SEGMENTS = frozenset({rx.TEKKEN[0]})
"""Single std::regex strings checked safe to cut at ``tiled``'s boundaries: TEKKEN's ``\\n`` only
appears in ``[\\r\\n/]*`` tails and whitespace runs, neither of which takes a letter or digit."""


def _single_std(regex_expr: str) -> OnePass | None:
    if regex_expr in (rx.AFMOE_DIGITS, rx.TINY_AYA_DIGITS):
        return None  # custom splitters without a one-pass form here
    if stdregex.uses_collapsed(regex_expr):
        try:
            source = stdregex.compile_collapsed(regex_expr).pattern.decode("latin-1")
        except ValueError:
            return None
        view: View = _collapsed_str
    else:
        source = stdregex.compile_wide(regex_expr).pattern
        view = stdregex.wide_text
    if not stdregex.context_free(source) or _min_width(source) == 0:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            pattern = re.compile(f"(?:{source})|(?:(?!(?:{source}))(?s:.))+", re.ASCII)
        except re.error:
            return None
    if pattern.groups:  # findall would return groups, not words
        return None
    boundary = NEWLINE_BEFORE_ALNUM if regex_expr in _SAFE_SEGMENTS else None
    return OnePass(pattern, view, boundary, "\x0b")


def _collapsed_str(text: str) -> str:
    """llama.cpp's collapsed text (``stdregex.collapse_text``) as a latin-1 ``str``."""
    return text if text.isascii() else stdregex.collapse_text(text).decode("latin-1")


def _min_width(source: str) -> int:
    try:
        from re import _parser  # type: ignore[attr-defined]
    except ImportError:  # pragma: no cover - Python < 3.11 names it sre_parse
        import sre_parse as _parser  # type: ignore[no-redef]
    return int(_parser.parse(source, re.ASCII).getwidth()[0])


def _starcoder() -> re.Pattern[str]:
    c = fast._classes()
    w, letters, n, z = c["W"], c["L"], c["N"], c["Z"]
    punct = f"[^{w}{letters}{n}{z}]"
    return re.compile(f"[{n}]|{fast.CONTRACTIONS_GPT2}| ?[{letters}]+| ?{punct}+|[{w}]+(?![^{w}{n}])|[{w}]+|(?s:.)")


def _default_like(*, extra: str, split_space: bool) -> re.Pattern[str]:
    c = fast._classes()
    w, letters, n, z = c["W"], c["L"], c["N"], c["Z"]
    q = _ascii_punct() + re.escape(fast._M_PUNCT) + "".join(re.escape(ch) for ch in extra)
    gap = f"(?:(?![0-9]{{3}})[{n}])"
    numbers = f" (?=[{n}])|[0-9]{{3}}|{gap}+" if split_space else f"[0-9]{{3}}|(?: (?=[{n}])|{gap}){gap}*"
    return re.compile(f"[{q}]+| ?[{letters}]+|{numbers}| ?[^{w}{letters}{n}{z}{q}]+|[{w}]+(?![^{w}{q}])|[{w}]+|(?s:.)")


def _ascii_punct() -> str:
    """The ASCII members llama.cpp gives ``\\p{P}`` (its collapsed-regex rewrite), as a class body."""
    return "".join(re.escape(chr(cp)) for cp in range(128) if re.fullmatch(_STD_P, bytes([cp])))


_STD_P = re.compile(b"[" + stdregex.collapse_regex("\\p{P}")[1:-1] + b"]")
