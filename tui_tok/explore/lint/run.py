"""``lint``: run every check on one file and return its findings, worst first.

Metadata checks never need the tokenizer; the template and reachability checks build it once, on
first use, and carry on without it when it cannot be built (``LintReport.tokenizer_error`` says
why). A check that crashes on input nobody foresaw is reported as an internal error line and a
``check-not-run`` finding instead of hiding the other checks' findings (a report with a check that
did not run is never clean).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tui_tok.explore.lint.checks_fixable import (
    check_bos_missing,
    check_eog_markers,
    check_merges_format,
    check_pre_default,
)  # fmt: skip
from tui_tok.explore.lint.checks_metadata import check_model, check_special_ids, check_vocab_size
from tui_tok.explore.lint.checks_reach import check_reachable
from tui_tok.explore.lint.checks_runtimes import check_runtimes
from tui_tok.explore.lint.checks_template import check_templates
from tui_tok.explore.lint.checks_vocab import check_model_fit, check_texts, check_types, check_user_defined_whitespace
from tui_tok.explore.lint.context import UNSET, LintContext, shapes_of
from tui_tok.explore.lint.finding import Finding, Severity, finding
from tui_tok.explore.lint.fixes import with_fixes

CHECKS: tuple[Callable[[LintContext], Iterator[Finding]], ...] = (
    check_model, check_special_ids, check_vocab_size,  # metadata and ids
    check_texts, check_types, check_model_fit, check_user_defined_whitespace,  # vocabulary tokens
    check_templates,  # chat templates (tokenizer when it loads)
    check_runtimes,  # the default template in llama-server and in transformers
    check_reachable,  # reachability (tokenizer for ignore_merges vocabularies)
    check_pre_default, check_merges_format, check_bos_missing, check_eog_markers,  # with their fixes
)  # fmt: skip


_CHECK_NAMES = {check.__name__: check.__name__.removeprefix("check_").replace("_", " ") for check in CHECKS}
"""What a finding calls each check (``check_templates``: ``templates``)."""


@dataclass(frozen=True, slots=True)
class LintReport:
    """Every finding of one file."""

    findings: tuple[Finding, ...]
    """Worst severity first; within one severity, in check order."""
    tokenizer_error: str | None = None
    """Why the tokenizer could not be built for the checks that wanted it (None: it was, or none asked)."""
    internal_errors: tuple[str, ...] = ()
    """Checks that crashed (a bug in tui-tok), one line each."""

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def has_error(self) -> bool:
        return any(f.severity == Severity.ERROR for f in self.findings)

    def summary(self) -> str:
        """``2 errors, 1 warning, 0 info``."""
        e, w, i = (self.count(s) for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
        return f"{e} error{'s' * (e != 1)}, {w} warning{'s' * (w != 1)}, {i} info"


def lint(metadata: Mapping[str, Any], *, tensors: Any = (), tokenizer: Any = UNSET, source: Any = None,
         lock: Any = None, pause: Callable[[], object] | None = None) -> LintReport:  # fmt: skip
    """Lint one file's ``metadata`` (and its tensor index, for the vocabulary size).

    ``tokenizer``: one already built (the explorer's), None to build none (vocabulary look-ups
    only), or leave it out to build one when a check needs it. ``source``: the ``GGUFFile``, which
    builds the tokenizer faster. ``lock``: held around each call into a shared ``tokenizer``.
    ``pause``: called before each check (the explorer waits there while someone types).
    """
    ctx = LintContext(metadata, shapes_of(tensors), given_tokenizer=tokenizer, source=source)
    if lock is not None:
        ctx.lock = lock
    found: list[Finding] = []
    internal: list[str] = []
    for check in CHECKS:
        if pause is not None:
            pause()
        try:
            found.extend(check(ctx))
        except Exception as exc:  # a bug in a check: keep the others' findings, and say this one did not run
            reason = f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
            internal.append(f"{check.__name__}: {reason}")
            found.append(finding("check-not-run", f"the {_CHECK_NAMES.get(check.__name__, check.__name__)} check "
                                 f"could not run ({reason}): its findings are missing.",
                                 hint="this is a bug in tui-tok: please report it with the file"))  # fmt: skip
    found = with_fixes(ctx, found)
    found.sort(key=lambda f: -f.severity)
    return LintReport(tuple(found), ctx.load_error, tuple(internal))


def lint_gguf(
    gguf: Any, *, tokenizer: Any = UNSET, lock: Any = None, pause: Callable[[], object] | None = None
) -> LintReport:
    """``lint`` of a ``GGUFFile``."""
    return lint(gguf.metadata, tensors=gguf.tensors, tokenizer=tokenizer, source=gguf, lock=lock, pause=pause)
