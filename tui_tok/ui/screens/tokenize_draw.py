"""What the tokenize view's worker prepares for drawing a long text's result, off the UI thread.

With 10 MB of text the id strip's 3M labels are measured and flowed, and the Tokens panel's
240k lines wrapped (~0.5 s each on the UI thread, where a key typed meanwhile waited). The
worker does it at the widths the widgets have when the request is made (``DrawHint``); a width
that changed meanwhile is done again on the UI thread. After a key (a spliced layout) the
strip measures only the new labels (``spliced_widths``) and the panel re-wraps only the lines
around the edit itself (``TokenView.show``), so nothing is prepared for it here. Its progress
reaches the UI thread at most so often (``every``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tui_tok.explore.layout import Rows, TokenLayout, wrap_rows
from tui_tok.ui.widgets.id_strip import Flow, FlowHint, IdStrip, spliced_widths, strip_flow
from tui_tok.ui.widgets.token_view import TokenView


@dataclass(frozen=True, slots=True)
class DrawHint:
    """Read on the UI thread when a request is made."""

    strip: FlowHint
    view_width: int


def draw_hint(strip: IdStrip, view: TokenView) -> DrawHint:
    # a long text's rows overflow the panel: wrapped beside the vertical scrollbar it will have
    width = view.wrap_width if view.show_vertical_scrollbar else view.wrap_width - view.styles.scrollbar_size_vertical
    return DrawHint(strip.flow_hint(), max(2, width))


def drawn(
    layout: TokenLayout, pieces: Mapping[int, str] | None, hint: DrawHint
) -> tuple[tuple[Flow, ...], Rows | None]:
    """The id strip's flows at the hinted widths, and the Tokens panel's rows of a new (not spliced) layout."""
    labels = spliced_widths(layout, pieces, hint.strip)
    flowed = tuple(strip_flow(layout.ids, pieces, width, hint.strip[1], labels) for width in hint.strip[0])
    return flowed, wrap_rows(layout, width=hint.view_width) if layout.edit is None else None


def every(seconds: float, call: Callable[[float], object]) -> Callable[[float], None]:
    """``call``, skipped when the last call was less than ``seconds`` ago."""
    last = [time.perf_counter()]

    def throttled(fraction: float) -> None:
        now = time.perf_counter()
        if now - last[0] >= seconds:
            last[0] = now
            call(fraction)

    return throttled
