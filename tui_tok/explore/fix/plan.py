"""Which edits ``tui-tok fix`` makes: the fixes of a lint report's findings, merged (two findings
never fight over one key: the first, worst one wins), with the zero-copy forms of the same repair.

``FixPlan.lines`` is what ``--dry-run`` prints and the explorer's Fix… dialog shows;
``apply_plan`` writes the copy (``gguf.rewrite``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tui_tok.explore.fix.edits import Edit, EditError, changes_of, describe, merge_edits, modelfile_line, override_kv
from tui_tok.explore.lint import Finding, LintReport
from tui_tok.gguf.rewrite import CopyProgress, RewriteResult, rewrite_gguf
from tui_tok.gguf.types import GGUFFile


@dataclass(frozen=True, slots=True)
class PlannedFix:
    finding: Finding
    edit: Edit


@dataclass
class FixPlan:
    """The fixes to make, and the findings left as they are (with why)."""

    fixes: list[PlannedFix] = field(default_factory=list)
    skipped: list[tuple[Finding, str]] = field(default_factory=list)

    @property
    def edits(self) -> list[Edit]:
        """The edits to make, each once (two findings may call for the same one)."""
        return merge_edits(p.edit for p in self.fixes)[0]

    def override_flags(self) -> list[str]:
        """llama.cpp ``--override-kv`` flags that make the same repair without a copy (where a flag can)."""
        return override_flags(self.edits)

    def modelfile_lines(self) -> list[str]:
        """ollama Modelfile lines for the repairs ollama can make itself (``PARAMETER stop``)."""
        return modelfile_lines(self.edits)

    def lines(self, gguf: GGUFFile) -> list[str]:
        """Per fix: the finding, then the change; then the findings left and the zero-copy forms."""
        out: list[str] = []
        shown: list[Edit] = []
        for p in self.fixes:
            out.append(f"fix {p.finding.code}: {p.finding.message}")
            out.append("    the same change" if p.edit in shown else f"    {describe(gguf, p.edit)}")
            shown.append(p.edit)
        for f, why in self.skipped:
            out.append(f"left {f.code}: {why}")
        out += zero_copy_lines(self.edits, all_covered=bool(self.fixes))
        return out


def override_flags(edits: Iterable[Edit]) -> list[str]:
    return [f"--override-kv {flag}" for flag in (override_kv(e) for e in edits) if flag is not None]


def modelfile_lines(edits: Iterable[Edit]) -> list[str]:
    return [modelfile_line(e.stop) for e in edits if e.stop is not None]


def zero_copy_lines(edits: Sequence[Edit], *, all_covered: bool = True) -> list[str]:
    """The ``--override-kv`` flags and Modelfile lines of ``edits``, with whether they cover them all."""
    flags = override_flags(edits)
    out: list[str] = []
    if flags:
        whole = len(flags) == len(edits) and all_covered
        out.append("llama.cpp without a copy" + ("" if whole else f" ({len(flags)} of {len(edits)} changes)") + ": "
                   + " ".join(flags))  # fmt: skip
    lines = modelfile_lines(edits)
    if lines:
        out.append("ollama Modelfile: " + "; ".join(lines))
    return out


def plan_fixes(report: LintReport, only: Sequence[str] = ()) -> FixPlan:
    """The fixes of ``report``'s findings (of the codes in ``only`` when given)."""
    from tui_tok.explore.lint import CODES

    unknown = sorted(set(only) - set(CODES))
    if unknown:
        raise EditError(f"unknown lint code {', '.join(unknown)} (codes: {', '.join(CODES)})")
    plan = FixPlan()
    first: dict[tuple[str, int | None], Edit] = {}
    for f in report.findings:
        if only and f.code not in only:
            continue
        if f.fix is None:
            plan.skipped.append((f, "no metadata edit repairs it; see its hint"))
            continue
        target = (f.fix.key, f.fix.token_id)
        earlier = first.setdefault(target, f.fix)
        if earlier == f.fix:
            plan.fixes.append(PlannedFix(f, f.fix))
        else:
            plan.skipped.append((f, f"another fix already changes {f.fix.key}"))
    return plan


def plan_until_fixed(gguf: GGUFFile, report: LintReport, only: Sequence[str] = (), *, rounds: int = 3) -> FixPlan:
    """``plan_fixes``, then lint the metadata as the fixes leave it and add the fixes of what that
    finds (a marker retyped CONTROL may turn out to be in the EOG set), up to ``rounds`` times."""
    from tui_tok.explore.lint import lint

    plan = plan_fixes(report, only)
    for _ in range(rounds - 1):
        if not plan.fixes:
            break
        edits = plan.edits
        targets = {(e.key, e.token_id) for e in edits}
        after = plan_fixes(lint(metadata_after(gguf, edits), tensors=gguf.tensors), only)
        more = [p for p in after.fixes if (p.edit.key, p.edit.token_id) not in targets]
        left = {(f.code, f.message) for f, _ in after.skipped}
        plan.skipped = [(f, why) for f, why in plan.skipped if (f.code, f.message) in left]  # the fixes cured the rest
        if not more:
            break
        plan.fixes += more
    return plan


def metadata_after(gguf: GGUFFile, edits: Sequence[Edit]) -> dict[str, Any]:
    """``gguf``'s metadata as the copy with ``edits`` will hold it."""
    meta = gguf.metadata
    for key, value in changes_of(gguf, edits).items():
        if value is None:
            meta.pop(key, None)
        else:
            meta[key] = value.value
    return meta


def apply_edits(gguf: GGUFFile, edits: Sequence[Edit], out: str | os.PathLike[str], *, force: bool = False,
                progress: CopyProgress | None = None) -> RewriteResult:  # fmt: skip
    """Write ``gguf``'s copy with ``edits`` to ``out`` (tensor data copied byte for byte)."""
    if not edits:
        raise EditError("nothing to change: no edit given")
    return rewrite_gguf(gguf, out, changes_of(gguf, edits), force=force, progress=progress)


def after_summary(path: str | os.PathLike[str], fixed_codes: set[str]) -> str:
    """Lint the written copy: which of ``fixed_codes`` are gone, what is still there."""
    from tui_tok.explore.lint import lint_gguf
    from tui_tok.gguf import read_gguf

    report = lint_gguf(read_gguf(path, texts=("tokenizer.ggml.merges",)))
    left = sorted({f.code for f in report.findings})
    still = sorted(fixed_codes & set(left))
    gone = sorted(fixed_codes - set(left))
    text = f"lint on the copy: {report.summary()}; fixed {', '.join(gone) or 'nothing'}"
    if still:
        text += f"; still found: {', '.join(still)}"
    others = [c for c in left if c not in fixed_codes]
    if others:
        text += f"; left: {', '.join(others)}"
    return text
