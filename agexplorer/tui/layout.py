"""The explorer's shape: size breakpoints, the folding function list, zoom and presentation mode."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual.app import App
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches
from textual.widget import Widget

from agexplorer.tui import textual_patches

if TYPE_CHECKING:
    from textual.screen import Screen

    from agexplorer.tui.parts import ExplorerApp

# Every footer of the explorer (its screens' too) composes its keys only when they change and
# lets go of those it replaced: Textual's kept them all (textual_patches). The tabs' patch is
# installed by the workspace, the one holder of tabs, after the first frame.
textual_patches.install_footer()
textual_patches.install_alt_digits()
textual_patches.install_styles_cache()

# The main screen gets one class per axis on every resize (Textual's breakpoints). Under 110
# columns the function list folds away and the code panes stack; from 50 rows the panels
# get as much height as the code (the Graph tab's ops, the Run tab's timings and chart).
# 150x42, the size of the first snapshots, stays "-medium -short": the layout they show.
WIDE = 180
HORIZONTAL = [(0, "-narrow"), (110, "-medium"), (WIDE, "-wide")]
# Under 36 rows (80x24) and 110 columns there is room for one code pane, not two stacked:
# the source and AutoGraph's code alternate, the focused one shown (F2, alt+2, alt+3, Tab).
VERTICAL = [(0, "-tiny"), (36, "-short"), (50, "-tall")]
SHOW_CONVERTED = "-show-converted"

# Bound by the app in keys.BINDINGS' order (ctrl+b first: keys.py places it by index).
BINDINGS: list[BindingType] = [
    Binding("ctrl+b", "layout('functions')", "Functions"),
    Binding("f11", "layout('zoom')", "Zoom"),
    Binding("z", "layout('zoom')", "Zoom", show=False),
    Binding("f12", "layout('present')", "Present", show=False),
    Binding("space", "layout('step')", "Next and run", show=False),
    # Works in the editor too; alt+2/alt+3 are not sent by every terminal (macOS's Option+3
    # types "£" or "#" unless the terminal sends Option as Meta).
    Binding("f2", "layout('swap')", "Source/AutoGraph", show=False),
]

# The screen's classes hold the state, so that the stylesheet (app.tcss) alone says what
# each one looks like.
OPEN, FOLDED = "-functions-open", "-functions-folded"
ZOOMED, HIDDEN, TARGET = "-zoomed", "-zoom-hidden", "-zoom-target"
PRESENTING = "-presenting"

PANES = ("picker", "source", "converted", "panels")  # what zoom can fill the screen with
COMPANIONS = {"source": "gutter", "converted": "refs"}  # a gutter stays with its pane


class LayoutApp(App, inherit_bindings=False):
    """The layout's breakpoints and key action, the base of the explorer's app (AgxApp): they
    live here so that app.py only names its base (the keys, BINDINGS above, are bound in
    keys.BINDINGS' order)."""

    HORIZONTAL_BREAKPOINTS: list[tuple[int, str]] = HORIZONTAL
    VERTICAL_BREAKPOINTS: list[tuple[int, str]] = VERTICAL
    # The footer lists keys in the order they were first bound: Textual's own ctrl+q would
    # come first at 80 columns. The app's list (keys.BINDINGS: these layout keys among the
    # rest, most useful first, Quit last) gives the order; only App's ctrl+c note is kept.
    BINDINGS: ClassVar[list[BindingType]] = [b for b in App.BINDINGS
                                            if not (isinstance(b, Binding) and b.key == "ctrl+q")]

    def on_descendant_focus(self, event) -> None:
        """On a small screen the focused code pane is the one shown (they alternate)."""
        widget_id = getattr(event.widget, "id", None)
        if widget_id in ("source", "converted") and self.screen_stack:
            screen = self.screen_stack[0]
            if screen.has_class(SHOW_CONVERTED) != (widget_id == "converted"):
                textual_patches.set_class(screen, widget_id == "converted", SHOW_CONVERTED)
                self.call_after_refresh(_shown_again, self, event.widget)

    def action_layout(self, what: str) -> None:
        """Fold the functions, zoom, present, or step to the next function (presenting)."""
        act(cast("ExplorerApp", self), what)


def act(app: ExplorerApp, what: str) -> None:
    """The layout key ``what`` ("functions", "zoom", "present", "step") on the main screen."""
    screen = app.screen
    if screen is not app.screen_stack[0]:
        return  # a dialog or the program view is on top: its own keys apply
    {"functions": toggle_functions, "zoom": toggle_zoom, "present": toggle_presentation,
     "step": present_next,
     "swap": swap_code}[what](app, screen)


def present_next(app: ExplorerApp, screen: Screen) -> None:
    """In presentation mode, open the next function (across the open files) and run it."""
    if screen.has_class(PRESENTING) and app.workspace_ready and app.navigation.step(1):
        app.action_run()


def reveal_code(pane: Widget) -> bool:
    """Make the code pane ``pane`` the one shown where only one is (80x24), before it takes
    the focus: a hidden widget cannot (Enter on a verdict row focuses the source). True when
    it was hidden: the focus must wait for the styles to apply."""
    screen = pane.app.screen_stack[0] if pane.app.screen_stack else None
    if screen is None or pane.id not in ("source", "converted"):
        return False
    hidden = screen.has_class(SHOW_CONVERTED) != (pane.id == "converted")
    textual_patches.set_class(screen, pane.id == "converted", SHOW_CONVERTED)
    return hidden and screen.has_class("-narrow", "-tiny")


def swap_code(app: ExplorerApp, screen: Screen) -> None:
    """F2: focus the other code pane (at 80x24, where one shows at a time: show it)."""
    if not app.workspace_ready:
        return
    to_converted = app.focused is not app.panes.converted
    textual_patches.set_class(screen, to_converted, SHOW_CONVERTED)
    pane = app.panes.converted if to_converted else app.panes.source
    pane.focus()
    app.call_after_refresh(_shown_again, app, pane)


def _shown_again(app: ExplorerApp, pane: Widget) -> None:
    """A pane shown again starts at its left edge (hidden, it kept a stale scroll), its
    gutter level with its lines."""
    pane.scroll_to(x=0, animate=False)
    app.sync_gutter()


# Under these sizes inputs, buttons, selects and the footer take Textual's compact form
# (one row, no border): at 80x24 a bordered filter left the Graph tab two rows of ops, and
# the footer cut off the keys after "Save".
COMPACT_BELOW = (110, 50)  # columns, rows


# The lesson tour's panel, by the screen's width: (from columns, the panel's width).
TOUR_WIDTHS = [(0, 34), (110, 40), (150, 44)]
# Beside the tour, the code panes side by side keep 60 columns each with the function list
# (30) from this many columns left; under it the list folds (-tour-folded) and they do.
TOUR_KEEPS_LIST = 170
TOUR_FOLDED = "-tour-folded"


WORKSPACE_CSS = "workspace.tcss"


def add_workspace_css(app: App) -> None:
    """The workspace's rules join the app's stylesheet (app.tcss has the first frame's):
    parsed once, just before the workspace mounts; a theme's reparse keeps them."""
    from pathlib import Path

    path = Path(__file__).with_name(WORKSPACE_CSS)
    location = (str(path), "")
    if location in app.stylesheet.source:
        return
    app.stylesheet.add_source(path.read_text(encoding="utf-8"), read_from=location)
    app.update_styles(app.screen)  # the frame's widgets, under the classes the rules add


def _reached(size: int, points: list[tuple[int, str]]) -> str:
    """The breakpoint class of ``size`` on one axis (Textual's rule: the last threshold
    reached)."""
    return [name for least, name in points if size >= least][-1]


def breakpoint_classes(width: int, height: int) -> dict[str, bool]:
    """The breakpoint classes a screen of this size has, on both axes."""
    return {name: name == _reached(size, points)
            for size, points in ((width, HORIZONTAL), (height, VERTICAL)) for _, name in points}


def preset_breakpoints(app: App) -> None:
    """The main screen's breakpoint classes before its first frame: Textual sets them on
    the screen's first resize, which came after that frame and restyled and drew it all
    again (~25 ms of the explorer's first paint)."""
    app.screen.update_classes(breakpoint_classes(*app.size), animate=False)
    app.call_after_refresh(_blur_hidden, app)


def _blur_hidden(app: App) -> None:
    """Textual focuses the first focusable widget, hidden or not: on a narrow screen that was
    the folded function list, which then took the keys (when a resize folded it, Textual
    let go of its focus; a screen narrow from the start never resizes into it)."""
    focused = app.screen.focused
    if focused is not None and not all(node.display for node in focused.ancestors_with_self
                                       if isinstance(node, Widget)):
        app.screen.set_focus(None)


def tour_width(app: App) -> int:
    """The columns the lesson tour's panel takes now (0: it is not open)."""
    from agexplorer.tui.tour.panel import tour_panel

    panel = tour_panel(app.screen_stack[0] if app.screen_stack else None)
    if panel is None or panel.tour.panel is not panel:
        return 0  # (a panel being removed is the closed tour's)
    return [w for least, w in TOUR_WIDTHS if app.size.width >= least][-1]


def fit_tour(app: App) -> None:
    """While the tour is open it owns the layout: its panel's width comes off the screen's,
    and the horizontal breakpoint is the one of the columns left. So where the code would
    drop under 60 columns the function list folds and the code panes stack (or, on a short
    screen, alternate), as on a narrow screen; closed, the screen's own width decides again.
    (Textual sets the breakpoint classes on a resize only: the app calls this after each.)"""
    from agexplorer.tui.tour.panel import tour_panel

    screen = app.screen_stack[0] if app.screen_stack else None
    if screen is None or not screen.is_mounted:
        return
    taken = tour_width(app)
    panel = tour_panel(screen)
    if panel is not None:
        panel.styles.width = taken
    left = app.size.width - taken
    # Textual sets the horizontal classes from the screen's width on each resize, maybe
    # after this ran: while the tour is open this screen leaves them to this function.
    if taken:
        setattr(screen, "HORIZONTAL_BREAKPOINTS", [])  # noqa: B010 - a ClassVar, per screen
    else:
        screen.__dict__.pop("HORIZONTAL_BREAKPOINTS", None)
    chosen = _reached(left, HORIZONTAL)
    screen.update_classes({name: name == chosen for _, name in HORIZONTAL}, animate=False)
    screen.set_class(bool(taken) and chosen == "-medium" and left < TOUR_KEEPS_LIST,
                     TOUR_FOLDED)
    if getattr(app, "workspace_ready", False):
        app.call_after_refresh(app.panes.show_active_tab)  # type: ignore[attr-defined]
    fit_controls(app)


def fit_controls(app: App) -> None:
    """Compact controls and footer on a small screen, bordered ones on a large one."""
    screen = app.screen_stack[0] if app.screen_stack else None
    if screen is None or not screen.is_mounted:
        return
    width, height = app.size
    code_width = width - tour_width(app)  # the columns the code's panes share
    small = width < COMPACT_BELOW[0] or height < COMPACT_BELOW[1]
    # Queried by their CSS type names: the classes (the gutter's with the report model)
    # are not imported for the first frame, which has none of them.
    for widget in screen.query("Input, Button, Select"):
        if getattr(widget, "compact", small) != small:
            setattr(widget, "compact", small)  # noqa: B010 - a reactive of each of the three
    for footer in screen.query("Footer"):
        setattr(footer, "compact", width < COMPACT_BELOW[0])  # noqa: B010 - Footer's reactive
    for gutter in screen.query("VerdictGutter"):  # short marks leave the columns to the code
        gutter.set_compact(width < WIDE)  # type: ignore[attr-defined]
    alternate = code_width < HORIZONTAL[1][0] and height < VERTICAL[1][0]  # one pane shows
    for pane_id, other in (("source", "F2: AutoGraph's code"), ("converted", "F2: source")):
        for pane in screen.query(f"#{pane_id}"):
            if hasattr(pane, "hint"):  # the source: after its demo mark ("read-only: ...")
                pane.hint = other if alternate else ""
            else:
                pane.border_subtitle = other if alternate else ""


def _focus_code(app: ExplorerApp) -> None:
    if app.workspace_ready:
        app.source.focus()


def toggle_functions(app: ExplorerApp, screen: Screen) -> None:
    """Fold the function list away or bring it back (at any width)."""
    picker = app.query_one("#picker")
    showing = picker.display
    textual_patches.set_class(screen, showing, FOLDED)
    textual_patches.set_class(screen, not showing, OPEN)
    if showing:
        if picker.has_focus:
            _focus_code(app)
    else:
        picker.focus()


def fold_after_pick(screen: Screen) -> None:
    """At narrow widths a list opened to pick a function folds away once one is picked."""
    if screen.has_class("-narrow") and screen.has_class(OPEN):
        textual_patches.set_class(screen, False, OPEN)
        app = screen.app
        if hasattr(app, "workspace_ready"):
            app.call_after_refresh(_focus_code, app)


def _focused_pane(app: ExplorerApp) -> Widget | None:
    node = app.focused
    while node is not None and node.id not in PANES:
        node = node.parent if isinstance(node.parent, Widget) else None
    return node


def toggle_zoom(app: ExplorerApp, screen: Screen) -> None:
    """Fill the screen (all but the status line and the footer) with the focused pane, or
    put every pane back."""
    if screen.has_class(ZOOMED):
        unzoom(screen)
        app.set_status("every pane is back (F11 or z zooms the focused one)")
        return
    pane = _focused_pane(app)
    if pane is None:
        if not app.workspace_ready:
            return
        pane = app.source
    keep = {pane}
    if pane.id in COMPANIONS:
        try:
            keep.add(screen.query_one(f"#{COMPANIONS[pane.id]}"))
        except NoMatches:
            pass
    node: Widget = pane
    while node.id != "main" and isinstance(node.parent, Widget):
        for sibling in node.parent.children:
            if sibling is not node and sibling not in keep:
                sibling.add_class(HIDDEN)
        node = node.parent
    pane.add_class(TARGET)
    textual_patches.set_class(screen, True, ZOOMED)
    pane.focus()
    app.set_status(f"zoomed {pane.id}: F11 (or z outside the editor) puts the panes back")


def unzoom(screen: Screen) -> None:
    """Every pane back in its place."""
    for widget in screen.query(f".{HIDDEN}, .{TARGET}"):
        widget.remove_class(HIDDEN, TARGET)
    textual_patches.set_class(screen, False, ZOOMED)


def toggle_presentation(app: ExplorerApp, screen: Screen) -> None:
    """Presentation mode: no footer or function list, bolder titles, the source read-only
    until ctrl+e, and space steps to the next function of the open files and runs it. The
    function shown runs as the mode starts."""
    if screen.has_class(PRESENTING):
        textual_patches.set_class(screen, False, PRESENTING)
        app.source.set_demo("presentation", False)
        app.set_status("presentation mode ended (F12 starts it again)")
        return
    if not app.workspace_ready:
        return
    textual_patches.set_class(screen, True, PRESENTING)
    app.source.set_demo("presentation", True)  # read-only until ctrl+e; Tab moves on
    app.panes.run_panel.focus()  # not the editor: space must step, not type
    app.action_run()
    app.set_status("presentation: space runs the next function, F12 ends")


