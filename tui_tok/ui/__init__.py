"""The Textual explorer: app.py wires four views (screens/) built from widgets/.

No tokenizer logic lives here: widgets draw what ``tui_tok.explore`` computes, and workers
wrap core calls and report through messages.
"""
