"""Explorer sessions as JSON files: what was typed and chosen, to reopen it later or elsewhere.

A session file is one JSON object (``FORMAT`` names it, ``VERSION`` its version)::

    {"format": "tui-tok-session", "version": 1, "model": "/models/qwen3-vocab.gguf",
     "text": "Hello\\r\\nworld",                     (or "text_base64": the bytes, see below)
     "toggles": {"add_special": true, "parse_special": false, ...},
     "messages": [{"role": "user", "content": "Hi"}, ...], "tools": [...],
     "chat": {"template": "default", "add_generation_prompt": true, "variables": "enable_thinking=false",
              "tools_text": "[...]", "runtime": "llama-server", "thinking": "auto", "reasoning_effort": null,
              "continue_final_message": null, "templates": {"my.jinja": "{% for m in messages %}..."}},
     "compare": "other.gguf"}

``messages`` and ``tools`` sit at the top, so ``tui-tok chat --messages FILE`` reads a session as a
conversation (``conversation_of``). ``text`` is exact: a JSON string keeps CR, NUL and every other
character; a text holding bytes that are not UTF-8 (U+DC80-DCFF, as the explorer holds them) is
written as ``text_base64`` instead, because a lone surrogate is not valid in every JSON reader (another lone surrogate, which no
byte read from a file or terminal becomes, is kept as its 3 UTF-8 bytes).
``tools_text`` is the tools box as typed (it may not be JSON yet); ``tools`` is the parsed list
when it is. ``templates`` holds the templates loaded from files or edited in the Chat view (by the name
the view gives them; at most ``MAX_TEMPLATES`` of at most ``MAX_TEMPLATE_BYTES`` characters each), so
that ``template`` can name one of them; ``runtime``, ``thinking``, ``reasoning_effort`` and
``continue_final_message`` are the view's request controls (``explore/chat/controls.py``).
``model`` is the model the session was made with (a local file's absolute path, or its URL):
``tui-tok --session FILE`` without MODEL opens it.

Reading is bounded (``tui_tok.json_input``: size, nesting, count of arrays and objects, checked
before parsing) and every field is checked: bad input raises ``SessionFileError`` naming the file
and the key, in one line.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tui_tok.errors import TuiTokError
from tui_tok.explore.chat.llama_server.runtime import RUNTIMES
from tui_tok.explore.chat.template_file import MAX_TEMPLATE_BYTES
from tui_tok.explore.copy_forms import bytes_of

FORMAT = "tui-tok-session"
VERSION = 1
MAX_BYTES = 256 * 1024 * 1024
"""Larger files are refused unread (a 10 MB text is at most ~60 MB of JSON escapes)."""
TOGGLES = ("add_special", "parse_special", "show_whitespace", "show_pieces", "show_cuts")
"""The Tokenize view's toggles, in its order."""
MAX_TEMPLATES = 32
"""Templates loaded or edited that a session keeps (each at most ``MAX_TEMPLATE_BYTES`` characters)."""


class SessionFileError(TuiTokError):
    """A session file that cannot be read or is not one."""

    exit_code = 2


@dataclass
class ChatState:
    """The Chat view's inputs."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    template: str = "default"
    add_generation_prompt: bool = True
    variables: str = ""
    """The variables field as typed (``KEY=VALUE`` pairs, ``explore.chat.variables``)."""
    tools_text: str = ""
    """The tools box as typed."""
    runtime: str = RUNTIMES[0]
    """Who renders the template (``explore.chat.llama_server.runtime.RUNTIMES``)."""
    thinking: str = "auto"
    """``auto``, ``on`` or ``off``."""
    reasoning_effort: str | None = None
    continue_final_message: str | None = None
    templates: dict[str, str] = field(default_factory=dict)
    """Templates loaded from files or edited in the view, by name (never the file's own)."""


@dataclass
class SessionState:
    """Everything a session file holds."""

    text: str
    """The Tokenize view's text, as the editor holds it (invalid bytes as U+DC80-DCFF)."""
    toggles: dict[str, bool] = field(default_factory=dict)
    chat: ChatState | None = None
    """None: the Chat view was not opened (reopening shows its sample conversation)."""
    compare: str | None = None
    """The compare target as it was named (a path, URL or store name), None without one."""
    model: str | None = None


def to_json(state: SessionState) -> str:
    """The session file's text (``ensure_ascii``: readable by any JSON reader, whatever the terminal)."""
    doc: dict[str, Any] = {"format": FORMAT, "version": VERSION}
    if state.model is not None:
        doc["model"] = state.model
    if any("\ud800" <= c <= "\udfff" for c in state.text):
        doc["text_base64"] = base64.b64encode(bytes_of(state.text)).decode("ascii")
    else:
        doc["text"] = state.text
    doc["toggles"] = {k: state.toggles[k] for k in TOGGLES if k in state.toggles}
    if state.chat is not None:
        chat = state.chat
        doc["messages"] = chat.messages
        tools = _parsed_tools(chat.tools_text)
        if tools is not None:
            doc["tools"] = tools
        doc["chat"] = {"template": chat.template, "add_generation_prompt": chat.add_generation_prompt,
                       "variables": chat.variables, "tools_text": chat.tools_text, "runtime": chat.runtime,
                       "thinking": chat.thinking, "reasoning_effort": chat.reasoning_effort,
                       "continue_final_message": chat.continue_final_message, "templates": chat.templates}  # fmt: skip
    if state.compare is not None:
        doc["compare"] = state.compare
    return json.dumps(doc, indent=1) + "\n"


def save(path: str | Path, state: SessionState) -> None:
    """Write ``state`` to ``path`` (whole or not at all: a temporary file renamed over it)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(to_json(state), encoding="ascii")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise SessionFileError(f"{path}: cannot write the session: {exc.strerror or exc}") from None


def read_json(path: str | Path, what: str = "session") -> Any:
    """The JSON value in ``path``, bounded (``tui_tok.json_input``): refused above ``MAX_BYTES``, nested
    deeper than its ``MAX_DEPTH`` or holding more than its ``MAX_CONTAINERS`` arrays and objects."""
    from tui_tok.json_input import JSONInputError, read_json_file

    try:
        return read_json_file(path, max_bytes=MAX_BYTES, regular_only=False)  # a pipe the user named is read
    except JSONInputError as exc:
        raise SessionFileError(f"{path}: the {what} file: {exc}") from None


def load(path: str | Path) -> SessionState:
    """The session in ``path``; ``SessionFileError`` naming the key when it is not one."""
    return from_json(read_json(path), str(path))


def from_json(doc: Any, where: str) -> SessionState:
    """A session from its parsed JSON (``where`` names it in errors)."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SessionFileError(f'{where}: not a tui-tok session (no "format": "{FORMAT}")')
    version = doc.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= VERSION:
        raise SessionFileError(
            f"{where}: version: {version!r} is not a session version this tui-tok reads (1-{VERSION})"
        )
    if "text_base64" in doc:
        encoded = _typed(doc, "text_base64", str, where)
        try:
            text = base64.b64decode(encoded, validate=True).decode("utf-8", "surrogateescape")
        except (binascii.Error, ValueError):
            raise SessionFileError(f"{where}: text_base64: not base64") from None
    else:
        text = _typed(doc, "text", str, where)
    toggles_doc = _typed(doc, "toggles", dict, where, {})
    toggles: dict[str, bool] = {}
    for key, value in toggles_doc.items():
        if key in TOGGLES:  # an unknown toggle (a newer version's) is left out
            if not isinstance(value, bool):
                raise SessionFileError(f"{where}: toggles.{key}: expected true or false")
            toggles[key] = value
    chat = None
    if "messages" in doc or "chat" in doc:
        chat_doc = _typed(doc, "chat", dict, where, {})
        tools_text = _typed(chat_doc, "tools_text", str, f"{where}: chat", None)
        if tools_text is None and doc.get("tools") is not None:
            tools_text = json.dumps(doc["tools"], indent=1, ensure_ascii=False)
        chat = ChatState(
            messages=conversation_of(doc, where)[0],
            template=_typed(chat_doc, "template", str, f"{where}: chat", "default"),
            add_generation_prompt=_typed(chat_doc, "add_generation_prompt", bool, f"{where}: chat", True),
            variables=_typed(chat_doc, "variables", str, f"{where}: chat", ""),
            tools_text=tools_text or "",
            runtime=_typed(chat_doc, "runtime", str, f"{where}: chat", RUNTIMES[0]),
            thinking=_typed(chat_doc, "thinking", str, f"{where}: chat", "auto"),
            reasoning_effort=_typed(chat_doc, "reasoning_effort", str, f"{where}: chat", None),
            continue_final_message=_typed(chat_doc, "continue_final_message", str, f"{where}: chat", None),
            templates=_templates(_typed(chat_doc, "templates", dict, f"{where}: chat", {}), f"{where}: chat.templates"),
        )
        if chat.runtime not in RUNTIMES:
            raise SessionFileError(f"{where}: chat: runtime: {chat.runtime!r} is not one of {', '.join(RUNTIMES)}")
    compare = _typed(doc, "compare", str, where, None)
    model = _typed(doc, "model", str, where, None)
    return SessionState(text=text, toggles=toggles, chat=chat, compare=compare, model=model)


def conversation_of(doc: Any, where: str) -> tuple[list[dict[str, Any]], list[Any] | None]:
    """``(messages, tools)`` of a conversation file: a JSON list of messages, or an object with
    ``"messages"`` (and optionally ``"tools"``), as a session file is."""
    tools = None
    if isinstance(doc, dict):
        if not isinstance(doc.get("messages"), list):
            raise SessionFileError(f"{where}: messages: expected a JSON list of messages")
        tools = doc.get("tools")
        if tools is not None and not isinstance(tools, list):
            raise SessionFileError(f"{where}: tools: expected a JSON list of tools")
        doc = doc["messages"]
    if not isinstance(doc, list):
        raise SessionFileError(f'{where}: expected a JSON list of messages or an object with "messages"')
    for i, m in enumerate(doc):
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise SessionFileError(f'{where}: messages[{i}]: expected an object with a string "role"')
    return doc, tools


def _typed(doc: dict[str, Any], key: str, kind: type, where: str, default: Any = ...) -> Any:
    if key not in doc:
        if default is ...:
            raise SessionFileError(f"{where}: {key}: missing")
        return default
    value = doc[key]
    if default is None and value is None:
        return None
    names = {str: "a string", bool: "true or false", dict: "an object", int: "a number"}
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise SessionFileError(f"{where}: {key}: expected {names.get(kind, kind.__name__)}")
    return value


def _templates(doc: dict[str, Any], where: str) -> dict[str, str]:
    """The saved templates, checked: strings, bounded in number and size."""
    if len(doc) > MAX_TEMPLATES:
        raise SessionFileError(f"{where}: {len(doc):,} templates, more than the {MAX_TEMPLATES} kept")
    for name, text in doc.items():
        if not isinstance(text, str):
            raise SessionFileError(f"{where}: {name!r}: expected a string")
        if len(text) > MAX_TEMPLATE_BYTES:
            raise SessionFileError(
                f"{where}: {name!r}: {len(text):,} characters, more than the {MAX_TEMPLATE_BYTES:,} allowed"
            )
    return dict(doc)


def _parsed_tools(text: str) -> list[Any] | None:
    """The tools box's list when it holds one (else the file keeps only ``tools_text``)."""
    if not text.strip():
        return None
    try:
        tools = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        return None
    return tools if isinstance(tools, list) else None
