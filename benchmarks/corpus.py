"""A deterministic ~0.5 MB mixed corpus for encode benchmarks, built from local files only.

Sources (no network; the same bytes on every machine with the same Python and ../shared):

- English prose: docstrings of a fixed list of stdlib modules (``inspect.getdoc``), plus the
  seed texts in ../shared/seeds when present;
- code: the first 40 kB of a fixed list of stdlib source files;
- multilingual: the non-ASCII texts of ../shared/conformance/*.jsonl and of llama.cpp's
  ``.inp`` files, plus lines generated from the sentences below with ``random.Random(2026)``.

The three kinds are interleaved in blocks, about 40 % prose, 35 % code, 25 % multilingual by bytes.

    python -m benchmarks corpus [--size MB] [--out FILE]
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import random
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

PROSE_MODULES = ("collections", "json", "textwrap", "argparse", "dataclasses", "heapq", "difflib", "pathlib",
                 "functools", "itertools", "re", "string", "statistics", "fractions", "decimal", "csv")  # fmt: skip
CODE_MODULES = ("argparse", "json.decoder", "textwrap", "dataclasses", "heapq", "difflib", "typing", "enum", "csv")

SENTENCES = (
    "Съешь же ещё этих мягких французских булок, да выпей чаю. Москва — столица России.",
    "Falsches Üben von Xylophonmusik quält jeden größeren Zwerg. Straße, Größe, Übermaß.",
    "Le cœur déçu mais l'âme plutôt naïve, Louÿs rêva de crapaüter en canoë au delà des îles.",
    "El veloz murciélago hindú comía feliz cardillo y kiwi. ¿Dónde está la biblioteca?",
    "Γαζέες καὶ μυρτιὲς δὲν θὰ βρῶ πιὰ στὸ χρυσαφὶ ξέφωτο. Ελληνικά κείμενα.",
    "نص حكيم له سر قاطع وذو شأن عظيم مكتوب على ثوب أخضر ومغلف بجلد أزرق. ١٢٣٤",
    "עטלף אבק נס דרך מזגן שהתפוצץ כי חם. זה טקסט בעברית.",
    "ऋषियों को सताने वाले दुष्ट राक्षसों के राजा रावण का सर्वनाश करने वाले विष्णुवतार भगवान श्रीराम",
    "ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอนหรือวรรณยุกต์เช่นเดียวกับภาษาจีน",
    "我能吞下玻璃而不伤身体。人工智能正在改变世界，机器学习模型需要大量数据。",
    "私はガラスを食べられます。それは私を傷つけません。東京は日本の首都です。",
    "나는 유리를 먹을 수 있어요. 그래도 아프지 않아요. 한국어는 한글로 씁니다.",
    "Tiếng Việt có nhiều dấu: Cửa Việt, người Việt Nam, phở bò rất ngon.",
    "Emoji 🦙🦙 and flags 🇩🇪🇯🇵, ZWJ 😶‍🌫️ 👩‍👩‍👧, skin 👍🏽, numbers ½ Ⅵ 1,234,567.",
    "កាន់តែពិសេសអាចខលចេញ ทดสอบ Ελληνικά 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 нещо на Български",
)


@cache
def build_corpus(size: int = 500_000) -> str:
    """About ``size`` UTF-8 bytes of interleaved prose, code and multilingual text."""
    prose, code, multi = _prose(), _code(), _multilingual()
    rng = random.Random(2026)
    shares = (0.40, 0.35, 0.25)
    done = [0, 0, 0]
    index = [0, 0]
    parts: list[str] = []
    total = 0
    while total < size:
        kind = min(range(3), key=lambda k: done[k] / shares[k])
        if kind == 2:
            block = "\n".join(rng.choice(multi) for _ in range(12))
        else:
            source = prose if kind == 0 else code
            block = source[index[kind] % len(source)]
            index[kind] += 1
        n = len(block.encode())
        parts.append(block)
        done[kind] += n
        total += n + 2
    return "\n\n".join(parts)


def _prose() -> list[str]:
    texts = []
    for name in PROSE_MODULES:
        module = importlib.import_module(name)
        for obj in [module, *vars(module).values()]:
            doc = inspect.getdoc(obj) if inspect.ismodule(obj) or inspect.isclass(obj) or callable(obj) else None
            if doc and len(doc) > 200:
                texts.append(doc)
    texts += [p.read_text(encoding="utf-8") for p in sorted(SHARED.glob("seeds/*.txt"))]
    blocks = []
    for t in dict.fromkeys(texts):  # dedupe, keep order
        blocks += [t[i : i + 2000] for i in range(0, len(t), 2000)]
    return blocks


def _code() -> list[str]:
    blocks = []
    for name in CODE_MODULES:
        source = Path(inspect.getfile(importlib.import_module(name))).read_text(encoding="utf-8")[:40_000]
        blocks += [source[i : i + 2000] for i in range(0, len(source), 2000)]
    return blocks


def _multilingual() -> list[str]:
    lines = list(SENTENCES)
    for path in sorted(SHARED.glob("conformance/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            text = json.loads(line)["text"]
            if not text.isascii() and text.strip():
                lines.append(text)
    for path in sorted(SHARED.glob("vocabs/*.inp")):
        lines += [t for t in path.read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n") if not t.isascii()]
    return list(dict.fromkeys(lines))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks corpus", description="build the benchmark corpus")
    parser.add_argument("--size", type=float, default=0.5, help="size in MB (default 0.5)")
    parser.add_argument("--out", type=Path, help="write the corpus to this file")
    args = parser.parse_args(argv)
    text = build_corpus(int(args.size * 1_000_000))
    data = text.encode()
    if args.out:
        args.out.write_bytes(data)
    ascii_share = sum(b < 0x80 for b in data) / len(data)
    print(f"corpus: {len(data):,} bytes, {len(text):,} code points, {text.count(chr(10)):,} lines, "
          f"{100 * ascii_share:.1f} % ASCII bytes", file=sys.stderr if args.out is None else sys.stdout)  # fmt: skip
    return 0
