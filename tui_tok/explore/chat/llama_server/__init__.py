"""The ``llama-server`` chat runtime: a conversation rendered as llama.cpp 0.3.36's
``common_chat_templates_apply`` renders it for ``llama-server --jinja`` (its Jinja dialect, its
template capability probes and message rewrites, its per-family fixes). The ``transformers`` runtime
is ``render.py``; ``prompt.py`` tokenizes either."""

from tui_tok.explore.chat.llama_server.apply import LlamaServerRender, LlamaServerRequest, apply
from tui_tok.explore.chat.llama_server.values import LlamaError

__all__ = ["LlamaError", "LlamaServerRender", "LlamaServerRequest", "apply"]
