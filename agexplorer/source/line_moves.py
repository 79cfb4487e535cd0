"""Where a text's lines went as it was edited: marks made for one version of a buffer (a
report's verdicts, their colours, the converted code's source lines) kept on the same code in
a later version, until an answer for that version comes.

An edit is read as editors read it: the lines before the first changed line and after the
last one are the same lines, moved (``Move``); inside the change, a line keeps its place from
the change's start as long as the change still has that many lines, and is gone otherwise.
So a line typed above a statement moves its mark down with it, Enter at the start of a
statement's code moves the mark with the code, Enter at its end leaves the mark where it is,
and a deleted line takes its mark with it. An edit that keeps the count of lines moves
nothing: the marks stay on their lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Move:
    """At line ``start`` (1-based) ``removed`` lines became ``added`` lines; the lines after
    them moved by ``added - removed``."""

    start: int
    removed: int
    added: int

    def after(self, line: int) -> int | None:
        """Where ``line`` of the text before the edit is in the text after it (None: gone)."""
        if line < self.start:
            return line
        if line >= self.start + self.removed:
            return line + self.added - self.removed
        return line if line - self.start < self.added else None

    def before(self, line: int) -> int | None:
        """Where ``line`` of the text after the edit was before it (None: a new line)."""
        if line < self.start:
            return line
        if line >= self.start + self.added:
            return line - self.added + self.removed
        return line if line - self.start < self.removed else None


def line_move(before: Sequence[str], after: Sequence[str]) -> Move | None:
    """The edit that made ``after`` of ``before`` (each a list of lines), as one ``Move``;
    None where the count of lines is the same (nothing moved)."""
    if len(before) == len(after):
        return None
    shortest = min(len(before), len(after))
    top = 0
    while top < shortest and before[top] == after[top]:
        top += 1
    bottom = 0  # the same lines at the end, below the top ones
    while bottom < shortest - top and before[-1 - bottom] == after[-1 - bottom]:
        bottom += 1
    return Move(top + 1, len(before) - top - bottom, len(after) - top - bottom)


@dataclass(frozen=True)
class LineMoves:
    """The moves from one version of a text to a later one, in order (empty: the same
    lines)."""

    moves: tuple[Move, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.moves)

    def then(self, move: Move) -> LineMoves:
        """These moves, then ``move``."""
        return LineMoves((*self.moves, move))

    def now(self, line: int) -> int | None:
        """Where ``line`` of the first version is in the last (None: gone)."""
        at = line
        for move in self.moves:
            moved = move.after(at)
            if moved is None:
                return None
            at = moved
        return at

    def was(self, line: int) -> int | None:
        """Where ``line`` of the last version was in the first (None: a line added since)."""
        at = line
        for move in reversed(self.moves):
            was = move.before(at)
            if was is None:
                return None
            at = was
        return at


NO_MOVES = LineMoves()


def moved_lines(items: Sequence[T], moves: LineMoves) -> list[T]:
    """``items`` (records with a ``line``, such as a report's verdicts) at their lines after
    ``moves``; one whose line was deleted is left out."""
    if not moves:
        return list(items)
    moved: list[T] = []
    for item in items:
        was: Any = item
        line = moves.now(was.line)
        if line is not None:
            moved.append(item if line == was.line else replace(was, line=line))
    return moved
