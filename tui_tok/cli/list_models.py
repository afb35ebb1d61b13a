"""``tui-tok --list``: the GGUF files other tools keep (ollama, Hugging Face cache, LM Studio,
llama.cpp's cache), with size, architecture and tokenizer, and what to type to open each."""

from __future__ import annotations

import sys

from tui_tok.explore.visible import visible
from tui_tok.sources import find_models
from tui_tok.sources.stores import hf_hub_dir, llama_cpp_dir, lmstudio_dirs, ollama_dir
from tui_tok.sources.summary import human_size, model_facts


def run_list() -> int:
    models = find_models()
    if not models:
        places = [ollama_dir(), hf_hub_dir(), *lmstudio_dirs(), llama_cpp_dir()]
        print("no GGUF files found in: " + ", ".join(map(str, places)), file=sys.stderr)
        return 0
    rows = []
    for m in models:
        facts = model_facts(m.path)
        tok = facts.error or (facts.tokenizer + (f" ({facts.n_tokens:,} tokens)" if facts.n_tokens else ""))
        if facts.split:
            tok += f", {facts.split}"
        # the architecture, tokenizer names and file names are the files': controls drawn, not sent
        rows.append((m.store, human_size(m.size), visible(facts.architecture), visible(tok), visible(m.spec)))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for store, size, arch, tok, spec in rows:
        print(f"{store:<{widths[0]}}  {size:>{widths[1]}}  {arch:<{widths[2]}}  {tok:<{widths[3]}}  {spec}")
    return 0
