"""``tokenizer.ggml.pre`` -> llama.cpp's pre_type, regex list and per-pre flags.

Mirrors llama-vocab.cpp:2155-2429 (string -> pre_type and flags) and 284-569 (pre_type ->
regexes). ``pre_spec('')`` and ``pre_spec('default')`` give DEFAULT,
as llama.cpp does for a missing key. The model string ``gemma4`` forces pre ``gemma4``
(V:2149); that is the caller's job (``vocab_from_metadata``), not this table's.

Does not split text: see ``split.py``.

>>> pre_spec("qwen2").pre_type, pre_spec("qwen2").clean_spaces
('QWEN2', False)
>>> pre_spec("llama-bpe").add_bos, pre_spec("llama-bpe").ignore_merges
(True, True)
"""

from __future__ import annotations

from typing import Any

from tui_tok.errors import UnsupportedTokenizerError
from tui_tok.tokenizer.pretokenize import regexes as rx
from tui_tok.tokenizer.pretokenize.spec import PreSpec

REGEXES: dict[str, tuple[str, ...]] = {
    "DEFAULT": rx.DEFAULT,
    "LLAMA3": (rx.LLAMA3,),
    "JAIS2": (rx.JAIS2,),
    "DBRX": (rx.LLAMA3,),
    "SMAUG": (rx.LLAMA3,),
    "DEEPSEEK_LLM": rx.DEEPSEEK_LLM,
    "DEEPSEEK3_LLM": rx.DEEPSEEK3_LLM,
    "HUNYUAN_DENSE": rx.DEEPSEEK3_LLM,
    "JOYAI_LLM": rx.DEEPSEEK3_LLM,
    "HY_V4": rx.DEEPSEEK3_LLM,
    "SPARK2_5": rx.SPARK2_5,
    "YOUTU": rx.YOUTU,
    "DEEPSEEK_CODER": rx.DEEPSEEK_CODER,
    "FALCON": rx.FALCON,
    "STARCODER": rx.STARCODER,
    "REFACT": rx.STARCODER,
    "COMMAND_R": rx.STARCODER,
    "SMOLLM": rx.STARCODER,
    "CODESHELL": rx.STARCODER,
    "EXAONE": rx.STARCODER,
    "MINERVA": rx.STARCODER,
    "MELLUM2": rx.STARCODER,
    "GPT2": (rx.GPT2,),
    "MPT": (rx.GPT2,),
    "OLMO": (rx.GPT2,),
    "JAIS": (rx.GPT2,),
    "TRILLION": (rx.GPT2,),
    "GRANITE_DOCLING": (rx.GPT2,),
    "STABLELM2": (rx.QWEN2,),
    "QWEN2": (rx.QWEN2,),
    "HUNYUAN": (rx.QWEN2,),
    "SOLAR_OPEN": (rx.QWEN2,),
    "GROK_2": (rx.QWEN2,),
    "QWEN35": (rx.QWEN35,),
    "PORO": rx.PORO,
    "BLOOM": rx.PORO,
    "GPT3_FINNISH": rx.PORO,
    "CHATGLM4": (rx.LLAMA3,),
    "VIKING": rx.VIKING,
    "TEKKEN": rx.TEKKEN,
    "CHAMELEON": rx.CHAMELEON,
    "GPT4O": rx.GPT4O,
    "MINIMAX_M2": rx.GPT4O,
    "GRANITE_EMB_MULTI": rx.GRANITE_EMB_MULTI,
    "TINY_AYA": rx.TINY_AYA,
    "KIMI_K2": (rx.K2,),
    "SUPERBPE": rx.SUPERBPE,
    "BAILINGMOE": rx.BAILINGMOE,
    "SEED_CODER": rx.SEED_CODER,
    "UFAKZEKA": rx.UFAKZEKA,
    "AFMOE": rx.AFMOE,
    "LAGUNA": (rx.NEWLINES, rx.QWEN2),
    "EXAONE_MOE": rx.EXAONE_MOE,
    "GEMMA4": (rx.NEWLINES,),
    "SARVAM_MOE": (rx.NEWLINES,),
    "MINICPM5": rx.MINICPM5,
    "WHITESPACE": rx.WHITESPACE,
}
"""pre_type -> regexes applied in order (the switch at V:284-569)."""

_NO_BYTE_ENCODE = frozenset({"GEMMA4", "SARVAM_MOE", "WHITESPACE"})

C0: dict[str, Any] = {"clean_spaces": False}
IM: dict[str, Any] = {"ignore_merges": True}
B: dict[str, Any] = {"add_bos": True}

_PRES: dict[str, tuple[str, dict[str, Any]]] = {
    "default": ("DEFAULT", {}),
    "minicpm5": ("MINICPM5", IM),
    **{
        p: ("LLAMA3", IM | B)
        for p in (
            "llama3",
            "llama-v3",
            "llama-bpe",
            "falcon3",
            "falcon-h1",
            "pixtral",
            "midm-2.0",
            "lfm2",
            "jina-v5-nano",
        )
    },
    "deepseek-llm": ("DEEPSEEK_LLM", C0),
    "deepseek-coder": ("DEEPSEEK_CODER", C0),
    "deepseek-v3": ("DEEPSEEK3_LLM", C0),
    "spark2_5": ("SPARK2_5", C0),
    "youtu": ("YOUTU", C0 | IM),
    "falcon": ("FALCON", {}),
    "mpt": ("MPT", {}),
    "starcoder": ("STARCODER", {}),
    **{
        p: ("GPT2", {})
        for p in (
            "gpt-2",
            "phi-2",
            "jina-es",
            "jina-de",
            "gigachat",
            "jina-v2-es",
            "jina-v2-de",
            "a.x-4.0",
            "mellum",
            "modern-bert",
            "exaone4",
        )
    },
    "jais-2": ("JAIS2", {}),
    "gemma4": ("GEMMA4", {"escape_whitespaces": True}),
    "granite-embed-multi-311m": ("GEMMA4", {"escape_whitespaces": True}),
    "sarvam-moe": ("SARVAM_MOE", {"escape_whitespaces": True} | C0),
    **{p: ("GPT2", {"add_sep": True}) for p in ("jina-v1-en", "jina-v2-code", "roberta-bpe")},
    "whitespace": ("WHITESPACE", {}),
    "refact": ("REFACT", {}),
    "command-r": ("COMMAND_R", C0),
    **{p: ("QWEN2", C0) for p in ("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2")},
    "qwen35": ("QWEN35", C0),
    "stablelm2": ("STABLELM2", {}),
    "olmo": ("OLMO", {}),
    "dbrx": ("DBRX", {}),
    "smaug-bpe": ("SMAUG", {}),
    "poro-chat": ("PORO", C0),
    "chatglm-bpe": ("CHATGLM4", {"bos_null": True}),
    "glm4": ("CHATGLM4", {"bos_null": True} | IM),
    "glm5": ("CHATGLM4", {"bos_null": True} | IM),
    "viking": ("VIKING", C0),
    "jais": ("JAIS", {}),
    "tekken": ("TEKKEN", C0 | IM | B),
    "smollm": ("SMOLLM", C0),
    "codeshell": ("CODESHELL", {}),
    "bloom": ("BLOOM", {}),
    "gpt3-finnish": ("GPT3_FINNISH", {}),
    "exaone": ("EXAONE", {}),
    "exaone-moe": ("EXAONE_MOE", {}),
    "chameleon": ("CHAMELEON", B | C0),
    "minerva-7b": ("MINERVA", {}),
    "megrez": ("QWEN2", {}),
    **{p: ("GPT4O", C0) for p in ("gpt-4o", "llama4", "kanana2", "talkie")},
    "granite-embed-multi-97m": ("GRANITE_EMB_MULTI", C0 | IM),
    "tiny_aya": ("TINY_AYA", C0),
    "cohere2moe": ("TINY_AYA", C0),
    "superbpe": ("SUPERBPE", C0),
    "trillion": ("TRILLION", C0),
    "granite-docling": ("GRANITE_DOCLING", C0),
    **{p: ("BAILINGMOE", C0) for p in ("bailingmoe", "bailingmoe2", "llada-moe")},
    "seed-coder": ("SEED_CODER", C0),
    "hunyuan": ("HUNYUAN", C0),
    "hunyuan-dense": ("HUNYUAN_DENSE", C0),
    "hy_v4": ("HY_V4", C0),
    "joyai-llm": ("JOYAI_LLM", C0),
    "kimi-k2": ("KIMI_K2", C0),
    "ufakzeka": ("UFAKZEKA", C0),
    "grok-2": ("GROK_2", C0),
    "afmoe": ("AFMOE", C0),
    "laguna": ("LAGUNA", C0),
    "minimax-m2": ("MINIMAX_M2", C0),
    "solar-open": ("SOLAR_OPEN", C0),
    "mellum2": ("MELLUM2", {}),
}
"""pre string -> (pre_type, flags that differ from the BPE defaults) (V:2155-2429)."""

SUPPORTED: tuple[str, ...] = tuple(sorted(_PRES))
"""Every ``tokenizer.ggml.pre`` value llama.cpp accepts (plus '' for a missing key)."""


def pre_spec(pre: str) -> PreSpec:
    """What llama.cpp does with ``tokenizer.ggml.pre`` = ``pre`` for a BPE vocab.

    Raises UnsupportedTokenizerError for a value llama.cpp rejects ("unknown pre-tokenizer type").

    >>> pre_spec("").pre_type
    'DEFAULT'
    >>> pre_spec("gemma4").byte_encode, pre_spec("gemma4").add_bos
    (False, True)
    """
    key = "default" if pre == "" else pre
    entry = _PRES.get(key)
    if entry is None:
        raise UnsupportedTokenizerError("tokenizer.ggml.pre", pre, SUPPORTED)
    pre_type, flags = entry
    options = dict(flags)
    if pre_type == "GEMMA4":
        options["add_bos"] = True  # V:2653: forced after the GGUF key is read
    return PreSpec(
        pre_type=pre_type,
        regexes=REGEXES[pre_type],
        byte_encode=pre_type not in _NO_BYTE_ENCODE,
        **options,
    )
