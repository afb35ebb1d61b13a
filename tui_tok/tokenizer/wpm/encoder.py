"""WordPiece (BERT) as llama.cpp runs it: normalise, cut into words, greedy longest match.

llama.cpp's ``llm_tokenizer_wpm_session`` (llama-vocab.cpp:784-897):

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

Two paths give the same ids. ``encode_fragment`` (spans, for the explorer) goes word by word,
caching each word's pieces. ``encode_fragment_ids`` (``Tokenizer.encode``) works on whole arrays,
since a Python step per word cost more than llama.cpp's whole C++ encode: words are cut on the
UTF-8 bytes (``classify.py``), plain ASCII words are looked up whole in one pass
(``table.py``), and only the others are made distinct, normalised together and walked together.

Both are equal to ``wpm/reference.py``, the algorithm written once as llama.cpp runs it
(``tests/tokenizer/test_reference.py``). Does not add [CLS]/[SEP] nor split special tokens:
``tokenizer.py`` does that.
A code point above U+10FFFF (from bytes like ``F4 90 80 80``) raises ``TokenizeError``, where
llama.cpp throws ``std::invalid_argument`` out of ``llama_tokenize``.

>>> from tui_tok.tokenizer.wpm.encoder import word_classes
>>> word_classes("Hi, 中x\\u200b!")
'kki ikdi'
"""

from __future__ import annotations

import threading
from itertools import chain

import numpy as np

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.arrays.chunks import chain_flat, chain_ids, distinct_chunks
from tui_tok.tokenizer.core.encoder import Encoder
from tui_tok.tokenizer.core.paths import AUTO, Paths
from tui_tok.tokenizer.core.spans import decode_spans, expand_pieces, utf8_offsets
from tui_tok.tokenizer.core.types import Piece, PieceArrays, piece_arrays
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.unicode.data import MAX_CODEPOINTS, flags_table, nfd_first, to_lower
from tui_tok.tokenizer.wpm.classify import (
    _DROP,
    CJK_RANGES,
    char_classes,
    class_of,
    class_table,
    classes_of,
    loose_word_spans,
    nfd_first_of,
    word_classes,
    word_spans,
    words_of,
)
from tui_tok.tokenizer.wpm.spans import fragment_arrays
from tui_tok.tokenizer.wpm.table import TokenTable

__all__ = ["CJK_RANGES", "PHANTOM_SPACE", "WpmEncoder", "class_table", "word_classes"]

PHANTOM_SPACE = "\u2581"
_PHANTOM_BYTES = PHANTOM_SPACE.encode()
_CACHE_LIMIT = 1 << 17

_word_spans = word_spans  # the name the tests use


class WpmEncoder(Encoder):
    """llama.cpp's WPM tokenizer for one vocab.

    ``encode_fragment_ids`` (what ``Tokenizer.encode`` uses) cuts valid UTF-8 into byte-range
    words, finds the distinct ones, normalises only those that are not plain ASCII, and walks
    them all at once in ``TokenTable`` (numpy). ``encode_fragment`` (spans) walks word by word,
    caching each word's pieces, with a dict of token bytes like llama.cpp's ``token_to_id``.
    """

    FRESH_IDS = True
    """``encode_fragment_ids`` returns a new list on every call (``Encoder``)."""
    TOKENIZE_FROM_ARRAYS = True
    """``Tokenizer.tokenize`` builds its tokens from ``encode_fragments_arrays``' columns (faster
    here than a tuple per piece from ``encode_fragment``; same tokens)."""

    def __init__(self, vocab: Vocab, *, paths: Paths = AUTO) -> None:
        self.vocab = vocab
        self.paths = paths
        self.unk_id = vocab.unk_id
        self.strip_accents = vocab.strip_accents
        self.lowercase = vocab.lowercase
        self._token_ids: dict[bytes, int] | None = None
        self._max_len = 0
        self._table: TokenTable | None = None
        self._tabled = False
        self._id_objects: np.ndarray | None = None
        self._lengths: np.ndarray | None = None
        self._norm: dict[int, str | None] = {}
        self._cache: dict[str, tuple[Piece, ...]] = {}
        self._build_lock = threading.Lock()
        self._ids_cache: dict[bytes, tuple[int, ...]] = {}  # per-word fallback: a word's UTF-8 bytes -> ids

    def prepare(self) -> None:
        """Build the token table and the Unicode tables now (otherwise on first use), as llama.cpp
        builds its token map at load."""
        self._token_table()
        flags_table()

    # --- tables -------------------------------------------------------------------------------

    def _token_bytes(self) -> list[bytes]:
        """Each token's bytes (``surrogateescape``: llama.cpp's bytes where not valid UTF-8)."""
        try:
            return list(map(str.encode, self.vocab.tokens))  # plain UTF-8: the fast codec
        except UnicodeEncodeError:
            return [t.encode("utf-8", "surrogateescape") for t in self.vocab.tokens]

    def _token_table(self) -> TokenTable | None:
        """The numpy table of token bytes (None when a token is too long for its keys)."""
        if not self._tabled:
            with self._build_lock:  # one build, not one per waiting thread
                if not self._tabled:
                    unique = len(self.vocab.token_to_id) == len(self.vocab.tokens)
                    raw = self._token_bytes()
                    self._table = TokenTable.build(raw, unique=unique)
                    self._lengths = np.append(np.fromiter(map(len, raw), dtype=np.int64, count=len(raw)), 0)
                    # every id as a Python int, and -1 last (an unk of a vocab without one is -1)
                    self._id_objects = np.array([*range(len(self.vocab.tokens)), -1], dtype=object)
                    self._tabled = True
        return self._table

    def _token_lengths(self) -> np.ndarray:
        """int64 byte length of every id's token, then 0 for id -1 (``wpm/spans.py``)."""
        lengths = self._lengths
        if lengths is None:
            raw = self._token_bytes()
            lengths = self._lengths = np.append(np.fromiter(map(len, raw), dtype=np.int64, count=len(raw)), 0)
        return lengths

    def _token_dict(self) -> dict[bytes, int]:
        """Token bytes -> id, the last id of equal texts winning (llama.cpp's ``token_to_id``),
        for the per-word walk; built on first use."""
        ids = self._token_ids
        if ids is None:
            with self._build_lock:
                ids = self._token_ids
                if ids is None:
                    raw = self._token_bytes()
                    self._max_len = max(map(len, raw), default=0)
                    ids = self._token_ids = dict(zip(raw, range(len(raw))))
        return ids

    # --- ids only -----------------------------------------------------------------------------

    def encode_fragments_arrays(self, fragments: list[tuple[bytes, bool]]) -> list[PieceArrays]:
        """``encode_fragment`` of each fragment as int64 columns (``Tokenizer.tokenize_arrays``):
        the spans come from the ids path's arrays (``wpm/spans.py``), not a tuple per token."""
        return [self.encode_fragment_arrays(text) for text, _ in fragments]

    def encode_fragment_arrays(self, text: bytes) -> PieceArrays:
        """``encode_fragment(text)`` as int64 columns (ids, starts, ends)."""
        if len(text) >= self.paths.wpm_arrays_from:
            got = fragment_arrays(self, text)
            if got is not None:
                return got
        return piece_arrays(self.encode_fragment(text, after_special=True))

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Tokenize one raw fragment; ``after_special`` does not matter for WPM."""
        if not text:
            return []
        cps, classes, offsets = self._classify(text)
        starts, ends = word_spans(classes)
        if len(starts) == 0:
            return []
        return expand_pieces(words_of(cps, starts, ends), starts, self._word_pieces, offsets)

    def encode_fragment_ids(self, text: bytes, *, after_special: bool = True) -> list[int]:
        """``encode_fragment``'s ids without spans. Valid UTF-8 is cut into byte-range words,
        the distinct words are found and walked together (``_distinct_ids``) and the ids
        chained back in whole arrays (``arrays/chunks.py``)."""
        if not text:
            return []
        n_chars = len(text)
        clean = True
        if not text.isascii():
            try:
                n_chars = len(text.decode("utf-8"))  # the str is dropped at once: see below
            except UnicodeDecodeError:
                clean = False
        table = self._token_table() if clean else None
        if table is None:
            return self._per_word_ids(text)
        starts, ends, ascii_drop = loose_word_spans(text, self.strip_accents)
        if len(starts) == 0:
            return []
        # (Keeping the decoded str alive through the encode made it slower in a fresh process:
        # freeing a large block early lets glibc serve the later arrays from its heap.)
        foreign = len(text) - n_chars > len(starts)  # more bytes beyond a character's first than words
        data = text.lower() if self.lowercase else text  # ASCII letters: normalising lowers them too
        # an ASCII word may hold a dropped character, or most words need normalising: every
        # word made distinct and walked
        if ascii_drop or foreign:
            occ, distinct = distinct_chunks(data, starts, ends)
            flat, sizes = self._distinct_ids(table, distinct)
            return self._as_list(chain_flat(occ, flat, sizes))
        # most words are plain ASCII and a whole token: one lookup for all of them, no bytes objects
        whole = table.whole_words(data, starts, ends, _PHANTOM_BYTES)
        miss = np.flatnonzero(whole < 0)
        if not len(miss):
            return self._as_list(whole)
        occ_miss, distinct = distinct_chunks(data, starts[miss], ends[miss])
        flat, sizes = self._distinct_ids(table, distinct)
        hit = np.flatnonzero(whole >= 0)
        occ = np.empty(len(starts), dtype=np.int64)  # a hit is its own one-id chunk
        occ[miss] = occ_miss
        occ[hit] = np.arange(len(distinct), len(distinct) + len(hit), dtype=np.int64)
        flat = np.concatenate([flat, whole[hit]])
        sizes = np.concatenate([sizes, np.ones(len(hit), dtype=np.int64)])
        return self._as_list(chain_flat(occ, flat, sizes))

    def _as_list(self, ids: np.ndarray) -> list[int]:
        """``ids.tolist()`` from the table's int objects: no new int per token."""
        objects = self._id_objects
        return ids.tolist() if objects is None else objects.take(ids).tolist()

    def _distinct_ids(self, table: TokenTable, words: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
        """All ids of ``words`` (distinct, valid UTF-8) in order, and each word's count: ``▁`` +
        each normalised word in one buffer, walked by ``TokenTable.walk_words``. A word of ASCII
        letters and digits (or one ASCII character) normalises to itself, lowercased; the
        others are normalised together (``_normalise_all``)."""
        odd = [k for k, word in enumerate(words) if not (word.isascii() and (word.isalnum() or len(word) == 1))]
        parts = words
        if odd:
            parts = list(words)
            normalised = self._normalise_all([words[k].decode("utf-8") for k in odd])
            for k, norm in zip(odd, normalised):
                parts[k] = norm.encode("utf-8", "surrogatepass")
        lens = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts)) + len(_PHANTOM_BYTES)
        buf = _PHANTOM_BYTES + _PHANTOM_BYTES.join(parts)
        if self.lowercase:
            buf = buf.lower()  # ASCII letters only; normalised words are lowercase already
        ends = np.cumsum(lens)
        return table.walk_words(buf, ends - lens, ends, unk_id=self.unk_id, tail_max=self.paths.wpm_tail_max)

    def _normalise_all(self, words: list[str]) -> list[str]:
        """Each word's characters normalised (``_normalise``): one ``str.translate`` of the words
        joined by spaces (a word holds none), after learning the new characters in one go."""
        joined = " ".join(words)
        self._learn({ord(c) for c in set(joined)}.difference(self._norm))
        return joined.translate(self._norm).split(" ")

    def _learn(self, cps: set[int] | list[int]) -> None:
        """Add these code points to ``_norm`` (cp -> its text, None if dropped): classes and
        NFD in whole arrays, then the lowercase table (a dict) per code point."""
        if not cps:
            return
        strip = self.strip_accents
        if len(cps) < 16:  # a few: numpy calls would cost more than the work
            points = list(cps)
            classes = [class_of(cp, strip) for cp in points]
            mapped = [nfd_first(cp) for cp in points] if strip else points
        else:
            arr = np.fromiter(cps, dtype=np.int64, count=len(cps))
            points = arr.tolist()
            classes = classes_of(arr, strip).tolist()
            mapped = nfd_first_of(arr).tolist() if strip else points
        lower = self.lowercase
        norm = self._norm
        for cp, cls, m in zip(points, classes, mapped):
            norm[cp] = None if cls == _DROP else chr(to_lower(m) if lower else m)

    def _per_word_ids(self, text: bytes) -> list[int]:
        """Ids word by word (``_word_ids``, cached): for invalid UTF-8, whose words are not byte
        ranges, and for a vocab with tokens too long for ``TokenTable``."""
        cps, classes, offsets, clean = self._classify_clean(text)
        starts, ends = word_spans(classes)
        if len(starts) == 0:
            return []
        if not clean:  # lenient decoding: a word's bytes are not its characters
            words = words_of(cps, starts, ends)
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
            ids = self._ids_cache[raw] = self._word_ids(raw.decode("utf-8"))
        return ids

    def _word_ids(self, word: str) -> tuple[int, ...]:
        return tuple(tid for tid, _, _ in self._encode_word(word))

    # --- word by word, with spans -------------------------------------------------------------

    def _classify(self, text: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Code points, their classes and (unless ASCII) each code point's start byte."""
        return self._classify_clean(text)[:3]

    def _classify_clean(self, text: bytes) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
        """``_classify`` and whether ``text`` is valid UTF-8 (no lenient decoding)."""
        if text.isascii():
            raw = np.frombuffer(text, dtype=np.uint8)
            return raw, char_classes(raw, self.strip_accents), None, True
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
            classes = char_classes(arr, self.strip_accents)
            return arr.astype(np.uint32), classes, np.array(offs, dtype=np.int64), False
        arr = np.frombuffer(chars.encode("utf-32-le"), dtype="<u4")
        return arr, char_classes(arr, self.strip_accents), utf8_offsets(arr), True

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
        if cp not in self._norm:
            self._learn([cp])
        return self._norm[cp]

    def _encode_word(self, word: str) -> tuple[Piece, ...]:
        """Greedy longest match of ``▁ + normalised word``; spans are character indices of ``word``.

        Most words of prose are ASCII letters and digits whose whole ``▁word`` is a token: the
        walk from offset 0 would take it. Those skip the per-character normalising and the walk
        (same answer).
        """
        if word.isascii() and word.isalnum():  # no dropped, alone or non-ASCII characters
            tid = self._token_dict().get(_PHANTOM_BYTES + (word.lower() if self.lowercase else word).encode())
            if tid is not None:
                return ((tid, 0, len(word)),)
        return self._walk_word(word)

    def _walk_word(self, word: str) -> tuple[Piece, ...]:
        """``_encode_word`` without the whole-word shortcut: normalise, then llama.cpp's walk
        (from each offset, the longest token: lengths from ``max_token_len`` down)."""
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
        get = self._token_dict().get
        longest = self._max_len
        matches: list[tuple[int, int]] = []  # (token id, end byte)
        i = 0
        while i < n:
            j = min(n, i + longest)
            while j > i:
                tid = get(data[i:j])
                if tid is not None:
                    break
                j -= 1
            else:
                return ((self.unk_id, 0, len(word)),)
            matches.append((tid, j))
            i = j
        return tuple(_char_spans(matches, kept, starts))


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
