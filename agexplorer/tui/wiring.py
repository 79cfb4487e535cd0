"""The parts AgxApp is made of, each made the first time it is asked for.

The first frame draws the function list, the status line and the footer, and none of these
parts: made in ``AgxApp.__init__`` they imported their modules (the messages, the state,
the desk, the recovery copies, ... ~30 dataclasses) before that frame, ~10 ms of it on this
project's 2-core machine. As ``functools.cached_property`` members of the app (``state =
cached_property(wiring.state)``) each is made, and its module imported, on first use: the
app makes them all just after the first frame (``AgxApp.on_ready``), on its own thread, and
anything that needs one earlier (a quit in the first moment, a test asking an app that never
ran) gets it made then, the same part.

Each maker takes the app; what a part hands on to another is a call that asks the app when
it runs (a lambda), not a part made now, so that making one part makes only those it holds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp
    from agexplorer.tui.bridge import EngineBridge
    from agexplorer.tui.buffer.disk import DiskWatch
    from agexplorer.tui.buffer.ending import Ending
    from agexplorer.tui.buffer.safety import SafetyNet
    from agexplorer.tui.code.editing import Editing
    from agexplorer.tui.code.linking import Linking
    from agexplorer.tui.code.made import Provenance
    from agexplorer.tui.desk import Desk
    from agexplorer.tui.functions.navigation import Navigation
    from agexplorer.tui.graph.op_detail import OpDetail
    from agexplorer.tui.requests import Requests
    from agexplorer.tui.results import Results
    from agexplorer.tui.state import ExplorerState
    from agexplorer.tui.status import StatusReporter

# The order AgxApp.on_ready makes them in (each maker makes the parts it holds first).
PARTS = ("bridge", "state", "status", "safety", "ending", "disk", "provenance", "linking",
         "op_detail", "results", "editing", "requests", "navigation", "desk")
# The modules the makers import (a test holds them to it): the warm explorer imports them
# ahead (agexplorer/cli/warm.py), as it does the workspace's.
MODULES = ("agexplorer.tui.bridge", "agexplorer.tui.state", "agexplorer.tui.status",
           "agexplorer.tui.buffer.safety", "agexplorer.tui.messages",
           "agexplorer.tui.textual_patches", "agexplorer.tui.buffer.ending",
           "agexplorer.tui.buffer.disk", "agexplorer.tui.code.made",
           "agexplorer.tui.code.linking", "agexplorer.tui.graph.op_detail",
           "agexplorer.tui.results", "agexplorer.tui.code.editing", "agexplorer.tui.requests",
           "agexplorer.tui.functions.navigation", "agexplorer.tui.desk")


def bridge(app: AgxApp) -> EngineBridge:
    """The worker's side of the app (the worker itself is made when first needed)."""
    from agexplorer.tui.bridge import EngineBridge

    return EngineBridge(app, app.worker_given, app.worker_timeout, app.worker_python)


def state(app: AgxApp) -> ExplorerState:
    """The function shown, its analyses and their answers."""
    from agexplorer.tui.state import ExplorerState

    return ExplorerState()


def status(app: AgxApp) -> StatusReporter:
    from agexplorer.tui.status import StatusReporter

    return StatusReporter(app.status_line, app.state, app.log_view)


def safety(app: AgxApp) -> SafetyNet:
    from agexplorer.tui.buffer.safety import SafetyNet
    from agexplorer.tui.messages import WorkerNotice

    return SafetyNet(app.kept_buffer, lambda text: app.post_message(WorkerNotice(text)))


def ending(app: AgxApp) -> Ending:
    from agexplorer.tui import textual_patches
    from agexplorer.tui.buffer.ending import Ending

    return Ending(lambda *args: app.safety.keep_for_good(*args),
                  lambda code: app.exit(return_code=code),
                  lambda: app.is_running and not app.exiting, lambda: app.bridge.close(),
                  lambda: app.is_headless, lambda: textual_patches.served_key_thread(app))


def disk(app: AgxApp) -> DiskWatch:
    from agexplorer.tui.buffer.disk import DiskWatch

    return DiskWatch(app.status, app.safety.recovery, app.analyse)


def provenance(app: AgxApp) -> Provenance:
    from agexplorer.tui.code.made import Provenance

    return Provenance(lambda: app.source.text, lambda: app.panes)


def linking(app: AgxApp) -> Linking:
    from agexplorer.tui.code.linking import Linking

    return Linking(app.state, app.mounted_panes, app.set_timer)


def op_detail(app: AgxApp) -> OpDetail:
    from agexplorer.tui.graph.op_detail import OpDetail

    return OpDetail(app.state, app.provenance, app.bridge.ask, lambda: app.panes.ops,
                    app.linking.line)


def results(app: AgxApp) -> Results:
    from agexplorer.tui.results import Results

    return Results(app.state, app.status, app.provenance, app.linking, app.mounted_panes,
                   app.call_after_refresh, app.relabel_functions, lambda: app.colorblind)


def editing(app: AgxApp) -> Editing:
    from agexplorer.tui.code.editing import Editing

    return Editing(app.state, app.mounted_source, app.analyse, app.provenance,
                   app.safety.recovery, app.disk, app.status, app.deliver_binary)


def requests(app: AgxApp) -> Requests:
    from agexplorer.tui.requests import Requests

    return Requests(app.state, app.bridge.analyse, app.status, app.provenance,
                    app.mounted_panes, app.user_code)


def navigation(app: AgxApp) -> Navigation:
    from agexplorer.tui.functions.navigation import Navigation

    return Navigation(app.state, app.requests, app.status, app.disk, app.safety,
                      app.mounted_panes, app.picker, app.analyse, app.set_timer,
                      app.call_after_refresh)


def desk(app: AgxApp) -> Desk:
    from agexplorer.tui.desk import Desk

    return Desk(app.state, app.bridge, app.requests.buffer, app.status, app.provenance,
                app.linking, lambda: app.source, app.analyse, app.requests.set_call,
                lambda: app.colorblind, app.user_code, app.editing.settle)
