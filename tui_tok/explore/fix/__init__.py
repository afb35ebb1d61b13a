"""Repair what lint finds: metadata edits (``edits``), the plan of a lint report's fixes (``plan``),
``tui-tok edit``'s arguments (``specs``). The copy itself is written by ``tui_tok.gguf.rewrite``.
No textual here."""
