"""Vocabulary/metadata diff counts checked against a direct reading of both files with gguf-py."""

from __future__ import annotations

import numpy as np
import pytest

from support import ASSETS, HAVE_SHARED, SHARED, gguf_py
from tui_tok.explore.diff.vocab_diff import diff_vocabs
from tui_tok.gguf import read_gguf

PAIRS = [(ASSETS / "qwen3-vocab.gguf", ASSETS / "ggml-vocab-gpt-2.gguf"),
         (ASSETS / "ggml-vocab-phi-3.gguf", ASSETS / "t5-botchan-en-unigram-1000.gguf")]  # fmt: skip
if HAVE_SHARED:
    # gguf-py takes ~40 s per 150k-token file: the qwen pairs are left to test_diff_text
    PAIRS += [(SHARED / "vocabs/ggml-vocab-llama-spm.gguf", SHARED / "data/mistral-spm-v1.gguf"),
              (SHARED / "data/mistral-spm-v3.gguf", SHARED / "data/mistral-spm-v1.gguf"),
              (SHARED / "vocabs/ggml-vocab-gpt-2.gguf", SHARED / "vocabs/ggml-vocab-gpt-neox.gguf")]  # fmt: skip


def direct(path):  # type: ignore[no-untyped-def]
    """key -> value read by gguf-py, independently of tui_tok.gguf."""
    reader = gguf_py().GGUFReader(str(path))
    out = {}
    for key, field in reader.fields.items():
        if key.startswith("GGUF."):
            continue
        out[key] = field.contents()
    return out


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=lambda p: p.name)
def test_counts_match_a_direct_reading(a, b) -> None:  # type: ignore[no-untyped-def]
    ra, rb = direct(a), direct(b)
    d = diff_vocabs(read_gguf(a).metadata, read_gguf(b).metadata)
    ta, tb = ra["tokenizer.ggml.tokens"], rb["tokenizer.ggml.tokens"]
    ida = {}
    for i, t in enumerate(ta):
        ida[t] = i
    idb = {}
    for i, t in enumerate(tb):
        idb[t] = i
    assert d.only_a.count == len(set(ta) - set(tb))
    assert d.only_b.count == len(set(tb) - set(ta))
    both = set(ta) & set(tb)
    assert d.moved.count == sum(ida[t] != idb[t] for t in both)
    tya, tyb = ra.get("tokenizer.ggml.token_type"), rb.get("tokenizer.ggml.token_type")
    assert d.type_changed.count == sum((tya[ida[t]] if tya else 1) != (tyb[idb[t]] if tyb else 1) for t in both)
    ma, mb = set(ra.get("tokenizer.ggml.merges") or ()), set(rb.get("tokenizer.ggml.merges") or ())
    assert d.merges_only_a.count == len([m for m in ra.get("tokenizer.ggml.merges") or () if m not in mb])
    assert d.merges_only_b.count == len([m for m in rb.get("tokenizer.ggml.merges") or () if m not in ma])
    sa, sb = ra.get("tokenizer.ggml.scores"), rb.get("tokenizer.ggml.scores")
    if sa is not None and sb is not None:
        assert d.scores_changed.count == sum(sa[ida[t]] != sb[idb[t]] for t in both)
    assert set(d.metadata_only_a) == set(ra) - set(rb)
    assert set(d.metadata_only_b) == set(rb) - set(ra)
    changed = {
        k
        for k in set(ra) & set(rb)
        if not np.array_equal(np.asarray(ra[k], dtype=object), np.asarray(rb[k], dtype=object))
    }
    assert set(d.metadata_changed) == changed
    js = d.to_json()
    assert (js["only_a"], js["only_b"], js["moved"], js["type_changed"]) == (
        d.only_a.count,
        d.only_b.count,
        d.moved.count,
        d.type_changed.count,
    )
    assert js["metadata"]["changed"] == list(d.metadata_changed)
    assert d.same == (a == b)


def test_same_file_is_same() -> None:
    meta = read_gguf(ASSETS / "qwen3-vocab.gguf").metadata
    assert diff_vocabs(meta, meta).same


def test_special_ids_and_scores() -> None:
    a = {
        "tokenizer.ggml.tokens": ["<s>", "</s>", "x"],
        "tokenizer.ggml.scores": [0.0, 0.0, -1.0],
        "tokenizer.ggml.bos_token_id": 0,
        "tokenizer.ggml.eos_token_id": 1,
    }
    b = {"tokenizer.ggml.tokens": ["</s>", "<s>", "x"], "tokenizer.ggml.scores": [0.0, 0.0, -2.0],
         "tokenizer.ggml.bos_token_id": 1, "tokenizer.ggml.eos_token_id": 1}  # fmt: skip
    d = diff_vocabs(a, b)
    # bos: same text at another id; eos: same id, now naming another text
    assert d.special_changed.count == 2
    assert d.special_changed.examples == ("bos: A 0 '<s>' -> B 1 '<s>'", "eos: A 1 '</s>' -> B 1 '<s>'")
    assert d.scores_changed.count == 1 and "'x'" in d.scores_changed.examples[0]
    assert d.moved.count == 2
