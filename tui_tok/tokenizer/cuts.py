"""Proven cuts of SPM, UGM, WPM and RWKV: byte positions of a raw-text fragment where its ids are
exactly the ids of the two sides encoded on their own, the right side as the *middle* of a fragment.

``CutTable.allowed(data, lo, hi)`` lists such positions in ``data[lo:hi]``. Each test reads only
the character before the cut and the one after it (both must be unchanged by an edit for the cut
to hold in the old text and the new one). Line numbers are llama.cpp's ``src/llama-vocab.cpp``.

Why each cut is exact (x: the character before the cut, y: the one after; X, Y their bytes):

- **SPM** (``llm_tokenizer_spm_session``, V:115-230): the fragment is space-escaped (``' '`` ->
  ▁) and split into UTF-8 characters; ``try_add_bigram`` queues two neighbouring symbols only if
  their concatenation is a token, so every symbol ever formed is one character or a token text.
  If no token text holds esc(x) esc(y) side by side, no symbol ever spans the cut. The queue then
  pops the bigrams of each side in the same relative order (score, then left position: the
  comparator only compares, shifting positions keeps the order), and ``resegment`` / byte
  fallback work per final symbol, so the ids are those of the two sides. The space prefix
  (``add_space_prefix``, V:3453) is added at a fragment start only: the right side is encoded
  as a middle (``cut_edit`` gives it real text on its left and drops those tokens).
- **RWKV** (``llm_tokenizer_rwkv_session``, V:1328-1360): greedy longest match on bytes, but the
  trie walk goes on *past* the longest token as long as the trie has a child, so a choice at i
  depends on bytes far beyond its token. The walk can step from X's last byte onto Y's first
  only if some token holds those two bytes side by side; if none does, no walk started before
  the cut reads past it, every token chosen there ends at or before it, one ends exactly at it
  (tokens tile the text), and the walk from the cut reads only what follows. Both sides are
  thus encoded alone; the table is on bytes (RWKV is byte-level).
- **WPM** (``llm_tokenizer_wpm_session::preprocess``, V:834-876): NFD and lowercase are per code
  point, then words end at every whitespace and every punctuation / ASCII symbol / CJK character
  is a word of its own; each word is matched alone (V:793-830). When x or y is ASCII whitespace
  or ASCII punctuation or symbol (identity under NFD), a word ends at the cut in the whole and in
  the parts, so the words (and ids) are those of the parts.
- **BPE, GEMMA4 pre-tokenizer** (``llm_tokenizer_bpe_session::tokenize``, V:619-700): the
  fragment is space-escaped (V:3506) and split into runs of newlines and runs of the rest, each
  merged alone: a cut where x or y (not both) is a newline is a word edge. Inside a word, a
  bigram is merged only when its two texts form a merge rule, so two symbols join across the cut
  only if some merge result (or, for a newline run taken whole, V:637, some token) holds esc(x)
  esc(y) side by side; the queue order and byte fallback argue as for SPM.
- **UGM** (``llm_tokenizer_ugm_session``, V:985-1065, ``normalize`` V:1078-1122): the fragment is
  normalised by longest matches of user-defined texts and charsmap keys; then the Viterbi lattice
  has an edge for each token text found at a character start, and an unknown edge for a
  character with no one-character token. A cut holds when (1) no charsmap key nor user-defined
  text holds X's last byte next to Y's first (no match crosses it, so the normalised text is
  the two normalised sides); (2) the normalisation on both sides of it is no space and not
  empty (the whitespace state ``processing_non_ws`` is then "inside a word" there, whatever came
  before: no space is inserted or merged at the cut); (3) no token holds, side by side, a byte
  that can end the left normalisation and one that can start the right (every lattice path goes
  through the cut); (4) the normalised character on one side has a one-character token (no
  unknown edge on that side: the backtrack merges consecutive unknown ids, V:1052-1062); (5) all
  score sums are exact in double, in the whole text and in the stretch encoded apart: the right
  side's comparisons are then those of the whole shifted by one constant, so the same ties and
  the same winners. Proven either for every text up to ``max_bytes`` (``cut_sums.exact_sums``), or
  per text from the weight of its own tokens (``cut_sums.UgmSums``, for longer texts).

Tables are built once per vocab with numpy (t5's and nomic's charsmaps walked in bulk,
``charsmap_ends``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from tui_tok.tokenizer.arrays.sorted_unique import sorted_unique
from tui_tok.tokenizer.core.types import TokenAttr, VocabType
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.cut_sums import Spread, UgmSums, exact_sums
from tui_tok.tokenizer.ugm.charsmap import Charsmap, parse_charsmap

_ESC = 0x2581
_ASCII_CUT = np.zeros(128, dtype=bool)
"""ASCII whitespace (llama.cpp's 0x09-0x0D, 0x20) and punctuation / symbols: WPM word ends."""
for _c in range(128):
    _ASCII_CUT[_c] = chr(_c) in "\t\n\v\f\r " or (0x21 <= _c <= 0x7E and not chr(_c).isalnum())


def byte_pairs(texts: list[bytes]) -> np.ndarray:
    """256x256 table: True where byte i is followed by byte j inside some text."""
    table = np.zeros((256, 256), dtype=bool)
    joined = np.frombuffer(b"\x00".join(texts), dtype=np.uint8)
    if len(joined) > 1:
        sep = np.zeros(len(joined), dtype=bool)
        ends = np.cumsum([len(t) + 1 for t in texts])[:-1] - 1  # separator positions
        sep[ends] = True
        ok = ~sep[:-1] & ~sep[1:]
        table[joined[:-1][ok], joined[1:][ok]] = True
    return table


def char_pairs(texts: list[str]) -> np.ndarray:
    """Sorted codes ``x << 32 | y`` of every two neighbouring characters in any text (the NUL
    separator may add pairs with NUL: they only make cuts rarer)."""
    cps = np.frombuffer("\x00".join(texts).encode("utf-32-le", "surrogatepass"), dtype=np.uint32).astype(np.uint64)
    return sorted_unique((cps[:-1] << np.uint64(32)) | cps[1:])


@dataclass(frozen=True, slots=True, eq=False)
class CutTable:
    """The cut test of one vocab (module doc)."""

    kind: str
    """"spm", "rwkv", "wpm", "ugm" or "bpe-lines"."""
    bytes_ok: np.ndarray | None = None
    """256x256: a cut between a character ending in byte i and one starting with byte j is allowed."""
    pairs: np.ndarray | None = None
    """SPM: sorted character-pair codes found in tokens (a cut needs its pair absent)."""
    max_bytes: int | None = None
    """UGM: the longest fragment whose score sums are exact (None: any)."""
    special: SpecialCuts | None = None
    """Where special and user-defined tokens allow a cut (``SpecialCuts``)."""
    sums: UgmSums | None = None
    """UGM: the per-text proof of (5) for texts past ``max_bytes`` (None: none for this vocab)."""

    def allowed(self, data: bytes, lo: int, hi: int) -> np.ndarray:
        """Allowed cut positions k, ``lo < k < hi``, ascending (byte offsets into ``data``). Past
        ``max_bytes``, none unless ``sums`` can prove the text: its user checks its weights then."""
        lo, hi = max(lo, 0), min(hi, len(data))
        if hi - lo < 2 or self.max_bytes is not None and len(data) > self.max_bytes and self.sums is None:
            return np.zeros(0, dtype=np.int64)
        view = np.frombuffer(data, dtype=np.uint8, count=hi - lo, offset=lo)
        k = np.flatnonzero((view[1:] & 0xC0) != 0x80) + 1  # character starts inside the window
        before, after = view[k - 1], view[k]
        if self.bytes_ok is not None:
            k = k[self.bytes_ok[before, after]]
        if self.kind == "wpm":
            x_cut = (before < 128) & _ASCII_CUT[np.minimum(before, 127)]
            y_cut = (after < 128) & _ASCII_CUT[np.minimum(after, 127)]
            k = k[x_cut | y_cut]
        if not len(k) or self.pairs is None and self.special is None:
            return k + lo
        x = np.array([_char_ending(data, lo + int(i)) for i in k], dtype=np.uint64)
        y = np.array([_char_starting(data, lo + int(i)) for i in k], dtype=np.uint64)
        ok = np.ones(len(k), dtype=bool)
        if self.special is not None:
            ok &= self.special.allows(x, y)
        if self.pairs is not None:
            apart = ~_member(self.pairs, (np.where(x == 0x20, _ESC, x) << np.uint64(32)) | np.where(y == 0x20, _ESC, y))
            if self.kind == "bpe-lines":  # a word edge of GEMMA4's `[^\n]+|[\n]+`
                apart |= (x == 0x0A) != (y == 0x0A)
            ok &= apart
        return k[ok] + lo


@dataclass(frozen=True, slots=True, eq=False)
class SpecialCuts:
    """Cuts that keep the special-token partition (``tokenizer_st_partition``, V:3270-3345) apart.

    Each special text's pass finds its matches left to right in every raw fragment. When no
    special text holds x y side by side, no match crosses the cut, and the scan of the fragment
    holding it finds on each side what a scan of that side alone finds (the first match at or
    after the cut is the same whether the scan starts at the cut or earlier); so the fragments
    are those of the two sides. When x ends no special text and y starts none, the cut is not a
    fragment's edge either, so no fragment-start rule (SPM's space prefix after a special token,
    V:3453) differs between the whole and the parts. LSTRIP / RSTRIP eat whitespace runs next to
    a match (V:3304-3335): with such a token, x and y must not be whitespace.
    """

    pairs: np.ndarray
    firsts: np.ndarray
    lasts: np.ndarray
    strip: bool

    @classmethod
    def of(cls, vocab: Vocab) -> SpecialCuts:
        mask = vocab.attrs & int(TokenAttr.CONTROL | TokenAttr.USER_DEFINED | TokenAttr.UNKNOWN)
        texts = [t for t in (vocab.tokens[int(i)] for i in np.flatnonzero(mask)) if t]
        strip = bool(np.any(vocab.attrs & int(TokenAttr.LSTRIP | TokenAttr.RSTRIP)))
        return cls(
            pairs=char_pairs(texts) if texts else np.zeros(0, dtype=np.uint64),
            firsts=sorted_unique(np.array([ord(t[0]) for t in texts], dtype=np.uint64)),
            lasts=sorted_unique(np.array([ord(t[-1]) for t in texts], dtype=np.uint64)),
            strip=strip,
        )

    def allows(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        ok = ~_member(self.pairs, (x << np.uint64(32)) | y) & ~_member(self.lasts, x) & ~_member(self.firsts, y)
        if self.strip:
            ok &= ~_member(_ISSPACE, x) & ~_member(_ISSPACE, y)
        return ok


_ISSPACE = np.array([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20], dtype=np.uint64)


def _member(table: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``codes`` found in the sorted ``table``."""
    if not len(table):
        return np.zeros(len(codes), dtype=bool)
    at = np.minimum(np.searchsorted(table, codes), len(table) - 1)
    return table[at] == codes


def _char_ending(data: bytes, k: int) -> int:
    i = k - 1
    while i > 0 and data[i] & 0xC0 == 0x80 and k - i < 4:
        i -= 1
    return ord(data[i:k].decode("utf-8", "replace")[-1])


def _char_starting(data: bytes, k: int) -> int:
    return ord(data[k : k + 4].decode("utf-8", "replace")[0])


GEMMA4_REGEXES = ("[^\\n]+|[\\n]+",)
"""The one BPE pre-tokenizer with cuts here: words are runs of newlines and runs of the rest."""


def cut_table(vocab: Vocab, charsmap: Charsmap | None = None, regexes: tuple[str, ...] = ()) -> CutTable | None:
    """The cut test of ``vocab`` (None: no proven cuts for its family). UGM reads every key of
    the charsmap: pass the encoder's (``UgmEncoder.charsmap``), whose key list is memoised."""
    table: CutTable | None = None
    if vocab.type is VocabType.SPM:
        table = CutTable("spm", pairs=char_pairs(vocab.tokens))
    elif vocab.type is VocabType.WPM:
        table = CutTable("wpm")
    elif vocab.type is VocabType.RWKV:
        from tui_tok.tokenizer.rwkv.unescape import unescape_all

        table = CutTable("rwkv", bytes_ok=~byte_pairs(unescape_all(vocab.tokens)))
    elif vocab.type is VocabType.UGM:
        table = _ugm_table(vocab, charsmap)
    elif (
        vocab.type is VocabType.BPE
        and regexes == GEMMA4_REGEXES
        and vocab.escape_whitespaces
        and not vocab.ignore_merges
    ):
        table = CutTable(
            "bpe-lines", pairs=np.union1d(char_pairs(vocab.tokens), _merge_pairs(vocab.merges)).astype(np.uint64)
        )
    if table is None:
        return None
    return CutTable(table.kind, table.bytes_ok, table.pairs, table.max_bytes, SpecialCuts.of(vocab), table.sums)


def _merge_pairs(merges: list[str]) -> np.ndarray:
    """``char_pairs`` of every merge result ("left right" joined): one string when each rule has
    exactly one space (escaped vocabs), so no list of 500k new strings for gemma-4."""
    joined = "\x00".join(merges)
    if joined.count(" ") == len(merges):
        return char_pairs([joined.replace(" ", "")])
    return char_pairs([m.replace(" ", "", 1) for m in merges]) if merges else np.zeros(0, dtype=np.uint64)


def _ugm_table(vocab: Vocab, charsmap: Charsmap | None) -> CutTable | None:
    from tui_tok.tokenizer.ugm.tables import search_scores

    if charsmap is None:
        charsmap = parse_charsmap(vocab.precompiled_charsmap)
    summary = charsmap_ends(charsmap) if charsmap is not None else _NO_CHARSMAP
    if summary is None:
        return None
    keys_cross, last, first, bad_last, bad_first, grow, spread = summary
    user = [
        vocab.tokens[int(i)].encode("utf-8", "surrogateescape")
        for i in np.flatnonzero(vocab.attrs & int(TokenAttr.USER_DEFINED))
    ]
    keys_cross = keys_cross | byte_pairs(user)
    bad_last, bad_first = bad_last.copy(), bad_first.copy()
    bad_last[0x20] = bad_first[0x20] = True
    texts = [t.encode("utf-8", "surrogateescape") for t in vocab.tokens]
    in_tokens = byte_pairs(texts).astype(np.int32)
    crossing = (last.astype(np.int32) @ in_tokens @ first.astype(np.int32).T) > 0
    # (4): every byte that can end (start) the normalisation is an ASCII character with a token
    single = np.zeros(256, dtype=bool)
    for t in texts:
        if len(t) == 1 and t[0] < 128:
            single[t[0]] = True
    safe_last = ~np.any(last & ~single[None, :], axis=1)
    safe_first = ~np.any(first & ~single[None, :], axis=1)
    ok = ~keys_cross & ~crossing & ~bad_last[:, None] & ~bad_first[None, :]
    ok &= safe_last[:, None] | safe_first[None, :]
    # a byte becomes at most `grow` characters of normalised text, plus one inserted ▁ (the lattice
    # has a node per character)
    scores32 = search_scores(vocab)
    limit = exact_sums(vocab, scores32)
    max_bytes = None if limit is None else limit // (grow + 1) - 1
    sums = None if max_bytes is None else UgmSums.of(vocab, scores32, spread, user)
    return CutTable("ugm", bytes_ok=ok, max_bytes=max_bytes, sums=sums)


CharsmapEnds = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, Spread]
_NO_CHARSMAP: CharsmapEnds = (
    np.zeros((256, 256), dtype=bool), np.eye(256, dtype=bool), np.eye(256, dtype=bool),
    np.zeros(256, dtype=bool), np.zeros(256, dtype=bool), 1, (Fraction(0), 0),
)  # fmt: skip


def charsmap_ends(charsmap: Charsmap) -> CharsmapEnds | None:
    """What the cuts need of a charsmap, by a breadth-first walk of its XCDA (as
    ``Charsmap._enumerate``, without building the keys): ``(cross, last, first, bad_last,
    bad_first, grow, spread)``: ``cross[i, j]``: some key holds bytes i j side by side; ``last[x,
    b]``: a character ending in byte x normalises to something ending in b (itself when no key
    matches); ``first`` likewise for starts; ``bad_*``: a key ending (starting) in that byte has
    an empty replacement, or one ending (starting) with a space; ``grow``: the most replacement
    bytes per key byte; ``spread``: the most (search steps + 1) per key byte and the most search
    steps + 1 of one replacement (``UgmSums``), None when a replacement is not whole steps of
    ``unicode_len_utf8``. None when a walk could fail (llama.cpp would throw): then no UGM cuts."""
    cross = np.zeros((256, 256), dtype=bool)
    last, first = np.eye(256, dtype=bool), np.eye(256, dtype=bool)
    bad_last, bad_first = np.zeros(256, dtype=bool), np.zeros(256, dtype=bool)
    if not charsmap.xcda:
        return cross, last, first, bad_last, bad_first, 1, (Fraction(0), 0)
    x = charsmap.array().astype(np.uint64)
    size = x.shape[0]
    base = (x >> np.uint64(10)) << np.where(x & np.uint64(0x200), 8, 0).astype(np.uint64)
    lcheck = x & np.uint64(0x800000FF)
    leaf = ((x >> np.uint64(8)) & np.uint64(1)).astype(bool)
    value = (x & np.uint64(0x7FFFFFFF)).astype(np.int64)
    pool = np.frombuffer(charsmap.replacements, dtype=np.uint8)
    nuls = np.flatnonzero(pool == 0)
    # entry c is the child of state c ^ l by label l = its LCHECK (1..255): group entries by parent
    lab = lcheck.astype(np.int64)
    valid = (lab >= 1) & (lab <= 255)
    entries = np.flatnonzero(valid).astype(np.uint64)
    parent = entries ^ lab[valid].astype(np.uint64)
    order = np.argsort(parent, kind="stable")
    entries, parent = entries[order], parent[order]
    states = np.array([int(base[0])], dtype=np.uint64)
    firsts = np.zeros(1, dtype=np.int64)  # first byte of each state's key
    lasts = np.full(1, -1, dtype=np.int64)  # last byte (-1: the root)
    grow, depth = 1, 0
    spread: Spread = (Fraction(0), 0)
    while states.size:
        if bool(((states | np.uint64(0xFF)) >= size).any()):
            return None  # a byte could index past the array: llama.cpp throws
        lo = np.searchsorted(parent, states, side="left")
        hi = np.searchsorted(parent, states, side="right")
        counts = hi - lo
        rows = np.repeat(np.arange(len(states)), counts)
        kids = entries[np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))]
        label = lab[kids.astype(np.int64)]
        new_states = kids ^ base[kids.astype(np.int64)]
        new_first = label if depth == 0 else firsts[rows]
        if depth:
            cross[lasts[rows], label] = True
        is_leaf = leaf[kids.astype(np.int64)]
        if bool((new_states[is_leaf] >= size).any()):
            return None
        off = value[new_states[is_leaf].astype(np.int64)]
        at = np.searchsorted(nuls, off)
        if bool((off >= len(pool)).any()) or bool((at >= len(nuls)).any()):
            return None
        end = nuls[np.minimum(at, len(nuls) - 1)]
        empty = end == off
        k_first, k_last = new_first[is_leaf], label[is_leaf]
        r_first = pool[np.minimum(off, len(pool) - 1)]
        r_last = pool[np.maximum(end - 1, 0)]
        bad_first[k_first[empty | (r_first == 0x20)]] = True
        bad_last[k_last[empty | (r_last == 0x20)]] = True
        ok_f, ok_l = ~empty & (r_first != 0x20), ~empty & (r_last != 0x20)
        first[k_first[ok_f], r_first[ok_f]] = True
        last[k_last[ok_l], r_last[ok_l]] = True
        if len(off):
            grow = max(grow, int(np.max(-(-(end - off) // (depth + 1)))))
            steps = _steps(pool, off, end)
            if steps is None or spread is None:
                spread = None
            else:
                most = int(steps.max()) + 1
                spread = max(spread[0], Fraction(most, depth + 1)), max(spread[1], most)
        states, firsts, lasts = new_states, new_first, label
        depth += 1
        if depth > 1024:  # a cycle: only a corrupt array has one
            return None
    return cross, last, first, bad_last, bad_first, grow, spread


def _steps(pool: np.ndarray, off: np.ndarray, end: np.ndarray) -> np.ndarray | None:
    """How many steps of ``unicode_len_utf8`` (the search's, V:1003) each replacement
    ``pool[off:end]`` takes, or None when one does not end on a step's end (the next chunk's
    output would then be stepped out of line)."""
    pos, count = off.astype(np.int64), np.zeros(len(off), dtype=np.int64)
    active = pos < end
    while active.any():
        lead = pool[pos[active]]
        size = np.where(lead < 0xC0, 1, np.where(lead < 0xE0, 2, np.where(lead < 0xF0, 3, 4)))
        if bool((pos[active] + size > end[active]).any()):
            return None
        pos[active] += size
        count[active] += 1
        active = pos < end
    return count
