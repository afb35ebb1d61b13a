"""Chat-template checks: ``template-error``, ``double-bos`` / ``bos-text-dropped`` (``checks_bos.py``),
``template-marker-not-special``, ``turn-end-not-eog``.

Each template the file carries (``tokenizer.chat_template`` and the named ones) is rendered with the
chat renderer (jinja2 set up as transformers does) on a basic conversation; named ``tool_use`` and
``rag`` templates get sample tools and documents. A template that renders it is also rendered on the
shapes in ``conversations.py`` (ending with an assistant turn, tools, thinking off, several turns).
Marker and turn-end checks tokenize with parse special as llama.cpp does when the tokenizer can be
built, else look the texts up in the vocabulary.
Does not judge what the template says, only what llama.cpp will make of it. A template that
exceeds the renderer's bounds (deadline, output and value sizes: ``chat/bounds.py``) is a
``template-error`` saying which, after one try.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from typing import Any

from tui_tok.explore.chat.render import TEMPLATE_KEY, ChatTemplateError, render_chat, templates_of
from tui_tok.explore.display import display_piece
from tui_tok.explore.lint.checks_bos import bos_findings
from tui_tok.explore.lint.context import LintContext
from tui_tok.explore.lint.conversations import conversation_errors
from tui_tok.explore.lint.finding import Finding, finding, sentence
from tui_tok.explore.lint.tables import ADDS_BOS_PRES, CONTROL, EOG_TEXTS, USER_DEFINED

ASSISTANT_TEXT = "Sure thing"
"""The assistant message whose following text is the turn end (plain words: no marker inside)."""

CONVERSATIONS: tuple[tuple[dict[str, str], ...], ...] = (
    ({"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": "Hello there"},
     {"role": "assistant", "content": ASSISTANT_TEXT}, {"role": "user", "content": "Thanks a lot"}),
    ({"role": "user", "content": "Hello there"}, {"role": "assistant", "content": ASSISTANT_TEXT},
     {"role": "user", "content": "Thanks a lot"}),
)  # fmt: skip
"""Tried in order until one renders (some templates refuse a system message)."""

_WEATHER: dict[str, Any] = {
    "name": "get_weather", "description": "Get the weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}},
                   "required": ["city"]}}  # fmt: skip
SAMPLE_TOOLS: tuple[list[dict[str, Any]], ...] = (
    [{"type": "function", "function": _WEATHER}],  # the JSON schema transformers passes
    [{**_WEATHER, "parameter_definitions": {"city": {"description": "City name", "type": "str", "required": True}}}],
)  # fmt: skip
"""Tried in order: OpenAI-style function schemas, then the flat form older templates (Command-R) read."""
SAMPLE_DOCUMENTS: list[dict[str, str]] = [{"title": "Tides", "text": "The moon causes the tides."}]

MARKER = re.compile(r"<\|?/?[A-Za-z_][\w.:-]{0,40}\|?>|<｜[^｜<>]{1,40}｜>|\[/?[A-Z][A-Z_]{1,30}\]")
"""``<|im_start|>``, ``<start_of_turn>``, ``<|turn>``, ``<｜User｜>``, ``[INST]``: text a template writes
around messages that may be meant as one special token."""

BARRED = re.compile(r"<\||\|>|｜")
"""Markers with bars are always meant as special tokens; ``<word>`` and ``[WORD]`` only when the
vocabulary holds that text as a token (Command-R writes ``<results>`` as plain text on purpose)."""

_SPECIAL_TYPES = (CONTROL, USER_DEFINED)

TOTAL_SECONDS = 10.0
"""Rendering time all of a file's templates may take together (each render has its own deadline,
but a file can carry many templates)."""


def check_templates(ctx: LintContext) -> Iterator[Finding]:
    templates = templates_of(ctx.metadata)
    if not templates:
        return
    if not ctx.tokens:
        yield finding("check-not-run", "the chat template checks could not run: the file has no "
                      "tokenizer.ggml.tokens to take the BOS/EOS texts and markers from.", key=TEMPLATE_KEY)  # fmt: skip
        return
    bos_text, eos_text = _text_of(ctx, "tokenizer.ggml.bos_token_id"), _text_of(ctx, "tokenizer.ggml.eos_token_id")
    bos_id = ctx.special_id("tokenizer.ggml.bos_token_id")
    start = time.monotonic()
    for name, template in templates.items():
        key = TEMPLATE_KEY if name == "default" else f"{TEMPLATE_KEY}.{name}"
        if name != next(iter(templates)) and time.monotonic() - start > TOTAL_SECONDS:
            yield finding("check-not-run", f"{key} and the templates after it were not checked: the templates "
                          f"before took more than {TOTAL_SECONDS:g} s to render.", key=key)  # fmt: skip
            return
        tools = SAMPLE_TOOLS if "tool" in name else (None,)
        documents = SAMPLE_DOCUMENTS if name == "rag" or "document" in name else None
        rendered, error = _render_any(template, bos_text, eos_text, tools, documents)
        if rendered is None:
            assert error is not None
            yield finding("template-error", f"{key} fails on a basic conversation: {sentence(str(error))}", key=key,
                          line=error.line, context=error.context)  # fmt: skip
            continue
        yield from conversation_errors(
            key, template, bos_text, eos_text, SAMPLE_TOOLS, documents, always_tools="tool" in name
        )
        yield from bos_findings(key, rendered, bos_text, adds_bos=_adds_bos(ctx), token_id=bos_id,
                                special=bool(bos_text) and _one_special(ctx, bos_text))  # fmt: skip
        yield from _markers(ctx, key, template, rendered)
        yield from _turn_end(ctx, key, template, rendered)


def _render_any(template: str, bos: str, eos: str, tools: Sequence[Any], documents: Any,
                ) -> tuple[str | None, ChatTemplateError | None]:  # fmt: skip
    """The first rendering that works (conversation with or without a system message, each tool form),
    else the error of the first attempt."""
    error: ChatTemplateError | None = None
    for tool_list in tools:
        for messages in CONVERSATIONS:
            try:
                return render_chat(template, messages, bos_token=bos, eos_token=eos, add_generation_prompt=True,
                                   tools=tool_list, documents=documents), None  # fmt: skip
            except ChatTemplateError as exc:
                error = error or exc
                if exc.exceeded:  # past a bound (time, size): another conversation will not help
                    return None, error
    return None, error


def _text_of(ctx: LintContext, key: str) -> str:
    token_id = ctx.special_id(key)
    return ctx.tokens[token_id] if token_id is not None and 0 <= token_id < ctx.n_tokens else ""


def _adds_bos(ctx: LintContext) -> bool:
    """Whether llama.cpp adds BOS: the vocab's answer when it loads, else the flag or llama.cpp's default."""
    vocab = ctx.vocab
    if vocab is not None:
        return bool(vocab.add_bos)
    flag = ctx.metadata.get("tokenizer.ggml.add_bos_token")
    if isinstance(flag, bool):
        return flag or ctx.model == "gemma4"
    return ctx.model in ("llama", "bert", "gemma4") or (ctx.is_bpe and ctx.pre in ADDS_BOS_PRES)


def _line_of(template: str, text: str) -> int | None:
    at = template.find(text)
    return template.count("\n", 0, at) + 1 if at >= 0 else None


def _special_ids(ctx: LintContext, text: str) -> list[int] | None:
    """``text`` tokenized with parse special (None when the tokenizer cannot be built: look-up only)."""
    return ctx.encode(text, parse_special=True)


def _is_special(ctx: LintContext, token_id: int) -> bool:
    vocab = ctx.vocab
    if vocab is not None:
        from tui_tok.tokenizer import TokenAttr

        return bool(int(vocab.attrs[token_id]) & int(TokenAttr.CONTROL | TokenAttr.USER_DEFINED))
    return ctx.type_of(token_id) in _SPECIAL_TYPES or ctx.tokens[token_id] in EOG_TEXTS


def _one_special(ctx: LintContext, marker: str) -> bool:
    ids = _special_ids(ctx, marker)
    if ids is None:
        token_id = ctx.token_to_id.get(marker)
        return token_id is not None and _is_special(ctx, token_id)
    return len(ids) == 1 and _is_special(ctx, ids[0])


def _markers(ctx: LintContext, key: str, template: str, rendered: str) -> Iterator[Finding]:
    seen: set[str] = set()
    for m in MARKER.finditer(rendered):
        marker = m.group()
        if marker in seen:
            continue
        seen.add(marker)
        if not BARRED.search(marker) and marker not in ctx.token_to_id:
            continue
        if not _one_special(ctx, marker):
            ids = _special_ids(ctx, marker)
            how = f"tokenizes as {len(ids)} tokens {ids}" if ids else "is not a special token of the vocabulary"
            yield finding("template-marker-not-special", f"{key} writes {marker!r}, which {how} with parse special.",
                          key=key, line=_line_of(template, marker), token_id=ctx.token_to_id.get(marker))  # fmt: skip


def _eog(ctx: LintContext) -> frozenset[int]:
    vocab = ctx.vocab
    if vocab is not None:
        return frozenset(vocab.eog_ids)
    ids = {ctx.special_id(k) for k in ("tokenizer.ggml.eos_token_id", "tokenizer.ggml.eot_token_id",
                                       "tokenizer.ggml.eom_token_id")}  # fmt: skip
    ids |= {ctx.token_to_id[t] for t in EOG_TEXTS if t in ctx.token_to_id}
    return frozenset(i for i in ids if i is not None)


def _turn_end(ctx: LintContext, key: str, template: str, rendered: str) -> Iterator[Finding]:
    """The token right after the assistant message: a special token llama.cpp does not stop at is an error."""
    at = rendered.find(ASSISTANT_TEXT)
    if at < 0:
        return
    first = _special_at_start(ctx, rendered[at + len(ASSISTANT_TEXT) :])
    if first is None or first in _eog(ctx):
        return
    text = ctx.tokens[first]
    yield finding("turn-end-not-eog", f"{key} ends an assistant turn with {display_piece(text)!r} (id {first}), "
                  "which is not an end-of-generation token: generation will not stop there.", key=key,
                  token_id=first, line=_line_of(template, text))  # fmt: skip


def _special_at_start(ctx: LintContext, text: str) -> int | None:
    """The special token parse special matches at the start of ``text`` (longest text first, as
    llama.cpp's partition tries them), without tokenizing the rest."""
    vocab = ctx.vocab
    if vocab is not None:
        candidates = vocab.special_tokens
    else:
        candidates = sorted((i for i, t in enumerate(ctx.types.tolist()) if t in _SPECIAL_TYPES),
                            key=lambda i: -len(ctx.tokens[i]))  # fmt: skip
    for token_id in candidates:
        piece = ctx.tokens[token_id]
        if piece and text.startswith(piece):
            return token_id
    return None
