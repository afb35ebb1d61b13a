"""What every subcommand's MODEL argument takes, said once: each resolves it with
``tui_tok.sources.read_model`` (a path, a URL read by HTTP range, or a shorthand for a store)."""

MODEL_HELP = "GGUF file, URL, hf:OWNER/REPO/FILE.gguf, OWNER/REPO:QUANT or ollama:NAME[:TAG]"
