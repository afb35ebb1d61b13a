"""Checks of the failures users report most, each with the metadata edit that repairs it:
``pre-default``, ``merges-format``, ``bos-missing``, ``eog-contains-marker``.

They read metadata and render the chat templates on a plain conversation (no tokenizer needed: a
file llama.cpp refuses still gets its findings). Every finding carries its ``fix`` (an ``Edit``) when
one edit can repair it; ``fixes.with_fixes`` gives the older codes theirs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tui_tok.explore.chat.render import TEMPLATE_KEY, ChatTemplateError, render_chat, templates_of
from tui_tok.explore.display import display_piece
from tui_tok.explore.fix.edits import MERGES_KEY, Edit, set_edit
from tui_tok.explore.lint.context import LintContext
from tui_tok.explore.lint.finding import Finding, Severity, finding
from tui_tok.explore.lint.fingerprints import match_family
from tui_tok.explore.lint.tables import CONTROL, EOG_TEXTS, USER_DEFINED

PRE_KEY = "tokenizer.ggml.pre"
ADD_BOS_KEY = "tokenizer.ggml.add_bos_token"
BOS_KEY = "tokenizer.ggml.bos_token_id"
EOS_KEY = "tokenizer.ggml.eos_token_id"
EOG_KEYS: tuple[tuple[str, str], ...] = (
    ("EOS", EOS_KEY), ("EOT", "tokenizer.ggml.eot_token_id"), ("EOM", "tokenizer.ggml.eom_token_id"),
    ("FIM_PAD", "tokenizer.ggml.fim_pad_token_id"), ("FIM_REP", "tokenizer.ggml.fim_rep_token_id"),
    ("FIM_SEP", "tokenizer.ggml.fim_sep_token_id"),
)  # fmt: skip
"""The id keys whose tokens llama.cpp puts in the end-of-generation set (llama-vocab.cpp, the EOG
set built in ``llama_vocab::impl::load``)."""

CONTENTS = ("You are a helpful assistant.", "Hello there", "Sure thing", "Thanks a lot", "Sunny, 21 degrees")
ASSISTANT = "Sure thing"
_PLAIN: tuple[list[dict[str, Any]], ...] = (
    [{"role": "system", "content": CONTENTS[0]}, {"role": "user", "content": CONTENTS[1]},
     {"role": "assistant", "content": ASSISTANT}, {"role": "user", "content": CONTENTS[3]}],
    [{"role": "user", "content": CONTENTS[1]}, {"role": "assistant", "content": ASSISTANT},
     {"role": "user", "content": CONTENTS[3]}],
)  # fmt: skip
_TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Get the weather in a city.",
         "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}  # fmt: skip


def _tool_conversation(arguments: Any) -> list[dict[str, Any]]:
    call = {"type": "function", "id": "call0", "function": {"name": "get_weather", "arguments": arguments}}
    return [{"role": "user", "content": CONTENTS[1]}, {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "content": CONTENTS[4], "name": "get_weather", "tool_call_id": "call0"},
            {"role": "assistant", "content": ASSISTANT}]  # fmt: skip


GEMMA_ARCHES = ("gemma", "gemma2", "gemma3", "gemma3n", "gemma4", "gemma-embedding")
"""Architectures whose models need BOS (their quality collapses without it)."""


def check_pre_default(ctx: LintContext) -> Iterator[Finding]:
    """``pre-default``: ``default`` on a BPE vocabulary whose fingerprint is a known family's (a missing
    ``pre`` is ``pre-missing``'s, which gets the same fix: ``fixes.fix_for``)."""
    if not ctx.is_bpe or ctx.model == "gemma4" or ctx.metadata.get(PRE_KEY) != "default":
        return
    fp = match_family(ctx.tokens, ctx.merges)
    if fp is None:
        return
    fix = set_edit(PRE_KEY, fp.pre, "string")
    yield finding("pre-default", f"{PRE_KEY} is 'default' but the tokens and merges are {fp.label}'s: llama.cpp splits "
                  f"text with its 'default' pre-tokenizer instead of {fp.pre!r}.",
                  hint=f"set {PRE_KEY} = {fp.pre!r}: tui-tok fix, or llama.cpp --override-kv {PRE_KEY}=str:{fp.pre} "
                  "(without it: GENERATION QUALITY WILL BE DEGRADED, llama.cpp #11341)",
                  key=PRE_KEY, fix=fix)  # fmt: skip


def check_merges_format(ctx: LintContext) -> Iterator[Finding]:
    """``merges-format``: a BPE vocabulary's merges missing, stored as pairs, or without the space."""
    if not ctx.is_bpe:
        return
    raw = ctx.metadata.get(MERGES_KEY)
    if raw is None:
        if ctx.pre == "kimi-k2" and ctx.model != "gemma4":  # llama.cpp builds its merges itself
            return
        yield finding("merges-format", f"BPE vocabulary without {MERGES_KEY}: llama.cpp refuses it ('cannot find "
                      "tokenizer merges').", key="tokenizer.ggml.model")  # fmt: skip
        return
    if not isinstance(raw, list):
        yield finding("merges-format", f"{MERGES_KEY} is not an array of strings: llama.cpp cannot read it.",
                      key=MERGES_KEY)  # fmt: skip
        return
    if raw and all(isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p) for p in raw):
        yield finding("merges-format", f"{MERGES_KEY} holds {len(raw):,} [left, right] pairs (the newer tokenizer.json "
                      "form) instead of 'left right' strings: llama.cpp reads only a string array.", key=MERGES_KEY,
                      fix=Edit("merges-join", MERGES_KEY))  # fmt: skip
        return
    try:
        bad = [i for i, m in enumerate(raw) if m.find(" ", 1) < 0]  # llama.cpp splits at the first space after byte 0
    except (AttributeError, TypeError):
        yield finding("merges-format", f"{MERGES_KEY} is not an array of strings: llama.cpp cannot read it.",
                      key=MERGES_KEY)  # fmt: skip
        return
    if bad:
        yield finding("merges-format", f"{len(bad):,} of {len(raw):,} merges have no space to split at (first: rank "
                      f"{bad[0]}, {display_piece(raw[bad[0]])!r}): llama.cpp reads them as empty pairs that never "
                      "merge.", key=MERGES_KEY, severity=Severity.WARNING)  # fmt: skip


def _render(template: str, bos: str, eos: str, conversations: Any, tools: Any = None) -> str | None:
    for messages in conversations:
        try:
            return render_chat(template, messages, bos_token=bos, eos_token=eos, add_generation_prompt=True,
                               tools=tools)  # fmt: skip
        except ChatTemplateError:
            continue
        except Exception:  # a template that trips on a message form it does not expect
            continue
    return None


def _text(ctx: LintContext, key: str) -> str:
    i = ctx.special_id(key)
    return ctx.tokens[i] if i is not None and 0 <= i < ctx.n_tokens else ""


def check_bos_missing(ctx: LintContext) -> Iterator[Finding]:
    """``bos-missing``: a Gemma with ``add_bos_token`` false and a chat template that does not write BOS."""
    arch = ctx.metadata.get("general.architecture")
    gemma = ctx.model == "gemma4" or (isinstance(arch, str) and arch in GEMMA_ARCHES)
    if not gemma or ctx.metadata.get(ADD_BOS_KEY) is not False or not ctx.tokens:
        return
    bos = _text(ctx, BOS_KEY) or ("<bos>" if "<bos>" in ctx.token_to_id else "")
    if not bos:
        return
    template = templates_of(ctx.metadata).get("default")
    where = "there is no chat template"
    if template is not None:
        rendered = _render(template, bos, _text(ctx, EOS_KEY), _PLAIN)
        if rendered is None or rendered.startswith(bos):
            return  # a broken template is template-error's; one that writes BOS gets it
        where = f"{TEMPLATE_KEY} does not write {display_piece(bos)!r}"
    name = arch if isinstance(arch, str) else ctx.model
    yield finding("bos-missing", f"{ADD_BOS_KEY} is false on a {name} model and {where}: prompts start without BOS "
                  "(llama.cpp adds it anyway for Gemma 4 since PR #21500; older builds and other runtimes do not).",
                  key=ADD_BOS_KEY, fix=set_edit(ADD_BOS_KEY, True, "bool"))  # fmt: skip


def check_eog_markers(ctx: LintContext) -> Iterator[Finding]:
    """``eog-contains-marker``: an end-of-generation token (by its id key) that the template writes
    mid-conversation and never right after a message."""
    templates = templates_of(ctx.metadata)
    if not templates or not ctx.tokens or ctx.model == "rwkv":
        return
    eog: list[tuple[str, str, int, str]] = []
    for label, key in EOG_KEYS:
        i = ctx.special_id(key)
        if i is None or not 0 <= i < ctx.n_tokens:
            continue
        text = ctx.tokens[i]
        if len(text) >= 2 and text not in EOG_TEXTS and ctx.type_of(i) in (CONTROL, USER_DEFINED):
            eog.append((label, key, i, text))  # llama.cpp's own EOG texts are its choice, not the file's
    if not eog:
        return
    bos, eos = _text(ctx, BOS_KEY), _text(ctx, EOS_KEY)
    for name, template in templates.items():
        tkey = TEMPLATE_KEY if name == "default" else f"{TEMPLATE_KEY}.{name}"
        plain = _render(template, bos, eos, _PLAIN)
        if plain is None:
            continue  # template-error reports it
        renders = [plain]
        if "tool_calls" in template:
            tool = _render(template, bos, eos, (_tool_conversation({"city": "Paris"}),
                                                _tool_conversation('{"city": "Paris"}')), [_TOOL])  # fmt: skip
            if tool is not None:
                renders.append(tool)
        closers = {_closer(r, c) for r in renders for c in CONTENTS if c in r}
        for label, key, i, text in eog:
            if any(c.startswith(text) for c in closers) or not any(text in r for r in renders):
                continue
            fix = None
            if key != EOS_KEY:
                fix = Edit("delete", key)
            else:
                turn_end = _turn_end_id(ctx, plain)
                if turn_end is not None and turn_end != i:
                    fix = set_edit(EOS_KEY, turn_end, "u32")
            yield finding("eog-contains-marker", f"{key} = {i} ({label}) makes {display_piece(text)!r} end generation, "
                          f"but {tkey} writes it in the middle of a conversation, never right after a message: "
                          "generation stops as soon as the model writes it.", key=key, token_id=i, fix=fix)  # fmt: skip
        return  # one template is enough: the others use the same tokens


def _closer(rendered: str, content: str) -> str:
    """The text right after ``content`` in ``rendered`` (whitespace skipped): what closes a message."""
    return rendered[rendered.find(content) + len(content) :].lstrip()[:64]


def _turn_end_id(ctx: LintContext, rendered: str) -> int | None:
    """The special token that closes the assistant's message (the longest special text that starts
    the text after it)."""
    rest = _closer(rendered, ASSISTANT)
    best: tuple[int, int] | None = None
    for i, t in enumerate(ctx.types.tolist()):
        text = ctx.tokens[i]
        if t in (CONTROL, USER_DEFINED) and text and rest.startswith(text) and (best is None or len(text) > best[0]):
            best = (len(text), i)
    return None if best is None else best[1]
