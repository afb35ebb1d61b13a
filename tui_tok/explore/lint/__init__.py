"""Tokenizer lint: find in a GGUF file the mistakes that break models in llama.cpp.

``lint_gguf(gguf)`` returns a ``LintReport`` of ``Finding`` values (stable code, severity, message,
hint, jump target). One module per group of checks: ``checks_metadata`` (model, pre, special ids,
vocabulary size), ``checks_vocab`` (token texts and types), ``checks_template`` (chat templates),
``checks_reach`` (unreachable tokens); ``tables`` holds llama.cpp's own lists, ``families`` the
heuristic that names a missing ``pre``. No textual here.
"""

from tui_tok.explore.lint.finding import CODES, Finding, Severity
from tui_tok.explore.lint.run import LintReport, lint, lint_gguf

__all__ = ["CODES", "Finding", "LintReport", "Severity", "lint", "lint_gguf"]
