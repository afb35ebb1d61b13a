"""Template files (``--template-file``, the Chat view's ctrl+t) read within bounds, and the request
controls as the command line and the view both pass them (``explore/chat/controls.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tui_tok.explore.chat.controls import server_request, transformers_variables
from tui_tok.explore.chat.template_file import MAX_TEMPLATE_BYTES, entry_name, read_template_file
from tui_tok.explore.chat.variables import ChatInputError


def test_a_template_file_is_read_exactly(tmp_path: Path) -> None:
    path = tmp_path / "t.jinja"
    text = "{{ 'a\r\nb' }} 日本語 🙂\u2028\x1b[31m"  # CR, U+2028 and ESC kept as they are
    path.write_bytes(text.encode("utf-8"))
    assert read_template_file(path) == text


def test_bad_template_files_are_one_line(tmp_path: Path) -> None:
    huge = tmp_path / "huge.jinja"
    with open(huge, "wb") as f:  # sparse: refused by its size, never read
        f.truncate(MAX_TEMPLATE_BYTES + 1)
    binary = tmp_path / "x.gguf"
    binary.write_bytes(b"GGUF\x03\x00\x00\x00")
    latin1 = tmp_path / "l.jinja"
    latin1.write_bytes(b"{{ 'caf\xe9' }}")
    cases = {tmp_path / "missing": "cannot open: No such file or directory", tmp_path: "is a directory",
             huge: "1,000,001 bytes, more than the 1,000,000 allowed", binary: "a NUL byte at offset 5: not a text file",
             latin1: "not UTF-8 text (byte 7)"}  # fmt: skip
    for path, reason in cases.items():
        with pytest.raises(ChatInputError) as info:
            read_template_file(path)
        assert str(info.value) == f"{path}: cannot read the template: {reason}"


def test_a_fifo_is_refused_unread_unless_asked_for(tmp_path: Path) -> None:
    """The explorer would hang on a FIFO nobody writes; the command line reads a pipe it was given."""
    fifo = tmp_path / "p.jinja"
    os.mkfifo(fifo)
    with pytest.raises(ChatInputError, match="is a FIFO, not a regular file"):
        read_template_file(fifo)
    keep = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # holds the pipe open: what is written stays in it
    try:
        w = os.open(fifo, os.O_WRONLY)
        os.write(w, b"{{ 1 }}")
        os.close(w)
        assert read_template_file(fifo, regular_only=False) == "{{ 1 }}"
    finally:
        os.close(keep)


def test_entry_names() -> None:
    assert entry_name("/a/b/chatml.jinja", {"default"}) == "chatml.jinja"
    assert entry_name("/a/default", {"default"}) == "default (2)"


def test_controls_as_the_command_line_passes_them() -> None:
    auto = server_request()
    assert (auto.enable_thinking, auto.reasoning_effort, auto.add_generation_prompt) == (True, None, True)
    off = server_request(thinking="off", reasoning_effort="low", continue_final_message="auto")
    assert (off.enable_thinking, off.reasoning_effort, off.continue_final_message) == (False, "low", "auto")
    assert not off.add_generation_prompt  # continuing leaves out the generation prompt
    # transformers: the controls only where the variables are silent (a variable typed wins)
    assert transformers_variables({}, "auto", None) == {}
    assert transformers_variables({}, "off", "high") == {"enable_thinking": False, "reasoning_effort": "high"}
    assert transformers_variables({"enable_thinking": True}, "off", None) == {"enable_thinking": True}
