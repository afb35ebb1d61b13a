"""llama.cpp itself loads every fixed copy and behaves as the fix says: ids equal to ours (``pre``,
merges), the turn end in its EOG set, a start-of-turn out of it, a marker matched as one special
token, BOS added. The broken files behave the other way (or fail to load), so each case shows the
fix made the difference.

Runs only when asked, like the other oracles: ``TUI_TOK_ORACLE=1`` and a Python with
llama-cpp-python 0.3.36 (``TUI_TOK_LLAMA_PYTHON``, default ``../llvenv/bin/python``), which loads
the copies with ``vocab_only=True`` in a child process.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from fix_support import with_tensors
from lint_support import DROP, asset_metadata
from tui_tok import load_tokenizer
from tui_tok.cli import main
from tui_tok.gguf import write_gguf

ROOT = Path(__file__).resolve().parents[2]
PYTHON = Path(os.environ.get("TUI_TOK_LLAMA_PYTHON", ROOT.parent / "llvenv" / "bin" / "python"))
TEXTS = ("Hello world, it's 2024!  12345 don't\n\tgo", "<|im_start|>user\nHi<|im_end|>", "  x  \n\n 99 fish")
CHATML = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")  # fmt: skip

PEER = r"""
import json, sys
import llama_cpp
out = []
for job in json.loads(sys.stdin.read()):
    try:
        llm = llama_cpp.Llama(model_path=job["path"], vocab_only=True, verbose=False)
    except Exception as exc:
        out.append({"error": str(exc)})
        continue
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    out.append({
        "ids": [llm.tokenize(t.encode(), add_bos=False, special=True) for t in job["texts"]],
        "bos": llm.tokenize(b"x", add_bos=True, special=False)[:1],
        "eog": {str(i): bool(llama_cpp.llama_vocab_is_eog(vocab, i)) for i in job["eog"]},
    })
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def peer() -> Any:
    if os.environ.get("TUI_TOK_ORACLE") != "1":
        pytest.skip("set TUI_TOK_ORACLE=1 (and TUI_TOK_LLAMA_PYTHON) to load the fixed copies in llama.cpp")
    if not PYTHON.exists() or subprocess.run([str(PYTHON), "-c", "import llama_cpp"], capture_output=True).returncode:
        pytest.skip(f"no llama-cpp-python at {PYTHON} (set TUI_TOK_LLAMA_PYTHON)")

    def run(paths: list[Path], eog: tuple[int, ...] = ()) -> list[dict[str, Any]]:
        jobs = [{"path": str(p), "texts": list(TEXTS), "eog": list(eog)} for p in paths]
        proc = subprocess.run([str(PYTHON), "-c", PEER], input=json.dumps(jobs), capture_output=True, text=True,
                              timeout=600, check=True)  # fmt: skip
        return json.loads(proc.stdout.strip().splitlines()[-1])

    return run


def broken_and_fixed(tmp_path: Path, asset: str, name: str, tensors: bool = False, **changes: Any) -> tuple[Path, Path]:
    """``asset``'s metadata with ``changes`` (short keys under tokenizer.ggml., or full keys with __),
    vocab-only or with real tensor data, and its copy written by ``tui-tok fix``."""
    meta = dict(asset_metadata(asset))
    for short, value in changes.items():
        key = short.replace("__", ".") if "__" in short else f"tokenizer.ggml.{short}"
        if value is DROP:
            meta.pop(key, None)
        else:
            meta[key] = value
    src = with_tensors(tmp_path / f"{name}.gguf", meta) if tensors else write_gguf(tmp_path / f"{name}.gguf", meta)
    out = tmp_path / f"{name}.fixed.gguf"
    assert main(["fix", str(src), "-o", str(out)]) == 0
    return src, out


def ours(path: Path) -> list[list[int]]:
    tok = load_tokenizer(path)
    return [tok.encode(t, add_special=False, parse_special=True) for t in TEXTS]


def test_pre_and_merges_fixed_give_llama_cpps_ids(peer, tmp_path) -> None:
    _, pre = broken_and_fixed(tmp_path, "qwen3-vocab.gguf", "pre", tensors=True, pre="default")
    merges = asset_metadata("ggml-vocab-gpt-2.gguf")["tokenizer.ggml.merges"]
    broken, joined = broken_and_fixed(tmp_path, "ggml-vocab-gpt-2.gguf", "merges",
                                      merges=[m.split(" ", 1) for m in merges])  # fmt: skip
    got = peer([pre, joined, broken])
    assert got[0]["ids"] == ours(pre)
    assert got[1]["ids"] == ours(joined)
    assert "error" in got[2]  # the pairs: llama.cpp cannot load the file


def test_eog_fixes_change_where_llama_cpp_stops(peer, tmp_path) -> None:
    template = CHATML.replace("<|im_end|>", "<|object_ref_start|>")
    turn_end = broken_and_fixed(tmp_path, "qwen3-vocab.gguf", "turn", tokenizer__chat_template=template)
    marker = broken_and_fixed(tmp_path, "qwen3-vocab.gguf", "marker", eos_token_id=151644,
                              tokenizer__chat_template=CHATML)  # fmt: skip
    opener = broken_and_fixed(tmp_path, "qwen3-vocab.gguf", "opener", eot_token_id=151657)  # <tool_call>
    got = peer([*turn_end, *marker, *opener], eog=(151644, 151645, 151646, 151657))
    assert (got[0]["eog"]["151646"], got[1]["eog"]["151646"]) == (False, True)
    assert (got[2]["eog"]["151644"], got[3]["eog"]["151644"]) == (True, False)
    assert got[3]["eog"]["151645"]
    assert (got[4]["eog"]["151657"], got[5]["eog"]["151657"]) == (True, False)


def test_marker_type_and_bos_fixes(peer, tmp_path) -> None:
    types = asset_metadata("qwen3-vocab.gguf")["tokenizer.ggml.token_type"].copy()
    types[151644] = 1
    marker = broken_and_fixed(tmp_path, "qwen3-vocab.gguf", "type", token_type=types)
    bos = broken_and_fixed(tmp_path, "qwen3-vocab.gguf", "bos", general__architecture="gemma3",
                           add_bos_token=False, bos_token_id=151643, tokenizer__chat_template=CHATML)  # fmt: skip
    got = peer([*marker, *bos])
    assert got[0]["ids"][1][0] != 151644 and got[1]["ids"][1][0] == 151644
    assert got[1]["ids"] == ours(marker[1])
    assert got[2]["bos"] != [151643] and got[3]["bos"] == [151643]
