"""``tui-tok fix`` and ``tui-tok edit`` on the command line: the dry run and its zero-copy forms
(llama.cpp --override-kv, ollama Modelfile), ``--only``, every ``edit`` option, and the refusals
(no output, the input as output, bad arguments) as one line with exit code 2."""

from __future__ import annotations

import json

import pytest
from cli_support import run_cli

from fix_support import tensor_hashes, with_tensors
from lint_support import asset_metadata
from tui_tok import load_tokenizer
from tui_tok.gguf import read_gguf

PHI3 = "ggml-vocab-phi-3.gguf"
TEMPLATE = "{% for m in messages %}<|user|>{{ m.content }}<|end|>{% endfor %}"


@pytest.fixture
def phi3(tmp_path):  # type: ignore[no-untyped-def]
    """Phi-3 with real tensors, EOS past the vocabulary and '<|user|>' typed NORMAL."""
    meta = dict(asset_metadata(PHI3))
    types = meta["tokenizer.ggml.token_type"].copy()
    types[32010] = 1  # <|user|>
    meta.update({"tokenizer.ggml.token_type": types, "tokenizer.ggml.eos_token_id": 40000})
    return with_tensors(tmp_path / "phi3.gguf", meta)


def test_dry_run_prints_the_changes_and_writes_nothing(capsys, tmp_path, phi3) -> None:
    code, out, err = run_cli(capsys, "fix", str(phi3), "--dry-run")
    assert code == 0 and err == ""
    assert "fix special-id-out-of-range: " in out and "delete tokenizer.ggml.eos_token_id (was 40000)" in out
    assert "tokenizer.ggml.token_type[32010] '<|user|>': NORMAL -> CONTROL" in out
    assert "left bos-text-dropped: " in out  # llama-server drops the BOS text: one BOS, nothing to repair
    assert sorted(p.name for p in tmp_path.iterdir()) == ["phi3.gguf"]


def test_only_and_the_copy(capsys, tmp_path, phi3) -> None:
    out_path = tmp_path / "out.gguf"
    code, out, _ = run_cli(capsys, "fix", str(phi3), "-o", str(out_path), "--only", "special-id-out-of-range")
    assert code == 0 and "token_type" not in out
    assert "lint on the copy" in out and "fixed special-id-out-of-range" in out
    g = read_gguf(out_path)
    assert "tokenizer.ggml.eos_token_id" not in g and g["tokenizer.ggml.token_type"][32010] == 1
    assert tensor_hashes(out_path) == tensor_hashes(phi3)


def test_override_kv_and_modelfile_lines(capsys, tmp_path) -> None:
    meta = dict(asset_metadata("qwen3-vocab.gguf"))
    meta["tokenizer.ggml.pre"] = "default"
    meta["tokenizer.chat_template"] = ("{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}"
                                       "<|object_ref_start|>\n{% endfor %}")  # fmt: skip
    src = with_tensors(tmp_path / "q.gguf", meta)
    code, out, _ = run_cli(capsys, "fix", str(src), "--dry-run")
    assert code == 0
    assert ("llama.cpp without a copy: --override-kv tokenizer.ggml.eot_token_id=int:151646 "
            "--override-kv tokenizer.ggml.pre=str:qwen2") in out  # the error first  # fmt: skip
    assert 'ollama Modelfile: PARAMETER stop "<|object_ref_start|>"' in out
    code, out, _ = run_cli(capsys, "lint", "--json", str(src))
    fixes = {f["code"]: f["fix"] for f in json.loads(out)["findings"]}
    assert fixes["pre-default"] == {"kind": "set", "key": "tokenizer.ggml.pre", "type": "string", "value": "qwen2",
                                    "override_kv": "tokenizer.ggml.pre=str:qwen2"}  # fmt: skip
    assert fixes["turn-end-not-eog"]["modelfile"] == 'PARAMETER stop "<|object_ref_start|>"'


@pytest.mark.parametrize("argv", [
    ["fix", "{src}"],  # no -o
    ["fix", "{src}", "-o", "{src}", "--force"],
    ["fix", "{src}", "-o", "{tmp}/o.gguf", "--only", "no-such-code"],
    ["edit", "{src}", "-o", "{tmp}/o.gguf", "--set", "tokenizer.ggml.pre"],
    ["edit", "{src}", "-o", "{tmp}/o.gguf", "--set", "x=u8:300"],
    ["edit", "{src}", "-o", "{tmp}/o.gguf", "--token-type", "99999=control"],
    ["edit", "{src}", "-o", "{tmp}/o.gguf", "--special", "boss=1"],
    ["edit", "{src}", "-o", "{tmp}/o.gguf", "--delete", "no.such.key"],
    ["edit", "{src}", "-o", "{tmp}/o.gguf"],
])  # fmt: skip
def test_refusals_are_one_line_exit_2(capsys, tmp_path, phi3, argv) -> None:
    args = [a.format(src=phi3, tmp=tmp_path) for a in argv]
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and err.count("\n") == 1 and err.startswith("tui-tok: error: "), err
    assert not (tmp_path / "o.gguf").exists()


def test_edit_every_option(capsys, tmp_path, phi3) -> None:
    template = tmp_path / "t.jinja"
    template.write_text(TEMPLATE)
    out_path = tmp_path / "out.gguf"
    code, out, err = run_cli(
        capsys, "edit", str(phi3), "-o", str(out_path), "--set", "general.name=str:fixed", "--set",
        "tokenizer.ggml.add_bos_token=bool:false", "--set", "tokenizer.ggml.bos_token_id=int:2",
        "--delete", "tokenizer.ggml.eos_token_id", "--template-file", str(template), "--template-name", "tool_use",
        "--token-type", "32010=control", "--token-type", "32007=user_defined", "--eog-add", "32010",
        "--eog-add", "32011", "--special", "pad=0",
    )  # fmt: skip
    assert code == 0, err
    g = read_gguf(out_path)
    assert g["general.name"] == "fixed" and g["tokenizer.ggml.add_bos_token"] is False
    assert g["tokenizer.ggml.bos_token_id"] == 2 and g.fields["tokenizer.ggml.bos_token_id"].type_name == "u32"
    assert "tokenizer.ggml.eos_token_id" not in g
    assert g["tokenizer.chat_template.tool_use"] == TEMPLATE and g["tokenizer.chat_templates"] == ["tool_use"]
    assert list(g["tokenizer.ggml.token_type"][[32007, 32010]]) == [4, 3]
    assert (g["tokenizer.ggml.eot_token_id"], g["tokenizer.ggml.eom_token_id"]) == (32010, 32011)
    assert g["tokenizer.ggml.padding_token_id"] == 0
    assert tensor_hashes(out_path) == tensor_hashes(phi3)
    tok = load_tokenizer(out_path)
    assert {32010, 32011} <= tok.vocab.eog_ids and not tok.vocab.add_bos
    assert "--override-kv general.name=str:fixed" in out and 'PARAMETER stop "<|user|>"' in out


def test_edit_dry_run(capsys, tmp_path, phi3) -> None:
    code, out, _ = run_cli(capsys, "edit", str(phi3), "--dry-run", "--set", "tokenizer.ggml.pre=str:llama3")
    assert code == 0 and out.startswith("set tokenizer.ggml.pre (string): 'default' -> 'llama3'")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["phi3.gguf"]


def test_edit_alignment_lays_the_tensors_out_again(capsys, tmp_path, phi3) -> None:
    out_path = tmp_path / "out.gguf"
    code, _, err = run_cli(capsys, "edit", str(phi3), "-o", str(out_path), "--set", "general.alignment=int:64")
    assert code == 0, err
    g = read_gguf(out_path)
    assert g.alignment == 64 and g.fields["general.alignment"].type_name == "u32"
    assert all(t.offset % 64 == 0 for t in g.tensors) and g.data_offset % 64 == 0
    assert tensor_hashes(out_path) == tensor_hashes(phi3)
