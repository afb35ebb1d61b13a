"""llama.cpp's own tables that lint compares a file with (llama-vocab.cpp of llama-cpp-python 0.3.36).

Kept here, not imported from the tokenizer, so lint reads them even where the tokenizer cannot be
built and states exactly what llama.cpp's loader accepts. Leaves out the per-``pre`` flags (the
tokenizer's ``vocab`` module applies those).
"""

from __future__ import annotations

KNOWN_MODELS = frozenset({"no_vocab", "none", "llama", "bert", "gpt2", "hybriddna", "whitespace", "t5",
                          "rwkv", "test", "plamo2", "gemma4"})  # fmt: skip
"""``tokenizer.ggml.model`` values ``llama_vocab::impl::load`` accepts; anything else: 'unknown tokenizer'."""

BPE_MODELS = frozenset({"gpt2", "hybriddna", "whitespace", "gemma4"})
"""Models llama.cpp runs as BPE (the only ones whose ``pre`` it reads)."""

KNOWN_PRES = frozenset({
    "default", "minicpm5", "llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
    "lfm2", "jina-v5-nano", "deepseek-llm", "deepseek-coder", "deepseek-v3", "spark2_5", "youtu", "falcon",
    "mpt", "starcoder", "gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de",
    "a.x-4.0", "mellum", "modern-bert", "jais-2", "gemma4", "granite-embed-multi-311m", "sarvam-moe",
    "jina-v1-en", "jina-v2-code", "roberta-bpe", "whitespace", "refact", "command-r", "qwen2",
    "deepseek-r1-qwen", "kormo", "f2llmv2", "qwen35", "stablelm2", "olmo", "dbrx", "smaug-bpe", "poro-chat",
    "chatglm-bpe", "glm4", "glm5", "viking", "jais", "tekken", "smollm", "codeshell", "bloom", "gpt3-finnish",
    "exaone", "exaone4", "exaone-moe", "chameleon", "minerva-7b", "megrez", "gpt-4o", "llama4", "kanana2",
    "talkie", "granite-embed-multi-97m", "tiny_aya", "cohere2moe", "superbpe", "trillion", "granite-docling",
    "bailingmoe", "bailingmoe2", "llada-moe", "seed-coder", "hunyuan", "hunyuan-dense", "hy_v4", "joyai-llm",
    "kimi-k2", "ufakzeka", "grok-2", "afmoe", "laguna", "minimax-m2", "solar-open", "mellum2",
})  # fmt: skip
"""``tokenizer.ggml.pre`` values a BPE vocab may carry; any other: 'unknown pre-tokenizer type'."""

ADDS_BOS_PRES = frozenset({"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0",
                           "lfm2", "jina-v5-nano", "tekken", "chameleon", "gemma4",
                           "granite-embed-multi-311m"})  # fmt: skip
"""BPE ``pre`` values whose default (or forced, for Gemma 4) ``add_bos`` is true."""

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
