"""The Chat view's templates: a template file loaded (ctrl+l), a template edited in the view
re-rendering live, the request controls (thinking, reasoning_effort, continue), and the prompt
pane after a failing template."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any, cast

import pytest
from textual.widgets import Checkbox, Input, Select, Static
from ui_support import make_app, settle

from hostile_templates import DEADLINE, HOSTILE, ISSUE, SLACK
from lint_support import broken
from support import ASSETS, HAVE_SHARED, SHARED, SHARED_MISSING
from tui_tok.cli import main
from tui_tok.explore.chat.prompt import chat_prompt
from tui_tok.explore.chat.render import ChatTemplateError, templates_of
from tui_tok.explore.chat.template_file import MAX_TEMPLATE_BYTES
from tui_tok.explore.session_file import from_json, to_json
from tui_tok.ui.screens.chat import SAMPLE_CONVERSATION, ChatScreen
from tui_tok.ui.screens.template_dialog import TemplateFileDialog
from tui_tok.ui.session_io import collect
from tui_tok.ui.widgets.chat_messages import MessageEditor
from tui_tok.ui.widgets.chat_source import TemplateEditor
from tui_tok.ui.widgets.token_view import TokenView

QWEN3 = ASSETS / "qwen3-vocab.gguf"
GPT2 = ASSETS / "ggml-vocab-gpt-2.gguf"
SIZE = (120, 40)
PLAIN = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
"""A small template that renders any conversation."""


async def _open(app, pilot) -> ChatScreen:  # type: ignore[no-untyped-def]
    await settle(app, pilot)
    await pilot.press("f5")
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ChatScreen)
    return screen


async def test_prompt_pane_is_drawn_after_a_failing_template(tmp_path: Path) -> None:
    """The token view, hidden while the error shows, kept the empty size it measured then: switching
    to a template that renders left the Prompt tokens pane blank."""
    path = broken(tmp_path, "qwen3-vocab.gguf", tokenizer__chat_template="{{ raise_exception('no') }}",
                  tokenizer__chat_templates=["ok"], tokenizer__chat_template__ok=PLAIN)  # fmt: skip
    app = make_app(path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        assert screen.has_class("-error") and screen.prompt is None
        screen.query_one("#chat-template", Select).value = "ok"
        await settle(app, pilot)
        assert screen.prompt is not None and not screen.has_class("-error")
        view = screen.query_one("#chat-view", TokenView)
        assert view.content_box.width == view.size.width > 0
        first = view.render_line(0).text
        assert first.startswith("<|im_start|>system↵"), first


def _cli_prompt(capsys: pytest.CaptureFixture[str], model: Path, messages: list[dict[str, str]], tmp_path: Path,
                *flags: str) -> dict[str, Any]:  # fmt: skip
    """``tui-tok chat MODEL --messages FILE --json FLAGS``: what the command line gives."""
    file = tmp_path / "messages.json"
    file.write_text(json.dumps(messages), encoding="utf-8")
    code = main(["chat", str(model), "--messages", str(file), "--json", *flags])
    out, _ = capsys.readouterr()
    assert code == 0
    return cast(dict[str, Any], json.loads(out))


def _sample() -> list[dict[str, str]]:
    return [{"role": r, "content": c} for r, c in SAMPLE_CONVERSATION]


async def _load(app, pilot, path: Path | str) -> TemplateFileDialog:  # type: ignore[no-untyped-def]
    """ctrl+l, the path typed, Enter; returns the dialog (it has closed when the file was read)."""
    await pilot.press("ctrl+l")
    await pilot.pause()
    dialog = app.screen
    assert isinstance(dialog, TemplateFileDialog)
    dialog.query_one(Input).value = str(path)
    await pilot.press("enter")
    await settle(app, pilot)
    return dialog


async def test_a_loaded_template_file_is_chosen_and_rendered(tmp_path: Path) -> None:
    """A file without a template: the loaded one is named by its file name (shown as text, not
    markup), chosen, and its prompt is ``chat_prompt``'s on the same template."""
    path = tmp_path / "[bold]mine.jinja"
    path.write_text(PLAIN, encoding="utf-8")
    app = make_app(GPT2)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        await _load(app, pilot, path)
        assert isinstance(app.screen, ChatScreen)
        assert screen.template_name == "[bold]mine.jinja" and list(screen.templates) == ["(none)", "[bold]mine.jinja"]
        shown = screen.query_one("#chat-template", Select).query_one("SelectCurrent #label", Static).render()
        assert str(shown) == "[bold]mine.jinja"
        assert screen.prompt is not None and app.tokenizer is not None
        expected = chat_prompt(app.tokenizer, PLAIN, _sample(), runtime="llama-server")
        assert screen.prompt.ids == expected.ids and screen.prompt.text.startswith("<|im_start|>system\nYou are")
        assert "<|im_start|>assistant" not in screen.prompt.text[-30:]  # the file's template has no generation prompt
        # loaded again: the same entry, not a second one
        path.write_text(PLAIN.replace("<|im_end|>", "<|END|>"), encoding="utf-8")
        await _load(app, pilot, path)
        assert list(screen.templates) == ["(none)", "[bold]mine.jinja"] and "<|END|>" in screen.prompt.text


async def test_bad_template_files_are_one_line_errors_in_the_dialog(tmp_path: Path) -> None:
    binary = tmp_path / "model.gguf"
    binary.write_bytes(QWEN3.read_bytes()[:4096])
    huge = tmp_path / "huge.jinja"
    with open(huge, "wb") as f:  # sparse: 2 MB of nothing, never read
        f.truncate(MAX_TEMPLATE_BYTES + 1)
    latin1 = tmp_path / "latin1.jinja"
    latin1.write_bytes(b"caf\xe9 {{ messages }}")
    cases = {tmp_path / "missing.jinja": "No such file", tmp_path: "is a directory", binary: "NUL byte at offset",
             huge: "more than the 1,000,000 allowed", latin1: "not UTF-8 text (byte 3)"}  # fmt: skip
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        before = screen.prompt
        for path, reason in cases.items():
            dialog = await _load(app, pilot, path)
            assert app.screen is dialog  # still open, for another try
            shown = str(dialog.query_one("#template-error", Static).render())
            assert shown.startswith(f"{path}: cannot read the template: ") and reason in shown, shown
            assert "\n" not in shown and "Traceback" not in shown
            await pilot.press("escape")
            await pilot.pause()
        assert app.screen is screen and list(screen.templates) == ["default"] and screen.prompt is before


async def test_an_edit_re_renders_as_the_edited_template(tmp_path: Path) -> None:
    """ctrl+s shows the template in an editor; an edit is the "(edited)" template, rendered in the
    worker to chat_prompt's ids on the same text; the file's template is left as it was; a broken
    edit shows its line and column; ctrl+s goes back to the conversation."""
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        original = screen.templates["default"]
        await pilot.press("ctrl+s")
        await pilot.pause()
        source = screen.query_one("#chat-source", TemplateEditor)
        assert screen.has_class("-source") and app.focused is source and source.text == original
        await pilot.press(*"{{ 'Hi!' }}")
        await settle(app, pilot)
        edited = "{{ 'Hi!' }}" + original
        assert screen.template_name == "(edited)" and screen.templates["(edited)"] == edited
        assert screen.templates["default"] == original == templates_of(app.session.metadata)["default"]
        assert screen.prompt is not None and app.tokenizer is not None
        expected = chat_prompt(app.tokenizer, edited, _sample(), runtime="llama-server")
        assert screen.prompt.ids == expected.ids and screen.prompt.text.startswith("Hi!<|im_start|>system")
        source.cursor_location = (0, 0)
        await pilot.press(*"{% if %}")  # a syntax error on line 1
        await settle(app, pilot)
        error = str(screen.query_one("#chat-error", Static).render())
        assert screen.has_class("-error") and error.startswith("template line 1") and "\n" not in str(screen.error)
        await pilot.press("shift+home", "backspace")  # taken out again: it renders again
        await settle(app, pilot)
        assert not screen.has_class("-error") and screen.prompt.ids == expected.ids
        screen.query_one("#chat-template", Select).value = "default"  # the file's template, in the editor too
        await settle(app, pilot)
        assert source.text == original and screen.templates["(edited)"] == edited
        assert screen.prompt.ids == chat_prompt(app.tokenizer, original, _sample(), runtime="llama-server").ids
        screen.query_one("#chat-template", Select).value = "(edited)"  # chosen again: its text is back
        await settle(app, pilot)
        assert source.text == edited and screen.prompt.ids == expected.ids
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert not screen.has_class("-source") and isinstance(app.focused, MessageEditor)


@pytest.mark.parametrize("runtime", ["llama-server", "transformers"])
async def test_request_controls_give_the_command_lines_prompt(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                              runtime: str) -> None:  # fmt: skip
    """Thinking off, a reasoning effort, continue the last message: the view's ids are
    ``tui-tok chat --json``'s with the same flags; a variable typed wins over the thinking control."""
    steps: list[tuple[str, object, tuple[str, ...]]] = [
        ("#chat-thinking", "off", ("--thinking", "off")),
        ("#chat-thinking", "on", ("--thinking", "on")),
        ("#chat-effort", "high", ("--thinking", "on", "--reasoning-effort", "high")),
        ("#chat-effort", "none", ("--thinking", "on", "--reasoning-effort", "none")),
        (
            "#chat-vars",
            "enable_thinking=false",
            ("--thinking", "on", "--reasoning-effort", "none", "--set", "enable_thinking=false"),
        ),  # fmt: skip
        (
            "#chat-continue",
            True,
            ("--thinking", "on", "--reasoning-effort", "none", "--set", "enable_thinking=false", "--continue"),
        ),  # fmt: skip
    ]
    # the command line first: the app, once running, holds stdout
    default = _cli_prompt(capsys, QWEN3, _sample(), tmp_path, "--runtime", runtime)
    expected = [
        _cli_prompt(capsys, QWEN3, _sample(), tmp_path, "--runtime", runtime, *flags)["ids"] for *_, flags in steps
    ]
    if runtime == "llama-server":  # thinking off is Qwen3's empty think block after the generation prompt
        off = _cli_prompt(capsys, QWEN3, _sample(), tmp_path, "--thinking", "off")
        assert off["text"].endswith("<|im_start|>assistant\n<think>\n\n</think>\n\n")
        assert not default["text"].endswith("</think>\n\n") and off["ids"] == expected[0]
    assert len({tuple(ids) for ids in [default["ids"], *expected]}) >= 3  # the flags change the prompt
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        screen.query_one("#chat-runtime", Select).value = runtime
        await settle(app, pilot)
        assert screen.prompt is not None and screen.prompt.ids == default["ids"]
        for (widget, value, _), ids in zip(steps, expected):
            cast(Any, screen.query_one(widget)).value = value
            await settle(app, pilot)
            assert screen.prompt is not None and screen.prompt.ids == ids, (widget, value)
        assert not screen.prompt.text.endswith("<|im_start|>assistant\n")  # continued: no generation prompt


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
async def test_gemma4_thinks_by_default_in_llama_server_and_not_when_off() -> None:
    """llama-server's default turns thinking on where the template can think: gemma-4 gets <|think|>."""
    app = make_app(SHARED / "vocabs" / "ggml-vocab-gemma-4.gguf")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        assert screen.prompt is not None and screen.prompt.text.startswith("<|turn>system\n<|think|>")
        screen.query_one("#chat-thinking", Select).value = "off"
        await settle(app, pilot)
        assert screen.prompt is not None and "<|think|>" not in screen.prompt.text


@pytest.mark.parametrize("name", ISSUE)
async def test_a_hostile_template_file_fails_within_the_deadline_and_the_view_answers(
    tmp_path: Path, name: str
) -> None:
    template, reason = HOSTILE[name]
    path = tmp_path / "loops.jinja"
    path.write_text(template, encoding="utf-8")
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        await pilot.press("ctrl+l")
        await pilot.pause()
        box = app.screen.query_one(Input)
        box.value = str(path)
        start = time.perf_counter()
        await box.action_submit()  # Pilot's press would wait for the CPU to be idle: for the render to end
        await asyncio.sleep(0.3)
        assert app.screen is screen and screen.template_name == "loops.jinja"
        # while the render runs (nested loops: 2 s), the view takes keys: the generation prompt box follows ctrl+g
        assert screen.query_one("#chat-agp", Checkbox).value
        assert screen.error is None or name != "nested-loops"
        app.simulate_key("ctrl+g")
        await asyncio.sleep(0.3)
        assert not screen.query_one("#chat-agp", Checkbox).value
        await settle(app, pilot)
        assert time.perf_counter() - start < DEADLINE + SLACK + 2
        assert isinstance(screen.error, ChatTemplateError) and reason in str(screen.error)
        assert "\n" not in str(screen.error) and app.is_running


async def test_the_session_keeps_the_controls_and_the_loaded_and_edited_templates(tmp_path: Path) -> None:
    path = tmp_path / "mine.jinja"
    path.write_text(PLAIN, encoding="utf-8")
    app = make_app(QWEN3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _open(app, pilot)
        await _load(app, pilot, path)
        await pilot.press("ctrl+s", *"X")  # an edit of the loaded template
        screen.query_one("#chat-runtime", Select).value = "transformers"
        screen.query_one("#chat-thinking", Select).value = "off"
        screen.query_one("#chat-effort", Select).value = "low"
        screen.query_one("#chat-continue", Checkbox).value = True
        await settle(app, pilot)
        saved = collect(app)
        ids = screen.prompt.ids if screen.prompt else None
    assert saved.chat is not None and saved.chat.template == "(edited)"
    assert saved.chat.templates == {"mine.jinja": PLAIN, "(edited)": "X" + PLAIN}
    assert (saved.chat.runtime, saved.chat.thinking, saved.chat.reasoning_effort, saved.chat.continue_final_message) == (
        "transformers", "off", "low", "auto")  # fmt: skip
    state = from_json(json.loads(to_json(saved)), "s.json")
    assert state == saved
    again = make_app(QWEN3)
    again.pending_session = state
    async with again.run_test(size=SIZE) as pilot:
        screen = await _open(again, pilot)
        assert collect(again) == saved
        assert screen.prompt is not None and screen.prompt.ids == ids


def test_template_editor_snapshot(snap_compare) -> None:  # type: ignore[no-untyped-def]
    """ctrl+s on Qwen3, then ``{{ 'Hi!' }}`` typed at the start: the editor (line numbers, titled
    "template '(edited)'") in the conversation's place, the selector on (edited), and the prompt on
    the right starting with "Hi!" before <|im_start|>system."""

    async def run_before(pilot) -> None:  # type: ignore[no-untyped-def]
        await settle(pilot.app, pilot)
        await pilot.press("f5")
        await settle(pilot.app, pilot)
        await pilot.press("ctrl+s", *"{{ 'Hi!' }}")
        await settle(pilot.app, pilot)

    assert snap_compare(make_app(QWEN3), terminal_size=SIZE, run_before=run_before)
