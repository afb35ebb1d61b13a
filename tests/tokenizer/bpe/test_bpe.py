"""BPE against llama.cpp: every BPE vocab's conformance rows and .inp/.out vectors, plus the
rules the reference data does not reach (invalid UTF-8, byte fallback, merge-string splitting,
the heap merge, models whitespace and hybriddna) on small hand-made vocabs.

Whole conformance rows go through the project's Tokenizer (special-token partition and BOS/EOS
are ``tokenizer.py``'s); everything else calls BpeEncoder directly.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

from support import HAVE_SHARED, SHARED_MISSING, conformance_rows, llama_test_cases, vocab_files
from tui_tok.errors import TokenizeError
from tui_tok.tokenizer.bpe.encoder import BpeEncoder
from tui_tok.tokenizer.core.byte_level import CHAR_TO_BYTE
from tui_tok.tokenizer.core.types import TokenAttr, VocabType
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.pretokenize import offsets

BPE_MODELS = {"gpt2", "gemma4", "hybriddna", "whitespace"}


@cache
def _tokenizer(path: str):
    loader = pytest.importorskip("tui_tok.loader")
    return loader.load_tokenizer(path)


@cache
def _encoder(path: str) -> BpeEncoder:
    return BpeEncoder(_tokenizer(path).vocab)


def _model_of(path) -> str:
    """``tokenizer.ggml.model`` from the file head (GGUF: key, u32 type 8 = string, u64 length, bytes)."""
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    key = b"tokenizer.ggml.model"
    i = head.find(key)
    if i < 0:
        return ""
    i += len(key) + 4
    n = int.from_bytes(head[i : i + 8], "little")
    return head[i + 8 : i + 8 + n].decode("utf-8", "replace")


def _bpe_files():
    return [v for v in vocab_files() if _model_of(v.path) in BPE_MODELS]


BPE_FILES = _bpe_files()
BPE_IDS = [v.name for v in BPE_FILES]


def _encode(path: str, text: str, *, add_special: bool, parse_special: bool) -> list[int]:
    """Whole-text ids through the project's Tokenizer (special partition, BOS/EOS, then BpeEncoder)."""
    return _tokenizer(path).encode(text, add_special=add_special, parse_special=parse_special)


@pytest.mark.parametrize("vf", BPE_FILES, ids=BPE_IDS)
def test_conformance_rows(vf) -> None:
    rows = conformance_rows(vf.name)
    if not rows:
        pytest.skip(f"no conformance rows for {vf.name}")
    path = str(vf.path)
    bad = [
        (r["text"], r["add_special"], r["parse_special"])
        for r in rows
        if _encode(path, r["text"], add_special=r["add_special"], parse_special=r["parse_special"]) != r["ids"]
    ]
    assert not bad, f"{len(bad)}/{len(rows)} rows differ, first: {bad[:3]}"


@pytest.mark.parametrize("vf", [v for v in BPE_FILES if v.inp], ids=[v.name for v in BPE_FILES if v.inp])
def test_llama_cpp_vectors(vf) -> None:
    cases = llama_test_cases(vf.name)
    bad = [t for t, ids in cases if _encode(str(vf.path), t, add_special=False, parse_special=False) != ids]
    assert not bad, f"{len(bad)}/{len(cases)} cases differ, first: {bad[:3]}"


def test_shared_bpe_vocabs_present() -> None:
    if not HAVE_SHARED:
        pytest.skip(SHARED_MISSING)
    assert {"qwen2", "llama-bpe", "gpt-2", "gemma-4", "qwen35"} <= set(BPE_IDS)


# ----------------------------------------------------------------- spans


def _qwen() -> BpeEncoder:
    for v in BPE_FILES:
        if v.name in ("qwen3-vocab", "qwen2"):
            return _encoder(str(v.path))
    pytest.skip("no qwen BPE vocab available")


def _piece_bytes(enc: BpeEncoder, tid: int) -> bytes:
    return bytes(CHAR_TO_BYTE[c] for c in enc.vocab.tokens[tid])


text_strategy = st.text(
    alphabet=st.sampled_from("aZ's \t\n\r\xa0\u3000éß\u0301中文🦙0123½!?-_▁\x00"), max_size=30
) | st.text(max_size=20)


@settings(max_examples=150, deadline=None)
@given(text=text_strategy)
def test_spans_tile_input_and_render_it(text: str) -> None:
    """Valid UTF-8: spans tile the input and each token's bytes are exactly its span."""
    enc = _qwen()
    data = text.encode("utf-8", "surrogatepass")
    pieces = enc.encode_fragment(data, after_special=True) if data else []
    pos = 0
    for tid, start, end in pieces:
        assert start == pos
        assert _piece_bytes(enc, tid) == data[start:end]
        pos = end
    assert pos == len(data)


@settings(max_examples=150, deadline=None)
@given(data=st.binary(max_size=24))
def test_invalid_utf8_spans_stay_ordered(data: bytes) -> None:
    """Any bytes: spans are in order, inside the input and cover it; bad bytes come out as U+FFFD."""
    enc = _qwen()
    try:
        pieces = enc.encode_fragment(data, after_special=True)
    except TokenizeError:
        assert any(data[i] in (0xF4, 0xF5, 0xF6, 0xF7) for i in range(len(data)))
        return
    pos = 0
    for _, start, end in pieces:
        assert pos <= start <= end <= len(data)
        pos = end
    if data:
        assert pieces[0][1] == 0 and pieces[-1][2] == len(data)


def test_invalid_bytes_become_replacement_characters() -> None:
    enc = _qwen()
    ffd = b"\xef\xbf\xbd"
    got = enc.encode_fragment(b"a\x80b", after_special=True)
    assert b"".join(_piece_bytes(enc, t) for t, _, _ in got) == b"a" + ffd + b"b"
    assert got[0][1:] == (0, 1) and got[-1][2] == 3
    # C0 80 is an overlong NUL for llama.cpp, ED A0 80 a surrogate: kept, not replaced
    got = enc.encode_fragment(b"\xc0\x80", after_special=True)
    assert b"".join(_piece_bytes(enc, t) for t, _, _ in got) == b"\x00"
    got = enc.encode_fragment(b"\xed\xa0\x80", after_special=True)
    assert b"".join(_piece_bytes(enc, t) for t, _, _ in got) == b"\xed\xa0\x80"


def test_code_point_above_unicode_is_an_error() -> None:
    with pytest.raises(TokenizeError, match="0x110000"):
        _qwen().encode_fragment(b"a\xf4\x90\x80\x80", after_special=True)


# ------------------------------------------------------------ merging


@settings(max_examples=60, deadline=None)
@given(word=st.text(alphabet=st.sampled_from("abcdeth ĠĊ"), min_size=2, max_size=120))
def test_list_merge_equals_the_reference_heap(word: str) -> None:
    """Short words merge by a list scan, long ones with the reference's heap (llama.cpp's queue): same result."""
    enc = _qwen()
    symbols = list(word.replace(" ", "Ġ"))
    listed = enc._merge(list(symbols)) if len(symbols) <= enc.paths.bpe_list_max else None
    heaped = enc._merge_checked(list(symbols))
    if listed is not None:
        assert listed == heaped
    assert "".join(heaped) == "".join(symbols)


def _toy(tokens: list[str], merges: list[str], *, model: str = "gpt2", pre: str = "gpt-2", **flags) -> Vocab:
    n = len(tokens)
    return Vocab(
        model=model,
        type=VocabType.BPE,
        pre=pre,
        tokens=tokens,
        scores=np.zeros(n, dtype=np.float32),
        types=np.ones(n, dtype=np.int32),
        attrs=np.full(n, int(TokenAttr.NORMAL), dtype=np.int32),
        token_to_id={t: i for i, t in enumerate(tokens)},
        merges=merges,
        escape_whitespaces=flags.pop("escape_whitespaces", False),
        **flags,
    )


def _ids(enc: BpeEncoder, text: str) -> list[int]:
    return [t for t, _, _ in enc.encode_fragment(text.encode(), after_special=True)]


def test_merge_order_rank_then_leftmost_and_duplicates_keep_lowest_rank() -> None:
    tokens = ["a", "b", "c", "ab", "bc", "abc"]
    # "b c" listed first: bc wins over ab; a duplicate later entry must not lower "a b"'s priority
    enc = BpeEncoder(_toy(tokens, ["b c", "a b", "a bc", "b c"]))
    assert _ids(enc, "abc") == [5]
    enc = BpeEncoder(_toy(tokens, ["a b", "b c", "ab c"]))
    assert _ids(enc, "abc") == [5]
    enc = BpeEncoder(_toy(tokens, ["a b", "b c"]))
    assert _ids(enc, "abc") == [3, 2]
    # equal pairs: leftmost first ("aaa" -> "aa" "a")
    enc = BpeEncoder(_toy(["a", "aa"], ["a a"]))
    assert _ids(enc, "aaa") == [1, 0]


def test_missing_tokens_fall_back_to_bytes_and_misses_are_dropped() -> None:
    # "é" byte-encodes to "Ã©": only "Ã" is a token, so one byte is dropped (llama.cpp drops it)
    enc = BpeEncoder(_toy(["Ã", "x"], []))
    assert enc.encode_fragment("é".encode(), after_special=True) == [(0, 0, 1)]
    # a merged symbol that is not a token: per-byte 1-char tokens of its text
    enc = BpeEncoder(_toy(["a", "b"], ["a b"]))
    assert enc.encode_fragment(b"ab", after_special=True) == [(0, 0, 1), (1, 1, 2)]


def test_ignore_merges_takes_whole_word() -> None:
    tokens = ["h", "e", "y", "he", "hey"]
    assert _ids(BpeEncoder(_toy(tokens, ["h e"])), "hey") == [3, 2]
    assert _ids(BpeEncoder(_toy(tokens, ["h e"], ignore_merges=True)), "hey") == [4]


def test_gemma4_escape_newlines_and_hex_fallback() -> None:
    tokens = ["▁", "a", "▁a", "\n", "\n\n", "<0x62>", "<0xC3>", "<0xA9>"]
    vocab = _toy(tokens, ["▁ a"], model="gemma4", pre="gemma4", escape_whitespaces=True)
    enc = BpeEncoder(vocab)
    # spaces become ▁ (3 bytes) but spans stay on the 1-byte input space
    assert enc.encode_fragment(b" a", after_special=True) == [(2, 0, 2)]
    # an all-newline word that is a token is taken whole even without merges
    assert enc.encode_fragment(b"\n\na", after_special=True) == [(4, 0, 2), (1, 2, 3)]
    # unknown characters: <0xHH> per byte, misses dropped
    assert enc.encode_fragment("bé".encode(), after_special=True) == [(5, 0, 1), (6, 1, 2), (7, 2, 3)]


def test_merge_string_splits_at_first_space_after_byte_one() -> None:
    # raw vocab (no byte encoding): the merge " a b" splits as (" a", "b")? No: at the first ' '
    # searched from byte 1, i.e. (" a", "b"); "a b c" names ("a", "b c") only
    tokens = ["a", "b", "c", "b c", "a b c", "x"]
    vocab = _toy(tokens, ["b c", "a b c"], model="whitespace", pre="whitespace")
    enc = BpeEncoder(vocab)
    assert enc.merge_ranks()["a b c"] == 1


def test_whitespace_model_splits_on_whitespace_and_lowercases() -> None:
    tokens = ["a", "b", "ab", "c"]
    vocab = _toy(tokens, ["a b"], model="whitespace", pre="whitespace", lowercase=True)
    enc = BpeEncoder(vocab)
    assert enc.encode_fragment(b"AB\xc2\xa0 c", after_special=True) == [(2, 0, 2), (3, 5, 6)]


def test_hybriddna_kmers() -> None:
    tokens = ["<dna>", "</dna>", "<oov>", "ACGTAC\ue000", "GGAAAA\ue000", "x"]
    enc = BpeEncoder(_toy(tokens, [], model="hybriddna", pre="gpt-2"))
    got = enc.encode_fragment(b"x<dna>acgtacGG</dna>x", after_special=True)
    assert got == [(5, 0, 1), (0, 1, 6), (3, 6, 12), (4, 12, 14), (1, 14, 20), (5, 20, 21)]
    # unterminated: k-mers run to the end; unknown k-mer -> <oov>
    assert [t for t, _, _ in enc.encode_fragment(b"<dna>TTTTTT", after_special=True)] == [0, 2]


@settings(max_examples=200, deadline=None)
@given(
    data=st.binary(max_size=16)
    | st.lists(
        st.sampled_from(
            [b"\xc0\x80", b"\xed\xa0\x80", b"\xe2\x82", b"\xf0\x9f\xa6\x99", b"a", b"\x80", b"\xf4\x90\x80\x80"]
        ),
        max_size=6,
    ).map(b"".join)
)
def test_span_decoder_equals_llama_decoder(data: bytes) -> None:
    from tui_tok.tokenizer.unicode.data import cpts_from_utf8

    cps, starts = offsets.decode_spans(data)
    assert cps == cpts_from_utf8(data)
    assert starts[0] == 0 and starts[-1] == len(data) and all(a < b for a, b in zip(starts, starts[1:]))


def test_whitespace_model_lowercase_changes_lengths() -> None:
    # İ (2 bytes) lowercases to i (1 byte): the token still spans the 2 input bytes
    enc = BpeEncoder(_toy(["i", "x"], [], model="whitespace", pre="whitespace", lowercase=True))
    assert enc.encode_fragment("\u0130 x".encode(), after_special=True) == [(0, 0, 2), (1, 3, 4)]


@settings(max_examples=100, deadline=None)
@given(text=text_strategy)
def test_gemma4_spans_render_input(text: str) -> None:
    """Raw (not byte-encoded) vocab with the ▁ escape: each token's text, ▁ read as ' ' and
    <0xHH> as its byte, is exactly the input bytes of its span, and spans tile the input.
    (A literal ▁ in the input is excluded: it renders as ' ', as in llama.cpp.)"""
    assume("▁" not in text)
    found = [v for v in BPE_FILES if v.name == "gemma-4"]
    if not found:
        pytest.skip("gemma-4 vocab not available")
    enc = _encoder(str(found[0].path))
    data = text.encode("utf-8", "surrogatepass")
    pos = 0
    for tid, start, end in enc.encode_fragment(data, after_special=True) if data else []:
        piece = enc.vocab.tokens[tid]
        rendered = (
            bytes([int(piece[3:5], 16)])
            if piece.startswith("<0x") and len(piece) == 6
            else piece.replace("▁", " ").encode()
        )
        assert start == pos and rendered == data[start:end]
        pos = end
    assert pos == len(data)


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(
        st.sampled_from([b"\xc0", b"\xe2", b"\xe2\x96", b"\xf0\x9f", b" ", b"a", b"\x80", b"\x96\x81"]), max_size=8
    ).map(b"".join)
)
def test_escape_at_code_points_equals_llama_byte_replace(data: bytes) -> None:
    """llama.cpp replaces ' ' by E2 96 81 in the bytes, then decodes; we decode, then replace
    U+0020 by U+2581 (so spans can be mapped). Same code points, whatever the broken bytes."""
    escaped_bytes = data.replace(b" ", "\u2581".encode())
    assert offsets.decode(data, escape=True)[0] == offsets.decode(escaped_bytes, escape=False)[0]


def test_subword_cut_respects_merges_across_the_cut() -> None:
    # "x ▁y" merges across the ▁ boundary, so no cut after "x"; "a▁b" may be cut before ▁
    tokens = ["x", "▁", "y", "▁y", "x▁y", "a", "b", "▁b"]
    vocab = _toy(tokens, ["▁ y", "x ▁y", "▁ b"], model="gemma4", pre="gemma4", escape_whitespaces=True)
    enc = BpeEncoder(vocab)
    cut = enc._subword_cut()
    assert cut is not None and cut.split("x▁ya▁b") == ["x▁ya", "▁b"]
    assert _ids(enc, "x ya b") == [4, 5, 7]


@cache
def _uncut(path: str) -> BpeEncoder:
    enc = BpeEncoder(_encoder(path).vocab)
    enc._cut = None  # the optimisation disabled
    enc._ranks = _encoder(path).merge_ranks()  # share the 515k-entry table
    return enc


@settings(max_examples=100, deadline=None)
@given(text=text_strategy)
def test_subword_cut_changes_nothing(text: str) -> None:
    """gemma-4: encoding with the ▁ cut equals encoding whole lines."""
    found = [v for v in BPE_FILES if v.name == "gemma-4"]
    if not found:
        pytest.skip("gemma-4 vocab not available")
    plain = _uncut(str(found[0].path))
    assert _encoder(str(found[0].path))._subword_cut() is not None  # short texts use it once built
    data = text.encode("utf-8", "surrogatepass")
    assert _encoder(str(found[0].path)).encode_fragment(data, after_special=True) == plain.encode_fragment(
        data, after_special=True
    )


@settings(max_examples=150, deadline=None)
@given(text=st.text("ab▁ .\n\x00", max_size=40), glued=st.sets(st.sampled_from("ab▁ .\n"), max_size=4))
def test_cut_before_equals_regex_split_per_word(text: str, glued: set[str]) -> None:
    """The one-pass cut of a whole text == the ▁-cut regex applied to each pre-tokenized word."""
    import re

    from tui_tok.tokenizer.bpe.subword_cut import SubwordCut
    from tui_tok.tokenizer.pretokenize.split import split_words
    from tui_tok.tokenizer.pretokenize.table import pre_spec

    glued = glued | {"\x00"}
    words = split_words(text, pre_spec("gemma4").regexes) if text else []
    assert "".join(words) == text
    body = "".join(map(re.escape, sorted(glued)))
    pattern = re.compile(f"(?<=[^{body}])(?=\u2581)", re.S)
    expected = [part for word in words for part in pattern.split(word) if part]
    cut = SubwordCut(pattern, np.array(sorted(map(ord, glued)), dtype=np.uint32))
    assert cut.cut_words(text, words) == expected


def test_cut_words_cuts_each_word_when_words_do_not_tile_the_text() -> None:
    """Words that do not tile the text (a pre-tokenizer that drops characters) are cut one by one."""
    from tui_tok.tokenizer.bpe.subword_cut import build_subword_cut

    cut = build_subword_cut("\x00\u2581 y\x00x \u2581y\x00", 2)
    assert cut is not None and cut.glued.tolist() == [0, ord("x")]
    assert cut.cut_words("a\u2581b x\u2581y", ["a\u2581b", "x\u2581y"]) == ["a", "\u2581b", "x\u2581y"]
    assert build_subword_cut("\x00 a\x00", 1) is None  # a merge starting with ' ': not "left right"


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=20) | text_strategy.map(lambda t: t.encode("utf-8", "surrogatepass")))
def test_ids_fast_path_equals_pieces(data: bytes) -> None:
    for enc in (
        _qwen(),
        BpeEncoder(_toy(["a", "b", "<0x80>"], [], model="gemma4", pre="gemma4", escape_whitespaces=True)),
    ):
        try:
            want = [t for t, _, _ in enc.encode_fragment(data, after_special=True)]
        except TokenizeError:
            with pytest.raises(TokenizeError):
                enc.encode_fragment_ids(data)
            continue
        assert enc.encode_fragment_ids(data) == want


def test_lazy_rank_search_equals_the_rank_dict() -> None:
    """Before the rank dict exists, ranks come from a search in the joined merges: same answers,
    duplicates keep their first (lowest) rank, and the dict takes over once the budget is spent."""
    merges = ["a b", "ab c", "a b", "x y", "b c"]
    enc = BpeEncoder(_toy(["a", "b", "c", "ab", "abc", "x", "y", "bc"], merges))
    lookup = enc._rank_get()
    assert enc._ranks is None  # still lazy
    keys = [*merges, "a", "b c d", "", "c a", "ab"]
    assert [lookup(k, -1) for k in keys] == [enc.merge_ranks().get(k, -1) for k in keys]
    qwen = BpeEncoder(_qwen().vocab)
    lazy = qwen._rank_get()
    sample = qwen.vocab.merges[:50] + qwen.vocab.merges[-50:] + ["no such", "Ġ t"]
    assert [lazy(k, -1) for k in sample] == [qwen.merge_ranks().get(k, -1) for k in sample]


def test_lazy_rank_search_never_matches_across_entries() -> None:
    enc = BpeEncoder(_toy(["a", "b", "c", "d"], ["a b", "c d"]))
    assert enc._rank_get()("a b\x00c d", -1) == -1  # spans two entries: not a merge


def test_merges_text_from_the_reader_gives_the_same_cut_and_ranks() -> None:
    """The loader hands the reader's joined merges (``Vocab.merges_text``) to the rank search and
    the ▁ cut; built from it or from the list, both answer the same."""
    import dataclasses

    qwen = _qwen()
    assert qwen.vocab.merges_text == "\x00" + "\x00".join(qwen.vocab.merges) + "\x00"
    tokens = ["x", "▁", "y", "▁y", "x▁y", "a", "b", "▁b"]
    merges = ["▁ y", "x ▁y", "▁ b"]
    toy = _toy(tokens, merges, model="gemma4", pre="gemma4", escape_whitespaces=True)
    joined = dataclasses.replace(toy, merges_text="\x00" + "\x00".join(merges) + "\x00")
    with_text, without = BpeEncoder(joined), BpeEncoder(toy)
    assert with_text._subword_cut().pattern == without._subword_cut().pattern
    assert (with_text._subword_cut().glued == without._subword_cut().glued).all()
    for enc in (BpeEncoder(qwen.vocab), BpeEncoder(dataclasses.replace(qwen.vocab, merges_text=None))):
        lookup = enc._rank_get()
        sample = enc.vocab.merges[:20] + enc.vocab.merges[-20:] + ["no such"]
        assert [lookup(k, -1) for k in sample] == [
            *range(20),
            *range(len(enc.vocab.merges) - 20, len(enc.vocab.merges)),
            -1,
        ]


def test_an_encoder_with_lazy_ranks_is_freed_without_the_collector() -> None:
    """The lazy rank search reaches the rank dict through a weak reference: no cycle, so a dropped
    tokenizer's tables are freed at once (and at exit without a collection pass)."""
    import gc
    import weakref

    enc = BpeEncoder(_qwen().vocab)
    assert enc._rank_get()(enc.vocab.merges[3], -1) == 3  # the lazy search exists now
    ref = weakref.ref(enc)
    gc.disable()
    try:
        del enc
        assert ref() is None
    finally:
        gc.enable()


@pytest.mark.parametrize(
    "merges", [["\u2581b", "a  c"], ["a b", "c\x00d e"], ["a b", " c"], [" a", "b c"], ["a b c", "d"]]
)
def test_subword_cut_needs_one_space_in_every_merge(merges: list[str]) -> None:
    """The scan relies on the "left right" form of every merge: a merge with no space beside one
    with two (the same count of spaces), a NUL inside a merge, or a leading space: no cut."""
    from tui_tok.tokenizer.bpe.subword_cut import build_subword_cut

    assert build_subword_cut("\x00" + "\x00".join(merges) + "\x00", len(merges)) is None
    assert build_subword_cut("\x00\u2581 b\x00a c\x00", 2) is not None
