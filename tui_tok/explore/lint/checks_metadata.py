"""Checks of the tokenizer's declared facts: model, ``pre``, special-token ids, vocabulary size.

Reads metadata only (``LintContext``), never the tokenizer, so each runs on files llama.cpp would
refuse. Token texts and types are checked in ``checks_vocab``.
"""

from __future__ import annotations

from collections.abc import Iterator

from tui_tok.explore.display import display_piece
from tui_tok.explore.lint.context import LintContext
from tui_tok.explore.lint.families import guess_pre
from tui_tok.explore.lint.finding import Finding, Severity, finding
from tui_tok.explore.lint.tables import (
    BPE_MODELS,
    EOG_TEXTS,
    KNOWN_MODELS,
    KNOWN_PRES,
    NORMAL,
    SPECIAL_ID_KEYS,
)  # fmt: skip

MODEL_KEY = "tokenizer.ggml.model"
PRE_KEY = "tokenizer.ggml.pre"

QUIET_NOT_SPECIAL = frozenset({"UNK", "PAD"})
"""Ids llama.cpp never writes into a prompt nor stops at: naming a normal token is only worth knowing."""

GENERATION_IDS = frozenset({"BOS", "EOS", "EOT", "EOM"})
"""Ids whose loss certainly breaks generation (a wrong BOS, no stop token): out of range is an error;
for the others (UNK, SEP, PAD, MASK, FIM) a warning."""


def check_model(ctx: LintContext) -> Iterator[Finding]:
    """``model-unknown``, ``pre-unknown``, ``pre-missing``."""
    model = ctx.model
    if model is None:
        yield finding("model-unknown", f"{MODEL_KEY} is missing or not a string: llama.cpp cannot load the vocabulary.",
                      key=MODEL_KEY if MODEL_KEY in ctx.metadata else None)  # fmt: skip
        return
    if model not in KNOWN_MODELS:
        yield finding("model-unknown", f"{MODEL_KEY} is {model!r}, which llama.cpp does not know: it refuses the file.",
                      key=MODEL_KEY)  # fmt: skip
        return
    if model not in BPE_MODELS or model == "gemma4":  # gemma4 forces its own pre
        return
    pre = ctx.pre
    if pre is None or pre == "":
        if model == "gpt2" and PRE_KEY in ctx.metadata and pre is None:
            yield finding("pre-unknown", f"{PRE_KEY} is not a string: llama.cpp refuses the file.", key=PRE_KEY)
            return
        guess = guess_pre(ctx.token_to_id, ctx.n_tokens)
        family = f"; the tokens look like the {guess!r} family: set {PRE_KEY} = {guess!r}" if guess else ""
        hint = None
        if guess:
            hint = (f"set {PRE_KEY} to {guess!r} (a guess from characteristic tokens) or re-convert with a current "
                    "convert_hf_to_gguf.py; llama.cpp uses 'default' and warns GENERATION QUALITY WILL BE DEGRADED "
                    "(llama.cpp #11341)")  # fmt: skip
        yield finding("pre-missing", f"BPE vocabulary without {PRE_KEY}: llama.cpp splits text with its 'default' "
                      f"pre-tokenizer{family}.", hint=hint, key=MODEL_KEY)  # fmt: skip
    elif pre not in KNOWN_PRES:
        guess = guess_pre(ctx.token_to_id, ctx.n_tokens)
        family = f" (the tokens look like {guess!r})" if guess else ""
        yield finding("pre-unknown", f"{PRE_KEY} is {pre!r}, which llama.cpp does not know: it refuses the file{family}.",
                      key=PRE_KEY)  # fmt: skip


def check_special_ids(ctx: LintContext) -> Iterator[Finding]:
    """``special-id-out-of-range`` and ``special-id-not-special`` for every id key llama.cpp reads."""
    n = ctx.n_tokens
    if not n:
        return
    plain = ctx.model == "rwkv"  # RWKV has no special tokens: its EOT is the text "\n\n" on purpose
    for label, key in SPECIAL_ID_KEYS:
        token_id = ctx.special_id(key)
        if token_id is None:
            continue
        if not 0 <= token_id < n:
            yield finding("special-id-out-of-range", f"{key} = {token_id} ({label}) is not below the vocabulary "
                          f"size {n}: llama.cpp ignores it and uses its default {label} id.", key=key,
                          severity=None if label in GENERATION_IDS else Severity.WARNING)  # fmt: skip
            continue
        ttype = ctx.type_of(token_id)
        text = ctx.tokens[token_id]
        if ttype == NORMAL and text not in EOG_TEXTS and not plain:  # llama.cpp makes EOG texts CONTROL itself
            yield finding("special-id-not-special", f"{key} = {token_id} ({label}) names {display_piece(text)!r}, "
                          "a NORMAL token: it is tokenized as text and never matched as special.",
                          key=key, token_id=token_id,
                          severity=Severity.INFO if label in QUIET_NOT_SPECIAL else None)  # fmt: skip


def check_vocab_size(ctx: LintContext) -> Iterator[Finding]:
    """``vocab-size-mismatch``: token count against the rows of the embedding/output tensors."""
    n = ctx.n_tokens
    if not n:
        return
    for name in ("token_embd.weight", "output.weight"):
        shape = ctx.tensor_shapes.get(name)
        if shape is None or len(shape) < 2:
            continue
        rows = shape[1]  # ggml order: ne[0] is the embedding width, ne[1] the vocabulary
        if rows != n:
            yield finding("vocab-size-mismatch", f"tokenizer.ggml.tokens has {n} tokens but tensor {name} has "
                          f"{rows} rows: llama.cpp refuses the tensor's shape.", key="tokenizer.ggml.tokens")  # fmt: skip
