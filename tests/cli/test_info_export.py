"""``tui-tok info`` and ``tui-tok export-vocab``: output, JSON, exports readable by two readers,
and bad files turned into one line on stderr with exit code 2."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_support import run_cli

from support import ASSETS, ROOT, gguf_py
from tui_tok.gguf import GGUFValue, GGUFValueType, read_gguf, write_gguf

QWEN3 = ASSETS / "qwen3-vocab.gguf"
PHI3 = ASSETS / "ggml-vocab-phi-3.gguf"
T5 = ASSETS / "t5-botchan-en-unigram-1000.gguf"


def test_info_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "info", str(PHI3))
    assert code == 0 and err == ""
    f = read_gguf(PHI3)
    tokens = f["tokenizer.ggml.tokens"]
    assert f"GGUF v{f.version}, little-endian" in out
    assert "architecture:    'phi3'" in out
    assert "model 'llama', pre 'default'" in out
    assert f"vocab size:      {len(tokens):,}" in out and len(tokens) >= 1000  # counts have separators
    bos = f["tokenizer.ggml.bos_token_id"]
    assert f"  {'bos':<8} {bos:>7}  {tokens[bos]!r}" in out
    assert "add_bos true" in out and "add_sep -" in out
    assert f"chat template:   present ({len(f['tokenizer.chat_template']):,} characters)" in out
    assert "tensors:         0" in out


def test_info_merges_and_missing_template(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    p = write_gguf(
        tmp_path / "m.gguf",
        {
            "general.architecture": "gpt2",
            "tokenizer.ggml.model": "gpt2",
            "tokenizer.ggml.tokens": ["a", "b", "ab", "bad\udcff"],
            "tokenizer.ggml.merges": ["a b"],
            "tokenizer.ggml.eos_token_id": 3,
            "tokenizer.ggml.bos_token_id": 9,
        },
        tensors=[("w", (32, 4), 8)],
    )
    code, out, _ = run_cli(capsys, "info", str(p))
    assert code == 0
    assert "merges:          1" in out and "chat template:   none" in out
    assert "'bad\\\\xff'" in out  # undecodable bytes shown escaped
    assert "out of range: vocab has 4 tokens" in out
    assert "tensors:         1 (136 bytes of data)" in out


def test_info_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "info", "--json", str(T5))
    assert code == 0
    doc = json.loads(out)
    f = read_gguf(T5)
    assert list(doc["metadata"]) == list(f.fields)
    toks = doc["metadata"]["tokenizer.ggml.tokens"]
    assert toks == {"type": "[string; 1000]", "length": 1000, "head": f["tokenizer.ggml.tokens"][:16]}
    assert doc["metadata"]["general.architecture"] == "t5"
    assert doc["gguf_version"] == f.version and doc["tensor_count"] == 0
    code, out, _ = run_cli(capsys, "info", "--json", "--full", str(T5))
    assert json.loads(out)["metadata"]["tokenizer.ggml.tokens"] == {
        "type": "array",
        "item_type": "string",
        "count": 1000,
        "value": f["tokenizer.ggml.tokens"],
    }


def test_info_json_escapes_bytes_and_non_finite(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    p = write_gguf(tmp_path / "j.gguf", {"s": "ok\udcff", "f": float("inf"), "a": np.array([1.5], np.float32)})
    code, out, _ = run_cli(capsys, "info", "--json", str(p))
    meta = json.loads(out)["metadata"]
    assert meta == {"s": {"text": "ok\\xff", "hex": "6f6bff"}, "f": "inf", "a": [1.5]}


def test_info_does_not_import_the_tokenizer() -> None:
    code = (
        "import sys; from tui_tok.cli import main; main(['info', sys.argv[1]]); "
        "bad = [m for m in sys.modules if m.startswith(('tui_tok.tokenizer', 'textual'))]; "
        "assert not bad, bad"
    )
    r = subprocess.run([sys.executable, "-c", code, str(PHI3)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_export_vocab(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = write_gguf(
        tmp_path / "model.gguf",
        {
            "general.architecture": "llama",
            "general.alignment": GGUFValue(GGUFValueType.UINT32, 64),
            "llama.context_length": 4096,
            "tokenizer.ggml.tokens": ["<s>", "a", "b"],
            "tokenizer.ggml.scores": np.array([0, -1, -2], np.float32),
            "tokenizer.ggml.token_type": GGUFValue(GGUFValueType.ARRAY, [3, 1, 1], GGUFValueType.INT32),
            "tokenizer.ggml.add_bos_token": True,
        },
        tensors=[("token_embd.weight", (64, 3), 0)],
    )
    out = tmp_path / "vocab.gguf"
    code, _, err = run_cli(capsys, "export-vocab", str(src), "-o", str(out))
    assert code == 0 and "wrote" in err
    a, b = read_gguf(src), read_gguf(out)
    assert b.tensors == () and a.tensors and b.file_size < a.file_size
    assert list(b.fields) == list(a.fields)
    for key, fa in a.fields.items():
        fb = b.fields[key]
        assert (fa.type, fa.item_type) == (fb.type, fb.item_type), key
        assert np.array_equal(fa.value, fb.value) if isinstance(fa.value, np.ndarray) else fa.value == fb.value
    assert b.alignment == 64


def test_export_of_real_vocab_is_identical(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "t5.gguf"
    assert run_cli(capsys, "export-vocab", str(T5), "-o", str(out))[0] == 0
    assert out.read_bytes() == T5.read_bytes()  # a vocab-only file exports to itself, byte for byte


def test_gguf_py_reads_our_export(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    gguf = gguf_py()
    src = write_gguf(
        tmp_path / "model.gguf",
        {
            "general.architecture": "llama",
            "tokenizer.ggml.model": "llama",
            "tokenizer.ggml.tokens": [f"tok{i}" for i in range(700)] + ["\u00e9t\u00e9", ""],
            "tokenizer.ggml.scores": np.arange(702, dtype=np.float32),
            "tokenizer.ggml.token_type": np.ones(702, dtype=np.int32),
            "tokenizer.ggml.add_bos_token": True,
            "tokenizer.ggml.bos_token_id": 1,
        },
        tensors=[("token_embd.weight", (32, 702), 1)],
    )
    out = tmp_path / "vocab.gguf"
    assert run_cli(capsys, "export-vocab", str(src), "-o", str(out))[0] == 0
    ours = read_gguf(out)
    r = gguf.GGUFReader(str(out))
    assert [k for k in r.fields if not k.startswith("GGUF.")] == list(ours.fields)
    assert len(r.tensors) == 0
    tokens = r.fields["tokenizer.ggml.tokens"]
    assert [tokens.contents(i) for i in (0, 699, 700, 701)] == ["tok0", "tok699", "\u00e9t\u00e9", ""]
    assert r.fields["tokenizer.ggml.scores"].contents()[:3] == [0.0, 1.0, 2.0]
    assert r.fields["tokenizer.ggml.add_bos_token"].contents() is True
    assert r.fields["tokenizer.ggml.bos_token_id"].contents() == 1


def test_export_refuses_to_overwrite_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    p = tmp_path / "v.gguf"
    p.write_bytes(T5.read_bytes())
    code, _, err = run_cli(capsys, "export-vocab", str(p), "-o", str(p))
    assert code != 0 and "refusing to overwrite the input" in err
    assert p.read_bytes() == T5.read_bytes()


# -- bad files ---------------------------------------------------------------------------


def _raw_kv(key: str, vtype: int, payload: bytes) -> bytes:
    k = key.encode()
    return struct.pack("<Q", len(k)) + k + struct.pack("<I", vtype) + payload


def _raw(*kvs: bytes, version: int = 3) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, 0, len(kvs)) + b"".join(kvs)


HOSTILE = {
    "bad-magic": b"GGUX" + _raw()[4:],
    "version-1": _raw(version=1),
    "version-4": _raw(version=4),
    "truncated-header": _raw()[:13],
    "string-2^63": _raw(_raw_kv("general.name", 8, struct.pack("<Q", 2**63) + b"abc" + b"\0" * 9)),
    "u8-array-2^62": _raw(_raw_kv("a", 9, struct.pack("<IQ", 0, 2**62) + b"\0" * 8)),
    "string-array-2^62": _raw(_raw_kv("a", 9, struct.pack("<IQ", 8, 2**62) + b"\0" * 8)),
    "array-array-2^62": _raw(_raw_kv("a", 9, struct.pack("<IQ", 9, 2**62) + b"\0" * 8)),
    "unknown-type": _raw(_raw_kv("k", 13, b"\0" * 8)),
    "duplicate-key": _raw(_raw_kv("k", 4, b"\1\0\0\0"), _raw_kv("k", 4, b"\2\0\0\0")),
    "alignment-0": _raw(_raw_kv("general.alignment", 4, b"\0\0\0\0")),
    "alignment-odd": _raw(_raw_kv("general.alignment", 4, b"\3\0\0\0")),
    "kv-count-lies": b"GGUF" + struct.pack("<IQQ", 3, 0, 2**40),
    "empty": b"",
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_bad_file_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str) -> None:
    p = tmp_path / f"{name}.gguf"
    p.write_bytes(HOSTILE[name])
    for argv in (["info", str(p)], ["export-vocab", str(p), "-o", str(tmp_path / "out.gguf")]):
        code, out, err = run_cli(capsys, *argv)
        assert code == 2, err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("tui-tok: error: ") and str(p) in lines[0], err
        assert "offset " in lines[0] and "Traceback" not in err
    assert not (tmp_path / "out.gguf").exists()


def test_key_named_in_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    p = tmp_path / "k.gguf"
    p.write_bytes(HOSTILE["string-2^63"])
    _, _, err = run_cli(capsys, "info", str(p))
    assert "key 'general.name'" in err and "string length 9223372036854775808 exceeds the 12 bytes left" in err


def test_missing_file_and_directory(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for target in (tmp_path / "nope.gguf", tmp_path):
        code, _, err = run_cli(capsys, "info", str(target))
        assert code == 2 and len(err.strip().splitlines()) == 1 and str(target) in err


def test_debug_shows_traceback(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    p = tmp_path / "bad.gguf"
    p.write_bytes(HOSTILE["bad-magic"])
    code, _, err = run_cli(capsys, "--debug", "info", str(p))
    assert code == 2 and "Traceback" in err
    code, _, err = run_cli(capsys, "info", "--debug", str(p))
    assert code == 2 and "Traceback" in err


def test_real_process(tmp_path: Path) -> None:
    p = tmp_path / "bad.gguf"
    p.write_bytes(HOSTILE["version-4"])
    r = subprocess.run(
        [sys.executable, "-m", "tui_tok", "info", str(p)], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "unsupported GGUF version 4" in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "tui_tok", "info", str(QWEN3)], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert r.returncode == 0 and "vocab size:      151,669" in r.stdout


def test_info_lists_the_named_templates(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Issue 27: ``info`` did not list ``tool_use`` and ``rag``."""
    meta = dict(read_gguf(QWEN3).metadata)
    meta.update({"tokenizer.chat_templates": ["tool_use", "rag", "ghost"], "tokenizer.chat_template.tool_use": "T" * 1200,
                 "tokenizer.chat_template.rag": "R"})  # fmt: skip
    code, out, _ = run_cli(capsys, "info", str(write_gguf(tmp_path / "n.gguf", meta)))
    assert code == 0
    assert ("named templates: tool_use (1,200 characters), rag (1 character), "
            "ghost (listed, no tokenizer.chat_template.ghost key)") in out  # fmt: skip
    _, out, _ = run_cli(capsys, "info", str(QWEN3))
    assert "named templates" not in out


@pytest.mark.parametrize("command", ["chat", "lint", "decode", "explain", "encode", "info", "export-vocab"])
def test_model_help_names_every_form(capsys: pytest.CaptureFixture[str], command: str) -> None:
    """Issue 27: ``chat -h`` and ``lint -h`` said "GGUF file", but every MODEL may be a URL or a name."""
    with pytest.raises(SystemExit):
        from tui_tok.cli import main

        main([command, "-h"])
    out = " ".join(capsys.readouterr().out.split())
    assert "GGUF file, URL, hf:OWNER/REPO/FILE.gguf, OWNER/REPO:QUANT or ollama:NAME[:TAG]" in out, out
