"""``ContentBox``: the size of a scrolling widget's content area, computed once per change.

``Widget.scrollable_content_region`` looks the widget up in the screen's compositor map and
takes off border, padding and scrollbars on every read; the token view and the id strip read
it dozens of times per keystroke (wrapping, row keys, each built row, cursor moves). The
content area only changes with the widget's outer size, its scrollbars and its
styles, so ``content_box`` keeps it until one of those differs (a style update forgets it).

Leaves out the region's position: only its size is kept.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.widget import Widget


class ContentBox:
    """Mixin (before the widget class): ``content_box`` is ``scrollable_content_region.size``, kept."""

    _box_key: tuple[object, ...] | None = None
    _box = Size(0, 0)

    @property
    def content_box(self) -> Size:
        widget: Widget = self  # type: ignore[assignment]
        key = (widget.outer_size, widget.show_vertical_scrollbar, widget.show_horizontal_scrollbar)
        if key != self._box_key:
            self._box = widget.scrollable_content_region.size
            self._box_key = key
        return self._box

    def notify_style_update(self) -> None:
        self._box_key = None  # border, padding or scrollbar sizes may have changed
        super().notify_style_update()  # type: ignore[misc]
