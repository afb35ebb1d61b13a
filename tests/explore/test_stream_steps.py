"""Stream replay with the real decoder: what is held back is exactly the incomplete UTF-8 tail."""

from __future__ import annotations

import pytest

from support import vocab_file
from tui_tok.explore.stream import describe_pending, replay


def _incomplete_tail(data: bytes) -> bytes:
    for cut in range(len(data), max(-1, len(data) - 4), -1):
        try:
            data[:cut].decode("utf-8")
        except UnicodeDecodeError:
            continue
        return data[cut:]
    return data


@pytest.mark.parametrize("name", ["phi-3", "qwen3-vocab", "gpt-2"])
@pytest.mark.parametrize("text", ["日本語 🙂 ok", "🦊🦊 naïve", "plain text"])
def test_replay_holds_back_incomplete_characters(name: str, text: str) -> None:
    from tui_tok import load_tokenizer

    tok = load_tokenizer(vocab_file(name).path)
    ids = tok.encode(text, add_special=False)
    trace = replay(ids, tok.stream_decoder(), piece_of=tok.token_to_piece)
    so_far = b""
    for step, piece in enumerate(trace.pieces):
        so_far += piece
        assert trace.pending[step] == _incomplete_tail(so_far)
        # what is shown plus what is held is everything pushed (SPM may drop one leading space)
        shown = trace.text_after(step).encode() + trace.pending[step]
        assert shown == so_far or (so_far.startswith(b" ") and shown == so_far[1:])
    assert trace.text + trace.flushed == tok.decode(ids)


def test_describe_pending() -> None:
    assert describe_pending(b"\xe6\x97") == "holding e6 97: 2 of 3 bytes of a UTF-8 character"
