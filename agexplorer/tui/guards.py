"""Handlers that may run while the widgets they touch are not there (yet, or any more)."""

from __future__ import annotations

import functools
from typing import Any

from textual.app import App
from textual.css.query import NoMatches


def while_mounted(method: Any) -> Any:
    """Skip a handler whose widgets are not mounted: before the workspace mounts (just
    after the first frame) or while the app is being torn down (timers and worker answers
    racing the exit; ``#main`` is the first widget the app composes). ``self`` is the app,
    or a part of it that holds it as ``self.app``."""

    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except NoMatches:
            app: Any = self if isinstance(self, App) else self.app
            tearing_down = not app.is_running or app.exiting or not app.query("#main")
            if app.workspace_ready and not tearing_down:
                raise
            return None

    return guarded
