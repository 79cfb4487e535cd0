"""Textual's private names, used by the patches, are all there; one that is gone skips its patch
instead of failing the explorer's start (no TensorFlow)."""

import pytest
from textual.widgets import TabbedContent

from agexplorer.tui import textual_patches


def test_every_private_name_the_patches_use_is_in_this_textual():
    from agexplorer.tui import textual_render  # noqa: F401 - it names its own

    assert ("textual._compositor", "Compositor._get_renders") in textual_patches.PRIVATE
    assert textual_patches.missing() == []


def test_a_private_name_that_is_gone_skips_its_patch(monkeypatch):
    monkeypatch.setitem(textual_patches._probed,
                        ("textual.widgets", "TabbedContent._on_tab_pane_focused"), False)
    monkeypatch.setattr(textual_patches, "_tab_focus_installed", False)
    before = TabbedContent._on_tab_pane_focused
    textual_patches.install_tab_focus()
    assert TabbedContent._on_tab_pane_focused is before


def test_a_probe_imports_only_the_module_it_asks_about():
    """The first frame's patches (the footer's) do not import what later ones patch: Textual's
    tabs and its syntax-aware document (tree-sitter) load with the workspace."""
    import subprocess
    import sys

    code = ("import sys\nfrom agexplorer.tui import textual_patches as p\n"
            "assert p.probe('textual.widgets._footer', 'FooterKey')\n"
            "print(sorted(m for m in ('textual.widgets._tabbed_content', "
            "'textual.document._syntax_aware_document', 'tree_sitter') if m in sys.modules))")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert shown == "[]"


def test_a_name_left_out_of_the_list_is_refused():
    with pytest.raises(AssertionError, match="PRIVATE"):
        textual_patches.probe("textual.app", "App._private_thing")


def test_esc_and_a_digit_is_read_as_alt_and_the_digit():
    """How tmux, xterm and most Linux terminals send alt+2: ESC then "2" (Textual read it as
    "™", macOS's Option+2, so alt+1-4 never focused a pane through tmux)."""
    from textual import events
    from textual._xterm_parser import XTermParser

    textual_patches.install_alt_digits()
    keys = [event.key for event in XTermParser().feed("\x1b1\x1b2\x1b39")
            if isinstance(event, events.Key)]
    assert keys == ["alt+1", "alt+2", "alt+3", "9"]
    typed = [event.key for event in XTermParser().feed("£¡") if isinstance(event, events.Key)]
    assert typed == ["pound_sign", "inverted_exclamation_mark"]  # typed as they come



CLASSY_CSS = """
Screen.-result #code { height: 3; }
Screen.-result #panels Label.deep { text-style: bold; }
Screen.-result.-other #panels { height: 7; }
.stale { opacity: 60%; }
#panels.stale > Label { color: red; }
"""


async def _toggled(patched: bool) -> tuple[list[dict], int]:
    """Each node's styles after each class change, and how many nodes were restyled."""
    from textual.app import App
    from textual.containers import Vertical
    from textual.widgets import Label

    class Classy(App):
        CSS = CLASSY_CSS

        def compose(self):
            with Vertical(id="code"):
                yield Label("code")
            with Vertical(id="panels"):
                yield Label("a", classes="deep")
                with Vertical():
                    yield Label("b", classes="deep")
                    yield Label("c")

    app, restyled, states = Classy(), [], []
    async with app.run_test(size=(40, 20)) as pilot:
        update = app.stylesheet.update_nodes

        def counted(nodes, animate=False):
            nodes = list(nodes)
            restyled.extend(nodes)
            update(nodes, animate=animate)

        app.stylesheet.update_nodes = counted
        screen, panels = app.screen, app.query_one("#panels")
        for node, on, name in [(screen, True, "-result"), (screen, True, "-other"),
                               (panels, True, "stale"), (screen, False, "-result"),
                               (panels, False, "stale"), (screen, False, "-other")]:
            if patched:
                textual_patches.set_class(node, on, name)
            else:
                node.set_class(on, name)
            await pilot.pause()
            assert node.has_class(name) == on
            states.append([(n.id, n.styles.css) for n in screen.walk_children(with_self=True)])
    return states, len(restyled)


async def test_a_class_restyles_only_what_its_rules_select_and_ends_as_textuals_own():
    """Textual restyles every node under one whose class changed (the whole explorer for a
    class on the screen); set_class restyles only what the rules naming the class select,
    and every node ends each change with the styles Textual's own set_class gives."""
    patched, few = await _toggled(True)
    textual, many = await _toggled(False)
    assert patched == textual
    assert patched[0] != patched[3]  # the rules did apply, and stopped applying
    assert few < many / 2, (few, many)


async def test_a_widget_gone_leaves_no_style_cache_behind():
    """Textual cached two colours' styles by the widget's style cache as well (an lru_cache
    on the method): 1,024 gone widgets' caches, with their rendered lines, stayed alive."""
    import gc

    from textual._styles_cache import StylesCache
    from textual.app import App
    from textual.widgets import Label

    textual_patches.install_styles_cache()

    class Labels(App):
        def compose(self):
            for n in range(40):
                yield Label(f"line {n}", classes=f"tint{n % 4}")

        CSS = "\n".join(f".tint{n} {{ background: $primary {n * 20}%; }}" for n in range(4))

    def alive() -> int:
        gc.collect()
        return sum(isinstance(obj, StylesCache) for obj in gc.get_objects())

    after = []  # StylesCaches alive after each app has ended (the last may still be held)
    for _ in range(3):
        app = Labels()
        async with app.run_test(size=(40, 50)) as pilot:
            await pilot.pause()
            assert alive() >= 40  # each label has one while it is shown
        del app, pilot
        after.append(alive())
    assert after[-1] <= after[0] + 2, after  # unpatched: 41 more an app


async def test_a_partial_update_renders_only_the_widgets_under_its_dirty_regions_and_the_same(
        monkeypatch):
    """Two widgets changed far apart (a gutter at the top, a table at the bottom): Textual
    renders every widget the rectangle around them overlaps; the patch renders those under
    a dirty region, and the update written to the terminal is the same, byte for byte."""
    from textual.app import App
    from textual.containers import Horizontal, Vertical
    from textual.widget import Widget
    from textual.widgets import Static

    from agexplorer.tui import textual_render

    textual_render.install_partial_render()
    textuals = textual_render.TEXTUALS["Compositor.render_partial_update"]

    class Panes(App):
        CSS = ("#top { height: 30; } #top Static { width: 1fr; border: round green; } "
               "#gutter { width: 4; } #bottom { height: 10; border: round blue; }")

        def compose(self):
            with Vertical():
                with Horizontal(id="top"):
                    yield Static("1\n2\n3", id="gutter")
                    for n in range(6):
                        yield Static("\n".join(f"pane {n} line {i}" for i in range(20)))
                yield Static("verdicts", id="bottom")

    app = Panes()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        gutter, bottom = app.query_one("#gutter", Static), app.query_one("#bottom", Static)
        gutter.update("4\n5\n6")
        bottom.update("verdicts, again")
        compositor.update_widgets({gutter, bottom})
        dirty = set(compositor._dirty_regions)
        assert len(dirty) == 2
        rendered: list[list[Widget]] = []
        render_lines = Widget.render_lines

        def counted(self, crop):
            rendered[-1].append(self)
            return render_lines(self, crop)

        monkeypatch.setattr(Widget, "render_lines", counted)
        updates = []
        for partial in (type(compositor).render_partial_update, textuals):
            rendered.append([])
            compositor._dirty_regions.update(dirty)
            updates.append(partial(compositor).render_segments(app.console))
        assert updates[0] == updates[1]
        ours, theirs = rendered
        assert gutter in ours and bottom in ours
        # the six panes between them: Textual's own renders them, the patch does not
        assert len(theirs) - len(ours) >= 6, (len(ours), len(theirs))


async def test_a_refresh_of_a_hidden_tabs_widget_keeps_the_map_of_the_shown_ones():
    """A widget in a tab not shown (``display: none`` above it) refreshes: Textual's compositor
    forgot its map of every widget's place, and the next ``size`` of a shown widget laid the
    whole screen out again; with the patch the map is kept, a shown widget's size is read
    from it, and a widget displayed but scrolled out of sight still drops the map as in
    Textual."""
    from textual.app import App
    from textual.containers import VerticalScroll
    from textual.widgets import Static, TabbedContent, TabPane

    from agexplorer.tui import textual_render

    textual_render.install_hidden_refresh()

    class Tabs(App):
        def compose(self):
            with TabbedContent(id="tabs"):
                with TabPane("one", id="one"), VerticalScroll(id="scroll"):
                    yield Static("shown", id="shown")
                    for n in range(60):
                        yield Static(f"row {n}", id=f"row{n}")
                with TabPane("two", id="two"):
                    yield Static("hidden", id="hidden")

    app = Tabs()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        shown, hidden = app.query_one("#shown", Static), app.query_one("#hidden", Static)
        below = app.query_one("#row59", Static)  # displayed, below the screen's edge
        assert compositor.full_map and not compositor._full_map_invalidated
        assert hidden not in compositor.full_map and below in compositor.full_map
        arranged = []
        arrange_root = compositor._arrange_root

        def counted(*args, **kwargs):
            arranged.append(kwargs.get("visible_only", args[2] if len(args) > 2 else True))
            return arrange_root(*args, **kwargs)

        compositor._arrange_root = counted
        hidden.update("hidden, told of the answer")
        compositor.update_widgets({hidden, shown})
        assert not compositor._full_map_invalidated
        assert shown.size.width > 0 and arranged == []
        compositor.update_widgets({below})
        assert compositor._full_map_invalidated  # Textual's own rule for the rest
        # and what is drawn is unchanged: the hidden tab shows its new text once shown
        app.query_one("#tabs", TabbedContent).active = "two"
        await pilot.pause()
        assert "hidden, told of the answer" in str(hidden.render())
        assert hidden.region.width > 0


async def test_an_update_of_a_widget_not_displayed_draws_no_frame():
    """A widget in a tab not shown (the Doctor's findings, told of every request) redrawn in
    place: Textual's screen woke its frame timer for it (a frame with nothing in it for the
    terminal, and the answer's frame then waited for Textual's next tick); now it wakes
    nothing, a shown widget's update still does, and the tab shows the new text once
    shown."""
    from textual.app import App
    from textual.widgets import Static, TabbedContent, TabPane

    from agexplorer.tui import textual_render

    textual_render.install_hidden_refresh()

    class Tabs(App):
        def compose(self):
            with TabbedContent(id="tabs"):
                with TabPane("one", id="one"):
                    yield Static("shown", id="shown")
                with TabPane("two", id="two"):
                    yield Static("hidden", id="hidden")

    app = Tabs()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        woken: list[set] = []
        screen = app.screen
        timer = screen._update_timer
        resume = timer.resume

        def counted():
            woken.append({w.id for w in screen._dirty_widgets})
            resume()

        timer.resume = counted
        app.query_one("#hidden", Static).update("hidden, told of the answer", layout=False)
        await pilot.pause(0.1)
        assert woken == []
        app.query_one("#shown", Static).update("shown, told too", layout=False)
        await pilot.pause(0.1)
        assert woken == [{"shown"}]
        app.query_one("#tabs", TabbedContent).active = "two"
        await pilot.pause()
        assert "hidden, told of the answer" in str(app.query_one("#hidden", Static).render())


async def test_draw_soon_draws_the_next_frame_when_the_screen_is_idle_not_at_a_tick():
    """With Textual's ticks held back (as between two ticks of its 60 fps grid), an update
    waits; after ``draw_soon`` the next one is drawn as soon as the screen is idle."""
    import asyncio
    from types import SimpleNamespace

    from textual.app import App
    from textual.widgets import Static

    from agexplorer.tui import textual_render

    textual_render.install_soon_frames()

    class One(App):
        def compose(self):
            yield Static("first", id="label")

    app = One()
    async with app.run_test(size=(40, 5)) as pilot:
        await pilot.pause()
        screen, label = app.screen, app.query_one("#label", Static)
        drawn: list[str] = []
        display = app._display

        def kept(screen_, update):
            if update is not None:
                drawn.append(str(label.render()))
            return display(screen_, update)

        app._display = kept
        screen._update_timer.pause()  # and never resumed: the ticks stop
        screen._Screen__update_timer = SimpleNamespace(resume=lambda: None, pause=lambda: None)
        label.update("second")
        await asyncio.sleep(0.1)  # (not pilot.pause(): it draws a frame itself)
        assert drawn == []  # the tick it waits for never comes
        textual_render.draw_soon(screen)
        label.update("third")
        await asyncio.sleep(0.1)
        assert drawn == ["third"]
        label.update("fourth")  # once: the next waits for a tick again
        await asyncio.sleep(0.1)
        assert drawn == ["third"]


async def test_a_code_panes_moved_lines_are_drawn_once_and_as_textual_draws_them(monkeypatch):
    """A converted text that gained a line at the top: Textual drew every line again; the
    pane draws only the new line and the cursor's, and the others, their drawing reused with
    their new numbers, are what a fresh pane draws, segment for segment (a selected line is
    drawn as Textual draws it too)."""
    from textual.app import App
    from textual.geometry import Region
    from textual.widgets import TextArea

    from agexplorer.tui.code.converted_pane import ConvertedPane

    code = "".join(f"def tf__f{i}(x):\n    return ag__.ld(x) + {i}  # {'a' * i}\n"
                   for i in range(25))

    class Panes(App):
        def compose(self):
            yield ConvertedPane(id="old")
            yield ConvertedPane(id="fresh")

    app = Panes()
    async with app.run_test(size=(100, 80)) as pilot:
        old, fresh = app.query_one("#old", ConvertedPane), app.query_one("#fresh", ConvertedPane)
        app.set_focus(None)  # (a focused pane's border differs)
        old.show_code(code)
        await pilot.pause()
        crop = Region(0, 0, old.size.width, 35)
        old.render_lines(crop)
        drawn: list[int] = []
        draw = TextArea._render_line

        def counted(self, y):
            if self is old:
                drawn.append(y)
            return draw(self, y)

        monkeypatch.setattr(TextArea, "_render_line", counted)
        moved = "# a new first line\n" + code
        old.show_code(moved)
        fresh.show_code(moved)
        # (an edit keeps the cursor on its text, a line down; a new document puts it at 0, 0)
        assert old.cursor_location == (1, 0) and fresh.cursor_location == (0, 0)
        fresh.selection = old.selection
        await pilot.pause()
        assert old.size == fresh.size and old.virtual_size == fresh.virtual_size

        def lines(pane):
            pane._line_cache.clear()
            pane._styles_cache.clear()
            return [list(strip) for strip in pane.render_lines(crop)]

        drawn.clear()
        ours = lines(old)
        assert drawn == [1]  # the cursor's (the new line's drawing, from the frame before: reused)
        assert ours == lines(fresh)
        for pane in (old, fresh):
            pane.selection = ((4, 2), (6, 5))
        drawn.clear()
        ours = lines(old)
        assert {1, 4, 5, 6} <= set(drawn) and len(drawn) == 4  # the cursor was on 1
        assert ours == lines(fresh)


async def test_a_frame_works_each_widgets_style_out_once_and_draws_the_same(monkeypatch):
    """Textual works a widget's style out from all its ancestors each time it is asked (the
    verdict table asks once per line and per row kind): within a frame each node's is worked
    out once, and the frame written to the terminal is the same, byte for byte."""
    from textual.app import App
    from textual.containers import Vertical
    from textual.widgets import DataTable

    from agexplorer.tui import textual_render

    textual_render.install_frame_styles()

    class Table(App):
        CSS = "Vertical { background: $panel; } DataTable { height: 20; }"

        def compose(self):
            with Vertical(), Vertical():
                yield DataTable(id="table")

        def on_mount(self):
            table = self.query_one(DataTable)
            table.add_columns("line", "statement", "verdict")
            for n in range(15):
                table.add_row(str(n), f"for i in range({n}):", "staged")

    app = Table()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        worked: list = []
        work_out = textual_render.TEXTUALS["DOMNode.rich_style"]

        def counted(node):
            worked.append(node)
            return work_out(node)

        monkeypatch.setitem(textual_render.TEXTUALS, "DOMNode.rich_style", counted)

        def drawn_afresh(render_update):
            table = app.query_one(DataTable)
            for cache in ("_line_cache", "_row_render_cache", "_cell_render_cache"):
                getattr(table, cache).clear()
            for widget in app.screen.walk_children(with_self=True):
                widget._styles_cache.clear()
            return render_update(compositor, full=True).render_segments(app.console)

        ours = drawn_afresh(type(compositor).render_update)
        assert worked and len(worked) == len(set(worked))  # each node once
        once = len(worked)
        worked.clear()
        theirs = drawn_afresh(textual_render.TEXTUALS["Compositor.render_update"])
        assert ours == theirs
        assert len(worked) > 2 * once  # Textual's own: the table's again for every line
