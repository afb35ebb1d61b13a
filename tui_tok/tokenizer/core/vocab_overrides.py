"""llama.cpp's attribute fixes derived from token texts and names (``llama_vocab::impl::load``).

Applied by ``vocab_from_metadata`` in llama.cpp's load order: auto-detected EOT/EOM/FIM ids,
"unused" CONTROL tokens, the end-of-generation set, gpt-oss/solar-open/gemma4/plamo fixes, the
special-token cache order, then LSTRIP/RSTRIP by tokenizer, architecture or model name.
Mutates the ``attrs`` array it is given; does not read metadata itself.
"""

from __future__ import annotations

import numpy as np

from tui_tok.errors import VocabError
from tui_tok.tokenizer.arrays.stdsort import libstdcxx_sort
from tui_tok.tokenizer.core.types import TokenAttr

_NULL = -1

# texts llama.cpp auto-detects when the id key is absent (V:2690-2842); first match gets |CONTROL
_AUTO_IDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "eot_id",
        (
            "<|eot_id|>",
            "<|im_end|>",
            "<|end|>",
            "<end_of_turn>",
            "<|endoftext|>",
            "<|end_of_text|>",
            "<EOT>",
            "_<EOT>",
            "[EOT]",
            "<｜end▁of▁sentence｜>",
            "<end_of_utterance>",
        ),
    ),
    ("eom_id", ("<|eom_id|>",)),
    (
        "fim_pre_id",
        (
            "<|fim_prefix|>",
            "<fim-prefix>",
            "<fim_prefix>",
            "<｜fim▁begin｜>",
            "<PRE>",
            "▁<PRE>",
            "<|code_prefix|>",
            "<|prefix|>",
        ),
    ),
    (
        "fim_suf_id",
        (
            "<|fim_suffix|>",
            "<fim-suffix>",
            "<fim_suffix>",
            "<｜fim▁hole｜>",
            "<SUF>",
            "▁<SUF>",
            "<|code_suffix|>",
            "<|suffix|>",
        ),
    ),
    (
        "fim_mid_id",
        (
            "<|fim_middle|>",
            "<fim-middle>",
            "<fim_middle>",
            "<｜fim▁end｜>",
            "<MID>",
            "▁<MID>",
            "<|code_middle|>",
            "<|middle|>",
        ),
    ),
    ("fim_pad_id", ("<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]")),
    ("fim_rep_id", ("<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>")),
    ("fim_sep_id", ("<|file_sep|>",)),
)

_EOG_TEXTS: tuple[str, ...] = (
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
    "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
    "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<｜end▁of▁sentence｜>", "[e~[",
)  # fmt: skip

_GPT_OSS_USER_DEFINED = ("<|channel|>", "<|message|>", "<|start|>", "<|constrain|>")

_CONTROL = int(TokenAttr.CONTROL)
_UNUSED = int(TokenAttr.UNUSED)
_USER_DEFINED = int(TokenAttr.USER_DEFINED)
_UNKNOWN = int(TokenAttr.UNKNOWN)
_NORMAL = int(TokenAttr.NORMAL)
_LSTRIP = int(TokenAttr.LSTRIP)
_RSTRIP = int(TokenAttr.RSTRIP)
_SPECIAL_MASK = _CONTROL | _USER_DEFINED | _UNKNOWN


def apply_text_overrides(tokens: list[str], token_to_id: dict[str, int], attrs: np.ndarray,
                          ids: dict[str, int]) -> set[int]:  # fmt: skip
    """Auto-detected ids, unused, EOG, gpt-oss, </s>; returns the EOG set.

    (a) walks llama.cpp's ``std::unordered_map`` in hash-table order, which depends on libstdc++'s
    hash and rehash history; among several matching texts we take the highest id. Recently
    inserted (high) ids tend to come first in that order, and a C++ replay of the map on every
    vocab at hand (llama-bpe <|eot_id|>, phi-3 <|end|>, qwen <|im_end|>) agrees with this choice.
    """
    tid: int | None  # a token id; None where a text lookup finds no token
    for attr, texts in _AUTO_IDS:
        if ids[attr] != _NULL:
            continue
        found = [token_to_id[t] for t in texts if t in token_to_id]
        if found:
            tid = max(found)
            ids[attr] = tid
            attrs[tid] |= _CONTROL
    # (b) CONTROL tokens whose text contains "unused"
    for tid in np.flatnonzero((attrs & _CONTROL) != 0).tolist():
        if "unused" in tokens[tid].split("\0", 1)[0]:
            attrs[tid] |= _UNUSED
    # (c) EOG
    eog: set[int] = {ids[k] for k in ("fim_pad_id", "fim_rep_id", "fim_sep_id") if ids[k] != _NULL}
    for text in _EOG_TEXTS:
        tid = token_to_id.get(text)
        if tid is not None:
            eog.add(tid)
            attrs[tid] |= _CONTROL
    # (d) gpt-oss: always rendered
    for text in _GPT_OSS_USER_DEFINED:
        tid = token_to_id.get(text)
        if tid is not None:
            attrs[tid] = _USER_DEFINED
    # (e)
    for k in ("eos_id", "eot_id", "eom_id"):
        if ids[k] != _NULL:
            eog.add(ids[k])
    n = len(tokens)
    eog_texts = {tokens[t]: t for t in sorted(eog) if 0 <= t < n}
    # (f) o200k_harmony / solar-open: <|end|> is not EOG
    has_end = "<|end|>" in eog_texts
    has_return = "<|return|>" in eog_texts
    has_call = "<|call|>" in eog_texts or "<|calls|>" in eog_texts
    has_flush = "<|flush|>" in eog_texts
    if has_end and ((has_return and has_call) or (has_call and has_flush)):
        end_id = eog_texts.pop("<|end|>")
        eog.discard(end_id)
        attrs[end_id] = _USER_DEFINED
    # (g) gemma4 / plamo: </s> is a normal token
    if "</s>" in eog_texts and ("<|tool_response>" in eog_texts or "<|plamo:eos|>" in eog_texts):
        s_id = eog_texts["</s>"]
        eog.discard(s_id)
        attrs[s_id] = _NORMAL
    return eog


def special_cache(tokens: list[str], attrs: np.ndarray) -> list[int]:
    """Partition candidates, longest first, ties as libstdc++ ``std::sort`` leaves them (V:3035-3047)."""
    cand = np.flatnonzero((attrs & _SPECIAL_MASK) != 0).tolist()
    lengths = {tid: len(tokens[tid].encode("utf-8", "surrogateescape")) for tid in cand}
    return libstdcxx_sort(cand, key=lengths.__getitem__, greater=True)


def apply_name_overrides(raw_pre: str, arch: str, name: str, token_to_id: dict[str, int],
                          attrs: np.ndarray, special: list[int]) -> None:  # fmt: skip
    """LSTRIP/RSTRIP by tokenizer/architecture/model name (V:3108-3135)."""
    lname = name.encode("utf-8", "surrogateescape").lower().decode("utf-8", "surrogateescape")
    tid: int | None  # a token id; None where a text lookup finds no token
    if any(s in raw_pre for s in ("jina-v2-de", "jina-v2-es", "jina-v2-code")) or any(
        s in arch for s in ("nomic-bert-moe", "jina-bert-v3")
    ):
        if "<mask>" in token_to_id:
            attrs[token_to_id["<mask>"]] |= _LSTRIP
    elif "phi-3" in lname or "phi3" in lname:
        for tid in special:
            attrs[tid] |= _RSTRIP
        for text, on in (("</s>", True), ("<unk>", False), ("<s>", False), ("<|endoftext|>", False)):
            tid = token_to_id.get(text)
            if tid is None:
                raise VocabError(f"phi-3 model {name!r} has no {text!r} token (llama.cpp fails to load it)")
            attrs[tid] = (attrs[tid] | _RSTRIP) if on else (attrs[tid] & ~_RSTRIP)
    elif "modern-bert" in lname:
        if "[MASK]" in token_to_id:
            attrs[token_to_id["[MASK]"]] |= _LSTRIP
