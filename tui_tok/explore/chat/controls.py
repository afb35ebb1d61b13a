"""What a chat request sets besides the conversation, as ``tui-tok chat`` and the Chat view pass it.

One place for both, so that the view's thinking, reasoning-effort and continue controls give the
command line's prompt for the same choices (``cli/chat.py``'s ``--thinking``, ``--reasoning-effort``,
``--continue``, ``--set``/``--kwargs``):

- llama-server: ``LlamaServerRequest``; thinking ``auto`` is the server's default (``enable_thinking``
  on, which the template sees only when it can think), ``off`` turns it off. The template variables are
  the request's ``chat_template_kwargs``: an ``enable_thinking`` among them wins over the thinking
  control, as llama-server lets it; the reasoning-effort control is the request's own field, set after
  the kwargs (``reasoning_effort: "none"`` turns thinking off), as llama-server does
  (``apply.server_inputs``). Continuing the last message leaves out the generation prompt.
- transformers: the template variables, with ``enable_thinking`` and ``reasoning_effort`` added from
  the controls when they are set and the variables do not name them (the variables win);
  ``continue`` only leaves out the generation prompt.
"""

from __future__ import annotations

from collections.abc import Mapping

from tui_tok.explore.chat.llama_server.apply import LlamaServerRequest

THINKING = ("auto", "on", "off")
"""The thinking control: ``auto`` is each runtime's default (no ``--thinking``)."""

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high")
"""Levels offered by the Chat view (the command line takes any string)."""


def server_request(*, add_generation_prompt: bool = True, thinking: str | None = None,
                   reasoning_effort: str | None = None, continue_final_message: str | None = None,
                   prefill_assistant: bool = True) -> LlamaServerRequest:  # fmt: skip
    """The llama-server request for these choices (``thinking`` None or ``"auto"``: the default)."""
    return LlamaServerRequest(add_generation_prompt=add_generation_prompt and continue_final_message is None,
                              enable_thinking=thinking != "off", reasoning_effort=reasoning_effort,
                              continue_final_message=continue_final_message,
                              prefill_assistant=prefill_assistant)  # fmt: skip


def transformers_variables(extra: Mapping[str, object], thinking: str | None = None,
                           reasoning_effort: str | None = None) -> dict[str, object]:  # fmt: skip
    """The template variables transformers renders with: ``extra``, then the controls where it is silent."""
    variables = dict(extra)
    if thinking in ("on", "off"):
        variables.setdefault("enable_thinking", thinking == "on")
    if reasoning_effort is not None:
        variables.setdefault("reasoning_effort", reasoning_effort)
    return variables
