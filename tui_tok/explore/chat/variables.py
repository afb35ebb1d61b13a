"""Template variables typed as ``KEY=VALUE`` (the command line's ``--set``, the Chat view's box).

A value is JSON when it parses (``enable_thinking=false`` is the boolean), else the string itself;
JSON past the bounds of ``tui_tok.json_input`` (``[`` 100000 times) is an error.
"""

from __future__ import annotations

import shlex

from tui_tok.errors import TuiTokError
from tui_tok.json_input import JSONInputError, JSONLimitError, load_json


class ChatInputError(TuiTokError):
    """A conversation, tools list, variable or template name that cannot be used (exit code 2)."""

    exit_code = 2


def parse_variables(items: list[str]) -> dict[str, object]:
    """``KEY=VALUE`` pairs; a value is JSON when it parses, else the string itself.

    >>> parse_variables(["enable_thinking=false", "name=Ada", "n=3"])
    {'enable_thinking': False, 'name': 'Ada', 'n': 3}
    """
    out: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.isidentifier():
            raise ChatInputError(f"{item!r}: expected KEY=VALUE with KEY a template variable name")
        try:
            out[key] = load_json(value)
        except JSONLimitError as exc:  # JSON, but past a bound: not a string either
            raise ChatInputError(f"{key}: {exc}") from None
        except JSONInputError:
            out[key] = value
    return out


def split_variables(line: str) -> list[str]:
    """A line of space-separated ``KEY=VALUE`` items, shell-quoted when a value holds spaces.

    >>> split_variables('enable_thinking=false name="Ada Lovelace"')
    ['enable_thinking=false', 'name=Ada Lovelace']
    """
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise ChatInputError(f"variables: {exc}") from None
