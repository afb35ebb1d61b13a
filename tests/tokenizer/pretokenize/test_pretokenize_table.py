"""The pre table against llama-vocab.cpp itself: every regex string verbatim, every pre string known.

Parses the vendored llama.cpp source when it is present (skips otherwise), so a transcription
error in ``pretokenize/regexes.py`` or a missing pre string fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tui_tok.errors import UnsupportedTokenizerError
from tui_tok.tokenizer.pretokenize.table import REGEXES, SUPPORTED, pre_spec

VOCAB_CPP = Path("/work/vendor/llama.cpp/src/llama-vocab.cpp")
_C_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"', "'": "'"}


def _c_unescape(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: _C_ESCAPES[m.group(1)], s)


def _source() -> list[str]:
    if not VOCAB_CPP.is_file():
        pytest.skip(f"llama.cpp source not found at {VOCAB_CPP}")
    return VOCAB_CPP.read_text(encoding="utf-8").splitlines()


def _regex_lists_from_source() -> dict[str, tuple[str, ...]]:
    """pre_type -> regexes, read from the switch in ``llm_tokenizer_bpe``'s constructor."""
    lines = _source()
    start = next(i for i, line in enumerate(lines) if "llm_tokenizer_bpe(const llama_vocab & vocab)" in line)
    out: dict[str, tuple[str, ...]] = {}
    cases: list[str] = []
    current: list[str] = []
    for line in lines[start:]:
        stripped = line.strip()
        if m := re.match(r"case LLAMA_VOCAB_PRE_TYPE_(\w+):", stripped):
            if current:
                cases, current = [], []
            cases.append(m.group(1))
        elif stripped == "default:":
            cases, current = ["DEFAULT"], []
        elif stripped.startswith("//"):
            continue
        elif m := re.fullmatch(r'"((?:[^"\\]|\\.)*)",?\s*(?://.*)?', stripped):
            current.append(_c_unescape(m.group(1)))
        elif stripped == "break;" or stripped.startswith("std::vector<std::string> regex_exprs"):
            for case in cases:
                out[case] = tuple(current)
            cases, current = [], []
            if not stripped == "break;":
                break
    return out


def test_regex_lists_match_llama_cpp_verbatim() -> None:
    source = _regex_lists_from_source()
    assert set(source) == set(REGEXES)
    for pre_type, regexes in source.items():
        assert REGEXES[pre_type] == regexes, pre_type


def test_every_pre_string_of_llama_cpp_is_supported() -> None:
    text = "\n".join(_source())
    block = text[text.index("if (tokenizer_pre.empty())") : text.index("unknown pre-tokenizer type")]
    names = set(re.findall(r'tokenizer_pre == "([^"]+)"', block))
    assert names == set(SUPPORTED)
    for name in names:
        assert pre_spec(name).regexes


@pytest.mark.parametrize(
    ("pre", "pre_type", "flags"),
    [
        ("", "DEFAULT", {}),
        ("llama-bpe", "LLAMA3", {"ignore_merges": True, "add_bos": True}),
        ("qwen2", "QWEN2", {"clean_spaces": False}),
        ("megrez", "QWEN2", {}),
        ("glm4", "CHATGLM4", {"bos_null": True, "ignore_merges": True}),
        ("roberta-bpe", "GPT2", {"add_sep": True}),
        ("tekken", "TEKKEN", {"clean_spaces": False, "ignore_merges": True, "add_bos": True}),
        ("gemma4", "GEMMA4", {"escape_whitespaces": True, "add_bos": True, "byte_encode": False}),
        ("sarvam-moe", "SARVAM_MOE", {"escape_whitespaces": True, "clean_spaces": False, "byte_encode": False}),
        ("whitespace", "WHITESPACE", {"byte_encode": False}),
        ("chameleon", "CHAMELEON", {"add_bos": True, "clean_spaces": False}),
    ],
)
def test_flags(pre: str, pre_type: str, flags: dict[str, bool]) -> None:
    spec = pre_spec(pre)
    defaults = {
        "clean_spaces": True,
        "ignore_merges": False,
        "add_bos": False,
        "add_sep": False,
        "escape_whitespaces": False,
        "byte_encode": True,
        "bos_null": False,
    }
    assert spec.pre_type == pre_type
    for name, default in defaults.items():
        assert getattr(spec, name) == flags.get(name, default), name


def test_unknown_pre_lists_supported_values() -> None:
    with pytest.raises(UnsupportedTokenizerError) as info:
        pre_spec("no-such-pre")
    assert info.value.key == "tokenizer.ggml.pre"
    assert info.value.value == "no-such-pre"
    assert "qwen2" in info.value.supported and list(info.value.supported) == sorted(info.value.supported)
