"""llama.cpp's SPM merge loop (``llm_tokenizer_spm_session``, llama-vocab.cpp:115-239), two fast ways.

Repeatedly merge the adjacent pair of symbols whose concatenation is a token with the highest
score, ties to the leftmost, until no pair is a token. ``merge_str`` is the loop as llama.cpp runs
it (a heap of bigrams, stale entries skipped) with one symbol per character of a ``str``;
``merge_list`` replaces the heap by a scan of a list of pair scores, which is faster in Python for
short strings and makes the same choices. Arbitrary bytes (lead-byte symbols) take
``spm/reference.py`` itself.

Only the segmentation is computed here: ids, spans and byte fallback are ``spm/encoder.py``'s.
Both are equal to ``spm/reference.py`` (tested there), and their staleness tests (size; empty
or sizes not adding up) rest on the argument written once in ``bpe/reference.py``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from itertools import repeat

_NEG = float("-inf")


def merge_list(s: str, score: Callable[[str, float], float]) -> list[str]:
    """llama.cpp's merge loop as a scan over a list of pair scores (short chunks only: O(n²)).

    Equivalent to the heap: the heap's live entries are exactly the adjacent pairs whose
    concatenation is a token, and it pops the highest score, ties to the lowest left index; here
    ``max`` finds the highest score and ``index`` its leftmost pair. ``score(text, -inf)`` is the
    token's score or -inf; callers make sure every score is finite, so -inf marks "not a token".
    """
    syms = list(s)
    n = len(syms)
    if n < 2:
        return syms
    neg = _NEG
    sc = list(map(score, map(str.__add__, syms, syms[1:]), repeat(neg, n - 1)))
    best = max(sc)
    while best != neg:
        i = sc.index(best)
        syms[i] = left = syms[i] + syms.pop(i + 1)
        del sc[i]
        if i < n - 2:
            sc[i] = score(left + syms[i + 1], neg)
        if i:
            sc[i - 1] = score(syms[i - 1] + left, neg)
        n -= 1
        if n < 2:
            break
        best = max(sc)
    return syms


def merge_str(s: str, t2id: dict[str, int], scores: list[float]) -> list[tuple[int, int]]:
    """``merge`` specialised to one symbol per character of ``s`` (long chunks, or vocabs with
    non-finite scores, which ``merge_list`` cannot take).

    A symbol keeps its start index for life, so only ends are tracked; a merged-away symbol gets
    size 0 (``ends[i] == i``), which is what makes llama.cpp's staleness test work.
    """
    n = len(s)
    if n < 2:
        return [(0, n)] if n else []
    get = t2id.get
    heap = []
    for i in range(n - 1):
        tid = get(s[i : i + 2])
        if tid is not None:
            heap.append((-scores[tid], i, i + 1, 2))
    if not heap:
        return [(i, i + 1) for i in range(n)]
    heapq.heapify(heap)
    ends = list(range(1, n + 1))
    nxt = list(range(1, n + 1))
    nxt[-1] = -1
    prv = list(range(-1, n - 1))
    push = heapq.heappush
    pop = heapq.heappop
    while heap:
        _, left, right, size = pop(heap)
        el = ends[left]
        er = ends[right]
        if el == left or er == right or (el - left) + (er - right) != size:
            continue
        ends[left] = er
        ends[right] = right
        nr = nxt[right]
        nxt[left] = nr
        if nr >= 0:
            prv[nr] = left
            tid = get(s[left : ends[nr]])
            if tid is not None:
                push(heap, (-scores[tid], left, nr, ends[nr] - left))
        p = prv[left]
        if p >= 0:
            tid = get(s[p:er])
            if tid is not None:
                push(heap, (-scores[tid], p, left, er - p))
    out = []
    i = 0
    while i != -1:
        out.append((i, ends[i]))
        i = nxt[i]
    return out
