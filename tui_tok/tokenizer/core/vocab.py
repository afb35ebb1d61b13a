"""The vocabulary as llama.cpp sees it after loading: tokens, scores, attributes, special ids, flags.

Built from plain metadata (a mapping of GGUF key -> value), never from a GGUF reader, so the
tokenizer can be fed from any source. ``vocab_from_metadata`` applies llama.cpp's defaults per
model, the per-``pre`` flags (from ``pretokenize.pre_spec``) and every override llama.cpp derives
from token text (``llama_vocab::impl::load``, llama-vocab.cpp:1939). Does not build algorithm tables: each algorithm
module builds its own (merges ranks, tries, charsmap) lazily from this object.

>>> v = vocab_from_metadata({"tokenizer.ggml.model": "llama",
...                          "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "▁a"],
...                          "tokenizer.ggml.token_type": [2, 3, 3, 1]})
>>> v.type, v.bos_id, v.add_bos, v.add_space_prefix, sorted(v.eog_ids)
(<VocabType.SPM: 'spm'>, 1, True, True, [2])
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from tui_tok.errors import UnsupportedTokenizerError, VocabError
from tui_tok.tokenizer.core.metadata_values import (
    charsmap_blob,
    meta_bool,
    meta_int,
    meta_str,
    numeric_array,
    string_list,
)
from tui_tok.tokenizer.core.types import TokenAttr, VocabType
from tui_tok.tokenizer.core.vocab_overrides import apply_name_overrides, apply_text_overrides, special_cache


@dataclass(slots=True, eq=False)
class Vocab:
    """Everything llama.cpp's ``llama_vocab::impl`` holds after ``load``.

    Token texts are ``str``; bytes that are not valid UTF-8 are kept with
    ``surrogateescape`` so ``text.encode('utf-8', 'surrogateescape')`` gives llama.cpp's bytes.
    """

    model: str
    """Raw ``tokenizer.ggml.model`` (e.g. ``gpt2``, ``llama``, ``t5``, ``gemma4``)."""
    type: VocabType
    """Algorithm family the model string maps to."""
    pre: str
    """``tokenizer.ggml.pre`` as llama.cpp uses it ('' when absent; forced ``gemma4`` for model gemma4)."""
    tokens: list[str]
    """Token texts by id (empty entries already replaced by ``[EMPTY_i]``)."""
    scores: np.ndarray
    """float32 score per token (0.0 when the key is absent)."""
    types: np.ndarray
    """int32 ``TokenType`` per token (NORMAL when absent)."""
    attrs: np.ndarray
    """int32 ``TokenAttr`` bits per token, after every override."""
    token_to_id: dict[str, int]
    """Text -> id (texts are unique: llama.cpp refuses duplicates)."""
    merges: list[str] = field(default_factory=list)
    """Raw ``tokenizer.ggml.merges`` strings; rank = index."""
    merges_text: str | None = None
    """``"\\0" + "\\0".join(merges) + "\\0"`` when the caller had it (the GGUF reader keeps it on
    request), so the merge-rank search need not join the merges again; None: join them yourself."""
    precompiled_charsmap: bytes | None = None
    """UGM normalizer blob, if any."""

    bos_id: int = -1
    eos_id: int = -1
    eot_id: int = -1
    eom_id: int = -1
    unk_id: int = -1
    sep_id: int = -1
    pad_id: int = -1
    mask_id: int = -1
    fim_pre_id: int = -1
    fim_suf_id: int = -1
    fim_mid_id: int = -1
    fim_pad_id: int = -1
    fim_rep_id: int = -1
    fim_sep_id: int = -1
    eog_ids: frozenset[int] = frozenset()
    """End-of-generation set (llama.cpp ``special_eog_ids``)."""

    add_bos: bool = False
    add_eos: bool = False
    add_sep: bool = False
    add_space_prefix: bool = False
    remove_extra_whitespaces: bool = False
    escape_whitespaces: bool = True
    clean_spaces: bool = False
    ignore_merges: bool = False
    lowercase: bool = True
    """WPM ``tokenizer.ggml.normalizer.lowercase``."""
    strip_accents: bool = True
    """WPM ``tokenizer.ggml.normalizer.strip_accents`` (defaults to ``lowercase``)."""

    name: str = ""
    """``general.name`` (phi-3 and modern-bert overrides look at it)."""
    architecture: str = ""
    """``general.architecture``."""
    special_tokens: list[int] = field(default_factory=list)
    """Ids tried by the special-token partition, longest text first (llama.cpp cache_special_tokens),
    ties in the order libstdc++'s ``std::sort`` leaves them."""
    pre_type: str = "DEFAULT"
    """llama.cpp's pre-tokenizer enum name (``QWEN2``, ``GEMMA4`` ...); ``DEFAULT`` for non-BPE."""
    raw_pre: str = ""
    """``tokenizer.ggml.pre`` exactly as stored (the LSTRIP/RSTRIP overrides by name look at this one)."""

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)

    def token_bytes(self, token_id: int) -> bytes:
        """llama.cpp's bytes of a token text."""
        return self.tokens[token_id].encode("utf-8", "surrogateescape")


# --- tables from llama-vocab.cpp ------------------------------------------------------------

MODEL_TYPES: Mapping[str, VocabType] = {
    "no_vocab": VocabType.NONE,
    "none": VocabType.NONE,
    "llama": VocabType.SPM,
    "bert": VocabType.WPM,
    "gpt2": VocabType.BPE,
    "hybriddna": VocabType.BPE,
    "whitespace": VocabType.BPE,
    "gemma4": VocabType.BPE,
    "t5": VocabType.UGM,
    "rwkv": VocabType.RWKV,
    "test": VocabType.TEST,
    "plamo2": VocabType.PLAMO2,
}
"""``tokenizer.ggml.model`` -> family, as ``llama_vocab::impl::load`` maps it: the one copy of this table (the
tokenizer and lint both read it)."""

_NULL = -1

# model -> (bos, eos, unk, sep, pad, mask) defaults (V:1949-2147)
_DEFAULT_IDS: dict[VocabType, tuple[int, int, int, int, int, int]] = {
    VocabType.SPM: (1, 2, 0, _NULL, _NULL, _NULL),
    VocabType.WPM: (101, _NULL, 100, 102, 0, 103),
    VocabType.BPE: (11, 11, _NULL, _NULL, _NULL, _NULL),
    VocabType.UGM: (_NULL, 1, 2, _NULL, 0, _NULL),
    VocabType.RWKV: (_NULL, _NULL, _NULL, _NULL, _NULL, _NULL),
    VocabType.TEST: (_NULL, _NULL, _NULL, _NULL, _NULL, _NULL),
    VocabType.PLAMO2: (1, 2, 0, _NULL, 3, _NULL),
    VocabType.NONE: (_NULL, _NULL, _NULL, _NULL, _NULL, _NULL),
}

# TokenType value -> TokenAttr bits (V:2531-2541); anything else -> UNDEFINED
_TYPE_TO_ATTR = np.array([0, 4, 1, 8, 16, 2, 32], dtype=np.int32)

# GGUF id key suffix -> Vocab field, in llama.cpp's reading order (V:2593-2614)
_ID_KEYS: tuple[tuple[str, str], ...] = (
    ("bos_token_id", "bos_id"),
    ("eos_token_id", "eos_id"),
    ("eot_token_id", "eot_id"),
    ("eom_token_id", "eom_id"),
    ("unknown_token_id", "unk_id"),
    ("seperator_token_id", "sep_id"),
    ("padding_token_id", "pad_id"),
    ("mask_token_id", "mask_id"),
    ("fim_pre_token_id", "fim_pre_id"),
    ("fim_suf_token_id", "fim_suf_id"),
    ("fim_mid_token_id", "fim_mid_id"),
    ("fim_pad_token_id", "fim_pad_id"),
    ("fim_rep_token_id", "fim_rep_id"),
    ("fim_sep_token_id", "fim_sep_id"),
    ("prefix_token_id", "fim_pre_id"),
    ("suffix_token_id", "fim_suf_id"),
    ("middle_token_id", "fim_mid_id"),
)


def supported_models() -> tuple[str, ...]:
    """Every ``tokenizer.ggml.model`` value llama.cpp (and so tui-tok) accepts."""
    return tuple(MODEL_TYPES)


def vocab_from_metadata(
    meta: Mapping[str, Any], *, str_lists: Collection[str] = (), texts: Mapping[str, str] | None = None
) -> Vocab:
    """Build the vocab llama.cpp's ``llama_vocab::impl::load`` would build from these keys.

    ``meta`` maps GGUF keys to values as the GGUF reader returns them (str, int, bool, numpy
    arrays, ``list[str]``); plain lists work too. ``str_lists`` names keys whose values the caller
    knows to be ``list[str]`` (the loader passes the file's string arrays): their entries are not
    type-checked again (a pass over 150k-500k strings). ``texts`` maps keys to their string
    array's ``"\\0" + "\\0".join(value) + "\\0"`` where the caller has it (``Vocab.merges_text``).
    Raises ``UnsupportedTokenizerError`` for an unknown model or pre-tokenizer and ``VocabError``
    where llama.cpp refuses to load.
    """
    model = meta_str(meta, "tokenizer.ggml.model", None)
    if model is None:
        raise VocabError("no tokenizer in this file: key 'tokenizer.ggml.model' is missing")
    vtype = MODEL_TYPES.get(model)
    if vtype is None:
        raise UnsupportedTokenizerError("tokenizer.ggml.model", model, supported_models())
    raw_pre = meta_str(meta, "tokenizer.ggml.pre", "") or ""
    pre = "gemma4" if model == "gemma4" else raw_pre

    flags = _model_flags(vtype)
    pre_type = "DEFAULT"
    if vtype is VocabType.BPE:
        pre_type = _apply_pre_flags(pre, flags)
    for key in ("add_space_prefix", "remove_extra_whitespaces"):
        value = meta_bool(meta, f"tokenizer.ggml.{key}")
        if value is not None:
            flags[key] = value

    tokens = _tokens(meta, vtype, checked="tokenizer.ggml.tokens" in str_lists)
    n = len(tokens)
    scores = numeric_array(meta, "tokenizer.ggml.scores", n, np.float32, 0.0)
    types = numeric_array(meta, "tokenizer.ggml.token_type", n, np.int32, 1)
    lut_index = np.where((types >= 0) & (types < len(_TYPE_TO_ATTR)), types, 0)
    attrs = _TYPE_TO_ATTR[lut_index]
    attrs[(types < 0) | (types >= len(_TYPE_TO_ATTR))] = 0
    if "tokenizer.ggml.token_type" not in meta:
        attrs[:] = int(TokenAttr.NORMAL)

    token_to_id = dict(zip(tokens, range(n)))
    if len(token_to_id) != n:
        raise VocabError(_duplicate_message(tokens))
    if model == "hybriddna":
        tokens = _strip_dna_marker(tokens, token_to_id)

    merges = _merges(meta, model, pre, checked="tokenizer.ggml.merges" in str_lists)
    merges_text = None
    if texts and merges and merges is meta.get("tokenizer.ggml.merges"):
        merges_text = texts.get("tokenizer.ggml.merges")
    charsmap = charsmap_blob(meta) if vtype is VocabType.UGM else None

    ids = _special_ids(meta, vtype, n, bos_null=flags.pop("bos_null", False))
    _add_bos_eos_sep(meta, flags, pre_type)
    default_lowercase = flags.pop("lowercase", True)  # WHITESPACE's pre turns it off
    lowercase = meta_bool(meta, "tokenizer.ggml.normalizer.lowercase")
    lowercase = default_lowercase if lowercase is None else lowercase
    strip_accents = meta_bool(meta, "tokenizer.ggml.normalizer.strip_accents")
    strip_accents = lowercase if strip_accents is None else strip_accents

    eog = apply_text_overrides(tokens, token_to_id, attrs, ids)
    special = special_cache(tokens, attrs)
    name = meta_str(meta, "general.name", "") or ""
    arch = meta_str(meta, "general.architecture", "") or ""
    apply_name_overrides(raw_pre, arch, name, token_to_id, attrs, special)

    if vtype is VocabType.NONE:
        special = []
    return Vocab(
        model=model, type=vtype, pre=pre, tokens=tokens, scores=scores, types=types, attrs=attrs,
        token_to_id=token_to_id, merges=merges, merges_text=merges_text, precompiled_charsmap=charsmap,
        eog_ids=frozenset(eog), lowercase=lowercase, strip_accents=strip_accents,
        name=name, architecture=arch, special_tokens=special, pre_type=pre_type, raw_pre=raw_pre,
        **cast("dict[str, Any]", ids), **flags,  # cast: mypy checks int ids against the bool fields too
    )  # fmt: skip


# --- steps ------------------------------------------------------------------------------------


def _model_flags(vtype: VocabType) -> dict[str, bool]:
    """Flag defaults after the model switch (V:1829-1838, 2430-2455)."""
    f = dict(add_space_prefix=False, add_bos=False, add_eos=False, add_sep=False, ignore_merges=False,
             clean_spaces=False, remove_extra_whitespaces=False, escape_whitespaces=True)  # fmt: skip
    if vtype is VocabType.BPE:
        f.update(add_space_prefix=False, escape_whitespaces=False, clean_spaces=True)
    elif vtype is VocabType.SPM:
        f.update(add_space_prefix=True, clean_spaces=False, add_bos=True, add_eos=False)
    elif vtype is VocabType.WPM:
        f.update(add_space_prefix=False, clean_spaces=True, add_bos=True, add_eos=False, add_sep=True)
    elif vtype is VocabType.UGM:
        f.update(add_bos=False, add_eos=True)
    elif vtype is VocabType.RWKV:
        f.update(add_space_prefix=False, clean_spaces=False, add_bos=False, add_eos=False)
    return f


def _apply_pre_flags(pre: str, flags: dict[str, bool]) -> str:
    """Per-pre flags of the BPE pre-tokenizer table (V:2155-2429); returns the pre_type name."""
    from tui_tok.tokenizer.pretokenize.table import pre_spec

    spec = pre_spec(pre if pre else "default")
    flags["clean_spaces"] = spec.clean_spaces
    if spec.ignore_merges:
        flags["ignore_merges"] = True
    if spec.add_bos:
        flags["add_bos"] = True
    if spec.add_sep:
        flags["add_sep"] = True
    if spec.escape_whitespaces:
        flags["escape_whitespaces"] = True
    if spec.bos_null:
        flags["bos_null"] = True
    if spec.pre_type == "WHITESPACE":
        flags["lowercase"] = False
    return spec.pre_type


def _tokens(meta: Mapping[str, Any], vtype: VocabType, *, checked: bool) -> list[str]:
    """The token texts; the caller's list itself when nothing needs replacing (never changed:
    hybriddna's marker strip makes a copy)."""
    raw = meta.get("tokenizer.ggml.tokens")
    if raw is None:
        if vtype is VocabType.NONE:
            return []
        raise VocabError("cannot find tokenizer vocab: key 'tokenizer.ggml.tokens' is missing")
    tokens = string_list(raw, "tokenizer.ggml.tokens", checked=checked)
    if not tokens and vtype is not VocabType.NONE:
        raise VocabError("key 'tokenizer.ggml.tokens' is an empty array: there is no vocabulary to tokenize with")
    if "" in tokens:
        tokens = [t if t else f"[EMPTY_{i}]" for i, t in enumerate(tokens)]
    return tokens


def _duplicate_message(tokens: list[str]) -> str:
    seen: dict[str, int] = {}
    for i, t in enumerate(tokens):
        if t in seen:
            return (f"duplicate token text {t!r} at ids {seen[t]} and {i}: llama.cpp refuses this vocab "
                    "(reconvert the model)")  # fmt: skip
        seen[t] = i
    return "duplicate token texts"


_DNA_MARKER = "\ue000"


def _strip_dna_marker(tokens: list[str], token_to_id: dict[str, int]) -> list[str]:
    """hybriddna k-mer texts lose their marker suffix after the text->id map is built (V:2546-2561);
    returns a new list (``tokens`` may be the caller's)."""
    oov = token_to_id.get("<oov>")
    tokens = list(tokens)
    if oov is None:
        return tokens
    for i in range(oov + 1, len(tokens)):
        t = tokens[i]
        if len(t) > len(_DNA_MARKER) and t.endswith(_DNA_MARKER):
            tokens[i] = t[: -len(_DNA_MARKER)]
    return tokens


def _merges(meta: Mapping[str, Any], model: str, pre: str, *, checked: bool) -> list[str]:
    raw = meta.get("tokenizer.ggml.merges")
    needs = model in ("gpt2", "hybriddna", "whitespace", "gemma4")
    if raw is None:
        if needs and not (model != "gemma4" and pre == "kimi-k2"):
            raise VocabError("cannot find tokenizer merges: key 'tokenizer.ggml.merges' is missing")
        return []
    if not needs:
        return []
    return string_list(raw, "tokenizer.ggml.merges", checked=checked)


def _special_ids(meta: Mapping[str, Any], vtype: VocabType, n: int, *, bos_null: bool) -> dict[str, int]:
    bos, eos, unk, sep, pad, mask = _DEFAULT_IDS[vtype]
    if bos_null:
        bos = _NULL
    ids = dict(bos_id=bos, eos_id=eos, eot_id=_NULL, eom_id=_NULL, unk_id=unk, sep_id=sep, pad_id=pad,
               mask_id=mask, fim_pre_id=_NULL, fim_suf_id=_NULL, fim_mid_id=_NULL, fim_pad_id=_NULL,
               fim_rep_id=_NULL, fim_sep_id=_NULL)  # fmt: skip
    for suffix, attr in _ID_KEYS:
        if ids[attr] >= n:
            ids[attr] = _NULL
        value = meta_int(meta, f"tokenizer.ggml.{suffix}")
        if value is None:
            continue
        if 0 <= value < n:
            ids[attr] = value
    return ids


def _add_bos_eos_sep(meta: Mapping[str, Any], flags: dict[str, bool], pre_type: str) -> None:
    for key in ("add_bos", "add_eos", "add_sep"):
        value = meta_bool(meta, f"tokenizer.ggml.{key}_token")
        if value is not None:
            flags[key] = value
    if pre_type == "GEMMA4":
        flags["add_bos"] = True
