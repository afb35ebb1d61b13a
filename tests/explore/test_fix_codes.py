"""Every fixable lint code: a file broken on purpose (with real tensor data) shows the finding with
its fix; ``tui-tok fix`` writes a copy whose tensor bytes hash equal, which gguf-py reads, whose
metadata differs only in the fix's key, and where lint no longer finds it. The new codes also stay
quiet where nothing is wrong."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from fix_support import gguf_py_tensors, raw_fields, tensor_hashes, with_tensors
from lint_support import DROP, asset_metadata, codes, lint_file, only
from tui_tok import load_tokenizer
from tui_tok.cli import main
from tui_tok.gguf import read_gguf

QWEN3, GPT2, PHI3 = "qwen3-vocab.gguf", "ggml-vocab-gpt-2.gguf", "ggml-vocab-phi-3.gguf"
GGUF_PY_MAX = 1_400_000
"""gguf-py takes 10-50 s to read a big vocabulary: it reads the copies of small files (phi-3), and every
copy with ``TUI_TOK_GGUF_PY_ALL=1`` (tests/gguf/test_rewrite.py reads all its files)."""
CHATML = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")  # fmt: skip
TEXT = "Hello world, it's 2024!  12345 don't\n\tgo"


def model(tmp_path: Path, asset: str, alignment: int = 32, **changes: Any) -> Path:
    """``asset``'s metadata with ``changes`` (as lint_support.broken) and real tensors."""
    meta = dict(asset_metadata(asset))
    for short, value in changes.items():
        key = short.replace("__", ".") if "__" in short else f"tokenizer.ggml.{short}"
        if value is DROP:
            meta.pop(key, None)
        else:
            meta[key] = value
    return with_tensors(tmp_path / f"in-{asset}", meta, alignment=alignment)


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def fixed(capsys, tmp_path: Path, src: Path, code: str, keys: set[str]) -> Path:  # type: ignore[no-untyped-def]
    """Run ``tui-tok fix --only code`` on ``src``; check the copy; return it."""
    f = only(lint_file(src), code)
    assert f.fix is not None
    out = tmp_path / "fixed.gguf"
    rc, stdout, err = run_cli(capsys, "fix", str(src), "-o", str(out), "--only", code)
    assert rc == 0, err
    assert f"fix {code}: " in stdout and "lint on the copy" in stdout
    assert tensor_hashes(out) == tensor_hashes(src)
    if src.stat().st_size < GGUF_PY_MAX or os.environ.get("TUI_TOK_GGUF_PY_ALL"):
        assert gguf_py_tensors(out) == gguf_py_tensors(src)
    before, after = raw_fields(src), raw_fields(out)
    assert {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)} == keys
    assert code not in codes(lint_file(out))
    return out


@pytest.mark.parametrize(("pre", "code"), [("default", "pre-default"), (DROP, "pre-missing")])
@pytest.mark.parametrize(("asset", "family"), [(QWEN3, "qwen2"), (GPT2, "gpt-2")])
def test_pre_default_or_missing(capsys, tmp_path, asset, family, pre, code) -> None:
    src = model(tmp_path, asset, alignment=64, pre=pre)
    report = lint_file(src)
    assert codes(report) & {"pre-missing", "pre-default"} == {code}
    f = only(report, code)
    assert f.fix is not None and f.fix.as_json()["override_kv"] == f"tokenizer.ggml.pre=str:{family}"
    out = fixed(capsys, tmp_path, src, code, {"tokenizer.ggml.pre"})
    assert read_gguf(out)["tokenizer.ggml.pre"] == family
    assert load_tokenizer(out).encode(TEXT) == load_tokenizer(asset_path(asset)).encode(TEXT)


def asset_path(asset: str) -> Path:
    from support import ASSETS

    return ASSETS / asset


def test_pre_unknown_is_fixed_when_the_fingerprint_names_the_family(capsys, tmp_path) -> None:
    src = model(tmp_path, QWEN3, pre="qwen9")
    out = fixed(capsys, tmp_path, src, "pre-unknown", {"tokenizer.ggml.pre"})
    assert read_gguf(out)["tokenizer.ggml.pre"] == "qwen2"


def test_merges_as_pairs_are_joined(capsys, tmp_path) -> None:
    merges = asset_metadata(GPT2)["tokenizer.ggml.merges"]
    src = model(tmp_path, GPT2, merges=[m.split(" ", 1) for m in merges])
    out = fixed(capsys, tmp_path, src, "merges-format", {"tokenizer.ggml.merges"})
    assert read_gguf(out)["tokenizer.ggml.merges"] == merges
    assert load_tokenizer(out).encode(TEXT) == load_tokenizer(asset_path(GPT2)).encode(TEXT)


def test_merges_missing_or_without_space_have_no_fix(tmp_path) -> None:
    f = only(lint_file(model(tmp_path, GPT2, merges=DROP)), "merges-format")
    assert f.fix is None and "cannot find tokenizer merges" in f.message
    merges = list(asset_metadata(GPT2)["tokenizer.ggml.merges"])
    merges[3] = merges[3].replace(" ", "")
    f = only(lint_file(model(tmp_path, GPT2, merges=merges)), "merges-format")
    assert f.fix is None and "1 of 50,000" in f.message and f.severity.label == "warning"


def test_bos_missing(capsys, tmp_path) -> None:
    src = model(tmp_path, QWEN3, general__architecture="gemma3", add_bos_token=False, bos_token_id=151643,
                chat_template=DROP, tokenizer__chat_template=CHATML)  # fmt: skip
    out = fixed(capsys, tmp_path, src, "bos-missing", {"tokenizer.ggml.add_bos_token"})
    assert load_tokenizer(out).vocab.add_bos
    writes_bos = model(tmp_path, QWEN3, general__architecture="gemma3", add_bos_token=False, bos_token_id=151643,
                       tokenizer__chat_template="{{ bos_token }}" + CHATML)  # fmt: skip
    assert "bos-missing" not in codes(lint_file(writes_bos))
    qwen = model(tmp_path, QWEN3, add_bos_token=False, bos_token_id=151643, tokenizer__chat_template=CHATML)
    assert "bos-missing" not in codes(lint_file(qwen))  # not a family that needs BOS


def test_eog_contains_a_start_of_turn_named_by_eos(capsys, tmp_path) -> None:
    src = model(tmp_path, QWEN3, eos_token_id=151644, tokenizer__chat_template=CHATML)
    f = only(lint_file(src), "eog-contains-marker")
    assert f.token_id == 151644 and f.fix is not None and f.fix.value == 151645  # the turn end
    out = fixed(capsys, tmp_path, src, "eog-contains-marker", {"tokenizer.ggml.eos_token_id"})
    assert 151644 not in load_tokenizer(out).vocab.eog_ids


def test_eog_contains_a_tool_call_opener_named_by_eot(capsys, tmp_path) -> None:
    src = model(tmp_path, QWEN3, eot_token_id=151657)  # <tool_call>, with Qwen3's own template
    f = only(lint_file(src), "eog-contains-marker")
    assert f.token_id == 151657 and f.fix is not None and f.fix.kind == "delete"
    out = fixed(capsys, tmp_path, src, "eog-contains-marker", {"tokenizer.ggml.eot_token_id"})
    assert 151657 not in load_tokenizer(out).vocab.eog_ids
    assert "eog-contains-marker" not in codes(lint_file(asset_path(QWEN3)))


def test_turn_end_not_eog(capsys, tmp_path) -> None:
    template = CHATML.replace("<|im_end|>", "<|object_ref_start|>")
    src = model(tmp_path, QWEN3, tokenizer__chat_template=template)
    f = only(lint_file(src), "turn-end-not-eog")
    assert f.fix is not None and f.fix.as_json()["modelfile"] == 'PARAMETER stop "<|object_ref_start|>"'
    out = fixed(capsys, tmp_path, src, "turn-end-not-eog", {"tokenizer.ggml.eot_token_id"})
    assert 151646 in load_tokenizer(out).vocab.eog_ids


def test_marker_typed_normal(capsys, tmp_path) -> None:
    types = asset_metadata(QWEN3)["tokenizer.ggml.token_type"].copy()
    types[151644] = 1
    src = model(tmp_path, QWEN3, token_type=types)
    out = fixed(capsys, tmp_path, src, "template-marker-not-special", {"tokenizer.ggml.token_type"})
    after = read_gguf(out)["tokenizer.ggml.token_type"]
    assert after[151644] == 3 and (after != types).sum() == 1
    assert load_tokenizer(out).encode("<|im_start|>user", parse_special=True)[0] == 151644


def test_special_id_out_of_range(capsys, tmp_path) -> None:
    src = model(tmp_path, PHI3, eos_token_id=40000)
    fixed(capsys, tmp_path, src, "special-id-out-of-range", {"tokenizer.ggml.eos_token_id"})


def test_real_vocabularies_raise_no_new_finding() -> None:
    from support import HAVE_SHARED, SHARED_MISSING, vocab_files

    if not HAVE_SHARED:
        pytest.skip(SHARED_MISSING)
    new = {"pre-default", "merges-format", "bos-missing", "eog-contains-marker"}
    found = {vf.name: codes(lint_file(vf.path)) & new for vf in vocab_files()}
    assert {k: v for k, v in found.items() if v} == {}
    missing = only(lint_file(next(vf.path for vf in vocab_files() if vf.name == "gpt-neox")), "pre-missing")
    assert missing.fix is not None and missing.fix.value == "mpt"  # no pre: it is MPT's vocabulary
