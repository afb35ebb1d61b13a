"""Every real vocab file reads, is self-consistent, and agrees with gguf-py's reader.

Also fuzzes a small real file: random byte changes and cuts must only ever produce a
GGUFFile or a GGUFFormatError (never another exception, a hang or a huge allocation).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from support import ASSETS, gguf_py, vocab_files
from tui_tok.errors import GGUFFormatError
from tui_tok.gguf import GGUFFile, GGUFValueType, read_gguf, write_gguf
from tui_tok.gguf.reader import parse_gguf_bytes
from tui_tok.gguf.strings import read_strings_plain

VOCABS = vocab_files()


@cache
def read(path: Path) -> GGUFFile:
    return read_gguf(path)


@pytest.mark.parametrize("vocab", VOCABS, ids=[v.name for v in VOCABS])
def test_reads_and_is_consistent(vocab) -> None:  # type: ignore[no-untyped-def]
    f = read(vocab.path)
    assert f.version in (2, 3) and f.file_size == vocab.path.stat().st_size
    assert isinstance(f["general.architecture"], str)
    tokens = f["tokenizer.ggml.tokens"]
    assert isinstance(tokens, list) and tokens and all(isinstance(t, str) for t in tokens[:100])
    assert f.fields["tokenizer.ggml.tokens"].type_name == f"[string; {len(tokens)}]"
    for key in ("tokenizer.ggml.scores", "tokenizer.ggml.token_type"):
        if key in f:
            assert isinstance(f[key], np.ndarray) and len(f[key]) == len(tokens), key
            assert f[key].dtype.isnative and not f[key].flags.writeable
    merges = f.get("tokenizer.ggml.merges")
    if merges is not None:
        assert all(len(m.split(" ")) == 2 for m in merges)
    for key, field in f.fields.items():
        if key.endswith("_token_id"):
            assert field.type == GGUFValueType.UINT32 and 0 <= field.value < len(tokens), key
    assert list(f.metadata) == list(f.fields) and "tokenizer.ggml.tokens" in f


@pytest.mark.parametrize(
    "vocab", [v for v in VOCABS if v.name in ("gemma-4", "qwen2", "rwkv-world-vocab", "phi-3")], ids=lambda v: v.name
)
def test_string_arrays_equal_the_plain_loop(vocab) -> None:  # type: ignore[no-untyped-def]
    """The vectorised decoder against the obvious loop, on real vocabularies."""
    f = read(vocab.path)
    data = vocab.path.read_bytes()

    def fail(msg: str, off: int) -> None:
        raise AssertionError(msg)

    for key in ("tokenizer.ggml.tokens", "tokenizer.ggml.merges"):
        if key in f:
            field = f.fields[key]
            key_len = len(key.encode())
            start = field.offset + 8 + key_len + 4 + 4 + 8
            plain, _ = read_strings_plain(data, start, len(f[key]), len(data), big_endian=f.big_endian, fail=fail)
            assert plain == f[key]


GGUF_PY_FILES = [ASSETS / "ggml-vocab-phi-3.gguf", ASSETS / "ggml-vocab-bert-bge.gguf"]


@pytest.mark.parametrize("path", GGUF_PY_FILES, ids=lambda p: p.name)
def test_agrees_with_gguf_py(path: Path) -> None:
    gguf = gguf_py()
    compare_with_gguf_py(read(path), gguf.GGUFReader(str(path)))


def compare_with_gguf_py(ours: GGUFFile, theirs) -> None:  # type: ignore[no-untyped-def]
    their_keys = [k for k in theirs.fields if not k.startswith("GGUF.")]
    assert their_keys == list(ours.fields)
    for key in their_keys:
        tf, of = theirs.fields[key], ours.fields[key]
        assert int(tf.types[0]) == of.type, key
        if of.type == GGUFValueType.ARRAY:
            assert int(tf.types[1]) == of.item_type
            n = len(of.value)
            assert len(tf.data) == n, key
            for i in sorted({0, 1, n // 2, n - 1} & set(range(n))):
                a, b = tf.contents(i), of.value[i]
                assert (a == b) if isinstance(b, str) else np.isclose(a, b), (key, i)
        else:
            a, b = tf.contents(), of.value
            assert (a == b) if not isinstance(b, float) else np.isclose(a, b), key
    assert len(theirs.tensors) == len(ours.tensors)


# -- fuzzing ------------------------------------------------------------------------


@cache
def fuzz_seed(tmp: str) -> bytes:
    meta = {
        "general.architecture": "llama",
        "tokenizer.ggml.model": "gpt2",
        "tokenizer.ggml.tokens": [f"t{i}" for i in range(600)] + ["\u00e9" * 300, "", "x"],
        "tokenizer.ggml.scores": np.linspace(0, 1, 603, dtype=np.float32),
        "tokenizer.ggml.token_type": np.ones(603, dtype=np.int32),
        "tokenizer.ggml.merges": ["t 1", "t 2"],
        "nested": [[1, 2], ["a"], [[True]]],
        "tokenizer.ggml.add_bos_token": True,
        "f64": 1.25,
    }
    return write_gguf(Path(tmp) / "seed.gguf", meta, tensors=[("w", (64,), 2)]).read_bytes()


def parse_or_format_error(data: bytes) -> None:
    """Parses or fails cleanly, with or without keeping string-array texts, and both agree."""
    results = []
    for texts in ((), ("tokenizer.ggml.tokens", "tokenizer.ggml.merges")):
        try:
            results.append(parse_gguf_bytes(data, path="fuzz.gguf", texts=texts))
        except GGUFFormatError as exc:
            assert exc.path == "fuzz.gguf" and exc.offset is not None
            results.append(str(exc))
    plain, kept = results
    if isinstance(plain, str) or isinstance(kept, str):
        assert plain == kept
        return
    assert list(plain.fields) == list(kept.fields)
    for key, field in kept.fields.items():
        if field.text is not None:
            assert field.text == "\0" + "\0".join(plain[key]) + "\0" and field.value == plain[key]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_mutations(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    seed = fuzz_seed(str(tmp_path_factory.getbasetemp()))
    buf = bytearray(seed)
    # most structure is in the first few hundred bytes and around the big arrays: hit both
    positions = st.one_of(st.integers(0, 400), st.integers(0, len(buf) - 1))
    for pos, byte in data.draw(st.lists(st.tuples(positions, st.integers(0, 255)), min_size=1, max_size=8)):
        buf[pos] = byte
    cut = data.draw(st.one_of(st.none(), st.integers(0, len(buf))))
    parse_or_format_error(bytes(buf if cut is None else buf[:cut]))


@settings(max_examples=60, deadline=None)
@given(pos=st.integers(0, 4000), value=st.sampled_from([0, 1, 0xFF, 0x7F, 0x80]), width=st.sampled_from([1, 8]))
def test_fuzz_real_file(pos: int, value: int, width: int) -> None:
    """Overwrite bytes of a real (bundled) vocab's metadata: keys, types, counts, lengths."""
    seed = (ASSETS / "t5-botchan-en-unigram-1000.gguf").read_bytes()
    buf = bytearray(seed)
    buf[pos : pos + width] = bytes([value]) * width
    parse_or_format_error(bytes(buf))


def test_field_preview_for_the_metadata_browser() -> None:
    f = read(ASSETS / "ggml-vocab-phi-3.gguf")
    assert f.fields["tokenizer.ggml.tokens"].preview(max_items=3) == "['<unk>', '<s>', '</s>', … (+32,061)]"
    assert f.fields["phi3.attention.layer_norm_rms_epsilon"].preview() == "1e-05"
    assert f.fields["tokenizer.ggml.add_bos_token"].preview() == "True"
    assert len(f.fields["tokenizer.chat_template"].preview(max_chars=40)) == 40
