"""llama.cpp's own tables that lint compares a file with (llama-vocab.cpp of llama-cpp-python 0.3.36).

The model -> family table and the pre-tokenizer table are the engine's own (``tokenizer/core/vocab.py``,
``tokenizer/pretokenize/table.py``): one copy each, so lint accepts exactly what the tokenizer loads. Reading
them builds no tokenizer, so lint still runs on files whose tokenizer cannot be built. The rest (special id keys,
EOG texts, token types) is what the loader reads and lint alone needs.
"""

from __future__ import annotations

from tui_tok.tokenizer.core.vocab import MODEL_TYPES, VocabType
from tui_tok.tokenizer.pretokenize import table as pretokenizers

KNOWN_MODELS = frozenset(MODEL_TYPES)
"""``tokenizer.ggml.model`` values ``llama_vocab::impl::load`` accepts; anything else: 'unknown tokenizer'."""

BPE_MODELS = frozenset(m for m, family in MODEL_TYPES.items() if family is VocabType.BPE)
"""Models llama.cpp runs as BPE (the only ones whose ``pre`` it reads)."""

KNOWN_PRES = frozenset(pretokenizers.SUPPORTED)
"""``tokenizer.ggml.pre`` values a BPE vocab may carry; any other: 'unknown pre-tokenizer type'."""

ADDS_BOS_PRES = frozenset(p for p in pretokenizers.SUPPORTED if pretokenizers.pre_spec(p).add_bos)
"""BPE ``pre`` values whose default (or forced, for Gemma 4's pre-tokenizer) ``add_bos`` is true."""

SPECIAL_ID_KEYS: tuple[tuple[str, str], ...] = (
    ("BOS", "tokenizer.ggml.bos_token_id"),
    ("EOS", "tokenizer.ggml.eos_token_id"),
    ("EOT", "tokenizer.ggml.eot_token_id"),
    ("EOM", "tokenizer.ggml.eom_token_id"),
    ("UNK", "tokenizer.ggml.unknown_token_id"),
    ("SEP", "tokenizer.ggml.seperator_token_id"),
    ("PAD", "tokenizer.ggml.padding_token_id"),
    ("MASK", "tokenizer.ggml.mask_token_id"),
    ("FIM_PRE", "tokenizer.ggml.fim_pre_token_id"),
    ("FIM_SUF", "tokenizer.ggml.fim_suf_token_id"),
    ("FIM_MID", "tokenizer.ggml.fim_mid_token_id"),
    ("FIM_PAD", "tokenizer.ggml.fim_pad_token_id"),
    ("FIM_REP", "tokenizer.ggml.fim_rep_token_id"),
    ("FIM_SEP", "tokenizer.ggml.fim_sep_token_id"),
    ("FIM_PRE", "tokenizer.ggml.prefix_token_id"),
    ("FIM_SUF", "tokenizer.ggml.suffix_token_id"),
    ("FIM_MID", "tokenizer.ggml.middle_token_id"),
)
"""The id keys llama.cpp reads, in its order (the last three are deprecated spellings)."""

EOG_TEXTS = frozenset({
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
    "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
    "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
    "<｜end▁of▁sentence｜>", "[e~[",
})  # fmt: skip
"""Token texts llama.cpp adds to its end-of-generation set by name (besides EOS/EOT/EOM and FIM
PAD/REP/SEP ids), marking them CONTROL."""

TOKEN_TYPES = range(0, 7)
"""``llama_token_type``: UNDEFINED 0, NORMAL 1, UNKNOWN 2, CONTROL 3, USER_DEFINED 4, UNUSED 5, BYTE 6."""

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
