"""A code pane's lines drawn once per text: a line whose text and highlighting were drawn
before, at any line number, reuses that drawing with its own number in the gutter.

Textual's TextArea keeps its drawn lines by their place on screen and forgets them all when
its text is replaced, so a converted text that gained one line at the top drew every line
again (~2.5-4 ms for a pane of 35 lines at 160x45, in the frame of each answer). AutoGraph's
code for an edited function mostly keeps its lines, moved: they are drawn now only where
they are new. A line with the cursor, the selection or a matched bracket is drawn as Textual
draws it, every time.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import TextArea

from agexplorer.tui import textual_patches

textual_patches.PRIVATE += (("textual.widgets._text_area", "TextArea._render_line"),)

LIMIT = 2048  # lines kept per pane (a few screens of several texts)


@dataclass(frozen=True)
class _View:
    """What the pane's lines are drawn with, beside each line's own text and highlights
    (read once per frame: Textual's reactive attributes are not free to read)."""

    key: tuple  # the part of a drawn line's key that is the pane's
    top: int  # the document line at the pane's first row
    lines: int  # the document's line count
    numbered: bool
    start: int  # the first line's number
    gutter: int  # the gutter's width
    busy: tuple[tuple[int, int], ...]  # ranges of lines drawn as Textual draws them


def _view(area: TextArea) -> _View | None:
    """The pane as its lines are drawn now (None: a wrapped pane, drawn as Textual draws it)."""
    if area.soft_wrap or not hasattr(area, "_highlights"):
        return None
    start, end = area.selection
    busy = [(start[0], start[0]), (end[0], end[0])]
    if start != end:
        busy.append(tuple(sorted((start[0], end[0]))))  # type: ignore[arg-type]
    bracket = getattr(area, "_matching_bracket_location", None)
    if bracket is not None:
        busy.append((bracket[0], bracket[0]))
    numbered, gutter, first = area.show_line_numbers, area.gutter_width, area.line_number_start
    key = (area.size.width, area.region.width, area.scroll_x, area.virtual_size.width, gutter,
           numbered, area.theme, area.indent_width, first)
    return _View(key, int(area.scroll_y), area.document.line_count, numbered, first, gutter,
                 tuple(busy))


class ReusedLines:
    """The drawn lines of one TextArea by what they show; :meth:`render` stands for its
    ``_render_line`` (within :meth:`frame`, around its ``render_lines``), :meth:`clear` when
    its styles change."""

    def __init__(self) -> None:
        self._strips: OrderedDict[tuple, Strip] = OrderedDict()
        self._view: _View | None = None

    def clear(self) -> None:
        self._strips.clear()

    @contextmanager
    def frame(self, area: TextArea) -> Iterator[None]:
        """Lines drawn for one frame: the pane's state is read once."""
        self._view = _view(area)
        try:
            yield
        finally:
            self._view = None

    def render(self, area: TextArea, y: int, draw: Callable[[int], Strip]) -> Strip:
        """Line ``y`` of the pane (0: its top row): ``draw(y)`` (Textual's own), or a line
        drawn before with the same text and highlighting, given this line's number."""
        view = self._view or _view(area)
        if view is None:
            return draw(y)
        index = view.top + y
        if index >= view.lines or any(low <= index <= high for low, high in view.busy):
            return draw(y)  # (no line, or one with the cursor, the selection or a bracket)
        highlights: Any = area._highlights.get(index, ())  # (a defaultdict: get adds nothing)
        key = (area.document.get_line(index), _painted(highlights), view.key)
        kept = self._strips.get(key)
        if kept is None:
            strip = draw(y)
            segments = list(strip)
            if not view.numbered or (segments and segments[0].text == _gutter(view, index)):
                self._strips[key] = strip  # (else its gutter is not where it is looked for)
                if len(self._strips) > LIMIT:
                    self._strips.popitem(last=False)
            return strip
        self._strips.move_to_end(key)
        if not view.numbered:
            return kept
        segments = list(kept)
        first = segments[0]
        segments[0] = Segment(_gutter(view, index), first.style, first.control)
        return Strip(segments, kept.cell_length)


def _painted(highlights: list[tuple[int, int | None, str]]) -> tuple:
    """A line's highlights as they paint it: TextArea applies them in order, a later one over
    an earlier one, and lists them by name (all of a name's spans in a row); the spans of one
    name paint alike whatever their order, which differs between two texts."""
    return tuple((name, tuple(sorted((start, -1 if end is None else end)
                                     for start, end, _ in spans)))
                 for name, spans in groupby(highlights, key=itemgetter(2)))


def _gutter(view: _View, index: int) -> str:
    """The gutter's text of line ``index``, as TextArea writes it."""
    return f"{index + view.start:>{view.gutter - 2}}  "
