"""The Textual explorer: app.py wires the views (screens/, one per function key: Tokenize, Stream,
Vocabulary, Metadata, Chat, Diagnostics, Compare, Explain) and the model picker, built from widgets/.

No tokenizer logic lives here: widgets draw what ``tui_tok.explore`` computes, and workers
wrap core calls and report through messages.

Textual composes a frame at most ``TEXTUAL_FPS`` times a second (60 by default), so a change
made just after a frame waits up to 1/60 s to be seen: a third of the keystroke budget. Unless
the user has set it, the explorer asks for 120 (a change waits at most 1/120 s). Frames are only
composed when something changed, so an idle app costs nothing more. Set here, before Textual
is imported by this package, because Textual reads it once at import.
"""

import os

os.environ.setdefault("TEXTUAL_FPS", "120")
