"""llama.cpp's BPE (``llm_tokenizer_bpe_session``, llama-vocab.cpp:577-774), fast.

The algorithm, spans included, is stated once in ``bpe/reference.py``; every path here (word
cache, list scan, batch, whole-array rounds, the cut before ▁) is a faster form of it, tested
equal to it (``tests/tokenizer/test_reference.py``). Models ``hybriddna`` and ``whitespace``
wrap this path (``bpe/models.py``); special tokens and BOS/EOS are ``tokenizer.py``'s.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from itertools import accumulate, chain, repeat
from operator import itemgetter, methodcaller
from typing import cast

import numpy as np

from tui_tok.tokenizer.bpe.arrays import fragment_arrays_pieces, result_arrays
from tui_tok.tokenizer.bpe.batch import BpeBatch, WordResult, has_surrogates
from tui_tok.tokenizer.bpe.hashed_ranks import HashedRanks
from tui_tok.tokenizer.bpe.models import encode_hybriddna, encode_whitespace
from tui_tok.tokenizer.bpe.ranks import LazyRanks
from tui_tok.tokenizer.bpe.reference import ReferenceEncoder
from tui_tok.tokenizer.bpe.subword_cut import SubwordCut, build_subword_cut
from tui_tok.tokenizer.core.byte_level import ENCODE_TABLE
from tui_tok.tokenizer.core.encoder import Encoder
from tui_tok.tokenizer.core.paths import AUTO, NEVER, Paths
from tui_tok.tokenizer.core.types import Piece, PieceArrays, piece_arrays
from tui_tok.tokenizer.core.vocab import Vocab
from tui_tok.tokenizer.pretokenize.offsets import decode
from tui_tok.tokenizer.pretokenize.split import split_words
from tui_tok.tokenizer.pretokenize.table import pre_spec

_NO_RANK = 1 << 62
_WRAPPED = {"hybriddna": encode_hybriddna, "whitespace": encode_whitespace}
"""Models that wrap the plain path (``bpe/models.py``)."""
_CACHE_MAX = 1 << 17
# Which path a word takes: the ``bpe_*`` sizes of ``core/paths.py``.


class BpeEncoder(Encoder):
    """llama.cpp's BPE for one vocab.

    Merge ranks and the per-word cache are built lazily, so constructing one is cheap.
    """

    def __init__(self, vocab: Vocab, *, paths: Paths = AUTO) -> None:
        self.vocab = vocab
        self.paths = paths
        self.spec = pre_spec("gemma4" if vocab.model == "gemma4" else vocab.pre)
        self._token_to_id = vocab.token_to_id
        self._byte_encode = self.spec.byte_encode
        self._gemma4 = self.spec.pre_type == "GEMMA4"
        self._ranks: dict[str, int] | None = None
        self._lazy: LazyRanks | None = None
        self._cut: SubwordCut | None | bool = False  # False = not computed yet
        self._cache: dict[str, WordResult] = {}
        self._batch: BpeBatch | None = None
        self._build_lock = threading.Lock()
        self._reference: ReferenceEncoder | None = None  # ``_merge_checked``, byte tokens (``_to_ids``)

    # ----------------------------------------------------------------- public

    def encode_fragment(self, text: bytes, *, after_special: bool) -> list[Piece]:
        """Tokens of one raw-text fragment with byte spans relative to it (``after_special`` is unused)."""
        wrap = _WRAPPED.get(self.vocab.model)
        return [] if not text else wrap(self, text) if wrap is not None else self._encode_raw(text)

    def encode_fragment_ids(self, text: bytes, *, after_special: bool = True) -> list[int]:
        """Just the ids of ``encode_fragment`` (no spans, no offset map): the fast path for
        ``Tokenizer.encode``, which throws the spans away (``after_special`` is unused)."""
        if self.vocab.model in _WRAPPED:
            return [tid for tid, _, _ in self.encode_fragment(text, after_special=True)]
        return self._ids([decode(text, escape=self.vocab.escape_whitespaces, offsets=False)[0] if text else ""])[0]

    def prepare(self) -> None:
        """Build the batch tables (rank index, gemma4's cut) and compile the pre-tokenizer now."""
        if self.vocab.model in _WRAPPED:
            return
        self._words("prepare", long=self.paths.bpe_cut_from != NEVER)
        self._get_batch()

    def merge_ranks(self) -> dict[str, int]:
        """``"left right"`` -> rank; duplicates keep the lowest rank (llama.cpp's ``emplace``)."""
        if self._ranks is None:
            merges = self.vocab.merges
            n = len(merges)
            self._ranks = dict(zip(reversed(merges), range(n - 1, -1, -1)))
            self._lazy = None
        return self._ranks

    def _merges_joined(self) -> str:
        """``"\\0" + "\\0".join(merges) + "\\0"``: the reader's text of the merges (``Vocab.merges_text``)
        when it kept it, which saves joining 150k-515k strings again; else joined here."""
        joined = self.vocab.merges_text
        return joined if joined is not None else "\x00" + "\x00".join(self.vocab.merges) + "\x00"

    def _rank_get(self) -> Callable[[str, int], int]:
        """``merge_ranks().get``, or until the first few lookups have scanned the merge list a
        few times over, a search in the joined merges (the dict of 515k merges costs most of a
        file's open, which a first short text need not pay)."""
        ranks = self._ranks
        if ranks is not None:
            return ranks.get
        lazy = self._lazy  # read once: another thread's merge_ranks() sets it back to None
        if lazy is None:
            me = weakref.ref(self)  # not a bound method: no cycle to leave to the collector
            lazy = self._lazy = LazyRanks.build(
                self.vocab.merges,
                self._merges_joined(),
                lambda: me().merge_ranks(),  # type: ignore[union-attr]
            )
            if lazy is None:
                return self.merge_ranks().get
        return lazy.get

    # ---------------------------------------------------------- one fragment

    def encode_fragments(self, fragments: list[tuple[bytes, bool]]) -> list[list[Piece]]:
        """``encode_fragment`` of each (fragment, after_special) of one text, the distinct new
        words of all of them merged in one batch (see ``encode_fragments_ids``)."""
        if len(fragments) < 2 or self.vocab.model in _WRAPPED:
            return [self.encode_fragment(f, after_special=a) for f, a in fragments]
        return self._plain_pieces([f for f, _ in fragments])

    def _encode_raw(self, data: bytes) -> list[Piece]:
        """Plain BPE of one fragment (what ``bpe/models.py`` wraps)."""
        return self._plain_pieces([data])[0]

    def _plain_pieces(self, datas: list[bytes]) -> list[list[Piece]]:
        out: list[list[Piece]] = []
        for omap, results in self._decoded_results(datas):
            pieces = _pieces(results)
            if omap is not None:
                m = omap.tolist()
                pieces = [(tid, m[a], m[b]) for tid, a, b in pieces]
            out.append(pieces)
        return out

    def encode_fragments_arrays(self, fragments: list[tuple[bytes, bool]]) -> list[PieceArrays]:
        """``encode_fragments`` as (ids, starts, ends) int64 arrays per fragment: no tuple per
        token (a 10 MB text has ~3M tokens), the words' results are read in C."""
        if self.vocab.model in _WRAPPED:
            return list(map(piece_arrays, self.encode_fragments(fragments)))
        out: list[PieceArrays] = []
        for omap, results in self._decoded_results([f for f, _ in fragments]):
            ids, starts, ends = result_arrays(results)
            if omap is not None:
                starts, ends = omap[starts].astype(np.int64), omap[ends].astype(np.int64)
            out.append((ids, starts, ends))
        return out

    def fragment_arrays_pieces(self, data: bytes, *, piece_chars: int) -> Iterator[PieceArrays]:
        """``encode_fragments_arrays([(data, True)])[0]`` in exact pieces (``bpe/arrays.py``)."""
        return fragment_arrays_pieces(self, data, piece_chars=piece_chars)

    def _decoded_results(self, datas: list[bytes]) -> Iterator[tuple[np.ndarray | None, list[WordResult]]]:
        """(offset map, words' results) of each fragment, decoded (``_fragment_results``)."""
        decoded = [decode(f, escape=self.vocab.escape_whitespaces) if f else ("", None) for f in datas]
        return zip([m for _, m in decoded], self._fragment_results([t for t, _ in decoded]))

    def _fragment_results(self, texts: list[str]) -> list[list[WordResult]]:
        """BPE of every word of each decoded fragment, all fragments looked up (and their new
        words merged) together."""
        long = sum(map(len, texts)) >= self.paths.bpe_cut_from
        per_text = [self._words(t, long=long) for t in texts]
        results = self._lookup(list(chain.from_iterable(per_text)), long=long)
        out = []
        pos = 0
        for words in per_text:
            out.append(results[pos : pos + len(words)])
            pos += len(words)
        return out

    def _encode_text(self, text: str) -> list[Piece]:
        """Tokens of decoded text, spans in bytes of llama.cpp's re-encoding of ``text``."""
        return _pieces(self._fragment_results([text])[0])

    def encode_fragments_ids(self, fragments: list[tuple[bytes, bool]]) -> list[list[int]]:
        """``encode_fragment_ids`` of each (fragment, after_special) of one text, with the
        distinct new words of all of them merged in one batch (user-defined tokens may cut a
        text into thousands of short fragments, each too short to batch on its own)."""
        if len(fragments) < 2 or self.vocab.model in _WRAPPED:
            return [self.encode_fragment_ids(f) for f, _ in fragments]
        escape = self.vocab.escape_whitespaces
        return self._ids([decode(f, escape=escape, offsets=False)[0] if f else "" for f, _ in fragments])

    def _ids(self, texts: list[str]) -> list[list[int]]:
        """The ids of each decoded fragment (bytes with no token dropped)."""
        out: list[list[int]] = []
        for results in self._fragment_results(texts):
            ids = list(chain.from_iterable(map(itemgetter(0), results)))
            out.append([tid for tid in ids if tid >= 0] if -1 in ids else ids)
        return out

    def _words(self, text: str, *, long: bool) -> list[str]:
        """``text`` cut by the pre-tokenizer (and before ▁ where exact, ``_subword_cut``)."""
        words = split_words(text, self.spec.regexes) if text else []
        cut_ok = not self._byte_encode and self.paths.bpe_cut_from != NEVER
        if cut_ok and (self._cut is not False or long) and (cut := self._subword_cut()) is not None:
            return cut.cut_words(text, words)
        return words

    def _lookup(self, words: list[str], *, long: bool) -> list[WordResult]:
        """BPE of each word. Written for speed: one C-level pass for cache hits, Python only for
        distinct missing words, merged together when many (``long``: from a long text)."""
        cache = self._cache
        results = list(map(cache.get, words))
        if None in results:  # BPE each distinct missing word once, then look all up again
            get = cache.get
            local = {w: get(w) for w in dict.fromkeys(words)}
            missing = [w for w, r in local.items() if r is None]
            paths = self.paths
            if len(missing) >= paths.bpe_batch_from and (self._batch is not None or long):
                local.update(zip(missing, self._batch_words(missing)))
            else:
                huge = [w for w in missing if len(w) >= paths.rounds_from]  # a run of spaces, a blob
                if huge:  # the batch merges them in whole-array rounds (reference's heap: a Python step per merge)
                    local.update(zip(huge, self._batch_words(huge)))
                    missing = [w for w in missing if len(w) < paths.rounds_from]
                local.update(zip(missing, map(self._bpe_word, missing)))
            results = list(map(local.__getitem__, words))
            if len(cache) + len(local) > _CACHE_MAX:
                cache.clear()
            if len(local) <= _CACHE_MAX:
                cache.update(cast("dict[str, WordResult]", local))  # each missing word's result is in
        return cast("list[WordResult]", results)  # no None: the misses were filled above

    def _subword_cut(self) -> SubwordCut | None:
        """Where raw words can be cut before ▁ without changing BPE (``bpe/subword_cut.py``),
        built on first need; None when not applicable (byte-level, ignore_merges, no merges,
        or merge strings not all of the plain "left right" form)."""
        if self._cut is False:
            merges = self.vocab.merges
            usable = not self._byte_encode and not self.vocab.ignore_merges and bool(merges)
            self._cut = build_subword_cut(self._merges_joined(), len(merges)) if usable else None
        return self._cut  # type: ignore[return-value]

    # -------------------------------------------------------------- one word

    def _batch_words(self, words: list[str]) -> list[WordResult]:
        """``_bpe_word`` of many distinct words, most merged together (``bpe/batch.py``)."""
        batch = self._get_batch()
        if self.vocab.ignore_merges or self._gemma4:  # whole-word shortcuts first, the rest merged
            encoded, whole = self._shortcut_ids(words)
            merged = iter(
                batch.encode([w for w, tid in zip(words, whole) if tid is None], self._bpe_word, self._to_ids)
            )
            if self._byte_encode:  # one character per input byte
                return [next(merged) if tid is None else ((tid,), (len(e),)) for e, tid in zip(encoded, whole)]
            return [next(merged) if tid is None else self._to_ids([e]) for e, tid in zip(encoded, whole)]
        return batch.encode(words, self._bpe_word, self._to_ids)

    def _shortcut_ids(self, words: list[str]) -> tuple[list[str], list[int | None]]:
        """Each word as vocab text (``_encoded``), and the token that is the whole word when
        ``_shortcut`` takes it (else None): what ``_bpe_word`` decides word by word, done for all
        the words at once (one byte mapping of their join, C-level lookups)."""
        if self._byte_encode:
            raws = list(map(methodcaller("encode", "utf-8", "surrogatepass"), words))
            text = b"".join(raws).decode("latin-1").translate(ENCODE_TABLE)
            ends = list(accumulate(map(len, raws)))
            encoded = [text[a:b] for a, b in zip(chain((0,), ends), ends)]
        elif has_surrogates("".join(words)):
            encoded = list(map(self._encoded, words))
        else:
            encoded = words
        get = self._token_to_id.get
        if self.vocab.ignore_merges:
            return encoded, list(map(get, encoded))
        whole: list[int | None] = [None] * len(encoded)
        for i, rest in enumerate(map(methodcaller("strip", "\n"), encoded)):  # gemma4: newlines only
            if not rest:
                whole[i] = get(encoded[i])
        return encoded, whole

    def _get_batch(self) -> BpeBatch:
        """The batch merger, built on first need with ranks of many merge strings at once: from
        the rank dict if it exists already, else from a hashed index (cheaper to build)."""
        batch = self._batch
        if batch is None:
            with self._build_lock:  # one batch (its symbol table and memos) for all threads
                batch = self._batch
                if batch is None:
                    batch = self._batch = self._new_batch()
        return batch

    def _new_batch(self) -> BpeBatch:
        rank_dict = self._ranks
        if rank_dict is None:
            ranks = HashedRanks(self.vocab.merges).ranks
        else:
            get = rank_dict.get

            def ranks(keys: list[str]) -> np.ndarray:
                return np.fromiter(map(get, keys, repeat(-1)), dtype=np.int64, count=len(keys))

        return BpeBatch(self.vocab.tokens, self._token_to_id, ranks, byte_encode=self._byte_encode, paths=self.paths)

    def _encoded(self, word: str) -> str:
        """The word as vocab text: byte-mapped, or raw with bad bytes as surrogate escapes."""
        if self._byte_encode:
            return word.encode("utf-8", "surrogatepass").decode("latin-1").translate(ENCODE_TABLE)
        if has_surrogates(word):
            return word.encode("utf-8", "surrogatepass").decode("utf-8", "surrogateescape")
        return word

    def _shortcut(self, encoded: str) -> bool:
        """Whether the whole word is one token without merging (ignore_merges, gemma4's newlines)."""
        if self.vocab.ignore_merges and encoded in self._token_to_id:
            return True
        return self._gemma4 and not encoded.strip("\n") and encoded in self._token_to_id

    def _bpe_word(self, word: str) -> WordResult:
        if not word:
            return (), ()
        encoded = self._encoded(word)
        if self._shortcut(encoded):
            symbols = [encoded]
        else:
            symbols = list(encoded) if self._byte_encode else _raw_symbols(word)
            if len(symbols) > 1:
                symbols = self._merge(symbols)
        return self._to_ids(symbols)

    def _merge(self, symbols: list[str]) -> list[str]:
        if len(symbols) > self.paths.bpe_list_max or not self._byte_encode and " " in "".join(symbols):
            return self._merge_checked(symbols)
        get = self._rank_get()
        no = _NO_RANK
        # ranks[j] = rank of (symbols[j], symbols[j + 1]); the last entry is a "no pair" sentinel
        ranks = list(map(get, [a + " " + b for a, b in zip(symbols, symbols[1:])], repeat(no)))
        ranks.append(no)
        while True:
            best = min(ranks)
            if best == no:
                return symbols
            i = ranks.index(best)  # first = leftmost of equal ranks
            merged = symbols[i] + symbols[i + 1]
            symbols[i] = merged
            del symbols[i + 1]
            del ranks[i + 1]
            if i:
                ranks[i - 1] = get(symbols[i - 1] + " " + merged, no)
            ranks[i] = get(merged + " " + symbols[i + 1], no) if i + 1 < len(symbols) else no

    def _merge_checked(self, symbols: list[str]) -> list[str]:
        """``bpe/reference.py``'s merge (llama.cpp's heap): for words too long for the list scan
        (O(n²)) that do not go to the batch (``_lookup``), and for raw symbols that may hold ' ':
        llama.cpp splits a merge string at its first ' ' searched from byte 1, which its
        ``bpe_ranks`` keys by pair, and the reference builds them so (unreachable with
        llama.cpp's pres, which escape or split spaces)."""
        _, final, _ = self._get_reference().merge_word("".join(symbols).encode("utf-8", "surrogateescape"))
        return [sym.decode("utf-8", "surrogateescape") for sym in final]

    def _get_reference(self) -> ReferenceEncoder:
        ref = self._reference
        if ref is None:
            ref = self._reference = ReferenceEncoder(self.vocab)
        return ref

    def _to_ids(self, symbols: list[str]) -> WordResult:
        """Final symbols -> (ids, input bytes each covers); a symbol that is no token becomes its
        bytes' tokens as ``bpe/reference.py`` spells them (V:705-738)."""
        ids = list(map(self._token_to_id.get, symbols))
        if None not in ids:
            if self._byte_encode:  # one character per input byte
                return tuple(ids), tuple(map(len, symbols))  # type: ignore[arg-type]
            return tuple(ids), tuple(len(s.encode("utf-8", "surrogateescape")) for s in symbols)  # type: ignore[arg-type]
        tokens = self._get_reference().symbol_tokens
        parts = list(chain.from_iterable(tokens(s.encode("utf-8", "surrogateescape")) for s in symbols))
        return tuple(map(itemgetter(0), parts)), tuple(map(itemgetter(1), parts))


# ------------------------------------------------------------------ helpers


def _pieces(results: list[WordResult]) -> list[Piece]:
    """Words' results -> pieces with byte spans (tokens of missing bytes, id -1, dropped)."""
    ids = list(chain.from_iterable(map(itemgetter(0), results)))
    ends = list(accumulate(chain.from_iterable(map(itemgetter(1), results))))
    pieces = list(zip(ids, chain((0,), ends), ends))
    if -1 in ids:
        pieces = [p for p in pieces if p[0] >= 0]
    return pieces


def _raw_symbols(word: str) -> list[str]:
    """Symbols of a raw (not byte-encoded) word: one per UTF-8 character, as vocab strings.

    A surrogate code point (from input like ED A0 80) is 3 bytes in llama.cpp; vocab texts keep
    such bytes with ``surrogateescape``, so the symbol is spelled that way to match them.
    """
    if not has_surrogates(word):
        return list(word)
    return [c.encode("utf-8", "surrogatepass").decode("utf-8", "surrogateescape") for c in word]
