"""UGM normalisation exactly as llama.cpp (V:1078-1122, 1195-1245), with an offset map.

Per input position, first match wins:

1. the bytes follow a path of the user-defined token trie: copy the **deepest path**
   unchanged, even when no token ends there (naive_trie::get_longest_prefix, V:47-58);
2. the precompiled charsmap's longest match: its replacement (``ugm/charsmap.py``);
3. one UTF-8 character (llama.cpp's lenient decoder, U:30-65) unchanged, or a lone bad byte
   as U+FFFD.

Then every output byte goes through the whitespace rules: a non-0x20 byte starting a
non-space run is preceded by the space string if (prepend and nothing prepended yet) or
merge; a 0x20 byte ends the run and becomes the space string unless merge. Nothing is
appended at the end (treat_whitespace_as_suffix is always false in llama.cpp).

``offsets[p]`` is the input offset of normalised byte boundary ``p`` (``len(offsets) ==
len(text) + 1``), non-decreasing. Where several input positions meet one boundary the
smallest wins, so input that vanished (merged spaces, deleted control characters) belongs
to the token after it; a boundary inside the output of one input chunk maps to the chunk's
start while only inserted spaces precede it, else to the chunk's end (the token holding the
chunk's first real byte gets the whole chunk).

Does not split into tokens: see ``ugm/encoder.py``.

>>> n = UgmNormalizer(charsmap=None, user_defined=(), prepend=True, merge=True)
>>> r = n.normalize(b"  hi  there ")
>>> r.text.decode(), r.offsets[0], r.offsets[3:7], r.offsets[-1]
('▁hi▁there', 0, [2, 3, 4, 6], 11)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tui_tok.tokenizer.ugm.charsmap import Charsmap

ESCAPED_SPACE = "\u2581".encode()
_FFFD = "\ufffd".encode()


@dataclass(frozen=True, slots=True)
class Normalized:
    """One normalised fragment."""

    text: bytes
    """The normalised bytes the Viterbi search runs on."""
    offsets: list[int]
    """Input byte offset of each normalised boundary 0..len(text)."""
    space_prepended: bool
    """llama.cpp's ``is_space_prepended`` at the end (for continuing a split fragment)."""


def utf8_char_len(data: bytes, pos: int) -> int:
    """Length of the valid character at ``pos`` per llama.cpp's decoder, or 0 if invalid.

    Checks only the lead byte's class and that enough continuation bytes follow
    (no overlong, surrogate or range checks: C0 80 is a valid 2-byte character here).
    """
    b = data[pos]
    if b < 0x80:
        return 1
    if b < 0xC0 or b >= 0xF8:
        return 0
    n = 2 if b < 0xE0 else 3 if b < 0xF0 else 4
    if pos + n > len(data):
        return 0
    for k in range(1, n):
        if data[pos + k] & 0xC0 != 0x80:
            return 0
    return n


def _prefixes(tokens: tuple[bytes, ...]) -> frozenset[bytes]:
    return frozenset(t[:k] for t in tokens for k in range(1, len(t) + 1))


@dataclass(frozen=True, slots=True, eq=False)
class UgmNormalizer:
    """The normaliser of one vocab: charsmap, user-defined tokens and whitespace flags."""

    charsmap: Charsmap | None
    """Parsed ``precompiled_charsmap`` (None: no charsmap)."""
    user_defined: tuple[bytes, ...]
    """Texts of tokens whose attributes include USER_DEFINED."""
    prepend: bool
    """``add_space_prefix``."""
    merge: bool
    """``remove_extra_whitespaces``."""
    space: bytes = ESCAPED_SPACE
    """What a space becomes: U+2581 when escape_whitespaces (always for UGM), else b' '."""
    _ud_prefixes: frozenset[bytes] = field(init=False, repr=False)
    _ud_first: frozenset[int] = field(init=False, repr=False)
    _memo: dict[bytes, tuple[bytes, int, frozenset[int]]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        prefixes = _prefixes(tuple(t for t in self.user_defined if t))
        object.__setattr__(self, "_ud_prefixes", prefixes)
        object.__setattr__(self, "_ud_first", frozenset(p[0] for p in prefixes))
        object.__setattr__(self, "_memo", {})

    @property
    def ud_first(self) -> frozenset[int]:
        """First bytes of the user-defined tokens (a walk of their trie can start there)."""
        return self._ud_first

    def isolated_chunk(self, unit: bytes) -> tuple[bytes, int, frozenset[int]]:
        """Chunk for a character (or a lone invalid byte) when what follows cannot extend the
        charsmap walk: (output, consumed, bytes that would extend it)."""
        hit = self._memo.get(unit)
        if hit is None:
            match, cont = (None, frozenset()) if self.charsmap is None else self.charsmap.match_unit(unit)
            if match is not None:
                hit = (match[1], match[0], cont)
            elif unit[0] >= 0x80 and len(unit) == 1:
                hit = (_FFFD, 1, cont)
            else:
                hit = (unit, len(unit), cont)
            self._memo[unit] = hit
        return hit

    def user_defined_depth(self, data: bytes, pos: int) -> int:
        """Deepest user-defined trie path matching ``data[pos:]`` (0 if none)."""
        if data[pos] not in self._ud_first:
            return 0
        prefixes = self._ud_prefixes
        k = 1
        while pos + k < len(data) and data[pos : pos + k + 1] in prefixes:
            k += 1
        return k

    def chunk(self, data: bytes, pos: int) -> tuple[bytes, int]:
        """One step of llama.cpp's ``normalize_prefix``: (output bytes, input bytes consumed)."""
        if self._ud_first:
            k = self.user_defined_depth(data, pos)
            if k:
                return data[pos : pos + k], k
        if self.charsmap is not None:
            m = self.charsmap.longest_match(data, pos)
            if m is not None:
                return m[1], m[0]
        n = utf8_char_len(data, pos)
        if n == 0:
            return _FFFD, 1
        return data[pos : pos + n], n

    def _whitespace(
        self,
        rep: bytes,
        pos: int,
        end: int,
        out: bytearray,
        offsets: list[int],
        in_word: bool,
        space_prepended: bool,
    ) -> tuple[bool, bool]:
        """llama.cpp's whitespace rules (in V:1078-1122), byte by byte, over one chunk's output;
        boundaries inside it map to its start until a real byte, then to its end."""
        space = self.space
        at = pos
        for c in rep:
            if c != 0x20:
                if not in_word:
                    in_word = True
                    if (self.prepend and not space_prepended) or self.merge:
                        _emit(out, offsets, space, at)
                        space_prepended = True
                _emit(out, offsets, bytes((c,)), at)
                at = end
            else:
                in_word = False
                if not self.merge:
                    _emit(out, offsets, space, at)
                    at = end
        return in_word, space_prepended

    def normalize(self, data: bytes, *, space_prepended: bool = False) -> Normalized:
        """Normalise one fragment as llama.cpp's loop does, chunk by chunk (``space_prepended``
        lets a caller continue a fragment). Long texts take ``ugm/textids.py`` instead."""
        out = bytearray()
        offsets: list[int] = []
        in_word = False  # llama.cpp's processing_non_ws
        pos = 0
        n = len(data)
        while pos < n:
            rep, used = self.chunk(data, pos)
            end = pos + used
            if len(offsets) == len(out):
                offsets.append(pos)
            in_word, space_prepended = self._whitespace(rep, pos, end, out, offsets, in_word, space_prepended)
            pos = end
        if len(offsets) == len(out):
            offsets.append(n)
        return Normalized(text=bytes(out), offsets=offsets, space_prepended=space_prepended)


def _emit(out: bytearray, offsets: list[int], piece: bytes, at: int) -> None:
    """Append ``piece``; every boundary it opens (its start unless already set) maps to ``at``."""
    if len(offsets) == len(out):
        offsets.append(at)
    out += piece
    offsets.extend([at] * (len(piece) - 1))
