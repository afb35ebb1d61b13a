"""WPM stated once, as llama.cpp runs it: the reference every fast WPM path is tested equal to.

``llm_tokenizer_wpm_session`` (llama-vocab.cpp:784-897) per raw fragment:

1. ``preprocess`` (V:834-877): decode leniently (one U+FFFD per bad byte); with ``strip_accents``
   every code point becomes the first code point of its NFD (``unicode_cpts_normalize_nfd``),
   and the flags below are those of that code point. Whitespace ends a word; U+0000, U+FFFD,
   category C and (with ``strip_accents``) category M vanish without ending it; a punctuation
   character, a symbol below U+007F or a CJK ideograph (``is_chinese_char``, V:879-891, with
   its 0x2B920 typo) is a word alone; anything else, lowercased if the vocab says so
   (``unicode_tolower``), is appended to the current word;
2. ``tokenize`` (V:787-831): each word becomes ``"▁" + word``; from each byte offset i the
   longest byte string ``word1[i:j]`` that is a token (j from ``i + max_token_len + 1`` down)
   is taken and the walk goes on at j; when some offset has no token, the word's tokens are
   discarded and the word is one unknown token.

Spans: a token covers the input bytes of the characters whose first byte it holds (the ``▁``
holds none; a token holding none is empty, at the end of the characters before it); an unknown
token covers its word; the characters that vanish between words are gaps.

Hooks (for ``explain``): ``on_word(WpmWord)`` before each word's walk, ``on_match(token_id, at,
end)`` per token taken (byte offsets in the ``▁``-word), ``on_unknown(at)`` where a walk finds
no token.

>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "bert",
...     "tokenizer.ggml.tokens": ["[PAD]", "[UNK]", "▁hi", "##", "▁", ",", "x"],
...     "tokenizer.ggml.unknown_token_id": 1})
>>> ReferenceEncoder(v).encode_fragment(b"Hi, xyz", after_special=True)
[(2, 0, 2), (4, 2, 2), (5, 2, 3), (1, 4, 7)]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.core.spans import decode_spans
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.unicode.data import (
    ACCENT_MARK,
    CONTROL,
    MAX_CODEPOINTS,
    PUNCTUATION,
    SYMBOL,
    WHITESPACE,
    cpt_flags,
    nfd_first,
    to_lower,
)  # fmt: skip

PHANTOM_SPACE = "\u2581".encode()

CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x04E00, 0x09FFF), (0x03400, 0x04DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0x0F900, 0x0FAFF), (0x2F800, 0x2FA1F),
)  # fmt: skip
"""llama.cpp's ``is_chinese_char`` (V:879-891): 0x2B920, not 0x2B820 (copied from HF's Rust code)."""


class WpmWord(NamedTuple):
    """One word before its walk (what ``on_word`` receives)."""

    start: int
    """Input byte of its first character."""
    end: int
    """Input byte after its last character."""
    word: str
    """Its input characters, from first to last (vanished ones inside included)."""
    text: bytes
    """``"▁" + the normalised word``: what the walk matches."""
    byte_at: tuple[int, ...]
    """For each byte of ``text``: the input byte where its character starts (``start`` for the ``▁``)."""


OnWord = Callable[[WpmWord], None]
OnMatch = Callable[[int, int, int], None]
"""``on_match(token_id, at, end)``: a token taken for ``text[at:end]``."""
OnUnknown = Callable[[int], None]
"""``on_unknown(at)``: no token starts the rest of the word at byte ``at`` of ``text``."""


class ReferenceEncoder:
    """llama.cpp's WPM for one vocab, plainly (a ``FragmentEncoder``; slow: Python per character)."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self._max_token_len = max((len(t.encode("utf-8", "surrogateescape")) for t in vocab.tokens), default=0)

    def _kind(self, cp: int) -> tuple[str, int]:
        """preprocess's outcome for one code point (V:841-870): ('space' | 'drop' | 'alone' | 'keep', the
        code point it contributes)."""
        if self.vocab.strip_accents:
            cp = nfd_first(cp)
        flags = cpt_flags(cp)
        if flags & WHITESPACE:
            return "space", cp
        if cp in (0, 0xFFFD) or flags & CONTROL or (self.vocab.strip_accents and flags & ACCENT_MARK):
            return "drop", cp
        out = to_lower(cp) if self.vocab.lowercase else cp
        if flags & PUNCTUATION or (cp < 0x7F and flags & SYMBOL) or any(lo <= cp <= hi for lo, hi in CJK_RANGES):
            return "alone", out
        return "keep", out

    def words(self, cps: list[int]) -> list[tuple[list[int], list[tuple[int, int]]]]:
        """``preprocess`` of the decoded code points: per word, the indices of its code points (first
        to last kept) and the (index, contributed code point) of its kept characters."""
        words: list[list[tuple[int, int]]] = [[]]
        for k, cp in enumerate(cps):
            kind, out = self._kind(cp)
            if kind == "space":
                if words[-1]:
                    words.append([])
            elif kind == "alone":
                if words[-1]:
                    words.append([])
                words[-1].append((k, out))
                words.append([])
            elif kind == "keep":
                words[-1].append((k, out))
        return [([w[0][0], w[-1][0]], w) for w in words if w]

    def encode_fragment(
        self, text: bytes, *, after_special: bool,
        on_word: OnWord | None = None, on_match: OnMatch | None = None, on_unknown: OnUnknown | None = None,
    ) -> list[Piece]:  # fmt: skip
        """Pieces of one raw fragment, spans in its bytes (``after_special`` does not matter for WPM)."""
        del after_special
        if not text:
            return []
        cps, offs = decode_spans(text)  # offs: each code point's first byte, then the end
        for k, cp in enumerate(cps):
            if cp >= MAX_CODEPOINTS:
                raise TokenizeError(
                    f"byte offset {offs[k]}: bytes decode to code point 0x{cp:X} above U+10FFFF; "
                    "llama.cpp's WPM tokenizer throws invalid_argument here"
                )
        t2id = self.vocab.token_to_id
        out: list[Piece] = []
        for (first_cp, last_cp), kept in self.words(cps):
            # the ▁-word, where each kept character's bytes start, and each byte's character
            word1 = bytearray(PHANTOM_SPACE)
            first_byte: list[int] = []
            byte_at = [offs[first_cp]] * len(PHANTOM_SPACE)
            for k, cp in kept:
                raw = chr(cp).encode("utf-8", "surrogatepass")
                first_byte.append(len(word1))
                word1 += raw
                byte_at += [offs[k]] * len(raw)
            start, end = offs[first_cp], offs[last_cp + 1]
            if on_word is not None:
                on_word(
                    WpmWord(start, end, "".join(map(chr, cps[first_cp : last_cp + 1])), bytes(word1), tuple(byte_at))
                )
            matches: list[tuple[int, int]] = []  # (token id, end byte)
            n = len(word1)
            i = 0
            while i < n:
                for j in range(min(n, i + self._max_token_len + 1), i, -1):
                    tid = t2id.get(bytes(word1[i:j]).decode("utf-8", "surrogateescape"))
                    if tid is not None:
                        break
                else:  # discard the word's tokens: it is one unknown token
                    if on_unknown is not None:
                        on_unknown(i)
                    matches = []
                    break
                if on_match is not None:
                    on_match(tid, i, j)
                matches.append((tid, j))
                i = j
            if not matches:
                out.append((self.vocab.unk_id, start, end))
                continue
            c = 0  # kept characters whose first byte a token holds
            for tid, j in matches:
                first = c
                while c < len(kept) and first_byte[c] < j:
                    c += 1
                if c > first:
                    out.append((tid, offs[kept[first][0]], offs[kept[c - 1][0] + 1]))
                else:
                    at = offs[kept[c - 1][0] + 1] if c else start
                    out.append((tid, at, at))
        return out
