"""Issue 21: tab switching and key bursts cost nothing that stays.

Pilot against the module's real worker. Textual's footer kept every key widget it had ever
composed (two recomposes a focus change, ~25 keys each: 1.2 MB a switch, never freed); a burst
of tab keys switched tabs once per key, and Textual's late focus messages could leave an older
tab on screen with the focus in a hidden one. Structural checks only: nothing here is timed.
"""

from __future__ import annotations

import gc

import pytest
from textual import events
from textual.widget import Widget
from textual.widgets import TabPane
from textual.widgets._footer import FooterKey

from agexplorer.tui.keys import TABS
from conftest import explorer, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow

SIZE = (160, 45)
DIGITS = [str(n) for n in range(1, len(TABS) + 1)]


def alive(cls: type) -> int:
    """Objects of ``cls`` alive after a full collection (what nothing can reach is gone)."""
    gc.collect()
    return sum(isinstance(obj, cls) for obj in gc.get_objects())


def shows(app, digit: str) -> bool:
    """Is the tab of ``digit`` open, with the focus in it?"""
    tab = TABS[int(digit) - 1][0]
    panels, focused = app.panes.panels, app.focused
    return (panels.active == tab and focused is not None
            and panels.get_pane(tab) in focused.ancestors_with_self)


def footer(app) -> list[str]:
    return [key.key for key in app.screen.query(FooterKey)]


async def switch(app, pilot, digits: list[str]) -> None:
    """Press each tab key, one after the other, each once the last one's tab is shown and
    a frame has passed (the footer recomposes after a refresh). Keys go in as the terminal
    driver posts them: ``pilot.press`` also waits out the tab underline's 0.3 s slide."""
    for digit in digits:
        app.post_message(events.Key(digit, digit))
        for _ in range(200):
            await pilot.pause(0.02)
            if shows(app, digit):
                break
        assert shows(app, digit), (digit, app.panes.panels.active, app.focused)


async def test_switching_tabs_dozens_of_times_leaves_no_widget_behind(flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.query_one("#picker").focus()
        await switch(app, pilot, DIGITS * 2 + ["1"])  # every tab made and shown once
        await pilot.pause()
        keys, widgets = alive(FooterKey), alive(Widget)
        shown = footer(app)
        # 28 switches, back on the same tab. Textual's footer kept about 50 more key widgets
        # at each switch: 1,400 here against the 5 allowed (the leak this guards against
        # shows at the first switches; 226 took 40 s of the suite for nothing more).
        await switch(app, pilot, DIGITS * 3 + ["1"])
        await pilot.pause()
        # The same tab shows the same footer, and no more widgets are alive than before.
        assert await wait_for(pilot, lambda: footer(app) == shown, 10), footer(app)
        assert alive(FooterKey) <= keys, (keys, alive(FooterKey))
        assert alive(Widget) <= widgets + 5, (widgets, alive(Widget))
        # The footer still follows the focus: the Doctor tab's x, the Passes tab's [ and ].
        await switch(app, pilot, ["3"])
        assert await wait_for(pilot, lambda: "x" in footer(app), 10), footer(app)
        await switch(app, pilot, ["8"])
        assert await wait_for(pilot, lambda: "right_square_bracket" in footer(app)
                              and "x" not in footer(app), 10), footer(app)


async def test_a_burst_of_500_tab_keys_ends_on_the_last_one_and_the_explorer_answers(
        flow_file, worker):
    app = explorer(flow_file, worker, "python_for")
    async with app.run_test(size=SIZE) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.query_one("#picker").focus()
        await switch(app, pilot, DIGITS)
        burst = [DIGITS[k % len(DIGITS)] for k in range(500)]  # ends on 5, the Run tab
        for digit in burst:  # all at once, as the terminal driver posts a held key
            app.post_message(events.Key(digit, digit))
        assert await wait_for(pilot, lambda: shows(app, burst[-1]), 30)
        await pilot.pause()
        # Nothing to wait for but the absence of a late message: any focus message left
        # over from the burst has arrived by now.
        await pilot.pause(0.5)
        # The last key's tab stays shown, its widget focused (a late focus message from an
        # earlier key showed an older tab, with the focus hidden in the newer one).
        assert shows(app, burst[-1]), (app.panes.panels.active, app.focused)
        assert await wait_for(pilot, lambda: footer(app)[:1] == ["f1"], 10), footer(app)
        # Such a late message, from a pane the focus has left, changes nothing.
        stale = app.panes.panels.get_pane(TABS[0][0])
        stale.post_message(TabPane.Focused(stale))
        await pilot.pause()
        await pilot.pause()
        assert shows(app, burst[-1]), (app.panes.panels.active, app.focused)
        # The explorer answers the next key at once.
        await switch(app, pilot, ["3"])
        assert await wait_for(pilot, lambda: "x" in footer(app), 10), footer(app)
