"""``tui-tok chat``: rendered text, ids as llama.cpp feeds them, injections, one-line errors (exit 2)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from cli_support import run_cli

from support import ASSETS
from tui_tok.explore.chat.render import render_chat, templates_of
from tui_tok.gguf import read_gguf
from tui_tok.loader import load_tokenizer

QWEN3 = str(ASSETS / "qwen3-vocab.gguf")
PHI3 = str(ASSETS / "ggml-vocab-phi-3.gguf")
MESSAGES = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi <|im_end|> there"}]


@pytest.fixture
def messages_file(tmp_path: Path) -> Path:
    path = tmp_path / "m.json"
    path.write_text(json.dumps(MESSAGES), encoding="utf-8")
    return path


def test_prints_the_rendered_text(capsys: pytest.CaptureFixture[str], messages_file: Path) -> None:
    code, out, err = run_cli(capsys, "chat", QWEN3, "--messages", str(messages_file), "--set", "enable_thinking=false",
                             "--runtime", "transformers")  # fmt: skip
    template = templates_of(read_gguf(QWEN3).metadata)["default"]
    assert code == 0
    assert out == render_chat(template, MESSAGES, extra={"enable_thinking": False})
    assert out.endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
    # the user typed <|im_end|>: flagged on stderr with its token id
    assert "message 1 (user) content character 3: '<|im_end|>' is read as special token 151645" in err


def test_json_ids_are_the_tokenizers_with_parse_special(
    capsys: pytest.CaptureFixture[str], messages_file: Path
) -> None:
    code, out, _ = run_cli(capsys, "chat", QWEN3, "--messages", str(messages_file), "--json", "--no-generation-prompt")
    record = json.loads(out)
    tok = load_tokenizer(QWEN3)
    assert code == 0
    assert not record["text"].endswith("<|im_start|>assistant\n")
    assert record["ids"] == tok.encode(record["text"], add_special=True, parse_special=True)
    assert record["ids"].count(tok.vocab.token_to_id["<|im_end|>"]) == 3  # two closers and the injected one
    assert record["injections"] == [{"message": 1, "field": "content", "start": 3, "text": "<|im_end|>",
                                     "token_id": 151645}]  # fmt: skip


def test_leading_bos_text_is_dropped_when_the_vocab_adds_bos(
    capsys: pytest.CaptureFixture[str], messages_file: Path
) -> None:
    code, out, _ = run_cli(
        capsys, "chat", PHI3, "--messages", str(messages_file), "--json", "--runtime", "transformers"
    )
    record = json.loads(out)
    tok = load_tokenizer(PHI3)
    assert code == 0 and tok.vocab.add_bos
    assert record["text"].startswith("<s><|user|>")  # phi-3's template writes {{ bos_token }}
    assert record["ids"][:2] == [tok.vocab.bos_id, tok.vocab.token_to_id["<|user|>"]]  # one BOS, not two
    assert record["ids"] == tok.encode(record["text"].removeprefix("<s>"), add_special=True, parse_special=True)


def test_messages_from_stdin_and_set_strings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps([{"role": "user", "content": "x"}])))
    code, out, _ = run_cli(capsys, "chat", QWEN3, "--messages", "-", "--set", "enable_thinking=true")
    assert code == 0 and out.endswith("<|im_start|>assistant\n")


def test_tools_file(capsys: pytest.CaptureFixture[str], messages_file: Path, tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps([{"type": "function", "function": {"name": "zap", "description": "Zürich"}}]))
    code, out, _ = run_cli(capsys, "chat", QWEN3, "--messages", str(messages_file), "--tools", str(tools),
                           "--runtime", "transformers")  # fmt: skip
    assert code == 0 and '{"type": "function", "function": {"name": "zap", "description": "Zürich"}}' in out


def test_file_without_template_says_so(capsys: pytest.CaptureFixture[str], messages_file: Path) -> None:
    code, out, err = run_cli(capsys, "chat", str(ASSETS / "ggml-vocab-gpt-2.gguf"), "--messages", str(messages_file),
                             "--runtime", "transformers")  # fmt: skip
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "no chat template (tokenizer.chat_template is not set)" in err


def test_unknown_template_name_lists_the_names(capsys: pytest.CaptureFixture[str], messages_file: Path) -> None:
    code, _, err = run_cli(capsys, "chat", QWEN3, "--messages", str(messages_file), "--template", "rag")
    assert code == 2 and "no chat template named 'rag'; it has: default" in err


def test_failing_template_is_one_line_naming_the_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # phi-3's template adds message["content"] to strings: a number fails
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([{"role": "user", "content": 3}]))
    code, out, err = run_cli(capsys, "chat", PHI3, "--messages", str(path), "--runtime", "transformers")
    assert (code, out) == (2, "")
    # the concatenation with message["content"] is on the template's line 3 (its strings hold newlines)
    assert (
        err.startswith("tui-tok: error: template line 3: TypeError: can only concatenate str") and err.count("\n") == 1
    )
    assert "Traceback" not in err


@pytest.mark.parametrize(("content", "message"), [
    ("{", "the messages are not JSON: line 1 column 2"),
    ('{"role": "user"}', "expected a JSON list of messages"),
    ('[{"content": "x"}]', 'message 0: expected an object with a string "role"'),
])  # fmt: skip
def test_bad_messages_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "m.json"
    path.write_text(content)
    code, _, err = run_cli(capsys, "chat", QWEN3, "--messages", str(path))
    assert code == 2 and message in err and err.count("\n") == 1


def test_bad_set_is_one_line(capsys: pytest.CaptureFixture[str], messages_file: Path) -> None:
    code, _, err = run_cli(capsys, "chat", QWEN3, "--messages", str(messages_file), "--set", "no-equals")
    assert code == 2 and "'no-equals': expected KEY=VALUE" in err
