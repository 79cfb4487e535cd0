"""The function list before its Tree: each file read and listed once (no code runs), each
function's label, and the list drawn as lines for the first frame.

Textual's Tree asks ~15-20 ms of a first frame that a widget drawing the same lines does not
(its nodes, its default CSS, its line cache), on this 2-core machine about a tenth of the
explorer's start. So the first frame shows ``ListSkeleton``: the same lines, in the focused
Tree's colours, from the same listing; the ``FunctionPicker`` (the Tree the user moves in)
takes its place just after that frame, made from this listing (each file is read once), and
the skeleton goes. A key pressed in that moment (~20 ms) goes to the app, as one pressed
before the first frame always did.

This module imports no Tree: it is the first frame's share of the function list.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, ClassVar

from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from agexplorer.model.errors import AgxError
from agexplorer.source.targets import FunctionInfo, list_functions, parse_source, read_source

if TYPE_CHECKING:
    import ast

GUIDE = 4  # the tree's guide before a function ("├── ")
EXPANDED = "▼ "  # a file's row (Textual's Tree.ICON_NODE_EXPANDED: the files start open)
# The guides of a function (Textual's Tree: its default lines, at its default depth of 4).
CROSS, LAST = "├── ", "└── "


class Listed:
    """One file of the list: its text and its functions, or the one sentence on why it
    could not be listed (``error``). Listed for the first frame, its functions leave out
    the file's own calls of them (``ready``, ``file_call``: a walk of the file's top-level
    code, ~1 ms a sample, that drawing them does not need); ``complete`` adds them from the
    parse kept meanwhile (``tree``)."""

    __slots__ = ("error", "functions", "path", "text", "tree")

    def __init__(self, path: str, text: str | None = None,
                 functions: list[FunctionInfo] | None = None, error: str | None = None,
                 tree: ast.Module | None = None) -> None:
        self.path, self.text, self.error, self.tree = path, text, error, tree
        self.functions = functions or []

    def complete(self) -> list[FunctionInfo]:
        """The functions with the file's own calls of them."""
        if self.tree is not None:
            self.functions, self.tree = list_functions(self.tree), None
        return self.functions


def list_file(path: str, calls: bool = True) -> Listed:
    """Read ``path`` and list its functions (a static parse: no code runs); ``calls=False``:
    without the file's own calls until ``Listed.complete`` (the first frame's listing)."""
    try:
        text = read_source(path)
        tree = parse_source(path, text)
        return Listed(path, text, list_functions(tree, calls=calls),
                      tree=None if calls else tree)
    except AgxError as exc:
        return Listed(path, error=exc.message)


def function_label(info: FunctionInfo, badge: str, room: int) -> Text:
    """A function's label in ``room`` columns (none: as long as it is); when it is wider,
    the badge stays whole (a cut badge shows a wrong number: ``unrolled x205`` as
    ``unrolled x2``): the @tf mark, then the line number go, then the name is shortened.
    The badge is the explorer's own markup (``[red]failed[/]``); the name is text."""
    marked = Text.from_markup(badge) if badge else None
    badge_width = len(marked.plain) + 2 if marked is not None else 0
    name, line, tf = info.qualname, f" {info.line}", " @tf" if info.decorated else ""
    if room > 0:
        if len(name) + len(line) + len(tf) + badge_width > room:
            tf = ""
        if len(name) + len(line) + badge_width > room:
            line = ""
        if len(name) + badge_width > room:
            name = name[:max(room - badge_width - 1, 1)] + "…"
    # Styled, not markup: the first frame's labels parse no markup (rich's markup parser and
    # its emoji table cost ~3 ms on its first use, and a badge comes later).
    label = Text(name)
    if line:
        label.append(" ").append(line[1:], style="dim")
    if tf:
        label.append(" ").append(tf[1:], style="cyan")
    if marked is not None:
        label.append("  ").append_text(marked)
    return label


def file_label(path: str) -> Text:
    """A file's row label (Text: a str label is read as markup, and a file may be
    ``we[ird].py``)."""
    return Text(os.path.basename(path))


def error_label(message: str) -> Text:
    """The row under a file that could not be listed."""
    return Text(message, style="red")


class ListSkeleton(Widget):
    """The function list as the first frame draws it: the lines the ``FunctionPicker`` shows
    once it is in, in the colours of the focused Tree (it is focused as it comes), drawn
    without a Tree. It takes no keys and is not focused; the picker takes its place
    (picker.in_place_of) just after the first frame."""

    # Textual's Tree's colours where it has the focus (its DEFAULT_CSS: background, the
    # tint, the guides), in the dark and light themes and in ANSI colours.
    DEFAULT_CSS = """
    ListSkeleton {
        background: $surface;
        color: $foreground;
        background-tint: $foreground 5%;
        overflow: hidden hidden;
        & > .list-skeleton--guides { color: $surface-lighten-3; }
        &:light > .list-skeleton--guides { color: $surface-darken-1; }
    }
    ListSkeleton:ansi {
        color: ansi_default;
        & > .list-skeleton--guides { color: $ansi-background; }
    }
    """
    COMPONENT_CLASSES: ClassVar[set[str]] = {"list-skeleton--guides"}

    def __init__(self, listing: list[Listed], **kwargs) -> None:
        super().__init__(**kwargs)
        self.listing = listing
        self.border_title = "functions"
        self._rows: list[tuple[str, Text]] = []  # (guide, label) per row
        self._room = -1  # the label room the rows were made for
        self._styles = (Style(), Style())  # this frame's: the widget's, the guides'

    def rows(self, room: int) -> list[tuple[str, Text]]:
        """Each row's guide ("" for a file: its row starts with ``EXPANDED``) and label, for
        labels of ``room`` columns."""
        if room != self._room:
            self._room, rows = room, []
            for listed in self.listing:
                rows.append(("", file_label(listed.path)))
                leaves = [error_label(listed.error)] if listed.error is not None else \
                    [function_label(f, "", room) for f in listed.functions]
                rows.extend((LAST if i == len(leaves) - 1 else CROSS, label)
                            for i, label in enumerate(leaves))
            self._rows = rows
        return self._rows

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's style and the guides', once a frame (not once a row).
        self._styles = (self.rich_style,
                        self.get_component_rich_style("list-skeleton--guides", partial=True))
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width, (base, guides) = self.size.width, self._styles
        rows = self.rows(self.scrollable_content_region.width - GUIDE)
        if y >= len(rows):
            return Strip.blank(width, base)
        guide, label = rows[y]
        line = Text(style=base)
        # (the file's mark a styled span, as the Tree's: rich draws a Text without spans
        # unstyled)
        line.append(guide or EXPANDED, style=guides if guide else base)
        line.append_text(label)
        strip = Strip(list(line.render(self.app.console)))
        return strip.extend_cell_length(width, base).crop(0, width)
