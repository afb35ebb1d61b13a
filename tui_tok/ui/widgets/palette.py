"""Component classes shared by the widgets that colour tokens; the colours live in app.tcss."""

from __future__ import annotations

from rich.style import Style
from textual.widget import Widget

from tui_tok.explore.layout import KIND_NAMES

N_COLOURS = 6
"""Normal tokens cycle through this many backgrounds, so neighbours always differ."""

TOKEN_CLASSES: frozenset[str] = frozenset(
    {f"tok--c{i}" for i in range(N_COLOURS)}
    | {f"tok--{kind}" for kind in KIND_NAMES if kind != "normal"}
    | {"tok--cursor", "tok--none"}
)


class TokenStyles:
    """Rich styles of one widget's token component classes, fetched once per refresh."""

    def __init__(self, widget: Widget) -> None:
        self.colours = [widget.get_component_rich_style(f"tok--c{i}") for i in range(N_COLOURS)]
        self.kinds = [Style()] + [widget.get_component_rich_style(f"tok--{k}") for k in KIND_NAMES[1:]]
        self.cursor = widget.get_component_rich_style("tok--cursor")
        self.none = widget.get_component_rich_style("tok--none")

    def of(self, index: int, kind: int, *, cursor: bool) -> Style:
        """Style of token ``index`` (its kind code from ``KIND_CODES``)."""
        if index < 0:
            return self.none
        style = self.colours[index % N_COLOURS] if kind == 0 else self.kinds[kind]
        return style + self.cursor if cursor else style
