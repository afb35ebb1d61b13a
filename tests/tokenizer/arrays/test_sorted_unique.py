"""sorted_unique against numpy's own unique, with and without the sorted-runs hint."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays, integer_dtypes

from tui_tok.tokenizer.arrays.sorted_unique import sorted_unique


@settings(max_examples=200, deadline=None)
@given(arrays(integer_dtypes(), st.integers(0, 200)), st.integers(0, 3), st.booleans())
def test_equals_np_unique(values: np.ndarray, n_runs: int, runs: bool) -> None:
    """Same values, order and dtype as ``np.unique``, whether the input is shuffled, sorted or
    made of sorted runs; the hint only picks the sort."""
    if n_runs:  # a few sorted runs one after another, as the hint expects
        values = np.concatenate([np.sort(part) for part in np.array_split(values, n_runs)])
    got = sorted_unique(values, runs=runs)
    want = np.unique(values)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 62), st.integers(0, 9000), st.integers(1, 5000), st.integers(0, 2**32 - 1))
def test_unique_inverse_equals_np_unique(bits: int, n: int, distinct: int, seed: int) -> None:
    """Same distinct values and inverse as ``np.unique(..., return_inverse=True)``, the inverse
    1-D, for values of any width up to 2**62."""
    from tui_tok.tokenizer.arrays.sorted_unique import unique_inverse

    rng = np.random.default_rng(seed)
    pool = rng.integers(0, 2**bits, distinct, dtype=np.int64, endpoint=True)
    values = rng.choice(pool, n)
    uniq, inverse = unique_inverse(values)
    want_uniq, want_inverse = np.unique(values, return_inverse=True)
    assert uniq.tolist() == want_uniq.tolist() and inverse.tolist() == want_inverse.reshape(-1).tolist()
    assert (uniq[inverse] == values).all()


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 64), st.integers(0, 3000), st.integers(0, 2**32 - 1), st.booleans())
def test_radix_order_is_a_stable_argsort(bits: int, n: int, seed: int, unsigned: bool) -> None:
    """Same permutation as numpy's stable argsort, for int64 and uint64 values of any width."""
    from tui_tok.tokenizer.arrays.sorted_unique import radix_order

    rng = np.random.default_rng(seed)
    top = 2**bits - 1 if unsigned else 2 ** min(bits, 63) - 1
    values = rng.integers(0, top, n, dtype=np.uint64 if unsigned else np.int64, endpoint=True)
    values[: n // 3] = values[n // 3 : 2 * (n // 3)]  # repeats, so stability matters
    assert radix_order(values).tolist() == np.argsort(values, kind="stable").tolist()
