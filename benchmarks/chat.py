"""Chat view re-render per keystroke: ``python -m benchmarks chat [GGUF] [--keys N] [--messages M]``.

What the Chat view's worker does after each edit — render the template (transformers' Jinja set-up),
render the conversation's prefixes to place each message, drop the BOS/EOS texts, tokenize with parse
special, find injections, lay the tokens out for the token view — timed over ``--keys`` keystrokes
(one character appended to the last message each time) on a ``--messages``-message conversation.
Default file: gemma-4 from ../shared (its 12 KB template). Target: p95 < 30 ms for gemma-4 and 10 messages.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
GEMMA4 = ROOT.parent / "shared" / "vocabs" / "ggml-vocab-gemma-4.gguf"
WARM_UP_KEYS = 3


def conversation(n: int) -> list[dict[str, str]]:
    """A system message then alternating user/assistant turns of a few sentences each."""
    turns = [{"role": "system", "content": "You are a helpful assistant. Answer briefly and cite sources."}]
    for i in range(1, n):
        role = "user" if i % 2 else "assistant"
        turns.append({"role": role, "content": f"Turn {i}: the quick brown fox jumps over the lazy dog; 日本語 🙂 "
                                               f"numbers 12345 and code `f(x) = x ** 2`. " * 2})  # fmt: skip
    return turns


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks chat", description=__doc__.splitlines()[0])
    parser.add_argument("gguf", nargs="?", default=str(GEMMA4), help="GGUF file with a chat template")
    parser.add_argument("--keys", type=int, default=100, help="timed keystrokes (default 100)")
    parser.add_argument("--messages", type=int, default=10, help="messages in the conversation (default 10)")
    parser.add_argument("--view", action="store_true",
                        help="time what the Chat view's worker does per key: the llama-server render, transformers' "
                             "for the difference line, the prefix reuse of the last turns and the budget")  # fmt: skip
    args = parser.parse_args(argv)

    from tui_tok.explore.chat.prompt import chat_prompt
    from tui_tok.explore.chat.render import templates_of
    from tui_tok.explore.layout import kind_codes, layout_tokens
    from tui_tok.gguf import read_gguf
    from tui_tok.loader import load_tokenizer

    gguf = read_gguf(args.gguf, texts=("tokenizer.ggml.merges",))
    template = templates_of(gguf.metadata)["default"]
    tok = load_tokenizer(gguf)
    kinds = kind_codes(tok.token_kinds())
    msgs = conversation(args.messages)
    times: list[float] = []
    n_tokens = 0
    for key in range(WARM_UP_KEYS + args.keys):
        msgs[-1] = dict(msgs[-1], content=msgs[-1]["content"] + "abc de"[key % 6])
        start = time.perf_counter()
        prompt = view_render(tok, template, msgs, gguf.metadata) if args.view else chat_prompt(tok, template, msgs)
        layout_tokens(prompt.text, prompt.tokens, kinds_by_id=kinds)
        if key >= WARM_UP_KEYS:
            times.append(time.perf_counter() - start)
        n_tokens = len(prompt.tokens)
    times.sort()
    p50 = statistics.median(times) * 1000
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))] * 1000
    what = "the Chat view's worker (llama-server + transformers + reuse + budget)" if args.view else "transformers"
    print(
        f"{Path(args.gguf).name}: template {len(template):,} chars, {args.messages} messages, {n_tokens} tokens; {what}"
    )
    print(f"re-render + tokenize + layout per keystroke: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {times[-1] * 1000:.1f} ms "
          f"over {len(times)} keystrokes (target p95 < 30 ms)")  # fmt: skip
    return 0


def view_render(tok: Any, template: str, msgs: list[dict[str, str]], metadata: Any) -> Any:
    """What ``ui/screens/chat.py``'s worker computes after a key (in the conversation or the template
    editor alike), with the view's defaults (runtime llama-server, thinking auto), through the view's own
    ``render_request``: the prompt, the other runtime's for the difference line, the budget and prefix reuse."""
    from tui_tok.explore.chat.llama_server.differ import with_other_runtime
    from tui_tok.explore.chat.reuse import budget, context_length, describe_reuse, prefix_reuse
    from tui_tok.ui.screens.chat_render import ChatRequest, render_request

    request = ChatRequest(generation=0, template=template, messages=msgs, add_generation_prompt=True, variables="",
                          tools="")  # fmt: skip

    def build(runtime: str) -> Any:
        return render_request(tok, request, msgs, runtime, None, {}, locate=runtime == "llama-server")

    prompt, _ = with_other_runtime(build, "llama-server")

    def turn(sub: Any, agp: bool) -> Any:
        return render_request(tok, request, sub, "llama-server", None, {}, agp=agp, turn=True)

    describe_reuse(prefix_reuse(tok, msgs, turn), budget(prompt, context_length(metadata), None, ""))
    return prompt
