"""Explanations on every vocab file's conformance texts, parse special on and off: ids equal
``encode``, fragments and chunks tile the text, BPE steps are real merges for every chunk."""

from __future__ import annotations

import pytest

from explain_checks import check
from support import HAVE_SHARED, SHARED, SHARED_MISSING, conformance_rows, llama_test_cases, vocab_files
from tui_tok.tokenizer.explain import explain

_VOCABS = [v for v in vocab_files() if v.conformance is not None or v.inp is not None]


@pytest.mark.parametrize("vf", _VOCABS, ids=[v.name for v in _VOCABS])
def test_explanations_agree_with_encode(load_cached, vf) -> None:  # type: ignore[no-untyped-def]
    tok = load_cached(vf.path)
    texts = dict.fromkeys([r["text"] for r in conformance_rows(vf.name)] + [t for t, _ in llama_test_cases(vf.name)])
    assert texts, f"{vf.name}: no texts"
    for text in texts:
        for parse_special in (False, True):
            check(tok, explain(tok, text, parse_special=parse_special), text, parse_special)


@pytest.mark.skipif(not HAVE_SHARED, reason=SHARED_MISSING)
def test_the_shared_corpus_is_covered() -> None:
    """With ../shared, every vocab of its conformance corpus is one of the cases above (without it,
    the bundled vocabs, one per family, still are)."""
    shared = {p.name.removesuffix(".jsonl") for p in (SHARED / "conformance").glob("*.jsonl")}
    assert shared <= {v.name for v in _VOCABS}
