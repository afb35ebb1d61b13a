"""WordPiece (BERT) as llama.cpp runs it (``wpm/reference.py`` states the algorithm): fast paths.

Two array paths for valid UTF-8, since a Python step per word cost more than llama.cpp's whole
C++ encode: words are cut on the UTF-8 bytes (``classify.py``), plain ASCII words are looked up
whole in one pass (``table.py``), and only the others are made distinct, normalised together
and walked together. ``encode_fragment_ids`` (``Tokenizer.encode``) chains their ids back;
``wpm/spans.py`` adds the spans (``Tokenizer.tokenize_arrays``, texts of ``Paths.wpm_arrays_from``
bytes and more). A shorter text goes word by word: each distinct word is the reference's
encode of that word, cached (numpy's fixed cost per call is more than a short text's work).
Invalid UTF-8, whose words are not byte ranges, is the reference's encode (~1.5 µs a byte).

Every path is equal to ``wpm/reference.py`` (``tests/tokenizer/test_reference.py``). Does not
add [CLS]/[SEP] nor split special tokens: ``tokenizer.py`` does that. A code point above
U+10FFFF (from bytes like ``F4 90 80 80``) raises ``TokenizeError``, where llama.cpp throws
``std::invalid_argument`` out of ``llama_tokenize``.

>>> from tui_tok.tokenizer.wpm.encoder import word_classes
>>> word_classes("Hi, 中x\\u200b!")
'kki ikdi'
"""

from __future__ import annotations

import threading

import numpy as np

from tui_tok.tokenizer.arrays.chunks import chain_flat, distinct_chunks
from tui_tok.tokenizer.core.encoder import Encoder
from tui_tok.tokenizer.core.paths import AUTO, Paths
from tui_tok.tokenizer.core.spans import expand_pieces
from tui_tok.tokenizer.core.types import Piece, PieceArrays, piece_arrays
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.unicode.data import flags_table, to_lower
from tui_tok.tokenizer.wpm.classify import _DROP, CJK_RANGES, classes_of, loose_word_spans, nfd_first_of, word_classes
from tui_tok.tokenizer.wpm.reference import ReferenceEncoder
from tui_tok.tokenizer.wpm.spans import Plan, fragment_arrays
from tui_tok.tokenizer.wpm.table import TokenTable

__all__ = ["CJK_RANGES", "PHANTOM_SPACE", "WpmEncoder", "word_classes"]

PHANTOM_SPACE = "\u2581"
_PHANTOM_BYTES = PHANTOM_SPACE.encode()
_CACHE_LIMIT = 1 << 17


class WpmEncoder(Encoder):
    """llama.cpp's WPM tokenizer for one vocab (module docstring)."""

    FRESH_IDS = True
    """``encode_fragment_ids`` returns a new list on every call (``Encoder``)."""

    def __init__(self, vocab: Vocab, *, paths: Paths = AUTO) -> None:
        self.vocab = vocab
        self.paths = paths
        self.unk_id = vocab.unk_id
        self.strip_accents = vocab.strip_accents
        self.lowercase = vocab.lowercase
        self._table: TokenTable | None = None
        self._tabled = False
        self._id_objects: np.ndarray | None = None
        self._lengths: np.ndarray | None = None
        self._norm: dict[int, str | None] = {}
        self._cache: dict[bytes, tuple[Piece, ...]] = {}
        self._build_lock = threading.Lock()
        self._reference: ReferenceEncoder | None = None

    def prepare(self) -> None:
        """Build the token table and the Unicode tables now (otherwise on first use), as llama.cpp
        builds its token map at load."""
        self._token_table()
        flags_table()

    def _token_table(self) -> TokenTable | None:
        """The numpy table of token bytes (None when a token is too long for its keys)."""
        if not self._tabled:
            with self._build_lock:  # one build, not one per waiting thread
                if not self._tabled:
                    try:  # surrogateescape: llama.cpp's bytes where a text is not valid UTF-8
                        raw = list(map(str.encode, self.vocab.tokens))  # plain UTF-8: the fast codec
                    except UnicodeEncodeError:
                        raw = [t.encode("utf-8", "surrogateescape") for t in self.vocab.tokens]
                    unique = len(self.vocab.token_to_id) == len(self.vocab.tokens)
                    self._table = TokenTable.build(raw, unique=unique)
                    # each id's byte length and its Python int, then 0 and -1 (an unk of a vocab without one)
                    self._lengths = np.append(np.fromiter(map(len, raw), dtype=np.int64, count=len(raw)), 0)
                    self._id_objects = np.array([*range(len(self.vocab.tokens)), -1], dtype=object)
                    self._tabled = True
        return self._table

    def _ref(self) -> ReferenceEncoder:
        if self._reference is None:
            self._reference = ReferenceEncoder(self.vocab)
        return self._reference

    # --- whole arrays -------------------------------------------------------------------------

    def plan(self, text: bytes) -> Plan | None:
        """The words of valid UTF-8 ``text`` and what to walk (``Plan``); None for invalid UTF-8
        or a vocab without a table. A word may hold a dropped ASCII character, or most words
        need normalising: every word is made distinct and walked; else plain ASCII words that
        are a whole token are looked up in one pass and only the others are walked."""
        n_chars = len(text)
        if not text.isascii():
            try:
                n_chars = len(text.decode("utf-8"))  # the str is dropped at once: see below
            except UnicodeDecodeError:
                return None
        table = self._token_table()
        if table is None:
            return None
        starts, ends, ascii_drop = loose_word_spans(text, self.strip_accents)
        # (Keeping the decoded str alive through the encode made it slower in a fresh process:
        # freeing a large block early lets glibc serve the later arrays from its heap.)
        foreign = len(text) - n_chars > len(starts)  # more bytes beyond a character's first than words
        data = text.lower() if self.lowercase else text  # ASCII letters: normalising lowers them too
        none = np.zeros(0, dtype=np.int64)
        if ascii_drop or foreign or not len(starts):
            occ, distinct = distinct_chunks(data, starts, ends)
            return table, starts, ends, occ, distinct, none, none
        whole = table.whole_words(data, starts, ends, _PHANTOM_BYTES)
        miss = np.flatnonzero(whole < 0)
        hit = np.flatnonzero(whole >= 0)
        occ_miss, distinct = distinct_chunks(data, starts[miss], ends[miss])
        occ = np.empty(len(starts), dtype=np.int64)  # a hit is its own one-token chunk
        occ[miss] = occ_miss
        occ[hit] = np.arange(len(distinct), len(distinct) + len(hit), dtype=np.int64)
        return table, starts, ends, occ, distinct, hit, whole[hit]

    def encode_fragment_ids(self, text: bytes, *, after_special: bool = True) -> list[int]:
        """``encode_fragment``'s ids without spans: the distinct words walked together
        (``distinct_ids``), the ids chained back in whole arrays (``arrays/chunks.py``)."""
        plan = self.plan(text) if text else None
        if plan is None:
            return [tid for tid, _, _ in self.encode_fragment(text, after_special=True)]
        table, starts, _, occ, distinct, hit, hit_ids = plan
        if not distinct:  # no word at all, or every one a whole token
            return self._as_list(hit_ids)
        flat, sizes = self.distinct_ids(table, distinct)
        flat = np.concatenate([flat, hit_ids])
        sizes = np.concatenate([sizes, np.ones(len(hit), dtype=np.int64)])
        return self._as_list(chain_flat(occ, flat, sizes))

    def _as_list(self, ids: np.ndarray) -> list[int]:
        """``ids.tolist()`` from the table's int objects: no new int per token."""
        objects = self._id_objects
        return ids.tolist() if objects is None else objects.take(ids).tolist()

    def distinct_ids(self, table: TokenTable, words: list[bytes]) -> tuple[np.ndarray, np.ndarray]:
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
        """Each word's characters normalised: one ``str.translate`` of the words joined by spaces
        (a word holds none), after learning the new characters in one go."""
        joined = " ".join(words)
        self.learn({ord(c) for c in set(joined)}.difference(self._norm))
        return joined.translate(self._norm).split(" ")

    def learn(self, cps: set[int] | list[int]) -> None:
        """Add these code points to ``_norm`` (cp -> its text, None if dropped): classes and
        NFD in whole arrays, then the lowercase table (a dict) per code point."""
        if not cps:
            return
        arr = np.fromiter(cps, dtype=np.int64, count=len(cps))
        points = arr.tolist()
        classes = classes_of(arr, self.strip_accents).tolist()
        mapped = nfd_first_of(arr).tolist() if self.strip_accents else points
        lower = self.lowercase
        norm = self._norm
        for cp, cls, m in zip(points, classes, mapped):
            norm[cp] = None if cls == _DROP else chr(to_lower(m) if lower else m)

    # --- with spans ---------------------------------------------------------------------------

    def encode_fragments_arrays(self, fragments: list[tuple[bytes, bool]]) -> list[PieceArrays]:
        """``encode_fragment`` of each fragment as int64 columns (``Tokenizer.tokenize_arrays``)."""
        return [self.encode_fragment_arrays(text) for text, _ in fragments]

    def encode_fragment_arrays(self, text: bytes) -> PieceArrays:
        """``encode_fragment(text)`` as int64 columns (ids, starts, ends): from the ids path's
        arrays (``wpm/spans.py``) from ``Paths.wpm_arrays_from`` bytes, not a tuple per token."""
        if len(text) >= self.paths.wpm_arrays_from:
            got = fragment_arrays(self, text)
            if got is not None:
                return got
        return piece_arrays(self.encode_fragment(text, after_special=True))

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Tokenize one raw fragment (``after_special`` does not matter for WPM): a long text by
        the arrays path, a short one word by word, invalid UTF-8 by the reference."""
        if len(text) >= self.paths.wpm_arrays_from:
            got = fragment_arrays(self, text)
            if got is not None:
                return list(zip(*(column.tolist() for column in got)))
        try:
            text.decode("utf-8")
        except UnicodeDecodeError:  # words that are not byte ranges: rare enough for the reference
            return self._ref().encode_fragment(text, after_special=True)
        starts, ends, _ = loose_word_spans(text, self.strip_accents)
        words = list(map(text.__getitem__, map(slice, starts.tolist(), ends.tolist())))
        return expand_pieces(words, starts, self._word_pieces)

    def _word_pieces(self, word: bytes) -> tuple[Piece, ...]:
        """The reference's pieces of one word (``loose_word_spans``: one word to it), cached."""
        pieces = self._cache.get(word)
        if pieces is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            pieces = self._cache[word] = tuple(self._ref().encode_fragment(word, after_special=True))
        return pieces
