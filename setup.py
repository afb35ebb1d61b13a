"""Build glue that ``pyproject.toml`` cannot say: the repository's top-level ``assets/`` ships inside the wheel.

The sample GGUF files stay in one place in git (``assets/``, beside their provenance and licences) and are
mapped by setuptools onto the package ``tui_tok.assets``, so an installed ``tui-tok`` finds them through
``importlib.resources`` (``tui_tok/samples.py``) from any directory, editable install or wheel alike.
Everything else about the package is in ``pyproject.toml``.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["tui_tok", "tui_tok.*"]), "tui_tok.assets"],
    package_dir={"tui_tok.assets": "assets"},
    package_data={
        "tui_tok": ["py.typed", "ui/*.tcss"],
        "tui_tok.assets": ["*.gguf", "README.md"],
    },
    include_package_data=False,
)
