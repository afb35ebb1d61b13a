"""``python -m tui_tok`` behaves like the ``tui-tok`` command."""

import sys

from tui_tok.cli import main

sys.exit(main())
