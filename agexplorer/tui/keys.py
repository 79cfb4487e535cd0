"""The explorer's keys: every binding, the palette's plain names, and the actions they run."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, Any

from textual.binding import Binding, BindingType

from agexplorer.tui.guards import while_mounted
from agexplorer.tui.layout import BINDINGS as LAYOUT_BINDINGS
from agexplorer.tui.parts import ExplorerApp

if TYPE_CHECKING:
    from agexplorer.tui.code.find import Finder
    from agexplorer.tui.sweep.view import SweepView
    from agexplorer.tui.tour.tour import Tour

# The tabs (digits 1-9) and the panes (alt+digits), in screen order.
TABS: tuple[tuple[str, str], ...] = (
    ("tab-flow", "Control flow"), ("tab-calls", "Calls"), ("tab-doctor", "Doctor"),
    ("tab-graph", "Graph"), ("tab-run", "Run"), ("tab-trace", "Trace"), ("tab-log", "Log"),
    ("tab-passes", "Passes"), ("tab-hlo", "HLO"))
PANES: tuple[tuple[str, str], ...] = (
    ("picker", "the function list"), ("source", "the source (editor)"),
    ("converted", "AutoGraph's code"), ("panels", "the open tab"))

_TAB_GROUP = Binding.Group("Tabs", compact=True)
_PANE_GROUP = Binding.Group("Panes", compact=True)

# The footer shows them in this order (cut at the right on a narrow screen): the most useful
# first, those on only in some contexts (Leave, the find's n/N) where they are seen, Quit last.
# The layout's keys (layout.py) are placed here too: LayoutApp leaves the order to this list.
BINDINGS: list[BindingType] = [
    Binding("f1", "help", "Keys"),
    Binding("question_mark", "help", "Keys", show=False),
    Binding("escape", "leave", "Leave"),
    # While the tour is open (tui/tour): its sections from any pane (the arrows only in its
    # panel), as F3/shift+F3 step a find (F6 and F7 are the editor's); Esc goes back to it.
    Binding("f8", "tour_step(1)", "Next section"),
    Binding("shift+f8", "tour_step(-1)", "Prev section", show=False),
    # n/N step through a find's matches while its pane has the focus; else n is the next function.
    Binding("n", "find_next", "Next match"),
    Binding("N", "find_previous", "Prev match"),
    Binding("f3", "find_step(1)", "Next match", show=False),
    Binding("shift+f3", "find_step(-1)", "Prev match", show=False),
    LAYOUT_BINDINGS[0],  # ctrl+b: the function list
    Binding("f5", "run", "Run"),
    Binding("r", "run", "Run", show=False),
    Binding("t", "trace", "Trace"),
    Binding("f", "try_fix", "Try fix"),
    Binding("alt+down", "next_function", "Next fn"),
    Binding("alt+up", "previous_function", "Prev fn", show=False),
    Binding("n", "next_function", "Next fn", show=False),
    Binding("p", "previous_function", "Prev fn", show=False),
    Binding("ctrl+s", "save", "Save"),
    Binding("ctrl+f", "find", "Find"),
    Binding("a", "apply_fix", "Apply fix"),
    # ctrl+z outside the editor undoes the Doctor's last Apply (in the editor it undoes any
    # edit; a read-only editor passes the key on to this one).
    Binding("ctrl+z", "undo_apply", "Undo Apply", show=False),
    Binding("c", "compare", "Compare", show=False),
    Binding("u", "cost_curve", "Cost curve", show=False),
    *LAYOUT_BINDINGS[1:],  # zoom, presentation mode
    *(Binding(str(i), f"show_tab('{tab}')", name, group=_TAB_GROUP)
      for i, (tab, name) in enumerate(TABS, 1)),
    # alt+digits work everywhere (the editor and inputs included): a way out of any pane.
    *(Binding(f"alt+{i}", f"focus_pane('{pane}')", f"Focus {name}", group=_PANE_GROUP,
              priority=True) for i, (pane, name) in enumerate(PANES, 1)),
    Binding("ctrl+t", "double_timeout", "Timeout x2", show=False),
    Binding("f9", "save_svg", "Save SVG", show=False),
    Binding("q", "quit_app", "Quit", show=False),
    Binding("ctrl+q", "quit_app", "Quit", priority=True),
]

# The command palette: every action under a plain name (bindings added without an entry
# here get one named by their description: see commands.entries).
COMMANDS: list[tuple[str, str]] = [
    ("Run eager, graph and XLA", "run"),
    ("Trace: explain which calls retrace, and why", "trace"),
    ("Try the selected finding's fix on a copy", "try_fix"),
    ("Apply the tried fix to the buffer", "apply_fix"),
    ("Undo the last Apply of a fix", "undo_apply"),
    ("Compare with...: the file on disk, before the fix or another function", "compare"),
    ("Compare with the file on disk", "compare_disk"),
    ("Compare with another function...", "compare_function"),
    ("Compare with before the fix", "compare_before_fix"),
    ("Show the unroll cost curve of the selected loop", "cost_curve"),
    ("Save the file", "save"),
    ("Open the next function", "next_function"),
    ("Open the previous function", "previous_function"),
    ("Find in the focused pane", "find"),
    ("Show the keys of the focused pane (help)", "help"),
    *((f"Show the {name} tab", f"show_tab('{tab}')") for tab, name in TABS),
    *((f"Focus {name}", f"focus_pane('{pane}')") for pane, name in PANES),
    ("Calls: the functions this trace reached, with their verdicts", "focus('calls-tree')"),
    ("Toggle colour-blind-safe line colours", "toggle_palette"),
    ("Double the worker's timeout", "double_timeout"),
    ("Save an SVG of the screen", "save_svg"),
    ("Quit", "quit_app"),
    ("Program view: the recorded run's traced functions", "push_screen('program')"),
]

# Actions whose only keys are printable: off (and out of the footer) while typing.
_TYPED = {"trace", "try_fix", "apply_fix", "show_tab", "compare", "cost_curve"}


def typing_in(widget: Any) -> bool:
    """Does ``widget`` turn printable keys into text (an input, the editor)?"""
    # Imported here: the first frame (the function list, asked for its footer) has neither,
    # and loading them there cost its paint ~10 ms.
    from textual.widgets import Input, TextArea

    return isinstance(widget, Input) or (isinstance(widget, TextArea) and not widget.read_only)


class KeyActions(ExplorerApp):
    """The app's key actions (mixed into AgxApp, whose parts do the work)."""

    @cached_property
    def finder(self) -> Finder:
        """Find in a pane (ctrl+f): the find bar and its matches (made when first asked:
        the first frame does without it)."""
        from agexplorer.tui.code.find import Finder

        return Finder(self)

    @cached_property
    def sweeps(self) -> SweepView:
        """The Control flow tab's unroll cost curve (u)."""
        from agexplorer.tui.sweep.view import SweepView

        return SweepView(self)

    def _finding(self) -> bool:
        """Is the find bar open? (False before it was ever made.)"""
        return "finder" in self.__dict__ and self.finder.is_open

    def _sweep_shown(self) -> bool:
        """Is the cost curve on screen? (False before it was ever made.)"""
        return "sweeps" in self.__dict__ and self.sweeps.shown

    def _tour(self) -> Tour | None:
        """The lesson tour, when open."""
        from agexplorer.tui.tour.tour import open_tour

        return open_tour(self)

    def _away_from_tour(self) -> bool:
        """The tour is open and the focus is elsewhere (Esc leads back to it)."""
        tour = self._tour()
        return tour is not None and tour.panel is not None and not (
            self.focused is not None and tour.panel in (self.focused, *self.focused.ancestors))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Keys that would type text are off while typing; find keys only while finding;
        the pane keys only on the explorer's own screen."""
        typing = typing_in(self.focused)
        if action in _TYPED:
            return not typing
        if action in ("find_next", "find_previous"):
            return self._finding() and self.finder.can_step(self.focused)
        if action == "find_step":  # F3 / shift+F3: anywhere while the find bar is open
            return self._finding()
        if action == "leave":
            return typing or self._finding() or self._sweep_shown() or self._away_from_tour()
        if action == "tour_step":
            return self._tour() is not None
        if action == "focus_pane":
            return self.screen is self.screen_stack[0]
        return True

    def action_save_svg(self) -> None:
        """The screen as ``<function>.svg``, for slides (tui/svg.py)."""
        from agexplorer.tui.svg import save_svg

        save_svg(self)

    def _when_ready(self, method: Callable[..., Any], *args: Any) -> None:
        """Run now, or once the first function is open (keys pressed during start-up)."""
        if self.workspace_ready and self.state.target is not None:
            method(*args)
        else:  # typed before the workspace (or the worker) was there: kept, in order
            self.__dict__.setdefault("pending_keys", []).append((method, args))

    def replay_keys(self) -> None:
        """The first function is open: the keys pressed before it, in order."""
        for method, args in self.__dict__.pop("pending_keys", []):
            method(*args)

    # -- the actions -------------------------------------------------------------------
    def action_run(self) -> None:
        self._when_ready(self._run)

    @while_mounted
    def _run(self) -> None:
        self.panes.panels.active = "tab-run"
        self.analyse(run=True)

    def action_trace(self) -> None:
        self._when_ready(self._trace)

    @while_mounted
    def _trace(self) -> None:
        self.panes.panels.active = "tab-trace"
        self.trace_tab.request_explain()

    def action_try_fix(self) -> None:
        self._when_ready(self._try_fix)

    @while_mounted
    def _try_fix(self) -> None:
        self.panes.panels.active = "tab-doctor"
        self.doctor_tab.request_try()

    @while_mounted
    def action_apply_fix(self) -> None:
        if self.workspace_ready:
            self.doctor_tab.apply_tried()

    @while_mounted
    def action_undo_apply(self) -> None:
        if self.workspace_ready:
            # The edits restored from a recovery copy, while they are the newest edit (the
            # status line said "ctrl+z drops them", wherever the focus was); else the
            # Doctor's last Apply.
            dropped = self.safety.drop_restored()
            if dropped is not None:
                self.announce(dropped, error=False)
                return
            self.doctor_tab.undo_apply()

    @while_mounted
    def action_save(self) -> None:
        if self.workspace_ready:
            self.editing.save()

    def action_double_timeout(self) -> None:
        """Give the function twice as long before the worker gives up on it."""
        before = self.bridge.worker.timeout
        timeout = self.bridge.double_timeout()
        if timeout == before:
            self.announce(f"the timeout is at its limit, {timeout:g} s", error=False)
            return
        self.announce(f"timeout doubled: the worker now gives a request {timeout:g} s "
                      "(ctrl+t doubles it again)", error=False)

    def action_next_function(self) -> None:
        self._when_ready(self.navigation.step, 1)

    def action_previous_function(self) -> None:
        self._when_ready(self.navigation.step, -1)

    def action_show_tab(self, tab: str) -> None:
        self._when_ready(self._show_tab, tab)

    def _show_tab(self, tab: str) -> None:
        """Note the tab to show; one switch, after the keys already queued, shows the last one
        noted: a burst of digits (held, or typed faster than the frames) costs one switch,
        not one each (500 keys took 3 s, and Textual's focus messages could leave an older
        tab on screen)."""
        if self.__dict__.get("tab_wanted") is None and not self.call_later(self._switch_tab):
            return  # the app is closing
        self.__dict__["tab_wanted"] = tab

    @while_mounted
    def _switch_tab(self) -> None:
        """Show the tab last asked for and focus what it shows (not an input: the next digit
        would type in it), so that Tab goes on from there instead of into the editor. Pressed
        again in its tab, the key goes into the tab's box (the Run tab's call, the Trace
        tab's calls, the Graph tab's filter): from there every key types, Esc leaves."""
        tab = self.__dict__.pop("tab_wanted", None)
        if tab is None:
            return
        panels = self.panes.panels
        pane = panels.get_pane(tab)
        focused = self.focused
        again = panels.active == tab and focused is not None and pane in focused.ancestors
        panels.active = tab
        box = next((w for w in pane.query("*") if w.focusable and typing_in(w)), None)
        report = self.state.report
        if (tab == "tab-run" and report is not None and report.error is not None
                and report.error.kind == "needs-arguments" and not self.call_input.value):
            # The function waits for its arguments: the call box is where the next keys go
            # (the status line said "type them in the Run tab"); Esc leaves it.
            box = self.call_input
        elif not again:
            box = None
        if box is not None:
            box.focus()
            return
        target = next((w for w in pane.query("*") if w.focusable and not typing_in(w)), None)
        (target or panels).focus()

    def action_focus_pane(self, pane: str) -> None:
        self._when_ready(self._focus_pane, pane)

    @while_mounted
    def _focus_pane(self, pane: str) -> None:
        if pane == "picker":
            self.query_one("#picker").focus()
        elif pane == "panels":  # the open tab's first focusable widget
            panels = self.panes.panels
            active = panels.get_pane(panels.active) if panels.active else None
            target = next((w for w in (active.query("*") if active else ())
                           if w.focusable), None)
            (target or panels).focus()
        else:
            if pane in ("source", "converted"):  # at 80x24 only one shows: this one, now
                self.screen_stack[0].set_class(pane == "converted", "-show-converted")
            getattr(self.panes, pane).focus()

    def back_to_tour(self) -> bool:
        """Focus the lesson tour's panel when it is open (Esc from any pane); False if not."""
        from agexplorer.tui.tour.tour import back_to_tour

        return back_to_tour(self)

    def action_tour_step(self, delta: int) -> None:
        """F8/shift+F8: the tour's next or previous section, from any pane."""
        tour = self._tour()
        if tour is not None:
            tour.go(tour.index + delta)

    def action_leave(self) -> None:
        """Esc: back to the tour when it is open, out of an input (to the next pane), or
        the find bar or the cost curve closes."""
        if self._away_from_tour() and not self._finding() and not self._sweep_shown():
            self.back_to_tour()
        elif typing_in(self.focused):
            self.screen.focus_next()
        elif self._finding():
            self.finder.close()
        elif self._sweep_shown():
            self.sweeps.hide()

    def action_cost_curve(self) -> None:
        """The selected loop's unroll cost curve under the Control flow table, or hide it."""
        self._when_ready(self.sweeps.toggle)

    def action_find(self) -> None:
        if self.workspace_ready:
            self.finder.open(self.focused)

    def action_find_next(self) -> None:
        self.finder.step(1)

    def action_find_previous(self) -> None:
        self.finder.step(-1)

    def action_find_step(self, step: int) -> None:
        self.finder.step(step)

    def action_help(self) -> None:
        """The help screen: every binding of the focused context."""
        from agexplorer.tui.dialogs.help import HelpScreen, context_bindings

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(context_bindings(self)))

    def action_quit_app(self) -> None:
        """Quit, asking first when the buffer has unsaved edits (save, discard or stay)."""
        if not self.workspace_ready or not self.source.dirty:
            self.exit()  # nothing to lose
            return
        from agexplorer.tui.dialogs.confirm_quit import ConfirmQuit

        source = self.source

        def decided(choice: str | None) -> None:
            if choice == "save":
                self.action_save()
                if not source.dirty:
                    self.exit()
            elif choice == "discard":
                self.safety.discard(source.path)
                self.exit()

        self.push_screen(ConfirmQuit(source.path or "the buffer"), decided)
