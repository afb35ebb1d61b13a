"""The UGM Viterbi search of llama.cpp (V:983-1067) on normalised text, as pure functions.

``best[0] = 0``; for every code point start ``s`` in order, every trie token ``t`` prefixing
``text[s:]`` offers ``best[s] + score(t)`` (a double sum of float32 scores; USER_DEFINED
scores count as 0) to ``best[s + len(t)]``, which takes it only if **strictly greater**
(so ties keep the earliest start). If no token is exactly the code point at ``s``, the
unknown token offers ``best[s] + unk_score`` for that one code point. Backtracking from the
end gives the tokens; consecutive unknown tokens collapse into one (its span covers them all).

``viterbi_str`` is ``ugm/reference.py``'s byte search (llama.cpp byte for byte, the one written
form, used for anything that is not valid UTF-8) run on a ``str``: the same search when the
normalised bytes are valid UTF-8 (then code points are characters, and a token can only match
between character boundaries: a token ending inside a character lands on a position no search
starts from in llama.cpp either). Trie walking becomes dict lookups of ``s[i:i+L]`` for ``L`` up
to the longest token starting with ``s[i:i+2]``. Tested equal to the reference.

Does not normalise (``ugm/normalize.py``) or map offsets back to the input (``ugm/encoder.py``).

>>> ids = {"<unk>": 0, "▁a": 1, "▁": 2, "a": 3, "b": 4}
>>> trie, scores = bytes([0, 1, 1, 1, 1]), [0.0, -1.0, -2.0, -2.0, -3.0]
>>> viterbi_str("▁ab", ids, trie, scores, {"▁a": 2}, unk_id=0, unk_score=-13.0)
[(1, 0, 2), (4, 2, 3)]
>>> viterbi_str("xy", ids, trie, scores, {}, unk_id=0, unk_score=-13.0)
[(0, 0, 2)]
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from tui_tok.tokenizer.core.types import Piece

DBL_MAX = sys.float_info.max


def _backtrack(n: int, best_id: list[int], best_start: list[int], unk_id: int) -> list[Piece]:
    out: list[Piece] = []
    end = n
    prev_unknown = False
    while True:
        tid = best_id[end]
        start = best_start[end]
        unknown = tid == unk_id
        if prev_unknown and unknown:
            out[-1] = (tid, start, out[-1][2])
        else:
            out.append((tid, start, end))
        if start == 0:
            break
        prev_unknown = unknown
        end = start
    out.reverse()
    return out


def viterbi_str(
    s: str,
    ids: Mapping[str, int],
    in_trie: bytes,
    scores: Sequence[float],
    pair_max_len: Mapping[str, int],
    *,
    unk_id: int,
    unk_score: float,
) -> list[Piece]:
    """Best tokenization of ``s`` (character offsets): (id, start, end) per token.

    ``ids`` maps token text to id; only ids with ``in_trie[id]`` set take part, with score
    ``scores[id]``; ``pair_max_len`` maps two characters to the longest token (in characters)
    starting with them (an upper bound is fine).
    """
    n = len(s)
    if n == 0:
        return []
    neg = -DBL_MAX
    best = [neg] * (n + 1)
    best[0] = 0.0
    best_id = [unk_id] * (n + 1)
    best_start = [0] * (n + 1)
    get = ids.get
    longest_at = pair_max_len.get
    for i in range(n):
        here = best[i]
        tid = get(s[i])
        single = tid is not None and in_trie[tid] != 0
        if single:
            assert tid is not None  # single implies it (for mypy; cheaper than a cast in this loop)
            cand = here + scores[tid]
            if cand > best[i + 1]:
                best[i + 1] = cand
                best_id[i + 1] = tid
                best_start[i + 1] = i
        stop = i + longest_at(s[i : i + 2], 0)
        if stop > n:
            stop = n
        for end in range(i + 2, stop + 1):
            tid = get(s[i:end])
            if tid is None or not in_trie[tid]:
                continue
            cand = here + scores[tid]
            if cand > best[end]:
                best[end] = cand
                best_id[end] = tid
                best_start[end] = i
        if not single:
            cand = here + unk_score
            if cand > best[i + 1]:
                best[i + 1] = cand
                best_id[i + 1] = unk_id
                best_start[i + 1] = i
    return _backtrack(n, best_id, best_start, unk_id)
