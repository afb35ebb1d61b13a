"""The two BPE models that are not plain byte-level BPE: ``whitespace`` and ``hybriddna``.

Both wrap ``BpeEncoder``'s plain path (llama-vocab.cpp:1653-1757): ``whitespace`` splits on
whitespace first and encodes each segment alone; ``hybriddna`` cuts DNA between ``<dna>`` and
``</dna>`` into 6-mers. Kept apart so that ``bpe/encoder.py`` holds the common algorithm only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import numpy as np

from tui_tok.tokenizer.core.types import Piece
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.pretokenize.offsets import check_range, decode_spans, offset_map, utf8_lens
from tui_tok.tokenizer.unicode.data import is_whitespace, to_lower


class PlainBpe(Protocol):
    """What these models need of ``BpeEncoder`` (its plain path), named here so that this
    module does not import the encoder that imports it."""

    @property
    def vocab(self) -> Vocab: ...

    @property
    def _token_to_id(self) -> Mapping[str, int]: ...

    def _encode_text(self, text: str) -> list[Piece]: ...

    def _encode_raw(self, data: bytes) -> list[Piece]: ...


def encode_whitespace(enc: PlainBpe, data: bytes) -> list[Piece]:
    """Model ``whitespace`` (V:1730-1757): whitespace code points end a segment and vanish;
    each segment (lowercased if the vocab says so) is BPE-encoded on its own."""
    cps, src = decode_spans(data)
    check_range(cps)
    if enc.vocab.escape_whitespaces:
        cps = [0x2581 if cp == 0x20 else cp for cp in cps]
    lowercase = enc.vocab.lowercase
    out: list[Piece] = []
    i, n = 0, len(cps)
    while i < n:
        if is_whitespace(cps[i]):
            i += 1
            continue
        j = i
        while j < n and not is_whitespace(cps[j]):
            j += 1
        seg = np.array([to_lower(cp) if lowercase else cp for cp in cps[i:j]], dtype=np.int64)
        starts = np.array(src[i:j], dtype=np.int64)
        omap = offset_map(starts, np.diff(src[i : j + 1]), utf8_lens(seg), src[j])
        text = "".join(map(chr, seg.tolist()))
        m = omap.tolist()
        out.extend((tid, m[a], m[b]) for tid, a, b in enc._encode_text(text))
        i = j
    return out


def encode_hybriddna(enc: PlainBpe, data: bytes) -> list[Piece]:
    """Model ``hybriddna`` (V:1653-1728): 6-mers between ``<dna>`` and ``</dna>``."""
    t2i = enc._token_to_id
    begin, end_id, oov = t2i.get("<dna>"), t2i.get("</dna>"), t2i.get("<oov>")
    if begin is None or end_id is None or oov is None:
        return enc._encode_raw(data)
    out: list[Piece] = []
    pos = 0
    n = len(data)

    def plain(a: int, b: int) -> None:
        out.extend((tid, s + a, e + a) for tid, s, e in enc._encode_raw(data[a:b]))

    while pos < n:
        start = data.find(b"<dna>", pos)
        if start < 0:
            plain(pos, n)
            break
        if start > pos:
            plain(pos, start)
        out.append((begin, start, start + 5))
        content = start + 5
        close = data.find(b"</dna>", content)
        content_end = n if close < 0 else close
        seq = bytes(c - 32 if 0x61 <= c <= 0x7A else c for c in data[content:content_end])
        for i in range(0, len(seq), 6):
            kmer = seq[i : i + 6].ljust(6, b"A")
            key = kmer.decode("utf-8", "surrogateescape") + "\ue000"
            out.append((t2i.get(key, oov), content + i, content + min(i + 6, len(seq))))
        if close < 0:
            break
        out.append((end_id, close, close + 6))
        pos = close + 6
    return out
