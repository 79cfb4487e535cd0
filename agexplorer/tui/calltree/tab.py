"""CallTreeTab: the functions of the user's code the trace reached, each with its verdict badges."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from agexplorer.model.report import IN_PYTHON, ReachedFunction, Report
from agexplorer.model.text import plural
from agexplorer.render.badges import VERDICT_STYLE, verdict_badge
from agexplorer.tui.code.made import traced_with
from agexplorer.tui.status_line import StatusLine

if TYPE_CHECKING:
    from agexplorer.tui.desk import Desk
    from agexplorer.tui.program.reached import ReachedScreen
    from agexplorer.tui.state import FixesTried, ReportChanged, TargetChanged

Key = tuple[tuple[str, str], ...]  # a call path as (function, file) steps
MAX_BADGES = 3  # more would push a deep node's label off a narrow tab


def call_key(fn: ReachedFunction) -> Key:
    """Where a reached function sits in the tree: its call path without the call lines."""
    return tuple((site.function, site.file) for site in fn.call_path)


def _ops(count: int) -> str:
    return f"{plural(count, 'op')}"


def label(name: str, file: str, line: int, ops: int, verdicts, converted: bool = True,
          total: int | None = None) -> Text:
    """``normalize  helpers.py:6  32 ops  unrolled x4``, the badges in their verdicts' colours;
    ``total``: the ops of its calls too, shown when they add some (a step whose ops are all
    made in its helpers read "0 ops", as if it made nothing)."""
    text = Text(name, style="bold")
    made = _ops(ops) if total is None or total == ops else f"{_ops(ops)} here, {total} with its calls"
    text.append(f"  {os.path.basename(file)}:{line}  {made}", style="dim")
    for v in list(verdicts)[:MAX_BADGES]:
        text.append("  ")
        text.append(verdict_badge(v), style=VERDICT_STYLE.get(v.verdict, ""))
    if len(verdicts) > MAX_BADGES:
        text.append(f"  +{len(verdicts) - MAX_BADGES} more", style="dim")
    if not converted:
        text.append("  not converted", style="dim italic")
    return text


def summary(report: Report | None) -> str:
    """The one line above the tree: what it holds, or why it is empty; it names the call
    the trace was made with (``step(tf.ones([4])) [AGX_CALLS]``): another call can reach
    other functions."""
    if report is None:
        return "tracing… the functions of your code that the trace reaches appear here"
    name = traced_with(report) if report.call is not None else report.function.split(".")[-1]
    if report.error is not None and not report.reached:
        return f"no call tree for {name}: it did not trace (the status line says why)"
    if not report.reached:
        return (f"{name} reached no other function of your code while tracing (TensorFlow, "
                "Keras and installed packages are not your code)")
    unrolled = sum(any(v.verdict in IN_PYTHON for v in f.statements)
                   for f in report.reached)
    noun = "function" if len(report.reached) == 1 else "functions"
    return (f"{len(report.reached)} {noun} reached from {name}, {unrolled} with control flow "
            "run in Python (Enter on one: its code and this trace's verdicts)")


def own_ops(report: Report) -> int:
    """The ops the explored function's own lines made (its callees' not counted)."""
    if report.inventory is None:
        return 0
    lines = report.inventory.by_file().get(report.file, {})
    return sum(n for line, n in lines.items() if report.first_line <= line <= report.end_line)


class CallTreeTab(Vertical):
    """The Calls tab: the explored function and the functions reached, nested by call path.
    Enter on the explored function focuses the source pane (``desk.source``), on a reached
    one opens its view (which compares its trace's buffer with the ``desk``'s)."""

    def __init__(self, desk: Desk, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.desk = desk
        # Wraps (2 rows wide, 3 narrow: app.tcss): it names the call, and keeps its hint.
        self.summary_line = StatusLine(summary(None), wrap=True, id="calls-summary")
        self.call_tree: Tree[ReachedFunction | None] = Tree("", id="calls-tree")
        self.call_tree.show_root = False
        self.call_tree.auto_expand = False  # Enter opens the function; space folds
        self.report: Report | None = None
        self.made_text = ""  # the buffer the report was made from
        # The answer not yet shown (generation, report, its buffer): the tab was hidden.
        self._waiting: tuple[int, Report, str] | None = None

    def compose(self) -> ComposeResult:
        yield self.summary_line
        yield self.call_tree

    def on_target_changed(self, _: TargetChanged) -> None:
        self._waiting = None
        self.clear()

    def on_report_changed(self, message: ReportChanged) -> None:
        self._show_when_seen(message.key.generation, message.report, message.text)

    def on_fixes_tried(self, message: FixesTried) -> None:
        # The doctor tried the reached functions' fixes too (a helper's loop, in any module):
        # an open view shows what came of them.
        # (not once the buffer was edited since: the next answer updates the view)
        waiting = self._waiting
        if waiting is not None and waiting[0] == message.key.generation:
            self._waiting = (waiting[0], message.report, waiting[2])  # not shown yet: tried
            return
        if self.report is not None and message.report.reached != self.report.reached \
                and message.key.generation == self.desk.state.generation \
                and self.desk.source().text == self.made_text:
            self._show_when_seen(message.key.generation, message.report, self.made_text)

    def _show_when_seen(self, generation: int, report: Report, made_text: str) -> None:
        """Shown: just after the frame that shows the answer (the tree's new layout is not
        that frame's cost, a reflow of the whole screen, ~3 ms). Hidden (another tab shown,
        as mostly): when the tab is next shown (``shown``), so that an answer the user never
        looks at here costs nothing; a call after the refresh ran at the screen's first
        idle, which could come before the answer's own rows had reached the screen, and
        its reflow held their frame back. An open view of a reached function follows
        the answer either way."""
        self._waiting = (generation, report, made_text)
        if self.is_on_screen or self.open_view() is not None:
            self.call_after_refresh(self.shown)

    def shown(self) -> None:
        """On screen (Show, or the workspace after the Calls tab is activated): build the
        tree of the last answer if it waits; one a newer answer replaced is dropped."""
        waiting, self._waiting = self._waiting, None
        if waiting is not None and waiting[0] == self.desk.state.answered:
            self.show(waiting[1], waiting[2])

    def on_show(self) -> None:
        self.shown()

    def show(self, report: Report, made_text: str) -> None:
        """A new report: the tree of what its trace reached (an open view follows it)."""
        self.report, self.made_text = report, made_text
        self.summary_line.update(summary(report))
        tree = self.call_tree
        at = tree.cursor_node.data if tree.cursor_node is not None else None
        tree.clear()
        own = own_ops(report)
        head = label(report.function, report.file, report.first_line, own, report.statements,
                     report.conversion is not None,
                     total=own + sum(f.op_count for f in report.reached))
        head.append("  (explored)", style="dim italic")
        root = tree.root.add(head, data=None)
        nodes: dict[Key, TreeNode] = {((report.function, report.file),): root}
        # Parents before children, and siblings in the order their calls come in the caller.
        for fn in sorted(report.reached, key=lambda f: (f.depth, [s.line for s in f.call_path])):
            key = call_key(fn)
            parent = next((nodes[key[:i]] for i in range(len(key) - 1, 0, -1)
                           if key[:i] in nodes), root)
            total = fn.op_count + sum(f.op_count for f in report.reached
                                      if len(call_key(f)) > len(key) and call_key(f)[:len(key)] == key)
            nodes[key] = parent.add(label(fn.function, fn.file, fn.first_line, fn.op_count,
                                          fn.statements, fn.converted, total), data=fn)
        for node in nodes.values():
            node.allow_expand = bool(node.children)
        root.expand_all()
        # The cursor on the function the user was on (its new node), else the first reached.
        wanted = nodes.get(call_key(at)) if isinstance(at, ReachedFunction) else None
        self.call_after_refresh(tree.move_cursor, wanted or next(iter(root.children), root))
        view = self.open_view()
        if view is not None:
            view.follow(report, made_text)

    def clear(self) -> None:
        """Another function: nothing traced yet (an open view says it is out of date)."""
        self.report = None
        self.summary_line.update(summary(None))
        self.call_tree.clear()
        view = self.open_view()
        if view is not None:
            view.gone_away("the explorer opened another function")

    def open_view(self) -> ReachedScreen | None:
        """The reached function's view, when it is open."""
        from agexplorer.tui.program.reached import ReachedScreen

        return next((s for s in self.app.screen_stack if isinstance(s, ReachedScreen)), None)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        fn = event.node.data
        if self.report is None:
            return
        if fn is None:  # the explored function: it is in the panes above
            self.desk.source().focus()
            return
        from agexplorer.tui.program.reached import ReachedScreen

        self.app.push_screen(ReachedScreen(fn, traced_with(self.report), self.made_text,
                                          lambda: self.desk.source().text,
                                          self.desk.colorblind))
