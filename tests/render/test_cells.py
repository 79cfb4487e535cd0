"""The two pieces every rendering leans on for user text, without TensorFlow: TextTable (no str
reaches rich's markup parser, no cell is cut) and code_spans (a sentence's `code` spans, where
the quoted code holds backticks of its own)."""

from __future__ import annotations

import pytest
from rich.console import Console
from rich.table import Table

from agexplorer.render.cells import TextTable
from agexplorer.render.page import code_spans

MARKUP = "[/b] closes nothing, [bold]x[/bold], tf.fill([batch], 7)"


def _printed(renderable, width: int = 120) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_a_plain_table_reads_its_cells_as_markup():
    """What TextTable guards against: rich's own Table raises on "[/b]"."""
    table = Table()
    table.add_column("statement")
    table.add_row(MARKUP)
    with pytest.raises(Exception, match="closing tag"):
        _printed(table)


def test_text_table_shows_cells_headers_and_title_as_written():
    table = TextTable(title="[red]title[/red] of we[ird].py")
    table.add_column("[b]header")
    table.add_row(MARKUP)
    out = _printed(table)
    assert "[red]title[/red] of we[ird].py" in out
    assert "[b]header" in out and MARKUP in out


def test_text_table_folds_a_long_word_instead_of_cutting_it():
    path = "/a/very/long/folder/name/that/goes/on/and/on/train.py::step"
    table = TextTable(expand=True)
    table.add_column("where", ratio=1)
    table.add_column("why", ratio=1)
    table.add_row(path, "reason")
    out = _printed(table, width=40)
    assert "…" not in out
    assert "".join(line.split("│")[1].strip() for line in out.splitlines()
                   if line.startswith("│")) == path


@pytest.mark.parametrize(("sentence", "parts"), [
    ("add an `AGX_CALLS` entry.", [("add an ", False), ("AGX_CALLS", True), (" entry.", False)]),
    ('`print("`a` | b")` printed \'`a` | b\' once',
     [('print("`a` | b")', True), (" printed '`a` | b' once", False)]),
    ("(`x`)", [("(", False), ("x", True), (")", False)]),
    ("a lone ` backtick", [("a lone ` backtick", False)]),
    ("x`y` is not a span", [("x`y` is not a span", False)]),
])
def test_code_spans_keep_the_users_backticks(sentence, parts):
    assert code_spans(sentence) == parts
    assert "".join(f"`{p}`" if code else p for p, code in parts) == sentence
