"""What the Chat view's worker renders: one request (``ChatRequest``, the view's inputs read on the UI
thread) and its render with the request's controls as ``tui-tok chat`` passes them
(``explore.chat.controls``). Pure: no widgets, called off the UI thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tui_tok.explore.chat.controls import server_request, transformers_variables
from tui_tok.explore.chat.llama_server.runtime import RUNTIMES
from tui_tok.explore.chat.prompt import ChatPrompt, chat_prompt
from tui_tok.explore.chat.variables import ChatInputError
from tui_tok.tokenizer.tokenizer import Tokenizer


@dataclass(frozen=True, slots=True)
class ChatRequest:
    generation: int
    template: str
    messages: list[dict[str, Any]]
    add_generation_prompt: bool
    variables: str
    tools: str
    runtime: str = RUNTIMES[0]
    tool_use: str | None = None
    """The file's ``tool_use`` template (llama-server renders tools with it)."""
    thinking: str = "auto"
    reasoning_effort: str | None = None
    continue_final_message: str | None = None


def render_request(tok: Tokenizer, request: ChatRequest, msgs: Any, runtime: str, tools: list[Any] | None,
                   extra: dict[str, object], *, locate: bool = False, agp: bool | None = None,
                   turn: bool = False) -> ChatPrompt:  # fmt: skip
    """``msgs`` rendered by ``runtime`` and tokenized, with the request's controls; ``agp`` instead of
    its add_generation_prompt; ``turn``: as a later request sees the turn (nothing continued or prefilled)."""
    if runtime == "transformers" and not request.template:
        raise ChatInputError(
            "no chat template (transformers has no fallback; llama-server renders ChatML): "
            "^L loads a template file, ^S types one"
        )
    add = request.add_generation_prompt if agp is None else agp
    server = server_request(add_generation_prompt=add, thinking=request.thinking,
                            reasoning_effort=request.reasoning_effort, prefill_assistant=not turn,
                            continue_final_message=None if turn else request.continue_final_message)  # fmt: skip
    variables = (
        transformers_variables(extra, request.thinking, request.reasoning_effort)
        if runtime == "transformers"
        else extra
    )
    return chat_prompt(tok, request.template, msgs, runtime=runtime, tools=tools, extra=variables,
                       add_generation_prompt=server.add_generation_prompt, tool_use_template=request.tool_use,
                       locate_messages=locate, request=server)  # fmt: skip


def parse_tools(text: str) -> list[Any] | None:
    """The tools box: None when empty, else a JSON list (bounded like every JSON input)."""
    if not text.strip():
        return None
    from tui_tok.json_input import JSONInputError, load_json

    try:
        tools = load_json(text)
    except JSONInputError as exc:
        raise ChatInputError(f"tools: {exc}") from None
    if not isinstance(tools, list):
        raise ChatInputError("tools: expected a JSON list")
    return tools
