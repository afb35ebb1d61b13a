"""``tui-tok chat MODEL --messages FILE|-``: a conversation through the model's chat template.

Two runtimes render it. ``--runtime llama-server`` (the default: GGUF files are run by llama.cpp)
builds the prompt as ``llama-server --jinja`` does (llama.cpp's Jinja engine and chat code: thinking
on where the template can think, the file's ``tool_use`` template when tools are given, a system
message folded into the first user message where the template has no system role ...);
``--runtime transformers`` renders as transformers' ``apply_chat_template`` does. Either way the ids
are what llama.cpp feeds the model (BOS/EOS texts the vocab adds itself dropped, then tokenized with
add_special and parse_special on); to a terminal the text's controls are shown as ``␛``/``⟨009B⟩``
unless ``--raw`` is given.

Prints the text; ``--json`` prints ``{"runtime", "text", "ids", "injections", "runtimes_differ"}``,
``runtimes_differ`` saying where the other runtime's prompt parts from this one (first differing
character and token, what each has there), or its refusal; absent when both give the same ids.
``"prefix_reuse"`` lists, for each of the last 8 assistant turns a user or tool message follows, the ids
llama-server's slot holds after it (its request's prompt, then the turn as rendered) against the next
request's prompt: the ``shared`` leading ids (what its KV cache reuses), and where they part
(``token``, ``char``, a few characters of each side); ``"budget"`` the prompt's tokens against the
model's trained context (``context_length``, null when the file has none), per message, and the tokens
the tools add (the prompt rendered with them minus without). ``--reuse`` prints both as text after the
prompt. Message text that would be read as a special token is reported on stderr. ``--set KEY=VALUE`` adds a
template variable (llama-server: a ``chat_template_kwargs`` entry), parsed as JSON when it parses
(``enable_thinking=false``), else kept as a string; ``--kwargs JSON`` adds several. A template that
fails, or a conversation llama.cpp refuses, is one line (naming the template line), exit code 2.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from typing import Any

from tui_tok.cli.model_arg import MODEL_HELP
from tui_tok.cli.terminal import add_raw_flag, escape_for_terminal
from tui_tok.explore.chat.controls import server_request, transformers_variables
from tui_tok.explore.chat.llama_server.apply import CONTINUATIONS, LlamaServerRequest
from tui_tok.explore.chat.llama_server.runtime import RUNTIMES
from tui_tok.explore.chat.variables import ChatInputError, parse_variables
from tui_tok.explore.visible import json_dumps, visible


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("chat", help="render a conversation with the model's chat template",
                              description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("model", help=MODEL_HELP)
    p.add_argument("--messages", required=True, metavar="FILE|-",
                   help='JSON list of {"role", "content"} messages ("-": stdin)')  # fmt: skip
    p.add_argument("--tools", metavar="FILE", help="JSON list of tool definitions")
    p.add_argument("--runtime", choices=RUNTIMES, default=RUNTIMES[0],
                   help="who renders the template (default: llama-server, as llama.cpp runs GGUF files)")  # fmt: skip
    p.add_argument("--template", metavar="NAME", help="use tokenizer.chat_template.NAME (default: the default one)")
    p.add_argument("--template-file", metavar="FILE",
                   help="use this template instead of the file's (as llama-server's --chat-template-file)")  # fmt: skip
    p.add_argument("--no-generation-prompt", dest="add_generation_prompt", action="store_false",
                   help="do not add the assistant header that asks for an answer")  # fmt: skip
    p.add_argument("--continue", dest="continue_final_message", nargs="?", const="auto", choices=CONTINUATIONS,
                   help="continue the last message (llama-server's continue_final_message; implies "
                        "--no-generation-prompt)")  # fmt: skip
    p.add_argument("--no-prefill-assistant", dest="prefill_assistant", action="store_false",
                   help="llama-server: do not continue a last assistant message (its --no-prefill-assistant)")  # fmt: skip
    p.add_argument("--thinking", choices=("on", "off"),
                   help="enable_thinking (llama-server's default: on; transformers: the template's default)")  # fmt: skip
    p.add_argument("--reasoning-effort", metavar="LEVEL",
                   help="the request's reasoning_effort (llama-server: 'none' turns thinking off)")  # fmt: skip
    p.add_argument("--set", dest="variables", action="append", default=[], metavar="KEY=VALUE",
                   help="template variable / chat_template_kwargs entry (JSON value, else a string); repeatable")  # fmt: skip
    p.add_argument("--kwargs", metavar="JSON", help="chat_template_kwargs as a JSON object")
    p.add_argument("--json", action="store_true", help='print {"runtime", "text", "ids", ...} instead of the text')
    p.add_argument("--reuse", action="store_true",
                   help="after the text, the context budget and each assistant turn's KV-cache prefix reuse")  # fmt: skip
    add_raw_flag(p)
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_tok.explore.chat.llama_server.differ import with_other_runtime
    from tui_tok.explore.chat.prompt import chat_prompt
    from tui_tok.explore.chat.render import templates_of
    from tui_tok.loader import load_tokenizer
    from tui_tok.sources import read_model

    messages, file_tools = read_conversation(args.messages)
    tools = _read_json(args.tools, "tools") if args.tools else file_tools
    if tools is not None and not isinstance(tools, list):
        raise ChatInputError(f"{args.tools}: expected a JSON list of tools")
    extra = kwargs_of(args)
    gguf = read_model(args.model, texts=("tokenizer.ggml.merges",))
    template, tool_use = pick_templates(args, templates_of(gguf.metadata))
    request = server_request(add_generation_prompt=args.add_generation_prompt, thinking=args.thinking,
                             reasoning_effort=args.reasoning_effort, continue_final_message=args.continue_final_message,
                             prefill_assistant=args.prefill_assistant)  # fmt: skip
    tok = load_tokenizer(gguf)

    def build(
        runtime: str, locate: bool = False, msgs: Any = messages, req: LlamaServerRequest = request, tools: Any = tools
    ) -> Any:
        if runtime == "transformers":
            if template is None:
                raise ChatInputError(f"{args.model}: no chat template (tokenizer.chat_template is not set)")
            variables = transformers_variables(extra, args.thinking, args.reasoning_effort)
            return chat_prompt(tok, template, msgs, add_generation_prompt=req.add_generation_prompt, tools=tools,
                               extra=variables, locate_messages=locate)  # fmt: skip
        return chat_prompt(tok, template or "", msgs, add_generation_prompt=req.add_generation_prompt,
                           tools=tools, extra=extra, locate_messages=locate, runtime=runtime,
                           tool_use_template=tool_use, request=req)  # fmt: skip

    locate = args.json or args.reuse  # the budget counts each message's tokens
    if args.json:
        prompt, differ = with_other_runtime(lambda r: build(r, locate=r == args.runtime), args.runtime)
    else:
        prompt, differ = build(args.runtime, locate=locate), None
    reuse: Any = None
    if locate:  # each turn as a later request sees it: no continuation, the assistant message whole
        from tui_tok.explore.chat.reuse import budget, context_length, prefix_reuse, tools_count

        def turn(msgs: Any, agp: bool) -> Any:
            return build(args.runtime, msgs=msgs, req=replace(request, add_generation_prompt=agp, continue_final_message=None,
                                                              prefill_assistant=False))  # fmt: skip

        tools_tokens, method = tools_count(lambda: build(args.runtime, msgs=messages, tools=None), prompt, tools)
        reuse = (prefix_reuse(tok, messages, turn), budget(prompt, context_length(gguf.metadata), tools_tokens, method))
    for inj in prompt.injections:
        print(f"tui-tok: warning: message {inj.message} ({visible(str(messages[inj.message].get('role')))}) {inj.field} "
              f"character {inj.start}: {inj.text!r} is read as special token {inj.token_id}", file=sys.stderr)  # fmt: skip
    if args.json:
        record: dict[str, Any] = {"runtime": args.runtime, "text": prompt.rendered, "ids": prompt.ids,
                                  "injections": [{"message": i.message, "field": i.field, "start": i.start,
                                                  "text": i.text, "token_id": i.token_id} for i in prompt.injections]}  # fmt: skip
        if differ is not None:
            record["runtimes_differ"] = differ
        record["prefix_reuse"] = [t.as_json() for t in reuse[0]]
        record["budget"] = reuse[1]
        sys.stdout.write(json_dumps(record) + "\n")
    else:
        # the template's text: to a terminal its controls are shown, not obeyed (--raw: as it is)
        text = visible(prompt.rendered, lines=True) if escape_for_terminal(args) else prompt.rendered
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
        if reuse is not None:
            from tui_tok.explore.chat.reuse import describe_budget, describe_turn

            print(describe_budget(reuse[1]))
            for t in reuse[0]:
                print(visible(describe_turn(t)))
    return 0


def kwargs_of(args: argparse.Namespace) -> dict[str, object]:
    """``--kwargs`` (a JSON object) then the ``--set`` items."""
    out: dict[str, object] = {}
    if args.kwargs is not None:
        from tui_tok.json_input import JSONInputError, load_json

        try:  # bounded like every JSON input (tui_tok/json_input.py)
            value = load_json(args.kwargs)
        except JSONInputError as exc:
            raise ChatInputError(f"--kwargs: {exc}") from None
        if not isinstance(value, dict):
            raise ChatInputError("--kwargs: expected a JSON object")
        out.update(value)
    out.update(parse_variables(args.variables))
    return out


def pick_templates(args: argparse.Namespace, templates: dict[str, str]) -> tuple[str | None, str | None]:
    """(template, tool_use template) as the options choose them: ``--template-file`` or a named one
    replaces the file's templates (llama.cpp then ignores its ``tool_use`` one); None for none."""
    if args.template_file is not None:
        from tui_tok.explore.chat.template_file import read_template_file

        return read_template_file(args.template_file, regular_only=False), None  # bounded; a pipe is read
    name = args.template or "default"
    if args.template is not None and name not in templates:
        if not templates:
            raise ChatInputError(f"{args.model}: no chat template (tokenizer.chat_template is not set)")
        raise ChatInputError(f"{args.model}: no chat template named {name!r}; it has: {', '.join(templates)}")
    if not templates and args.runtime == "transformers":
        raise ChatInputError(f"{args.model}: no chat template (tokenizer.chat_template is not set)")
    if args.template is not None and name != "default":
        return templates[name], None
    return templates.get("default"), templates.get("tool_use")


def read_conversation(source: str) -> tuple[list[dict[str, Any]], list[Any] | None]:
    """``--messages``: a JSON list of messages, or an object with ``"messages"`` and optionally
    ``"tools"`` (a session file saved by the explorer, ``explore/session_file.py``)."""
    from tui_tok.explore.session_file import conversation_of

    doc = _read_json(source, "messages")
    if isinstance(doc, dict):
        return conversation_of(doc, "stdin" if source == "-" else source)
    return read_messages_list(doc, source), None


def read_messages(source: str) -> list[dict[str, Any]]:
    """The ``--messages`` list, checked: objects with a string ``role``."""
    return read_messages_list(_read_json(source, "messages"), source)


def read_messages_list(messages: Any, source: str) -> list[dict[str, Any]]:
    where = "stdin" if source == "-" else source
    if not isinstance(messages, list):
        raise ChatInputError(f"{where}: expected a JSON list of messages")
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise ChatInputError(f'{where}: message {i}: expected an object with a string "role"')
    return messages


def _read_json(source: str, what: str) -> Any:
    from tui_tok.json_input import JSONInputError, load_json, read_file, read_stream

    where = "stdin" if source == "-" else source
    try:  # bounded: size, nesting and count of arrays and objects (tui_tok/json_input.py)
        raw = (
            read_stream(getattr(sys.stdin, "buffer", sys.stdin))
            if source == "-"
            else read_file(source, regular_only=False)
        )
        return load_json(raw)
    except JSONInputError as exc:
        verb = " are" if str(exc).startswith("not JSON") else ":"
        raise ChatInputError(f"{where}: the {what}{verb} {exc}") from None
