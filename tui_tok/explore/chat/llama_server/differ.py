"""Where the two runtimes' prompts part: the first differing character of the texts and the first
differing token of the ids, with what each runtime has there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from tui_tok.errors import TuiTokError
from tui_tok.explore.chat.llama_server.runtime import RUNTIMES

SNIPPET = 24
"""Characters shown from the first difference on."""


class _Prompt(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def ids(self) -> list[int]: ...


_P = TypeVar("_P", bound=_Prompt)


def first_difference(a: str, b: str) -> int | None:
    """Index of the first differing character (the shorter text's length when one is a prefix of
    the other), None when equal.

    >>> first_difference("abc", "abd"), first_difference("ab", "abc"), first_difference("a", "a")
    (2, 2, None)
    """
    if a == b:
        return None
    n = 0
    limit = min(len(a), len(b))
    while n < limit and a[n] == b[n]:
        n += 1
    return n


def runtimes_differ(prompts: dict[str, _Prompt | str]) -> dict[str, Any] | None:
    """``{"char", "token", <runtime>: {"text", "token_id", "chars", "tokens"} or {"error"}}`` for two
    runtimes' prompts (a str is the runtime's refusal), None when they give the same ids."""
    (name_a, a), (name_b, b) = prompts.items()
    if isinstance(a, str) or isinstance(b, str):
        if isinstance(a, str) and isinstance(b, str):
            return None
        return {name: ({"error": p} if isinstance(p, str) else _side(p, len(p.text), len(p.ids)))
                for name, p in prompts.items()}  # fmt: skip
    char = first_difference(a.text, b.text)
    token = first_difference_ids(a.ids, b.ids)
    if char is None and token is None:
        return None
    c = char if char is not None else min(len(a.text), len(b.text))
    t = token if token is not None else min(len(a.ids), len(b.ids))
    return {"char": c, "token": t, name_a: _side(a, c, t), name_b: _side(b, c, t)}


def first_difference_ids(a: list[int], b: list[int]) -> int | None:
    if a == b:
        return None
    n = 0
    limit = min(len(a), len(b))
    while n < limit and a[n] == b[n]:
        n += 1
    return n


def _side(p: _Prompt, char: int, token: int) -> dict[str, Any]:
    return {"text": p.text[char : char + SNIPPET], "token_id": p.ids[token] if token < len(p.ids) else None,
            "chars": len(p.text), "tokens": len(p.ids)}  # fmt: skip


def with_other_runtime(build: Callable[[str], _P], runtime: str) -> tuple[_P, dict[str, Any] | None]:
    """``build(runtime)``'s prompt and where ``build`` of the other runtime differs from it (its
    refusal as the other side's ``error``). ``build`` raises for the asked runtime; the other
    runtime's ``TuiTokError`` is recorded, not raised."""
    prompt = build(runtime)
    other = next(r for r in RUNTIMES if r != runtime)
    try:
        theirs: _P | str = build(other)
    except TuiTokError as exc:
        theirs = str(exc)
    return prompt, runtimes_differ({runtime: prompt, other: theirs})


def describe(differ: dict[str, Any] | None, runtime: str) -> str:
    """One line for a view: where the other runtime's prompt differs, or that it does not.

    >>> describe(None, "llama-server")
    'transformers gives the same ids'
    """
    other = next(r for r in RUNTIMES if r != runtime)
    if differ is None:
        return f"{other} gives the same ids"
    theirs = differ[other]
    if "error" in theirs:
        return f"{other} refuses: {theirs['error']}"
    ours = differ[runtime]
    return f"≠ {other} from char {differ['char']} (token {differ['token']}): {_cut(ours['text'])} vs {_cut(theirs['text'])}"


def _cut(text: str, width: int = 9) -> str:
    """A short quoted snippet, control characters escaped (repr)."""
    return repr(text[:width] + ("…" if len(text) > width else ""))
