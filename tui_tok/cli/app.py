"""``tui-tok [MODEL]``: start the explorer; ``tui-tok --list`` lists the models other tools keep.

MODEL is a path, a URL, ``hf:OWNER/REPO/FILE.gguf``, ``OWNER/REPO:QUANT`` or ``ollama:NAME[:TAG]``
(``tui_tok.sources`` resolves it). Without MODEL, a picker shows the bundled sample and the
models found (the sample opens directly when none are found).
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", nargs="?", default=None,
                        help="GGUF file, URL, hf:OWNER/REPO/FILE.gguf, OWNER/REPO:QUANT or ollama:NAME[:TAG] "
                             "(default: pick one of the models found, or the bundled Qwen3 sample)")
    parser.add_argument("--list", action="store_true",
                        help="list the GGUF files of ollama, the Hugging Face cache, LM Studio and llama.cpp's cache")


def run(args: argparse.Namespace) -> int:
    if args.list:
        from tui_tok.cli.list_models import run_list

        return run_list()
    model = args.model
    if model is None:
        from tui_tok.ui.screens.picker import pick_model

        model = pick_model()
        if model is None:
            return 0
    from tui_tok.cli.progress import stderr_progress
    from tui_tok.sources import read_model
    from tui_tok.ui.app import TuiTokApp

    with stderr_progress() as progress:
        gguf = read_model(model, texts=("tokenizer.ggml.merges",), progress=progress)
    return int(TuiTokApp(gguf).run() or 0)
