"""How much of each request's prompt llama-server's KV cache can reuse, and the prompt's context budget.

llama-server keeps, per slot, the tokens it has evaluated: the request's prompt, then each token it
samples (``server_slot::handle_last_sampled_token``: ``prompt.tokens.push_back(sampled)``, in
tools/server/server-context.cpp, llama.cpp 0.3.36). The next request on that slot reuses the longest
common prefix of those ids and its own prompt ids (``server_context_impl::pre_decode``: ``n_past =
slot.prompt.tokens.get_common_prefix(input_tokens)``, same file; ``server_tokens::get_common_prefix`` in
tools/server/server-common.cpp compares ids one by one and stops at the first that differs); every token
after it is evaluated again. A template that renders history differently from how the model produced it
(Qwen3 drops the ``<think>`` reasoning of earlier turns) breaks the prefix there, and a long
conversation is re-processed from that point on every turn.

``prefix_reuse`` compares, for each assistant turn, the ids the slot holds after it answered (the
prompt of the request that produced it, then the turn as the template renders it as the last
message: what the model generated, up to and including the template's closing markers) with the ids
of the next request's prompt (the conversation through the next user or tool message, with the
generation prompt). ``budget`` counts the prompt against the model's trained context
(``{general.architecture}.context_length``). Both only render and tokenize through a caller's
``build``; no Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tui_tok.explore.chat.prompt import ChatPrompt
from tui_tok.explore.visible import visible
from tui_tok.tokenizer import Tokenizer

MAX_TURNS = 8
"""Assistant turns compared at most (the last ones): each costs about two renders and tokenizations."""

Build = Callable[[Sequence[Mapping[str, Any]], bool], ChatPrompt]
"""Renders and tokenizes (messages, add_generation_prompt) with the runtime and options the user chose;
a final assistant message rendered whole, as history (llama-server: prefill_assistant off)."""


@dataclass(frozen=True, slots=True)
class TurnReuse:
    """One assistant turn: what the slot holds after it against the next request's prompt."""

    message: int
    """Index of the assistant message."""
    next_message: int
    """Index of the last message of the next request (the next user or tool message)."""
    cached: int
    """Ids the slot holds after the turn (its request's prompt + the turn as rendered)."""
    next_prompt: int
    """Ids of the next request's prompt."""
    shared: int
    """Leading ids both have: what llama-server reuses (the rest of the next prompt is evaluated again)."""
    char: int | None
    """First character where the two texts differ, None when one is a prefix of the other."""
    cached_excerpt: str
    """A few characters of the cached text from the break on ('' when none)."""
    next_excerpt: str
    error: str | None = None
    """Why the turn could not be compared (a render refused), else None."""

    @property
    def broken(self) -> bool:
        """True when the next prompt does not start with all the cached ids (some are thrown away)."""
        return self.error is None and self.shared < min(self.cached, self.next_prompt)

    def as_json(self) -> dict[str, Any]:
        return {"message": self.message, "next_message": self.next_message, "cached": self.cached,
                "next_prompt": self.next_prompt, "shared": self.shared, "token": self.shared if self.broken else None,
                "char": self.char, "cached_text": self.cached_excerpt, "next_text": self.next_excerpt,
                **({"error": self.error} if self.error else {})}  # fmt: skip


def prefix_reuse(tokenizer: Tokenizer, messages: Sequence[Mapping[str, Any]], build: Build,
                 max_turns: int = MAX_TURNS, excerpt: int = 24,
                 cancelled: Callable[[], bool] = lambda: False) -> list[TurnReuse]:  # fmt: skip
    """The last ``max_turns`` assistant turns that a later user or tool message follows, compared.

    ``build`` must raise ``TuiTokError`` on a refusal (recorded in the turn's ``error``). ``cancelled``
    is asked before each turn: a view's newer request stops the work (the turns so far are returned).
    """
    from tui_tok.errors import TuiTokError

    turns: list[tuple[int, int]] = []
    for i, m in enumerate(messages):
        if m.get("role") == "assistant" and i > 0:
            nxt = next((j for j in range(i + 1, len(messages)) if messages[j].get("role") in ("user", "tool")), None)
            if nxt is not None:
                turns.append((i, nxt))
    prompts: dict[tuple[int, bool], ChatPrompt] = {}

    def prompt(end: int, agp: bool) -> ChatPrompt:  # a request's prompt may be another turn's: rendered once
        if (end, agp) not in prompts:
            prompts[(end, agp)] = build(messages[:end], agp)
        return prompts[(end, agp)]

    out: list[TurnReuse] = []
    for i, nxt in turns[-max_turns:]:
        if cancelled():
            break
        try:
            asked, answered, following = prompt(i, True), prompt(i + 1, False), prompt(nxt + 1, True)
        except TuiTokError as exc:
            out.append(TurnReuse(i, nxt, 0, 0, 0, None, "", "", error=" ".join(str(exc).split())[:200]))
            continue
        cached_text, cached_ids = slot_after(tokenizer, asked, answered)
        next_ids = following.ids
        shared = common_prefix(cached_ids, next_ids)
        char = common_prefix(cached_text, following.text)
        if char == min(len(cached_text), len(following.text)):
            out.append(TurnReuse(i, nxt, len(cached_ids), len(next_ids), shared, None, "", ""))
            continue
        out.append(TurnReuse(i, nxt, len(cached_ids), len(next_ids), shared, char,
                             cached_text[char : char + excerpt], following.text[char : char + excerpt]))  # fmt: skip
    return out


def slot_after(tokenizer: Tokenizer, asked: ChatPrompt, answered: ChatPrompt) -> tuple[str, list[int]]:
    """(text, ids) the slot holds after answering ``asked``: its prompt ids, then the ids of what the
    template renders for the answer after that prompt's text (sampled tokens are single tokens, so the
    answer is tokenized on its own, without BOS). When the answered conversation does not start with
    the asked prompt's text (a template whose generation prompt is not the answer's header), the
    answered render is taken whole: the model continued a prompt the template never re-renders."""
    if not answered.text.startswith(asked.text):
        return answered.text, answered.ids
    answer = answered.text[len(asked.text) :]
    ids = asked.ids + tokenizer.encode(answer, add_special=False, parse_special=True)
    return asked.text + answer, ids


def common_prefix(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Leading items ``a`` and ``b`` share (``server_tokens::get_common_prefix`` without media chunks).

    >>> common_prefix([1, 2, 3], [1, 2, 4, 5])
    2
    """
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def context_length(metadata: Mapping[str, Any]) -> int | None:
    """The model's trained context (``{general.architecture}.context_length``), None when the file has
    none (vocab-only files) or it is not a positive integer."""
    arch = metadata.get("general.architecture")
    value = metadata.get(f"{arch}.context_length") if isinstance(arch, str) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def budget(prompt: ChatPrompt, context: int | None, tools_tokens: int | None,
           tools_method: str = "with tools minus without") -> dict[str, Any]:  # fmt: skip
    """The prompt's tokens against ``context``: per message (``prompt.messages``; exact or located, as
    the view shows them), the generation prompt, and ``tools_tokens`` (the prompt's ids minus the ids of
    the same request rendered without tools; None when no tools are given, or ``tools_method`` says why
    they were not counted)."""
    total = len(prompt.tokens)
    return {"tokens": total, "context_length": context,
            "left": None if context is None else context - total,
            "messages": [{"message": s.index, "role": s.role, "tokens": s.token_count} for s in prompt.messages],
            "generation_prompt": total - prompt.generation_start if prompt.messages else None,
            "tools": tools_tokens, "tools_method": None if tools_tokens is None and tools_method == "with tools minus without" else tools_method}  # fmt: skip


def describe_reuse(turns: Sequence[TurnReuse], budget_record: Mapping[str, Any] | None = None) -> str:
    """One short line for a view: the budget (prompt tokens/trained context, ``?`` when unknown), how
    many compared turns break the cache, the first break (ids kept/cached, both sides there).

    >>> describe_reuse([TurnReuse(2, 3, 30, 33, 17, 91, "<think>", "Hello!")])
    "KV: 1/1 turns break · #2 17/30: '<think>' ≠ 'Hello!'"
    """
    parts: list[str] = []
    if budget_record is not None:
        ctx = budget_record["context_length"]
        tools = f" (tools {budget_record['tools']})" if budget_record.get("tools") is not None else ""
        parts.append(f"{budget_record['tokens']}{tools}/{ctx if ctx is not None else '?'} ctx")
    if turns:
        broken = [t for t in turns if t.broken or t.error]
        parts.append(f"KV: {len(broken)}/{len(turns)} turns break" if broken else
                     f"KV: all {len(turns)} turns reused")  # fmt: skip
        first = broken[0] if broken else None
        if first is not None and first.error:
            parts.append(f"#{first.message} not compared: {first.error}")
        elif first is not None:
            parts.append(f"#{first.message} {first.shared}/{first.cached}: "
                         f"{_cut(first.cached_excerpt)} ≠ {_cut(first.next_excerpt)}")  # fmt: skip
    return " · ".join(parts)


def describe_budget(record: Mapping[str, Any]) -> str:
    """The budget as text lines (``tui-tok chat --reuse``)."""
    ctx = record["context_length"]
    head = f"budget: {record['tokens']} tokens of {'unknown' if ctx is None else ctx} context"
    if ctx is not None:
        head += f" ({record['left']} left)"
    rows = [f"  message {m['message']} ({visible(str(m['role']))}): {m['tokens']}" for m in record["messages"]]
    if record["generation_prompt"] is not None:
        rows.append(f"  generation prompt: {record['generation_prompt']}")
    if record["tools"] is not None:
        rows.append(f"  tools: {record['tools']} ({record['tools_method']})")
    return "\n".join([head, *rows])


def describe_turn(turn: TurnReuse) -> str:
    """One turn's reuse as a line (``tui-tok chat --reuse``)."""
    head = f"reuse: assistant {turn.message} -> request through message {turn.next_message}: "
    if turn.error:
        return head + f"not compared: {turn.error}"
    line = (
        head
        + f"{turn.shared} of {turn.cached} cached ids reused, {turn.next_prompt - turn.shared} of {turn.next_prompt} evaluated"
    )
    if turn.broken:
        line += f"; breaks at token {turn.shared}, char {turn.char}: {turn.cached_excerpt!r} vs {turn.next_excerpt!r}"
    return line


def _cut(text: str, width: int = 8) -> str:
    """A short quoted snippet, control characters escaped (repr)."""
    return repr(text[:width] + ("…" if len(text) > width else ""))


def tools_count(
    without: Callable[[], ChatPrompt], prompt: ChatPrompt, tools: Sequence[Any] | None
) -> tuple[int | None, str]:
    """(tokens the tools add, how counted) for ``budget``: ``prompt``'s ids minus those of ``without()``
    (the same request without tools); (None, why) when that render is refused."""
    from tui_tok.errors import TuiTokError

    method = "with tools minus without"
    if not tools:
        return None, method
    try:
        return len(prompt.tokens) - len(without().tokens), method
    except TuiTokError as exc:
        return None, f"not counted: without tools the template refuses ({' '.join(str(exc).split())[:120]})"
