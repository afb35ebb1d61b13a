"""Where test data lives: the bundled ``assets/`` and, when present, ``../shared``.

Tests that need ``../shared`` skip with a message saying so; the bundled assets alone
exercise each tokenizer family. Set ``TUI_TOK_SHARED`` to point elsewhere.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"
SHARED = Path(os.environ.get("TUI_TOK_SHARED", ROOT.parent / "shared")).resolve()
HAVE_SHARED = (SHARED / "vocabs").is_dir()
SHARED_MISSING = f"../shared not found at {SHARED} (set TUI_TOK_SHARED): only bundled assets are tested"


def vocab_name(path: Path) -> str:
    """``ggml-vocab-qwen2.gguf`` -> ``qwen2``: the conformance file's name."""
    name = path.name.removesuffix(".gguf")
    return name.removeprefix("ggml-vocab-")


@dataclass(frozen=True)
class VocabFile:
    """A GGUF vocab file with where its reference data is."""

    name: str
    path: Path
    conformance: Path | None
    inp: Path | None
    out: Path | None
    bundled: bool


@cache
def vocab_files() -> tuple[VocabFile, ...]:
    """Every known vocab file, one per name; shared copies win over bundled ones."""
    found: dict[str, VocabFile] = {}
    dirs = [(ASSETS, True)]
    if HAVE_SHARED:
        dirs += [(SHARED / "vocabs", False), (SHARED / "data", False)]
    for folder, bundled in dirs:
        for path in sorted(folder.glob("*.gguf")):
            name = vocab_name(path)
            conf_dir = ASSETS / "conformance" if bundled else SHARED / "conformance"
            conf = conf_dir / f"{name}.jsonl"
            inp = path.with_name(path.name + ".inp")
            out = path.with_name(path.name + ".out")
            found[name] = VocabFile(
                name=name,
                path=path,
                conformance=conf if conf.is_file() else None,
                inp=inp if inp.is_file() else None,
                out=out if out.is_file() else None,
                bundled=bundled,
            )
    return tuple(sorted(found.values(), key=lambda v: v.name))


def vocab_file(name: str) -> VocabFile:
    for v in vocab_files():
        if v.name == name:
            return v
    raise LookupError(f"vocab {name!r} not available ({SHARED_MISSING if not HAVE_SHARED else 'unknown name'})")


@cache
def conformance_rows(name: str) -> tuple[dict, ...]:
    """llama.cpp's reference rows for a vocab (never edited: they are the truth)."""
    v = vocab_file(name)
    if v.conformance is None:
        return ()
    with v.conformance.open(encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f if line.strip())


def llama_test_cases(name: str) -> list[tuple[str, list[int]]]:
    """llama.cpp's own ``.inp``/``.out`` vectors (add_special=false, parse_special=false)."""
    v = vocab_file(name)
    if v.inp is None or v.out is None:
        return []
    texts = v.inp.read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")[:-1]
    outs = v.out.read_text(encoding="utf-8").split("\n")
    return [(t, [int(x) for x in o.split()]) for t, o in zip(texts, outs)]


def gguf_py():  # type: ignore[no-untyped-def]
    """gguf-py (llama.cpp's Python package), as an optional second opinion; skip when absent.

    ``tests/`` is on sys.path, so without the real package ``import gguf`` finds the
    ``tests/gguf`` folder as a namespace package: check for the reader class.
    """
    import pytest

    module = pytest.importorskip("gguf")
    if not hasattr(module, "GGUFReader"):
        pytest.skip("gguf-py is not installed (pip install gguf)")
    return module
