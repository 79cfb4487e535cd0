"""The rows of a view that changed between two paints, as runs (one region each)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence


def changed_runs(before: Sequence[object], after: Sequence[object]) -> Iterator[tuple[int, int]]:
    """(first row, row count) of each run of rows whose keys differ; the two sequences are
    the same view's rows, equally many. One region per run, not per row: Textual's
    compositor works through its dirty regions one by one (a gutter whose every number moved
    gave it 40)."""
    start = None
    for y, (old, new) in enumerate(zip(before, after, strict=True)):
        if old != new:
            if start is None:
                start = y
        elif start is not None:
            yield start, y - start
            start = None
    if start is not None:
        yield start, len(after) - start
