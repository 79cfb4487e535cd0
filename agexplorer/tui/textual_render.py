"""A partial update's render from the widgets under its dirty regions (a patch of Textual's
compositor, probed as tui/textual_patches.py probes its own).

Textual's compositor repaints the rectangle around every dirty region and renders every
widget that rectangle overlaps: an edit's answer, which changes the gutters at the top of the
screen and the verdict table at the bottom, rendered 37 widgets at 160x45 where 15 lie under
the regions that change (the frame's render ~2-3 ms shorter with the patch); what is sent to
the terminal is the same (tests/tui/test_textual_patches.py compares it byte for byte).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from agexplorer.tui import textual_patches

textual_patches.PRIVATE += (
    ("textual._compositor", "Compositor.render_partial_update"),
    ("textual._compositor", "Compositor._get_renders"),
    ("textual._compositor", "Compositor.visible_widgets"),
    ("textual._compositor", "Compositor.update_widgets"),
    ("textual.screen", "Screen._on_update"),
    ("textual.screen", "Screen._on_idle"),
    ("textual.screen", "Screen._on_timer_update"),
    ("textual.dom", "DOMNode.rich_style"),
    ("textual._compositor", "Compositor.render_update"),
)
# Textual's own methods the patch replaced, by name.
TEXTUALS: dict[str, Callable[..., Any]] = {}
_installed = False


def install_partial_render() -> None:
    """Render a partial update from the widgets under its dirty regions (idempotent).

    Textual's compositor repaints the rectangle around every dirty region, and renders
    every widget that rectangle overlaps: an answer that changes the gutters at the top of
    the screen and the verdict table at the bottom rendered all ~35 widgets between them
    (their ``render_lines`` and the division of each line into cuts, ~8 ms at 160x45), of
    which only the lines in the dirty regions are sent. A widget that overlaps no dirty
    region adds nothing that is sent, so it is not rendered; the ones under a dirty region
    (its containers, their backgrounds) still are, front to back as Textual paints them."""
    global _installed
    names = ("render_partial_update", "_get_renders", "visible_widgets")
    if _installed or not all(textual_patches.probe("textual._compositor", f"Compositor.{name}")
                             for name in names):
        return
    from textual._compositor import Compositor

    get_renders = Compositor._get_renders
    partial_update = Compositor.render_partial_update

    def _get_renders(self: Any, crop: Any = None) -> Any:
        dirty = getattr(self, "_agx_dirty", None)
        if not dirty or crop is None:
            return get_renders(self, crop)
        visible = self.visible_widgets
        # (what a widget shows is its region within its clip: Textual's own filter reads
        # the clip alone, the whole pane a scroll bar or a gutter sits in)
        kept = {widget: placed for widget, placed in visible.items()
                if any(placed[0].intersection(placed[1]).overlaps(region) for region in dirty)}
        if len(kept) == len(visible):
            return get_renders(self, crop)
        # (the property's cache, read once at the start of Textual's own loop)
        self._visible_widgets = kept
        try:
            return list(get_renders(self, crop))
        finally:
            self._visible_widgets = visible

    def render_partial_update(self: Any) -> Any:
        self._agx_dirty = tuple(self._dirty_regions)
        try:
            return partial_update(self)
        finally:
            self._agx_dirty = None

    Compositor._get_renders = _get_renders  # type: ignore[method-assign]
    Compositor.render_partial_update = render_partial_update  # type: ignore[method-assign]
    TEXTUALS["Compositor.render_partial_update"] = partial_update  # (tests compare the two)
    _installed = True


def install_hidden_refresh() -> None:
    """A refresh of a widget that is not displayed keeps the compositor's map (idempotent).

    Textual's compositor forgets its map of every widget's place when a frame updates a
    widget it does not show, taking it for one just mounted; the next question about any
    widget's region or size (a pane's ``size``, on the way to a refresh) then lays out all
    of the screen's widgets again: 0.5-2.4 ms at 160x45. The explorer's hidden tabs (the
    Calls tree, the Doctor's findings) are told of each answer and refresh, so the answer's
    own handler paid for that layout before its frame. A widget under ``display: none``
    (its own or an ancestor's) is in no map, and showing it lays the screen out anyway: its
    refresh changes nothing the map holds. Any other widget outside the screen keeps
    Textual's behaviour."""
    global _hidden_installed
    if _hidden_installed or not (
            textual_patches.probe("textual._compositor", "Compositor.update_widgets")
            and textual_patches.probe("textual._compositor", "Compositor.visible_widgets")):
        return
    from textual._compositor import Compositor

    update_widgets = Compositor.update_widgets

    def _update_widgets(self: Any, widgets: set) -> None:
        if not getattr(self, "_full_map_invalidated", True):
            shown = self.visible_widgets.keys()
            unseen = widgets - shown
            if unseen and not any(_displayed(widget) for widget in unseen):
                widgets = widgets & shown  # (Textual's own loop updates shown ones only)
        update_widgets(self, widgets)

    Compositor.update_widgets = _update_widgets  # type: ignore[method-assign]
    TEXTUALS["Compositor.update_widgets"] = update_widgets
    if textual_patches.probe("textual.screen", "Screen._on_update"):
        from textual.screen import Screen

        on_update = Screen._on_update

        async def _on_update(self: Any, message: Any) -> None:
            if _displayed(message.widget):
                await on_update(self, message)
                return
            message.stop()  # (as Textual's own: the update goes no further)
            message.prevent_default()

        Screen._on_update = _on_update  # type: ignore[method-assign]
        TEXTUALS["Screen._on_update"] = on_update
    _hidden_installed = True


_hidden_installed = False


def _displayed(widget: Any) -> bool:
    """Whether ``widget`` and every ancestor are displayed (not ``display: none``, not
    being removed): only then can a layout place it."""
    node = widget
    while node is not None:
        if not node.display:
            return False
        node = node._parent
    return True


def draw_soon(screen: Any) -> None:
    """Draw ``screen``'s next frame as soon as its updates are in (when it is next idle),
    not at Textual's next tick (see :func:`install_soon_frames`)."""
    screen._agx_soon = True


def install_soon_frames() -> None:
    """A screen asked to (:func:`draw_soon`) draws its next frame when it is next idle with
    something to draw (idempotent).

    Textual draws at most 60 frames a second on a fixed grid of ticks, and after a frame
    drawn between two ticks the next waits for the tick after next: 17-33 ms. The worker's
    answers come in two parts (the converted code during the trace, then the verdicts), so
    the second part's frame waited up to 33 ms behind the first's for no reason but the
    grid: two frames, one an answer, never reach 60 a second."""
    global _soon_installed
    if _soon_installed or not (textual_patches.probe("textual.screen", "Screen._on_idle")
                               and textual_patches.probe("textual.screen",
                                                         "Screen._on_timer_update")):
        return
    from textual.screen import Screen

    on_idle = Screen._on_idle

    async def _on_idle(self: Any, event: Any) -> None:
        if getattr(self, "_agx_soon", False) and not self.app._batch_count \
                and self.is_current and (self._layout_required or self._scroll_required
                                         or self._repaint_required or self._dirty_widgets):
            self._agx_soon = False
            event.prevent_default()
            self._on_timer_update()  # (what Textual's tick does)
            # and idle again: what waits for the frame (``call_after_refresh``) runs at the
            # next idle with nothing to draw, as after Textual's tick
            self.check_idle()
            return
        await on_idle(self, event)

    Screen._on_idle = _on_idle  # type: ignore[method-assign]
    TEXTUALS["Screen._on_idle"] = on_idle
    _soon_installed = True


_soon_installed = False


def install_frame_styles() -> None:
    """A widget's Rich style is worked out once per frame (idempotent).

    Textual works a widget's style out from every ancestor's (their backgrounds blended,
    ~10 levels here) each time it is asked, and a frame asks often: the verdict table once
    per line and again per row kind, a code pane once per line. Nothing changes a style
    while a frame is rendered (the styles change between frames, when messages are
    handled), so within ``Compositor.render_update`` each node's is kept once known."""
    global _frame_styles_installed
    if _frame_styles_installed or not (
            textual_patches.probe("textual.dom", "DOMNode.rich_style")
            and textual_patches.probe("textual._compositor", "Compositor.render_update")):
        return
    from textual._compositor import Compositor
    from textual.dom import DOMNode

    worked_out = cast(property, DOMNode.__dict__["rich_style"]).fget
    assert worked_out is not None
    render_update = Compositor.render_update

    def rich_style(self: Any) -> Any:
        kept = _kept_styles
        if kept is None:
            return TEXTUALS["DOMNode.rich_style"](self)
        style = kept.get(self)
        if style is None:
            style = kept[self] = TEXTUALS["DOMNode.rich_style"](self)
        return style

    def _render_update(self: Any, *args: Any, **kwargs: Any) -> Any:
        global _kept_styles
        outer, _kept_styles = _kept_styles, {}
        try:
            return render_update(self, *args, **kwargs)
        finally:
            _kept_styles = outer

    DOMNode.rich_style = property(rich_style, doc=worked_out.__doc__)  # type: ignore
    Compositor.render_update = _render_update  # type: ignore[method-assign]
    TEXTUALS["DOMNode.rich_style"] = worked_out
    TEXTUALS["Compositor.render_update"] = render_update
    _frame_styles_installed = True


_frame_styles_installed = False
_kept_styles: dict[Any, Any] | None = None  # within a frame's render: node -> its style
