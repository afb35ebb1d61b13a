"""Texts to compare two tokenizers on, in the manner of llama.cpp's tests/test-tokenizer-random.py.

The same families as that script: its hand-written texts and edge cases, ASCII pairs with spaces
around them, apostrophes, vocabulary words (alone and run together), random characters from a
fixed Latin set, random Unicode (assigned, non-private code points below U+30000), random
vocabulary characters, and added/special tokens with whitespace around them. Texts are short
(a few dozen words at most) so that a mismatch shrinks quickly. Everything comes from one
``random.Random(seed)``: the same seed gives the same texts.

Does not compare anything: ``compare.py`` runs both tokenizers on these texts.

>>> texts = fuzz_texts(5, seed=1, vocab=["hello", "world"], added=["<s>"])
>>> len(texts), texts == fuzz_texts(5, seed=1, vocab=["hello", "world"], added=["<s>"])
(5, True)
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable, Sequence
from functools import cache

CUSTOM = (
    "", " ", "  ", "   ", "\t", "\n", "\n\n", "\n\n\n", "\t\n", "Hello world", " Hello world", "Hello World",
    " Hello World", " Hello World!", "Hello, world!", " Hello, world!", " this is 🦙.cpp", "w048 7tuijk dsdfhu",
    "нещо на Български", "កាន់តែពិសេសអាចខលចេញ",
    "🚀 (normal) 😶‍🌫️ (multiple emojis concatenated) ✅ (only emoji that has its own token)", "Hello", " Hello",
    "  Hello", "   Hello", "    Hello", "    Hello\n    Hello", " (", "\n =", "' era",
    "Hello, y'all! How are you 😁 ?我想在apple工作1314151天～", "3", "33", "333", "3333", "33333", "333333",
    "3333333", "33333333", "333333333",
)  # fmt: skip
"""generator_custom_text()"""

EDGE_CASES = (
    "\x1f-a", "¼-a", "½-a", "¾-a", "a 〇b", "Ⅵ-a", "\ufeff//", "Cửa Việt", "<s>a", "<unk><|endoftext|><s>", "a\na",
    '"`', " \u2e4e", "\n\x0b  ", "a\xa0\xa0\x00b", "one <mask>", "a </s> b", "a <mask> b", "\xa0aC",
    "\u2029 \ua3e4", "a ?", "å", "\U000ac517", "\U000522f4", "<s><s><unk><s>a<s>b<s>c<unk>d<unk></s>",
    "<s> <s> <unk><s>a<s>b<s>c<unk>d<unk></s>",
)  # fmt: skip
"""generator_custom_text_edge_cases()"""

WHITESPACES = ("", " ", "  ", "\n", "\r\n", "\n\n", "\t", "\t\t")
WORD_SEPARATORS = tuple(" " * 20 + "\n" * 5 + "\t" * 5) + ("\r\n",) * 5
LATIN = sorted(set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyzÁÉÍÓÚÀÈÌÒÙÂÊÎÔÛÄËÏÖÜáéíóúàèìòùâêîôûäëïöü"
                   ".-,*/-+ª!\"·$%&/()=?¿[]{}<>\\|@#~½¬~;:_"))  # fmt: skip


@cache
def unicode_chars() -> tuple[str, ...]:
    """generator_unicodes(): assigned, non-surrogate, non-private code points below U+30000."""
    return tuple(chr(c) for c in range(0x30000) if unicodedata.category(chr(c)) not in ("Cn", "Cs", "Co"))


def _words(rng: random.Random, pick: Callable[[int], list[str]], n_words: int) -> str:
    out = []
    for _ in range(n_words):
        out.append("".join(pick(rng.randint(1, 7))) + rng.choice(WORD_SEPARATORS))
    return "".join(out)


def fuzz_texts(n: int, *, seed: int = 0, vocab: Sequence[str] = (), added: Sequence[str] = (),
               stored: Sequence[str] = ()) -> list[str]:  # fmt: skip
    """``n`` texts, cycling through the families (first the fixed texts, then random ones).

    ``vocab`` is the tokenizer's vocabulary as plain text, ``added`` its added/special tokens,
    ``stored`` the token texts as the file stores them (``▁▁``, ``Ġhello``): run together they find
    a token stored differently in the two files (gemma3's whitespace tokens).
    """
    rng = random.Random(seed)
    fixed = [*CUSTOM, *EDGE_CASES]
    vocab = [w for w in vocab if w.strip()] or ["hello", "world"]
    vocab_chars = sorted({ch for w in vocab for ch in w})
    stored = sorted(stored) or vocab
    tokens = sorted(set(added)) or ["<s>", "</s>"]
    separations = [" ", "\n", "\t", "-", "!", "one", "1"]

    def ascii_pair() -> str:
        c1, c2 = chr(rng.randint(1, 0x7F)), chr(rng.randint(1, 0x7F))
        lw, rw = rng.choice(WHITESPACES[:3]), rng.choice(WHITESPACES[:3])
        return rng.choice((lw + c1 + c2 + rw, lw + c1 + rw + c2, c1 + lw + c2 + rw))

    def apostrophe() -> str:
        c1, c2 = chr(rng.randint(1, 0x7F)), chr(rng.randint(1, 0x7F))
        lw, rw = rng.choice(WHITESPACES[:3]), rng.choice(WHITESPACES[:3])
        return rng.choice((c1 + lw + "'" + rw + c2, c1 + c2 + lw + "'" + rw + "z", "a" + lw + "'" + rw + c1 + c2))

    def added_lr_strip() -> str:
        tok = rng.choice(tokens)
        lw, rw = rng.choice(WHITESPACES), rng.choice(WHITESPACES)
        return rng.choice(("", "a")) + lw + tok + rw + rng.choice(("", "z"))

    def random_added() -> str:
        return "".join(rng.choices(tokens + separations, k=rng.randint(2, 12)))

    def vocab_words() -> str:
        if rng.random() < 0.3:
            return rng.choice(vocab).strip()
        parts = [
            "".join(rng.choices(vocab, k=rng.randint(1, 3))) + rng.choice("     \n\r\t")
            for _ in range(rng.randint(2, 10))
        ]
        return "".join(parts)

    def vocab_chars_text() -> str:
        return "".join(rng.choices(vocab_chars, k=rng.randint(4, 32)))

    def stored_words() -> str:
        return rng.choice(("", " ")).join(rng.choices(stored, k=rng.randint(1, 4)))

    def latin() -> str:
        return _words(rng, lambda k: rng.choices(LATIN, k=k), rng.randint(2, 12))

    def unicode_text() -> str:
        chars = unicode_chars()
        return _words(rng, lambda k: rng.choices(chars, k=k), rng.randint(1, 8))

    families = (ascii_pair, apostrophe, added_lr_strip, random_added, vocab_words, vocab_chars_text, stored_words, latin,
                unicode_text)  # fmt: skip
    texts = fixed[:n]
    k = 0
    while len(texts) < n:
        texts.append(families[k % len(families)]())
        k += 1
    return texts
