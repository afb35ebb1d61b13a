"""``tui-tok chat`` and ``tui-tok lint`` on a GGUF file whose chat template is hostile: one line,
a non-zero exit code, within the deadline and 200 MB (each run in a fresh, memory-capped process)."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hostile_templates import DEADLINE, HOSTILE, ISSUE, MAX_EXTRA_MB, SLACK
from lint_support import broken
from support import ROOT

ASSET = "ggml-vocab-phi-3.gguf"
STARTUP = 10.0
"""Seconds a run may take besides the render: interpreter start, reading the file, building the tokenizer."""

_RUN = """
import json, resource, sys
report, *argv = sys.argv[1:]
from tui_tok.cli import main
import tui_tok.explore.lint, tui_tok.explore.chat.prompt, tui_tok.loader
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
code = main(argv)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with open(report, "w") as f:
    json.dump({"extra_mb": (after - before) / 1024}, f)
sys.exit(code)
"""


def _limit_memory() -> None:
    cap = 3 << 30  # numpy and the tokenizer map more than they use; a renderer without bounds fails instead
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def run(tmp_path: Path, *argv: str) -> tuple[int, str, str, float, dict[str, Any]]:
    report = tmp_path / "report.json"
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _RUN, str(report), *argv], capture_output=True, text=True,
                          timeout=DEADLINE + STARTUP + 30, cwd=ROOT, preexec_fn=_limit_memory)  # fmt: skip
    seconds = time.perf_counter() - start
    measured = json.loads(report.read_text()) if report.exists() else {}
    return proc.returncode, proc.stdout, proc.stderr, seconds, measured


def _model(tmp_path: Path, name: str) -> Path:
    return broken(tmp_path, ASSET, tokenizer__chat_template=HOSTILE[name][0])


@pytest.mark.parametrize("name", [*ISSUE, "list-growth"])
def test_chat_is_one_line_and_exits_2(tmp_path: Path, name: str) -> None:
    messages = tmp_path / "m.json"
    messages.write_text('[{"role": "user", "content": "Hello"}]', encoding="utf-8")
    code, out, err, seconds, measured = run(tmp_path, "chat", str(_model(tmp_path, name)), "--messages", str(messages))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("tui-tok: error: template") and HOSTILE[name][1] in err, err
    assert seconds < DEADLINE + SLACK + STARTUP
    assert measured["extra_mb"] < MAX_EXTRA_MB


@pytest.mark.parametrize("name", [*ISSUE, "list-growth"])
def test_lint_reports_a_template_error_and_exits_1(tmp_path: Path, name: str) -> None:
    code, out, err, seconds, measured = run(tmp_path, "lint", str(_model(tmp_path, name)))
    assert code == 1, err
    found = [line for line in out.splitlines() if line.startswith("error   template-error:")]
    assert len(found) == 1 and HOSTILE[name][1] in found[0], out
    assert "Traceback" not in err
    assert seconds < DEADLINE + SLACK + STARTUP
    assert measured["extra_mb"] < MAX_EXTRA_MB
