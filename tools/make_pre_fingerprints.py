"""Print the fingerprint table of ``tui_tok/explore/lint/fingerprints.py`` from the real vocabularies.

A fingerprint is a few token texts at fixed ids and merges at fixed ranks of one family's BPE
vocabulary: fine-tunes keep them (they append tokens and never reorder merges), other families never
share them. Run from the repository root with ``../shared`` beside it; paste the output into
``FINGERPRINTS``.

    python tools/make_pre_fingerprints.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from support import SHARED  # noqa: E402
from tui_tok.gguf import read_gguf  # noqa: E402

SOURCES = (  # (file, the pre llama.cpp knows the family by, a name for people)
    ("vocabs/ggml-vocab-llama-bpe.gguf", "llama-bpe", "Llama 3"),
    ("vocabs/ggml-vocab-qwen2.gguf", "qwen2", "Qwen2/Qwen3"),
    ("vocabs/ggml-vocab-gpt-2.gguf", "gpt-2", "GPT-2"),
    ("vocabs/ggml-vocab-deepseek-llm.gguf", "deepseek-llm", "DeepSeek LLM"),
    ("vocabs/ggml-vocab-deepseek-coder.gguf", "deepseek-coder", "DeepSeek Coder"),
    ("vocabs/ggml-vocab-falcon.gguf", "falcon", "Falcon"),
    ("vocabs/ggml-vocab-command-r.gguf", "command-r", "Command-R"),
    ("vocabs/ggml-vocab-starcoder.gguf", "starcoder", "StarCoder"),
    ("vocabs/ggml-vocab-refact.gguf", "refact", "Refact"),
    ("vocabs/ggml-vocab-mpt.gguf", "mpt", "GPT-NeoX/MPT"),
    ("data/mistral-tekken-240718.gguf", "tekken", "Mistral Tekken"),
)
TOKEN_AT = (0.05, 0.15, 0.3, 0.45, 0.6, 0.75)
"""Token ids as fractions of the vocabulary: below the special tokens fine-tunes add or rename."""
MERGE_AT = (0.001, 0.05, 0.3, 0.7)


def main() -> int:
    for rel, pre, label in SOURCES:
        g = read_gguf(SHARED / rel)
        tokens, merges = g["tokenizer.ggml.tokens"], g["tokenizer.ggml.merges"]
        ids = [int(len(tokens) * f) for f in TOKEN_AT]
        ranks = [int(len(merges) * f) for f in MERGE_AT]
        print(f"    Fingerprint({pre!r}, {label!r},")
        print(f"                {tuple((i, tokens[i]) for i in ids)!r},")
        print(f"                {tuple((r, merges[r]) for r in ranks)!r}),")
    return 0


if __name__ == "__main__":
    sys.exit(main())
