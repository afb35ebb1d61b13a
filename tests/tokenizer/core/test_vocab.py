"""vocab_from_metadata: llama.cpp's defaults, key overrides and text-derived attribute fixes (§1-2)."""

from __future__ import annotations

import numpy as np
import pytest

from support import ASSETS, SHARED_MISSING, vocab_file
from tui_tok.errors import UnsupportedTokenizerError, VocabError
from tui_tok.gguf import read_gguf
from tui_tok.tokenizer.core.types import TokenAttr as A, VocabType
from tui_tok.tokenizer.core.vocab import vocab_from_metadata

SPM_TOKENS = ["<unk>", "<s>", "</s>", "▁a", "b"]


def spm(**extra):
    meta = {"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": list(SPM_TOKENS),
            "tokenizer.ggml.token_type": [2, 3, 3, 1, 1]}  # fmt: skip
    meta.update(extra)
    return meta


@pytest.mark.parametrize(
    ("model", "vtype"),
    [("llama", VocabType.SPM), ("gpt2", VocabType.BPE), ("bert", VocabType.WPM), ("t5", VocabType.UGM),
     ("rwkv", VocabType.RWKV), ("plamo2", VocabType.PLAMO2), ("test", VocabType.TEST), ("gemma4", VocabType.BPE),
     ("whitespace", VocabType.BPE), ("none", VocabType.NONE)],
)  # fmt: skip
def test_model_string_to_family(model: str, vtype: VocabType) -> None:
    meta = spm(**{"tokenizer.ggml.model": model, "tokenizer.ggml.merges": ["▁ a"]})
    assert vocab_from_metadata(meta).type is vtype


def test_unknown_model_says_what_is_supported() -> None:
    with pytest.raises(UnsupportedTokenizerError) as info:
        vocab_from_metadata(spm(**{"tokenizer.ggml.model": "sentencepiece"}))
    assert "sentencepiece" in str(info.value) and "llama" in str(info.value)


def test_unknown_pre_is_unsupported() -> None:
    with pytest.raises(UnsupportedTokenizerError):
        vocab_from_metadata(spm(**{"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "zzz",
                                   "tokenizer.ggml.merges": []}))  # fmt: skip


@pytest.mark.parametrize(
    ("key", "value"),
    [("tokenizer.ggml.bos_token_id", "rwkv"), ("tokenizer.ggml.unknown_token_id", 3.5),
     ("tokenizer.ggml.eos_token_id", True), ("tokenizer.ggml.padding_token_id", [1, 2]),
     ("tokenizer.ggml.add_bos_token", "yes"), ("tokenizer.ggml.add_space_prefix", 1.0),
     ("tokenizer.ggml.remove_extra_whitespaces", [True]), ("tokenizer.ggml.normalizer.lowercase", "x"),
     ("tokenizer.ggml.precompiled_charsmap", "not bytes"), ("tokenizer.ggml.tokens", [])],
)  # fmt: skip
def test_keys_of_the_wrong_type_are_vocab_errors_naming_the_key(key: str, value: object) -> None:
    """A token id, flag or charsmap of another type (llama.cpp: "key ... has wrong type"), or no
    tokens at all: one VocabError that names the key, never a ValueError from deeper down."""
    meta = spm(**{"tokenizer.ggml.model": "t5" if "charsmap" in key else "llama", key: value})
    with pytest.raises(VocabError, match=key.replace(".", r"\.")):
        vocab_from_metadata(meta)


def test_ids_and_flags_of_any_integer_type_are_read() -> None:
    """numpy integers (the reader's scalars) and 0/1 flags pass; ids out of range keep the default."""
    v = vocab_from_metadata(spm(**{"tokenizer.ggml.bos_token_id": np.uint32(2), "tokenizer.ggml.add_bos_token": 0,
                                   "tokenizer.ggml.eos_token_id": 10**6}))  # fmt: skip
    assert (v.bos_id, v.add_bos, v.eos_id) == (2, False, 2)


def test_missing_pieces_are_vocab_errors() -> None:
    with pytest.raises(VocabError, match="tokenizer.ggml.model"):
        vocab_from_metadata({})
    with pytest.raises(VocabError, match="tokens"):
        vocab_from_metadata({"tokenizer.ggml.model": "llama"})
    with pytest.raises(VocabError, match="merges"):
        vocab_from_metadata(spm(**{"tokenizer.ggml.model": "gpt2"}))
    with pytest.raises(VocabError, match="duplicate"):
        vocab_from_metadata(spm(**{"tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "b", "b"]}))
    with pytest.raises(VocabError, match="scores"):
        vocab_from_metadata(spm(**{"tokenizer.ggml.scores": [0.0]}))


def test_kimi_k2_needs_no_merges() -> None:
    v = vocab_from_metadata(spm(**{"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "kimi-k2"}))
    assert v.merges == []


def test_defaults_per_family() -> None:
    v = vocab_from_metadata(spm())
    assert (v.bos_id, v.eos_id, v.unk_id, v.sep_id, v.pad_id) == (1, 2, 0, -1, -1)
    assert (v.add_bos, v.add_eos, v.add_space_prefix, v.clean_spaces) == (True, False, True, False)
    v = vocab_from_metadata(spm(**{"tokenizer.ggml.model": "t5"}))
    assert (v.bos_id, v.eos_id, v.unk_id, v.pad_id, v.add_bos, v.add_eos) == (-1, 1, 2, 0, False, True)
    # bert defaults 101/102/103 are beyond this 5-token vocab: NULL
    v = vocab_from_metadata(spm(**{"tokenizer.ggml.model": "bert"}))
    assert (v.bos_id, v.unk_id, v.sep_id, v.pad_id, v.add_bos, v.add_sep) == (-1, -1, -1, 0, True, True)


def test_keys_override_defaults_and_out_of_range_ids_are_ignored() -> None:
    v = vocab_from_metadata(spm(**{"tokenizer.ggml.bos_token_id": 4, "tokenizer.ggml.eos_token_id": 99,
                                   "tokenizer.ggml.add_bos_token": False, "tokenizer.ggml.add_space_prefix": False,
                                   "tokenizer.ggml.prefix_token_id": 3}))  # fmt: skip
    assert (v.bos_id, v.eos_id, v.fim_pre_id, v.add_bos, v.add_space_prefix) == (4, 2, 3, False, False)


def test_gemma4_forces_pre_and_bos() -> None:
    v = vocab_from_metadata(spm(**{"tokenizer.ggml.model": "gemma4", "tokenizer.ggml.pre": "qwen2",
                                   "tokenizer.ggml.merges": [], "tokenizer.ggml.add_bos_token": False}))  # fmt: skip
    assert (v.pre, v.raw_pre, v.pre_type, v.add_bos, v.escape_whitespaces) == ("gemma4", "qwen2", "GEMMA4", True, True)


def test_empty_tokens_get_placeholders_and_numpy_or_lists_both_work() -> None:
    meta = spm(**{"tokenizer.ggml.tokens": ["<unk>", "", "</s>", "▁a", "b"],
                  "tokenizer.ggml.scores": np.array([0, -1, -2, -3, -4], dtype=np.float32),
                  "tokenizer.ggml.token_type": np.array([2, 3, 3, 1, 7], dtype=np.int32)})  # fmt: skip
    v = vocab_from_metadata(meta)
    assert v.tokens[1] == "[EMPTY_1]" and v.token_to_id["[EMPTY_1]"] == 1
    assert v.scores.dtype == np.float32 and v.scores.tolist() == [0, -1, -2, -3, -4]
    assert v.attrs.tolist() == [A.UNKNOWN, A.CONTROL, A.CONTROL, A.NORMAL, A.UNDEFINED]


def test_text_overrides() -> None:
    tokens = ["<unk>", "<s>", "</s>", "<|unused_3|>", "<|im_end|>", "<|channel|>", "<|end|>", "<|return|>",
              "<|call|>", "<|fim_pad|>", "x"]  # fmt: skip
    types = [2, 3, 3, 3, 1, 3, 3, 3, 3, 1, 1]
    v = vocab_from_metadata({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": tokens,
                             "tokenizer.ggml.token_type": types})  # fmt: skip
    a = v.attrs.tolist()
    assert a[3] == A.CONTROL | A.UNUSED  # (b)
    assert a[4] == A.NORMAL | A.CONTROL  # (c) EOG text gets CONTROL
    assert a[5] == A.USER_DEFINED  # (d) gpt-oss
    assert a[6] == A.USER_DEFINED and 6 not in v.eog_ids  # (f)
    assert a[9] == A.NORMAL | A.CONTROL and v.fim_pad_id == 9  # (a) auto-detected FIM id
    assert v.eot_id == 6 and {2, 4, 7, 8, 9} <= v.eog_ids  # highest matching id (libstdc++ map order)


def test_plamo_style_closing_s_is_normal() -> None:
    tokens = ["<unk>", "<s>", "</s>", "<|plamo:eos|>", "x"]
    v = vocab_from_metadata({"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": tokens,
                             "tokenizer.ggml.token_type": [2, 3, 3, 3, 1], "tokenizer.ggml.eos_token_id": 3})  # fmt: skip
    assert v.attrs[2] == A.NORMAL and 2 not in v.eog_ids and 3 in v.eog_ids


def test_name_overrides() -> None:
    tokens = ["<unk>", "<s>", "</s>", "<|endoftext|>", "<|end|>", "<mask>", "[MASK]"]
    base = {"tokenizer.ggml.model": "llama", "tokenizer.ggml.tokens": tokens,
            "tokenizer.ggml.token_type": [2, 3, 3, 3, 3, 4, 4]}  # fmt: skip
    v = vocab_from_metadata({**base, "general.name": "Phi-3 mini"})
    assert [bool(a & A.RSTRIP) for a in v.attrs.tolist()] == [False, False, True, False, True, True, True]
    v = vocab_from_metadata({**base, "general.architecture": "nomic-bert-moe"})
    assert v.attrs[5] & A.LSTRIP and not v.attrs[6] & A.LSTRIP
    v = vocab_from_metadata({**base, "general.name": "modern-bert-base"})
    assert v.attrs[6] & A.LSTRIP and not v.attrs[5] & A.LSTRIP
    with pytest.raises(VocabError, match="phi-3"):
        vocab_from_metadata(
            {**base, "general.name": "phi3", "tokenizer.ggml.tokens": tokens[:3] + ["a", "b", "c", "d"]}
        )


def test_special_cache_longest_first() -> None:
    v = vocab_from_metadata(spm(**{"tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "<|long|>", "x"],
                                   "tokenizer.ggml.token_type": [2, 3, 3, 4, 1]}))  # fmt: skip
    assert v.special_tokens == [3, 0, 2, 1]


def test_phi3_file_closing_s_attrs() -> None:
    v = vocab_from_metadata(read_gguf(ASSETS / "ggml-vocab-phi-3.gguf").metadata)
    assert v.attrs[v.token_to_id["</s>"]] == A.USER_DEFINED | A.CONTROL | A.RSTRIP
    assert not v.attrs[v.token_to_id["<s>"]] & A.RSTRIP


@pytest.mark.parametrize(
    "module",
    ["tui_tok.tokenizer.core.vocab", "tui_tok.tokenizer.special.partition", "tui_tok.tokenizer.spm.encoder", "tui_tok.tokenizer.arrays.stdsort",
     "tui_tok.tokenizer.tokenizer", "tui_tok.tokenizer.core.stream", "tui_tok.tokenizer.core.spans", "tui_tok.cli.encode",
     "tui_tok.cli.decode", "tui_tok.tokenizer.bpe.subword_cut", "tui_tok.tokenizer.core.gc_pause",
     "tui_tok.tokenizer.arrays.sorted_unique", "tui_tok.tokenizer.core.metadata_values", "tui_tok.tokenizer.test.reference",
     "tui_tok.tokenizer.wpm.classify", "tui_tok.tokenizer.unicode.data", "tui_tok.tokenizer.plamo2.reference"],
)  # fmt: skip
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


def test_test_family_hashes_five_byte_chunks_and_none_has_no_tokenizer() -> None:
    from tui_tok.tokenizer.tokenizer import Tokenizer

    tok = Tokenizer.from_metadata({"tokenizer.ggml.model": "test", "tokenizer.ggml.tokens": [f"t{i}" for i in range(97)],
                                   "tokenizer.ggml.token_type": [4] + [1] * 96})  # fmt: skip

    def h(chunk: bytes) -> int:
        v = 0
        for b in chunk:
            v = (v * 31 + b) % 2**64
        return v % 97

    assert tok.encode("hello world") == [h(b"hello"), h(b" worl"), h(b"d")]  # no BOS/EOS for TEST
    assert tok.encode("ab t0 cd") == [h(b"ab "), 0, h(b" cd")]  # USER_DEFINED t0 is split first
    with pytest.raises(VocabError, match="no vocabulary"):
        Tokenizer.from_metadata({"tokenizer.ggml.model": "no_vocab"})


@pytest.mark.parametrize(
    ("name", "eot"), [("qwen3-vocab", "<|im_end|>"), ("phi-3", "<|end|>"), ("llama-bpe", "<|eot_id|>")]
)
def test_auto_detected_eot_matches_llama_cpp(name: str, eot: str) -> None:
    # ids recorded from a C++ replay of llama.cpp's std::unordered_map walk (g++ 12, libstdc++)
    try:
        vf = vocab_file(name)
    except LookupError:
        pytest.skip(SHARED_MISSING)
    v = vocab_from_metadata(read_gguf(vf.path).metadata)
    assert v.tokens[v.eot_id] == eot


def test_reader_string_lists_give_the_same_vocab_without_the_entry_check() -> None:
    """``str_lists`` (what the loader passes) only skips re-checking entries: same vocab either way."""
    gguf = read_gguf(ASSETS / "qwen3-vocab.gguf")
    meta = gguf.metadata
    checked = vocab_from_metadata(meta)
    trusted = vocab_from_metadata(meta, str_lists={"tokenizer.ggml.tokens", "tokenizer.ggml.merges"})
    assert trusted.tokens == checked.tokens and trusted.merges == checked.merges
    assert trusted.token_to_id == checked.token_to_id and trusted.special_tokens == checked.special_tokens
    assert np.array_equal(trusted.attrs, checked.attrs)


def test_non_str_entries_are_vocab_errors_unless_the_caller_vouches() -> None:
    with pytest.raises(VocabError, match="array of strings"):
        vocab_from_metadata(spm(**{"tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", 5, "b"]}))
    bytes_tokens = spm(**{"tokenizer.ggml.tokens": [t.encode() for t in SPM_TOKENS]})
    assert vocab_from_metadata(bytes_tokens).tokens == SPM_TOKENS


def test_hybriddna_marker_strip_leaves_the_callers_list_alone() -> None:
    tokens = ["<unk>", "<oov>", "AC\ue000", "G"]
    meta = {"tokenizer.ggml.model": "hybriddna", "tokenizer.ggml.pre": "gpt-2", "tokenizer.ggml.tokens": tokens,
            "tokenizer.ggml.merges": []}  # fmt: skip
    v = vocab_from_metadata(meta, str_lists={"tokenizer.ggml.tokens"})
    assert v.tokens == ["<unk>", "<oov>", "AC", "G"] and v.token_to_id["AC\ue000"] == 2
    assert tokens == ["<unk>", "<oov>", "AC\ue000", "G"]


def test_merges_text_only_when_it_is_the_text_of_these_merges() -> None:
    merges = ["a b", "ab c"]
    text = "\0a b\0ab c\0"
    meta = {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt-2", "tokenizer.ggml.tokens": ["a", "b", "c"],
            "tokenizer.ggml.merges": merges}  # fmt: skip
    assert vocab_from_metadata(meta, texts={"tokenizer.ggml.merges": text}).merges_text == text
    assert vocab_from_metadata(meta).merges_text is None
    spm_meta = spm(**{"tokenizer.ggml.merges": merges})  # SPM ignores merges: no text either
    assert vocab_from_metadata(spm_meta, texts={"tokenizer.ggml.merges": text}).merges_text is None


def test_loader_hands_the_readers_merge_text_to_the_vocab() -> None:
    from tui_tok.loader import load_tokenizer

    vocab = load_tokenizer(ASSETS / "qwen3-vocab.gguf").vocab
    assert vocab.merges_text == "\0" + "\0".join(vocab.merges) + "\0"


def test_a_ragged_charsmap_is_a_vocab_error() -> None:
    """An array numpy cannot make one-dimensional (a nested, ragged one) names the key too."""
    from tui_tok.tokenizer.core.metadata_values import charsmap_blob

    with pytest.raises(VocabError, match="precompiled_charsmap"):
        charsmap_blob({"tokenizer.ggml.precompiled_charsmap": [[1, 2], [3]]})
