"""Drop the ``noqa`` markers ruff reports as unused (RUF100), keeping the reason written after them.

``ruff check --extend-select RUF100 --fix`` removes a whole ``# noqa: BLE001 - shown, never a crash``
comment, reason and all; here it becomes ``# shown, never a crash``. Run from the repository root:

    python tools/drop_unused_noqa.py [PATH ...]      (default: tui_tok tests benchmarks tools)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

MARKER = re.compile(r"#\s*noqa(?::\s*[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)?\s*(?:-\s*)?(.*)$")


def unused(paths: list[str]) -> dict[Path, list[int]]:
    """File -> line numbers (1-based) of the unused ``noqa`` markers ruff finds."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--extend-select", "RUF100", "--output-format", "json", *paths],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    found: dict[Path, list[int]] = defaultdict(list)
    for item in json.loads(done.stdout or "[]"):
        if item["code"] == "RUF100":
            found[Path(item["filename"])].append(item["location"]["row"])
    return found


def without_marker(line: str) -> str:
    """``line`` with its ``noqa`` marker gone and the reason after it kept as a comment."""
    match = MARKER.search(line)
    if match is None:
        return line
    head, reason = line[: match.start()].rstrip(), match.group(1).strip()
    return f"{head}  # {reason}" if reason else head


def main(argv: list[str]) -> int:
    for path, rows in unused(argv or ["tui_tok", "tests", "benchmarks", "tools"]).items():
        lines = path.read_text(encoding="utf-8").split("\n")
        for row in rows:
            lines[row - 1] = without_marker(lines[row - 1])
        path.write_text("\n".join(lines), encoding="utf-8")
        print(f"{path}: {len(rows)} marker(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
