"""What a ``tokenizer.ggml.pre`` value means to llama.cpp: its regex list and per-pre flags.

Plain data only; the table itself lives in ``pretokenize/table.py`` (``pre_spec(pre)``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PreSpec:
    """llama.cpp's ``pre_type`` for one ``tokenizer.ggml.pre`` string (llama-vocab.cpp:2155-2429)."""

    pre_type: str
    """llama.cpp enum name without prefix, e.g. ``QWEN2``, ``LLAMA3``, ``DEFAULT``."""
    regexes: tuple[str, ...]
    """Regexes applied in order, exactly as the strings in llama-vocab.cpp."""
    clean_spaces: bool = True
    ignore_merges: bool = False
    add_bos: bool = False
    """The pre forces ``add_bos`` true before the GGUF key is read (flag B)."""
    add_sep: bool = False
    escape_whitespaces: bool = False
    byte_encode: bool = True
    """False for GEMMA4, SARVAM_MOE, WHITESPACE: words are not GPT-2 byte mapped."""
    bos_null: bool = False
    """chatglm-bpe/glm4/glm5 set bos to NULL."""
