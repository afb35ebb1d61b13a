"""The ``--jsonl`` lines and TEXT/--file reading shared by ``diff`` and ``explain``."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from support import ASSETS
from tui_tok.cli.text_arg import JsonlItem, TextArgError, jsonl_items

GPT2 = str(ASSETS / "ggml-vocab-gpt-2.gguf")
ROOT = Path(__file__).resolve().parents[2]


def items(text: str) -> list[JsonlItem]:
    return list(jsonl_items(io.BytesIO(text.encode())))


def test_objects_strings_and_blank_lines() -> None:
    got = items('{"text": "a", "add_special": false}\n\n"b"\n{"text": "c", "parse_special": true}\n')
    assert got == [JsonlItem(1, "a", False, None), JsonlItem(3, "b", None, None), JsonlItem(4, "c", None, True)]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"text": "a", "add_special": "no"}', "line 1: 'add_special' must be true or false, not \"no\""),
        ('{"text": "a", "parse_special": 1}', "line 1: 'parse_special' must be true or false, not 1"),
        ('{"text": "a", "add_special": null}', "line 1: 'add_special' must be true or false, not null"),
        ('{"text": 5}', "line 1: expected a string or an object with a 'text' string"),
        ("[1, 2]", "line 1: expected a string"),
        ("{oops", "line 1: not JSON"),
    ],
)
def test_bad_lines_name_the_line(line: str, message: str) -> None:
    with pytest.raises(TextArgError) as err:
        items(line + "\n")
    assert message in str(err.value)


@pytest.mark.parametrize("command", [["diff", GPT2, GPT2], ["explain", GPT2]])
def test_a_string_flag_is_one_line_and_exit_2(command: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "tui_tok", *command, "--jsonl"], input='{"text": "hi", "add_special": "no"}\n'
                          if command[0] == "diff" else '{"text": "hi", "parse_special": "no"}\n',
                          capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "must be true or false" in proc.stderr
