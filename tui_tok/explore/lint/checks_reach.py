"""``unreachable-tokens``: NORMAL tokens that no text can produce.

A structural test, exact as far as it goes: llama.cpp's BPE starts from single characters and only
ever joins a pair listed in the merges, so a token that is neither one character nor the result of
a merge is never output (chains of merges whose parts are never made are not followed). SPM joins any two adjacent pieces whose
concatenation is a token, so a token is producible when it is one character or splits into two
producible tokens. Tokens that pass may still never win (merge order, pre-tokenizer splits); those
are not reported. When llama.cpp skips the merges for whole words (``ignore_merges``: llama3,
tekken ...), a candidate that the tokenizer gives back for its own text is producible and dropped.
WPM, UGM, RWKV and PLaMo-2 vocabularies are not checked.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from tui_tok.explore.lint.checks_vocab import examples
from tui_tok.explore.lint.context import LintContext
from tui_tok.explore.lint.finding import Finding, finding
from tui_tok.explore.lint.tables import BPE_MODELS, NORMAL

ROUND_TRIP_LIMIT = 2000
"""Most candidates re-tokenized to confirm them (only for ``ignore_merges`` vocabularies)."""


def check_reachable(ctx: LintContext) -> Iterator[Finding]:
    tokens = ctx.tokens
    if not tokens:
        return
    if ctx.model in BPE_MODELS and ctx.merges is not None:
        producible = _bpe_producible(tokens, ctx.merges, ctx.merges_text)
        how = "by the merges"
    elif ctx.model == "llama":
        producible = _spm_producible(ctx.token_to_id)
        how = "by joining pieces"
    else:
        return
    normal = np.flatnonzero(ctx.types == NORMAL).tolist()
    stuck = [i for i in normal if tokens[i] not in producible]
    vocab = ctx.vocab if stuck and ctx.model in BPE_MODELS else None
    if vocab is not None and vocab.ignore_merges:
        stuck = _confirm(ctx, stuck)
    if stuck:
        yield finding("unreachable-tokens", f"{len(stuck)} NORMAL token(s) cannot be produced {how} (the first is id "
                      f"{stuck[0]}): their embeddings never see training text.", key="tokenizer.ggml.tokens",
                      token_id=stuck[0], context=examples(stuck, tokens))  # fmt: skip


def _bpe_producible(tokens: list[str], merges: list[str], merges_text: str | None) -> set[str]:
    """Texts llama.cpp's BPE can output: single characters and the results of the merges.

    A lower bound of what is unreachable: a merge whose parts are themselves never produced is
    counted as producing its result (following those chains costs a Python loop over every merge,
    seconds for 500k merges; the root causes are reported all the same).
    """
    producible = {t for t in tokens if len(t) == 1}
    if merges_text is None:
        merges_text = "\0".join(merges)
    if merges_text.count(" ") == len(merges):  # one space per merge: drop them all at C speed
        producible.update(merges_text.replace(" ", "").split("\0"))
    else:  # a token with a space in it: cut each merge as llama.cpp does, word.find(' ', 1)
        for m in merges:
            cut = m.find(" ", 1)
            if cut > 0:
                producible.add(m[:cut] + m[cut + 1 :])
    return producible


def _spm_producible(token_to_id: dict[str, int]) -> set[str]:
    """Texts llama.cpp's SPM can output: one character, or two producible tokens joined."""
    producible: set[str] = set()
    for text in sorted(token_to_id, key=len):
        if len(text) == 1 or any(text[:k] in producible and text[k:] in producible for k in range(1, len(text))):
            producible.add(text)
    return producible


def _confirm(ctx: LintContext, stuck: list[int]) -> list[int]:
    """Keep the candidates the tokenizer does not give back for their own text (whole-word lookup)."""
    if ctx.tokenizer is None:
        return stuck
    kept = []
    for i in stuck[:ROUND_TRIP_LIMIT]:
        text = ctx.decode(i)
        if text is None or ctx.encode(text, parse_special=False) != [i]:
            kept.append(i)
    return kept + stuck[ROUND_TRIP_LIMIT:]
