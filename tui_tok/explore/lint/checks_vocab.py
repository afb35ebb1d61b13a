"""Checks of the token list itself: duplicates, empty texts, token types, tokens that do not fit the
declared model, whitespace USER_DEFINED tokens.

Reads metadata only (``LintContext``); findings that concern many tokens are reported once, with a
count, the first token as the jump target and up to ``EXAMPLES`` examples in the context.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from tui_tok.explore.display import display_piece
from tui_tok.explore.lint.context import LintContext
from tui_tok.explore.lint.finding import Finding, Severity, finding
from tui_tok.explore.lint.tables import BPE_MODELS, TOKEN_TYPES, USER_DEFINED

EXAMPLES = 12
"""Examples a many-token finding lists in its context."""

TOKENS_KEY = "tokenizer.ggml.tokens"
TYPES_KEY = "tokenizer.ggml.token_type"
ESCAPING_PRES = frozenset({"gemma4", "granite-embed-multi-311m", "sarvam-moe"})
"""BPE pre-tokenizers that write spaces as ▁ (llama.cpp's escape_whitespaces), as SPM does."""
BYTE_TOKENS = tuple(f"<0x{b:02X}>" for b in range(256))
WHITESPACE = frozenset(" \t\n\r\v\f")


def examples(ids: Sequence[int], tokens: Sequence[str]) -> str:
    """``id  'piece'`` lines for the first ``EXAMPLES`` ids, and how many more there are."""
    lines = [f"{i:>8}  {display_piece(tokens[i])!r}" for i in ids[:EXAMPLES]]
    if len(ids) > EXAMPLES:
        lines.append(f"… and {len(ids) - EXAMPLES} more")
    return "\n".join(lines)


def check_texts(ctx: LintContext) -> Iterator[Finding]:
    """``empty-token`` and ``duplicate-token`` (after llama.cpp renames empty texts ``[EMPTY_<id>]``)."""
    tokens = ctx.tokens
    empty = [i for i, t in enumerate(tokens) if not t]
    if empty:
        yield finding("empty-token", f"{TOKENS_KEY} has {len(empty)} empty token text(s), the first at id {empty[0]}: "
                      "llama.cpp renames them [EMPTY_<id>].", key=TOKENS_KEY, token_id=empty[0],
                      context=examples(empty, tokens))  # fmt: skip
    if len(ctx.token_to_id) + len(empty) >= len(tokens) and not empty:
        return
    first: dict[str, int] = {}
    repeats: list[int] = []
    for i, t in enumerate(tokens):
        text = t or f"[EMPTY_{i}]"
        if first.setdefault(text, i) != i:
            repeats.append(i)
    if repeats:
        i = repeats[0]
        text = tokens[i] or f"[EMPTY_{i}]"
        yield finding("duplicate-token", f"{TOKENS_KEY} holds {len(repeats)} repeated text(s): "
                      f"{display_piece(text)!r} is at ids {first[text]} and {i}; llama.cpp aborts on load.",
                      key=TOKENS_KEY, token_id=i,
                      context="\n".join(f"{first[tokens[j] or f'[EMPTY_{j}]']:>8} = {j:<8} {display_piece(tokens[j])!r}"
                                        for j in repeats[:EXAMPLES]))  # fmt: skip


def check_types(ctx: LintContext) -> Iterator[Finding]:
    """``token-type-invalid``: the array llama.cpp refuses (not i32, too short) or values outside its enum."""
    raw = ctx.metadata.get(TYPES_KEY)
    if raw is None or not ctx.n_tokens:
        return
    arr = np.asarray(raw) if isinstance(raw, np.ndarray) else None
    if arr is None or arr.ndim != 1 or arr.dtype != np.int32 or len(arr) < ctx.n_tokens:
        what = f"{len(raw)} items" if hasattr(raw, "__len__") else type(raw).__name__
        kind = f"of {arr.dtype}" if arr is not None else ""
        yield finding("token-type-invalid", f"{TYPES_KEY} is not an i32 array of at least {ctx.n_tokens} items "
                      f"({what} {kind}): llama.cpp refuses the file.".replace(" )", ")"), key=TYPES_KEY,
                      severity=Severity.ERROR)  # fmt: skip
        return
    bad = np.flatnonzero((arr[: ctx.n_tokens] < TOKEN_TYPES.start) | (arr[: ctx.n_tokens] >= TOKEN_TYPES.stop))
    if len(bad):
        i = int(bad[0])
        yield finding("token-type-invalid", f"{TYPES_KEY} has {len(bad)} value(s) outside 0-6, the first {int(arr[i])} "
                      f"at id {i}: llama.cpp treats those tokens as UNDEFINED.", key=TYPES_KEY, token_id=i,
                      context=examples(bad.tolist(), ctx.tokens))  # fmt: skip


def check_model_fit(ctx: LintContext) -> Iterator[Finding]:
    """``model-mismatch``: pieces that belong to another model, BPE without merges, no newline token."""
    tokens, model = ctx.tokens, ctx.model
    if not tokens or model is None:
        return
    t2i = ctx.token_to_id
    n_g = sum(1 for t in tokens if t.startswith("Ġ"))
    n_u = sum(1 for t in tokens if t.startswith("▁"))
    if model == "llama":
        missing = [b for b in BYTE_TOKENS if b not in t2i]
        if missing:
            byte_level = f"; {n_g} tokens start with 'Ġ', a byte-level BPE vocabulary" if n_g > n_u else ""
            yield finding("model-mismatch", f"{ctx.model_key} is 'llama' but {len(missing)} of the 256 <0xNN> byte tokens "
                          f"are missing{byte_level}: llama.cpp crashes (unordered_map::at) on text it cannot spell "
                          "with the vocabulary.", key=ctx.model_key, context=", ".join(missing[:EXAMPLES]))  # fmt: skip
    elif model in BPE_MODELS:
        if model != "gemma4" and ctx.pre not in ESCAPING_PRES and n_u > max(n_g, len(tokens) // 20):
            bytes_ = sum(1 for b in BYTE_TOKENS if b in t2i)
            yield finding("model-mismatch", f"{ctx.model_key} is {model!r} (byte-level BPE) but {n_u} tokens start with "
                          f"'▁' and {bytes_} are <0xNN> byte tokens, a SentencePiece vocabulary: llama.cpp will not "
                          "find the pieces for spaces.", key=ctx.model_key)  # fmt: skip
        if ctx.merges is None and ctx.pre != "kimi-k2":
            yield finding("model-mismatch", f"BPE vocabulary ({ctx.model_key} {model!r}) without "
                          "tokenizer.ggml.merges: llama.cpp refuses it ('cannot find tokenizer merges').",
                          key=ctx.model_key)  # fmt: skip
        if not any(t in t2i for t in ("Ċ", "\n", "<0x0A>")):
            yield finding("model-mismatch", "the BPE vocabulary has no newline token ('Ċ', '\\n' or <0x0A>): llama.cpp "
                          "drops newlines from the text and uses the PAD id as its newline.", key=TOKENS_KEY,
                          severity=Severity.WARNING)  # fmt: skip


def check_user_defined_whitespace(ctx: LintContext) -> Iterator[Finding]:
    """``user-defined-whitespace``: USER_DEFINED whitespace tokens written with literal spaces in a
    vocabulary whose model writes spaces as ▁ (SPM, UGM, Gemma 4's BPE).

    llama.cpp matches USER_DEFINED texts in the raw text before the model runs, so "  " becomes that
    token, while the original tokenizer (whose pieces say ▁▁) merges the spaces with the next word.
    Byte-level BPE vocabularies are left alone: there the original matches such added tokens first too.
    """
    if not (ctx.model in ("llama", "t5", "gemma4") or ctx.pre in ESCAPING_PRES):
        return
    tokens = ctx.tokens
    ids = [int(i) for i in np.flatnonzero(ctx.types == USER_DEFINED)
           if " " in tokens[i] and WHITESPACE.issuperset(tokens[i])]  # fmt: skip
    if ids:
        yield finding("user-defined-whitespace", f"{len(ids)} USER_DEFINED token(s) are runs of literal spaces (the "
                      f"first, id {ids[0]}, is {display_piece(tokens[ids[0]])!r}) where the model writes spaces as ▁: "
                      "llama.cpp matches them in the text before the model sees it.", key=TYPES_KEY,
                      token_id=ids[0], context=examples(ids, tokens))  # fmt: skip
