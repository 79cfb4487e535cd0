"""Where a buffer's lines went as it was edited (no TensorFlow, no app)."""

from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from agexplorer.source.line_moves import NO_MOVES, LineMoves, Move, line_move, moved_lines

CODE = ["def f(n):", "    s = 0", "    for i in range(n):", "        s += i", "    return s"]


def edited(lines: list[str], row: int, column: int, end: tuple[int, int], text: str) -> list:
    """``lines`` with the text from (row, column) to ``end`` replaced by ``text``, as an
    editor does it."""
    whole = "\n".join(lines)
    offset = [sum(len(x) + 1 for x in lines[:r]) for r in range(len(lines))]
    start, stop = offset[row] + column, offset[end[0]] + end[1]
    return (whole[:start] + text + whole[stop:]).split("\n")


def where(before: list[str], after: list[str]) -> dict[int, int | None]:
    move = line_move(before, after)
    moves = NO_MOVES if move is None else NO_MOVES.then(move)
    return {line: moves.now(line) for line in range(1, len(before) + 1)}


def test_a_line_typed_above_moves_every_mark_below_it():
    after = edited(CODE, 0, 0, (0, 0), "# a note\n")
    assert where(CODE, after) == {1: 2, 2: 3, 3: 4, 4: 5, 5: 6}


def test_enter_at_the_end_of_a_line_keeps_its_mark_and_at_its_code_takes_it_down():
    end = edited(CODE, 2, len(CODE[2]), (2, len(CODE[2])), "\n        ")
    assert where(CODE, end)[3] == 3 and where(CODE, end)[4] == 5
    start = edited(CODE, 2, 4, (2, 4), "\n    ")  # the code now starts a line lower
    assert where(CODE, start)[3] == 4


def test_a_deleted_line_takes_its_mark_and_a_joined_line_keeps_the_first():
    deleted = CODE[:3] + CODE[4:]
    assert where(CODE, deleted) == {1: 1, 2: 2, 3: 3, 4: None, 5: 4}
    joined = edited(CODE, 2, len(CODE[2]), (3, 8), " ")  # for ...: s += i
    assert where(CODE, joined)[3] == 3 and where(CODE, joined)[4] is None


def test_an_edit_that_keeps_the_count_of_lines_moves_nothing():
    assert line_move(CODE, edited(CODE, 2, 19, (2, 20), "m")) is None


def test_moves_compose_and_read_back():
    moves = LineMoves().then(Move(1, 0, 2)).then(Move(6, 1, 0))  # 2 lines added, then 1 gone
    assert [moves.now(line) for line in (1, 3, 4, 5)] == [3, 5, None, 6]
    assert [moves.was(line) for line in (1, 2, 3, 5)] == [None, None, 1, 3]
    assert not NO_MOVES and moves


def test_records_move_to_their_lines_and_those_deleted_are_left_out():
    @dataclass(frozen=True)
    class Mark:
        line: int
        text: str

    marks = [Mark(3, "for"), Mark(4, "body")]
    assert moved_lines(marks, NO_MOVES) == marks
    moves = NO_MOVES.then(Move(4, 1, 0)).then(Move(1, 0, 1))
    assert moved_lines(marks, moves) == [Mark(4, "for")]


@settings(max_examples=300, deadline=None)
@given(size=st.integers(0, 12), data=st.data())
def test_unchanged_lines_are_followed_exactly_and_changed_ones_stay_in_the_change(size, data):
    # Every line is different (as most lines of code are): a line the edit did not touch
    # is found at its new place; one inside the edit stays inside it, or is gone.
    before = [f"line {i}" for i in range(size)]
    start = data.draw(st.integers(0, size))
    stop = data.draw(st.integers(start, size))
    added = data.draw(st.integers(0, 4))
    after = before[:start] + [f"new {j}" for j in range(added)] + before[stop:]
    moved = where(before, after)
    for line, now in moved.items():
        if line <= start or line > stop:
            assert now is not None and after[now - 1] == before[line - 1]
        else:
            assert now is None or start < now <= start + added
    move = line_move(before, after)
    if move is not None:  # and back: each line after the edit was where it came from
        for line in range(1, len(after) + 1):
            was = LineMoves((move,)).was(line)
            assert was is None or moved[was] == line
