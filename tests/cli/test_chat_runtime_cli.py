"""``tui-tok chat`` runtimes: llama-server by default, transformers on request, where they differ in
``--json``, the request controls, ``--template-file``; refusals one line (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_support import run_cli

from support import ASSETS
from tui_tok.loader import load_tokenizer

QWEN3 = str(ASSETS / "qwen3-vocab.gguf")
PHI3 = str(ASSETS / "ggml-vocab-phi-3.gguf")
GPT2 = str(ASSETS / "ggml-vocab-gpt-2.gguf")
SYSTEM_USER = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Hi there"}]


def _file(tmp_path: Path, name: str, content: object) -> str:
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def test_default_runtime_is_llama_server_and_json_says_where_transformers_differs(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:  # fmt: skip
    messages = _file(tmp_path, "m.json", SYSTEM_USER)
    code, out, _ = run_cli(capsys, "chat", PHI3, "--messages", messages, "--json")
    record = json.loads(out)
    tok = load_tokenizer(PHI3)
    assert code == 0 and record["runtime"] == "llama-server"
    # phi-3's template has no system role: llama.cpp folds it into the user message, transformers drops it
    assert record["text"] == "<|user|>\nYou are terse.\nHi there<|end|>\n<|assistant|>\n"
    assert record["ids"] == tok.encode(record["text"], add_special=True, parse_special=True)
    differ = record["runtimes_differ"]
    assert (differ["char"], differ["token"]) == (9, 2)  # after "<|user|>\n"; after BOS and <|user|>
    assert differ["llama-server"]["text"].startswith("You are terse.")
    assert differ["transformers"]["text"].startswith("Hi there")
    assert differ["llama-server"]["token_id"] == record["ids"][2]


def test_same_render_has_no_runtimes_differ(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    messages = _file(tmp_path, "m.json", SYSTEM_USER)
    code, out, _ = run_cli(capsys, "chat", QWEN3, "--messages", messages, "--json", "--runtime", "transformers")
    record = json.loads(out)
    assert code == 0 and record["runtime"] == "transformers" and "runtimes_differ" not in record


def test_thinking_and_effort_controls(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    messages = _file(tmp_path, "m.json", SYSTEM_USER)
    rwkv = str(ASSETS / "rwkv-world-vocab.gguf")
    _, on, _ = run_cli(capsys, "chat", rwkv, "--messages", messages)
    _, off, _ = run_cli(capsys, "chat", rwkv, "--messages", messages, "--thinking", "off")
    _, none, _ = run_cli(capsys, "chat", rwkv, "--messages", messages, "--reasoning-effort", "none")
    _, kw, _ = run_cli(capsys, "chat", rwkv, "--messages", messages, "--kwargs", '{"enable_thinking": false}')
    assert on.endswith("Assistant: <think>\n") and off.endswith("Assistant: <think>\n</think>\n") and none == off == kw


def test_template_file_replaces_the_files_template(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    messages = _file(tmp_path, "m.json", SYSTEM_USER)
    template = _file(tmp_path, "t.jinja", "{% for m in messages %}[{{ m.role }}] {{ m.content }}\n{% endfor %}")
    for runtime in ("llama-server", "transformers"):
        code, out, _ = run_cli(capsys, "chat", GPT2, "--messages", messages, "--template-file", template,
                               "--runtime", runtime)  # fmt: skip
        assert (code, out) == (0, "[system] You are terse.\n[user] Hi there\n")


def test_file_without_template_is_chatml_for_llama_server(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    messages = _file(tmp_path, "m.json", SYSTEM_USER[1:])
    code, out, _ = run_cli(capsys, "chat", GPT2, "--messages", messages)
    assert (code, out) == (0, "<|im_start|>user\nHi there<|im_end|>\n<|im_start|>assistant\n")


def test_continue_final_message(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    messages = _file(tmp_path, "m.json", [*SYSTEM_USER, {"role": "assistant", "content": "Hel"}])
    code, out, _ = run_cli(capsys, "chat", PHI3, "--messages", messages, "--continue")
    assert code == 0 and out == "<|user|>\nYou are terse.\nHi there<|end|>\n<|assistant|>\nHel\n"
    # the server's default --prefill-assistant continues a last assistant message too
    assert run_cli(capsys, "chat", PHI3, "--messages", messages)[1] == out
    code, closed, _ = run_cli(capsys, "chat", PHI3, "--messages", messages, "--no-prefill-assistant")
    assert closed == "<|user|>\nYou are terse.\nHi there<|end|>\n<|assistant|>\nHel<|end|>\n"


def test_two_assistant_messages_at_the_end_are_refused(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    last = [{"role": "assistant", "content": "A"}, {"role": "assistant", "content": "B"}]
    messages = _file(tmp_path, "m.json", [*SYSTEM_USER, *last])
    code, _, err = run_cli(capsys, "chat", PHI3, "--messages", messages)
    assert code == 2 and "Cannot have 2 or more assistant messages at the end of the list." in err


@pytest.mark.parametrize(("args", "message"), [
    (["--kwargs", "[1]"], "--kwargs: expected a JSON object"),
    (["--kwargs", "{"], "--kwargs: not JSON"),
    (["--template-file", "/nonexistent.jinja"], "/nonexistent.jinja: cannot read the template"),
    (["--kwargs", '{"enable_thinking": "no"}'], 'llama-server: invalid type for "enable_thinking"'),
])  # fmt: skip
def test_bad_options_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    messages = _file(tmp_path, "m.json", SYSTEM_USER)
    code, out, err = run_cli(capsys, "chat", QWEN3, "--messages", messages, *args)
    assert (code, out) == (2, "") and message in err and err.count("\n") == 1


def test_llama_server_refusal_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    messages = _file(tmp_path, "m.json", [{"role": "user", "content": 3}])
    code, out, err = run_cli(capsys, "chat", PHI3, "--messages", messages)
    assert (code, out) == (2, "")
    assert err.startswith("tui-tok: error: llama-server: Failed to parse messages: Invalid 'content' type")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_prefix_reuse_and_budget_in_json_and_reuse_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    conversation = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!", "reasoning_content": "greet"},
                    {"role": "user", "content": "2+2?"}]  # fmt: skip
    messages = _file(tmp_path, "m.json", conversation)
    code, out, _ = run_cli(capsys, "chat", QWEN3, "--messages", messages, "--json")
    record = json.loads(out)
    header = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    [turn] = record["prefix_reuse"]
    assert code == 0 and (turn["message"], turn["next_message"], turn["next_prompt"]) == (1, 2, len(record["ids"]))
    assert turn["shared"] == turn["token"] == 9 and turn["char"] == len(header)  # Qwen3 drops the <think> block
    assert turn["cached_text"].startswith("<think>\ngreet") and turn["next_text"].startswith("Hello!<|im_end|>")
    budget = record["budget"]
    assert budget["tokens"] == len(record["ids"]) and budget["context_length"] is None and budget["tools"] is None
    assert sum(m["tokens"] for m in budget["messages"]) + budget["generation_prompt"] == budget["tokens"]
    assert [m["role"] for m in budget["messages"]] == ["user", "assistant", "user"] and budget["generation_prompt"] == 3
    code, out, _ = run_cli(capsys, "chat", QWEN3, "--messages", messages)
    assert code == 0 and "budget" not in out and "reuse" not in out  # the default output is unchanged
    code, out, _ = run_cli(capsys, "chat", PHI3, "--messages", messages, "--reuse")
    lines = out.splitlines()
    assert code == 0 and lines[-1].startswith("reuse: assistant 1 -> request through message 2: ")
    assert "breaks" not in lines[-1]  # phi-3 re-renders history as it was generated
    assert any(line.startswith("budget: ") and " tokens of 4096 context (" in line for line in lines)


def test_template_file_is_read_within_bounds(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A binary or huge --template-file is one line, not a render of whatever it holds."""
    messages = _file(tmp_path, "m.json", SYSTEM_USER)
    binary = tmp_path / "model.gguf"
    binary.write_bytes(b"GGUF\x03\x00\x00\x00{{ messages }}")
    huge = tmp_path / "huge.jinja"
    huge.write_text("{{ 'a' }}" + " " * 1_000_000)
    for path, reason in ((binary, "a NUL byte at offset 5"), (huge, "more than the 1,000,000 allowed")):
        code, out, err = run_cli(capsys, "chat", QWEN3, "--messages", messages, "--template-file", str(path))
        assert (code, out) == (2, "") and f"{path}: cannot read the template: " in err and reason in err
        assert err.count("\n") == 1
