"""Every vocab file against llama.cpp's own output: ids, pieces, both detokenizations, .inp/.out.

One test per vocab (all families) and code-path mode (``Tokenizer(paths=...)``: the tuned sizes,
every fast path from the smallest input, no fast path; each must give llama.cpp's ids). A family whose encoder is missing fails with a message saying
so: that is the truth about the project, not something to skip. The match rate per vocab is
printed at the end of the run (see conftest.py). Uses only bundled assets without ../shared.
"""

from __future__ import annotations

import pytest

from support import VocabFile, conformance_rows, llama_test_cases, vocab_files
from tui_tok.errors import TuiTokError
from tui_tok.tokenizer.core.paths import MODES
from tui_tok.tokenizer.tokenizer import Tokenizer

MATCH_RATES: dict[str, tuple[int, int, str]] = {}
"""vocab name -> (rows matching, rows total, note); also recorded as a property for conftest.py."""

_VOCABS = [v for v in vocab_files() if v.conformance is not None or v.inp is not None]


def _row_problems(tok: Tokenizer, row: dict) -> list[str]:
    """What differs from llama.cpp for one conformance row ([] when everything matches)."""
    text, add, parse = row["text"], row["add_special"], row["parse_special"]
    where = f"text={text!r} add_special={add} parse_special={parse}"
    try:
        ids = tok.encode(text, add_special=add, parse_special=parse)
    except TuiTokError as exc:
        return [f"{where}: raised {type(exc).__name__}: {exc}"]
    problems = []
    if ids != row["ids"]:
        problems.append(f"{where}: ids {ids} != llama.cpp {row['ids']}")
    expected_ids = row["ids"]
    pieces = [tok.token_to_piece(i).hex() for i in expected_ids]
    if pieces != row["pieces_hex"]:
        problems.append(f"{where}: pieces {pieces} != {row['pieces_hex']}")
    detok = tok.detokenize(expected_ids, unparse_special=True).hex()
    if detok != row["detok_hex"]:
        problems.append(f"{where}: detokenize(unparse_special) {detok} != {row['detok_hex']}")
    plain = tok.detokenize(expected_ids, remove_special=True).hex()
    if plain != row["detok_plain_hex"]:
        problems.append(f"{where}: detokenize(remove_special) {plain} != {row['detok_plain_hex']}")
    return problems


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("vf", _VOCABS, ids=[v.name for v in _VOCABS])
def test_matches_llama_cpp(load_cached, record_property, vf: VocabFile, mode: str) -> None:  # type: ignore[no-untyped-def]
    name = vf.name if mode == "auto" else f"{vf.name} ({mode})"
    try:
        tok = load_cached(vf.path, mode)
    except TuiTokError as exc:
        MATCH_RATES[name] = (0, len(conformance_rows(vf.name)), f"cannot load: {exc}")
        record_property("conformance_match_rate", (name, *MATCH_RATES[name]))
        pytest.fail(f"{name}: cannot build a tokenizer ({type(exc).__name__}: {exc})")
    problems: list[str] = []
    rows = conformance_rows(vf.name)
    ok = 0
    for row in rows:
        p = _row_problems(tok, row)
        ok += not p
        problems += p
    cases = llama_test_cases(vf.name)
    ok_cases = 0
    for text, expected in cases:
        got = tok.encode(text, add_special=False, parse_special=False)
        if got == expected:
            ok_cases += 1
        else:
            problems.append(f".inp/.out {text!r}: ids {got} != {expected}")
    note = f"(.inp/.out {ok_cases}/{len(cases)})" if cases else ""
    MATCH_RATES[name] = (ok, len(rows), note)
    record_property("conformance_match_rate", (name, ok, len(rows), note))
    assert not problems, f"{name}: {len(problems)} mismatches, first ones:\n" + "\n".join(problems[:10])
