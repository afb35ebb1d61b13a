"""The code cites llama.cpp's source or the project's own files, never documents outside the repository.

A maintainer porting an upstream change follows a citation to llama.cpp's source (file, function, line) or to a
file in this repository; a document that lives only beside the project (``../shared/docs``, the seed texts) is not
there for a user of the package and goes stale unseen.
"""

from __future__ import annotations

import re
from pathlib import Path

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


PATH_NAMED = re.compile(
    r"(?<![\w/-])(?:tui_tok|tests|benchmarks|tools)/[A-Za-z0-9_/.-]+\.(?:py|md|tcss|sh|json|jsonl|svg)\b"
)


def test_every_repository_path_named_in_the_code_exists() -> None:
    """A docstring naming a test file or a module by its path sends a reader there: the file must exist
    (test files moved when ``tests/`` came to mirror the package, and their old paths stayed in docstrings)."""
    missing = []
    for folder in ("tui_tok", "tests", "benchmarks", "tools"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for match in PATH_NAMED.finditer(line):
                    named = match.group()
                    if "llama.cpp" in line[max(0, match.start() - 14) : match.start()]:
                        continue  # a path in llama.cpp's source tree, not ours
                    if not (ROOT / named.rstrip(".")).exists():
                        missing.append(f"{path.relative_to(ROOT)}:{number}: {named}")
    assert not missing, "paths named in the code that do not exist:\n" + "\n".join(missing)


_PACKAGES = sorted({p.name for p in (ROOT / "tui_tok").rglob("*") if p.is_dir() and p.name != "__pycache__"})
DOTTED_NAMED = re.compile(r"``((?:tui_tok\.)?(?:cli|explore|gguf|sources|tokenizer|ui)(?:\.[A-Za-z_]\w*)+)(?:\(\))?``")
"""A module (and maybe a name in it) in double backticks: ``explore.chat.locked.Locked``."""
SHORT_PATH_NAMED = re.compile(r"(?<![\w/.-])((?:%s)/(?:[a-z_0-9]+/)*[a-z_0-9]+\.py)\b" % "|".join(_PACKAGES))
"""A module by a path inside the package: ``ui/session.py``, ``rwkv/unescape.py``."""
GGUF_KEY = re.compile(r"^tokenizer\.(?:ggml|chat_template|huggingface|rwkv)|\.(?:json|model|py)$")


def _defines(path: Path, name: str) -> bool:
    text = path.read_text(encoding="utf-8")
    n = re.escape(name)
    return re.search(rf"^\s*(?:async def|def|class) {n}\b|^\s*{n}\s*[:=]|^\s+self\.{n}\s*[:=]|import[^\n]*\b{n}\b"
                     rf"|^\s+{n},?$", text, re.M) is not None  # fmt: skip


def _resolves(dotted: str) -> bool:
    """``a.b.c``: the longest prefix that is a module of the package, then a name it defines."""
    parts = dotted.split(".")
    parts = parts if parts[0] == "tui_tok" else ["tui_tok", *parts]
    for k in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:k])
        for module in (base.with_suffix(".py"), base / "__init__.py"):
            if module.is_file():
                return k == len(parts) or _defines(module, parts[k])
    return False


def test_every_module_named_in_the_code_exists() -> None:
    """Modules named by dotted name (``explore.incremental``, ``tokenizer.explain.why_not``) or by a
    path inside the package (``ui/session.py``) exist, and so does the name after the module: the
    package was split into subpackages, and docstrings kept the old flat names."""
    modules = [p.relative_to(ROOT).as_posix() for p in (ROOT / "tui_tok").rglob("*.py")]
    missing = []
    for folder in ("tui_tok", "tests", "benchmarks", "tools"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                for match in DOTTED_NAMED.finditer(line):
                    if not GGUF_KEY.search(match.group(1)) and not _resolves(match.group(1)):
                        missing.append(f"{path.relative_to(ROOT)}:{number}: {match.group(1)}")
                for match in SHORT_PATH_NAMED.finditer(line):
                    if "llama.cpp" not in line and not any(m.endswith("/" + match.group(1)) for m in modules):
                        missing.append(f"{path.relative_to(ROOT)}:{number}: {match.group(1)}")
    assert not missing, "modules named in the code that do not exist:\n" + "\n".join(missing)
