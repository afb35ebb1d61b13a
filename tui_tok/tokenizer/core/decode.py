"""Ids back to bytes: llama.cpp's ``token_to_piece`` and ``detokenize`` (llama-vocab.cpp:3660-3899).

llama.cpp caches one piece per token at load (built with ``special=true``); ``token_to_piece``
then returns "" for CONTROL/UNKNOWN tokens when ``special`` is off and strips up to ``lstrip``
leading spaces. The cached piece depends on the family (``llama_vocab::impl::token_to_piece``, llama-vocab.cpp:3660):

- SPM/UGM/WPM: CONTROL/UNKNOWN/USER_DEFINED -> raw text; NORMAL -> ▁ becomes ' ';
  BYTE -> the byte ``<0xHH>`` names; anything else (UNUSED only, UNDEFINED) -> "".
- BPE: the same, except NORMAL goes through the inverse GPT-2 byte map (or ▁ -> ' ' when
  ``escape_whitespaces``); an unmapped character gives ``[UNK_BYTE_0x<hex><token text>]``.
- RWKV: the unescaped token bytes. PLaMo2: ``<0xHH>`` BYTE tokens -> the byte, else raw text.
  TEST: the id in lowercase hex.

We build pieces lazily, one token at a time (not all of a 262k vocab up front).
``detokenize`` applies BOS/EOS removal, the leading-space strip and the three
``clean_spaces`` passes exactly. Does not handle streaming: see ``core/stream.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.core.byte_level import CHAR_TO_BYTE
from tui_tok.tokenizer.core.types import TokenAttr, VocabType
from tui_tok.tokenizer.core.vocab import Vocab

_HIDDEN = int(TokenAttr.CONTROL | TokenAttr.UNKNOWN)
_RAW = int(TokenAttr.CONTROL | TokenAttr.UNKNOWN | TokenAttr.USER_DEFINED)
_NORMAL = int(TokenAttr.NORMAL)
_BYTE = int(TokenAttr.BYTE)
_GPT2_CHARS = frozenset(CHAR_TO_BYTE)
_GPT2_TRANSLATE = {ord(c): b for c, b in CHAR_TO_BYTE.items()}

_CLEAN1 = re.compile(rb" (?=[?!.,])")
_CLEAN2 = re.compile(rb" ' ")
_CLEAN3 = re.compile(rb" (?='[sm]|'re|'ve)")


def token_index(value: object) -> int:
    """A token id as a plain int: ints and numpy integers; ``TypeError`` for anything else,
    ``bool`` included (``True`` is an int to Python, never a token id a caller meant)."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"token id must be an int, not {type(value).__name__} ({value!r})")
    return int(value)


class PieceTable:
    """Per-token pieces of one vocab, computed on first use."""

    def __init__(self, vocab: Vocab) -> None:
        self.vocab = vocab
        self._n = vocab.n_tokens
        # a dict of bytes and a tuple of ints, not lists: the collector stops tracking both (the
        # tuple after its first pass), where two 262k-item lists made every collection traverse
        # them, the first one inside the first long encode
        self._pieces: dict[int, bytes] = {}
        self._attrs: tuple[int, ...] = tuple(vocab.attrs.tolist())
        self._rwkv_unescape = None
        if vocab.type is VocabType.RWKV:
            from tui_tok.tokenizer.rwkv.encoder import unescape_token

            self._rwkv_unescape = unescape_token

    def attr(self, token_id: int) -> int:
        if type(token_id) is not int:
            token_id = token_index(token_id)
        self._check(token_id)
        return self._attrs[token_id]

    def piece(self, token_id: int) -> bytes:
        """The cached piece (``special=true``, no lstrip)."""
        if type(token_id) is not int:  # 5.0 == 5 as a dict key: without this, a float found
            token_id = token_index(token_id)  # the piece once id 5 had been looked up
        p = self._pieces.get(token_id)
        if p is None:
            self._check(token_id)
            p = self._pieces[token_id] = self._build(token_id)
        return p

    def token_to_piece(self, token_id: int, *, special: bool = True, lstrip: int = 0) -> bytes:
        """llama.cpp ``token_to_piece``: "" for hidden specials, up to ``lstrip`` spaces removed."""
        if not special and self.attr(token_id) & _HIDDEN:
            return b""
        p = self.piece(token_id)
        if lstrip:
            n = 0
            while n < lstrip and n < len(p) and p[n] == 0x20:
                n += 1
            p = p[n:]
        return p

    def detokenize(self, ids: Iterable[int], *, remove_special: bool = False, unparse_special: bool = False) -> bytes:
        """llama.cpp ``detokenize``: concatenated pieces, then ``clean_spaces`` if the vocab wants it."""
        v = self.vocab
        if v.type is VocabType.NONE:
            return b""
        ids = list(ids)
        remove_space = v.add_space_prefix
        if remove_special and v.add_bos and ids and ids[0] == v.bos_id:
            remove_space = False
            ids = ids[1:]
        if remove_special and v.add_eos and ids and ids[-1] == v.eos_id:
            ids = ids[:-1]
        parts = [self.token_to_piece(t, special=unparse_special) for t in ids]
        if remove_space and parts and parts[0][:1] == b" ":
            parts[0] = parts[0][1:]
        text = b"".join(parts)
        if v.clean_spaces:
            text = clean_spaces(text)
        return text

    # --- internals ----------------------------------------------------------------------------

    def _check(self, token_id: int) -> None:
        if not 0 <= token_id < self._n:
            raise TokenizeError(f"token id {token_id} is out of range (vocab has {self._n} tokens)")

    def _build(self, tid: int) -> bytes:
        v = self.vocab
        text = v.tokens[tid]
        attr = self._attrs[tid]
        t = v.type
        if t is VocabType.RWKV:
            assert self._rwkv_unescape is not None
            return bytes(self._rwkv_unescape(text))
        if t is VocabType.TEST:
            return f"{tid:x}".encode()
        raw = text.encode("utf-8", "surrogateescape")
        if t is VocabType.PLAMO2:
            if attr & _BYTE and len(raw) == 6 and raw[:3] == b"<0x" and raw[5:] == b">":
                hx = raw[3:5]
                if all(c in b"0123456789abcdefABCDEF" for c in hx):
                    return bytes([int(hx, 16)])
            return raw
        if attr & _RAW:
            return raw
        if attr & _NORMAL:
            if t is VocabType.BPE and not v.escape_whitespaces:
                return gpt2_decode_text(text)
            return text.replace("\u2581", " ").encode("utf-8", "surrogateescape")
        if attr & _BYTE:
            return bytes([_strtol_hex(raw[3:5]) & 0xFF])
        return b""


def gpt2_decode_text(text: str) -> bytes:
    """llama.cpp ``llama_decode_text``: inverse GPT-2 byte map, ``[UNK_BYTE_0x..]`` for misses."""
    if _GPT2_CHARS.issuperset(text):
        return bytes(text.translate(_GPT2_TRANSLATE), "latin-1")
    from tui_tok.tokenizer.unicode.data import cpt_to_utf8, cpts_from_utf8

    raw = text.encode("utf-8", "surrogateescape")
    out = bytearray()
    for cp in cpts_from_utf8(raw):
        ch = chr(cp) if cp < 0x110000 else ""
        b = CHAR_TO_BYTE.get(ch)
        if b is not None:
            out.append(b)
        else:
            utf8 = cpt_to_utf8(cp)
            out += b"[UNK_BYTE_0x" + utf8.hex().encode() + raw + b"]"
    return bytes(out)


def clean_spaces(text: bytes) -> bytes:
    """llama.cpp's three clean-up passes (each reads its own input, as the C loops do)."""
    text = _CLEAN1.sub(b"", text)
    text = _CLEAN2.sub(b"'", text)
    return _CLEAN3.sub(b"", text)


def _strtol_hex(s: bytes) -> int:
    """C ``strtol(s, NULL, 16)`` on at most 2 bytes (what ``token_to_byte`` feeds it)."""
    i = 0
    while i < len(s) and s[i] in b" \t\n\v\f\r":
        i += 1
    neg = False
    if i < len(s) and s[i] in b"+-":
        neg = s[i] == 0x2D
        i += 1
    digits = b""
    while i < len(s) and s[i] in b"0123456789abcdefABCDEF":
        digits += s[i : i + 1]
        i += 1
    value = int(digits, 16) if digits else 0
    return -value if neg else value
