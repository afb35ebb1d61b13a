"""The prompt llama.cpp feeds the model for a conversation, token by token.

llama.cpp's chat code (``common_chat_template_direct_apply``, common/chat.cpp in llama-cpp-python
0.3.36) renders the template with the vocab's BOS/EOS texts (``common_token_to_piece(..., special=
true)``), drops a leading BOS text when the vocab adds BOS itself (``llama_vocab_get_add_bos``) and a
trailing EOS text when it adds EOS; the server then tokenizes the text with ``add_special`` and
``parse_special`` on. ``chat_prompt`` does the same and also says where each message's tokens start
and which message text would be read as a special token (an injection: a user typing ``<|im_end|>``).

Where a message starts is found by rendering the conversation's prefixes (without generation prompt):
when the prefix up to a message is a prefix of the whole text, the boundary is exact. Templates that
render prefixes differently (Qwen3 drops reasoning before the last query) or refuse them fall back to
the message's content located in the text, moved back to the last special token before it.

Does not render (``render.py``) nor read GGUF files.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tui_tok.explore.chat.llama_server.apply import LlamaServerRequest
from tui_tok.explore.chat.llama_server.runtime import llama_server_renderer
from tui_tok.explore.chat.render import ChatTemplateError, render_chat
from tui_tok.tokenizer import Token, TokenAttr, Tokenizer

_PARSE_ONLY = int(TokenAttr.CONTROL | TokenAttr.UNKNOWN)
"""Attributes of tokens the special partition matches only with parse_special (llama-vocab.cpp)."""


@dataclass(frozen=True, slots=True)
class Injection:
    """Text inside a message that the prompt's tokenization reads as a special token."""

    message: int
    """Index of the message."""
    field: str
    """The message field it is in (``content``, ``reasoning_content``...)."""
    token_id: int
    text: str
    """The special token's text as it appears in the message."""
    start: int
    """Character offset of that text in the field's value."""
    prompt_start: int | None
    """Character offset in the prompt text when the field's value was found there, else None."""


@dataclass(frozen=True, slots=True)
class MessageSpan:
    """Where one message lies in the prompt (its header, content and closing markers)."""

    index: int
    role: str
    char_start: int
    """First character of the message's part of the prompt text."""
    char_end: int
    token_start: int
    """Index in ``ChatPrompt.tokens`` of the message's first token."""
    token_count: int
    exact: bool
    """True when found by rendering the conversation up to it; False when located by its content."""
    folded: bool = False
    """No tokens of its own, but its text is in the prompt: inside another message's part (llama-server folds
    a system message into the first user message when the template has no system role)."""


@dataclass(frozen=True, slots=True)
class ChatPrompt:
    """A rendered conversation and the tokens llama.cpp makes of it."""

    rendered: str
    """The template's output, as transformers gives it."""
    text: str
    """What is tokenized: ``rendered`` without the BOS/EOS texts the vocab adds as tokens itself."""
    dropped_bos: bool
    dropped_eos: bool
    tokens: tuple[Token, ...]
    """Tokens of ``text`` (add_special and parse_special on); spans are UTF-8 byte offsets of ``text``."""
    messages: tuple[MessageSpan, ...]
    generation_start: int
    """Index of the first token after the last message (the generation prompt), == len(tokens) if none."""
    injections: tuple[Injection, ...]
    runtime: str = "transformers"
    """Who rendered ``rendered``: ``transformers`` or ``llama-server`` (see ``llama_server/``)."""
    format: str = ""
    """llama-server's ``common_chat_format_name`` for the template ("" for transformers)."""

    @property
    def ids(self) -> list[int]:
        return [t.id for t in self.tokens]


def token_texts(tokenizer: Tokenizer) -> tuple[str, str]:
    """The (BOS, EOS) texts the template gets, '' when the vocab has none (llama.cpp's ``get_token``)."""

    def text(token_id: int) -> str:
        if not 0 <= token_id < tokenizer.vocab.n_tokens:
            return ""
        return tokenizer.token_to_piece(token_id, special=True).decode("utf-8", "replace")

    return text(tokenizer.vocab.bos_id), text(tokenizer.vocab.eos_id)


def chat_prompt(
    tokenizer: Tokenizer,
    template: str,
    messages: Sequence[Mapping[str, Any]],
    *,
    add_generation_prompt: bool = True,
    tools: list[Any] | None = None,
    documents: list[Any] | None = None,
    extra: Mapping[str, object] | None = None,
    locate_messages: bool = True,
    runtime: str = "transformers",
    tool_use_template: str | None = None,
    request: LlamaServerRequest | None = None,
) -> ChatPrompt:
    """Render ``messages`` and tokenize them as llama.cpp does; raises ``ChatTemplateError``.

    ``runtime="llama-server"`` renders as llama-server does (``llama_server/``: ``request`` is what the
    request sets, ``extra`` its ``chat_template_kwargs``). ``locate_messages=False`` skips the prefix
    renders (``messages`` is then empty).
    """
    bos, eos = token_texts(tokenizer)
    vocab = tokenizer.vocab

    def render_transformers(msgs: Sequence[Mapping[str, Any]], agp: bool) -> str:
        return render_chat(template, msgs, bos_token=bos, eos_token=eos, add_generation_prompt=agp,
                           tools=tools, documents=documents, extra=extra)  # fmt: skip

    render: Callable[[Sequence[Mapping[str, Any]], bool], str] = render_transformers
    fmt = ""
    if runtime == "llama-server":  # BOS/EOS texts are dropped by the runtime itself
        render, served = llama_server_renderer(template, messages, tool_use_template, tools, bos, eos, vocab.add_bos,
                                               vocab.add_eos, add_generation_prompt, extra, request)  # fmt: skip
        fmt, dropped_bos, dropped_eos = served.format, served.dropped_bos, served.dropped_eos
        rendered = text = served.prompt  # what llama-server builds: the BOS/EOS texts already dropped
    elif runtime == "transformers":
        rendered = render(messages, add_generation_prompt)
        text, dropped_bos, dropped_eos = strip_added(rendered, bos, eos, add_bos=vocab.add_bos, add_eos=vocab.add_eos)
    else:
        raise ValueError(f"unknown chat runtime {runtime!r}")
    tokens = tuple(tokenizer.tokenize(text, add_special=True, parse_special=True))
    spans: tuple[MessageSpan, ...] = ()
    generation_start = len(tokens)
    if locate_messages and messages:
        bounds, exact = _boundaries(text, messages, render, bos if dropped_bos else "", tokenizer)
        spans, generation_start = _spans(text, tokens, messages, bounds, exact)
    found = _content_offsets(text, messages)
    return ChatPrompt(rendered=rendered, text=text, dropped_bos=dropped_bos, dropped_eos=dropped_eos, tokens=tokens,
                      messages=spans, generation_start=generation_start, runtime=runtime, format=fmt,
                      injections=tuple(find_injections(tokenizer, messages, found)))  # fmt: skip


def strip_added(rendered: str, bos: str, eos: str, *, add_bos: bool, add_eos: bool) -> tuple[str, bool, bool]:
    """``rendered`` without a leading BOS text (when the vocab adds BOS) and a trailing EOS text
    (when it adds EOS), as common/chat.cpp does; and whether each was dropped.

    >>> strip_added("<s>[INST] hi [/INST]", "<s>", "</s>", add_bos=True, add_eos=False)
    ('[INST] hi [/INST]', True, False)
    """
    text = rendered
    dropped_bos = add_bos and bool(bos) and text.startswith(bos)
    if dropped_bos:
        text = text[len(bos) :]
    dropped_eos = add_eos and bool(eos) and text.endswith(eos)
    if dropped_eos:
        text = text[: len(text) - len(eos)]
    return text, dropped_bos, dropped_eos


def message_fields(message: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The user-written strings of a message: its content (or the text parts of a content list) and
    its reasoning, as (field name, value)."""
    out: list[tuple[str, str]] = []
    for name in ("reasoning_content", "content"):
        value = message.get(name)
        if isinstance(value, str):
            out.append((name, value))
        elif isinstance(value, list):
            out += [
                (name, part["text"])
                for part in value
                if isinstance(part, Mapping) and isinstance(part.get("text"), str)
            ]
    return out


def find_injections(tokenizer: Tokenizer, messages: Sequence[Mapping[str, Any]],
                    located: Mapping[tuple[int, str], int] | None = None) -> list[Injection]:  # fmt: skip
    """Special tokens (CONTROL or UNKNOWN, which llama.cpp matches only with parse special) that the
    partition finds inside each message's own strings.

    ``located`` maps (message, field) to where that string starts in the prompt text.
    """
    attrs = tokenizer.vocab.attrs
    partitioner = tokenizer.partitioner
    out: list[Injection] = []
    for i, message in enumerate(messages):
        for name, value in message_fields(message):
            data = value.encode("utf-8", "surrogatepass")
            for start, end, tid in partitioner.partition(data, parse_special=True):
                if tid < 0 or not int(attrs[tid]) & _PARSE_ONLY:
                    continue
                char = len(data[:start].decode("utf-8", "replace"))
                at = None if located is None else located.get((i, name))
                out.append(Injection(message=i, field=name, token_id=tid, text=data[start:end].decode("utf-8", "replace"),
                                     start=char, prompt_start=None if at is None else at + char))  # fmt: skip
    return out


# --- message boundaries -----------------------------------------------------------------------------


def _boundaries(text: str, messages: Sequence[Mapping[str, Any]], render: Any, bos: str,
                tokenizer: Tokenizer) -> tuple[list[int], list[bool]]:  # fmt: skip
    """Character offsets where messages 1..n start (n: where the generation prompt starts), and
    whether each is exact."""
    n = len(messages)
    bounds: list[int] = []
    exact: list[bool] = []
    for k in range(1, n + 1):
        at = None
        try:
            prefix = render(messages[:k], False)
        except ChatTemplateError:
            prefix = None
        if prefix is not None:
            if bos and prefix.startswith(bos):
                prefix = prefix[len(bos) :]
            if text.startswith(prefix):
                at = len(prefix)
            elif prefix.startswith(text):
                at = len(text)
        if at is not None and (not bounds or at >= bounds[-1]):
            bounds.append(at)
            exact.append(True)
        else:
            bounds.append(-1)
            exact.append(False)
    if not all(exact):
        _fill_by_content(text, messages, bounds, tokenizer)
    return bounds, exact


def _fill_by_content(text: str, messages: Sequence[Mapping[str, Any]], bounds: list[int], tokenizer: Tokenizer) -> None:
    """Fill the unknown boundaries (-1): before message k, the last special-token text between the end
    of message k-1's content and the start of message k's; after the last message, the end of its content."""
    located = _content_offsets(text, messages, ends=True)
    specials = [tokenizer.vocab.tokens[t] for t in tokenizer.vocab.special_tokens
                if int(tokenizer.vocab.attrs[t]) & int(TokenAttr.CONTROL) and tokenizer.vocab.tokens[t]]  # fmt: skip
    n = len(messages)
    for k in range(1, n + 1):
        if bounds[k - 1] >= 0:
            continue
        lo = max([bounds[k - 2] if k >= 2 else 0, located.get(k - 1, (0, 0))[1]])
        if k == n:
            bounds[k - 1] = lo if (k - 1) in located else len(text)
            continue
        hi = located.get(k, (len(text), 0))[0]
        # the last special token before the content: the header's opener in most templates
        last = max((text.rfind(s, lo, hi) for s in specials), default=-1)
        bounds[k - 1] = last if last >= lo else hi
    for k in range(1, n + 1):  # keep them in order
        prev = bounds[k - 2] if k >= 2 else 0
        bounds[k - 1] = min(max(bounds[k - 1], prev), len(text))


def _content_offsets(text: str, messages: Sequence[Mapping[str, Any]], *, ends: bool = False) -> Any:
    """Where each message's strings are found in ``text``, searching in order from the previous one.

    Returns {(message, field): start}, or with ``ends`` {message: (start of first, end of last)}."""
    starts: dict[tuple[int, str], int] = {}
    spans: dict[int, tuple[int, int]] = {}
    pos = 0
    for i, message in enumerate(messages):
        for name, value in message_fields(message):
            needle = value.strip()
            if not needle:
                continue
            at = text.find(needle, pos)
            if at < 0:
                continue
            starts[(i, name)] = at - (len(value) - len(value.lstrip()))  # where value[0] is, or would be
            pos = at + len(needle)
            first = spans.get(i, (at, pos))[0]
            spans[i] = (first, pos)
    return spans if ends else starts


def _spans(text: str, tokens: tuple[Token, ...], messages: Sequence[Mapping[str, Any]], bounds: list[int],
           exact: list[bool]) -> tuple[tuple[MessageSpan, ...], int]:  # fmt: skip
    """Message spans from character boundaries: a token belongs to the message its first byte is in."""
    byte_at = _byte_offsets(text, [0, *bounds])
    starts = [t.start for t in tokens]
    token_at = [0] + [bisect.bisect_left(starts, b) for b in byte_at[1:]]
    # an added BOS (empty span at 0) is the first message's; nothing is before message 0
    chars = [0, *bounds]
    # a token across a boundary is the earlier message's: move the boundary to the next token's
    # start, so that a message's characters hold all of its tokens (an approximate boundary found
    # by content can fall inside <|im_end|>); not into the middle of a character
    data = text.encode("utf-8", "surrogatepass")
    for k in range(1, len(chars)):
        b = tokens[token_at[k]].start if token_at[k] < len(tokens) else len(data)
        if b != byte_at[k]:
            try:
                chars[k] = len(data[:b].decode("utf-8", "surrogatepass"))
            except UnicodeDecodeError:
                pass
    out = []
    for i, message in enumerate(messages):
        role = message.get("role")
        count = token_at[i + 1] - token_at[i]
        content = message.get("content")
        folded = count == 0 and isinstance(content, str) and bool(content.strip()) and content.strip() in text
        out.append(MessageSpan(index=i, role=role if isinstance(role, str) else "?", char_start=chars[i],
                               char_end=chars[i + 1], token_start=token_at[i], token_count=count,
                               exact=exact[i], folded=folded))  # fmt: skip
    return tuple(out), token_at[-1]


def _byte_offsets(text: str, chars: list[int]) -> list[int]:
    """UTF-8 byte offsets of increasing character offsets."""
    out = []
    done_chars = done_bytes = 0
    for c in chars:
        done_bytes += len(text[done_chars:c].encode("utf-8", "surrogatepass"))
        done_chars = c
        out.append(done_bytes)
    return out
