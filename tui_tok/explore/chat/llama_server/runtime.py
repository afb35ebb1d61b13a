"""The llama-server runtime's entry point: ``apply`` with every failure as one ``ChatTemplateError``.

llama.cpp refuses a conversation with one message (a parse error of the request, a template's
``raise_exception``, an operation its engine does not have); the same refusal here is a
``ChatTemplateError`` naming the template line when the failure is inside the template.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import jinja2

from tui_tok.explore.chat.bounds import DEFAULT_LIMITS, TemplateBoundError, with_deadline
from tui_tok.explore.chat.llama_server.apply import LlamaServerRender, LlamaServerRequest, apply
from tui_tok.explore.chat.llama_server.values import LlamaError
from tui_tok.explore.chat.render import ChatTemplateError, error_column, error_context, template_line

REQUEST_SECONDS = DEFAULT_LIMITS.seconds
"""Deadline of one request's probes and render together (a render's own): a template slow on every probe still
answers within it, not after one deadline per probe."""


class LlamaServerRefusal(ChatTemplateError):
    """A request llama-server refuses before rendering (its message parsing, its request checks)."""

    def __str__(self) -> str:
        return f"llama-server: {self.message}"


RUNTIMES = ("llama-server", "transformers")
"""The chat runtimes, the default (GGUF files are run by llama.cpp) first."""


def render_llama_server(
    template: str | None,
    messages: Sequence[Mapping[str, Any]],
    *,
    tool_use_template: str | None = None,
    tools: Sequence[Any] | None = None,
    bos_token: str = "",
    eos_token: str = "",
    add_bos: bool = False,
    add_eos: bool = False,
    request: LlamaServerRequest = LlamaServerRequest(),
) -> LlamaServerRender:
    """The prompt text llama-server builds (BOS/EOS texts the vocab adds already dropped).

    ``template`` is the file's default template (None or "" for none: ChatML, as llama.cpp);
    ``tool_use_template`` its ``tokenizer.chat_template.tool_use``. Raises ``ChatTemplateError``.
    """
    source = template or tool_use_template or ""
    try:
        # one deadline over the probes and the render together (each render has its own as well)
        return with_deadline(REQUEST_SECONDS, "render", apply, template, messages, tool_use_template=tool_use_template,
                             tools=tools, bos_token=bos_token, eos_token=eos_token, add_bos=add_bos,
                             add_eos=add_eos, request=request)  # fmt: skip
    except TemplateBoundError as exc:
        raise _error(source, str(exc), exc.lineno or template_line(exc.__traceback__), exceeded=True) from None
    except jinja2.TemplateSyntaxError as exc:
        raise _error(source, exc.message or str(exc), exc.lineno) from None
    except RecursionError:
        raise _error(source, "recursion too deep", template_line(sys.exc_info()[2]), exceeded=True) from None
    except MemoryError:
        raise _error(source, "out of memory", template_line(sys.exc_info()[2]), exceeded=True) from None
    except (LlamaError, jinja2.TemplateError, ArithmeticError, LookupError, TypeError, ValueError,
            AttributeError) as exc:  # fmt: skip
        raise _error(source, _message(exc), template_line(exc.__traceback__)) from None


def llama_server_renderer(
    template: str | None,
    messages: Sequence[Mapping[str, Any]],
    tool_use_template: str | None,
    tools: Sequence[Any] | None,
    bos: str,
    eos: str,
    add_bos: bool,
    add_eos: bool,
    add_generation_prompt: bool,
    kwargs: Mapping[str, object] | None,
    request: LlamaServerRequest | None,
) -> tuple[Callable[[Sequence[Mapping[str, Any]], bool], str], LlamaServerRender]:
    """For ``prompt.chat_prompt``: a render function of (messages, add_generation_prompt) for the
    prefix renders (nothing continued), and the render of ``messages`` (prompt, format name, dropped BOS/EOS). ``kwargs`` are added to the
    request's ``chat_template_kwargs``."""
    base = request or LlamaServerRequest()
    if kwargs:
        base = replace(base, chat_template_kwargs={**base.chat_template_kwargs, **kwargs})
    full = replace(base, add_generation_prompt=add_generation_prompt)

    def render(msgs: Sequence[Mapping[str, Any]], agp: bool) -> str:
        # a prefix of the conversation: its messages closed, nothing continued
        req = replace(full, add_generation_prompt=agp, continue_final_message=None, prefill_assistant=False)
        return render_llama_server(template, msgs, tool_use_template=tool_use_template, tools=tools, bos_token=bos,
                                   eos_token=eos, add_bos=add_bos, add_eos=add_eos, request=req).prompt  # fmt: skip

    result = render_llama_server(template, messages, tool_use_template=tool_use_template, tools=tools, bos_token=bos,
                                 eos_token=eos, add_bos=add_bos, add_eos=add_eos, request=full)  # fmt: skip
    return render, result


def _message(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if not isinstance(exc, (jinja2.TemplateError, LlamaError)):
        text = f"{type(exc).__name__}: {text}"
    return " ".join(text.split())


def _error(template: str, message: str, line: int | None, *, exceeded: bool = False) -> ChatTemplateError:
    lines = template.split("\n")
    if exceeded and (line is None or not 1 <= line <= len(lines)):
        return ChatTemplateError(message, line=None, column=None, context="", exceeded=True)
    if line is None or not 1 <= line <= len(lines):
        return LlamaServerRefusal(message, line=None, column=None, context="")
    column = error_column(lines[line - 1], message, raise_call_always=True)
    return ChatTemplateError(message, line=line, column=column, context=error_context(lines, line, column),
                             exceeded=exceeded)  # fmt: skip
