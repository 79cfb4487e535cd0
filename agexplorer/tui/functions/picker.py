"""FunctionPicker: files, then their functions, from a static parse (before TensorFlow loads)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.css.query import NoMatches
from textual.message import Message
from textual.widget import MountError, Widget
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from agexplorer.model.errors import AgxError
from agexplorer.source.targets import (
    FunctionInfo,
    list_functions,
    parse_source,
    read_source,
    traceable,
)
from agexplorer.tui.functions.listing import (
    GUIDE,
    Listed,
    ListSkeleton,
    error_label,
    file_label,
    function_label,
    list_file,
)
from agexplorer.tui.layout import fold_after_pick

if TYPE_CHECKING:
    from agexplorer.model.report import Report
    from agexplorer.tui.state import LinesMoved, ReportChanged, ReportFailed


class FunctionPicker(Tree[tuple[str, str] | None]):
    """A tree of files and their functions; badges appear once a function is analysed."""

    class Picked(Message):
        """The user chose ``qualname`` in ``path``; ``at_once``: a jump made on purpose (the
        tour's next section), analysed without waiting for the keys to rest."""

        def __init__(self, path: str, qualname: str, at_once: bool = False) -> None:
            super().__init__()
            self.path = path
            self.qualname = qualname
            self.at_once = at_once

    def __init__(self, paths: list[str], listing: list[Listed] | None = None,
                 **kwargs) -> None:
        """The files of ``paths``, listed from ``listing`` where given (the first frame's:
        listing.py), else read as the list mounts."""
        super().__init__(Text("functions"), **kwargs)  # Text: no markup to parse
        self.paths = paths
        self.show_root = False
        self._fn_nodes: dict[tuple[str, str], TreeNode] = {}
        self._fn_infos: dict[tuple[str, str], FunctionInfo] = {}
        self._drivers: dict[str, set[str]] = {}  # by file, read when first asked (drives)
        self._badges: dict[tuple[str, str], str] = {}
        self._shown: dict[tuple[str, str], Text] = {}
        self._file_nodes: dict[str, TreeNode] = {}
        # The text each file's list was made from, and its functions as listed from it: an
        # edit that moves lines moves their numbers until the list is made again.
        self._made_from: dict[str, str] = {}
        self._as_listed: dict[tuple[str, str], FunctionInfo] = {}
        self._listing = listing
        self.unlisted: dict[str, str] = {}  # path -> why its functions could not be listed

    def on_mount(self) -> None:
        listing, self._listing = self._listing, None
        for listed in listing if listing is not None else map(list_file, self.paths):
            self._add(listed)

    def add_file(self, path: str) -> None:
        """Parse ``path`` (no code runs) and list its functions under it."""
        self._add(list_file(path))

    def _add(self, listed: Listed) -> None:
        path = listed.path
        node = self._file_nodes[path] = self.root.add(file_label(path), data=None, expand=True)
        if listed.error is not None:
            self.unlisted[path] = listed.error
            node.add_leaf(error_label(listed.error), data=None)
            return
        self.unlisted.pop(path, None)
        self._made_from[path] = listed.text or ""
        self._fill(path, listed.complete())

    def _fill(self, path: str, functions: list[FunctionInfo]) -> None:
        node = self._file_nodes[path]
        for f in functions:
            key = (path, f.qualname)
            self._fn_infos[key] = self._as_listed[key] = f
            self._shown[key] = self._label(key)
            self._fn_nodes[key] = node.add_leaf(self._shown[key], data=key)

    def _label(self, key: tuple[str, str]) -> Text:
        """The function's label in the list's width, with its badge (listing.py)."""
        return function_label(self._fn_infos[key], self._badges.get(key, ""),
                              self.scrollable_content_region.width - GUIDE)

    def on_resize(self) -> None:
        for key in self._fn_nodes:
            self._relabel(key)

    def _relabel(self, key: tuple[str, str]) -> None:
        label = self._label(key)
        if label != self._shown[key]:  # an unchanged label costs no repaint
            self._shown[key] = label
            self._fn_nodes[key].set_label(label)

    def functions(self) -> list[tuple[str, str]]:
        """Every (path, qualname), in display order."""
        return list(self._fn_nodes)

    # The badge follows the answer's frame (call_after_refresh, in order): relabelling
    # costs ~1.5 ms, which the frame that shows the converted code and its verdicts after
    # an edit need not wait for.
    def on_report_changed(self, message: ReportChanged) -> None:
        report = message.report
        self.call_after_refresh(self.set_badge, report.file, report.function, badge(report))

    def on_report_failed(self, message: ReportFailed) -> None:
        if message.error.kind != "syntax-error":  # a syntax error is the buffer's, not its
            self.call_after_refresh(self.set_badge, *message.key.target, FAILED)

    def on_lines_moved(self, message: LinesMoved) -> None:
        """An edit added or removed lines of the file shown: its functions' line numbers
        follow, where the list was made from the same text as the report (until the list
        is made again from the next answer's buffer)."""
        path = message.target[0] if message.target is not None else None
        if path is None or self._made_from.get(path) != message.text:
            return
        for key, listed in self._as_listed.items():
            if key[0] != path:
                continue
            line = message.moves.now(listed.line)
            moved = listed if line is None or line == listed.line else replace(listed, line=line)
            if moved is not self._fn_infos[key]:
                self._fn_infos[key] = moved
                self._relabel(key)

    def set_badge(self, path: str, qualname: str, badge: str) -> None:
        """Show what the analysis found ("unrolled x5", "failed")."""
        key = (path, qualname)
        if key in self._fn_nodes:
            self._badges[key] = badge
            self._relabel(key)

    def ready(self, path: str, qualname: str) -> bool:
        """Whether the function is callable without typed arguments (its ready inputs)."""
        info = self._fn_infos.get((path, qualname))
        return info is not None and info.ready

    def drives(self, path: str, qualname: str) -> bool:
        """Whether it is a plain function that calls the file's tf.functions (``main``): read
        from the file when first asked, after the first frame (one more walk of the file,
        which the list itself does not need)."""
        if path not in self._drivers:
            try:
                found = list_functions(parse_source(path, read_source(path)), drives=True)
            except AgxError:
                found = []
            self._drivers[path] = {f.qualname for f in found if f.drives}
        return qualname in self._drivers[path]

    def staged(self, path: str, qualname: str) -> bool:
        """Whether it is a tf.function (decorated, or wrapped where the file binds it)."""
        info = self._fn_infos.get((path, qualname))
        return info is not None and info.decorated and traceable(qualname)

    def label(self, path: str, qualname: str) -> str:
        """The function's label as shown, without markup."""
        label = self._fn_nodes[(path, qualname)].label
        return label if isinstance(label, str) else label.plain

    def update_functions(self, path: str, functions: list[FunctionInfo],
                         text: str | None = None) -> bool:
        """Follow an edited buffer of ``path`` (``text``, listed as ``functions``): new line
        numbers, and functions added, removed or renamed (then the file's list is rebuilt
        and this returns True; the cursor is the caller's to put back)."""
        if path not in self._file_nodes:
            return False
        self.unlisted.pop(path, None)  # (it parses now)
        if text is None:
            self._made_from.pop(path, None)
        else:
            self._made_from[path] = text
        old = [q for p, q in self._fn_nodes if p == path]
        if old == [f.qualname for f in functions]:
            for f in functions:
                self._fn_infos[(path, f.qualname)] = self._as_listed[(path, f.qualname)] = f
                self._relabel((path, f.qualname))
            return False
        self._file_nodes[path].remove_children()
        kept = {f.qualname for f in functions}
        for qualname in old:
            key = (path, qualname)
            del self._fn_nodes[key], self._fn_infos[key], self._shown[key]
            self._as_listed.pop(key, None)
            if qualname not in kept:
                self._badges.pop(key, None)
        self._fill(path, functions)
        order = [key for p in self.paths for key in self._fn_nodes if key[0] == p]
        self._fn_nodes = {key: self._fn_nodes[key] for key in order}
        return True

    def select_function(self, path: str, qualname: str) -> None:
        """Move the cursor to a function without re-announcing it."""
        node = self._fn_nodes.get((path, qualname))
        if node is not None:
            # A node added since the tree last laid out its lines has no line yet (Textual
            # lays them out on the tree's own idle): asking for the last line lays them out.
            _ = self.last_line
            self.move_cursor(node)

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        event.stop()
        if event.node.data:
            self.post_message(self.Picked(*event.node.data))
            fold_after_pick(self.screen)  # at 80 columns the list folds once it has served


async def in_place_of(lines: ListSkeleton) -> FunctionPicker | None:
    """Put the FunctionPicker in the place of the first frame's lines, made from their
    listing, in one frame; it takes the focus they stood for. None: the app ended meanwhile."""
    picker = FunctionPicker([listed.path for listed in lines.listing], listing=lines.listing,
                            id="picker", classes=" ".join(lines.classes))
    picker.border_title = lines.border_title
    try:
        with lines.app.batch_update():
            await cast("Widget", lines.parent).mount(picker, before=lines)
            await lines.remove()
    except (NoMatches, MountError):
        return None  # torn down while mounting
    if lines.app.focused is None and picker.display:
        picker.focus()
    return picker


FAILED = "[red]failed[/]"  # the badge of a function whose analysis failed
NEEDS_ARGUMENTS = "[dim]args?[/]"  # one that waits for its arguments (the Run tab's box)


def badge(report: Report) -> str:
    """The picker's mark beside a function: failed, unrolled (how many times) or staged."""
    if report.error is not None:
        # Nothing failed where the function only waits for the arguments to trace it with.
        return NEEDS_ARGUMENTS if report.error.kind == "needs-arguments" else FAILED
    unrolled = [v for v in report.statements if v.unrolled]
    if unrolled:
        return f"[yellow]unrolled x{max(v.iterations or 0 for v in unrolled)}[/]"
    if any(v.verdict == "staged" for v in report.statements):
        return "[green]staged[/]"
    return ""
