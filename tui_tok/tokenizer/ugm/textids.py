"""UGM token ids of a long fragment in whole-text numpy passes (no per-unit Python work).

``ugm/encoder.py`` cuts a fragment into units and handles each distinct unit in Python: about a
microsecond each, 14k distinct units in 0.56 MB of mixed text. For a long fragment (ids only)
this module normalises the whole text at once and searches it by pieces (``ugm/pieces.py``):

1. **characters**: each distinct character is walked alone through the charsmap, all at once
   (``Charsmap.walk_chars``, remembered per vocab): *clean* (its own chunk, unchanged, whatever
   follows), *guarded* (unchanged unless the next byte extends the walk: checked per position,
   in bulk) or *changed*. A separator (0x20, and the bytes ``tables.separators`` turns into it
   first) is always its own chunk whose output is 0x20 (condition 1 of ``ugm/encoder.py``);
2. **dirty units**: a unit (the text between separators) holding a changed character or an
   extended walk is normalised alone by ``UgmNormalizer.normalize`` (exact: no chunk crosses a
   separator), remembered per unit text; every other character is its own chunk, copied;
3. **whitespace**: with ``merge`` (remove_extra_whitespaces), llama.cpp's rules over the chunk
   outputs drop every 0x20 and put the space string before each run of other bytes, whatever
   ``prepend`` says. So a dirty unit ``u`` whose normal form ``normalize(b" " + u)`` is the space
   string and ``z`` (no 0x20 in ``z``) is replaced by ``z`` (by nothing when the form is empty)
   and the rules are applied once to the whole text, in numpy;
4. **search**: ``pieces.text_ids``, exact under condition 3 (checked on the normalised length).

Same ids as ``UgmEncoder.encode_whole`` (tested). Returns None, for the caller's other paths,
when a condition fails: no ``merge``, user-defined tokens, space not escaped, text or a dirty
unit's normal form not valid UTF-8, or too long for condition 3.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tui_tok.tokenizer.ugm.hash import TokenHash, text_code_points
from tui_tok.tokenizer.ugm.normalize import ESCAPED_SPACE, UgmNormalizer
from tui_tok.tokenizer.ugm.pieces import text_ids
from tui_tok.tokenizer.ugm.tables import UgmTables

_UNSEEN = -1
_CLEAN, _GUARDED, _CHANGED = 0, 1, 2
_SPACE_CP = 0x2581
_CODE_POINTS = 0x110000


@dataclass(eq=False)
class TextIds:
    """The whole-text ids path of one vocab, with what it remembers between calls."""

    normalizer: UgmNormalizer
    """The vocab's normaliser (charsmap, whitespace flags)."""
    _kind: np.ndarray | None = field(default=None, repr=False)
    """Per code point: ``_UNSEEN`` or its kind (``_CLEAN``, ``_GUARDED``, ``_CHANGED``)."""
    _node: np.ndarray | None = field(default=None, repr=False)
    """Per guarded code point: the charsmap node its walk reached."""
    _dirty: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    """Dirty unit text -> code points of its replacement (step 2 of the module docstring)."""

    def usable(self) -> bool:
        """Whether the vocab meets the conditions of this path (``merge``, no user-defined
        tokens, space escaped)."""
        n = self.normalizer
        return n.merge and not n.ud_first and n.space == ESCAPED_SPACE

    def kinds(self, cps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Kind and charsmap node of each position's character (new characters walked at once)."""
        kind_of, node_of = self._kind, self._node
        if kind_of is None or node_of is None:  # threads: each table written before it is read
            node_of = self._node = np.zeros(_CODE_POINTS, dtype=np.int64)
            kind_of = np.full(_CODE_POINTS, _UNSEEN, dtype=np.int8)
            kind_of[0x20] = _CLEAN  # a separator: its own chunk (condition 1)
            self._kind = kind_of
        kind = kind_of[cps]
        if (kind == _UNSEEN).any():
            seen = np.zeros(_CODE_POINTS, dtype=bool)
            seen[cps[kind == _UNSEEN]] = True
            new = np.flatnonzero(seen)
            charsmap = self.normalizer.charsmap
            if charsmap is None:
                kind_of[new] = _CLEAN
            else:
                got, node = charsmap.walk_chars(new)
                node_of[new] = node  # before the kinds: another thread reads a node once it sees GUARDED
                kind_of[new] = got
            kind = kind_of[cps]
        return kind, node_of

    def dirty_positions(self, cps: np.ndarray) -> np.ndarray:
        """Positions whose character is not its own unchanged chunk for sure."""
        kind, node_of = self.kinds(cps)
        dirty = kind == _CHANGED
        guarded = np.flatnonzero(kind[:-1] == _GUARDED)
        if guarded.size:
            charsmap = self.normalizer.charsmap
            assert charsmap is not None
            nxt = cps[guarded + 1]
            lead = np.select(
                [nxt < 0x80, nxt < 0x800, nxt < 0x10000], [nxt, 0xC0 | (nxt >> 6), 0xE0 | (nxt >> 12)], 0xF0 | (nxt >> 18)
            )
            dirty[guarded[charsmap.extends_many(node_of[cps[guarded]], lead)]] = True
        return np.flatnonzero(dirty)

    def _replacement(self, unit: str) -> np.ndarray | None:
        """Code points replacing a dirty unit (step 3), or None if its normal form is not UTF-8."""
        hit = self._dirty.get(unit)
        if hit is None:
            norm = self.normalizer.normalize(b" " + unit.encode("utf-8")).text
            assert not norm or norm.startswith(ESCAPED_SPACE)  # merge: the space string first
            try:
                rest = norm[len(ESCAPED_SPACE) :].decode("utf-8")
            except UnicodeDecodeError:
                return None
            hit = self._dirty[unit] = text_code_points(rest)
        return hit

    def chunk_outputs(self, s: str, cps: np.ndarray) -> np.ndarray | None:
        """Code points of the chunk outputs (before the whitespace rules), dirty units replaced."""
        dirty = self.dirty_positions(cps)
        if not dirty.size:
            return cps
        seps = np.flatnonzero(cps == 0x20)
        unit = np.searchsorted(seps, dirty)  # unit k: after separator k - 1, up to separator k
        hit = np.unique(unit).tolist()
        starts = np.append(0, seps + 1)
        ends = np.append(seps, cps.size)
        parts = []
        at = 0
        for k in hit:
            a, b = int(starts[k]), int(ends[k])
            rep = self._replacement(s[a:b])
            if rep is None:
                return None
            parts.append(cps[at:a])
            parts.append(rep)
            at = b
        parts.append(cps[at:])
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
        cps = text_code_points(s)
        if not cps.size:
            return []
        out = self.chunk_outputs(s, cps)
        if out is None:
            return None
        norm = _merge_spaces(out)
        if 4 * norm.size > tables.max_exact_bytes:  # condition 3, on a bound of the UTF-8 length
            width = 1 + (norm >= 0x80).astype(np.int64) + (norm >= 0x800) + (norm >= 0x10000)
            if int(width.sum()) > tables.max_exact_bytes:
                return None
        return text_ids(norm, tables, token_hash, unk_id=unk_id).tolist()


def _merge_spaces(cps: np.ndarray) -> np.ndarray:
    """llama.cpp's whitespace rules with ``merge``: every 0x20 dropped, U+2581 before each run
    of other characters (the rules act on bytes; a run of characters is a run of bytes)."""
    word = cps != 0x20
    first = word.copy()
    first[1:] &= ~word[:-1]  # a character after a space, or the first one
    step = word.astype(np.int64) + first
    at = np.cumsum(step)
    out = np.empty(int(at[-1]) if at.size else 0, dtype=np.int64)
    out[at[word] - 1] = cps[word]
    out[at[first] - 2] = _SPACE_CP
    return out
