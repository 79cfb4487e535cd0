"""A trace that never ended because a function of the user's calls itself: RecursionError.

A tf.function traces both branches of an ``if`` whose condition is a tensor (tf.cond), the
recursive call in the other branch too, and that call traces the function again: the base
case never stops it. Said only from evidence: a RecursionError at the root of the error's
chain (AutoGraph wraps each level in a StagingError of its own), the same function of the
user's repeated down the chain, and, where the recorder saw it, the staged if in its lines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from agexplorer.model.report import CONDITIONALS, kind_words

# A function repeated this often down the chain is the recursion (Python's limit is ~1000).
_REPEATED = 20
_GENERATED = "__autograph_generated"


def _chain(exc: BaseException, limit: int = 5000) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(seen) < limit:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def recursion_advice(exc: BaseException, is_user: Callable[[str], bool],
                     calls: Sequence[Any], explored: tuple[str, str, int, int]) -> str | None:
    """What to do about a trace that raised RecursionError because a function of the user's
    code called itself; None for any other error. ``calls``: the recorder's (``kind``,
    ``file``, ``line``, ``path``); ``explored``: the explored function's file, name, first
    and last lines, where a staged if is looked for when it is the function repeated."""
    chain = list(_chain(exc))
    if not any(isinstance(e, RecursionError) for e in chain):
        return None
    names: Counter[str] = Counter()
    for error in chain:
        tb = error.__traceback__
        while tb is not None:
            code = tb.tb_frame.f_code
            if _GENERATED in code.co_filename and code.co_name.startswith("tf__"):
                names[code.co_name[4:]] += 1  # AutoGraph's copy of the user's function
            elif is_user(code.co_filename):
                names[code.co_name] += 1
            tb = tb.tb_next
    if not names:
        return None
    name, times = names.most_common(1)[0]
    if times < _REPEATED:
        return None
    file, explored_name, first, last = explored
    staged = sorted((c.line, c.kind) for c in calls if c.kind in CONDITIONALS
                    and c.path == "staged" and c.file == file and c.line is not None
                    and first <= c.line <= last) if name == explored_name else []
    said = f"{name} calls itself without end while it is traced"
    if staged:
        line, kind = staged[0]
        said += (f": its {kind_words(kind)} at line {line} has a tensor condition, so AutoGraph "
                 "stages it as tf.cond and traces both branches, the one that calls it again "
                 "too, and the base case never stops the trace")
    return (f"{said}. Recursion on a tensor cannot be staged: write it as a loop (a for over "
            "tf.range, or tf.while_loop), or recurse on a Python value (an int argument, so "
            "each depth is a Python choice made while tracing).")
