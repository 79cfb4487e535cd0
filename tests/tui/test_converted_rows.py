"""A new converted code is repainted on the rows that changed (tui/code/changed_lines.py): the
rows the pane keeps from before show what a repaint of the whole pane shows, for every kind of
edit, and a changed value repaints its row alone (no TensorFlow)."""

from __future__ import annotations

import random

import pytest
from textual.app import App
from textual.geometry import Region
from textual.widgets import TextArea

from agexplorer.tui.code.changed_lines import _as_drawn, _changed_rows, _Shown
from agexplorer.tui.code.converted_pane import ConvertedPane
from tests.tui.test_converted_edits import CODE, EDITS

# Functions of one shape (a line added moves rows onto rows highlighted alike) under a line
# longer than any edit makes (the scrollable width stays)
SHAPED = "# " + "-" * 84 + "\n" + "".join(
    f'def tf__f{i}(x):\n    y = ag__.ld(x) + {i}\n    """doc"""\n    return y\n'
    for i in range(10, 40))


class Pane(App):
    def compose(self):
        yield ConvertedPane(id="code")


def on_screen(pane: ConvertedPane) -> list:
    """The pane's rows as drawn now: Textual's kept rows where none is due to be drawn."""
    return [list(strip) for strip in pane.render_lines(Region(0, 0, pane.size.width,
                                                              pane.size.height))]


def drawn_afresh(pane: ConvertedPane) -> list:
    pane._line_cache.clear()
    pane._styles_cache.clear()
    pane._reused.clear()
    return on_screen(pane)


async def shown_then_edited(pilot, pane: ConvertedPane, old: str, new: str) -> list:
    """``old`` shown, then ``new``; the full repaints Textual was asked for by the edit."""
    pane.show_code(old)
    await pilot.pause()
    asked: list = []
    base = TextArea.refresh

    def refresh(self, *regions, **kwargs):
        if self is pane:
            asked.append(regions)
        return base(self, *regions, **kwargs)

    TextArea.refresh = refresh  # type: ignore[method-assign]
    try:
        pane.show_code(new)
    finally:
        TextArea.refresh = base  # type: ignore[method-assign]
    await pilot.pause()
    return asked


@pytest.mark.parametrize("edit", list(EDITS))
async def test_the_rows_kept_show_what_a_full_repaint_shows(edit):
    app = Pane()
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.query_one(ConvertedPane)
        app.set_focus(None)
        await shown_then_edited(pilot, pane, CODE, EDITS[edit])
        assert pane.text == EDITS[edit]
        assert on_screen(pane) == drawn_afresh(pane)


async def test_a_string_opened_repaints_the_rows_it_reaches():
    """The rows between a string opened and the next docstring's quotes (which now close
    it) keep their text and are highlighted otherwise: they are repainted too."""
    app = Pane()
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.query_one(ConvertedPane)
        app.set_focus(None)
        asked = await shown_then_edited(pilot, pane, SHAPED,
                                        SHAPED.replace("y =", 's = """y =', 1))
        assert len(asked) == 1 and asked[0] and asked[0][0].height > 1, asked
        assert on_screen(pane) == drawn_afresh(pane)


async def test_a_changed_value_repaints_its_row_alone():
    app = Pane()
    async with app.run_test(size=(100, 40)) as pilot:
        pane = app.query_one(ConvertedPane)
        app.set_focus(None)
        asked = await shown_then_edited(pilot, pane, CODE, EDITS["a value"])
        row = CODE.splitlines().index("    y = ag__.ld(x) + 7  # é aaaaaaa")
        assert asked == [(Region(0, row, max(pane.virtual_size.width, pane.size.width), 1),)], asked
        # and a line added repaints from it down, not the rows above
        added = await shown_then_edited(pilot, pane, CODE, CODE.replace(
            "    return y\n", "    z = 1\n    return y\n", 1))
        assert len(added) == 1 and added[0] and added[0][0].y == 2, added
        assert on_screen(pane) == drawn_afresh(pane)


async def test_seeded_edits_keep_every_row_true():
    """Values changed, lines and functions added and removed, strings and brackets opened
    and closed, the view scrolled: after each, the pane shows what a full repaint shows."""
    rng = random.Random(7)
    app = Pane()
    async with app.run_test(size=(90, 30)) as pilot:
        pane = app.query_one(ConvertedPane)
        app.set_focus(None)
        text = SHAPED
        pane.show_code(text)
        await pilot.pause()
        for step in range(60):
            lines = text.splitlines(keepends=True)
            top = int(pane.scroll_y)  # an edit in view (one below it changes nothing seen)
            at = rng.randrange(top, min(top + pane.size.height, len(lines)))
            kind = rng.choice(["value", "add", "function", "remove", "quote", "string",
                               "bracket", "scroll"])
            if kind == "value":
                lines[at] = lines[at].replace("+ 1", f"+ {rng.randrange(10)}", 1)
            elif kind == "function":
                lines[at:at] = [f"def tf__g{10 + step % 30}(x):\n", "    y = ag__.ld(x) + 10\n",
                                '    """doc"""\n', "    return y\n"]
            elif kind == "add":
                lines.insert(at, f"    w = {'[' * rng.randrange(2)}{step}\n")
            elif kind == "remove" and len(lines) > 5 and at:
                del lines[at]
            elif kind == "quote":
                lines[at] = lines[at].replace("y", "'''y", 1)
            elif kind == "string":  # to the next docstring's quotes: a string between
                lines[at] = lines[at].replace("y =", 's = """y =', 1)
            elif kind == "bracket":
                lines[at] = lines[at].rstrip("\n") + rng.choice(["(", ")", "  # x"]) + "\n"
            else:
                pane.scroll_to(y=rng.randrange(30), animate=False, immediate=True)
            text = "".join(lines)
            pane.show_code(text)
            await pilot.pause()
            assert on_screen(pane) == drawn_afresh(pane), (step, kind)


def test_highlights_in_another_order_are_drawn_the_same_where_they_do_not_overlap():
    a = ((0, 3, "keyword"), (4, 6, "variable"), (7, 8, "variable"), (4, 6, "function"))
    b = ((0, 3, "keyword"), (7, 8, "variable"), (4, 6, "variable"), (4, 6, "function"))
    assert _as_drawn(a) == _as_drawn(b)
    # the same stretch's names in another order: the last styles over the first
    assert _as_drawn(((4, 6, "function"), (4, 6, "variable"))) != _as_drawn(
        ((4, 6, "variable"), (4, 6, "function")))
    # overlapping stretches (a call inside a string to the line's end)
    string = ((2, None, "string"), (5, 7, "call"))
    assert _as_drawn(string) != _as_drawn(tuple(reversed(string)))
    assert _as_drawn(((0, 2, "x"), (1, 3, "y"))) == (((0, 1), ("x",)), ((1, 2), ("x", "y")),
                                                     ((2, 3), ("y",)))


def shown(top=0, rows=5, highlights=None, **changes) -> _Shown:
    fields = dict(gutter=4, virtual=(40, 30), scroll=(0, top), size=(50, rows), selection=None,
                  bracket=None, top=top, rows=rows,
                  highlights=highlights or tuple(() for _ in range(rows)))
    return _Shown(**{**fields, **changes})


def test_the_rows_to_repaint():
    assert _changed_rows(shown(), shown(), 2, 0, 0) == [(2, 1)]
    assert _changed_rows(shown(), shown(), 1, 1, 1) == [(1, 2)]
    # another line count: from the edit to the bottom of the view
    assert _changed_rows(shown(), shown(virtual=(40, 31)), 1, 0, 1) == [(1, 4)]
    # an edit out of view repaints nothing; scrolled, rows are the document's
    assert _changed_rows(shown(top=10), shown(top=10), 2, 0, 0) == []
    assert _changed_rows(shown(top=10), shown(top=10), 12, 0, 0) == [(12, 1)]
    # a row whose highlighting is drawn otherwise is repainted too
    before = shown(highlights=((), (), (), (), ((0, 1, "a"),)))
    assert _changed_rows(before, shown(), 1, 0, 0) == [(1, 1), (4, 1)]
    # anything else drawn otherwise: the whole pane
    for change in (dict(gutter=5), dict(selection=((1, 0), (1, 0))), dict(scroll=(0, 1)),
                   dict(virtual=(41, 30)), dict(bracket=(1, 2))):
        assert _changed_rows(shown(), shown(**change), 1, 0, 0) is None, change
    assert _changed_rows(shown(), shown(virtual=(40, 31)), 1, 0, 0) is None
    assert _changed_rows(None, shown(), 1, 0, 0) is None
