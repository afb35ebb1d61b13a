"""llama.cpp's SPM merge loop (``llm_tokenizer_spm_session``, llama-vocab.cpp:115-239) on a ``str``.

Repeatedly merge the adjacent pair of symbols whose concatenation is a token with the highest
score, ties to the leftmost, until no pair is a token. ``merge_str`` is the loop as llama.cpp runs
it (a heap of bigrams, stale entries skipped) with one symbol per character of a ``str``.
Arbitrary bytes (lead-byte symbols) take ``spm/reference.py`` itself.

Only the segmentation is computed here: ids, spans and byte fallback are ``spm/encoder.py``'s.
It is equal to ``spm/reference.py`` (tested there), and its staleness test (empty or sizes not
adding up) rests on the argument written once in ``bpe/reference.py``.
"""

from __future__ import annotations

import heapq


def merge_str(s: str, t2id: dict[str, int], scores: list[float]) -> list[tuple[int, int]]:
    """llama.cpp's merge with one symbol per character of ``s``: the segmentation as (start, end) pairs.

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
