"""Render a chat template exactly as Hugging Face transformers' ``apply_chat_template`` does.

The Jinja environment copies transformers' ``utils/chat_template_utils.py`` (``_compile_jinja_template``
and ``render_jinja_template``): an ``ImmutableSandboxedEnvironment`` with ``trim_blocks`` and
``lstrip_blocks``, the ``loopcontrols`` extension, the ``{% generation %}`` tag (rendered as its body,
as transformers does when it does not track assistant masks), a ``tojson`` filter that neither escapes
HTML nor non-ASCII (with transformers' ``indent``/``separators``/``sort_keys`` arguments), and the
globals ``raise_exception`` and ``strftime_now``. Variables are ``messages``, ``tools``, ``documents``,
``add_generation_prompt``, ``bos_token``/``eos_token`` (token texts) and any extra ones.

Does not tokenize (see ``prompt.py``) and does not read GGUF files: ``templates_of`` takes the
metadata mapping the reader produced.

>>> render_chat("{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}",
...             [{"role": "user", "content": "hi"}])
'<user>hi'
>>> render_chat("{{ raise_exception('no system role') }}", [])
Traceback (most recent call last):
...
tui_tok.explore.chat.render.ChatTemplateError: template line 1, column 4: no system role
"""

from __future__ import annotations

import json
import re
import sys
import traceback
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes

from tui_tok.errors import TuiTokError
from tui_tok.explore.chat.bounds import (
    DEFAULT_LIMITS,
    BoundedSandbox,
    Limits,
    TemplateBoundError,
    bounded_compile,
    bounded_render,
    input_size,
)

TEMPLATE_KEY = "tokenizer.chat_template"
"""The default template's metadata key; named ones are ``tokenizer.chat_template.<name>``."""

TEMPLATES_LIST_KEY = "tokenizer.chat_templates"
"""The metadata key listing the names of the named templates."""

CONTEXT_LINES = 2
"""Template lines shown before and after the failing one."""

CONTEXT_WIDTH = 100
"""Longest stretch of one template line shown in the context (one-line templates are common)."""


class ChatTemplateError(TuiTokError):
    """A chat template that does not parse or fails while rendering.

    ``str()`` is one line naming the template line (for the command line); ``context`` holds the
    template source around it with a caret under ``column`` when known (for the UI).

    >>> str(ChatTemplateError("unexpected '}'", line=3, column=7, context=""))
    "template line 3, column 7: unexpected '}'"
    """

    exit_code = 2

    def __init__(self, message: str, *, line: int | None, column: int | None, context: str,
                 exceeded: bool = False) -> None:  # fmt: skip
        self.message = message
        self.exceeded = exceeded
        """The template went past a bound (deadline, output, sizes, recursion, memory): trying it on
        other inputs is pointless."""
        self.line = line
        """1-based template line of the error, None when jinja2 did not say."""
        self.column = column
        """1-based column on that line, None when it could not be located."""
        self.context = context
        """The source lines around ``line``, numbered, with a caret line under the column."""
        super().__init__(self.__str__())

    def __str__(self) -> str:
        if self.line is None:
            return f"template: {self.message}"
        where = f"template line {self.line}" + (f", column {self.column}" if self.column else "")
        return f"{where}: {self.message}"


# --- the environment transformers builds ---------------------------------------------------------


class _GenerationTag(jinja2.ext.Extension):
    """``{% generation %}...{% endgeneration %}``: transformers' AssistantTracker, rendering the body."""

    tags = {"generation"}

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.Scope(body, lineno=lineno)


def _raise_exception(message: str) -> None:
    raise jinja2.exceptions.TemplateError(message)


def _tojson(x: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:  # fmt: skip
    # transformers overrides jinja's tojson: no HTML escaping, and these options exposed
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


class _TemplateDict:
    """transformers' ``dict`` global: builds dicts without exposing the type to the template."""

    def __call__(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict(*args, **kwargs)

    def fromkeys(self, *args: Any, **kwargs: Any) -> dict[Any, Any]:
        return dict.fromkeys(*args, **kwargs)


class _TemplateNamespace(jinja2.utils.Namespace):
    """transformers' ``namespace`` global: refuses underscore-prefixed attributes."""

    def __init__(*args: Any, **kwargs: Any) -> None:  # jinja's own signature trick
        self, rest = args[0], args[1:]
        attrs = dict(*rest, **kwargs)
        for name in attrs:
            _TemplateNamespace._check_name(name)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name: str, value: Any) -> None:
        _TemplateNamespace._check_name(name)
        jinja2.utils.Namespace.__setitem__(self, name, value)

    @staticmethod
    def _check_name(name: object) -> None:
        if isinstance(name, str) and name.startswith("_"):
            raise jinja2.exceptions.SecurityError(f"namespace attribute {name!r} starts with an underscore")


@lru_cache(maxsize=1)
def _environment() -> BoundedSandbox:
    env = BoundedSandbox(trim_blocks=True, lstrip_blocks=True, extensions=[_GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["dict"] = _TemplateDict()
    env.globals["namespace"] = _TemplateNamespace
    return env


@lru_cache(maxsize=16)
def compile_template(template: str) -> jinja2.Template:
    """The compiled template (cached: compiling gemma-4's 12 KB template is not free).

    Raises ``ChatTemplateError`` for a syntax error, a template nesting too deeply or one that takes
    longer than the deadline to compile.
    """
    try:
        return bounded_compile(_environment(), template)
    except jinja2.TemplateSyntaxError as exc:
        raise _error(template, exc.message or str(exc), exc.lineno) from None
    except TemplateBoundError as exc:
        raise _error(template, str(exc), exc.lineno, exceeded=True) from None


def render_chat(
    template: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    bos_token: str = "",
    eos_token: str = "",
    add_generation_prompt: bool = True,
    tools: list[Any] | None = None,
    documents: list[Any] | None = None,
    extra: Mapping[str, object] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> str:
    """``template`` rendered on ``messages`` as ``apply_chat_template(..., tokenize=False)`` does.

    ``extra`` adds variables (``enable_thinking``, ``date_string`` ...); the named arguments win over
    it. Raises ``ChatTemplateError`` (line, column, context) when the template fails, and when it
    exceeds ``limits`` (time, output, sizes; raised to fit large conversations, ``Limits.scaled``).
    """
    compiled = compile_template(template)
    variables: dict[str, Any] = dict(extra or {})
    variables.update(messages=normalize_messages(messages), tools=tools, documents=documents,
                     add_generation_prompt=add_generation_prompt, bos_token=bos_token, eos_token=eos_token)  # fmt: skip
    try:
        return bounded_render(compiled, variables, limits.scaled(input_size(variables)))
    except jinja2.TemplateSyntaxError as exc:  # an {% include %} or similar compiled late
        raise _error(template, exc.message or str(exc), exc.lineno) from None
    except TemplateBoundError as exc:
        raise _error(template, str(exc), exc.lineno or template_line(exc.__traceback__), exceeded=True) from None
    except RecursionError:
        raise _error(template, "recursion too deep", template_line(sys.exc_info()[2]), exceeded=True) from None
    except MemoryError:
        raise _error(template, "out of memory", template_line(sys.exc_info()[2]), exceeded=True) from None
    except Exception as exc:  # anything else a template makes Python raise is the template's error
        raise _error(template, _message(exc), template_line(exc.__traceback__)) from None


_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
"""Names a message's reasoning goes under; transformers fills the first two from any of them."""


def normalize_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Messages as transformers hands them to the template: keys whose value is None dropped, and
    ``reasoning_content``/``thinking`` filled from whichever reasoning field is set.

    >>> normalize_messages([{"role": "assistant", "content": None, "reasoning": "hm"}])
    [{'thinking': 'hm', 'role': 'assistant', 'reasoning': 'hm', 'reasoning_content': 'hm'}]
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        m = {k: v for k, v in message.items() if v is not None}
        reasoning = next((m[k] for k in _REASONING_FIELDS if m.get(k) is not None), None)
        if reasoning is not None:
            m = {"thinking": reasoning, **m, "reasoning_content": reasoning}
        out.append(m)
    return out


def templates_of(metadata: Mapping[str, Any]) -> dict[str, str]:
    """The chat templates a GGUF file carries: ``"default"`` for ``tokenizer.chat_template``, then each
    name listed in ``tokenizer.chat_templates`` that has a ``tokenizer.chat_template.<name>`` string.

    >>> templates_of({"tokenizer.chat_template": "A", "tokenizer.chat_templates": ["rag"],
    ...               "tokenizer.chat_template.rag": "B"})
    {'default': 'A', 'rag': 'B'}
    """
    out: dict[str, str] = {}
    default = metadata.get(TEMPLATE_KEY)
    if isinstance(default, str):
        out["default"] = default
    names = metadata.get(TEMPLATES_LIST_KEY)
    if isinstance(names, (list, tuple)):
        for name in names:
            value = metadata.get(f"{TEMPLATE_KEY}.{name}") if isinstance(name, str) else None
            if isinstance(value, str):
                out[name] = value
    return out


# --- locating the error ---------------------------------------------------------------------------


def _message(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if not isinstance(exc, jinja2.TemplateError):
        text = f"{type(exc).__name__}: {text}"
    return " ".join(text.split())


def template_line(tb: Any) -> int | None:
    """The innermost template line in a traceback (jinja2 rewrites frames to ``<template>`` lines)."""
    line = None
    for frame in traceback.extract_tb(tb):
        if frame.filename == "<template>":
            line = frame.lineno
    return line


_QUOTED = re.compile(r"'([^']+)'")


def error_column(line_text: str, message: str, *, raise_call_always: bool = False) -> int | None:
    """Where on the line the error is: the first quoted name in the message found there (jinja2
    gives no columns; ``'x' is undefined`` and ``unexpected '}'`` quote the culprit), else the
    ``raise_exception`` call (unless the message names it, or ``raise_call_always``)."""
    for name in reversed(_QUOTED.findall(message)):
        if name in ("dict object", "list object", "str object"):
            continue
        at = line_text.find(name)
        if at >= 0:
            return at + 1
    at = line_text.find("raise_exception")
    return at + 1 if at >= 0 and (raise_call_always or "raise_exception" not in message) else None


def _error(template: str, message: str, line: int | None, *, exceeded: bool = False) -> ChatTemplateError:
    lines = template.split("\n")
    if line is None or not 1 <= line <= len(lines):
        return ChatTemplateError(message, line=line, column=None, context="", exceeded=exceeded)
    column = error_column(lines[line - 1], message)
    return ChatTemplateError(message, line=line, column=column, context=error_context(lines, line, column),
                             exceeded=exceeded)  # fmt: skip


def error_context(lines: Sequence[str], line: int, column: int | None) -> str:
    """Numbered source lines around ``line`` (1-based) and a caret under ``column``; long lines are
    cut to a window around the column so a one-line template stays readable."""
    first, last = max(1, line - CONTEXT_LINES), min(len(lines), line + CONTEXT_LINES)
    width = len(str(last))
    start = 0
    if column is not None and column > CONTEXT_WIDTH * 2 // 3:
        start = column - CONTEXT_WIDTH // 3
    out: list[str] = []
    for n in range(first, last + 1):
        text = lines[n - 1]
        shown = text[start : start + CONTEXT_WIDTH]
        prefix = "…" if start and len(text) > start else ""
        suffix = "…" if len(text) > start + CONTEXT_WIDTH else ""
        mark = ">" if n == line else " "
        out.append(f"{mark}{n:>{width}} | {prefix}{shown}{suffix}")
        if n == line and column is not None:
            out.append(" " * (width + 4 + len(prefix) + column - 1 - start) + "^")
    return "\n".join(out)
