"""WordPiece (BERT) as llama.cpp runs it: normalise, cut into words, greedy longest match.

llama.cpp's ``llm_tokenizer_wpm_session`` (llama-vocab.cpp:784-897, TOKENIZER-PARITY.md §4.3):

1. Decode leniently (one U+FFFD per bad byte). With ``strip_accents`` every code point is
   replaced by the *first* code point of its NFD (so accents vanish and Hangul syllables
   become their leading jamo), and all flags below are those of the replaced code point.
2. Whitespace ends a word; U+0000, U+FFFD, category C and (with ``strip_accents``) category M
   are dropped without ending the word; a P code point, an S code point below U+007F or a CJK
   ideograph (llama.cpp's ranges, including its ``0x2B920`` typo) is a word on its own.
   Everything else is lowercased with the simple table (if ``lowercase``) and appended.
3. Each word becomes ``"▁" + word``; from each byte offset the longest *byte* substring that
   is a token (of any type) is taken. If some offset has no match the whole word is one unk.

Spans: a token covers the input bytes of the characters whose first UTF-8 byte it holds
(the ``▁`` prefix holds none); dropped characters between tokens or words are gaps. An unk
covers its whole word.

Does not add [CLS]/[SEP] nor split special tokens: ``tokenizer.py`` does that.
A code point above U+10FFFF (from bytes like ``F4 90 80 80``) raises ``TokenizeError``, where
llama.cpp throws ``std::invalid_argument`` out of ``llama_tokenize``.

>>> from tui_tok.tokenizer.wpm.encoder import word_classes
>>> word_classes("Hi, 中x\\u200b!")
'kki ikdi'
"""

from __future__ import annotations

import threading
from functools import cache
from itertools import chain

import numpy as np

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.arrays.chunks import chain_ids, distinct_chunks
from tui_tok.tokenizer.core.spans import decode_spans, expand_pieces, utf8_offsets
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.unicode.data import (
    ACCENT_MARK,
    CONTROL,
    MAX_CODEPOINTS,
    PUNCTUATION,
    SYMBOL,
    WHITESPACE,
    flags_table,
    nfd_ranges,
    to_lower,
)
from tui_tok.tokenizer.core.vocab import Vocab

PHANTOM_SPACE = "\u2581"
_PHANTOM_BYTES = PHANTOM_SPACE.encode()

# One class byte per code point: the four outcomes of llama.cpp's per-cp loop.
_SPACE = ord(" ")  # whitespace: ends the word
_DROP = ord("d")  # skipped, the word goes on
_ALONE = ord("i")  # a word by itself
_KEEP = ord("k")  # appended to the current word


# llama.cpp's is_chinese_char (V:879-891): note 0x2B920, not 0x2B820 (copied from HF's Rust code).
CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x04E00, 0x09FFF),
    (0x03400, 0x04DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0x0F900, 0x0FAFF),
    (0x2F800, 0x2FA1F),
)

_CACHE_LIMIT = 1 << 17


@cache
def _nfd_first_table() -> np.ndarray:
    """int32 map cp -> first cp of its NFD for every cp (llama.cpp's unicode_cpts_normalize_nfd)."""
    table = np.arange(MAX_CODEPOINTS, dtype=np.int32)
    firsts, lasts, values = nfd_ranges()
    sizes = (lasts - firsts + 1).astype(np.int64)
    if sizes.size:
        where = np.repeat(firsts.astype(np.int64) - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
        table[where] = np.repeat(values.astype(np.int32), sizes)  # later ranges win, as the loop did
    return table


@cache
def class_table(strip_accents: bool) -> np.ndarray:
    """uint8 class (space/drop/alone/keep) of every code point, vectorised from the flags table
    (narrow integer types and one gather per table: ~10 ms rather than ~50 ms at load)."""
    mapped = _nfd_first_table() if strip_accents else None
    flags = flags_table() if mapped is None else flags_table()[mapped]
    cjk_cp = np.zeros(MAX_CODEPOINTS, dtype=bool)
    for lo, hi in CJK_RANGES:
        cjk_cp[lo : hi + 1] = True
    cjk = cjk_cp if mapped is None else cjk_cp[mapped]
    ident = np.arange(MAX_CODEPOINTS, dtype=np.int32) if mapped is None else mapped
    drop = (ident == 0) | (ident == 0xFFFD) | ((flags & CONTROL) != 0)
    if strip_accents:
        drop |= (flags & ACCENT_MARK) != 0
    symbol_low = (flags & SYMBOL) != 0
    symbol_low[0x7F:] = False if mapped is None else symbol_low[0x7F:] & (ident[0x7F:] < 0x7F)
    alone = ((flags & PUNCTUATION) != 0) | symbol_low | cjk
    out = np.full(MAX_CODEPOINTS, _KEEP, dtype=np.uint8)
    out[alone] = _ALONE
    out[drop] = _DROP
    out[(flags & WHITESPACE) != 0] = _SPACE
    return out


@cache
def _ascii_classes(strip_accents: bool) -> bytes:
    """``bytes.translate`` table for pure-ASCII input (bytes >= 0x80 never reach it)."""
    return class_table(strip_accents)[:256].tobytes()


def word_classes(text: str, *, strip_accents: bool = True) -> str:
    """One class letter per character: ' ' space, 'd' dropped, 'i' alone, 'k' kept (for tests/UI)."""
    cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    return class_table(strip_accents)[cps].tobytes().decode("ascii")


class WpmEncoder:
    """llama.cpp's WPM tokenizer for one vocab; implements ``FragmentEncoder``.

    Results are cached per word (the original characters), which is what makes prose fast.
    """

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self.unk_id = vocab.unk_id
        self.strip_accents = vocab.strip_accents
        self.lowercase = vocab.lowercase
        self._classes = class_table(vocab.strip_accents)
        self._ascii_classes = _ascii_classes(vocab.strip_accents)
        self._prefixes: dict[bytes, int] | None = None
        self._norm: dict[int, str | None] = {}
        self._cache: dict[str, tuple[Piece, ...]] = {}
        self._build_lock = threading.Lock()
        self._ids_cache: dict[bytes, tuple[int, ...]] = {}  # a word's UTF-8 bytes -> its ids

    def prepare(self) -> None:
        """Build the prefix table now (otherwise on first use), as llama.cpp builds its at load."""
        self._prefix_table()

    def _prefix_table(self) -> dict[bytes, int]:
        """Every prefix of every token's bytes -> its id, or -1 if only a prefix.

        Walking it from an offset finds the longest token there, which is what llama.cpp's
        downward scan from ``max_token_len`` finds first.
        """
        table = self._prefixes
        if table is None:
            with self._build_lock:  # one build, not one per waiting thread
                table = self._prefixes
                if table is None:
                    table = {}
                    for tid, text in enumerate(self.vocab.tokens):
                        raw = text.encode("utf-8", "surrogateescape")
                        for k in range(1, len(raw)):
                            table.setdefault(raw[:k], -1)
                        table[raw] = tid  # llama.cpp's token_to_id: the last id with this text wins
                    self._prefixes = table
        return table

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Tokenize one raw fragment; ``after_special`` does not matter for WPM."""
        if not text:
            return []
        cps, classes, offsets = self._classify(text)
        starts, ends = _word_spans(classes)
        if len(starts) == 0:
            return []
        return expand_pieces(_words(cps, starts, ends), starts, self._word_pieces, offsets)

    def encode_fragment_ids(self, text: bytes, *, after_special: bool = True) -> list[int]:
        """``encode_fragment``'s ids without spans. For valid UTF-8 the words are byte ranges of
        ``text``: the distinct ones are found and the ids chained in whole arrays
        (``arrays/chunks.py``), and only distinct words become strings (cached by their bytes)."""
        if not text:
            return []
        cps, classes, offsets, clean = self._classify_clean(text)
        starts, ends = _word_spans(classes)
        if len(starts) == 0:
            return []
        if not clean:  # lenient decoding: a word's bytes are not its characters
            words = _words(cps, starts, ends)
            ids_of: dict[str, tuple[int, ...]] = dict.fromkeys(words, ())
            for word in ids_of:
                ids_of[word] = self._word_ids(word)
            return list(chain.from_iterable(map(ids_of.__getitem__, words)))
        if offsets is not None:
            starts, ends = offsets[starts], offsets[ends]
        occ, distinct = distinct_chunks(text, starts, ends)
        return chain_ids(occ, list(map(self._raw_word_ids, distinct)))

    def _raw_word_ids(self, raw: bytes) -> tuple[int, ...]:
        ids = self._ids_cache.get(raw)
        if ids is None:
            if len(self._ids_cache) >= _CACHE_LIMIT:
                self._ids_cache.clear()
            if raw.isalnum() and raw.isascii():
                ids = self._ascii_word_ids(raw)
            else:
                ids = self._word_ids(raw.decode("utf-8"))
            self._ids_cache[raw] = ids
        return ids

    def _ascii_word_ids(self, word: bytes) -> tuple[int, ...]:
        """``_word_ids`` of a word of ASCII letters and digits (normalising is lowercasing, no
        spans to keep): the walk on the bytes, trying the rest of the word whole first."""
        data = _PHANTOM_BYTES + (word.lower() if self.lowercase else word)
        prefixes = self._prefix_table()
        get = prefixes.get
        out: list[int] = []
        n = len(data)
        i = 0
        while i < n:
            rest = get(data[i:])
            if rest is not None and rest >= 0:
                out.append(rest)
                break
            best, best_end = -1, i
            j = i + 1
            while j < n:  # the whole rest is no token: shorter ones, upwards while prefixes
                tid = get(data[i:j])
                if tid is None:
                    break
                if tid >= 0:
                    best, best_end = tid, j
                j += 1
            if best < 0:
                return (self.unk_id,)
            out.append(best)
            i = best_end
        return tuple(out)

    def _word_ids(self, word: str) -> tuple[int, ...]:
        return tuple(tid for tid, _, _ in self._encode_word(word))

    def _classify(self, text: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Code points, their classes and (unless ASCII) each code point's start byte."""
        return self._classify_clean(text)[:3]

    def _classify_clean(self, text: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
        """``_classify`` and whether ``text`` is valid UTF-8 (no lenient decoding)."""
        if text.isascii():
            classes = np.frombuffer(text.translate(self._ascii_classes), dtype=np.uint8)
            return np.frombuffer(text, dtype=np.uint8), classes, None, True
        try:
            chars = text.decode("utf-8")
        except UnicodeDecodeError:
            cps, offs = decode_spans(text)
            arr = np.array(cps, dtype=np.int64)
            if int(arr.max()) >= MAX_CODEPOINTS:
                bad = int(np.argmax(arr >= MAX_CODEPOINTS))
                raise TokenizeError(
                    f"byte offset {offs[bad]}: bytes decode to code point 0x{cps[bad]:X} above U+10FFFF; "
                    "llama.cpp's WPM tokenizer throws invalid_argument here"
                ) from None
            return arr.astype(np.uint32), self._classes[arr], np.array(offs, dtype=np.int64), False
        arr = np.frombuffer(chars.encode("utf-32-le"), dtype="<u4")
        return arr, self._classes[arr], utf8_offsets(arr), True

    def _word_pieces(self, word: str) -> tuple[Piece, ...]:
        pieces = self._cache.get(word)
        if pieces is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            pieces = self._cache[word] = self._encode_word(word)
        return pieces

    def _normalise(self, ch: str) -> str | None:
        """The text a kept character contributes, or None if it is dropped."""
        cp = ord(ch)
        got = self._norm.get(cp, "")
        if got != "":
            return got
        cls = int(self._classes[cp])
        if cls == _DROP:
            res: str | None = None
        else:
            mapped = int(_nfd_first_table()[cp]) if self.strip_accents else cp
            res = chr(to_lower(mapped) if self.lowercase else mapped)
        self._norm[cp] = res
        return res

    def _encode_word(self, word: str) -> tuple[Piece, ...]:
        """Greedy longest match of ``▁ + normalised word``; spans are character indices of ``word``.

        Most words of prose are ASCII letters and digits whose whole ``▁word`` is a token: every
        prefix of a token is in the prefix table, so the walk from offset 0 reaches the end and
        takes it. Those skip the per-character normalising and the walk (same answer).
        """
        if word.isascii() and word.isalnum():  # no dropped, alone or non-ASCII characters
            tid = self._prefix_table().get(_PHANTOM_BYTES + (word.lower() if self.lowercase else word).encode())
            if tid is not None and tid >= 0:
                return ((tid, 0, len(word)),)
        return self._walk_word(word)

    def _walk_word(self, word: str) -> tuple[Piece, ...]:
        """``_encode_word`` without the whole-word shortcut: normalise, then llama.cpp's walk."""
        kept: list[int] = []  # index in word of each kept character
        starts: list[int] = []  # its first byte in the ▁-prefixed bytes
        parts: list[bytes] = [_PHANTOM_BYTES]
        pos = len(_PHANTOM_BYTES)
        for idx, ch in enumerate(word):
            norm = self._normalise(ch)
            if norm is None:
                continue
            enc = norm.encode("utf-8", "surrogatepass")
            kept.append(idx)
            starts.append(pos)
            parts.append(enc)
            pos += len(enc)
        data = b"".join(parts)
        n = len(data)
        prefixes = self._prefix_table()
        matches: list[tuple[int, int]] = []  # (token id, end byte)
        i = 0
        while i < n:
            best = -1
            best_end = i
            j = i + 1
            while j <= n:
                tid = prefixes.get(data[i:j])
                if tid is None:
                    break
                if tid >= 0:
                    best, best_end = tid, j
                j += 1
            if best < 0:
                return ((self.unk_id, 0, len(word)),)
            matches.append((best, best_end))
            i = best_end
        return tuple(_char_spans(matches, kept, starts))


def _word_spans(classes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end character of every word: each 'alone' char, and each run of kept chars
    that only dropped chars interrupt (from its first kept char to its last)."""
    drop = classes == _DROP
    nd = np.flatnonzero(~drop) if drop.any() else None  # text without dropped chars: no gather
    cc = classes if nd is None else classes[nd]
    kept = cc == _KEEP
    alone = cc == _ALONE
    first = alone.copy()
    last = alone.copy()
    if len(kept):
        first[0] |= kept[0]
        last[-1] |= kept[-1]
        edge = kept[1:] != kept[:-1]  # a kept run begins or ends between these two
        first[1:] |= kept[1:] & edge
        last[:-1] |= kept[:-1] & edge
    starts = np.flatnonzero(first)
    ends = np.flatnonzero(last) + 1
    if nd is not None:
        starts, ends = nd[starts], nd[ends - 1] + 1
    return starts, ends


def _words(cps: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> list[str]:
    """The words as strings, built in one pass: join them with ' ' (never inside a word) and split."""
    slots = ends - starts + 1  # the word's characters, then a separator
    total = int(slots.sum())
    within = np.arange(total) - np.repeat(np.cumsum(slots) - slots, slots)
    idx = np.repeat(starts, slots) + within
    idx[np.cumsum(slots) - 1] = len(cps)  # separator slot -> the appended ' '
    out = np.append(cps, np.array([ord(" ")], dtype=cps.dtype))[idx]
    if cps.dtype == np.uint8:
        joined = out.tobytes().decode("ascii")
    else:
        joined = out.astype("<u4").tobytes().decode("utf-32-le", "surrogatepass")
    return joined.split(" ")[:-1]


def _char_spans(matches: list[tuple[int, int]], kept: list[int], starts: list[int]) -> list[Piece]:
    """Give each token the kept characters whose first byte it holds (character indices)."""
    pieces: list[Piece] = []
    k = 0
    nk = len(kept)
    for tid, end in matches:
        first = k
        while k < nk and starts[k] < end:
            k += 1
        if k > first:
            pieces.append((tid, kept[first], kept[k - 1] + 1))
        else:
            at = kept[k - 1] + 1 if k else 0
            pieces.append((tid, at, at))
    return pieces
