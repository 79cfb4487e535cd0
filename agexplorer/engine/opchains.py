"""Which lines of the user's code made each op, noted as the op is made.

Reading an op's stack trace afterwards (``op.traceback``) makes TensorFlow convert its
stored C++ frames into Python ones, and keep them: on a loop unrolled 20,000 times
(80,000 ops) that took a fifth of the trace's time and 1.7x a plain trace's memory.
While the recorder is on, each op's user frames are read here instead, from the live
Python stack as TensorFlow makes the op, mapped through AutoGraph's source map exactly
as TensorFlow maps the trace it stores; equal chains are shared. An op made where
nothing was noted (an op imported from a function library) falls back to its stack trace.
"""

from __future__ import annotations

import sys
from typing import Any

from agexplorer.engine import tf_internals

Chain = tuple[tuple[str, int], ...]  # (file, line) of each user frame, outermost first


class OpChains:
    """The user-code chain of every op made while active, by (id(graph), op name)."""

    def __init__(self, root_file: str, user_code: Any) -> None:
        self.by_op: dict[tuple[int, str], Chain] = {}
        self.user_code = user_code  # supports ``filename in user_code``
        self._user: dict[str, bool] = {root_file: True} if root_file else {}
        self._shared: dict[Chain, Chain] = {}

    def on_op(self, graph: Any, name: str) -> None:
        """Called as TensorFlow makes op ``name`` in ``graph``."""
        mapping = tf_internals.source_map()
        user = self._user
        found = []
        frame = sys._getframe(2)  # above this method and TensorFlow's constructor hook
        while frame is not None:
            file, line = frame.f_code.co_filename, frame.f_lineno
            mapped = mapping.get((file, line))
            if mapped is not None:
                file, line = mapped[0], mapped[1]
            mine = user.get(file)
            if mine is None:
                mine = user[file] = file in self.user_code
            if mine:
                found.append((file, line))
            frame = frame.f_back
        found.reverse()
        chain = tuple(found)
        self.by_op[(id(graph), name)] = self._shared.setdefault(chain, chain)

    def chain(self, graph: Any, name: str) -> Chain | None:
        """The chain noted for an op (None: it was not made while this was active)."""
        return self.by_op.get((id(graph), name))
