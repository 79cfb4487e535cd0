"""The source pane's syntax highlighting worked out for the lines around its view, not the
whole file, at each keystroke.

Textual's TextArea works the highlighting of every line out again after each edit: a query
of the whole syntax tree and a loop over its captures, ~1 ms for a 78-line sample but
~60 ms per keystroke for a 1,277-line file (typing in a real training script lagged). Only
the lines drawn need it: after the first, whole map of a document (as Textual makes it),
each edit works it out for the view and ``MARGIN`` lines either side, and a scroll that
leaves that band works the new band out. A document of up to ``SMALL`` lines is left to
Textual (its whole map costs little).

A line is painted name after name, a later one over an earlier, and Textual takes the names
in the order the whole file's captures first meet them (``as`` in an import is both an
``include`` and a ``keyword``: the one met later in the file wins). A band's captures can
meet them in another order, so a band is painted in the whole map's order, kept from the
document's first map.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import TextArea

from agexplorer.tui import textual_patches

textual_patches.PRIVATE += (("textual.widgets._text_area", "TextArea._build_highlight_map"),)

MARGIN = 100  # lines worked out above and below the view
SMALL = 400  # lines: a document this short gets Textual's whole map


class NearHighlights:
    """How one TextArea's highlighting is worked out: ``rows``, the band [start, end) of
    the last map (None: the whole document's, Textual's own or as it makes it)."""

    def __init__(self) -> None:
        self.rows: tuple[int, int] | None = None
        self._document: object | None = None  # the document ``_order`` was read from
        self._order: dict[str, int] = {}  # capture name -> its place in the whole map

    def build(self, area: TextArea) -> bool:
        """Work out the highlighting (TextArea's ``_build_highlight_map``): a long
        document's first map whole, its later ones for the band around the view; False:
        not done (a short document, no language, a Textual without these names), and
        Textual's own is to run."""
        self.rows = None
        query = getattr(area, "_highlight_query", None)
        if (not query or area.document.line_count <= SMALL
                or not textual_patches.probe("textual.widgets._text_area",
                                             "TextArea._build_highlight_map")):
            self._document = None
            return False
        whole = area.document is not self._document
        if whole:
            start, end = 0, area.document.line_count
        else:
            top = int(area.scroll_y)
            start, end = max(0, top - MARGIN), top + max(area.size.height, 1) + MARGIN
        area._line_cache.clear()
        highlights: Any = area._highlights
        highlights.clear()
        captures = area.document.query_syntax_tree(
            query, *((None, None) if whole else ((start, 0), (end, 0))))
        if whole:  # the order Textual paints in, for the bands to come
            self._document, self._order = area.document, {n: i for i, n in enumerate(captures)}
        order = self._order
        for name in sorted(captures, key=lambda n: order.setdefault(n, len(order))):
            for node in captures[name]:  # (TextArea's own loop)
                first_row, first_column = node.start_point
                last_row, last_column = node.end_point
                if first_row == last_row:
                    highlights[first_row].append((first_column, last_column, name))
                    continue
                highlights[first_row].append((first_column, None, name))
                for row in range(max(first_row + 1, start), min(last_row, end)):
                    highlights[row].append((0, None, name))
                highlights[last_row].append((0, last_column, name))
        self.rows = None if whole else (start, end)
        return True

    def follow(self, area: TextArea) -> None:
        """After a scroll or a resize: work the band out again once the view leaves it."""
        if self.rows is None:
            return
        top = int(area.scroll_y)
        start, end = self.rows
        if top < start or top + area.size.height > end:
            self.build(area)
            area.refresh()
