"""SentencePiece-style BPE as llama.cpp runs it (``llm_tokenizer_spm_session``, llama-vocab.cpp:115-239).

Per raw fragment: prepend a space when ``add_space_prefix`` and the fragment is the first one or
follows a special token; turn every 0x20 into U+2581 (▁); cut into symbols by UTF-8 lead byte
(no validation); repeatedly merge the adjacent pair whose concatenation is a token (of any type)
with the highest score, ties to the leftmost; finally emit each symbol's id, or its bytes as
``<0xHH>`` tokens (else the 1-byte token; neither -> ``TokenizeError``, where llama.cpp throws).

Speed: results are cached per chunk, where a chunk starts at a run of spaces. That is exact, not
a heuristic: every symbol ever formed is a token or a single character, so a symbol can only
span the boundary between characters X and ▁ if some token contains "X▁". We compute the set of
such X from the vocab and never cut after one of them. Input that is not valid UTF-8, or that
holds a literal ▁, takes the uncached byte-exact path.

Spans map to input bytes: a ▁ made from a space covers that 1 byte (a byte-fallback run for it
gives the byte to its first token); the inserted prefix space covers nothing (the first token
starts at 0 with no extra width).

Does not split special tokens (``special.py``) and never emits UNK: llama.cpp's SPM does not.

>>> from tui_tok.tokenizer.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "llama",
...     "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "▁", "h", "i", "▁h", "▁hi"],
...     "tokenizer.ggml.scores": [0, 0, 0, -1, -2, -3, -4, -5]})
>>> SpmEncoder(v).encode_fragment(b"hi hi", after_special=True)
[(7, 0, 2), (7, 2, 5)]
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.types import Piece
from tui_tok.tokenizer.vocab import Vocab

_ESC = "\u2581"
_ESC_BYTES = _ESC.encode()
_CHUNK_RE = re.compile(rb" *[^ ]+| +")
_CACHE_LIMIT = 200_000


class SpmEncoder:
    """FragmentEncoder for ``tokenizer.ggml.model == "llama"`` vocabularies."""

    def __init__(self, vocab: Vocab) -> None:
        self._vocab = vocab
        self._t2id = vocab.token_to_id
        self._scores: list[float] = vocab.scores.tolist()
        self._add_space_prefix = vocab.add_space_prefix
        self._cache: dict[bytes, tuple[Piece, ...]] = {}
        self._byte_ids: list[int | None] | None = None
        self._bad_prev: frozenset[bytes] | None = None

    # --- public -------------------------------------------------------------------------------

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Pieces for one raw fragment; offsets are bytes of ``text``."""
        prefix = self._add_space_prefix and after_special
        data = b" " + text if prefix else text
        if not data:
            return []
        if _ESC_BYTES in data or not _is_utf8(data):
            pieces = self._encode_exact(data)
        else:
            pieces = self._encode_chunked(data)
        if prefix:
            pieces = [(t, s - 1 if s else 0, e - 1 if e else 0) for t, s, e in pieces]
        return pieces

    # --- chunked fast path (valid UTF-8, no literal ▁) ----------------------------------------

    def _chunks(self, data: bytes) -> list[bytes]:
        chunks = _CHUNK_RE.findall(data)
        bad = self._bad_prev
        if bad is None:
            bad = self._bad_prev = _bad_prev_chars(self._vocab)
        if bad and len(chunks) > 1:
            merged = [chunks[0]]
            for c in chunks[1:]:
                if _last_char(merged[-1]) in bad:
                    merged[-1] += c
                else:
                    merged.append(c)
            chunks = merged
        return chunks

    def _encode_chunked(self, data: bytes) -> list[Piece]:
        cache = self._cache
        out: list[Piece] = []
        off = 0
        for chunk in self._chunks(data):
            pieces = cache.get(chunk)
            if pieces is None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                pieces = cache[chunk] = self._encode_valid(chunk)
            if off:
                out.extend([(t, s + off, e + off) for t, s, e in pieces])
            else:
                out.extend(pieces)
            off += len(chunk)
        return out

    def _encode_valid(self, chunk: bytes) -> tuple[Piece, ...]:
        """Encode valid UTF-8 without literal ▁: work on characters of the escaped string."""
        s = chunk.decode("utf-8").replace(" ", _ESC)
        syms = _merge(list(range(len(s))), len(s), lambda a, b: s[a:b], self._t2id, self._scores)
        # original byte offset of each character (a ▁ stands for one space byte)
        offs = [0]
        acc = 0
        for ch in s:
            acc += 1 if ch == _ESC else len(ch.encode())
            offs.append(acc)
        out: list[Piece] = []
        for a, b in syms:
            tid = self._t2id.get(s[a:b])
            if tid is not None:
                out.append((tid, offs[a], offs[b]))
                continue
            for i in range(a, b):
                p = offs[i]
                raw = s[i].encode()
                for k, byte in enumerate(raw):
                    if s[i] == _ESC:
                        span = (p, p + 1) if k == 0 else (p + 1, p + 1)
                    else:
                        span = (p + k, p + k + 1)
                    out.append((self._byte_token(byte), *span))
        return tuple(out)

    # --- byte-exact path ----------------------------------------------------------------------

    def _encode_exact(self, data: bytes) -> list[Piece]:
        """Any bytes: symbols by lead byte on the escaped bytes, spans via a per-byte map."""
        esc = data.replace(b" ", _ESC_BYTES)
        span_of: list[tuple[int, int]] = []
        for i, byte in enumerate(data):
            if byte == 0x20:
                span_of += [(i, i + 1), (i + 1, i + 1), (i + 1, i + 1)]
            else:
                span_of.append((i, i + 1))
        bounds = []
        pos = 0
        n = len(esc)
        while pos < n:
            bounds.append(pos)
            pos += _utf8_len(esc[pos])
        def key(a: int, b: int) -> str:
            return esc[a:b].decode("utf-8", "surrogateescape")

        syms = _merge(bounds, n, key, self._t2id, self._scores)
        out: list[Piece] = []
        for a, b in syms:
            b = min(b, n)
            tid = self._t2id.get(key(a, b))
            if tid is not None:
                out.append((tid, span_of[a][0], span_of[b - 1][1]))
                continue
            for i in range(a, b):
                out.append((self._byte_token(esc[i]), *span_of[i]))
        return out

    def _byte_token(self, byte: int) -> int:
        table = self._byte_ids
        if table is None:
            table = self._byte_ids = [self._lookup_byte(b) for b in range(256)]
        tid = table[byte]
        if tid is None:
            raise TokenizeError(
                f"byte 0x{byte:02X} has no token: the vocab has neither <0x{byte:02X}> nor a 1-byte token "
                "for it (llama.cpp throws std::out_of_range here)"
            )
        return tid

    def _lookup_byte(self, byte: int) -> int | None:
        tid = self._t2id.get(f"<0x{byte:02X}>")
        if tid is None:
            tid = self._t2id.get(bytes([byte]).decode("utf-8", "surrogateescape"))
        return tid


def _merge(
    bounds: list[int], end: int, key: Callable, t2id: dict[str, int], scores: list[float]
) -> list[tuple[int, int]]:
    """llama.cpp's SPM merge loop over symbols starting at ``bounds``; returns final (start, end)."""
    n = len(bounds)
    if n == 0:
        return []
    starts = bounds
    ends = bounds[1:] + [end]
    nxt = list(range(1, n)) + [-1]
    prv = list(range(-1, n - 1))
    heap = []
    get = t2id.get
    for i in range(n - 1):
        tid = get(key(starts[i], ends[i + 1]))
        if tid is not None:
            heap.append((-scores[tid], i, i + 1, ends[i + 1] - starts[i]))
    heapq.heapify(heap)
    push = heapq.heappush
    pop = heapq.heappop
    while heap:
        _, left, right, size = pop(heap)
        ln = ends[left] - starts[left]
        rn = ends[right] - starts[right]
        if ln == 0 or rn == 0 or ln + rn != size:
            continue
        ends[left] = ends[right]
        ends[right] = starts[right]
        nr = nxt[right]
        nxt[left] = nr
        if nr >= 0:
            prv[nr] = left
        p = prv[left]
        if p >= 0:
            tid = get(key(starts[p], ends[left]))
            if tid is not None:
                push(heap, (-scores[tid], p, left, ends[left] - starts[p]))
        if nr >= 0:
            tid = get(key(starts[left], ends[nr]))
            if tid is not None:
                push(heap, (-scores[tid], left, nr, ends[nr] - starts[left]))
    out = []
    i = 0
    while i != -1:
        out.append((starts[i], ends[i]))
        i = nxt[i]
    return out


def _utf8_len(lead: int) -> int:
    """llama.cpp's ``unicode_len_utf8``: length from the lead byte's high nibble."""
    return (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4)[lead >> 4]


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _last_char(chunk: bytes) -> bytes:
    i = len(chunk) - 1
    while i > 0 and 0x80 <= chunk[i] < 0xC0:
        i -= 1
    return chunk[i:]


def _bad_prev_chars(vocab: Vocab) -> frozenset[bytes]:
    """Characters X (not ▁) such that some token contains "X▁": never cut a chunk after one."""
    pattern = re.compile(r"([^\u2581])\u2581")
    found: set[bytes] = set()
    for text in vocab.tokens:
        if _ESC in text:
            found.update(m.encode("utf-8", "surrogateescape") for m in pattern.findall(text))
    return frozenset(found)
