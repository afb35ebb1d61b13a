"""``gguf.rewrite``: a copy with metadata changed keeps every other byte: unchanged pairs and the
tensor index as stored, tensor data hash-equal (F32, F16, Q8_0; alignments 32 and 64), read back by
gguf-py; a new alignment lays the tensors out again; the input is never the output."""

from __future__ import annotations

import os

import pytest

from fix_support import gguf_py_tensors, raw_fields, tensor_hashes, with_tensors
from tui_tok.errors import OutputError
from tui_tok.gguf import GGUFValue, GGUFValueType, read_gguf
from tui_tok.gguf.rewrite import rewrite_gguf

T = GGUFValueType
META = {"general.architecture": "llama", "tokenizer.ggml.pre": "default", "x": [1, 2, 3], "name": "n" * 40}


@pytest.mark.parametrize("alignment", [32, 64])
def test_metadata_changed_tensors_byte_identical(tmp_path, alignment) -> None:
    src = with_tensors(tmp_path / "in.gguf", META, alignment=alignment)
    changes = {"tokenizer.ggml.pre": GGUFValue(T.STRING, "llama-bpe"), "x": None, "new": GGUFValue(T.BOOL, True)}
    result = rewrite_gguf(read_gguf(src), tmp_path / "out.gguf", changes)
    out = read_gguf(result.path)
    assert out.metadata == {"general.architecture": "llama", "general.alignment": alignment,
                            "tokenizer.ggml.pre": "llama-bpe", "name": "n" * 40, "new": True}  # fmt: skip
    assert out.alignment == alignment and out.data_offset % alignment == 0
    assert tensor_hashes(result.path) == tensor_hashes(src)
    assert gguf_py_tensors(result.path) == gguf_py_tensors(src)
    before, after = raw_fields(src), raw_fields(result.path)
    assert after["name"] == before["name"] and after["general.architecture"] == before["general.architecture"]
    data_in = src.read_bytes()[read_gguf(src).data_offset :]
    assert result.path.read_bytes()[out.data_offset :] == data_in  # padding between tensors too


def test_new_alignment_lays_the_tensors_out_again(tmp_path) -> None:
    src = with_tensors(tmp_path / "in.gguf", META, alignment=32)
    out_path = rewrite_gguf(read_gguf(src), tmp_path / "out.gguf",
                            {"general.alignment": GGUFValue(T.UINT32, 128)}).path  # fmt: skip
    out = read_gguf(out_path)
    assert out.alignment == 128 and all(t.offset % 128 == 0 for t in out.tensors)
    assert tensor_hashes(out_path) == tensor_hashes(src)
    assert gguf_py_tensors(out_path) == gguf_py_tensors(src)


def test_sparse_input_gives_an_equal_copy(tmp_path) -> None:
    src = with_tensors(tmp_path / "in.gguf", META, alignment=64)
    g = read_gguf(src)
    with open(src, "r+b") as fh:  # a hole of 8 MB after the data: zeros, stored as a hole where it can
        fh.truncate(g.file_size + (8 << 20))
    g = read_gguf(src)
    out = rewrite_gguf(g, tmp_path / "out.gguf", {"new": GGUFValue(T.UINT8, 7)}).path
    assert out.stat().st_size - read_gguf(out).data_offset == g.file_size - g.data_offset
    assert out.read_bytes()[read_gguf(out).data_offset :] == src.read_bytes()[g.data_offset :]


def test_progress_is_reported_and_a_stop_leaves_nothing(tmp_path) -> None:
    src = with_tensors(tmp_path / "in.gguf", META)
    seen: list[tuple[int, int]] = []
    rewrite_gguf(read_gguf(src), tmp_path / "a.gguf", {"new": GGUFValue(T.BOOL, False)},
                 progress=lambda done, total: seen.append((done, total)))  # fmt: skip
    assert seen and seen[-1][0] == seen[-1][1] > 0

    def stop(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rewrite_gguf(read_gguf(src), tmp_path / "b.gguf", {"new": GGUFValue(T.BOOL, False)}, progress=stop)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gguf", "in.gguf"]


def test_never_over_the_input(tmp_path) -> None:
    src = with_tensors(tmp_path / "in.gguf", META)
    g = read_gguf(src)
    before = src.read_bytes()
    os.symlink(src, tmp_path / "link.gguf")
    os.link(src, tmp_path / "hard.gguf")
    for target in (src, tmp_path / "link.gguf", tmp_path / "hard.gguf"):
        with pytest.raises(OutputError):
            rewrite_gguf(g, target, {"new": GGUFValue(T.BOOL, True)}, force=True)
    assert src.read_bytes() == before


def test_big_endian_and_vocab_only_files(tmp_path) -> None:
    from tui_tok.gguf import write_gguf

    src = write_gguf(tmp_path / "be.gguf", META, big_endian=True)
    out = rewrite_gguf(read_gguf(src), tmp_path / "out.gguf", {"x": GGUFValue(T.ARRAY, [4, 5], T.INT32)}).path
    g = read_gguf(out)
    assert g.big_endian and list(g["x"]) == [4, 5] and g["name"] == "n" * 40 and not g.tensors


def test_a_file_changed_since_it_was_read_is_refused(tmp_path) -> None:
    from tui_tok.errors import GGUFFormatError

    src = with_tensors(tmp_path / "in.gguf", META)
    g = read_gguf(src)
    with open(src, "ab") as fh:
        fh.write(b"\0" * 32)
    with pytest.raises(GGUFFormatError, match="changed"):
        rewrite_gguf(g, tmp_path / "out.gguf", {})
