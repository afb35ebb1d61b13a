"""``tui-tok lint MODEL [--json]``: the mistakes in a GGUF file that break the model in llama.cpp.

One line per finding (severity, code, message) with its hint below; ``--json`` prints
``{"findings": [{"code", "severity", "message", "hint", ...}]}``. Exit code 1 when there is an
error finding, else 0; 2 when the file is not readable GGUF (one line, as every subcommand).
Works on files whose tokenizer cannot be built: the checks that need it say so and carry on.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tui_tok.cli.model_arg import MODEL_HELP
from tui_tok.explore.lint import LintReport, lint_gguf
from tui_tok.explore.visible import json_dumps, visible
from tui_tok.sources import read_model


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser("lint", help="find tokenizer mistakes that break the model in llama.cpp",
                              description=__doc__.splitlines()[0])  # fmt: skip
    p.add_argument("model", help=MODEL_HELP)
    p.add_argument("--json", action="store_true", help="print the findings as JSON")
    p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks on errors")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    gguf = read_model(args.model, texts=("tokenizer.ggml.merges",))
    report = lint_gguf(gguf)
    if args.json:
        sys.stdout.write(json_dumps(report_json(report), indent=1) + "\n")
    else:
        sys.stdout.write("\n".join(report_lines(report, str(gguf.path))) + "\n")
    for line in report.internal_errors:
        print(f"tui-tok: internal error in lint check {visible(line)} (please report)", file=sys.stderr)
    return 1 if report.has_error else 0


def report_json(report: LintReport) -> dict[str, Any]:
    out: dict[str, Any] = {"findings": [f.as_json() for f in report.findings]}
    if report.tokenizer_error:
        out["tokenizer_error"] = report.tokenizer_error
    return out


def report_lines(report: LintReport, path: str) -> list[str]:
    """``error model-unknown: message`` then an indented hint, per finding; a summary line last.

    Messages quote the file (keys, token texts, a template's ``raise_exception``): each line is
    drawn with ``visible``, so nothing from the file reaches the terminal raw."""
    lines: list[str] = []
    for f in report.findings:
        lines.append(f"{f.severity.label:<7} {f.code}: {f.message}")
        lines.append(f"        hint: {f.hint}")
    if report.tokenizer_error:
        lines.append(f"note: the tokenizer could not be built ({report.tokenizer_error}); checks that tokenize "
                     "looked texts up in the vocabulary instead")  # fmt: skip
    lines.append(f"{path}: {report.summary()}")
    return [visible(line) for line in lines]
