"""The characters of a UGM vocab's trie tokens, numbered, for the whole-text ids path.

``ugm/textids.py`` works on one small integer per character of the normalised text, its
*letter*: 1 + its rank among the characters that occur in some token, 0 for any other
character. A character with letter 0 can only be covered by the unknown edge (a token holding
it would hold a letter), so it is a piece of its own (``ugm/pieces.py``) whose token is the
unknown token; a piece of one known character is the single-character token, or the unknown
token where there is none (llama.cpp adds the unknown edge exactly there). Whether two letters
sit side by side in some token decides where pieces are cut: a bool matrix when the alphabet
is small, a packed bit matrix up to a few thousand letters (the kana and kanji of a Japanese
vocab of 8,000 pieces: 2,078 letters; a hash probe per boundary was a large part of its
encode), else
the bigram table of ``ugm/hash.py``.

The same table (one int16 or int32 per code point, untouched pages cost nothing) also remembers each
character's charsmap kind once ``ugm/textids.py`` has walked it (the low two bits).

Does not normalise or search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.ugm.hash import TokenHash
from tui_tok.tokenizer.ugm.tables import UgmTables

CODE_POINTS = 0x110000
_MATRIX_MAX = 2048
"""Alphabets up to this size get a bool matrix of bigrams ((A+1)**2 bytes: 4 MB at most)."""
_BITS_MAX = 8191
"""Larger alphabets up to this size get a packed bit matrix of bigrams ((A+1)**2 / 8 bytes: 8 MB
at most, of which a text touches the pages of the pairs it holds)."""
_CODE16_MAX = 0x1FFF
"""Alphabets below this size keep their codes in int16."""
_REACH_MAX = 2500
"""Alphabets up to this size get a matrix of pair reaches, (A+1)**2 bytes (6 MB at most, of which a
text touches the pages of the pairs it holds; a hash probe per position was a third of the search
of a Japanese vocab of 2,078 letters)."""


@dataclass(frozen=True, slots=True, eq=False)
class Alphabet:
    """Letters of one vocab and what a piece of them needs."""

    code: np.ndarray
    """int16 (a small alphabet) or int32 per code point: ``letter << 2 | kind`` (kind 0: not
    walked yet)."""
    chars: np.ndarray
    """Code point of each letter (int64; ``chars[0]`` is unused)."""
    single: np.ndarray
    """Token of a piece made of one character, by letter (int32): its trie token, or unknown."""
    pairs: np.ndarray | None
    """Bool per ``a * (size + 1) + b``: letters ``a`` and ``b`` sit side by side in some trie
    token (None: ``pair_bits``, or ask ``TokenHash.joined``)."""
    pair_bits: np.ndarray | None
    """The same bools packed, bit ``i & 7`` of byte ``i >> 3`` (uint8; None: ``pairs`` or
    ``TokenHash.joined``)."""
    size: int
    """Number of letters."""
    found: np.ndarray
    """Single-character trie token by letter (int64), -1 where none (``single`` without the
    unknown token)."""
    reach: np.ndarray | None
    """uint8 per ``a * (size + 1) + b``: the longest token starting with letters ``a b``, 0
    if none (None: a big alphabet; ``TokenHash.reach`` instead)."""
    space: int
    """The letter of 0x20 (``ugm/textids.py`` marks it as a separator in ``code``)."""

    @property
    def pair_index(self) -> type[np.integer]:
        """The narrowest type of a pair's index into ``pairs`` and ``reach`` (fresh memory costs
        a page fault per 4 KB on a first encode)."""
        return np.uint16 if (self.size + 1) ** 2 <= 0x10000 else np.int32

    @property
    def letter_type(self) -> type[np.integer]:
        """The narrowest type that holds every letter and one more value, ``LETTER_MAX`` of it
        (what ``ugm/textids.py`` stores a separator as, before it drops them)."""
        return np.uint8 if self.size < 0xFF else np.uint16 if self.size < 0xFFFF else np.int32

    def letters(self, cps: np.ndarray, text: str) -> np.ndarray:
        """The letters of the code points ``cps`` of a normalised ``text`` (0: in no token)."""
        letters = (self.code[cps] >> 2).astype(self.letter_type)
        if " " in text:
            letters[cps == 0x20] = self.space
        return letters

    def pair_reach(self, letters: np.ndarray) -> np.ndarray | None:
        """``TokenHash.reach`` of the text of ``letters`` (int64; None: no table)."""
        if self.reach is None:
            return None
        out = np.zeros(letters.size, dtype=np.int64)
        if letters.size > 1:
            index = np.multiply(letters[:-1], self.size + 1, dtype=self.pair_index, casting="unsafe")
            np.add(index, letters[1:], out=index, casting="unsafe")  # letters: 0 to size
            out[:-1] = self.reach[index]
        return out

    def joined(self, letters: np.ndarray, token_hash: TokenHash) -> np.ndarray:
        """Per boundary ``1..len(letters)-1``, whether its two characters sit side by side in
        some token (False: no token crosses it)."""
        if letters.size < 2:
            return np.zeros(0, dtype=bool)
        if self.pairs is not None:
            index = np.multiply(letters[:-1], self.size + 1, dtype=self.pair_index, casting="unsafe")
            np.add(index, letters[1:], out=index, casting="unsafe")  # letters: 0 to size
            return self.pairs[index]
        if self.pair_bits is not None:
            index = np.multiply(letters[:-1], self.size + 1, dtype=np.int32, casting="unsafe")
            np.add(index, letters[1:], out=index, casting="unsafe")
            byte = self.pair_bits[index >> 3]
            index &= 7
            np.right_shift(byte, index, out=byte, casting="unsafe")
            byte &= 1
            return byte.view(bool)
        known = letters != 0
        out = token_hash.joined(self.chars[letters])
        out &= known[:-1]
        out &= known[1:]
        return out


def build_alphabet(tables: UgmTables, token_hash: TokenHash, unk_id: int) -> Alphabet:
    """Letters of the tokens' characters, their single-character trie tokens (those
    ``token_hash`` holds), and the bigram matrix for a small alphabet. A character of no trie
    token may have a letter: its piece still gets the unknown token (no single-character trie
    token), and its pairs only join where the search itself decides."""
    seen = np.zeros(CODE_POINTS, dtype=bool)  # every token's characters (and the joiner): a
    seen[tables.token_cps] = True  # letter in no trie token has the unknown token alone, as it should
    chars = np.flatnonzero(seen)
    size = int(chars.size)
    # int16 while ``letter << 2`` fits: the first gather of a text's codes is half the size
    code: np.ndarray = np.zeros(CODE_POINTS, dtype=np.int16 if size < _CODE16_MAX else np.int32)
    code[chars] = (np.arange(size, dtype=np.int32) + 1) << 2
    single = np.full(size + 1, unk_id, dtype=np.int32)
    found = token_hash.find(chars, [(1, np.arange(size, dtype=np.int64))])[0]
    single[1:][found >= 0] = found[found >= 0]
    one = np.full(size + 1, -1, dtype=np.int64)
    one[1:] = found
    reach = None
    if size <= _REACH_MAX and int(token_hash.pair_reach.max(initial=0)) < 0x100:
        live = np.flatnonzero(token_hash.pair_keys != 0)
        keys = token_hash.pair_keys[live]
        a = (keys & np.uint64(0x1FFFFF)).astype(np.int64) - 1
        b = ((keys >> np.uint64(21)) & np.uint64(0x1FFFFF)).astype(np.int64) - 1
        reach = np.zeros((size + 1) * (size + 1), dtype=np.uint8)
        reach[(code[a] >> 2).astype(np.int64) * (size + 1) + (code[b] >> 2)] = token_hash.pair_reach[live]
    pairs = bits = None
    if size <= _BITS_MAX:
        keys = token_hash.bigram_keys[token_hash.bigram_keys != 0]
        a = (keys & np.uint64(0x1FFFFF)).astype(np.int64) - 1
        b = (keys >> np.uint64(21)).astype(np.int64) - 1
        index = (code[a] >> 2).astype(np.int64) * (size + 1) + (code[b] >> 2)
        if size <= _MATRIX_MAX:
            pairs = np.zeros((size + 1) * (size + 1), dtype=bool)
            pairs[index] = True
        else:
            bits = np.zeros(((size + 1) * (size + 1) + 7) >> 3, dtype=np.uint8)
            np.bitwise_or.at(bits, index >> 3, np.left_shift(1, index & 7).astype(np.uint8))
    return Alphabet(code=code, chars=np.append(0, chars), single=single, pairs=pairs, pair_bits=bits, size=size,
                    found=one, reach=reach, space=int(code[0x20] >> 2))  # fmt: skip
