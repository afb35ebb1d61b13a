"""The special-token partition: cut raw input bytes at special tokens, exactly as llama.cpp does.

llama.cpp (``tokenizer_st_partition``, llama-vocab.cpp:3255-3371) walks its special-token cache in
order (longest text first) and, for each token, splits every still-raw fragment at that token's
leftmost non-overlapping occurrences, dropping C-``isspace`` bytes next to LSTRIP/RSTRIP tokens.
Order matters: a longer token earlier in the list wins over a shorter one that overlaps it even
when the shorter one starts first in the text.

We reproduce that loop but avoid ``candidates x fragments`` work: a ``Finder``
(``special/finder.py``, one per ``parse_special`` setting) finds every position where some
candidate starts and the longest one there; every candidate that is a prefix of that one also
starts there. Chained overlapping occurrences form independent groups (when no LSTRIP/RSTRIP
token occurs): a lone occurrence is simply claimed, and llama.cpp's loop is replayed verbatim
inside each larger group. With strip flags in play, the loop is replayed over the whole text and
all occurrence positions.

Does not encode the raw fragments (the algorithm modules do) and does not add BOS/EOS.

>>> from tui_tok.tokenizer.core.vocab import vocab_from_metadata
>>> v = vocab_from_metadata({"tokenizer.ggml.model": "llama",
...     "tokenizer.ggml.tokens": ["<unk>", "<s>", "</s>", "a"], "tokenizer.ggml.token_type": [2, 3, 3, 1]})
>>> SpecialPartitioner(v).partition(b"a<s>b", parse_special=True)
[(0, 1, -1), (1, 4, 1), (4, 5, -1)]
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from tui_tok.tokenizer.core.types import TokenAttr
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.special.finder import Finder

Fragment = tuple[int, int, int]
"""(start, end, token id): byte span of the input; token id -1 marks raw text still to encode."""

RAW = -1

_C_SPACE = frozenset(b" \t\n\v\f\r")  # C isspace() in the "C" locale
_NOT_WITHOUT_PARSE = int(TokenAttr.CONTROL | TokenAttr.UNKNOWN)


@dataclass(frozen=True, slots=True)
class _Matcher:
    """Candidates for one parse_special setting."""

    rank: dict[int, int]
    """Candidate id -> position in llama.cpp's order."""
    text_to_id: dict[bytes, int]
    lengths: tuple[int, ...]
    """Distinct candidate lengths, ascending (for prefix closure)."""
    finder: Finder | None
    runs: dict[int, tuple[tuple[int, int], ...]]
    """Byte c -> (length, id) of candidates that are runs of c, longest first; only for bytes that
    start no other candidate (so nothing can start inside a run of c and leave it)."""


class SpecialPartitioner:
    """Splits input bytes into raw fragments and special-token fragments for one vocab."""

    def __init__(self, vocab: Vocab) -> None:
        self._vocab = vocab
        self._matchers: dict[bool, _Matcher] = {}
        self._first_bytes: dict[bool, bytes] = {}  # first bytes of the candidates: a cheap test
        # that spares short texts the matcher
        self._prefixes: dict[tuple[bool, bytes], tuple[int, ...]] = {}
        attrs = vocab.attrs
        self._lstrip = frozenset(np.flatnonzero((attrs & int(TokenAttr.LSTRIP)) != 0).tolist())
        self._rstrip = frozenset(np.flatnonzero((attrs & int(TokenAttr.RSTRIP)) != 0).tolist())
        self._strip_ids = self._lstrip | self._rstrip

    def candidates(self, *, parse_special: bool) -> list[int]:
        """Ids the partition tries, in llama.cpp's order."""
        attrs = self._vocab.attrs
        if parse_special:
            return list(self._vocab.special_tokens)
        return [t for t in self._vocab.special_tokens if not attrs[t] & _NOT_WITHOUT_PARSE]

    def partition(self, text: bytes, *, parse_special: bool) -> list[Fragment]:
        """Fragments of ``text`` in order; raw ones have id ``RAW`` (-1). Empty input -> []."""
        if not text:
            return []
        firsts = self._first_bytes.get(parse_special)
        if firsts is None:
            texts = map(self._vocab.token_bytes, self.candidates(parse_special=parse_special))
            firsts = self._first_bytes[parse_special] = bytes({b[0] for b in texts if b})
        if len(text.translate(None, firsts)) == len(text):  # no candidate can start anywhere
            return [(0, len(text), RAW)]
        m = self._matcher(parse_special)
        if m.finder is None:
            return [(0, len(text), RAW)]
        comps = self._components(text, m)
        if not comps:
            return [(0, len(text), RAW)]
        if self._strip_ids and self._strips_occur(text, comps, m, parse_special):
            return self._partition_global(text, m, parse_special)
        out: list[Fragment] = []
        pos = 0
        for start, end, longest in comps:
            if start > pos:
                _append_raw(out, pos, start)
            if isinstance(longest, int):
                _resolve_run(out, start, end, m.runs[longest])
            elif len(longest) == 1:
                out.append((start, end, m.text_to_id[longest[0]]))
            else:
                for frag in self._resolve(text, m, parse_special, start, end, longest):
                    if frag[2] == RAW:
                        _append_raw(out, frag[0], frag[1])
                    else:
                        out.append(frag)
            pos = end
        if pos < len(text):
            _append_raw(out, pos, len(text))
        return out

    def prepare(self, *, parse_special: bool) -> None:
        """Build the candidate matcher now rather than at the first text that needs it."""
        self._matcher(parse_special)

    def _components(self, text: bytes, m: _Matcher) -> list[tuple[int, int, list[bytes] | int]]:
        """Groups of chained overlapping occurrences: (start, end, longest candidate at each start).

        Without LSTRIP/RSTRIP, a fragment boundary only comes from a claimed occurrence, so what
        llama.cpp's loop claims inside one group depends on that group's occurrences alone.
        """
        assert m.finder is not None
        search = m.finder.search
        longest_at = m.finder.longest_at
        runs = m.runs
        comps: list[tuple[int, int, list[bytes] | int]] = []
        cur_start = cur_end = -1
        cur: list[bytes] = []
        pos = 0
        while True:
            hit = search(text, pos, runs)
            if hit is None:
                break
            start, longest, hit_end = hit
            if start < cur_end:
                if longest is None and (longest := longest_at(text, start)) is None:
                    pos = start + 1
                    continue
                cur.append(longest)
                end = start + len(longest)
                if end > cur_end:
                    cur_end = end
                pos = start + 1
                continue
            if cur:
                comps.append((cur_start, cur_end, cur))
                cur = []
                cur_end = -1
            if longest is None:
                # a run of c: only runs of c can start inside it, so resolve it as one group
                # (the prefilter matched the whole run, at least as long as c's shortest candidate)
                comps.append((start, hit_end, text[start]))
                pos = hit_end
                continue
            cur_start, cur_end, cur = start, start + len(longest), [longest]
            pos = start + 1
        if cur:
            comps.append((cur_start, cur_end, cur))
        return comps

    def _strips_occur(self, text: bytes, comps: list, m: _Matcher, parse_special: bool) -> bool:
        for start, end, longest in comps:
            if isinstance(longest, int):
                found = [tid for n, tid in m.runs[longest] if n <= end - start]
            else:
                found = [tid for t in longest for tid in self._prefix_ids(m, parse_special, t)]
            if any(tid in self._strip_ids for tid in found):
                return True
        return False

    def _resolve(self, text: bytes, m: _Matcher, parse_special: bool, start: int, end: int,
                 longest: list[bytes]) -> list[Fragment]:  # fmt: skip
        """llama.cpp's loop (``_split``) on one group of overlapping occurrences (no strip flags)."""
        ids = {tid for t in longest for tid in self._prefix_ids(m, parse_special, t)}
        frags: list[Fragment] = [(start, end, RAW)]
        for tid in sorted(ids, key=m.rank.__getitem__):
            tb = self._vocab.token_bytes(tid)
            positions = []
            p = text.find(tb, start, end)
            while p >= 0:
                positions.append(p)
                p = text.find(tb, p + 1, end)
            frags = self._split(text, frags, tid, positions)
        return frags

    def _partition_global(self, text: bytes, m: _Matcher, parse_special: bool) -> list[Fragment]:
        """The general path (LSTRIP/RSTRIP tokens occur): replay the loop over all occurrences."""
        occ = self._occurrences(text, m, parse_special)
        frags: list[Fragment] = [(0, len(text), RAW)]
        for tid in sorted(occ, key=m.rank.__getitem__):
            frags = self._split(text, frags, tid, occ[tid])
        return frags

    # --- internals ----------------------------------------------------------------------------

    def _matcher(self, parse_special: bool) -> _Matcher:
        m = self._matchers.get(parse_special)
        if m is None:
            ids = self.candidates(parse_special=parse_special)
            texts = {self._vocab.token_bytes(t): t for t in ids}
            runs = _run_families(texts)
            m = _Matcher(
                rank={t: i for i, t in enumerate(ids)},
                text_to_id=texts,
                lengths=tuple(sorted({len(b) for b in texts})),
                finder=Finder.build(texts, runs) if texts else None,
                runs=runs,
            )
            self._matchers[parse_special] = m
        return m

    def _occurrences(self, text: bytes, m: _Matcher, parse_special: bool) -> dict[int, list[int]]:
        """Every (overlapping) start position of every candidate that occurs in ``text``."""
        assert m.finder is not None
        occ: dict[int, list[int]] = {}
        search = m.finder.search
        pos = 0
        while True:
            hit = search(text, pos)
            if hit is None:
                return occ
            start, longest, _ = hit
            assert longest is not None
            for tid in self._prefix_ids(m, parse_special, longest):
                lst = occ.get(tid)
                if lst is None:
                    occ[tid] = [start]
                else:
                    lst.append(start)
            pos = start + 1

    def _prefix_ids(self, m: _Matcher, parse_special: bool, longest: bytes) -> tuple[int, ...]:
        key = (parse_special, longest)
        ids = self._prefixes.get(key)
        if ids is None:
            found = []
            for n in m.lengths:
                if n > len(longest):
                    break
                tid = m.text_to_id.get(longest[:n])
                if tid is not None:
                    found.append(tid)
            ids = self._prefixes[key] = tuple(found)
        return ids

    def _split(self, text: bytes, frags: list[Fragment], tid: int, positions: list[int]) -> list[Fragment]:
        """One iteration of llama.cpp's outer loop: split every raw fragment on token ``tid``."""
        length = len(self._vocab.token_bytes(tid))
        lstrip = tid in self._lstrip
        rstrip = tid in self._rstrip
        starts = [f[0] for f in frags]
        out: list[Fragment] = []
        copied = 0
        k, n = 0, len(positions)
        while k < n:
            p = positions[k]
            fi = bisect.bisect_right(starts, p) - 1
            if fi < 0:  # before the first fragment: stripped whitespace
                k += 1
                continue
            s, e, kind = frags[fi]
            if kind != RAW or p + length > e:
                k += 1
                continue
            out.extend(frags[copied:fi])
            pos = s
            while k < n and positions[k] < e:
                p = positions[k]
                k += 1
                if p < pos or p + length > e:
                    continue
                if p > pos:
                    left_end = p
                    if lstrip:
                        while left_end > pos and text[left_end - 1] in _C_SPACE:
                            left_end -= 1
                    if left_end > pos:
                        out.append((pos, left_end, RAW))
                out.append((p, p + length, tid))
                pos = p + length
                if rstrip:
                    while pos < e and text[pos] in _C_SPACE:
                        pos += 1
            if pos < e:
                out.append((pos, e, RAW))
            copied = fi + 1
        out.extend(frags[copied:])
        return out


def _run_families(texts: dict[bytes, int]) -> dict[int, tuple[tuple[int, int], ...]]:
    pure: dict[int, list[tuple[int, int]]] = {}
    mixed: set[int] = set()
    for t, tid in texts.items():
        if t.count(t[:1]) == len(t):
            pure.setdefault(t[0], []).append((len(t), tid))
        else:
            mixed.add(t[0])
    return {c: tuple(sorted(v, reverse=True)) for c, v in pure.items() if c not in mixed}


def _resolve_run(out: list[Fragment], start: int, end: int, family: tuple[tuple[int, int], ...]) -> None:
    """llama.cpp's loop on a run of one byte whose only candidates are runs of it: longer runs are
    tried first and each claims its leftmost copies, which is the same as taking, from the left,
    the longest candidate that still fits. Plans per (family, run length) are memoised."""
    key = (id(family), end - start)
    plan = _RUN_PLANS.get(key)
    if plan is None or plan[2] is not family:  # the family held in the plan keeps its id unique
        if len(_RUN_PLANS) >= 4096:
            _RUN_PLANS.clear()
        plan = _RUN_PLANS[key] = (*_run_plan(end - start, family), family)
    lengths, raw_from, _ = plan
    pos = start
    for n, tid in lengths:
        out.append((pos, pos + n, tid))
        pos += n
    if raw_from < end - start:
        _append_raw(out, pos, end)


_RunFamily = tuple[tuple[int, int], ...]
_RUN_PLANS: dict[tuple[int, int], tuple[_RunFamily, int, _RunFamily]] = {}


def _run_plan(size: int, family: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int], ...], int]:
    """(length, id) of each claimed run in order, and where the raw rest starts (relative)."""
    pos = 0
    claimed: list[tuple[int, int]] = []
    for n, tid in family:
        while size - pos >= n:
            claimed.append((n, tid))
            pos += n
    return tuple(claimed), pos


def _append_raw(out: list[Fragment], start: int, end: int) -> None:
    """Add raw bytes, joining them to a raw fragment right before (no split happened there)."""
    if out and out[-1][2] == RAW and out[-1][1] == start:
        out[-1] = (out[-1][0], end, RAW)
    else:
        out.append((start, end, RAW))
