"""BPE encode speed on ~0.5 MB of mixed text: ``python -m benchmarks pretokenize [--size MB] [vocab ...]``.

Prints, per vocab: load time, pre-tokenization MB/s, cold encode MB/s (fresh encoder, empty word
cache: every distinct word runs BPE once) and warm encode MB/s (same text again). The corpus is
built deterministically from what is on disk: English prose (../shared/seeds and docs, else
stdlib docstrings), Python code (stdlib sources) and multilingual sentences (below, plus
llama.cpp's .inp test strings when ../shared is there), interleaved.
"""

from __future__ import annotations

import argparse
import inspect
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"

MULTILINGUAL = [
    "Der schnelle braune Fuchs springt über den faulen Hund. Größere Äpfel schmecken süßer.",
    "Le cœur a ses raisons que la raison ne connaît point. Où est la bibliothèque, s'il vous plaît ?",
    "El veloz murciélago hindú comía feliz cardillo y kiwi. ¿Dónde está el baño? ¡Olé!",
    "Съешь же ещё этих мягких французских булок, да выпей чаю. Нещо на Български език.",
    "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία. Η γλώσσα μου έδωσαν ελληνική.",
    "الخط العربي هو فن وتصميم الكتابة في مختلف اللغات التي تستعمل الحروف العربية.",
    "हिन्दी भारत की राजभाषा है। यह देवनागरी लिपि में लिखी जाती है और बहुत लोग बोलते हैं।",
    "ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอนหรือวรรณยุกต์เช่นเดียวกับภาษาจีน",
    "我能吞下玻璃而不伤身体。人工智能正在改变世界，机器学习模型需要大量数据。",
    "私はガラスを食べられます。それは私を傷つけません。東京は日本の首都です。",
    "나는 유리를 먹을 수 있어요. 그래도 아프지 않아요. 한국어는 한글로 씁니다.",
    "Tiếng Việt có nhiều dấu: Cửa Việt, người Việt Nam, phở bò rất ngon.",
    "Emoji 🦙🦙 and flags 🇩🇪🇯🇵, ZWJ 😶‍🌫️ 👩‍👩‍👧, skin 👍🏽, numbers ١٢٣٤ ½ Ⅵ 1,234,567.",
    "កាន់តែពិសេសអាចខលចេញ ทดสอบ עברית זה טקסט בעברית Ελληνικά 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
]


def corpus(size: int) -> str:
    prose = _prose()
    code = _code()
    multi = list(MULTILINGUAL)
    inp = sorted(SHARED.glob("vocabs/*.inp"))
    for path in inp:
        multi += [t for t in path.read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n") if not t.isascii()]
    rng = random.Random(1234)
    parts: list[str] = []
    sizes = [0, 0, 0]  # prose, code, multilingual: a third each, by bytes
    counters = [0, 0]
    while sum(sizes) < size:
        kind = sizes.index(min(sizes))
        if kind == 2:
            piece = "\n".join(rng.choice(multi) for _ in range(40))
        else:
            source = prose if kind == 0 else code
            piece = source[counters[kind] % len(source)]
            counters[kind] += 1
        parts.append(piece)
        sizes[kind] += len(piece.encode())
    return "\n\n".join(parts)


def _prose() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(SHARED.glob("seeds/*.txt"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted(SHARED.glob("docs/*.md"))]
    if not texts:
        import collections, json, textwrap  # noqa: E401

        texts = [inspect.getdoc(obj) or "" for m in (collections, json, textwrap) for obj in vars(m).values()]
    paras = [p for t in texts for p in t.split("\n\n") if len(p) > 80]
    return [paras[i : i + 6] and "\n\n".join(paras[i : i + 6]) for i in range(0, len(paras), 6)]


def _code() -> list[str]:
    import argparse as a, json as j, textwrap as t, dataclasses as d, typing as ty, enum as e  # noqa: E401

    return [Path(inspect.getfile(m)).read_text(encoding="utf-8")[:30000] for m in (a, j, t, d, ty, e)]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks pretokenize")
    parser.add_argument("--size", type=float, default=0.5, help="corpus size in MB")
    parser.add_argument("vocabs", nargs="*", default=["qwen2", "llama-bpe", "gpt-2", "qwen35", "gemma-4"])
    args = parser.parse_args(argv)

    from tui_tok.tokenizer.bpe import BpeEncoder
    from tui_tok.tokenizer.pretokenize.split import split_words

    text = corpus(int(args.size * 1e6))
    data = text.encode()
    mb = len(data) / 1e6
    calib = min(_timed(lambda: sum(range(10**6))) for _ in range(5))
    print(f"corpus: {mb:.3f} MB, {len(text)} code points; machine: sum(range(10**6)) takes {1000 * calib:.1f} ms"
          " (about 12-15 ms on an unloaded recent x86 core: scale the figures by that ratio)")
    for name in args.vocabs:
        t0 = time.perf_counter()
        vocab = _load(name)
        if vocab is None:
            print(f"{name}: not available")
            continue
        t1 = time.perf_counter()
        enc = BpeEncoder(vocab)
        t2 = time.perf_counter()
        words = split_words(text, enc.spec.regexes)
        t3 = time.perf_counter()
        pieces = enc.encode_fragment(data, after_special=True)
        t4 = time.perf_counter()
        enc.encode_fragment(data, after_special=True)
        t5 = time.perf_counter()
        print(
            f"{name:12s} load {t1 - t0:5.2f}s  encoder {1000 * (t2 - t1):5.1f}ms  words {len(words):6d}"
            f"  split {mb / (t3 - t2):6.1f} MB/s  cold {mb / (t4 - t3):5.2f} MB/s  warm {mb / (t5 - t4):5.2f} MB/s"
            f"  tokens {len(pieces)}"
        )
    return 0


def _timed(fn) -> float:  # noqa: ANN001
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _load(name: str):  # noqa: ANN202
    from tui_tok.gguf.reader import read_gguf
    from tui_tok.tokenizer.vocab import vocab_from_metadata

    for path in (SHARED / "vocabs" / f"ggml-vocab-{name}.gguf", SHARED / "data" / f"{name}.gguf",
                 ROOT / "assets" / f"ggml-vocab-{name}.gguf", ROOT / "assets" / f"{name}.gguf"):
        if path.is_file():
            return vocab_from_metadata(read_gguf(path).metadata)
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
