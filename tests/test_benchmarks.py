"""Every benchmark stays runnable: ``--help`` prints its usage, and the quick ones run on a tiny
input from the bundled assets.

The figures themselves are never asserted (speed is measured, not tested); this only catches a
benchmark that no longer starts, as ``benchmarks/ugm.py`` once did after a function it imports
moved (an import inside ``main``, after the arguments are read: ``--help`` alone missed it).
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NAMES = sorted(m.name for m in pkgutil.iter_modules([str(ROOT / "benchmarks")]) if not m.name.startswith("_"))
T5 = str(ROOT / "assets" / "t5-botchan-en-unigram-1000.gguf")

TINY_RUNS = {
    "chat": [str(ROOT / "assets" / "qwen3-vocab.gguf"), "--keys", "3", "--messages", "4"],
    "corpus": ["--size", "0.01"],
    "encode": ["--size", "0.01", "--repeat", "1", "--only", "gpt-2", "phi-3"],
    "explain": [str(ROOT / "assets" / "ggml-vocab-gpt-2.gguf"), "--size", "200", "--repeat", "1"],
    "fix": ["--size-gb", "0.01", "--no-dense"],
    "families": ["--only", "bert-bge", "rwkv-world", "--repeat", "1", "--size", "2000", "--spans"],
    "gguf_read": ["--no-peer", "--repeat", "1", "--only", "gpt-2"],
    "lint": ["--repeat", "1", "--only", "gpt-2"],
    "huge_word": ["--no-peer", "--size", "0.003", "--only", "qwen3-vocab", "phi-3", "--kinds", "spaces"],
    "pretokenize": ["--size", "0.01", "--repeat", "1", "gpt-2"],
    "ugm": ["--size", "0.01", "--repeat", "1", T5],
}
"""Arguments that make a benchmark finish in a second or two (the others compile llama.cpp,
start the app or time whole processes: ``--help`` only)."""


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "benchmarks", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_benchmark_prints_its_usage(name: str) -> None:
    proc = _run([name, "--help"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage" in proc.stdout.lower()


@pytest.mark.parametrize("name", sorted(TINY_RUNS))
def test_quick_benchmark_runs(name: str) -> None:
    proc = _run([name, *TINY_RUNS[name]])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (proc.stdout + proc.stderr).strip()  # corpus reports on stderr unless --out is given
