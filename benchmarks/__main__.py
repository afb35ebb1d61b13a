"""Run a benchmark by name: ``python -m benchmarks gguf|encode|llama_peer|load|ui|... [args]``.

Each benchmark is a module in this package with ``main(argv) -> int``; it prints its figures.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from pathlib import Path

ALIASES = {"gguf": "gguf_read"}


def main(argv: list[str]) -> int:
    available = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if not m.name.startswith("_"))
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m benchmarks NAME [args]\navailable: " + ", ".join(available + list(ALIASES)))
        return 0
    name = ALIASES.get(argv[0], argv[0])
    if name not in available:
        print(f"unknown benchmark {argv[0]!r}; available: {', '.join(available)}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"benchmarks.{name}")
    return int(module.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
