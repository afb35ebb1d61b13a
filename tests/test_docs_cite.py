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
