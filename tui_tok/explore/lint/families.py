"""Guess the ``tokenizer.ggml.pre`` a BPE vocabulary without one should carry.

llama.cpp's converter (``convert_hf_to_gguf.py``, ``get_vocab_base_pre``) hashes the Hugging Face
tokenizer's ids for a check text; a GGUF file holds no Hugging Face tokenizer, so this is a
heuristic: each known family is recognised by a few characteristic token texts (and, where the
texts are shared, the vocabulary size). A guess is a hint, never a certainty; no guess means no
family matched. Tokens listed here were read from the families' GGUF files in ``../shared``.

>>> guess_pre(["<|begin_of_text|>", "<|end_of_text|>"], 128256)
'llama-bpe'
>>> guess_pre(["a", "b"], 2) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Family:
    pre: str
    """The ``pre`` value llama.cpp knows this family by."""
    tokens: tuple[str, ...]
    """Texts every vocabulary of the family has."""
    size: Callable[[int], bool] = lambda n: True
    """Vocabulary sizes the family has (when the texts alone are shared with another family)."""


FAMILIES: tuple[Family, ...] = (
    Family("llama-bpe", ("<|begin_of_text|>", "<|end_of_text|>")),
    Family("llama4", ("<|begin_of_text|>", "<|header_start|>")),
    Family("qwen35", ("<|im_start|>", "<|endoftext|>", "<|vision_start|>"), lambda n: n >= 248000),
    Family("qwen2", ("<|im_start|>", "<|im_end|>", "<|endoftext|>"), lambda n: 151000 <= n < 160000),
    Family("deepseek-coder", ("<｜begin▁of▁sentence｜>", "<｜fim▁hole｜>"), lambda n: n < 100000),
    Family("deepseek-v3", ("<｜begin▁of▁sentence｜>", "<｜fim▁hole｜>"), lambda n: n >= 128000),
    Family("deepseek-llm", ("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>")),
    Family("command-r", ("<BOS_TOKEN>", "<|START_OF_TURN_TOKEN|>", "<|END_OF_TURN_TOKEN|>")),
    Family("falcon", (">>TITLE<<", ">>ABSTRACT<<")),
    Family("starcoder", ("<fim_prefix>", "<repo_name>", "<file_sep>")),
    Family("refact", ("<fim_prefix>", "<gh_stars>", "<reponame>")),
    Family("tekken", ("[INST]", "[/INST]", "<SPECIAL_32>")),
    Family("chatglm-bpe", ("[gMASK]", "<sop>")),
    Family("olmo", ("|||IP_ADDRESS|||", "<|padding|>")),
    Family("mpt", ("<|padding|>", "<|endoftext|>"), lambda n: 50254 <= n <= 50432),
    Family("gpt-2", ("<|endoftext|>", "Ġthe"), lambda n: n == 50257),
    Family("phi-2", ("<|endoftext|>", "Ġthe"), lambda n: 50257 < n <= 51200),
)
"""Checked in order; the first match wins (more specific families first)."""


def guess_pre(tokens: Collection[str], n_tokens: int) -> str | None:
    """The ``pre`` of the first family whose characteristic texts are all in ``tokens``."""
    for family in FAMILIES:
        if family.size(n_tokens) and all(t in tokens for t in family.tokens):
            return family.pre
    return None
