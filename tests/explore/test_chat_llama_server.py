"""The llama-server runtime against llama.cpp's own chat code: the same prompt ids on every template
and conversation of ``fixtures/chat_llama_server/cases.py``.

Without the oracle, against its recorded answers (``oracle.jsonl``): the templates inside our vocab
files always (bundled ones with assets alone), llama.cpp's 70 templates when its sdist is found
(``TUI_TOK_LLAMA_TEMPLATES``). With ``TUI_TOK_CHAT_ORACLE=/path/to/chat_oracle`` (opt-in, like
``TUI_TOK_ORACLE``), against the live oracle. The score is printed; the cases still differing are
listed in ``known_differences.txt`` and must be exactly those (a fixed case leaves the list).
"""

from __future__ import annotations

import json
import os
import sys
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "chat_llama_server"))

from cases import CASES, RECORDED, ids_sha, run_oracle, sha, template_sets

from tui_tok.explore.chat.llama_server.apply import LlamaServerRequest
from tui_tok.explore.chat.prompt import chat_prompt
from tui_tok.explore.chat.render import ChatTemplateError, templates_of
from tui_tok.gguf import read_gguf
from tui_tok.loader import load_tokenizer
from tui_tok.tokenizer import Tokenizer

KNOWN = Path(RECORDED).with_name("known_differences.txt")
ORACLE = os.environ.get("TUI_TOK_CHAT_ORACLE")


@cache
def _tokenizer(vocab: Path) -> Tokenizer:
    return load_tokenizer(read_gguf(vocab))


def ours(vocab: Path, template: Path | None, case: str, now: datetime | None = None) -> dict[str, Any]:
    """Our runtime's answer in the oracle's form: ``{"prompt", "ids"}`` or ``{"error"}``."""
    tok = _tokenizer(vocab)
    if template is not None:
        default, tool_use = template.read_text(encoding="utf-8"), None
    else:
        templates = templates_of(read_gguf(vocab).metadata)
        default, tool_use = templates.get("default", ""), templates.get("tool_use")
    req = CASES[case]
    # the oracle calls common_chat_templates_apply directly: no server prefill of a last assistant message
    request = LlamaServerRequest(enable_thinking=req.get("enable_thinking", True), now=now, prefill_assistant=False)
    try:
        p = chat_prompt(tok, default, req["messages"], add_generation_prompt=req.get("add_generation_prompt", True),
                        tools=req.get("tools"), extra=req.get("kwargs"), locate_messages=False, runtime="llama-server",
                        tool_use_template=tool_use, request=request)  # fmt: skip
    except ChatTemplateError as exc:
        return {"error": str(exc)}
    return {"prompt": p.text, "ids": p.ids}


def _same(ours_: dict[str, Any], theirs: dict[str, Any]) -> bool:
    if "error" in theirs or "error" in ours_:
        return "error" in theirs and "error" in ours_
    ids = theirs.get("ids")
    if ids is not None:
        return bool(ours_["ids"] == ids)
    return bool(sha(ours_["prompt"]) == theirs["prompt_sha"] and ids_sha(ours_["ids"]) == theirs["ids_sha"])


def _known() -> set[tuple[str, str]]:
    lines = KNOWN.read_text(encoding="utf-8").splitlines() if KNOWN.is_file() else []
    return {tuple(line.split()[:2]) for line in lines if line.strip() and not line.startswith("#")}  # type: ignore[misc]


def _score(results: dict[tuple[str, str], bool], label: str) -> None:
    same = sum(results.values())
    sets = {s for s, _ in results}
    print(f"\n{label}: {same} of {len(results)} identical prompt ids ({len(sets)} templates)")
    for (s, c), ok in sorted(results.items()):
        if not ok:
            print(f"  differs: {s} {c}")
    known = {k for k in _known() if k[0] in sets}
    differing = {k for k, ok in results.items() if not ok}
    assert differing - known == set(), f"new differences: {sorted(differing - known)}"
    assert known - differing == set(), f"fixed, remove from {KNOWN.name}: {sorted(known - differing)}"


def _recorded() -> list[dict[str, Any]]:
    with RECORDED.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_recorded_expectations() -> None:
    """llama.cpp's recorded prompts, on the templates available here."""
    available = {name: (vocab, template) for name, vocab, template in template_sets()}
    results: dict[tuple[str, str], bool] = {}
    for row in _recorded():
        if row["set"] not in available:
            continue
        vocab, template = available[row["set"]]
        if template is not None and sha(template.read_text(encoding="utf-8")) != row.get("template_sha"):
            continue  # another llama.cpp version's template
        now = datetime.strptime(row["date"], "%Y-%m-%d")
        for case, theirs in row["cases"].items():
            results[(row["set"], case)] = _same(ours(vocab, template, case, now), theirs)
    if not results:
        pytest.skip("no recorded template is available here")
    _score(results, "llama-server runtime vs recorded llama.cpp 0.3.36")


@pytest.mark.skipif(
    not ORACLE, reason="set TUI_TOK_CHAT_ORACLE=/path/to/chat_oracle (../shared/tools/llama-chat-oracle)"
)
def test_live_oracle() -> None:
    """The live oracle on every template and case available here."""
    assert ORACLE is not None
    results: dict[tuple[str, str], bool] = {}
    for name, vocab, template in template_sets():
        answers = run_oracle(ORACLE, vocab, template, list(CASES.values()))
        for case, answer in zip(CASES, answers, strict=True):
            results[(name, case)] = _same(ours(vocab, template, case), answer)
    _score(results, "llama-server runtime vs llama.cpp 0.3.36 (live oracle)")
