"""The gutters draw again only the rows whose marks changed, and what they show is what a
full repaint would show (no TensorFlow: made-up maps and verdicts)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Region

from agexplorer.model.report import Verdict
from agexplorer.tui.code.gutter import LineRefGutter, VerdictGutter


def verdict(line: int, kind: str = "python") -> Verdict:
    return Verdict(kind="for", line=line, header="for i in range(3):", verdict=kind,
                   graph_op=None, iterations=3 if kind == "python" else None, branch=None,
                   ops_created=0, reason="why.", hint=None, times=1, loop_vars=())


class Gutters(App):
    CSS = ("Screen { layout: horizontal; } LineRefGutter { width: 6; height: 20; } "
           "VerdictGutter { width: 16; height: 20; }")

    def compose(self) -> ComposeResult:
        yield LineRefGutter()
        yield VerdictGutter()


def drawn_rows(gutter) -> list[int]:
    """The rows the gutter draws from now on."""
    rows: list[int] = []
    draw = gutter.render_line

    def render_line(y: int):
        rows.append(y)
        return draw(y)

    gutter.render_line = render_line
    return rows


def as_kept_and_fresh(gutter) -> tuple[list, list]:
    """The gutter's lines as Textual keeps them (clean rows from its cache), and drawn anew."""
    region = Region(0, 0, gutter.size.width, gutter.size.height)
    kept = [list(strip) for strip in gutter.render_lines(region)]
    gutter._styles_cache.clear()
    return kept, [list(strip) for strip in gutter.render_lines(region)]


async def test_an_unchanged_map_draws_nothing_and_a_shifted_one_draws_what_moved():
    app = Gutters()
    async with app.run_test(size=(40, 24)) as pilot:
        refs = app.query_one(LineRefGutter)
        refs.follow(1, 20)
        colors = {line: "#ff0000" if line % 2 else "#00ff00" for line in range(1, 40)}
        mapping = [(converted, 10 + converted // 3) for converted in range(1, 30)]
        refs.set_map(mapping, colors)
        await pilot.pause(0.1)
        rows = drawn_rows(refs)
        refs.set_map(list(mapping), dict(colors))  # the next answer, the same code
        await pilot.pause(0.1)
        assert rows == []
        moved = [(c, s + 1) if c >= 12 else (c, s) for c, s in mapping]  # a line added
        refs.set_map(moved, colors)
        await pilot.pause(0.1)
        assert sorted(set(rows)) == list(range(11, 20))  # converted lines 12-20 on rows 11-19
        kept, fresh = as_kept_and_fresh(refs)
        assert kept == fresh


async def test_the_verdict_marks_redraw_where_they_changed_and_match_a_repaint():
    app = Gutters()
    async with app.run_test(size=(40, 24)) as pilot:
        gutter = app.query_one(VerdictGutter)
        gutter.follow(1, 20)
        colors = {line: "#ff0000" for line in range(5, 12)}
        gutter.set_verdicts([verdict(6), verdict(9, "staged")], colors)
        await pilot.pause(0.1)
        rows = drawn_rows(gutter)
        gutter.set_verdicts([verdict(6), verdict(9, "staged")], dict(colors))
        await pilot.pause(0.1)
        assert rows == []
        gutter.set_verdicts([verdict(6), verdict(10, "staged")], colors)  # a line above 9
        await pilot.pause(0.1)
        assert sorted(set(rows)) == [8, 9]
        kept, fresh = as_kept_and_fresh(gutter)
        assert kept == fresh and "staged" in gutter.line_text(9)
        gutter.follow(3, 20)  # scrolled: every row shows another line
        await pilot.pause(0.1)
        kept, fresh = as_kept_and_fresh(gutter)
        assert kept == fresh and "staged" in gutter.line_text(7)


def test_changed_rows_come_as_runs():
    from agexplorer.tui.code.changed_rows import changed_runs

    assert list(changed_runs([1, 2, 3, 4, 5], [1, 0, 0, 4, 0])) == [(1, 2), (4, 1)]
    assert list(changed_runs(range(40), range(1, 41))) == [(0, 40)]  # every number moved
    assert list(changed_runs([], [])) == [] and list(changed_runs([1], [1])) == []
