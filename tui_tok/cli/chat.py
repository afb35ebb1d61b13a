"""``tui-tok chat MODEL --messages FILE|-``: a conversation through the model's chat template.

Renders the GGUF file's chat template as transformers' ``apply_chat_template`` does (``--template
NAME`` picks ``tokenizer.chat_template.NAME``) and prints the text; ``--json`` prints ``{"text":
rendered, "ids": [...], "injections": [...]}`` where the ids are what llama.cpp feeds the model (BOS/EOS
texts the vocab adds itself dropped, then tokenized with add_special and parse_special on); to a terminal
the text's controls are shown as ``␛``/``⟨009B⟩`` unless ``--raw`` is given. Message text
that would be read as a special token is reported on stderr. ``--set KEY=VALUE`` adds a template
variable, parsed as JSON when it parses (``enable_thinking=false``), else kept as a string. A template
that fails is one line naming the template line, exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from tui_tok.cli.terminal import add_raw_flag, escape_for_terminal
from tui_tok.cli.model_arg import MODEL_HELP
from tui_tok.explore.chat.variables import ChatInputError, parse_variables
from tui_tok.explore.visible import json_dumps, visible


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("chat", help="render a conversation with the model's chat template",
                              description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("model", help=MODEL_HELP)
    p.add_argument("--messages", required=True, metavar="FILE|-",
                   help='JSON list of {"role", "content"} messages ("-": stdin)')  # fmt: skip
    p.add_argument("--tools", metavar="FILE", help="JSON list of tool definitions")
    p.add_argument("--template", metavar="NAME", help="use tokenizer.chat_template.NAME (default: the default one)")
    p.add_argument("--no-generation-prompt", dest="add_generation_prompt", action="store_false",
                   help="do not add the assistant header that asks for an answer")  # fmt: skip
    p.add_argument("--set", dest="variables", action="append", default=[], metavar="KEY=VALUE",
                   help="template variable (JSON value, else a string); repeatable")  # fmt: skip
    p.add_argument("--json", action="store_true", help='print {"text": ..., "ids": [...]} instead of the text')
    add_raw_flag(p)
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tui_tok.explore.chat.prompt import chat_prompt
    from tui_tok.explore.chat.render import templates_of
    from tui_tok.sources import read_model
    from tui_tok.loader import load_tokenizer

    messages, file_tools = read_conversation(args.messages)
    tools = _read_json(args.tools, "tools") if args.tools else file_tools
    if tools is not None and not isinstance(tools, list):
        raise ChatInputError(f"{args.tools}: expected a JSON list of tools")
    extra = parse_variables(args.variables)
    gguf = read_model(args.model, texts=("tokenizer.ggml.merges",))
    templates = templates_of(gguf.metadata)
    name = args.template or "default"
    if name not in templates:
        if not templates:
            raise ChatInputError(f"{args.model}: no chat template (tokenizer.chat_template is not set)")
        raise ChatInputError(f"{args.model}: no chat template named {name!r}; it has: {', '.join(templates)}")
    tok = load_tokenizer(gguf)
    prompt = chat_prompt(tok, templates[name], messages, add_generation_prompt=args.add_generation_prompt,
                         tools=tools, extra=extra, locate_messages=False)  # fmt: skip
    for inj in prompt.injections:
        print(f"tui-tok: warning: message {inj.message} ({visible(str(messages[inj.message].get('role')))}) {inj.field} "
              f"character {inj.start}: {inj.text!r} is read as special token {inj.token_id}", file=sys.stderr)  # fmt: skip
    if args.json:
        record = {"text": prompt.rendered, "ids": prompt.ids,
                  "injections": [{"message": i.message, "field": i.field, "start": i.start, "text": i.text,
                                  "token_id": i.token_id} for i in prompt.injections]}  # fmt: skip
        sys.stdout.write(json_dumps(record) + "\n")
    else:
        # the template's text: to a terminal its controls are shown, not obeyed (--raw: as it is)
        text = visible(prompt.rendered, lines=True) if escape_for_terminal(args) else prompt.rendered
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")
    return 0


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
            raise ChatInputError(f"{where}: message {i}: expected an object with a string \"role\"")
    return messages


def _read_json(source: str, what: str) -> Any:
    from tui_tok.json_input import JSONInputError, load_json, read_file, read_stream

    where = "stdin" if source == "-" else source
    try:  # bounded: size, nesting and count of arrays and objects (tui_tok/json_input.py)
        raw = read_stream(getattr(sys.stdin, "buffer", sys.stdin)) if source == "-" else read_file(source, regular_only=False)
        return load_json(raw)
    except JSONInputError as exc:
        verb = " are" if str(exc).startswith("not JSON") else ":"
        raise ChatInputError(f"{where}: the {what}{verb} {exc}") from None
