"""The code cites llama.cpp's source or the project's own files, never documents outside the repository.

A maintainer porting an upstream change follows a citation to llama.cpp's source (file, function, line) or to a
file in this repository; a document that lives only beside the project (``../shared/docs``, the seed texts) is not
there for a user of the package and goes stale unseen.
"""

from __future__ import annotations

import re

from tests.support import ROOT

OUTSIDE = re.compile(r"TOKENIZER-PARITY|STYLE\.md|\bseed \d{3}\b|shared/docs|§\s?\d")


def test_no_citation_of_documents_outside_the_repository() -> None:
    hits = []
    for folder in ("tui_tok", "benchmarks", "tools"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if OUTSIDE.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "cite llama.cpp's source or the repository's own files instead:\n" + "\n".join(hits)


PATH_NAMED = re.compile(r"(?<![\w/-])(?:tui_tok|tests|benchmarks|tools)/[A-Za-z0-9_/.-]+\.(?:py|md|tcss|sh|json|jsonl|svg)\b")


def test_every_repository_path_named_in_the_code_exists() -> None:
    """A docstring naming a test file or a module by its path sends a reader there: the file must exist
    (test files moved when ``tests/`` came to mirror the package, and their old paths stayed in docstrings)."""
    missing = []
    for folder in ("tui_tok", "tests", "benchmarks", "tools"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for match in PATH_NAMED.finditer(line):
                    named = match.group()
                    if "llama.cpp" in line[max(0, match.start() - 14):match.start()]:
                        continue  # a path in llama.cpp's source tree, not ours
                    if not (ROOT / named.rstrip(".")).exists():
                        missing.append(f"{path.relative_to(ROOT)}:{number}: {named}")
    assert not missing, "paths named in the code that do not exist:\n" + "\n".join(missing)
