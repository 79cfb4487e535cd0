"""How the explorer opened: made before the first frame (agexplorer/cli/explorer.py), so
apart from the tour (tour.py, imported when the explorer opens its first function)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agexplorer.tui.parts import ExplorerApp


@dataclass
class Opening:
    """How the explorer opened (the app's first-open hook, as a recorded run's program view
    is): the first function, the scratch-copy note, the tour when asked for."""

    scratch: bool = False
    tour: bool = False

    def open(self, app: ExplorerApp) -> None:
        """Open the first function as the explorer always does, then say it is a scratch
        copy, then open the tour."""
        from agexplorer.state.scratch import NOTE
        from agexplorer.tui.functions.picker import FunctionPicker
        from agexplorer.tui.tour.tour import SCRATCH_MARK, TourCommands, start_tour

        app.COMMANDS = app.COMMANDS | {TourCommands}  # type: ignore[misc]  # this app's only
        app.program = None  # handed over: the explorer opens its first function as always
        app.open_first()
        if self.scratch:  # said now, and kept under the function list
            app.announce(NOTE, error=False)
            app.query_one(FunctionPicker).border_subtitle = SCRATCH_MARK
            app.title = f"agexplorer: {SCRATCH_MARK}"
        if self.tour:
            start_tour(app)
