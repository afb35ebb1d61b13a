"""SPM stated once, as llama.cpp runs it: the reference every fast SPM path is tested equal to.

Per raw fragment (``llama_vocab::impl::tokenize``, llama-vocab.cpp:3433-3483, then
``llm_tokenizer_spm_session::tokenize``, V:118-175):

1. prepend ' ' when ``add_space_prefix`` and the fragment is the first one or follows a special
   token (V:3453-3455); every ' ' becomes U+2581 ``▁`` (``llama_escape_whitespace``, V:3390);
2. one symbol per UTF-8 character, cut by the lead byte's announced length without validation
   (``unicode_len_utf8``: a bad lead byte may swallow the bytes after it) (V:119-132);
3. every adjacent pair whose concatenation is a token (of any type) goes into a priority queue,
   highest score first, ties to the lowest left index (``llm_bigram_spm::comparator``, V:98-102;
   ``try_add_bigram``, V:203-230); popping a pair merges the right symbol into the left one and
   queues the pairs on both sides (V:139-169). A popped pair is stale when a side is empty or
   the sizes no longer add up (V:147-151): equivalent to every other staleness test of this
   project because a symbol only grows to its right (the argument is written once, in
   ``bpe/reference.py``);
4. ``resegment`` (V:177-201): a final symbol that is a token is its id; else, if the text was
   ever queued as a pair (``rev_merge``), its two halves are resegmented; else each byte becomes
   ``byte_to_token``: ``<0xHH>``, else the 1-byte token (a C string: byte 0 is the empty text),
   else llama.cpp throws (V:4001-4015; here ``TokenizeError``). A final symbol that is no token
   was never merged (merges only make tokens), so ``rev_merge`` cannot hold its text: the branch
   is kept because llama.cpp has it.

Spans map to input bytes: a ▁ made from a space covers that 1 byte (a byte-fallback run for it
gives the byte to its first token); the inserted prefix space covers nothing (the first token
starts at 0 with no extra width).

Hooks (for ``explain``): ``on_merge(left, right, score, left_index, right_index)`` for each applied
merge, the indices being llama.cpp's symbol indices (``llm_bigram_spm::left/right``);
``on_symbols(initial, final)`` once, with the symbols before and after merging (vocab spelling).

>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "llama",
...     "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "▁", "h", "i", "▁h", "▁hi"],
...     "tokenizer.ggml.scores": [0, 0, 0, -1, -2, -3, -4, -5]})
>>> ReferenceEncoder(v).encode_fragment(b"hi hi", after_special=True)
[(7, 0, 2), (7, 2, 5)]
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.core.spans import utf8_symbols
from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab

ESC = "\u2581".encode()

OnMerge = Callable[[str, str, float, int, int], None]
"""``on_merge(left, right, score, left_index, right_index)``: one applied merge, in llama.cpp's order."""
OnSymbols = Callable[[tuple[str, ...], tuple[str, ...]], None]
"""``on_symbols(initial, final)``: the fragment's symbols before and after merging."""


def _text(raw: bytes) -> str:
    """A byte string as a vocab key (vocab texts keep bad UTF-8 with ``surrogateescape``)."""
    return raw.decode("utf-8", "surrogateescape")


class ReferenceEncoder:
    """llama.cpp's SPM for one vocab, plainly (a ``FragmentEncoder``; slow: one Python heap per fragment)."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self._t2id = vocab.token_to_id
        self._scores: list[float] = vocab.scores.tolist()

    def score(self, token_id: int) -> float:
        return self._scores[token_id]

    def byte_to_token(self, byte: int) -> int:
        """``llama_vocab::byte_to_token`` for SPM (V:4005-4015)."""
        tid = self._t2id.get(f"<0x{byte:02X}>")
        if tid is None:
            tid = self._t2id.get(_text(bytes((byte,))) if byte else "")  # buf2 is a C string
        if tid is None:
            raise TokenizeError(
                f"byte 0x{byte:02X} has no token: the vocab has neither <0x{byte:02X}> nor a 1-byte token "
                "for it (llama.cpp throws std::out_of_range here)"
            )
        return tid

    def encode_fragment(
        self, text: bytes, *, after_special: bool, on_merge: OnMerge | None = None, on_symbols: OnSymbols | None = None
    ) -> list[Piece]:
        """Pieces of one raw fragment; offsets are bytes of ``text``."""
        prefix = self.vocab.add_space_prefix and after_special
        data = b" " + text if prefix else text
        esc = data.replace(b" ", ESC)
        # input span of each escaped byte: a ▁ from a space covers it with its first byte;
        # the prefix space covers nothing
        span: list[tuple[int, int]] = []
        shift = -1 if prefix else 0
        for i, byte in enumerate(data):
            a, b = max(i + shift, 0), max(i + 1 + shift, 0)
            span += [(a, b), (b, b), (b, b)] if byte == 0x20 else [(a, b)]
        if not esc:
            return []
        # llm_symbol: start offset (never moves), size n, prev, next (V:120-132)
        starts, size, prev, nxt = utf8_symbols(esc)
        n = len(starts)
        initial = [esc[a : a + k] for a, k in zip(starts, size)]
        queue: list[tuple[float, int, int, int]] = []  # (-score, left, right, size): highest score, then left
        rev_merge: dict[bytes, tuple[int, int]] = {}

        def try_add_bigram(left: int, right: int) -> None:  # V:203-230
            if left == -1 or right == -1:
                return
            text = esc[starts[left] : starts[left] + size[left] + size[right]]
            tid = self._t2id.get(_text(text))
            if tid is None:
                return
            heapq.heappush(queue, (-self._scores[tid], left, right, len(text)))
            rev_merge[text] = (left, right)

        for i in range(1, n):
            try_add_bigram(i - 1, i)
        while queue:
            neg, left, right, total = heapq.heappop(queue)
            if size[left] == 0 or size[right] == 0 or size[left] + size[right] != total:
                continue  # already merged (see the staleness argument in bpe/reference.py)
            if on_merge is not None:
                a = starts[left]
                on_merge(
                    _text(esc[a : a + size[left]]),
                    _text(esc[starts[right] : starts[right] + size[right]]),
                    -neg,
                    left,
                    right,
                )
            size[left] += size[right]  # merge the right symbol into the left one
            size[right] = 0
            nxt[left] = nxt[right]
            if nxt[right] >= 0:
                prev[nxt[right]] = left
            try_add_bigram(prev[left], left)
            try_add_bigram(left, nxt[left])
        out: list[Piece] = []

        def resegment(sym: int, k: int) -> None:  # V:177-201; ``k``: the symbol's size then
            a = starts[sym]
            text = esc[a : a + k]
            tid = self._t2id.get(_text(text))
            if tid is not None:
                out.append((tid, span[a][0], span[a + k - 1][1]))
                return
            pair = rev_merge.get(text)
            if pair is None:
                out.extend((self.byte_to_token(esc[j]), *span[j]) for j in range(a, a + k))
                return
            resegment(pair[0], size[pair[0]])
            resegment(pair[1], size[pair[1]])

        final = []
        i = 0
        while i != -1:
            final.append(esc[starts[i] : starts[i] + size[i]])
            resegment(i, size[i])
            i = nxt[i]
        if on_symbols is not None:
            on_symbols(tuple(map(_text, initial)), tuple(map(_text, final)))
        return out
