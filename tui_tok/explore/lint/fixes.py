"""The fixes of the older lint codes: which metadata edit repairs a finding, when one edit can.

``with_fixes`` runs after every check (``run.lint``): it gives ``pre-missing`` and ``pre-unknown``
(when the vocabulary's fingerprint names its family: ``fingerprints.py``), ``special-id-out-of-range``,
``template-marker-not-special`` and ``turn-end-not-eog`` their ``Edit``. Codes with no edit that is
surely right (a duplicate or empty token needs the real text; ``double-bos`` can be repaired in the template or the flag, and only the user knows which) keep
``fix`` None.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from tui_tok.explore.fix.edits import Edit, set_edit
from tui_tok.explore.lint.context import LintContext
from tui_tok.explore.lint.finding import Finding
from tui_tok.explore.lint.fingerprints import match_family
from tui_tok.explore.lint.tables import CONTROL, USER_DEFINED

PRE_KEY = "tokenizer.ggml.pre"
EOT_KEY = "tokenizer.ggml.eot_token_id"
EOM_KEY = "tokenizer.ggml.eom_token_id"


def with_fixes(ctx: LintContext, findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` with their fixes attached (in order)."""
    out: list[Finding] = []
    for f in findings:
        if f.fix is None:
            fix = fix_for(ctx, f)
            if fix is not None:
                f = replace(f, fix=fix)
        out.append(f)
    return out


def fix_for(ctx: LintContext, f: Finding) -> Edit | None:
    """The edit that repairs ``f``, or None."""
    if f.code in ("pre-missing", "pre-unknown") and ctx.is_bpe:
        fp = match_family(ctx.tokens, ctx.merges)
        return set_edit(PRE_KEY, fp.pre, "string") if fp is not None else None
    if f.code == "special-id-out-of-range" and f.key is not None:
        return Edit("delete", f.key)  # llama.cpp ignores it already: the copy says so to every runtime
    if f.code == "template-marker-not-special" and f.token_id is not None and 0 <= f.token_id < ctx.n_tokens:
        if ctx.type_of(f.token_id) not in (CONTROL, USER_DEFINED):
            return Edit("token-type", "tokenizer.ggml.token_type", "control", token_id=f.token_id)
        return None
    if f.code == "turn-end-not-eog" and f.token_id is not None and 0 <= f.token_id < ctx.n_tokens:
        text = ctx.tokens[f.token_id]
        for key in (EOT_KEY, EOM_KEY):  # a free EOG slot: llama.cpp stops at the eot and eom ids
            current = ctx.special_id(key)
            if current is None or not 0 <= current < ctx.n_tokens:
                return replace(set_edit(key, f.token_id, "u32"), stop=text)
        return None
    return None
