"""llama.cpp's pair-merge loop (BPE and SPM) run over many words at once with numpy.

Both sessions repeat one step per word: merge the adjacent pair of best priority (BPE: lowest
merge rank; SPM: highest score of the concatenation), ties to the leftmost. Python pays the
interpreter per step, and a cold encode of 0.5 MB runs tens of thousands of them. Here every
word of a batch takes its step together: one ``np.minimum.reduceat`` finds each word's best
pair, merges are written and merged-away symbols dropped in whole-array operations, and only the
(at most two) pairs beside each merge are looked up again. So each word merges in the sequential
loop's order: equal to ``bpe/reference.py`` and ``spm/reference.py`` (``tests/tokenizer/test_reference.py``).

Symbols are small ints: a token's text has its token id (duplicate texts share one); any other
text met on the way gets an id past the vocab. A pair's priority and merged symbol come from
the caller's ``resolve``, memoised per pair of ids. One long word (this loop's steps cost
O(word length)) goes to ``merge_long``: whole-array rounds where that is the heap's own order,
else llama.cpp's heap. A merger is shared by the threads of one tokenizer: new symbol ids are
handed out under a lock, and the memos only gain entries whose value does not depend on the thread.
"""

from __future__ import annotations

import heapq
import threading
from collections.abc import Callable
from itertools import repeat
from typing import cast

import numpy as np

from tui_tok.tokenizer.arrays.sorted_unique import sorted_unique, unique_inverse
from tui_tok.tokenizer.core.paths import AUTO, Paths

NO_PRIO = 1 << 30
"""Priority of "no merge" (real priorities are smaller)."""
_ID_BITS = 26
_ID_MASK = (1 << _ID_BITS) - 1
_NO_PAIR = NO_PRIO << _ID_BITS
_ROUND_SHARE = 64
"""A round costs O(word length) in numpy, a heap step a Python step: rounds go on while they
merge at least 1/64 of the symbols."""

Resolver = Callable[[list[str], list[str]], "tuple[np.ndarray, list[str] | list[int]]"]
"""(left texts, right texts) -> (priorities, merged): priorities an int64 array, one per pair,
-1 where the pair never merges, else 0 <= priority < ``NO_PRIO``, lower merging first; merged:
for the pairs that merge only, in order, the merged texts, or their token ids with
``merges_to_ids``. Called with many pairs at once so that it can work at C speed."""


class SymbolMerger:
    """The symbol table and pair memo of one vocab and one priority rule."""

    def __init__(
        self,
        tokens: list[str],
        token_to_id: dict[str, int],
        resolve: Resolver,
        *,
        merges_to_ids: bool = False,
        paths: Paths = AUTO,
    ) -> None:
        """``merges_to_ids``: the resolver gives merged token ids (every merge makes a token)."""
        self.paths = paths
        self._merges_to_ids = merges_to_ids
        self._tokens = tokens
        self._t2id = token_to_id
        self._resolve = resolve
        self._n_tokens = len(tokens)
        self._extra_ids: dict[str, int] = {}
        self._texts = list(tokens)  # id -> text, extras appended (a copy: cheap)
        self._memo: dict[int, int] = {}  # (left << _ID_BITS | right) -> priority << _ID_BITS | merged
        self._by_code_point: np.ndarray | None = None  # code point -> its symbol id + 1 (0: not yet seen)
        self._new_lock = threading.Lock()  # new symbol ids: one per text, whatever the threads

    @property
    def n_tokens(self) -> int:
        """Symbol ids below this are token ids."""
        return self._n_tokens

    # --- symbols ----------------------------------------------------------------------------

    def symbol(self, text: str) -> int:
        """The id of a symbol text: its token id, else a new id past the vocab."""
        sid = self._t2id.get(text)
        if sid is None:
            sid = self._extra_ids.get(text)
            if sid is None:
                sid = self._new_symbol(text)
        return sid

    def _new_symbol(self, text: str) -> int:
        """A new id for a text that is no token. Under a lock: a merger is shared by the threads
        of one tokenizer, and "id = length, then append" from two of them gave two texts one id
        (wrong ids, or an IndexError in ``text``). The text is stored before its id is published,
        so any id a thread can see has its text. Only new texts pay for the lock."""
        with self._new_lock:
            sid = self._extra_ids.get(text)
            if sid is None:
                sid = len(self._texts)
                if sid > _ID_MASK:
                    raise OverflowError("too many distinct non-token symbols for the pair memo")
                self._texts.append(text)
                self._extra_ids[text] = sid
        return sid

    def text(self, sid: int) -> str:
        """The text of a symbol id."""
        return self._texts[sid]

    def texts(self, sids: list[int]) -> list[str]:
        """The texts of symbol ids."""
        return list(map(self._texts.__getitem__, sids))

    def char_symbols(self, text: str) -> list[int]:
        """One symbol per character of ``text``."""
        table = {c: self.symbol(c) for c in set(text)}
        return list(map(table.__getitem__, text))

    def char_symbol_array(self, text: str) -> np.ndarray:
        """``char_symbols`` as an int64 array, by code point from a table kept across calls (not
        a dict lookup per character: one gather)."""
        cps = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        table = self._by_code_point
        if table is None:  # np.zeros: the OS hands out pages only where written
            with self._new_lock:  # one table for all threads (entries only go from 0 to final)
                table = self._by_code_point
                if table is None:
                    table = self._by_code_point = np.zeros(0x110000, dtype=np.int32)
        sids = table[cps]
        if len(sids) and not sids.all():
            for cp in sorted_unique(cps[sids == 0]).tolist():
                table[cp] = self.symbol(chr(cp)) + 1
            sids = table[cps]
        return sids.astype(np.int64) - 1

    # --- pairs ------------------------------------------------------------------------------

    def _pair(self, left: int, right: int) -> int:
        key = left << _ID_BITS | right
        val = self._memo.get(key)
        if val is None:
            val = int(self._learn(np.array([key], dtype=np.int64))[0])
        return val

    def _pairs(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """Pair values of two aligned id arrays (memo lookups at C speed; the resolver only for
        pairs never seen before)."""
        keys = (left << _ID_BITS) | right
        if len(keys) >= self.paths.run_keys_from:  # a long word of runs: look up one key per run
            head = np.empty(len(keys), dtype=bool)
            head[0] = True
            np.not_equal(keys[1:], keys[:-1], out=head[1:])
            n_runs = int(np.count_nonzero(head))
            if n_runs * 4 <= len(keys):
                vals_of_runs = self._pairs(left[head], right[head])
                return vals_of_runs[np.cumsum(head) - 1]
        keys, where = unique_inverse(keys)
        vals = np.fromiter(map(self._memo.get, keys.tolist(), repeat(-1)), dtype=np.int64, count=len(keys))
        new = np.flatnonzero(vals < 0)
        if len(new):
            vals[new] = self._learn(keys[new])
        return vals[where]

    def _learn(self, keys: np.ndarray) -> np.ndarray:
        """Resolve new pairs, remember them and return their values."""
        texts = self._texts.__getitem__
        lefts = list(map(texts, (keys >> _ID_BITS).tolist()))
        rights = list(map(texts, (keys & _ID_MASK).tolist()))
        prios, merged = self._resolve(lefts, rights)
        hit = prios >= 0
        sids: list[int] | list[int | None]
        if self._merges_to_ids:
            sids = cast("list[int]", merged)
        else:
            texts_merged = cast("list[str]", merged)  # without merges_to_ids the resolver gives texts
            sids = list(map(self._t2id.get, texts_merged))
            if None in sids:  # a merge that makes no token gets an id past the vocab
                sids = [self.symbol(t) if s is None else s for t, s in zip(texts_merged, sids)]
        vals = np.full(len(keys), _NO_PAIR, dtype=np.int64)
        vals[hit] = (prios[hit] << _ID_BITS) | np.array(sids, dtype=np.int64)
        self._memo.update(zip(keys.tolist(), vals.tolist()))
        return vals

    # --- the loop ---------------------------------------------------------------------------

    def merge_flat(self, syms: np.ndarray, lens: np.ndarray) -> list[list[int]]:
        """Final symbols of each word, in order; the words given as one int64 array of symbols and each
        word's length (>= 1)."""
        out: list[list[int]] = [[]] * len(lens)
        word = np.arange(len(lens))
        ends = np.cumsum(lens)
        starts = ends - lens
        val = np.full(len(syms), _NO_PAIR, dtype=np.int64)
        inner = np.ones(len(syms), dtype=bool)
        inner[ends - 1] = False
        at = np.flatnonzero(inner)
        val[at] = self._pairs(syms[at], syms[at + 1])
        while len(lens):
            if len(lens) <= self.paths.tail_words:
                for w, a, e in zip(word.tolist(), starts.tolist(), ends.tolist()):
                    out[w] = self.merge_heap(syms[a:e].tolist())
                break
            total = len(syms)
            best = np.minimum.reduceat((val >> _ID_BITS) * total + np.arange(total), starts)
            prio = best // total
            done = prio == NO_PRIO
            keep = np.ones(total, dtype=bool)
            if done.any():
                fin = np.repeat(done, lens)
                keep[fin] = False
                flat = syms[fin].tolist()
                pos = 0
                for w, n in zip(word[done].tolist(), lens[done].tolist()):
                    out[w] = flat[pos : pos + n]
                    pos += n
                act = ~done
                word, lens, starts, ends, best, prio = (
                    word[act], lens[act], starts[act], ends[act], best[act], prio[act]
                )  # fmt: skip
                if not len(lens):
                    break
            p = best - prio * total  # each word's merge: symbols p and p + 1
            syms[p] = val[p] & _ID_MASK
            keep[p + 1] = False
            has_left = p > starts
            has_right = p + 2 < ends
            newpos = np.cumsum(keep) - 1
            syms = syms[keep]
            val = val[keep]
            p = newpos[p]
            lens = lens - 1
            ends = np.cumsum(lens)
            starts = ends - lens
            val[p[~has_right]] = _NO_PAIR
            redo = np.concatenate((p[has_left] - 1, p[has_right]))
            val[redo] = self._pairs(syms[redo], syms[redo + 1])
        return out

    def merge_long(self, syms: list[int]) -> list[int]:
        """The loop for one long word: ``merge_rounds_array`` from ``paths.rounds_from`` symbols (a run of
        one character merges in a few whole-array rounds), else, or once its rounds stop paying,
        llama.cpp's heap (``merge_heap``)."""
        if len(syms) >= self.paths.rounds_from:
            return self.merge_rounds_array(np.array(syms, dtype=np.int64)).tolist()  # with a text: char_symbol_array
        return self.merge_heap(syms)

    def merge_rounds_array(self, syms: np.ndarray) -> np.ndarray:
        """llama.cpp's heap loop for one word, many merges per numpy round where that is exact.

        The heap pops the pair of best priority, leftmost first. A round takes the best
        priority p and the pairs having it from the left, skipping a pair whose left symbol the
        previous one took (in a run of such pairs every other one: the heap finds the skipped
        ones stale). That is the heap's own order as long as no merge pushes a pair of priority
        <= p: such a pair would be popped before the next one of the round (it is better, or as
        good and further left). So each merge's two new pairs (with the symbols beside it at
        that moment: a merged left neighbour, the right one still unmerged) are looked up, and
        the round ends with the first merge that pushes one. The heap's live entries are always
        the current adjacent pairs that merge, so the next round (or the heap, started afresh
        from the current symbols once a round merges fewer than 1/``_ROUND_SHARE`` of them)
        goes on exactly where the heap would be.
        """
        n = len(syms)
        val = self._pairs(syms[:-1], syms[1:]) if n > 1 else np.zeros(0, dtype=np.int64)
        budget = 4 * n  # element steps the rounds may spend beyond _ROUND_SHARE per merge
        while len(syms) > 1:
            m = len(syms)
            if budget < 0:  # few merges per O(m) round: the heap from here
                return np.array(self.merge_heap(syms.tolist()), dtype=np.int64)
            budget -= m
            p = int(val.min()) >> _ID_BITS  # the priority is a value's high bits
            if p == NO_PRIO:
                break
            best = val < (p + 1) << _ID_BITS
            cand = np.flatnonzero(best)
            if len(cand) > 1:  # every other pair of each run of adjacent candidates
                idx = np.arange(m - 1, dtype=np.int32)  # int32 and masks: 1M symbols, few MB
                head = best.copy()
                head[1:] &= ~best[:-1]
                from_head = idx - np.maximum.accumulate(np.where(head, idx, 0))
                best &= (from_head & 1) == 0
                cand = np.flatnonzero(best)
                del idx, head, from_head
            del best
            merged = val[cand] & _ID_MASK
            # pairs each merge pushes: (left neighbour now, merged), (merged, right neighbour)
            left_merged = np.zeros(len(cand), dtype=bool)
            left_merged[1:] = cand[1:] == cand[:-1] + 2
            left_now = np.where(left_merged, np.roll(merged, 1), syms[np.maximum(cand - 1, 0)])
            worst = np.full(len(cand), NO_PRIO, dtype=np.int64)
            at = np.flatnonzero(cand > 0)
            worst[at] = self._pairs(left_now[at], merged[at]) >> _ID_BITS
            at = np.flatnonzero(cand + 2 < m)
            worst[at] = np.minimum(worst[at], self._pairs(merged[at], syms[cand[at] + 2]) >> _ID_BITS)
            bad = np.flatnonzero(worst <= p)
            if len(bad):  # the heap pops that new pair next: the round ends with its merge
                if bad[0] == 0 and (chained := self._chains(syms, int(cand[0]), p)) is not None:
                    syms = chained
                    budget += _ROUND_SHARE * (m - len(syms))
                    val = self._pairs(syms[:-1], syms[1:])  # O(m) once; chains shrink the word a lot
                    continue
                cand, merged = cand[: bad[0] + 1], merged[: bad[0] + 1]
            budget += _ROUND_SHARE * len(cand)
            syms[cand] = merged
            keep = np.ones(m, dtype=bool)
            keep[cand + 1] = False
            syms = syms[keep]
            val = val[keep[:-1]][: len(syms) - 1]  # a kept last symbol's pair: its right side is gone
            pos = cand - np.arange(len(cand))  # the merged symbols' new places
            redo = np.concatenate((pos[pos > 0] - 1, pos[pos < len(syms) - 1]))  # repeats: same value
            # written twice (np.union1d's hashing np.unique was far slower a round on 1M symbols)
            val[redo] = self._pairs(syms[redo], syms[redo + 1])
        return syms

    def _chains(self, syms: np.ndarray, c0: int, p: int) -> np.ndarray | None:
        """A run of one symbol ``s`` merging by chains, as a tie of priorities makes the heap do it
        (llama-spm's ▁-runs: every run of ▁ is a token of the same score): from the leftmost best
        pair at ``c0``, the merged symbol takes the next ``s`` again and again (each new pair is
        as good and further left than any other, so popped next) until it cannot; then the same
        chain starts on the next ``s``. The first chain is followed step by step; the others are
        copies of it, which is exact when each of their steps pushes no pair of priority <= p on
        its left (the previous chain's token T beside each t_i) and the chain stops on an ``s``
        for the same reason as the first. The symbols after all full chains, or None when that
        does not hold (the round then merges one pair)."""
        m = len(syms)
        s = int(syms[c0])
        left = int(syms[c0 - 1]) if c0 else -1
        steps = [s]
        j = c0 + 1
        while j < m and int(syms[j]) == s:
            v = self._pair(steps[-1], s)
            if v >> _ID_BITS > p:
                break
            t = v & _ID_MASK
            if left >= 0 and self._pair(left, t) >> _ID_BITS <= p:
                return None
            steps.append(t)
            j += 1
        size = len(steps)
        if size < 2:
            return None
        run_end = j
        while run_end < m and int(syms[run_end]) == s:
            run_end += 1
        count = (run_end - c0 - 1) // size  # each chain is followed by another s
        if count < 1:
            return None
        token = steps[-1]
        if self._pair(token, s) >> _ID_BITS <= p or any(self._pair(token, t) >> _ID_BITS <= p for t in steps[1:]):
            return None
        return np.concatenate((syms[:c0], np.full(count, token, dtype=np.int64), syms[c0 + count * size :]))

    def merge_heap(self, syms: list[int]) -> list[int]:
        """The loop for one long word with a heap, as llama.cpp runs it: entries are ordered by
        (priority, left index); one is stale once either side is merged away or changed (the
        staleness tests are equivalent: ``bpe/reference.py``'s docstring says why)."""
        n = len(syms)
        nxt = list(range(1, n)) + [-1]
        prv = list(range(-1, n - 1))
        alive = [True] * n
        pair = self._pair
        heap = []
        for i in range(n - 1):
            v = pair(syms[i], syms[i + 1])
            if v < _NO_PAIR:
                heap.append((v >> _ID_BITS, i, i + 1, syms[i], syms[i + 1], v & _ID_MASK))
        heapq.heapify(heap)
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            _, left, right, lsym, rsym, merged = pop(heap)
            if not (alive[left] and alive[right]) or nxt[left] != right or syms[left] != lsym or syms[right] != rsym:
                continue
            syms[left] = merged
            alive[right] = False
            nr = nxt[left] = nxt[right]
            if nr >= 0:
                prv[nr] = left
                v = pair(merged, syms[nr])
                if v < _NO_PAIR:
                    push(heap, (v >> _ID_BITS, left, nr, merged, syms[nr], v & _ID_MASK))
            p = prv[left]
            if p >= 0:
                v = pair(syms[p], merged)
                if v < _NO_PAIR:
                    push(heap, (v >> _ID_BITS, p, left, syms[p], merged, v & _ID_MASK))
        return [s for s, a in zip(syms, alive) if a]
