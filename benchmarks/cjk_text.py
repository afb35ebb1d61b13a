"""Deterministic pseudo-Japanese and pseudo-Chinese text, to train and measure CJK unigram vocabularies.

No real language ships here: a seeded lexicon of made-up words (hiragana, katakana and kanji
compounds for "ja"; hanzi compounds for "zh") drawn with a Zipf law, glued by frequent particles,
with CJK punctuation, quotes, numbers and a few ASCII words, in lines of one to four sentences.
What matters for a tokenizer benchmark is what real CJK text has too: no spaces, thousands of
distinct characters, a few hundred very frequent pieces and a long tail, so a unigram vocabulary
of thousands of pieces gives the Viterbi lattice many overlapping candidates at every character.

The same ``(lang, size, seed)`` gives the same text on every machine (``random.Random`` only).
``tools/make_cjk_unigram.py`` trains on seed 1; the benchmarks measure on seed 2 (text the
vocabulary has not seen).

    python -m benchmarks cjk_text [--lang ja|zh] [--size MB] [--seed N] [--out FILE]
"""

from __future__ import annotations

import argparse
import random
import sys
from functools import cache
from pathlib import Path

LANGS = ("ja", "zh")
HIRAGANA = [chr(c) for c in range(0x3041, 0x3094)]
KATAKANA = [chr(c) for c in range(0x30A1, 0x30F7)] + ["ー"]
ASCII_WORDS = ("AI", "GPU", "OK", "Python", "Web", "CPU", "USB", "TV", "PC", "iPhone", "LLM", "API", "GGUF")
JA_PARTICLES = (
    "は",
    "が",
    "を",
    "に",
    "の",
    "で",
    "と",
    "も",
    "へ",
    "から",
    "まで",
    "より",
    "です",
    "ます",
    "でした",
    "ません",
)
JA_ENDS = ("。", "。", "。", "！", "？", "…")
ZH_PARTICLES = ("的", "了", "是", "在", "和", "也", "就", "都", "不", "有", "我们", "这个", "一个", "没有")
ZH_ENDS = ("。", "。", "。", "！", "？", "；")


def _ideographs(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct CJK unified ideographs, weighted toward the block's first half (where common ones are)."""
    picked: dict[str, None] = {}
    while len(picked) < n:
        picked[chr(0x4E00 + int(rng.random() ** 2 * 0x51FF))] = None
    return list(picked)


@cache
def _lexicon(lang: str) -> tuple[list[str], list[float]]:
    """Made-up words and their Zipf weights; fixed per language (seeded by the language alone)."""
    rng = random.Random(f"lexicon-{lang}")
    words: dict[str, None] = {}
    if lang == "ja":
        kanji = _ideographs(rng, 2000)
        while len(words) < 12_000:
            kind = rng.random()
            if kind < 0.45:
                w = "".join(rng.choice(kanji) for _ in range(rng.choice((1, 2, 2, 2, 3))))
                if rng.random() < 0.4:  # okurigana
                    w += "".join(rng.choice(HIRAGANA) for _ in range(rng.choice((1, 1, 2))))
            elif kind < 0.75:
                w = "".join(rng.choice(HIRAGANA) for _ in range(rng.choice((2, 3, 3, 4, 5))))
            else:
                w = "".join(rng.choice(KATAKANA) for _ in range(rng.choice((2, 3, 4, 5, 6))))
            words[w] = None
    else:
        hanzi = _ideographs(rng, 3500)
        while len(words) < 12_000:
            words["".join(rng.choice(hanzi) for _ in range(rng.choice((1, 1, 2, 2, 2, 2, 3, 4))))] = None
    lexicon = list(words)
    weights = [1.0 / (rank + 2.7) ** 1.07 for rank in range(len(lexicon))]
    return lexicon, weights


def _sentence(rng: random.Random, lang: str, lexicon: list[str], weights: list[float]) -> str:
    particles, ends = (JA_PARTICLES, JA_ENDS) if lang == "ja" else (ZH_PARTICLES, ZH_ENDS)
    comma = "、" if lang == "ja" else "，"
    parts: list[str] = []
    for _ in range(rng.randint(2, 7)):
        roll = rng.random()
        if roll < 0.04:
            parts.append(rng.choice(ASCII_WORDS))
        elif roll < 0.07:
            parts.append(
                str(rng.randint(1, 2030)) + rng.choice(("年", "月", "日", "人", "円" if lang == "ja" else "元", "%"))
            )
        elif roll < 0.09:
            open_, close = ("「", "」") if lang == "ja" else ("“", "”")
            parts.append(open_ + "".join(rng.choices(lexicon, weights, k=2)) + close)
        else:
            parts.extend(rng.choices(lexicon, weights, k=rng.choice((1, 1, 2))))
        parts.append(rng.choice(particles))
        if rng.random() < 0.2:
            parts.append(comma)
    return "".join(parts) + rng.choice(ends)


def cjk_text(lang: str, size: int, seed: int) -> str:
    """About ``size`` UTF-8 bytes of pseudo-``lang`` text, one to four sentences a line."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; known: {', '.join(LANGS)}")
    lexicon, weights = _lexicon(lang)
    rng = random.Random(f"{lang}-{seed}")
    lines: list[str] = []
    total = 0
    while total < size:
        line = "".join(_sentence(rng, lang, lexicon, weights) for _ in range(rng.randint(1, 4)))
        lines.append(line)
        total += len(line.encode()) + 1
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks cjk_text", description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=LANGS, default="ja")
    parser.add_argument("--size", type=float, default=0.5, help="size in MB (default 0.5)")
    parser.add_argument("--seed", type=int, default=2, help="1 is the training text; 2 (default) the measuring text")
    parser.add_argument("--out", type=Path, help="write the text to this file (else the first lines are printed)")
    args = parser.parse_args(argv)
    text = cjk_text(args.lang, int(args.size * 1_000_000), args.seed)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write("".join(text.splitlines(keepends=True)[:5]))
    print(f"{len(text.encode()):,} bytes, {len(text):,} code points, {len(set(text)):,} distinct", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
