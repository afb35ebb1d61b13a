"""Record llama.cpp's ids for the CJK unigram vocabularies into ``tests/fixtures/cjk_unigram_ids.jsonl`` (one row a line: vocab, text, ids).

Run with a Python that has llama-cpp-python (0.3.36 recorded the file); the tests read the
fixture and never need llama_cpp. Texts: hand-picked edge cases (NFKC-changed full- and
half-width forms, spaces, newlines, unknown characters, ASCII inside CJK), lines of
``benchmarks/cjk_text.py`` (seed 3, not the training text) and one 20 KB text, long enough to
take the whole-text ids path (``Paths.ugm_whole_from``, ``tokenizer/core/paths.py``).

    /path/to/llama-venv/bin/python tools/record_cjk_ids.py
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import llama_cpp as L  # noqa: E402

from benchmarks.cjk_text import cjk_text  # noqa: E402

VOCABS = {"ja": "ja-unigram-8000", "zh": "zh-unigram-8000"}
EDGES = (
    "私はガラスを食べられます。それは私を傷つけません。",
    "我能吞下玻璃而不伤身体。人工智能正在改变世界，机器学习模型需要大量数据。",
    "ﾊﾝｶｸｶﾀｶﾅ と ＦＵＬＬＷＩＤＴＨ　ＡＳＣＩＩ、①②③ ㈱ ㌔",
    "  先頭の空白   と\t\tタブ\n改行\n\n二つ  ",
    "東京2026年GPUで、Python 3.11を使う。",
    "「引用」『二重』（括弧）【隅付き】…‥〜",
    "한국어 문장도 섞여 있습니다. Ελληνικά 🦙 emoji",
    "ー",
    "。",
    " ",
    "\n",
    "a",
    "ａ",
)


def main() -> int:
    quiet = L.llama_log_callback(lambda *a: None)
    L.llama_log_set(quiet, ctypes.c_void_p(0))
    L.llama_backend_init()
    rows: list[str] = []
    for lang, name in VOCABS.items():
        params = L.llama_model_default_params()
        params.vocab_only = True
        model = L.llama_model_load_from_file(str(ROOT / "benchmarks" / "data" / f"{name}.gguf").encode(), params)
        vocab = L.llama_model_get_vocab(model)
        lines = cjk_text(lang, 3000, seed=3).splitlines()[:12]
        texts = [*EDGES, *lines, cjk_text(lang, 20_000, seed=4)]
        for text in texts:
            data = text.encode()
            cap = len(data) + 16
            buf = (L.llama_token * cap)()
            n = L.llama_tokenize(vocab, data, len(data), buf, cap, False, False)
            rows.append(json.dumps({"vocab": name, "text": text, "ids": list(buf[:n])}, ensure_ascii=False))
        L.llama_model_free(model)
    path = ROOT / "tests" / "fixtures" / "cjk_unigram_ids.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"{path}: {path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
