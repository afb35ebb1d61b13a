"""``runtimes-differ``: the chat template gives a plain conversation other token ids in llama-server than in
transformers.

llama-server renders with llama.cpp's own Jinja engine and chat code (``explore/chat/llama_server/``: thinking on
where the template supports it, a system message folded into the first user message when the template has no
system role, its dialect's printing of values); transformers (and vLLM, and every client that calls
``apply_chat_template``) renders with jinja2 (``chat/render.py``). A model served both ways then sees two
prompts: worth knowing before comparing outputs. Rendered on the template checks' basic conversations
(``checks_template.CONVERSATIONS``); the first one either runtime renders decides. An info: nothing in the file
is wrong, and no metadata edit makes the two agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from tui_tok.errors import TuiTokError
from tui_tok.explore.chat.llama_server.differ import describe, runtimes_differ
from tui_tok.explore.chat.llama_server.runtime import RUNTIMES
from tui_tok.explore.chat.locked import Locked
from tui_tok.explore.chat.prompt import chat_prompt
from tui_tok.explore.chat.render import TEMPLATE_KEY, templates_of
from tui_tok.explore.lint.checks_template import CONVERSATIONS
from tui_tok.explore.lint.finding import Finding, finding

if TYPE_CHECKING:
    from tui_tok.explore.lint.context import LintContext
    from tui_tok.tokenizer import Tokenizer


def check_runtimes(ctx: LintContext) -> Iterator[Finding]:
    template = templates_of(ctx.metadata).get("default")
    tok = ctx.tokenizer if template and ctx.tokens else None
    if template is None or tok is None:  # no template, or the tokenizer's own finding says why not
        return
    locked = cast("Tokenizer", Locked(tok, ctx.lock))  # each tokenizer call under the lock, never a render
    for messages in CONVERSATIONS:
        prompts: dict[str, Any] = {}  # a prompt, or the runtime's refusal
        for runtime in RUNTIMES:
            try:
                prompts[runtime] = chat_prompt(locked, template, list(messages), runtime=runtime, locate_messages=False)
            except TuiTokError as exc:  # a refusal: template-error reports a template that fails in both
                prompts[runtime] = str(exc)
        if all(isinstance(p, str) for p in prompts.values()):
            continue
        differ = runtimes_differ(prompts)
        if differ is not None:
            roles = "+".join(m["role"] for m in messages)
            yield finding("runtimes-differ", f"{TEMPLATE_KEY} renders a plain conversation ({roles}) to other ids in "
                          f"llama-server than in transformers: {describe(differ, 'llama-server')}.",
                          key=TEMPLATE_KEY)  # fmt: skip
        return
