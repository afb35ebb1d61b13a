"""UGM tokens of a fragment in whole-text numpy passes (no per-unit Python work).

The whole text is normalised at once and searched by pieces:

1. **characters**: each new character is walked alone through the charsmap, all at once
   (``CharWalk.kinds``), and its kind remembered per vocab (``ugm/alphabet.py``): *clean*
   (the walk dies inside it: its own chunk, unchanged, whatever follows), *guarded* (unchanged
   unless the walk goes on through all the bytes of the next character, ``CharWalk.enters``,
   checked per position in bulk; a walk that an ASCII byte extends counts as changed) or
   *changed*. A separator (0x20, and the bytes ``tables.separators`` turns into it first) is
   always its own chunk whose output is 0x20 (condition 1 of ``ugm/encoder.py``);
2. **dirty regions**: a chunk longer than one character starts at a *dirty* character
   (changed, guarded and extended, or one whose first byte may start a user-defined token)
   and ends within the characters its charsmap walk enters (``CharWalk.reach``; a user-defined
   token's path: its longest token), never past a separator. So each dirty position ``p``
   *covers* ``[p, p + entered)``; overlapping or touching covers merge into regions. A region
   starts and ends at chunk boundaries and no walk inside it goes past it: its chunk outputs
   (``UgmNormalizer.chunk``, remembered per region text) are the ones in context. Every other
   character is its own chunk, copied. (A charsmap key ending inside a character could leave a
   chunk boundary off a character start: then this path gives up.);
3. **whitespace** (``_merge_spaces``): llama.cpp's rules, applied once in numpy on letters,
   after one 0x20 put before the text. Spans follow each letter's input offsets through steps
   2 and 3;
4. **search**: ``pieces.letter_search``, exact under condition 3 (checked on the normalised length).

``encode`` returns None, for the caller's other paths, when a condition fails: space not
escaped, a corrupt charsmap, the text or a region's output not valid UTF-8, or too long for
condition 3.

A fast path: what it computes equals ``ugm/reference.py`` (llama.cpp's algorithm written once;
``tests/tokenizer/test_reference.py`` compares them on long texts too).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from tui_tok.tokenizer.ugm.alphabet import CODE_POINTS, Alphabet, build_alphabet
from tui_tok.tokenizer.ugm.charwalk import CharWalk
from tui_tok.tokenizer.ugm.hash import TokenHash
from tui_tok.tokenizer.ugm.normalize import ESCAPED_SPACE, UgmNormalizer
from tui_tok.tokenizer.ugm.pieces import letter_search
from tui_tok.tokenizer.ugm.tables import UgmTables

_UNSEEN, _CLEAN, _GUARDED, _CHANGED = 0, 1, 2, 3
_SPACE_CODE = -4 | _CLEAN
"""Code of 0x20: clean, letter -1 (``_merge_spaces`` finds the separators by it)."""
_ASCII = np.arange(1, 0x80, dtype=np.int64)
Region = tuple[np.ndarray, np.ndarray, np.ndarray]
"""A dirty region's letters, and the input offsets before and after each (``TextIds._region``)."""


_DECODE_BLOCK = 1 << 14


def _code_points(s: str) -> np.ndarray:
    """Code points of ``s`` (uint32, no copy of the UTF-32 buffer)."""
    return np.frombuffer(s.encode("utf-32-le"), dtype="<u4")


def _decode(data: bytes) -> np.ndarray | None:
    """Code points of UTF-8 ``data`` (None: not valid UTF-8): its bytes when all are ASCII,
    else uint32 decoded a block at a time, so that the text's ``str`` and UTF-32 copies are a
    block's (reused), not two of 4 bytes per character (fresh memory costs a page fault per
    4 KB on a first encode). The blocks join into the whole, and valid UTF-8 strings join
    into valid UTF-8, so the whole is valid exactly when each block is, once valid input is
    never cut inside a character: a block goes on to the next byte that is no continuation
    byte (at most 3 more)."""
    if data.isascii():
        return np.frombuffer(data, dtype=np.uint8)
    size = len(data)
    view = memoryview(data)
    out = np.empty(size, dtype=np.uint32)  # a character per byte at most: the tail stays untouched
    count = lo = 0
    while lo < size:
        hi = min(lo + _DECODE_BLOCK, size)
        for _ in range(3):
            if hi < size and data[hi] & 0xC0 == 0x80:
                hi += 1
        try:
            part = str(view[lo:hi], "utf-8")
        except UnicodeDecodeError:
            return None
        chars = _code_points(part)
        out[count : count + chars.size] = chars
        count += chars.size
        lo = hi
    return out[:count]


@dataclass(eq=False)
class TextIds:
    """The whole-text ids path of one vocab, with what it remembers between calls."""

    normalizer: UgmNormalizer
    """The vocab's normaliser (charsmap, whitespace flags)."""
    _alphabet: Alphabet | None = field(default=None, repr=False)
    _node: np.ndarray | None = field(default=None, repr=False)
    """Per guarded code point: the charsmap node its walk reached."""
    _walk: CharWalk | None = field(default=None, repr=False)
    _enter: np.ndarray = field(default_factory=lambda: np.zeros(0x80, dtype=bool), repr=False)
    """Per code point (up to its size): whether a walk at the node of some guarded character
    may enter it (``CharWalk.entered``): only those go to ``CharWalk.enters``."""
    """The charsmap's walks over many characters (None: no charsmap)."""
    _regions: dict[str, Region] = field(default_factory=dict, repr=False)
    """Dirty region text -> ``_region`` of it."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def usable(self) -> bool:
        """Whether the vocab meets the conditions of this path (space escaped, a charsmap whose
        deepest walk is known)."""
        n = self.normalizer
        if n.space != ESCAPED_SPACE:
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
                    if self.usable():  # (else 0x20 may be a letter of the normalised text)
                        self._node = np.zeros(CODE_POINTS, dtype=np.int32)
                        # a separator: its own chunk (condition 1), and letter -1 marks it
                        found.code[0x20] = _SPACE_CODE
                        # ASCII, Latin-1 and the vocab's own characters now: a text in the vocab's
                        # language then meets few unwalked ones (a Japanese text's first encode
                        # otherwise walks and patches most of its positions)
                        first = np.zeros(max(0x100, int(found.chars[-1]) + 1), dtype=bool)
                        first[:0x100] = True
                        first[found.chars[1:]] = True  # (not ``np.union1d``: see ``_mark_entered``)
                        self._walk_new(found, np.flatnonzero(first))
                    self._alphabet = found
        return found

    def _walk_new(self, alphabet: Alphabet, new: np.ndarray) -> None:
        """Walk the distinct characters ``new`` (not walked yet) and store their kinds (and the
        nodes of guarded ones)."""
        node_of = self._node
        assert node_of is not None
        new = new[(alphabet.code[new] & 3) == _UNSEEN]
        walk = self._walk
        kind = np.full(new.size, _CLEAN, dtype=np.int32)
        if walk is not None:
            got, node = walk.kinds(new)
            kind += got  # CharWalk.kinds: 0 clean, 1 guarded, 2 changed
            guarded = np.flatnonzero(kind == _GUARDED)
            if guarded.size:  # a walk that an ASCII byte extends: changed (rare; checked per position otherwise)
                ext = walk.extends(node[guarded][:, None], _ASCII[None, :]).any(axis=1)
                kind[guarded[ext]] = _CHANGED
            node_of[new] = node  # before the kinds: another thread reads a node once it sees GUARDED
            self._mark_entered(walk, node[kind == _GUARDED])
        kind[self._ud_start(new)] = _CHANGED  # a user-defined token may start there: a region
        alphabet.code[new] |= kind

    def _mark_entered(self, walk: CharWalk, nodes: np.ndarray) -> None:
        """Add to ``_enter`` the characters a walk at ``nodes`` may enter (a grown copy
        replaces it: another thread may be reading it)."""
        if not nodes.size:
            return
        nodes = np.sort(nodes)  # distinct (not ``np.unique``: its first call imports numpy.ma, ~10 ms)
        lo, hi = walk.entered(nodes[np.append(True, nodes[1:] != nodes[:-1])])
        if not lo.size:
            return
        table = np.zeros(max(self._enter.size, int(hi.max())), dtype=bool)
        table[: self._enter.size] = self._enter
        table[_ragged(lo, hi - lo)] = True
        self._enter = table

    def _ud_start(self, cps: np.ndarray) -> np.ndarray:
        """Whether each character's first byte starts a user-defined token (its own region:
        ``UgmNormalizer.chunk`` copies the deepest path of their trie first)."""
        first = self.normalizer.ud_first
        if not first:
            return np.zeros(cps.size, dtype=bool)
        lead = np.where(cps < 0x80, cps, np.where(cps < 0x800, 0xC0 | cps >> 6, 0xE0 | cps >> 12))
        lead = np.where(cps < 0x10000, lead, 0xF0 | cps >> 18)
        return np.isin(lead, sorted(first))

    def _dirty(self, cps: np.ndarray, kind: np.ndarray) -> np.ndarray:
        """Positions whose character may not be its own unchanged chunk (``kind``: uint8 per
        position)."""
        dirty = np.flatnonzero(kind == _CHANGED)
        guarded = kind[:-1] == _GUARDED
        guarded &= cps[1:] >= 0x80  # (a walk that an ASCII byte extends is changed)
        at = np.flatnonzero(guarded)
        del guarded
        if at.size:  # only where a guarded walk may enter the next character
            enter = self._enter
            after = cps[at + 1]
            maybe = after < enter.size
            maybe[maybe] = enter[after[maybe]]
            at = at[maybe]
        if at.size:
            assert self._walk is not None and self._node is not None
            ext = self._walk.enters(self._node[cps[at]], cps[at + 1])
            if ext.any():  # kinds apart: no position twice (and ``np.union1d`` is slow to start)
                dirty = np.sort(np.concatenate((dirty, at[ext])))
        return dirty

    def _region(self, text: str, alphabet: Alphabet) -> Region | None:
        """Letters of a dirty region's chunk outputs, and for each the input offsets (from the
        region's start) of the boundaries before and after it as ``UgmNormalizer.normalize``
        maps them: after, the chunk's end; before, the chunk's start while only spaces precede
        it in the chunk's output, else its end (None: not valid UTF-8)."""
        hit = self._regions.get(text)
        if hit is None:
            data = text.encode("utf-8")
            out: list[str] = []
            bounds: list[tuple[int, int]] = []
            pos = 0
            while pos < len(data):
                rep, used = self.normalizer.chunk(data, pos)
                end = pos + used
                try:
                    chars = rep.decode("utf-8")
                except UnicodeDecodeError:
                    return None
                real = len(chars) - len(chars.lstrip(" "))  # the chars up to the first non-space
                bounds += [(pos, end)] * min(real + 1, len(chars)) + [(end, end)] * (len(chars) - real - 1)
                out.append(chars)
                pos = end
            letters = _narrow(alphabet.code[_code_points("".join(out))] >> 2, alphabet.letter_type)
            pairs = np.array(bounds, dtype=np.int32).reshape(-1, 2)
            hit = self._regions[text] = (letters, pairs[:, 0].copy(), pairs[:, 1].copy())
        return hit

    def regions(self, cps: np.ndarray, dirty: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """Starts and ends of the dirty regions of the text of code points ``cps`` (step 2; None:
        a key ends inside a character)."""
        n = cps.size
        entered = np.ones(dirty.size, dtype=np.int64)
        if self._walk is not None:
            entered, off_start = self._walk.reach(cps, dirty)
            if off_start:  # a key ends inside a character: let the unit path do it
                return None
        if self.normalizer.ud_first:  # a user-defined token's path: up to its longest token
            ud = self._ud_start(cps[dirty])
            entered[ud] = np.maximum(entered[ud], max(map(len, self.normalizer.user_defined)))
        np.minimum(entered, n - dirty, out=entered)
        # a cover stops before the first separator it enters (a few steps over the dirty
        # positions, not a search over every separator of the text)
        for j in range(1, int(entered.max()) if entered.size else 0):
            at = np.flatnonzero(entered > j)
            if not at.size:
                break
            entered[at[cps[dirty[at] + j] == 0x20]] = j
        cover = dirty + entered
        reach = np.maximum.accumulate(cover)
        new = np.ones(dirty.size, dtype=bool)
        new[1:] = dirty[1:] > reach[:-1]  # touching covers merge too: fewer, longer regions
        first = np.flatnonzero(new)
        return dirty[first], reach[np.append(first[1:] - 1, dirty.size - 1)]

    def outputs(self, cps: np.ndarray, starts: np.ndarray, ends: np.ndarray, alphabet: Alphabet) -> list[Region] | None:
        """``_region`` of each region of the text of code points ``cps``, looked up by region
        text (most regions repeat: 1,428 regions, 29 distinct texts in the benchmark's corpus);
        None: one is not valid UTF-8."""
        sizes = ends - starts
        joined = cps[_ragged(starts, sizes)].astype("<u4").tobytes().decode("utf-32-le")  # one decode
        cut = np.cumsum(sizes).tolist()
        texts = list(map(joined.__getitem__, map(slice, [0, *cut[:-1]], cut)))
        known = self._regions
        if not known.keys() >= set(texts):
            for text in set(texts).difference(known):  # each new text once, not each region
                if self._region(text, alphabet) is None:
                    return None
        return list(map(known.__getitem__, texts))

    def encode(
        self, text: bytes, tables: UgmTables, token_hash: TokenHash, *, unk_id: int, spans: bool = False
    ) -> tuple[np.ndarray, np.ndarray | None] | None:
        """Token ids of one raw fragment, and with ``spans`` each token's end offset in ``text``
        (a token starts where the one before it ends); None: use another path. Full-length
        temporaries are few and small (uint8 kinds, bool masks, one array of codes changed in
        place), and the text's copies are dropped before the search: on a first encode, fresh
        memory costs a page fault per 4 KB."""
        if not self.usable():
            return None
        if not text:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64) if spans else None
        # a 0x20 first: kept as the space string before a non-space, dropped before a space,
        # exactly the one space that ``merge`` puts first (step 3)
        spaced = b" " + (text if tables.separators is None else text.translate(tables.separators))
        cps = _decode(spaced)
        if cps is None:
            return None
        offs = None  # with ``spans``: per character, the input offsets of its start (row 0) and end
        if spans:
            offs = np.empty((2, cps.size), dtype=np.int64 if len(text) >> 31 else np.int32)
            if cps.size == len(spaced):
                offs[1] = np.arange(cps.size)
            else:
                np.cumsum(utf8_widths(cps), dtype=offs.dtype, out=offs[1])
                offs[1] -= 1
            offs[0, 0] = -1
            offs[0, 1:] = offs[1, :-1]
        del spaced
        alphabet = self.alphabet(tables, token_hash, unk_id)
        code = alphabet.code[cps]
        kind = np.bitwise_and(code, 3, out=np.empty(code.size, dtype=np.uint8), casting="unsafe")
        # every character walked already (the usual case): one count, no mask of the text
        unseen = np.flatnonzero(kind == _UNSEEN) if np.count_nonzero(kind) < kind.size else kind[:0]
        if unseen.size:
            new = cps[unseen]
            seen = np.zeros(int(new.max()) + 1, dtype=bool)  # not CODE_POINTS: reading a page faults it
            seen[new] = True
            del new
            self._walk_new(alphabet, np.flatnonzero(seen))
            code[unseen] = alphabet.code[cps[unseen]]
            kind[unseen] = code[unseen] & 3
        dirty = self._dirty(cps, kind)
        del kind
        letters = _narrow(np.right_shift(code, 2, out=code), alphabet.letter_type)
        del code
        space = int(alphabet.code[0x2581] >> 2)
        rules = (self.normalizer.merge, self.normalizer.prepend)
        if dirty.size:
            bounds = self.regions(cps, dirty)
            reps = None if bounds is None else self.outputs(cps, *bounds, alphabet)
            del cps
            if bounds is None or reps is None:
                return None
            box = [offs]  # the callee holds the only reference: a grown copy replaces them in memory
            del offs
            norm, end_at = _replace_and_merge(letters, *bounds, reps, space, box, rules)
        else:
            del cps
            norm, end_at = _merge_spaces(letters, None, None, space, offs, rules)
            del offs
        del letters
        if 4 * norm.size > tables.max_exact_bytes:  # condition 3, on a bound of the UTF-8 length
            chars = alphabet.chars[norm]  # unknown characters (letter 0) may be 4 bytes each
            width = 1 + (chars >= 0x80).astype(np.int64) + (chars >= 0x800) + ((chars >= 0x10000) | (norm == 0))
            if int(width.sum()) > tables.max_exact_bytes:
                return None
        ids, ends = letter_search(norm, alphabet, tables, token_hash, unk_id=unk_id, ends=spans)
        return ids, None if ends is None or end_at is None else end_at[ends - 1]


def utf8_widths(cps: np.ndarray) -> np.ndarray:
    """UTF-8 length of each code point (uint8)."""
    width = (cps >= 0x80).view(np.uint8) + np.uint8(1)
    width += cps >= 0x800
    width += cps >= 0x10000
    return width


def _replace_and_merge(
    letters: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    reps: list[Region],
    space: int,
    box: list[np.ndarray | None],
    rules: tuple[bool, bool],
) -> tuple[np.ndarray, np.ndarray | None]:
    """``_merge_spaces`` of ``letters`` (and of ``offs``, taken out of ``box``) with region ``k``
    (``[starts[k], ends[k])``) replaced by ``reps[k]``, with no copy of the text where no output is longer
    than its region: the output is written in place at its region's end and the positions
    before it are dropped by the merge. Regions that grow (NFKC: "½" -> "1⁄2", Thai "ำ") cost
    one copy of the text."""
    offs = box.pop()
    out_len = np.fromiter((len(r[0]) for r in reps), dtype=np.int64, count=len(reps))
    size = ends - starts
    grows = out_len > size
    fits = np.flatnonzero(~grows)
    f_len = out_len[fits]
    f_end = ends[fits]
    if f_len.any():
        at = _ragged(f_end - f_len, f_len)
        keys = fits.tolist()
        letters[at] = np.concatenate([reps[k][0] for k in keys])
        if offs is not None:  # each region's offsets from its input start
            shift = np.repeat(offs[0, starts[fits]], f_len)
            for row in (0, 1):
                offs[row, at] = np.concatenate([reps[k][1 + row] for k in keys]) + shift
    gone = size[fits] - f_len
    some = gone > 0
    dropped = _ragged(starts[fits][some], gone[some])
    follow = np.repeat((f_end - f_len)[some], gone[some])
    if grows.any():  # the text between them and their outputs, joined (one copy)
        at = np.flatnonzero(grows)
        g_end = ends[at]
        bounds = np.append(0, np.stack((starts[at], g_end), axis=1).ravel()).tolist()
        bounds.append(letters.size)
        keys = at.tolist()
        letters = _join(letters, bounds, [reps[k][0] for k in keys])
        if offs is not None:  # row by row into one new array (a 10 MB text's rows: 36 MB each)
            base = offs[0, starts[at]].tolist()
            grown = np.empty((2, letters.size), dtype=offs.dtype)
            for row in (0, 1):
                _join(offs[row], bounds, [reps[k][1 + row] + b for k, b in zip(keys, base)], out=grown[row])
            offs = grown
        shift = np.append(0, np.cumsum(out_len[at] - size[at]))  # growth before a position
        dropped += shift[np.searchsorted(g_end, dropped, side="right")]
        follow += shift[np.searchsorted(g_end, follow, side="right")]
    return _merge_spaces(letters, dropped, follow, space, offs, rules)


def _join(rows: np.ndarray, bounds: list[int], inserts: list[np.ndarray], out: np.ndarray | None = None) -> np.ndarray:
    """``rows`` with ``rows[bounds[2k+1] : bounds[2k+2]]`` replaced by ``inserts[k]`` (into ``out``)."""
    parts: list[np.ndarray] = [rows[0:0]] * (2 * len(inserts) + 1)
    parts[::2] = map(rows.__getitem__, map(slice, bounds[::2], bounds[1::2]))
    parts[1::2] = inserts
    if out is None:
        return np.concatenate(parts, dtype=rows.dtype, casting="unsafe")
    return np.concatenate(parts, out=out, casting="unsafe")


def _ragged(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``concatenate([arange(s, s + c) for s, c in zip(starts, counts)])`` (small here)."""
    first = np.cumsum(counts) - counts
    return np.arange(int(counts.sum()), dtype=np.int64) + np.repeat(starts - first, counts)


def _merge_spaces(
    letters: np.ndarray,
    dropped: np.ndarray | None,
    follow: np.ndarray | None,
    space: int,
    offs: np.ndarray | None,
    rules: tuple[bool, bool],
) -> tuple[np.ndarray, np.ndarray | None]:
    """The letters after llama.cpp's whitespace rules (the caller puts one 0x20 first; they act
    on bytes, and a run of characters is a run of bytes). ``rules``: (merge, prepend). With
    merge every 0x20 (letter -1) is dropped and the space string (letter ``space``) goes before
    each run of other characters: a space is kept, as the space string, where a non-space
    follows it. Without, the first 0x20 goes, each other one becomes the space string, and with
    prepend one more goes before the first other character. The positions ``dropped`` are not
    part of the text: each takes the kind of the position ``follow`` gives it (the first one
    after its run, which is not dropped; ``n``: the end), and is left out. ``letters`` (of
    ``_narrow``) may be overwritten.

    With ``offs`` (each position's input offsets before and after it), also the input offset
    of the boundary after each letter left: an inserted space string's is the one before the
    letter after it (``UgmNormalizer.normalize`` writes it with the word it opens)."""
    merge, prepend = rules
    n = letters.size
    word = letters != _separator(letters.dtype)
    if dropped is None or not dropped.size:
        dropped = None
    if merge and dropped is not None:
        assert follow is not None
        follows = np.zeros(dropped.size, dtype=bool)
        real = follow < n
        follows[real] = word[follow[real]]
        word[dropped] = follows
    keep = np.empty(n, dtype=bool)
    if merge:
        np.logical_or(word[:-1], word[1:], out=keep[:-1])  # not a space, or a space before a non-space
        keep[-1] = word[-1]
    else:
        keep[:] = True
        keep[0] = False
    if dropped is not None:
        keep[dropped] = False
    del word
    out = letters[keep]
    # the spaces left become the space string, on the shorter array, without branches: a
    # masked copy costs a mispredicted branch per scattered separator
    sep = _separator(out.dtype)
    spaces = out == sep
    out -= spaces * out.dtype.type(sep - space)
    end_at = None if offs is None else offs[1][keep]
    inserted = np.flatnonzero(spaces) if merge else np.flatnonzero(~spaces)[:1] if prepend else spaces[:0]
    if not merge and inserted.size:
        out = np.insert(out, inserted[0], out.dtype.type(space))
        end_at = None if end_at is None else np.insert(end_at, inserted[0], 0)
    if end_at is not None and offs is not None:
        end_at[inserted] = offs[0][keep][inserted + merge]
    return out, end_at


def _narrow(letters: np.ndarray, letter_type: type[np.integer]) -> np.ndarray:
    """``letters`` (signed, a separator -1) in ``Alphabet.letter_type``, where a separator wraps
    to the type's largest value, no letter's: a byte per letter for a small alphabet, so every
    copy of the text from here to the search is a quarter of the size (fresh memory costs a
    page fault per 4 KB on a first encode)."""
    return letters if letters.dtype == letter_type else letters.astype(letter_type)


def _separator(dtype: np.dtype) -> int:
    """The letter of a separator in letters of ``dtype`` (``_narrow``)."""
    return -1 if np.issubdtype(dtype, np.signedinteger) else int(np.iinfo(dtype).max)
