"""Cut a failing text down to a minimal one that still fails (delta debugging, Zeller's ddmin).

Works on code points, so every candidate is valid text. The result is 1-minimal: removing any
single code point makes the failure go away.

Does not know what "fails" means: the caller passes the predicate (``compare.py`` uses "the ids differ").

>>> shrink("xxaxxbxx", lambda s: "a" in s and "b" in s)
'ab'
"""

from __future__ import annotations

from collections.abc import Callable

MAX_TESTS = 4000
"""Stop trying after this many predicate calls (a slow tokenizer on a long text)."""


def shrink(text: str, fails: Callable[[str], bool], *, max_tests: int = MAX_TESTS) -> str:
    """The smallest text found that still ``fails``; ``text`` itself must fail."""
    cps = list(text)
    budget = [max_tests]

    def test(candidate: list[str]) -> bool:
        if budget[0] <= 0:
            return False
        budget[0] -= 1
        return fails("".join(candidate))

    if cps and test([]):
        return ""
    n = 2
    while len(cps) >= 2 and budget[0] > 0:
        chunk = max(1, len(cps) // n)
        parts = [cps[i : i + chunk] for i in range(0, len(cps), chunk)]
        reduced = False
        for part in parts:  # try one part alone
            if len(parts) > 1 and test(part):
                cps, n, reduced = part, 2, True
                break
        if not reduced:
            for i in range(len(parts)):  # try without one part
                rest = [c for j, p in enumerate(parts) if j != i for c in p]
                if rest and test(rest):
                    cps, n, reduced = rest, max(n - 1, 2), True
                    break
        if not reduced:
            if chunk == 1:
                break
            n = min(len(cps), n * 2)
    return "".join(cps)
