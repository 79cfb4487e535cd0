"""Save what the explorer shows as an SVG (for slides): the file, and when a screen is finished.

In a terminal F9 writes ``<function>.svg`` in the current folder; in a browser (a session
`agexplorer serve` started) the SVG is a download of that browser, and nothing is written on
the server.
"""

from __future__ import annotations

import io
import os
import re
from typing import Any

from agexplorer.state.session import served, state_dir


def svg_folder() -> str:
    """The current folder when it is writable, else ``$XDG_STATE_HOME/agexplorer/svg``."""
    here = os.getcwd()
    if os.access(here, os.W_OK):
        return here
    return state_dir("svg")


def svg_name(app: Any) -> str:
    """``<function>.svg`` for the open function (``agexplorer.svg`` before one is open)."""
    state = getattr(app, "state", None)  # the explorer's (another app has none)
    report = getattr(state, "report", None)
    target = getattr(state, "target", None)
    name = report.function if report is not None else target[1] if target else "agexplorer"
    return re.sub(r"[^\w.-]", "_", name or "agexplorer") + ".svg"


def save_svg(app: Any) -> str | None:
    """Write the screen as ``<function>.svg`` and say where in the status line; the path, or
    None when it could not be written (said in the status line, in one sentence). A served
    explorer sends it to the browser instead; it returns the name."""
    session = served()
    if session is not None:
        name = svg_name(app)
        app.deliver_text(io.StringIO(app.export_screenshot()), save_directory=session.downloads,
                         save_filename=name, mime_type="image/svg+xml")
        app.announce(f"sent an SVG of the screen to your browser: {name}", error=False)
        return name
    folder = svg_folder()
    try:
        os.makedirs(folder, exist_ok=True)
        path = app.save_screenshot(svg_name(app), folder)
    except OSError as exc:
        app.announce(f"could not save the SVG in {folder}: {exc.strerror or exc}.")
        return None
    # announced: a request under way (the doctor's) ends with "ready", which must not hide it
    app.announce(f"saved an SVG of the screen: {path}", error=False)
    return path


def analysis_shown(app: Any, function: str) -> bool:
    """Has the explorer finished showing ``function``: its analysis (or its failure) on
    screen and no request to the worker under way?"""
    if any(w.group.startswith("engine") and not w.is_finished for w in app.workers):
        return False
    if app.status_line.has_class("error") and app.engine_ready:
        return True
    report = app.state.report
    return bool(app.workspace_ready and report is not None and report.function == function)
