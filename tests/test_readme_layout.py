"""The README's Layout section names every module of the package, under its own package.

A reader finds a module from there; a module added without a word in the layout is one a
maintainer does not know to look for (the layout had fallen behind by a dozen modules).
"""

from __future__ import annotations

import re

from tests.support import ROOT


def layout_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```text\n", 1)[1].split("\n```", 1)[0].splitlines()


def named_per_package() -> dict[str, set[str]]:
    """Package path (``tui_tok/tokenizer/bpe``) -> the words written on its lines: a line starting
    with ``name/`` opens a package inside the one indented less; other lines belong to the package
    whose header is indented less than they are."""
    words: dict[str, set[str]] = {}
    stack: list[tuple[int, str]] = []
    for line in layout_block():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        header = re.match(r"\s*([A-Za-z_]\w*)/(?:\s|$)", line)
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if header:
            parent = stack[-1][1] + "/" if stack else ""
            stack.append((indent, parent + header.group(1)))
            line = line[header.end() :]
        if stack:
            words.setdefault(stack[-1][1], set()).update(re.findall(r"[A-Za-z_]\w*", line))
    return words


def test_every_module_is_named_in_the_readme_layout() -> None:
    named = named_per_package()
    missing = []
    for path in sorted((ROOT / "tui_tok").rglob("*.py")):
        if path.name == "__init__.py" and path.parent != ROOT / "tui_tok":
            continue
        package = path.parent.relative_to(ROOT).as_posix()
        if path.stem not in named.get(package, set()):
            missing.append(path.relative_to(ROOT).as_posix())
    assert not missing, "README, Layout: not named under their package:\n" + "\n".join(missing)
