"""AsksWhenShown: a tab that asks the worker for its content only while it is on screen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from textual.timer import Timer

    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.messages import EngineAnswer
    from agexplorer.worker.protocol import Request


class AsksWhenShown:
    """Mixed into a tab widget (the Passes and HLO tabs): when the tab is shown, and every
    half second while it is, it asks again if the function, the buffer's analysis or (with
    ``WITH_CALL``) the Run tab's call changed since it last asked. A subclass gives the
    request (:meth:`request_for`), shows the wait (:meth:`waiting`) and calls
    :meth:`start_following` from its ``on_mount``. While the tab is hidden its timer rests:
    switching tabs costs it one check when shown, nothing else."""

    WITH_CALL: ClassVar[bool] = False
    asked: tuple[Any, ...] | None = None  # (target, generation, call) last asked for
    following: Timer | None = None  # the half-second check, paused while the tab is hidden

    @property
    def explorer(self) -> AgxApp:
        """The app, typed (its bridge, its current function and its status line)."""
        return self.app  # type: ignore[attr-defined]

    def request_for(self, asked: Any) -> tuple[Request, str]:
        """The request for the buffer ``asked`` (app.buffer_request()), and what it does."""
        raise NotImplementedError

    def waiting(self, text: str) -> None:
        """Say that the answer is on its way."""
        raise NotImplementedError

    def start_following(self) -> None:
        self.following = self.set_interval(  # type: ignore[attr-defined]
            0.5, self._follow, pause=not self.is_on_screen)  # type: ignore[attr-defined]

    def on_show(self) -> None:
        if self.following is not None:
            self.following.resume()
        self._follow()

    def on_hide(self) -> None:
        if self.following is not None:
            self.following.pause()

    def _follow(self) -> None:
        app = self.explorer
        if not self.is_on_screen or app.target is None:  # type: ignore[attr-defined]
            return
        asked = app.buffer_request()
        if asked is None:
            return
        key = (app.target, app.generation, asked.call if self.WITH_CALL else None)
        if self.asked == key:
            return
        self.asked = key
        request, what = self.request_for(asked)
        self.waiting(what + "…")
        app.bridge.ask(asked.key, request, asked.key.path, what)

    def is_current(self, message: EngineAnswer) -> bool:
        """Whether ``message`` answers what was asked last (not an older buffer's)."""
        return self.asked is not None and message.key.generation == self.asked[1]
