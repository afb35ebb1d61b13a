"""The package as a user installs it: samples found through the package, one version, bounded dependencies.

The full install check (sdist -> wheel -> fresh venv -> commands run from another directory) is
``tools/check_install.sh``, which ``.ci/run`` runs after the tests; these are the fast checks of the same promises.
"""

from __future__ import annotations

import ast
import fnmatch
import subprocess
import sys
import tomllib
from importlib import metadata

from tests.support import ASSETS, ROOT
from tui_tok import __version__, read_gguf
from tui_tok.samples import DEFAULT_SAMPLE, bundled_samples


def _setup_call() -> dict[str, ast.expr]:
    """The keyword arguments of ``setup(...)`` in setup.py, read without running it."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "setup")
    return {k.arg: k.value for k in call.keywords if k.arg}


def test_assets_are_mapped_into_the_package() -> None:
    kw = _setup_call()
    assert ast.literal_eval(kw["package_dir"]) == {"tui_tok.assets": "assets"}
    patterns = ast.literal_eval(kw["package_data"])["tui_tok.assets"]
    for gguf in ASSETS.glob("*.gguf"):
        assert any(fnmatch.fnmatch(gguf.name, p) for p in patterns), f"{gguf.name} would not ship in the wheel"


def test_samples_resolve_through_the_package_and_cover_every_family() -> None:
    samples = bundled_samples()
    assert samples[0] == DEFAULT_SAMPLE and DEFAULT_SAMPLE.is_file()
    assert {p.name for p in samples} == {p.name for p in ASSETS.glob("*.gguf")}
    models = {str(read_gguf(p).metadata["tokenizer.ggml.model"]) for p in samples}
    assert {"gpt2", "llama", "bert", "t5", "rwkv"} <= models


def test_version_is_written_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert metadata.version("tui-tok") == __version__
    out = subprocess.run([sys.executable, "-m", "tui_tok", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"tui-tok {__version__}"


def test_textual_is_bounded_above_and_metadata_complete() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    textual = next(d for d in project["dependencies"] if d.startswith("textual"))
    assert "<" in textual, "the UI relies on Textual internals: a new major release must not install unseen"
    assert (ROOT / "LICENSE").is_file() and "LICENSE" in project["license-files"]
    assert project["requires-python"] == ">=3.11" and project["urls"] and project["classifiers"]
