"""``Editor``: a ``TextArea`` that reports each edit synchronously, before the next repaint.

A ``TextArea.Changed`` message reaches the screen only after the screen's repaint timer has
drawn the edited editor, so the token view then waits for another frame (measured: ~15-30 ms
more per keystroke). ``Editor`` calls ``on_edit`` from inside the edit instead, so the text
and its tokens are drawn in the same frame. ``Changed`` is still posted for other listeners;
``consume_changed`` tells the screen which of those it has already handled.

It also applies its colour theme's CSS once per style change rather than on every render
(``TextArea.render_lines`` does it each frame: about a quarter of the editor's draw time).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import TextArea


class Editor(TextArea):
    """TextArea with a synchronous edit hook."""

    def __init__(self, text: str = "", *, on_edit: Callable[[], None] | None = None, **kwargs: object) -> None:
        super().__init__(text, **kwargs)  # type: ignore[arg-type]
        self.on_edit = on_edit
        self._handled = 0
        self._css_key: tuple[object, ...] | None = None

    def post_message(self, message: Message) -> bool:
        posted = super().post_message(message)
        if posted and isinstance(message, TextArea.Changed) and self.on_edit is not None and self.is_mounted:
            self._handled += 1
            self.on_edit()
        return posted

    def consume_changed(self) -> bool:
        """True when a ``Changed`` message's edit was already handled by ``on_edit``."""
        if self._handled:
            self._handled -= 1
            return True
        return False

    def notify_style_update(self) -> None:
        self._css_key = None
        super().notify_style_update()

    def render_lines(self, crop: Region) -> list[Strip]:
        theme = self._theme
        if theme:
            key = (theme, self.app.current_theme)
            if self._css_key != key:
                theme.apply_css(self)
                self._css_key = key
        return Widget.render_lines(self, crop)
