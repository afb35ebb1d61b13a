"""Component classes shared by the widgets that colour tokens; the colours live in app.tcss."""

from __future__ import annotations

from rich.style import Style
from textual.widget import Widget

from tui_tok.explore.layout import KIND_NAMES, N_PHASES

N_COLOURS = N_PHASES
"""Normal tokens take the background of their colour phase (``TokenLayout.phases``), so neighbours differ."""

TOKEN_CLASSES: frozenset[str] = frozenset(
    {f"tok--c{i}" for i in range(N_COLOURS)}
    | {f"tok--{kind}" for kind in KIND_NAMES if kind != "normal"}
    | {"tok--cursor", "tok--none"}
)


class TokenStyles:
    """Rich styles of one widget's token component classes (and its base style).

    Looking a style up walks the DOM, which costs more than drawing a row, so widgets keep
    one ``TokenStyles`` until their styles change (``CachedStyles``).
    """

    def __init__(self, widget: Widget) -> None:
        self.base = widget.rich_style
        self.colours = [widget.get_component_rich_style(f"tok--c{i}") for i in range(N_COLOURS)]
        self.kinds = [Style()] + [widget.get_component_rich_style(f"tok--{k}") for k in KIND_NAMES[1:]]
        # partial: only what the rule sets (reverse, bold), so the token keeps its colours
        self.cursor = widget.get_component_rich_style("tok--cursor", partial=True)
        self.none = widget.get_component_rich_style("tok--none")

    def of(self, phase: int, kind: int, *, cursor: bool) -> Style:
        """Style of a token with ``TokenLayout.phases`` value ``phase`` (-1: no token) and kind code ``kind``."""
        if phase < 0:
            return self.none
        style = self.colours[phase % N_COLOURS] if kind == 0 else self.kinds[kind]
        return style + self.cursor if cursor else style


class CachedStyles:
    """Mixin for Line-API widgets: ``token_styles`` is rebuilt only after a style change."""

    _token_styles: TokenStyles | None = None

    @property
    def token_styles(self) -> TokenStyles:
        if self._token_styles is None:
            assert isinstance(self, Widget)
            self._token_styles = TokenStyles(self)
        return self._token_styles

    def notify_style_update(self) -> None:
        self._token_styles = None
        super().notify_style_update()  # type: ignore[misc]
