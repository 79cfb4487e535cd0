"""User text in rich renderables: plain Text, never read as markup.

rich reads every ``str`` it is handed (a table cell, a title, a tree label, a panel's body)
as markup: a source line holding ``"[/b]"`` raised MarkupError, and ``tf.fill([batch], 7)``
lost its ``[batch]``. Source lines, op names, file names, printed output, argument values and
messages quoting them are the user's, so the renderings build them as ``Text`` here.
"""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text


def cell(value: object, style: str | Style = "") -> Text:
    """``value`` as text shown as written (``[/b]`` stays ``[/b]``); None as empty."""
    if isinstance(value, Text):
        return value
    return Text("" if value is None else str(value), style=style)


def _plain(value: Any, style: str = "") -> Any:
    """A ``str`` made Text (``style`` where rich would have given one); anything else as is."""
    return cell(value, style) if isinstance(value, str) else value


class TextTable(Table):
    """A rich Table whose ``str`` cells, headers, title and caption are plain text, and
    whose cells fold rather than cut.

    Everything a rendering puts in a table is shown as written: no caller can forget to
    escape a source line or a message, since no ``str`` reaches rich's markup parser; and
    at 80 columns nothing is lost to an ellipsis.
    """

    def __init__(self, *headers: Any, title: Any = None, caption: Any = None,
                 **kwargs: Any) -> None:
        # A Text title is drawn as given (rich styles only a str one): keep the table's style.
        super().__init__(*(_plain(h) for h in headers), title=_plain(title, "table.title"),
                         caption=_plain(caption, "table.caption"), **kwargs)

    def add_column(self, header: RenderableType = "", *args: Any, **kwargs: Any) -> None:
        """As Table.add_column, a ``str`` header taken as plain text; a word wider than its
        column (a path, a long name) folds onto the next line instead of ending in "…"."""
        kwargs.setdefault("overflow", "fold")
        super().add_column(_plain(header), *args, **kwargs)

    def add_row(self, *renderables: RenderableType | None, style: Any = None,
                end_section: bool = False) -> None:
        """As Table.add_row, each ``str`` cell taken as plain text."""
        super().add_row(*(_plain(r) for r in renderables), style=style,
                        end_section=end_section)
