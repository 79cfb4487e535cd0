"""Desk: what the explorer's tabs ask through and tell with, instead of the app."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agexplorer.tui.bridge import EngineBridge
    from agexplorer.tui.code.linking import Linking
    from agexplorer.tui.code.made import Provenance
    from agexplorer.tui.code.source_pane import SourcePane
    from agexplorer.tui.messages import BufferRequest
    from agexplorer.tui.state import ExplorerState, Target
    from agexplorer.tui.status import StatusReporter


@dataclass(frozen=True)
class Desk:
    """The explorer as a tab sees it, built once by the app and handed to each tab (a test
    builds one of stand-ins, tests/tui/parts/fakes.py):

    - ``state``: the function shown, its analyses and their answers, which the tab follows;
    - ``bridge``: asks the worker (``ask``) and holds its timeout (``worker.timeout``);
    - ``buffer_request``: what a request is about now (function, call, unsaved buffer);
    - ``status``: the status line and the Log (``set``, ``announce``);
    - ``provenance``: what each result panel was made from;
    - ``linking``: moves the code panes' cursors to a source line;
    - ``source``: the source pane (the tabs are mounted with it);
    - ``analyse``: re-analyse the buffer (``call``: with that call);
    - ``set_call``: a function's call in the Run tab's box;
    - ``colorblind``: whether the colour-blind palette is on;
    - ``user_code``: the --user-code folders, sent with each report request;
    - ``settle``: the typing ends now: an edit's pending re-conversion starts at once.
    """

    state: ExplorerState
    bridge: EngineBridge
    buffer_request: Callable[[], BufferRequest | None]
    status: StatusReporter
    provenance: Provenance
    linking: Linking
    source: Callable[[], SourcePane]
    analyse: Callable[..., object]
    set_call: Callable[[Target, str], object]
    colorblind: Callable[[], bool]
    user_code: tuple[str, ...] = field(default=())
    settle: Callable[[], object] = field(default=lambda: None)
