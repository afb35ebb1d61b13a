"""Chat templates: render a conversation as transformers does (``render``) and tokenize it as
llama.cpp's chat code feeds it to the model (``prompt``). No textual, no GGUF reader."""

from tui_tok.explore.chat.render import ChatTemplateError, render_chat, templates_of

__all__ = ["ChatTemplateError", "render_chat", "templates_of"]
