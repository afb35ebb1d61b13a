"""Hostile tokenizer metadata: a valid GGUF file whose tokenizer keys lie or have the wrong type.

The GGUF reader's own fuzzing (``tests/gguf``) stops at well-formed files; this goes one layer
up. Starting from each bundled family's real metadata, Hypothesis replaces, truncates, retypes
or drops one to three tokenizer keys, then builds the tokenizer and uses every public call on
texts full of special-token text. The only error allowed is a ``TuiTokError`` (one line that
names the problem); anything else (ValueError, IndexError, ...) would reach users as a crash.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from support import ASSETS
from tui_tok.errors import TuiTokError
from tui_tok.gguf import read_gguf
from tui_tok.tokenizer.tokenizer import Tokenizer

BASES = ("ggml-vocab-gpt-2.gguf", "ggml-vocab-phi-3.gguf", "ggml-vocab-bert-bge.gguf",
         "t5-botchan-en-unigram-1000.gguf", "rwkv-world-vocab.gguf")  # fmt: skip
"""One bundled file per family: BPE, SPM, WPM, UGM, RWKV."""

KEYS = ("tokens", "scores", "token_type", "merges", "bos_token_id", "eos_token_id", "unknown_token_id",
        "padding_token_id", "seperator_token_id", "mask_token_id", "eot_token_id", "add_bos_token",
        "add_eos_token", "add_space_prefix", "remove_extra_whitespaces", "precompiled_charsmap", "pre",
        "model", "ignore_merges")  # fmt: skip

JUNK = ("<s>", "</s>", "\n", "\u2581", "<0x0A>", "<0xZZ>", "\u0120", "a b", " ", "x" * 300, "[UNK]", "<unk>",
        "<|endoftext|>", "\udc80", "\u2581\u2581", "##", "a")  # fmt: skip

TEXTS = ("Hello world", " \n\t<s></s>[CLS] <unk> <|endoftext|>", "日本語 🙂 \udc80 a b ab\u2581", "")


@cache
def _base(name: str) -> dict[str, Any]:
    return dict(read_gguf(ASSETS / name).metadata)


scalars = st.sampled_from([-1, 0, 1, 2**32 - 1, 2**63 - 1, -(2**63), 3.5, float("nan"), True, False, "", "x",
                           "gpt2", "llama", "bert", "t5", "rwkv", "gemma4", [1, 2], ["a", "b"], b"\x00\x01"])  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    meta = dict(_base(draw(st.sampled_from(BASES))))
    for _ in range(draw(st.integers(1, 3))):
        key = "tokenizer.ggml." + draw(st.sampled_from(KEYS))
        value = meta.get(key)
        how = draw(st.sampled_from(["replace", "drop", "truncate", "extend", "poke", "retype"]))
        if how == "drop":
            meta.pop(key, None)
        elif how == "replace" or value is None or not hasattr(value, "__len__") or isinstance(value, str | bytes):
            meta[key] = draw(scalars)
        elif how == "truncate":
            meta[key] = value[: draw(st.integers(0, max(len(value) - 1, 0)))]
        elif how == "extend":
            meta[key] = list(value) + list(value[: draw(st.integers(1, 40))])
        elif how == "retype":
            meta[key] = [str(v) for v in list(value)[:50]]
        else:  # poke: a few entries become junk of the entries' own kind
            items = list(value) if not isinstance(value, np.ndarray) else value.copy()
            for _ in range(draw(st.integers(1, 20))):
                i = draw(st.integers(0, max(len(items) - 1, 0)))
                if not len(items):
                    break
                if isinstance(items, np.ndarray):
                    junk = draw(
                        st.sampled_from([-1, 0, 7, 127] if items.dtype.kind in "iu" else [float("nan"), -1e30, 0.0])
                    )
                    items[i] = np.array(junk).astype(items.dtype)
                else:
                    items[i] = draw(st.sampled_from(JUNK)) + str(i)
            meta[key] = items
    return meta


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_hostile_tokenizer_keys_give_tuitokerrors_only(meta: dict[str, Any]) -> None:
    try:
        tok = Tokenizer.from_metadata(meta)
    except TuiTokError:
        return
    for text in TEXTS:
        for add_special in (True, False):
            for parse_special in (True, False):
                try:
                    ids = tok.encode(text, add_special=add_special, parse_special=parse_special)
                    tokens = tok.tokenize(text, add_special=add_special, parse_special=parse_special)
                    assert [t.id for t in tokens] == ids
                    tok.detokenize(ids)
                    tok.decode(ids, remove_special=True, unparse_special=True)
                    decoder = tok.stream_decoder()
                    for token_id in ids:
                        decoder.push(token_id)
                    decoder.flush()
                    for token_id in ids[:5]:
                        tok.token_to_piece(token_id, special=False, lstrip=1)
                except TuiTokError:
                    pass
