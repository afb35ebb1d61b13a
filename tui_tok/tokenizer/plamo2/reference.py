"""PLaMo2 stated once, as llama.cpp runs it: the reference ``plamo2/encoder.py`` is tested equal to.

``llm_tokenizer_plamo2`` (llama-vocab.cpp:1367-1634; its session, V:1636-1650), line by line:

* ``build`` (V:1372-1506): BYTE tokens ``<0xHH>`` fill a 256-entry table (a missing one, or id
  0, is a load error); every other token text gets its score in ``suffix_to_score``, and each of
  its proper suffixes (by code point, re-encoded) a NaN; the suffixes, plus "", are sorted by
  their reversed bytes and numbered; ``to_suffix_id`` maps (first code point, id of the rest) to a
  suffix's number; the flattened table lists, per suffix, its prefixes that are keys (longest
  first: length, token id or -1, ``round(score * 1e4)`` or INVALID for NaN, the prefix's
  number), then a sentinel row (length 1, id -1, UNKNOWN_SCORE);
* ``encode`` (V:1509-1605): decode leniently, drop one leading U+FEFF; from the end, find the
  suffix the text at i starts with by walking the previous one's rows (V:1535-1544), then every
  row from there offers ``cost[i + length] - score`` (strictly smaller wins) until the first row
  scoring UNKNOWN_SCORE, the sentinel or a token scoring exactly that (V:1546-1570); the path
  from 0 gives the tokens, an unknown step its code point's UTF-8 as byte tokens (V:1572-1602).

Spans: a token covers the input bytes of its code points; the byte tokens of one code point
share that code point's bytes one by one when the counts agree, else the first takes them all.
The dropped BOM is a gap. Slow (the table costs seconds for a large vocab): a test oracle, and
what ``explain`` traces (hook ``on_step``, once per step of the best path).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from tui_tok.errors import VocabError
from tui_tok.tokenizer.core.spans import decode_with_offsets
from tui_tok.tokenizer.core.types import Piece, TokenAttr
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.unicode.data import cpt_to_utf8, cpts_from_utf8

INVALID_SCORE = -20_000_000
UNKNOWN_SCORE = -10_000_000
_HEXDIGITS = frozenset(b"0123456789abcdefABCDEF")
OnStep = Callable[[int, tuple[int, ...], int, int, int], None]
"""``on_step(token_id, ids, start, end, score)`` per step of the best path, in order: a token
(``ids == (token_id,)``) or an unknown code point (token_id -1, score ``UNKNOWN_SCORE``, ``ids``
its byte tokens), ``text[start:end]``."""


def int_score(score: float) -> int:
    """llama.cpp's ``static_cast<int32_t>(std::round(score * 1e4))``, or INVALID for non-finite.

    >>> int_score(0.00005), int_score(-0.00005), int_score(-1000.0), int_score(1e6)
    (1, -1, -10000000, -2147483648)
    """
    x = float(score) * 1e4
    if not math.isfinite(float(score)) or not math.isfinite(x):
        return INVALID_SCORE
    r = math.floor(abs(x))
    if abs(x) - r >= 0.5:
        r += 1
    r = r if x >= 0 else -r
    if not -(1 << 31) <= r < (1 << 31):
        return -(1 << 31)  # x86 cvttsd2si answer for an out-of-range cast
    return r


def byte_table(vocab: Vocab) -> list[int]:
    """The 256 byte-fallback ids; raises ``VocabError`` like llama.cpp when one is missing (V:1388-1400, 1416-1421)."""
    table = [0] * 256
    for tid, text in enumerate(vocab.tokens):
        if not int(vocab.attrs[tid]) & TokenAttr.BYTE:
            continue
        raw = text.encode("utf-8", "surrogateescape")
        if len(raw) == 6 and raw.startswith(b"<0x") and raw.endswith(b">"):
            if raw[3] in _HEXDIGITS and raw[4] in _HEXDIGITS:
                table[int(raw[3:5], 16)] = tid
    for byte, tid in enumerate(table):
        if tid == 0:
            raise VocabError(
                f"PLaMo2 vocab has no byte token for <0x{byte:02X}> (or it is id 0, which llama.cpp "
                "treats as missing): llama.cpp refuses to load it"
            )
    return table


def byte_pieces(table: list[int], cp: int, start: int, end: int) -> list[Piece]:
    """The byte tokens of one code point no token covers (V:1581-1598: it encodes even cps above
    U+10FFFF), sharing the code point's input bytes ``start:end``."""
    s = 1 + (cp >= 0x80) + (cp >= 0x800) + (cp >= 0x10000)
    ids: list[int] = []
    for k in range(s):
        lead = cp if s == 1 else ((0xF00 >> s) & 0xFF) if k == 0 else 0x80
        ids.append(table[(lead | ((cp >> ((s - k - 1) * 6)) & 0x3F)) & 0xFF])
    if end - start == s:
        return [(tid, start + k, start + k + 1) for k, tid in enumerate(ids)]
    return [(ids[0], start, end)] + [(tid, end, end) for tid in ids[1:]]


def _utf8(cps: list[int]) -> bytes:
    return b"".join(cpt_to_utf8(c) for c in cps)


class ReferenceEncoder:
    """llama.cpp's PLaMo2 for one vocab, its suffix table and all (a ``FragmentEncoder``; slow)."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self.bytes = byte_table(vocab)
        suffix_to_score: dict[bytes, float] = {}
        token_to_id: dict[bytes, int] = {}
        for tid, text in enumerate(vocab.tokens):
            raw = text.encode("utf-8", "surrogateescape")
            token_to_id[raw] = tid
            if int(vocab.attrs[tid]) & TokenAttr.BYTE:
                continue
            suffix_to_score[raw] = float(vocab.scores[tid])
            cps = cpts_from_utf8(raw)
            try:
                for i in range(1, len(cps)):
                    suffix_to_score.setdefault(_utf8(cps[i:]), math.nan)
            except ValueError:
                raise VocabError(
                    f"PLaMo2 token {tid} decodes to a code point above U+10FFFF: llama.cpp refuses to load it"
                ) from None
        suffixes = sorted([*suffix_to_score, b""], key=lambda s: s[::-1])
        suffix_to_id: dict[bytes, int] = {}
        self.to_suffix_id: dict[tuple[int, int], int] = {}
        num = 0
        for suffix in suffixes:
            suffix_to_id[suffix] = num
            if suffix:
                cps = cpts_from_utf8(suffix)
                self.to_suffix_id[(cps[0], suffix_to_id.setdefault(_utf8(cps[1:]), 0))] = num
                num += 1 + sum(_utf8(cps[:k]) in suffix_to_score for k in range(len(cps), 0, -1))
            else:
                num += 1
        self.table: list[tuple[int, int, int, int]] = []  # (piece length, token id, score, piece id)
        for suffix in suffixes:
            cps = cpts_from_utf8(suffix)
            for k in range(len(cps), 0, -1):
                piece = _utf8(cps[:k])
                if piece not in suffix_to_score:
                    continue
                sc = suffix_to_score[piece]
                score = int_score(sc) if math.isfinite(sc) else INVALID_SCORE
                self.table.append((k, token_to_id.get(piece, -1), score, suffix_to_id[piece]))
            self.table.append((1, -1, UNKNOWN_SCORE, 0))

    def encode_fragment(self, text: bytes, *, after_special: bool, on_step: OnStep | None = None) -> list[Piece]:
        """Pieces of one raw fragment, spans in its bytes (``after_special`` does not matter)."""
        del after_special
        data, offsets = decode_with_offsets(text)
        if data and data[0] == 0xFEFF:  # the BOM is skipped
            data, offsets = data[1:], offsets[1:]
        n = len(data)
        if not n:
            return []
        scores = [1 << 60] * (n + 1)
        scores[n] = 0
        path = [(0, 0, 0)] * (n + 1)  # (token length, token id, score)
        table = self.table
        suffix_id = 0
        for i in range(n - 1, -1, -1):
            c = data[i]
            for p in range(suffix_id, len(table)):  # the next suffix id
                suffix_id = self.to_suffix_id.get((c, table[p][3]), 0)
                if suffix_id > 0 or table[p][2] == UNKNOWN_SCORE:
                    break
            for p in range(suffix_id, len(table)):  # the best path
                length, tid, score, _ = table[p]
                if score > INVALID_SCORE:
                    s = scores[i + length] - score
                    if s < scores[i]:
                        scores[i] = s
                        path[i] = (length, tid, score)
                if score == UNKNOWN_SCORE:
                    break
        return path_pieces(self.bytes, data, offsets, path, on_step)


def path_pieces(
    bytes_ids: list[int], cps: list[int], offsets: list[int], path: list[tuple[int, int, int]], on_step: OnStep | None
) -> list[Piece]:
    """The tokens of the best path from code point 0 (V:1572-1602): ``path[i]`` is the step from
    code point i (length, token id or -1, score); an unknown step (-1) is its code point's UTF-8
    as byte tokens. ``plamo2/encoder.py`` backtracks with it too."""
    out: list[Piece] = []
    pos = 0
    while pos < len(cps):
        length, tid, score = path[pos]
        start, end = offsets[pos], offsets[pos + length]
        got = [(tid, start, end)] if tid >= 0 else byte_pieces(bytes_ids, cps[pos], start, end)
        if on_step is not None:
            on_step(tid, tuple(t for t, _, _ in got), start, end, score)
        out += got
        pos += length
    return out
