"""BPE stated once, as llama.cpp runs it: the reference every fast BPE path is tested equal to.

``llm_tokenizer_bpe_session::tokenize`` (llama-vocab.cpp:619-739), word by word:

1. the fragment's ' ' become U+2581 when the vocab escapes whitespace (``llama_vocab::impl::tokenize``,
   V:3506-3508); the text is decoded leniently and cut into words by the pre's regexes
   (``unicode_regex_split``: ``pretokenize/split.py``, itself tested against ``pretokenize/reference.py``);
   each word is its UTF-8, byte-mapped (GPT-2's map) unless the pre works on raw UTF-8;
2. a word that is a token is taken whole under ``ignore_merges`` (V:634-636); so is gemma4's
   all-newline word (V:637-643);
3. otherwise one symbol per UTF-8 character, cut by lead byte (V:646-656); every adjacent pair
   ``(left, right)`` with a rank in ``bpe_ranks`` goes into a priority queue, lowest rank first,
   ties to the lowest left index (``llm_bigram_bpe::comparator``, V:265-268; ``add_new_bigram``,
   V:742-766); popping a pair merges the right symbol into the left one and queues the new pairs
   on both sides (V:661-689);
4. each final symbol is its token, or one token per byte (``unicode_byte_to_utf8`` spelling for
   byte-level vocabs, ``<0xHH>`` otherwise); a byte with no token is dropped (V:705-738).

``bpe_ranks`` is built as llama.cpp loads it (V:2016-2028; gemma4: V:2126-2138): each merge
string is cut at its first ' ' searched from byte 1, and the first occurrence of a pair keeps its
rank (``emplace``).

**Staleness (the one argument every merge loop of this project rests on).** A queued pair can be
out of date when it is popped: one of its symbols was merged away, or grew. llama.cpp skips it when
a side is empty or ``left + right`` is no longer the queued text (V:668-675; SPM: ``n == 0`` or the
sizes no longer add up, V:147-151). These tests are all equivalent because *a symbol only grows to
its right*: a merge appends the right symbol to the left one and empties the right one; a symbol's
start never moves and a live symbol's ``next`` changes only when it absorbs that neighbour. So, with
both sides still live, ``left.next == right`` still holds, and ``left`` and ``right`` are unchanged
exactly when their sizes are: an unchanged size means unchanged text. Hence "both live and sizes
sum to the queued size" == "both live and the texts equal the queued text" == "both live, adjacent,
and each the same identity/size as when queued". ``bpe/encoder.py`` (list scan),
``spm/reference.py`` and ``batch/merge.py`` each use one of these forms and point here.

Spans: every token keeps the byte span of the input it came from. A symbol covers the input bytes
of its characters (one per byte-mapped character, or its UTF-8 bytes); a byte token of a
byte-mapped character's continuation byte covers nothing; decoding and the escape change byte
lengths, and the offset map of ``pretokenize/offsets.py`` carries spans back.

Hooks (for ``explain``): ``on_merge(left, right, rank, left_index, right_index)`` for each applied
merge, the indices being llama.cpp's symbol indices in the word (``llm_bigram_bpe::left/right``);
``on_word(BpeWord)`` after each word.
Models ``whitespace`` and ``hybriddna`` wrap this per-word loop (``bpe/models.py``, V:1653-1757).

>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt-2",
...     "tokenizer.ggml.tokens": ["h", "i", "hi", "Ġ", "Ġhi"], "tokenizer.ggml.merges": ["h i", "Ġ hi"]})
>>> ReferenceEncoder(v).encode_fragment(b"hi hi", after_special=True)
[(2, 0, 2), (4, 2, 5)]
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from typing import NamedTuple

from tui_tok.tokenizer.bpe.models import encode_hybriddna, encode_whitespace
from tui_tok.tokenizer.core.byte_level import byte_encode
from tui_tok.tokenizer.core.spans import utf8_symbols
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.pretokenize.offsets import decode
from tui_tok.tokenizer.pretokenize.split import split_words
from tui_tok.tokenizer.pretokenize.table import pre_spec

OnMerge = Callable[[str, str, int, int, int], None]
"""``on_merge(left, right, rank, left_index, right_index)``: one applied merge, in llama.cpp's order."""


class BpeWord(NamedTuple):
    """One word as the reference encoded it (what ``on_word`` receives)."""

    start: int
    """Input byte where the word starts (relative to the fragment)."""
    end: int
    """Input byte where it ends."""
    text: str
    """The word in vocab spelling (byte-mapped for byte-level BPE)."""
    symbols: tuple[str, ...]
    """Initial symbols (one per character), or the whole word when a shortcut took it."""
    final: tuple[str, ...]
    """Symbols after the last merge."""
    shortcut: str
    """Why the word was taken whole ('' when it was merged)."""
    ids: tuple[int, ...]
    """Its tokens (bytes with no token dropped, as llama.cpp drops them)."""


OnWord = Callable[[BpeWord], None]


def _text(raw: bytes) -> str:
    """A byte string as a vocab key (vocab texts keep bad UTF-8 with ``surrogateescape``)."""
    return raw.decode("utf-8", "surrogateescape")


class ReferenceEncoder:
    """llama.cpp's BPE for one vocab, plainly (a ``FragmentEncoder``; slow: a Python heap per word)."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self.spec = pre_spec("gemma4" if vocab.model == "gemma4" else vocab.pre)
        self._token_to_id = vocab.token_to_id
        self._ranks: dict[tuple[bytes, bytes], int] | None = None

    def bpe_ranks(self) -> dict[tuple[bytes, bytes], int]:
        """(left, right) bytes -> rank, as llama.cpp builds ``bpe_ranks`` (V:2016-2028)."""
        if self._ranks is None:
            ranks: dict[tuple[bytes, bytes], int] = {}
            for i, merge in enumerate(self.vocab.merges):
                raw = merge.encode("utf-8", "surrogateescape")
                pos = raw.find(b" ", 1)
                ranks.setdefault((raw[:pos], raw[pos + 1 :]) if pos >= 0 else (b"", b""), i)
            self._ranks = ranks
        return self._ranks

    def encode_fragment(
        self, text: bytes, *, after_special: bool, on_merge: OnMerge | None = None, on_word: OnWord | None = None
    ) -> list[Piece]:
        """Tokens of one raw fragment with byte spans relative to it (``after_special`` is unused
        by BPE). The hooks are not called for models ``whitespace`` and ``hybriddna``."""
        del after_special
        if not text:
            return []
        if self.vocab.model == "hybriddna":
            return encode_hybriddna(self, text)
        if self.vocab.model == "whitespace":
            return encode_whitespace(self, text)
        return self._encode_raw(text, on_merge, on_word)

    # the two entry points ``bpe/models.py`` wraps (its ``PlainBpe``)

    def _encode_raw(self, data: bytes, on_merge: OnMerge | None = None, on_word: OnWord | None = None) -> list[Piece]:
        text, omap = decode(data, escape=self.vocab.escape_whitespaces)
        m = omap.tolist() if omap is not None else None
        return self._encode_text(text, on_merge, on_word, m)

    def _encode_text(
        self, text: str, on_merge: OnMerge | None = None, on_word: OnWord | None = None, omap: list[int] | None = None
    ) -> list[Piece]:
        """Tokens of decoded text; spans in bytes of its UTF-8 re-encoding, or through ``omap``."""
        out: list[Piece] = []
        pos = 0  # byte offset in the re-encoded text
        for word in split_words(text, self.spec.regexes) if text else []:
            raw = word.encode("utf-8", "surrogatepass")  # llama.cpp re-encodes surrogates as 3 bytes
            if not raw:
                continue
            spelled = byte_encode(raw).encode() if self.spec.byte_encode else raw
            symbols, final, shortcut = self.merge_word(spelled, on_merge)
            start = pos
            word_pieces: list[Piece] = []
            for sym in final:
                for tid, size in self.symbol_tokens(sym):
                    word_pieces.append((tid, pos, pos + size))
                    pos += size
            if omap is not None:
                word_pieces = [(tid, omap[a], omap[b]) for tid, a, b in word_pieces]
            kept = [p for p in word_pieces if p[0] >= 0]
            out += kept
            if on_word is not None:
                a, b = (omap[start], omap[pos]) if omap is not None else (start, pos)
                on_word(BpeWord(a, b, _text(spelled), tuple(map(_text, symbols)), tuple(map(_text, final)),
                                shortcut, tuple(p[0] for p in kept)))  # fmt: skip
        return out

    def merge_word(self, word: bytes, on_merge: OnMerge | None = None) -> tuple[list[bytes], list[bytes], str]:
        """(initial symbols, final symbols, shortcut) of one word in vocab spelling (V:625-702)."""
        t2id = self._token_to_id
        if self.vocab.ignore_merges and _text(word) in t2id:
            return [word], [word], "ignore_merges: the whole word is a token"
        if self.spec.pre_type == "GEMMA4" and not word.strip(b"\n") and _text(word) in t2id:
            return [word], [word], "gemma4: a newline run that is a token"
        # llm_symbol: start offset (never moves), size n, prev, next
        starts, size, prev, nxt = utf8_symbols(word)
        n = len(starts)
        initial = [word[a : a + k] for a, k in zip(starts, size)]
        ranks = self.bpe_ranks()
        queue: list[tuple[int, int, int, bytes]] = []  # (rank, left, right, text): lowest rank, then left

        def add_new_bigram(left: int, right: int) -> None:  # V:742-766
            if left == -1 or right == -1:
                return
            lt = word[starts[left] : starts[left] + size[left]]
            rt = word[starts[right] : starts[right] + size[right]]
            rank = ranks.get((lt, rt))
            if rank is not None:
                heapq.heappush(queue, (rank, left, right, lt + rt))

        for i in range(1, n):
            add_new_bigram(i - 1, i)
        while queue:
            rank, left, right, text = heapq.heappop(queue)
            if size[left] == 0 or size[right] == 0:
                continue
            lt = word[starts[left] : starts[left] + size[left]]
            rt = word[starts[right] : starts[right] + size[right]]
            if lt + rt != text:
                continue  # outdated (see the staleness argument above)
            size[left] += size[right]  # merge the right symbol into the left one
            size[right] = 0
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            if on_merge is not None:
                on_merge(_text(lt), _text(rt), rank, left, right)
            add_new_bigram(prev[left], left)
            add_new_bigram(left, nxt[left])
        final = [word[a : a + k] for a, k in zip(starts, size) if k]
        return initial, final, ""

    def symbol_tokens(self, sym: bytes) -> list[tuple[int, int]]:
        """(id, input bytes covered) of one final symbol: its token, else one per byte (V:705-738);
        id -1 for a byte with no token (dropped by the caller, as llama.cpp drops it)."""
        t2id = self._token_to_id
        byte_level = self.spec.byte_encode
        tid = t2id.get(_text(sym))
        if tid is not None:
            return [(tid, len(_text(sym)) if byte_level else len(sym))]  # a mapped character is 1 input byte
        out = []
        for b in sym:
            if byte_level:  # the byte as a 1-byte string; a continuation byte stands for no input byte
                out.append((t2id.get(_text(bytes((b,))), -1), 0 if 0x80 <= b < 0xC0 else 1))
            else:
                out.append((t2id.get(f"<0x{b:02X}>", -1), 1))
        return out
