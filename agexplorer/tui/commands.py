"""Command palette entries: every explorer action under a plain name, with its keys."""

from __future__ import annotations

import ast
from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from textual.binding import Binding
from textual.command import Hit, Hits, Provider

from agexplorer.tui.keys import COMMANDS


def _action_call(app: Any, action: str) -> Callable[[], Any]:
    """The action's method, called straight (not through the bindings' check: a key that
    is off while typing, "t" in the editor, is still a command in the palette)."""
    name, _, rest = action.partition("(")
    args = ast.literal_eval(f"({rest[:-1]},)") if rest else ()
    return partial(getattr(app, f"action_{name}"), *args)


def _keys(app: Any) -> dict[str, list[str]]:
    """Each action's keys, from every BINDINGS of the app's classes (keys.py, layout.py)."""
    found: dict[str, list[str]] = {}
    for cls in reversed(type(app).__mro__):
        for binding in cls.__dict__.get("BINDINGS", []):
            if isinstance(binding, Binding):
                for key in binding.key.split(","):
                    found.setdefault(binding.action, []).append(
                        key.replace("question_mark", "?"))
    return found


def entries(app: Any) -> list[tuple[str, str]]:
    """COMMANDS, then a plain entry for any other described binding of the app."""
    named = {action for _, action in COMMANDS}
    extra: dict[str, str] = {}
    for cls in reversed(type(app).__mro__):
        for binding in cls.__dict__.get("BINDINGS", []):
            if (isinstance(binding, Binding) and binding.description and not binding.system
                    and binding.action not in named):
                extra.setdefault(binding.action, binding.description)
    return COMMANDS + [(description, action) for action, description in extra.items()]


class ExplorerCommands(Provider):
    """Run, trace, try and apply a fix, save, the functions, the tabs and panes, find, keys,
    the line colours, the timeout, quit (and the program view of a recorded run)."""

    COMMANDS: ClassVar[list[tuple[str, str]]] = COMMANDS

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        app = self.app
        keys = _keys(app)
        for name, action in entries(app):
            if action.startswith("push_screen") and not (
                    app.is_screen_installed("program") and self.screen is app.screen_stack[0]):
                continue  # for `agexplorer LOG`, from the explorer's own screen
            score = matcher.match(name)
            if score > 0:
                shown = " / ".join(dict.fromkeys(keys.get(action, [])))
                yield Hit(score, matcher.highlight(name),
                          # after the palette has gone: a focus lands on the explorer's screen
                          partial(app.call_after_refresh, _action_call(app, action)),
                          help=f"keys: {shown}" if shown else None)
