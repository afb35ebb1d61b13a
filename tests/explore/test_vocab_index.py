"""Vocabulary search against a brute-force oracle over every piece."""

from __future__ import annotations

import numpy as np
import pytest
import regex
from hypothesis import given, settings, strategies as st

from support import vocab_file
from tui_tok.explore.display import display_piece
from tui_tok.explore.vocab_index import SPACE_FOLD, build_vocab_index, search
from tui_tok.tokenizer.core.types import TokenType


@pytest.fixture(scope="module")
def qwen3():
    from tui_tok import read_gguf

    return build_vocab_index(read_gguf(vocab_file("qwen3-vocab").path).metadata)


@pytest.fixture(scope="module")
def phi3():
    from tui_tok import read_gguf

    return build_vocab_index(read_gguf(vocab_file("phi-3").path).metadata)


def _brute(index, predicate) -> list[int]:
    return [i for i, p in enumerate(index.pieces) if predicate(display_piece(p))]


@pytest.mark.parametrize("query", ["the", "ing", "Ġ", "日本", "The", "<|", "你好", " 你", "é", "É", "🙂"])
def test_substring_matches_brute_force(qwen3, query: str) -> None:
    """The text as the display shows it (space markers folded; case ignored without a capital),
    or, for non-ASCII text in this byte-level vocabulary, the piece spelling its UTF-8 bytes."""
    from tui_tok.tokenizer.core.byte_level import byte_encode

    folded_q = query.translate(SPACE_FOLD)
    if any(c.isupper() for c in folded_q):
        shown = lambda d: folded_q in d.translate(SPACE_FOLD)  # noqa: E731
    else:
        shown = lambda d: folded_q in d.translate(SPACE_FOLD).lower()  # noqa: E731
    spelled = byte_encode(query.encode()) if not query.isascii() else None
    pred = lambda d: shown(d) or (spelled is not None and spelled in d)  # noqa: E731
    assert search(qwen3, query).ids.tolist() == _brute(qwen3, pred)


@pytest.mark.parametrize("query", ["你好", "日本", "é", "🙂"])
def test_byte_level_search_finds_the_tokens_holding_the_texts_bytes(qwen3, query: str) -> None:
    """Every token whose bytes hold the query's UTF-8 is found (llama.cpp's token_to_piece)."""
    from tui_tok import load_tokenizer

    tok = load_tokenizer(vocab_file("qwen3-vocab").path)
    want = query.encode()
    holding = [i for i in range(qwen3.n_tokens) if want in tok.token_to_piece(i)]
    assert holding and set(holding) <= set(search(qwen3, query).ids.tolist())


def _searched_form(text: str) -> str:
    """Decoded text as a regex sees it: spaces and tabs as they are, other whitespace visible."""
    return "".join(c if c in " \t" else display_piece(c) for c in text)


@pytest.fixture(scope="module")
def qwen3_decoded() -> list[str]:
    """What llama.cpp's token_to_piece gives for each Qwen3 token (specials too), as regexes see it."""
    from tui_tok import load_tokenizer

    tok = load_tokenizer(vocab_file("qwen3-vocab").path)
    return [_searched_form(tok.token_to_piece(i, special=True).decode("utf-8", "surrogateescape"))
            for i in range(tok.vocab.n_tokens)]  # fmt: skip


@pytest.mark.parametrize("pattern", [r"^Ġthe$", r"^ the$", r"^ hello$", r"ing$", r"\p{Han}{2}", r"^<\|.*\|>$", r"^\d+$",
                                     r"日本", r"\p{Han}{4}", r"^\s+$", r"↵"])  # fmt: skip
def test_regex_matches_brute_force(qwen3, qwen3_decoded, pattern: str) -> None:
    """A regex matches the text each piece decodes to (llama.cpp's token_to_piece), spaces as
    spaces; a space marker typed in it (Ġ) means a space, as in substrings."""
    rx = regex.compile(pattern.replace("Ġ", " "), regex.VERSION1)
    want = [i for i in range(qwen3.n_tokens) if rx.search(qwen3_decoded[i])]
    assert search(qwen3, f"/{pattern}/").ids.tolist() == want


def test_regex_and_substring_agree_on_spaces(qwen3, phi3) -> None:
    """Issue 27: ' hello' found Ġhello but /^ hello$/ found nothing, while /^日本$/ matched decoded text."""
    hello = qwen3.pieces.index("Ġhello")
    assert search(qwen3, "/^ hello$/").ids.tolist() == [hello]
    assert hello in search(qwen3, " hello").ids.tolist()
    assert search(qwen3, "/^日本$/").ids.tolist() == [qwen3.pieces.index("æĹ¥æľ¬")]
    the = phi3.pieces.index("▁the")
    assert search(phi3, "/^ the$/").ids.tolist() == search(phi3, "/^▁the$/").ids.tolist() == [the]
    assert qwen3.decoded_text(hello) == "·hello" and qwen3.decoded_text(qwen3.pieces.index("æĹ¥æľ¬")) == "日本"


def test_an_id_query_is_never_a_substring(qwen3) -> None:
    for query in ("#-1", "# -5", f"#{qwen3.n_tokens}"):
        result = search(qwen3, query)
        assert result.kind == "id" and result.ids.tolist() == [] and result.error is not None
        assert result.error.startswith("no token #") and f"0 to {qwen3.n_tokens - 1}" in result.error
    assert search(qwen3, "#+7").ids.tolist() == [7]


def test_regex_finds_byte_level_pieces_by_their_text(qwen3) -> None:
    """Issue 13: ``/日本/`` and ``/\\p{Han}{4}/`` found nothing while the substring 日本 found the pieces."""
    nihon = search(qwen3, "/日本/").ids.tolist()
    assert nihon == search(qwen3, "日本").ids.tolist() and qwen3.pieces.index("æĹ¥æľ¬") in nihon
    four = search(qwen3, r"/\p{Han}{4}/").ids.tolist()
    assert len(four) > 100 and qwen3.pieces.index("ä¸įèĥ½ä¸ºç©º") in four  # 不能为空


@pytest.mark.parametrize(("query", "column"), [("/(/", 3), ("/[a/", 4), ("/ab)/", 4), ("/(?<x/i", 6), ("/a)(b/", 3)])
def test_regex_errors_point_into_what_was_typed(qwen3, query: str, column: int) -> None:
    """``/(/`` said "missing ) at position 11" (a position in the wrapped pattern); and ``a)(b``
    was accepted, closing the group it was wrapped in."""
    result = search(qwen3, query)
    assert result.ids.tolist() == [] and result.error is not None
    assert result.error.endswith(f" at column {column}") and result.error.startswith("bad regex: ")


def test_non_byte_level_vocab_regex_is_on_decoded_pieces(phi3) -> None:
    """▁ decodes to a space; byte tokens stay as stored (<0x0A>), as substrings see them."""
    for pattern in (r"^ the", r"^▁the$", r"^<0x0A>$", r"^\s\s+$"):
        rx = regex.compile(pattern.replace("▁", " "))
        want = [i for i, p in enumerate(phi3.pieces) if rx.search(_searched_form(p.replace("▁", " ")))]
        assert search(phi3, f"/{pattern}/").ids.tolist() == want and want, pattern


def test_space_in_query_matches_every_space_marker(phi3, qwen3) -> None:
    assert 278 in search(phi3, " the").ids.tolist()  # ▁the
    assert 279 in search(qwen3, " the").ids.tolist()  # Ġthe


def test_id_search_and_errors(qwen3) -> None:
    assert search(qwen3, "#279").ids.tolist() == [279]
    assert search(qwen3, "#99999999").error is not None
    bad = search(qwen3, "/(/")
    assert bad.error is not None and bad.error.startswith("bad regex") and len(bad.ids) == 0


def test_type_filter(phi3) -> None:
    ids = search(phi3, "", token_type=int(TokenType.BYTE)).ids
    assert len(ids) == 256 and all(phi3.pieces[i].startswith("<0x") for i in ids)


def test_columns(phi3, qwen3) -> None:
    assert qwen3.merge_ranks is not None and qwen3.merge_ranks[279] >= 0
    assert phi3.merge_ranks is None and phi3.scores is not None
    assert int(phi3.byte_lengths[278]) == 4  # ▁the -> " the"
    assert int(qwen3.byte_lengths[279]) == 4  # Ġthe -> " the"
    tok_by_byte = [i for i, p in enumerate(phi3.pieces) if p == "<0xE6>"]
    assert int(phi3.byte_lengths[tok_by_byte[0]]) == 1


def test_merge_rank_is_lowest_producing_merge(qwen3) -> None:
    from tui_tok import read_gguf

    merges = read_gguf(vocab_file("qwen3-vocab").path).get("tokenizer.ggml.merges")
    for token_id in (279, 1782, 3786):
        rank = int(qwen3.merge_ranks[token_id])
        a, b = merges[rank].split(" ", 1)
        assert a + b == qwen3.pieces[token_id]
        assert all(m.replace(" ", "", 1) != qwen3.pieces[token_id] for m in merges[:rank])


def test_display_joins_one_line_per_piece(qwen3) -> None:
    assert qwen3.joined.count("\n") == qwen3.n_tokens - 1
    assert np.all(np.diff(qwen3.line_starts) > 0)


def test_display_reads_the_lines_of_joined(qwen3) -> None:
    """``display`` (a ``JoinedLines``, no list of strings) is ``joined.split("\\n")`` by index too."""
    import doctest

    from tui_tok.explore import joined_lines

    assert doctest.testmod(joined_lines).failed == 0
    lines = qwen3.joined.split("\n")
    assert len(qwen3.display) == len(lines) and list(qwen3.display) == lines
    assert [qwen3.display[i] for i in range(len(lines))] == lines
    assert qwen3.display[-1] == lines[-1] and qwen3.display[5:9] == lines[5:9]
    with pytest.raises(IndexError):
        qwen3.display[len(lines)]
    assert len(build_vocab_index({"tokenizer.ggml.model": "llama"}).display) == 0


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(blacklist_categories=()) | st.sampled_from("İΣσς ·Ġ▁\n\t\x00\udc80\u3000aA"), max_size=60),
       st.integers(0, 80))  # fmt: skip
def test_whole_vocabulary_string_helpers_equal_their_per_character_definitions(text: str, repeat: int) -> None:
    """The fast paths for whole-vocabulary strings give what the per-character tables give
    (``repeat`` makes some texts long enough for ``display_piece``'s regex path)."""
    from tui_tok.explore.display import PIECE_TABLE
    from tui_tok.explore.vocab_index import _lower_same_length, fold_spaces

    long_text = text * repeat
    assert display_piece(long_text) == long_text.translate(PIECE_TABLE)
    assert fold_spaces(long_text) == long_text.translate(SPACE_FOLD)
    one_by_one = {ord(c): c.lower() for c in set(long_text) if c.lower() != c and len(c.lower()) == 1}
    assert _lower_same_length(long_text) == long_text.translate(one_by_one)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text("ab \x00", max_size=5), max_size=12), st.lists(st.text("ab \x00", max_size=4), max_size=8))
def test_merge_ranks_equal_the_per_merge_rule(merges: list[str], tokens: list[str]) -> None:
    """Rank of the first merge whose result (the merge without the first space searched from its
    second character, as llama.cpp splits it) is each token, on the all-at-once path and off it."""
    from tui_tok.explore.vocab_index import merge_ranks

    def result(m: str) -> str:
        return m[:1] + m[1:].replace(" ", "", 1)

    tokens = tokens + [result(m) for m in merges[:3]]
    want = [next((r for r, m in enumerate(merges) if result(m) == t), -1) for t in tokens]
    assert merge_ranks(tokens, merges).tolist() == want
