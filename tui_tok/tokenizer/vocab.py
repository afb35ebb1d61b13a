"""The vocabulary as llama.cpp sees it after loading: tokens, scores, attributes, special ids, flags.

Built from plain metadata (a mapping of GGUF key -> value), never from a GGUF reader, so the
tokenizer can be fed from any source. ``vocab_from_metadata`` applies llama.cpp's defaults per
model, the per-``pre`` flags (from ``pretokenize.pre_spec``) and every override llama.cpp derives
from token text (TOKENIZER-PARITY.md §1-2). Does not build algorithm tables: each algorithm
module builds its own (merges ranks, tries, charsmap) lazily from this object.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tui_tok.tokenizer.types import VocabType


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
    """Raw ``tokenizer.ggml.pre`` ('' when absent); meaningful for BPE only."""
    tokens: list[str]
    """Token texts by id (empty entries already replaced by ``[EMPTY_i]``)."""
    scores: np.ndarray
    """float32 score per token (0.0 when the key is absent)."""
    types: np.ndarray
    """int32 ``TokenType`` per token (NORMAL when absent)."""
    attrs: np.ndarray
    """int32 ``TokenAttr`` bits per token, after every override."""
    token_to_id: dict[str, int]
    """Text -> id (first id wins, as llama.cpp)."""
    merges: list[str] = field(default_factory=list)
    """Raw ``tokenizer.ggml.merges`` strings; rank = index."""
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
    """Ids tried by the special-token partition, longest text first (llama.cpp cache_special_tokens)."""

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)
