"""The whole-text path (ugm/textids.py, alphabet.py, charwalk.py, pieces.py), ids and spans,
against the exact paths: ``encode_whole`` (llama.cpp's computation) and the reference."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from test_ugm import PIECES, encoder, t5_vocab, tok

from benchmarks.corpus import build_corpus
from support import conformance_rows
from tui_tok.tokenizer.core.paths import AUTO
from tui_tok.tokenizer.ugm.charsmap import Charsmap, build_charsmap
from tui_tok.tokenizer.ugm.charwalk import CharWalk
from tui_tok.tokenizer.ugm.encoder import UgmEncoder
from tui_tok.tokenizer.ugm.hash import text_code_points
from tui_tok.tokenizer.ugm.reference import ReferenceEncoder

WHOLE_FROM = AUTO.ugm_whole_from

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = ["t5-botchan-en-unigram-1000", "nomic-bert-moe"]
# unknown to a small English vocab, changed by NFKC, combining marks, space-like characters
MIXED = PIECES + ["hello", "world", "self.x", "中文字", "\u0301", "a\u0300a\u0300", "½", "～", "\u200d", "Ωμέγα",
                  "\n    ", "  \t", "Ｈｅｌｌｏ", "ﬁne", "\U0001d400", "ก่", "\u3000x"]  # fmt: skip
WORD = st.one_of(st.text(max_size=10), st.lists(st.sampled_from(MIXED), max_size=6).map("".join))
TEXT = st.lists(WORD, min_size=1, max_size=30).map(" ".join)


def whole_ids(enc: UgmEncoder, data: bytes) -> list[int]:
    return [p[0] for p in enc.encode_whole(data)]


def fast_ids(enc: UgmEncoder, data: bytes) -> list[int] | None:
    """The whole-text path's ids; its spans checked against ``encode_whole``'s on the way."""
    enc.prepare()
    found = enc._text_ids.encode(data, enc.tables, enc.token_hash, unk_id=enc.vocab.unk_id, spans=True)
    ids_only = enc._text_ids.encode(data, enc.tables, enc.token_hash, unk_id=enc.vocab.unk_id)
    if found is None:
        assert ids_only is None
        return None
    assert ids_only is not None and found[1] is not None and ids_only[1] is None
    ids, ends = found[0].tolist(), found[1].tolist()
    assert ids_only[0].tolist() == ids
    assert list(zip(ids, [0, *ends[:-1]], ends)) == enc.encode_whole(data)
    return ids


@pytest.mark.parametrize("name", NAMES)
@given(text=TEXT)
@SETTINGS
def test_whole_text_ids_equal_llama_cpps_computation(name: str, text: str) -> None:
    enc = encoder(name)
    data = text.encode("utf-8", "surrogatepass")
    got = fast_ids(enc, data)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        assert got is None  # the other paths take invalid UTF-8
        return
    assert got is not None  # these vocabs meet every condition: the path really ran
    assert got == whole_ids(enc, data)


@pytest.mark.parametrize("name", NAMES)
def test_conformance_rows_through_the_whole_text_path(name: str) -> None:
    """llama.cpp's own ids for every row, every fragment through this path."""
    enc = encoder(name)
    t = tok(name)
    rows = conformance_rows(name)
    assert len(rows) > 200
    ran = sum(fast_ids(enc, r["text"].encode("utf-8", "surrogatepass")) is not None for r in rows)
    assert ran > 200
    enc.whole_from = 0
    try:
        bad = [
            r["text"]
            for r in rows
            if t.encode(r["text"], add_special=r["add_special"], parse_special=r["parse_special"]) != r["ids"]
        ]
    finally:
        enc.whole_from = WHOLE_FROM
    assert bad == []


@pytest.mark.parametrize("name", NAMES)
def test_mixed_corpus_through_encode(name: str) -> None:
    """The benchmark's mix (prose, code, many scripts, decomposed accents) through
    ``encode_fragment_ids``, which takes the whole-text path for long fragments."""
    enc = encoder(name)
    data = build_corpus(60_000).encode()
    assert len(data) >= enc.whole_from
    assert fast_ids(enc, data) is not None
    assert enc.encode_fragment_ids(data, after_special=False) == whole_ids(enc, data)


# -- a small vocab with a charsmap that exercises every region rule ---------------------------

CHARSMAP = build_charsmap({
    "ｂ".encode(): b"b", "e\u0301".encode(): "é".encode(), b"x": b"", "①".encode(): b"1 2",
    "\u3000".encode(): b" ", "ab\u0301c".encode(): b"Q", "\u00bd".encode(): "1\u20442".encode(),
    "\u0301".encode(): b"", b"\t": b" ",
})  # fmt: skip
SMALL = ["a", "b", "c", "e", "é", "1", "2", "Q", "x", "ｂ", "\u0301", "ab", "①", "½", "\u3000", "中", "\t", " ", "  ",
         "\n", "▁", "ab\u0301c", "ab\u0301", "e\u0301", "\u2044"]  # fmt: skip


def small_encoder(prepend: bool, merge: bool, user: bool = False) -> UgmEncoder:
    pieces = ["▁", "▁a", "a", "b", "▁ab", "ab", "é", "▁é", "1", "2", "Q", "▁Q", "中", "▁中", "\u2044", "c", "e"]
    tokens = [(p, -1.0 - 0.25 * i, 1) for i, p in enumerate(pieces)]
    if user:
        tokens.append(("<u>", 0.0, 4))
    meta: dict[str, Any] = {"tokenizer.ggml.add_space_prefix": prepend, "tokenizer.ggml.remove_extra_whitespaces": merge,
                            "tokenizer.ggml.precompiled_charsmap": CHARSMAP}  # fmt: skip
    return UgmEncoder(t5_vocab(tokens, **meta))


@pytest.mark.parametrize("prepend", [False, True])
@pytest.mark.parametrize("merge", [False, True])
@given(data=st.lists(st.sampled_from(SMALL), max_size=30).map("".join))
@settings(max_examples=150, deadline=None)
def test_regions_and_whitespace_on_a_small_charsmap(prepend: bool, merge: bool, data: str) -> None:
    enc = small_encoder(prepend, merge=merge)
    raw = data.encode()
    got = fast_ids(enc, raw)
    assert got is not None
    assert got == whole_ids(enc, raw) == [p[0] for p in enc.encode_reference(raw)]


@pytest.mark.parametrize("index32_max", [None, 0])
@given(data=st.lists(st.sampled_from(SMALL), min_size=20, max_size=200).map("".join))
@settings(max_examples=80, deadline=None)
def test_many_regions_grow_shrink_and_vanish_in_one_text(index32_max: int | None, data: str) -> None:
    """Outputs written in place (shorter ones: the positions before them dropped, their kind
    taken from what follows), longer ones joined in, shifting the dropped positions after
    them; per-piece indices in int32 and, past ``INDEX32_MAX`` (lowered here), int64."""
    from tui_tok.tokenizer.ugm import pieces

    enc = small_encoder(True, merge=True)
    raw = data.encode()
    with pytest.MonkeyPatch.context() as mp:
        if index32_max is not None:
            mp.setattr(pieces, "INDEX32_MAX", index32_max)
        got = fast_ids(enc, raw)
    assert got is not None
    assert got == whole_ids(enc, raw)


@pytest.mark.parametrize("code16", [True, False])
@pytest.mark.parametrize("letter_type", [np.uint8, np.uint16, np.int32])
@given(data=st.lists(st.sampled_from(SMALL), min_size=1, max_size=120).map("".join))
@settings(max_examples=40, deadline=None)
def test_codes_and_letters_in_every_width(code16: bool, letter_type: type[np.integer], data: str) -> None:
    """The small vocab's codes in int32 as well as int16, its letters (a separator the
    type's largest value) in every type a vocab may get, the pair indices in int32 too."""
    from tui_tok.tokenizer.ugm import alphabet

    enc = small_encoder(True, merge=True)
    raw = data.encode()
    with pytest.MonkeyPatch.context() as mp:
        if not code16:
            mp.setattr(alphabet, "_CODE16_MAX", 0)
        mp.setattr(alphabet.Alphabet, "letter_type", property(lambda self: letter_type))
        if letter_type is np.int32:
            mp.setattr(alphabet.Alphabet, "pair_index", property(lambda self: np.int32))
        got = fast_ids(enc, raw)
        assert enc._text_ids._alphabet is not None
        assert enc._text_ids._alphabet.code.dtype == (np.int16 if code16 else np.int32)
    assert got is not None
    assert got == whole_ids(enc, raw)


@pytest.mark.parametrize("name", NAMES)
def test_int64_indices_past_the_int32_bound(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """The int64 path of ``pieces.letter_search`` (texts of 2**29 letters or more), forced by a
    lowered bound, gives the int32 path's ids on the benchmark's mix."""
    from tui_tok.tokenizer.ugm import pieces

    enc = encoder(name)
    data = build_corpus(40_000).encode()
    want = fast_ids(enc, data)
    monkeypatch.setattr(pieces, "INDEX32_MAX", 0)
    assert want is not None and fast_ids(enc, data) == want == whole_ids(enc, data)


@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize("prepend", [False, True])
@given(
    data=st.lists(st.sampled_from([*SMALL, "<u>", "<", "<u", "u>", "<<u>>", "<\u3000u>", "x<u>"]), max_size=30).map(
        "".join
    )
)
@settings(max_examples=150, deadline=None)
def test_user_defined_tokens_are_regions_of_their_own(prepend: bool, merge: bool, data: str) -> None:
    """A user-defined token's trie path is copied raw before any charsmap key (T5's
    ``<extra_id_N>``): each character that may start one is a region, covering its longest token."""
    enc = small_encoder(prepend, merge=merge, user=True)
    raw = data.encode()
    got = fast_ids(enc, raw)
    assert got is not None
    assert got == whole_ids(enc, raw) == [p[0] for p in enc.encode_reference(raw)]


def test_conditions_not_met_leave_it_to_the_other_paths() -> None:
    """Input that is not valid UTF-8 (llama.cpp's decoder is laxer than Python's)."""
    enc = small_encoder(True, merge=True)
    raw = ("ab ｂ e\u0301 ① " * 3000).encode() + b"\xc0\x80"
    assert fast_ids(enc, raw) is None
    assert enc.encode_fragment_ids(raw, after_special=False) == whole_ids(enc, raw)


def test_unknown_runs_collapse_across_pieces_and_units() -> None:
    enc = small_encoder(True, merge=True)
    raw = "中文字 ЖЖ ab ЖЖЖ\u0301Ж".encode()
    got = fast_ids(enc, raw)
    assert got == whole_ids(enc, raw)
    assert got is not None and got.count(enc.vocab.unk_id) == 3  # "文字", "ЖЖ", "ЖЖЖЖ" (U+0301 deleted)


# -- the pieces -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("exact", [False, True])
@given(text=TEXT.map(lambda t: "▁" + t.replace(" ", "▁")))
@SETTINGS
def test_distinct_pieces_search_like_the_reference(name: str, exact: bool, text: str) -> None:
    """The letters' search (cut into pieces where no token crosses, or not cut) == the
    reference's search, byte ends included."""
    enc = encoder(name)
    data = text.encode("utf-8", "replace")
    got = enc._search(data, list(range(len(data) + 1)), exact=exact)
    assert got is not None
    want = ReferenceEncoder(enc.vocab).search(data)
    assert got[0].tolist() == [p[0] for p in want]
    assert got[1].tolist() == [p[2] for p in want]


@pytest.mark.parametrize("name", NAMES)
@given(text=TEXT)
@SETTINGS
def test_bigram_table_and_letter_matrix_find_every_crossing(name: str, text: str) -> None:
    enc = encoder(name)
    enc.prepare()
    h = enc._token_hash
    assert h is not None
    s = text.encode("utf-8", "replace").decode().replace(" ", "▁")  # normalised text has no 0x20
    cps = text_code_points(s)
    texts = enc.vocab.tokens
    trie = [t for i, t in enumerate(texts) if enc.tables.in_trie_mask[i]]
    inside = {t[i : i + 2] for t in trie for i in range(len(t) - 1)}  # must join: a token crosses
    joined = "\0".join(texts)
    anywhere = {joined[i : i + 2] for i in range(len(joined) - 1)}  # may join (no cut needed)
    pairs = [s[i : i + 2] for i in range(len(s) - 1)]
    alphabet = enc._text_ids.alphabet(enc.tables, h, enc.vocab.unk_id)
    for got in (h.joined(cps).tolist(), alphabet.joined(alphabet.code[cps] >> 2, h).tolist()):
        assert all(j or p not in inside for p, j in zip(pairs, got))
        assert all(not j or p in anywhere for p, j in zip(pairs, got))


@given(text=TEXT)
@SETTINGS
def test_pair_reach_table_matches_the_hash(text: str) -> None:
    """A small alphabet's pair reaches (``Alphabet.pair_reach``) are ``TokenHash.reach``."""
    enc = encoder("t5-botchan-en-unigram-1000")
    enc.prepare()
    h = enc._token_hash
    assert h is not None
    alphabet = enc._text_ids.alphabet(enc.tables, h, enc.vocab.unk_id)
    s = text.encode("utf-8", "replace").decode().replace(" ", "▁")
    cps = text_code_points(s)
    letters = alphabet.code[cps] >> 2
    got = alphabet.pair_reach(letters)
    assert got is not None  # 73 letters: the table exists
    known = letters != 0  # letter 0 stands for every character of no token: the hash tells them apart
    both = np.zeros(cps.size, dtype=bool)
    both[:-1] = known[:-1] & known[1:]
    assert got[both].tolist() == h.reach(cps)[both].tolist()
    assert not got[~both].any()
    assert alphabet.found[letters[known]].tolist() == h.find(cps, [(1, np.flatnonzero(known))])[0].tolist()


# -- the charsmap walks -----------------------------------------------------------------------


def test_character_kinds_follow_the_one_at_a_time_walk() -> None:
    cm = encoder(NAMES[0]).normalizer.charsmap
    assert cm is not None
    walk = CharWalk.of(cm)
    chars = np.array([c for c in range(0x3100) if not 0xD800 <= c < 0xE000] + [0xFF21, 0x1D400, 0x1F999])
    kind, node = walk.kinds(chars)
    for c, k, n in zip(chars.tolist(), kind.tolist(), node.tolist()):
        match, cont = cm.match_unit(chr(c).encode())
        assert k == (0 if match is None and not cont else 1 if match is None else 2), hex(c)
        if k == 1:
            assert {b for b in range(1, 256) if walk.extends(np.array([n]), np.array([b]))[0]} == cont


@given(keys=st.lists(st.text(alphabet="ab\u0301é①", min_size=1, max_size=4), min_size=1, max_size=8, unique=True),
       text=st.text(alphabet="ab\u0301é①c", max_size=12))  # fmt: skip
@settings(max_examples=100, deadline=None)
def test_walk_reach_and_depth_bound_every_match(keys: list[str], text: str) -> None:
    cm = Charsmap.from_blob(build_charsmap({k.encode(): b"z" for k in keys}))
    walk = CharWalk.of(cm)
    assert walk.depth == max(len(k.encode()) for k in keys)
    cps = text_code_points(text)
    entered, off_start = walk.reach(cps, np.arange(len(text)))
    assert not off_start  # keys are whole characters
    data = text.encode()
    for i, n in enumerate(entered.tolist()):
        found = cm.longest_match(data, len(text[:i].encode()))
        if found is not None:
            assert found[0] <= len(text[i : i + n].encode())


def test_threads_share_the_remembered_kinds_and_regions() -> None:
    """Fresh tables filled by several threads at once (new characters walked, regions
    normalised concurrently) give each thread the ids a lone thread gets."""
    import threading

    from tui_tok.tokenizer.ugm.encoder import UgmEncoder as Encoder

    vocab = encoder(NAMES[0]).vocab
    texts = [build_corpus(20_000 + 3_000 * k)[k * 500 :].encode() for k in range(4)]
    alone = Encoder(vocab)
    want = [alone.encode_fragment_ids(t, after_special=False) for t in texts]
    shared = Encoder(vocab)
    shared.prepare()
    got: list[list[int] | None] = [None] * len(texts)

    def run(k: int) -> None:
        got[k] = shared.encode_fragment_ids(texts[k], after_special=False)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(texts))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert got == want
    assert want[0] == whole_ids(alone, texts[0])


def test_only_short_texts_with_few_new_units_take_the_unit_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short text whose units are cached, or with fewer than ``batch_from`` new ones, goes
    unit by unit (what typing in the explorer does); a long one, or one with many new units,
    takes the whole-text path at once (one unit at a time costs a search each)."""
    from tui_tok.tokenizer.ugm.encoder import UgmEncoder as Encoder

    enc = Encoder(encoder(NAMES[0]).vocab)
    enc.prepare()
    calls: list[int] = []
    real = type(enc._text_ids).encode
    monkeypatch.setattr(
        type(enc._text_ids), "encode", lambda self, t, *a, **k: calls.append(len(t)) or real(self, t, *a, **k)
    )
    short, many, long = b"hello world", " ".join(f"w{i}" for i in range(40)).encode(), build_corpus(40_000).encode()
    for data in (short, short, many, long):
        assert enc.encode_fragment(data, after_special=False) == enc.encode_reference(data)
        assert enc.encode_fragment_ids(data, after_special=False) == whole_ids(enc, data)
    assert calls == [len(many)] * 2 + [len(long)] * 2
    assert (True, b"hello", False) in enc._cache


@pytest.mark.parametrize("alphabet_size", [40, 300, 70_000])
@given(data=st.data())
@settings(max_examples=60, deadline=None)
def test_piece_classes_are_exact(alphabet_size: int, data: st.DataObject) -> None:
    """Equal pieces share a class, different ones never do: short and long pieces, 1-, 2- and
    4-byte letters, letters that differ only in a high byte."""
    from tui_tok.tokenizer.ugm.pieces import _piece_classes

    top = alphabet_size - 1
    pool = [1, 2, top, top - 256 if top > 256 else 3]
    sizes = data.draw(st.lists(st.integers(2, 20), min_size=1, max_size=40))
    letters = np.array(data.draw(st.lists(st.sampled_from(pool), min_size=sum(sizes), max_size=sum(sizes))),
                       dtype=np.int32)  # fmt: skip
    starts = np.cumsum(sizes) - np.array(sizes)
    occ, rep = _piece_classes(letters, starts, np.array(sizes), alphabet_size)
    text = [tuple(letters[a : a + n].tolist()) for a, n in zip(starts.tolist(), sizes)]
    for i, piece in enumerate(text):
        assert text[rep[occ[i]]] == piece
    assert len(set(text)) == rep.size


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@given(data=st.data())
@settings(max_examples=150, deadline=None)
def test_token_sources_expand_like_ragged(dtype: type[np.integer], data: st.DataObject) -> None:
    """Jumps only at long pieces and the pieces right after them give every token's source
    index as the per-piece expansion: long pieces first, last, back to back, of one token."""
    from tui_tok.tokenizer.ugm.pieces import _ragged, token_sources

    pieces = data.draw(st.integers(1, 30))
    long_at = np.array(sorted(data.draw(st.sets(st.integers(0, pieces - 1), min_size=1))), dtype=dtype)
    count = np.array(data.draw(st.lists(st.integers(1, 5), min_size=long_at.size, max_size=long_at.size)), dtype=dtype)
    first = np.array(data.draw(st.lists(st.integers(pieces, pieces + 40), min_size=long_at.size,
                                        max_size=long_at.size)), dtype=dtype)  # fmt: skip
    src = np.arange(pieces, dtype=dtype)
    cnt = np.ones(pieces, dtype=dtype)
    src[long_at] = first
    cnt[long_at] = count
    got = token_sources(pieces, long_at, count, first)
    assert got.dtype == dtype
    assert got.tolist() == _ragged(src, cnt).tolist()
