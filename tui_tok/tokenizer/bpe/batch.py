"""BPE of many distinct words at once: ``batch/merge.py``'s loop with merge ranks as priorities.

A cold encode of real text meets thousands of distinct words; merging them one by one in Python
is most of its time. Here each word becomes symbol ids (one per byte through GPT-2's byte map,
or one per character for raw vocabs like gemma4), all merge together, and the final symbols
become ids and byte lengths with whole-list operations. A pair's rank is looked up the first
time the pair is met (all new pairs of a round at once: ``bpe/hashed_ranks.py``, or the rank
dict when it exists), then remembered by symbol ids.

Left to ``bpe/encoder.py``'s per-word path: the whole-word shortcuts (ignore_merges, gemma4's
newlines), raw words holding surrogates, and final symbols that are no token (byte tokens).
Words longer than ``Paths.bpe_batch_word_max`` merge alone (``merge_long``). Equal to
``bpe/reference.py`` (``tests/tokenizer/test_reference.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial
from operator import methodcaller

import numpy as np

from tui_tok.tokenizer.batch.merge import SymbolMerger
from tui_tok.tokenizer.batch.results import Parts, expand_words
from tui_tok.tokenizer.core.byte_level import BYTE_TO_CHAR
from tui_tok.tokenizer.core.paths import AUTO, Paths

WordResult = tuple[tuple[int, ...], tuple[int, ...]]
"""One word's token ids and how many bytes of the re-encoded word each covers, in order.
Id -1 marks bytes whose token is missing (llama.cpp drops them); lengths may be 0."""


class BpeBatch:
    """Batch BPE for one vocab: its token texts, text -> id map and merge strings."""

    def __init__(
        self,
        tokens: list[str],
        token_to_id: dict[str, int],
        ranks: Callable[[list[str]], np.ndarray],
        *,
        byte_encode: bool,
        paths: Paths = AUTO,
    ) -> None:
        """``ranks``: the ranks of many ``"left right"`` strings at once (int64, -1: no merge).
        Words longer than ``paths.bpe_batch_word_max`` symbols merge alone (``merge_long``: the
        batch loop's steps are O(length))."""
        self._paths = paths
        self._tokens = tokens
        self._byte_encode = byte_encode
        self._sizes: dict[int, int] = {}  # token id -> UTF-8 size of its text (raw vocabs)
        self._parts: dict[int, Parts] = {}  # symbol id -> its ids and byte lengths

        def resolve(lefts: list[str], rights: list[str]) -> tuple[np.ndarray, list[str]]:
            prios = ranks(list(map(" ".join, zip(lefts, rights))))
            if not byte_encode and " " in "".join(lefts):
                # llama.cpp splits a merge string at its first ' ' from byte 1: "left right"
                # names (left, right) only if left has no ' ' after its first byte
                prios[np.array([" " in left[1:] for left in lefts], dtype=bool)] = -1
            hits = np.flatnonzero(prios >= 0).tolist()
            return prios, [lefts[i] + rights[i] for i in hits]

        self._merger = merger = SymbolMerger(tokens, token_to_id, resolve, paths=paths)
        self._byte_symbols = np.array([merger.symbol(BYTE_TO_CHAR[b]) for b in range(256)], dtype=np.int64)

    def encode(
        self, words: Sequence[str], fallback: Callable[[str], WordResult], to_ids: Callable[[list[str]], WordResult]
    ) -> list[WordResult]:
        """BPE results of ``words`` (distinct, non-empty, already cut by the pre-tokenizer);
        ``fallback(word)`` answers the words the batch leaves out (module docstring), and
        ``to_ids(symbol_texts)`` the words whose final symbols include a non-token."""
        results: list[WordResult | None] = [None] * len(words)
        merger = self._merger
        long_word = self._paths.bpe_batch_word_max
        batch: list[int] = []
        if self._byte_encode:
            raws = [w.encode("utf-8", "surrogatepass") for w in words]
            lens = list(map(len, raws))
            for i, n in enumerate(lens):
                if 0 < n <= long_word:
                    batch.append(i)
                elif n:
                    sids = self._byte_symbols[np.frombuffer(raws[i], dtype=np.uint8)].tolist()
                    results[i] = self._result(merger.merge_long(sids), to_ids)
                else:
                    results[i] = fallback(words[i])
            syms = self._byte_symbols[np.frombuffer(b"".join([raws[i] for i in batch]), dtype=np.uint8)]
        else:
            lens = list(map(len, words))
            surrogates = has_surrogates("".join(words))
            for i, (w, n) in enumerate(zip(words, lens)):
                if not n or (surrogates and has_surrogates(w)):
                    results[i] = fallback(w)
                elif n <= long_word:
                    batch.append(i)
                else:
                    results[i] = self._result(merger.merge_long(merger.char_symbols(w)), to_ids)
            syms = merger.char_symbol_array("".join([words[i] for i in batch]))
        if batch:
            merged = merger.merge_flat(syms, np.array([lens[i] for i in batch], dtype=np.int64))
            for i, result in zip(
                batch,
                expand_words(merged, partial(self._describe, to_ids=to_ids), ends=False),
            ):
                results[i] = result
        return results  # type: ignore[return-value]

    def _describe(self, sids: list[int], to_ids: Callable[[list[str]], WordResult]) -> list[Parts]:
        """Each final symbol's ids and byte lengths (``_result`` of a one-symbol word), memoised
        (``to_ids`` is always the owning encoder's: the memo does not depend on the call)."""
        memo = self._parts
        found = list(map(memo.get, sids))
        if None in found:
            n_tokens = self._merger.n_tokens
            new = [sid for sid, part in zip(sids, found) if part is None]
            known = [sid for sid in new if sid < n_tokens]
            texts = list(map(self._tokens.__getitem__, known))
            if self._byte_encode:  # one character per byte
                sizes = list(map(len, texts))
            else:
                sizes = list(map(len, map(methodcaller("encode", "utf-8", "surrogateescape"), texts)))
            memo.update(zip(known, zip(zip(known), zip(sizes))))  # sid -> ((sid,), (size,))
            for sid in new:
                if sid >= n_tokens:  # a symbol that is no token: its bytes' tokens
                    memo[sid] = self._result([sid], to_ids)
            found = list(map(memo.__getitem__, sids))
        return found  # type: ignore[return-value]

    def _result(self, sids: list[int], to_ids: Callable[[list[str]], WordResult]) -> WordResult:
        """Final symbols -> (ids, byte lengths): a token's symbol id is its id; its length is its
        text's length for byte-level vocabs (one character per byte), its UTF-8 size otherwise."""
        if max(sids) >= self._merger.n_tokens:
            return to_ids(self._merger.texts(sids))
        if self._byte_encode:
            return tuple(sids), tuple(map(len, map(self._tokens.__getitem__, sids)))
        sizes = self._sizes
        found = list(map(sizes.get, sids))
        if None in found:
            for sid in sids:
                sizes[sid] = len(self._tokens[sid].encode("utf-8", "surrogateescape"))
            found = list(map(sizes.__getitem__, sids))
        return tuple(sids), tuple(found)  # type: ignore[arg-type]


_SURROGATE = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    """Whether ``text`` holds a surrogate code point (from bytes that were not valid UTF-8)."""
    return not text.isascii() and _SURROGATE.search(text) is not None
