"""tui-tok renders each GGUF chat template exactly as transformers does (the oracle).

The references in ``tests/fixtures/chat_refs/`` were made by ``tools/make_chat_refs.py`` with
transformers' ``render_jinja_template`` (what ``apply_chat_template(tokenize=False)`` calls), on the
conversations listed there: system + multi-turn, no generation prompt, tools, ``enable_thinking=false``,
Unicode, special-token text in a user message, documents, reasoning. A conversation transformers
refused must be refused by us too (a ``ChatTemplateError``). Files only in ``../shared`` skip without it.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

import pytest

from support import ROOT, SHARED_MISSING, vocab_file, vocab_name
from tui_tok.explore.chat.prompt import token_texts
from tui_tok.explore.chat.render import ChatTemplateError, render_chat, templates_of
from tui_tok.gguf import read_gguf
from tui_tok.loader import load_tokenizer

REFS = sorted((ROOT / "tests" / "fixtures" / "chat_refs").glob("*.json"))


def _cases() -> list:
    out = []
    for ref in REFS:
        record = json.loads(ref.read_text(encoding="utf-8"))
        for entry in record["templates"]:
            for case in entry["cases"]:
                out.append(
                    pytest.param(ref, entry["template"], case, id=f"{ref.stem}-{entry['template']}-{case['name']}")
                )
    return out


@cache
def _gguf(ref: Path) -> tuple[dict[str, str], tuple[str, str], dict]:
    try:
        path = vocab_file(vocab_name(ref.with_suffix(".gguf"))).path
    except LookupError:
        pytest.skip(f"{ref.stem}.gguf is not bundled and {SHARED_MISSING}")
    record = json.loads(ref.read_text(encoding="utf-8"))
    return templates_of(read_gguf(path).metadata), token_texts(load_tokenizer(path)), record


def test_references_cover_the_files_the_issue_names() -> None:
    names = {vocab_name(r.with_suffix(".gguf")) for r in REFS}
    assert {"command-r", "gemma-4", "phi-3", "qwen2", "qwen35", "qwen3-vocab", "rwkv-world-vocab"} <= names
    # the bundled Qwen3 file has a template: these tests run without ../shared too
    assert (ROOT / "assets" / "qwen3-vocab.gguf").is_file()


@pytest.mark.parametrize(("ref", "template_name", "case"), _cases())
def test_render_matches_transformers(ref: Path, template_name: str, case: dict) -> None:
    templates, (bos, eos), record = _gguf(ref)
    template = templates[template_name]
    entry = next(e for e in record["templates"] if e["template"] == template_name)
    assert hashlib.sha256(template.encode()).hexdigest() == entry["sha256"], (
        "the file's template changed: remake the refs"
    )
    assert (bos, eos) == (record["bos_token"], record["eos_token"])

    def render() -> str:
        return render_chat(template, case["messages"], bos_token=bos, eos_token=eos,
                           add_generation_prompt=case.get("add_generation_prompt", True), tools=case.get("tools"),
                           documents=case.get("documents"), extra=case.get("extra"))  # fmt: skip

    if "error" in case:
        with pytest.raises(ChatTemplateError) as info:
            render()
        assert "\n" not in str(info.value) and str(info.value).startswith("template")
    else:
        assert render() == case["expected"]
