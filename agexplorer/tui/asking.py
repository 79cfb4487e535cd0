"""AsksWhenShown: a tab that asks the worker for its content only while it is on screen."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from agexplorer.tui.state import AnalysisStarted, CallChanged, TargetChanged

if TYPE_CHECKING:
    from textual.timer import Timer

    from agexplorer.tui.desk import Desk
    from agexplorer.tui.messages import EngineAnswer
    from agexplorer.worker.protocol import Request

TYPING_PAUSE = 0.5  # seconds a call being typed in the Run tab rests before it is asked for


class AsksWhenShown:
    """Mixed into a tab widget (the Passes and HLO tabs): when the tab is shown, and while it
    is, it asks again when the function, the buffer's analysis or (with ``WITH_CALL``) the
    Run tab's call changed since it last asked, as the explorer's state tells it
    (:class:`~agexplorer.tui.state.ExplorerState`, on its ``desk``). A subclass sets
    ``desk`` in its constructor, gives the request
    (:meth:`request_for`), shows the wait (:meth:`waiting`) and calls
    :meth:`start_following` from its ``on_mount``. A hidden tab asks nothing: switching
    tabs costs it one check when shown."""

    WITH_CALL: ClassVar[bool] = False
    desk: Desk
    asked: tuple[Any, ...] | None = None  # (target, generation, call) last asked for
    _typing: Timer | None = None  # a call being typed is asked for once the keys rest

    def request_for(self, asked: Any) -> tuple[Request, str]:
        """The request for the buffer ``asked`` (desk.buffer_request()), and what it does."""
        raise NotImplementedError

    def waiting(self, text: str) -> None:
        """Say that the answer is on its way."""
        raise NotImplementedError

    def start_following(self) -> None:
        self.desk.state.subscribe(self)

    def on_show(self) -> None:
        self.shown()

    def shown(self) -> None:
        """The tab is on screen: ask if what it shows changed since it last asked. Called on
        Show, and by the workspace after its TabPane is activated (Show alone can go
        missing: see ``Workspace.on_tabbed_content_tab_activated``)."""
        self._follow()

    # Told inside the change: the tab asks once the app's own request is sent (the worker
    # answers in order: the report first).
    def on_target_changed(self, _: TargetChanged) -> None:
        self.call_later(self._follow)  # type: ignore[attr-defined]

    def on_analysis_started(self, _: AnalysisStarted) -> None:
        self.call_later(self._follow)  # type: ignore[attr-defined]

    def on_call_changed(self, _: CallChanged) -> None:
        if not self.WITH_CALL:
            return
        if self._typing is not None:
            self._typing.stop()
        self._typing = self.set_timer(TYPING_PAUSE, self._follow)  # type: ignore[attr-defined]

    def _follow(self) -> None:
        desk = self.desk
        if not self._displayed() or desk.state.target is None:
            return
        asked = desk.buffer_request()
        if asked is None:
            return
        key = (desk.state.target, desk.state.generation, asked.call if self.WITH_CALL else None)
        if self.asked == key:
            return
        self.asked = key
        request, what = self.request_for(asked)
        self.waiting(what + "…")
        desk.bridge.ask(asked.key, request, asked.key.path, what, self.answer)

    def _displayed(self) -> bool:
        """Whether the tab is shown: it and every container above it displayed (a tab
        switcher hides the others with ``display``). Read from the widgets, not the
        compositor's map: right after a switch, before the next reflow, the map still says
        the tab is hidden, and a tab told then would never ask."""
        from textual.widget import Widget

        node: Any = self
        if not node.is_attached:
            return False
        return all(widget.display for widget in node.ancestors_with_self
                   if isinstance(widget, Widget))

    def answer(self, message: EngineAnswer) -> None:
        """The worker's answer to :meth:`request_for`'s request."""
        raise NotImplementedError

    def is_current(self, message: EngineAnswer) -> bool:
        """Whether ``message`` answers what was asked last (not an older buffer's)."""
        return self.asked is not None and message.key.generation == self.asked[1]
