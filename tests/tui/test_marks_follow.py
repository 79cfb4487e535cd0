"""The marks beside the code follow it through a run of edits before any answer comes: a
seeded sequence of Enters, typed lines, deleted and joined lines, undos and redos, and after
each one every mark whose line is unchanged sits on that line where it is now, in the gutter,
the verdict rows and the converted side's line numbers (the answers replayed: no TensorFlow).
"""

from __future__ import annotations

import os
import random

import pytest

from agexplorer.render.badges import verdict_badge
from conftest import SAMPLES, wait_for
from tests.tui.answers import ReplayWorker, save_recorded

TARGET = os.path.join(SAMPLES, "s6_2_bad_loop.py")


@pytest.fixture(scope="module", autouse=True)
def _save_recorded():
    yield
    save_recorded()


def edit_once(source, rng: random.Random) -> None:
    """One edit of a kind a user makes, somewhere in the buffer."""
    lines = source.document.lines
    row = rng.randrange(len(lines))
    column = rng.randint(0, len(lines[row]))
    kind = rng.choice(["enter", "line", "delete", "join", "undo", "redo", "type"])
    if kind == "enter":
        source.insert("\n", (row, column))
    elif kind == "line":
        source.insert("# a note\n", (row, 0))
    elif kind == "delete" and len(lines) > 2:
        source.delete((row, 0), (row + 1, 0))
    elif kind == "join" and row + 1 < len(lines):
        source.delete((row, len(lines[row])), (row + 1, 0))
    elif kind == "undo":
        source.undo()
    elif kind == "redo":
        source.redo()
    else:
        source.insert("x", (row, column))


def check_marks(app) -> None:
    state, panes = app.state, app.panes
    report, moves = state.report, state.moves
    then, now = state.report_text.splitlines(), list(panes.source.document.lines)
    rows = {int(panes.verdicts.get_row_at(i)[0]) for i in range(panes.verdicts.row_count)}
    for verdict in report.statements:
        line = moves.now(verdict.line)
        if line is None or not 1 <= line <= len(now) or now[line - 1] != then[verdict.line - 1]:
            continue  # its line was changed or deleted: no claim on where it is
        assert panes.verdict_gutter.mark_at(line) == verdict_badge(verdict), (verdict.line, line)
        assert line in rows, (verdict.line, line, rows)
        if then.count(then[verdict.line - 1]) == 1 and now.count(now[line - 1]) == 1:
            assert now.index(then[verdict.line - 1]) == line - 1  # its own line, not a twin
    shown = panes.refs.origin
    for converted, source_line in report.conversion.source_map:
        line = moves.now(source_line)
        if shown.get(converted) is not None and line is not None:
            first = min(s for c, s in report.conversion.source_map if c == converted)
            assert shown[converted] == moves.now(first), (converted, source_line)
    # No mark where no statement of the report is now.
    for line in panes.verdict_gutter.badges:
        was = moves.was(line)
        assert was is not None and any(v.line == was for v in report.statements), line
    # The function list's number for each function whose def line is unchanged: its line now.
    picker = app.query_one("#picker")
    for (path, qualname), listed in list(picker._as_listed.items()):
        line = moves.now(listed.line)
        if line is not None and 1 <= line <= len(now) and now[line - 1] == then[listed.line - 1]:
            assert picker.label(path, qualname).startswith(f"{qualname} {line}"), (qualname, line)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_every_mark_stays_on_its_code_through_a_run_of_edits(seed):
    from agexplorer.tui.app import AgxApp

    app = AgxApp([TARGET], "bad_loop", worker=ReplayWorker())
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: app.workspace_ready and app.state.report is not None
                              and app.engine_ready, 60)
        await pilot.pause()
        report, source = app.state.report, app.panes.source
        assert report.statements and report.conversion is not None
        rng = random.Random(seed)
        for _ in range(60):  # no await between them: no pause, no request, no answer
            edit_once(source, rng)
            check_marks(app)
        assert app.state.report is report and app.state.moves  # the edits moved lines
        app.editing.stop()  # nothing is analysed: the replayed answers hold none of these
