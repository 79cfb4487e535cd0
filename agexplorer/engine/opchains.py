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
from types import FrameType
from typing import Any

from agexplorer.engine import tf_internals

Chain = tuple[tuple[str, int], ...]  # (file, line) of each user frame, outermost first
_SKIP, _USER, _MAPPED = 0, 1, 2
_GENERATED = "__autograph_generated_file"


class OpChains:
    """The user-code chain of every op made while active, by (id(graph), op name)."""

    def __init__(self, root_file: str, user_code: Any) -> None:
        self.by_op: dict[tuple[int, str], Chain] = {}
        self.user_code = user_code  # supports ``filename in user_code``
        self.root_file = root_file
        # code object -> _SKIP (library code), _USER, or _MAPPED (AutoGraph's generated code,
        # whose lines the source map turns into the user's): most frames of a deep stack are
        # TensorFlow's or Keras's, told apart here without reading their line numbers.
        self._kinds: dict[Any, int] = {}
        self._shared: dict[Chain, Chain] = {}
        self.paused = 0  # >0 while a nested trace makes its own graph's ops (see Recorder)

    def _kind(self, code: Any) -> int:
        file = code.co_filename
        if _GENERATED in file:
            kind = _MAPPED
        elif file == self.root_file or file in self.user_code:
            kind = _USER
        else:
            kind = _SKIP
        self._kinds[code] = kind
        return kind

    def on_op(self, graph: Any, name: str) -> None:
        """Called as TensorFlow makes op ``name`` in ``graph``."""
        if self.paused:
            return
        mapping = tf_internals.source_map()
        kinds = self._kinds
        found = []
        frame: FrameType | None = sys._getframe(2)  # above this method and TensorFlow's constructor hook
        while frame is not None:
            code = frame.f_code
            kind = kinds.get(code)
            if kind is None:
                kind = self._kind(code)
            if kind == _USER:
                found.append((code.co_filename, frame.f_lineno))
            elif kind == _MAPPED:
                mapped = mapping.get((code.co_filename, frame.f_lineno))
                if mapped is not None and (mapped[0] == self.root_file
                                           or mapped[0] in self.user_code):
                    found.append((mapped[0], mapped[1]))
            frame = frame.f_back
        found.reverse()
        chain = tuple(found)
        self.by_op[(id(graph), name)] = self._shared.setdefault(chain, chain)

    def chain(self, graph: Any, name: str) -> Chain | None:
        """The chain noted for an op (None: it was not made while this was active)."""
        return self.by_op.get((id(graph), name))
