"""UGM token ids of a long fragment in whole-text numpy passes (no per-unit Python work).

``ugm/encoder.py`` cuts a fragment into units and handles each distinct unit in Python: about a
microsecond each, 14k distinct units in 0.56 MB of mixed text. For a long fragment (ids only)
this module normalises the whole text at once and searches it by pieces:

1. **characters**: each new character is walked alone through the charsmap, all at once
   (``CharWalk.kinds``), and its kind remembered per vocab (``ugm/alphabet.py``): *clean*
   (the walk dies inside it: its own chunk, unchanged, whatever follows), *guarded* (unchanged
   unless the next byte extends the walk; checked per position, in bulk, for a non-ASCII next
   character; a walk that an ASCII byte extends counts as changed) or *changed*. A separator
   (0x20, and the bytes ``tables.separators`` turns into it first) is always its own chunk
   whose output is 0x20 (condition 1 of ``ugm/encoder.py``);
2. **dirty regions**: a chunk longer than one character starts at a *dirty* character
   (changed, or guarded and extended) and ends within the characters its charsmap walk
   enters (``CharWalk.reach``, all dirty positions walked at once), never past a separator.
   So each dirty position ``p`` *covers* ``[p, p + entered)`` (clipped at the next separator);
   overlapping or touching covers merge into regions. A region starts at a chunk boundary (a
   chunk reaching into it would start at a dirty character whose cover holds its start) and
   ends at one (every chunk starting inside ends within its start's cover), and no walk
   inside it goes past it: its chunk outputs (``UgmNormalizer.chunk_text``, remembered per
   region text) are the ones in context. Every other character is its own chunk, copied. (A
   charsmap key ending inside a character could leave a chunk boundary off a character
   start: then this path gives up.);
3. **whitespace**: with ``merge`` (remove_extra_whitespaces), llama.cpp's rules over the chunk
   outputs drop every 0x20 and put the space string before each run of other bytes, whatever
   ``prepend`` says; applied once to the whole text in numpy, on letters (``ugm/alphabet.py``);
4. **search**: ``pieces.letter_ids``, exact under condition 3 (checked on the normalised length).

Same ids as ``UgmEncoder.encode_whole`` (tested). ``encode`` returns None, for the caller's
other paths, when a condition fails: no ``merge``, user-defined tokens, space not escaped, a
corrupt charsmap, the text or a region's output not valid UTF-8, or too long for condition 3.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from tui_tok.tokenizer.ugm.alphabet import CODE_POINTS, Alphabet, build_alphabet
from tui_tok.tokenizer.ugm.charwalk import CharWalk
from tui_tok.tokenizer.ugm.hash import TokenHash
from tui_tok.tokenizer.ugm.normalize import ESCAPED_SPACE, UgmNormalizer
from tui_tok.tokenizer.ugm.pieces import letter_ids
from tui_tok.tokenizer.ugm.tables import UgmTables

_UNSEEN, _CLEAN, _GUARDED, _CHANGED = 0, 1, 2, 3
_SPACE_CODE = -4 | _CLEAN
"""Code of 0x20: clean, letter -1 (``_merge_spaces`` finds the separators by it)."""
_ASCII = np.arange(1, 0x80, dtype=np.int64)


def _code_points(s: str) -> np.ndarray:
    """Code points of ``s`` (uint32, no copy of the UTF-32 buffer)."""
    return np.frombuffer(s.encode("utf-32-le"), dtype="<u4")


def _lead_bytes(cps: np.ndarray) -> np.ndarray:
    """First UTF-8 byte of each code point (int64)."""
    c = cps.astype(np.int64)
    return np.select([c < 0x80, c < 0x800, c < 0x10000], [c, 0xC0 | (c >> 6), 0xE0 | (c >> 12)], 0xF0 | (c >> 18))


@dataclass(eq=False)
class TextIds:
    """The whole-text ids path of one vocab, with what it remembers between calls."""

    normalizer: UgmNormalizer
    """The vocab's normaliser (charsmap, whitespace flags)."""
    _alphabet: Alphabet | None = field(default=None, repr=False)
    _node: np.ndarray | None = field(default=None, repr=False)
    """Per guarded code point: the charsmap node its walk reached."""
    _walk: CharWalk | None = field(default=None, repr=False)
    """The charsmap's walks over many characters (None: no charsmap)."""
    _regions: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    """Dirty region text -> code points of its chunk outputs."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def usable(self) -> bool:
        """Whether the vocab meets the conditions of this path (``merge``, no user-defined
        tokens, space escaped, a charsmap whose deepest walk is known)."""
        n = self.normalizer
        if not (n.merge and not n.ud_first and n.space == ESCAPED_SPACE):
            return False
        if n.charsmap is not None and self._walk is None:
            self._walk = CharWalk.of(n.charsmap)
        return self._walk is None or self._walk.depth is not None

    def alphabet(self, tables: UgmTables, token_hash: TokenHash, unk_id: int) -> Alphabet:
        """The vocab's letters (built once, as llama.cpp builds its tables at load)."""
        found = self._alphabet
        if found is None:
            with self._lock:
                found = self._alphabet
                if found is None:
                    found = build_alphabet(tables, token_hash, unk_id)
                    self._node = np.zeros(CODE_POINTS, dtype=np.int32)
                    # a separator: its own chunk (condition 1), and letter -1 marks it
                    found.code[0x20] = _SPACE_CODE
                    self._walk_new(found, np.arange(0x100, dtype=np.int64))  # ASCII and Latin-1 now
                    self._alphabet = found
        return found

    def _walk_new(self, alphabet: Alphabet, new: np.ndarray) -> None:
        """Walk the distinct characters ``new`` (not walked yet) and store their kinds (and the
        nodes of guarded ones)."""
        node_of = self._node
        assert node_of is not None
        new = new[(alphabet.code[new] & 3) == _UNSEEN]
        walk = self._walk
        if walk is None:
            alphabet.code[new] |= _CLEAN
            return
        got, node = walk.kinds(new)
        kind = got.astype(np.int32) + 1  # CharWalk.kinds: 0 clean, 1 guarded, 2 changed
        guarded = np.flatnonzero(kind == _GUARDED)
        if guarded.size:  # a walk that an ASCII byte extends: changed (rare; checked per position otherwise)
            ext = walk.extends(node[guarded][:, None], _ASCII[None, :]).any(axis=1)
            kind[guarded[ext]] = _CHANGED
        node_of[new] = node  # before the kinds: another thread reads a node once it sees GUARDED
        alphabet.code[new] |= kind

    def _dirty(self, cps: np.ndarray, code: np.ndarray) -> np.ndarray:
        """Positions whose character may not be its own unchanged chunk."""
        kind = code & 3
        dirty = kind == _CHANGED
        guarded = np.flatnonzero((kind[:-1] == _GUARDED) & (cps[1:] >= 0x80))
        if guarded.size:
            assert self._walk is not None and self._node is not None
            ext = self._walk.extends(self._node[cps[guarded]], _lead_bytes(cps[guarded + 1]))
            dirty[guarded[ext]] = True
        return np.flatnonzero(dirty)

    def _region(self, text: str, alphabet: Alphabet) -> np.ndarray | None:
        """Letters of a dirty region's chunk outputs (None: not valid UTF-8)."""
        hit = self._regions.get(text)
        if hit is None:
            try:
                out = self.normalizer.chunk_text(text.encode("utf-8")).decode("utf-8")
            except UnicodeDecodeError:
                return None
            hit = self._regions[text] = alphabet.code[_code_points(out)] >> 2
        return hit

    def chunk_outputs(
        self, s: str, cps: np.ndarray, letters: np.ndarray, dirty: np.ndarray, alphabet: Alphabet
    ) -> np.ndarray | None:
        """Letters of the chunk outputs of ``s`` (code points ``cps``, ``letters``), dirty
        regions replaced (step 2)."""
        entered = np.ones(dirty.size, dtype=np.int64)
        if self._walk is not None:
            entered, off_start = self._walk.reach(cps, dirty)
            if off_start:  # a key ends inside a character: let the unit path do it
                return None
        seps = np.flatnonzero(cps == 0x20)
        unit_end = np.append(seps, cps.size)[np.searchsorted(seps, dirty)]
        cover = np.minimum(dirty + entered, unit_end)
        reach = np.maximum.accumulate(cover)
        new = np.ones(dirty.size, dtype=bool)
        new[1:] = dirty[1:] > reach[:-1]  # touching covers merge too: fewer, longer regions
        first = np.flatnonzero(new)
        starts = dirty[first].tolist()
        ends = reach[np.append(first[1:] - 1, dirty.size - 1)].tolist()
        parts = []
        at = 0
        for a, b in zip(starts, ends):
            rep = self._region(s[a:b], alphabet)
            if rep is None:
                return None
            parts.append(letters[at:a])
            parts.append(rep)
            at = b
        parts.append(letters[at:])
        return np.concatenate(parts)

    def encode(self, text: bytes, tables: UgmTables, token_hash: TokenHash, *, unk_id: int) -> list[int] | None:
        """Token ids of one raw fragment, or None (use another path)."""
        if not self.usable():
            return None
        spaced = text if tables.separators is None else text.translate(tables.separators)
        try:
            s = spaced.decode("utf-8")
        except UnicodeDecodeError:
            return None
        cps = _code_points(s)
        if not cps.size:
            return []
        alphabet = self.alphabet(tables, token_hash, unk_id)
        code = alphabet.code[cps]
        unseen = np.flatnonzero((code & 3) == _UNSEEN)
        if unseen.size:
            seen = np.zeros(CODE_POINTS, dtype=bool)
            seen[cps[unseen]] = True
            self._walk_new(alphabet, np.flatnonzero(seen))
            code[unseen] = alphabet.code[cps[unseen]]
        dirty = self._dirty(cps, code)
        letters = code >> 2
        if dirty.size:
            out = self.chunk_outputs(s, cps, letters, dirty, alphabet)
            if out is None:
                return None
            letters = out
        norm = _merge_spaces(letters, int(alphabet.code[0x2581] >> 2))
        if 4 * norm.size > tables.max_exact_bytes:  # condition 3, on a bound of the UTF-8 length
            chars = alphabet.chars[norm]  # unknown characters (letter 0) may be 4 bytes each
            width = 1 + (chars >= 0x80).astype(np.int64) + (chars >= 0x800) + ((chars >= 0x10000) | (norm == 0))
            if int(width.sum()) > tables.max_exact_bytes:
                return None
        return letter_ids(norm, alphabet, tables, token_hash, unk_id=unk_id).tolist()


def _merge_spaces(letters: np.ndarray, space: int) -> np.ndarray:
    """The letters after llama.cpp's whitespace rules with ``merge``: every 0x20 (letter -1)
    dropped, the space string (letter ``space``) before each run of other characters (the
    rules act on bytes; a run of characters is a run of bytes). A space is kept, as the space
    string, where a non-space follows it; one more goes first if the text starts with a
    non-space."""
    if not letters.size:
        return np.zeros(0, dtype=np.int32)
    is_space = letters < 0
    word = ~is_space
    keep = word.copy()
    keep[:-1] |= word[1:]  # keep[i]: not a space, or a space before a non-space
    body = np.where(is_space, np.int32(space), letters.astype(np.int32, copy=False))[keep]
    if is_space[0]:
        return body
    return np.concatenate((np.array([space], dtype=np.int32), body))
