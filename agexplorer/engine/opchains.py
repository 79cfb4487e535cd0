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


def caller_frames(root_file: str, user_code: Any) -> frozenset[tuple[str, int]]:
    """(file, line) of every frame of the user's code on the stack now, above the engine.

    In a notebook the cell that asks for a report is the user's code, often the very cell
    that defines the function: the ops tf.function makes for the call (its inputs and
    outputs) would be charged to the line that asked. Those frames made nothing of the
    function, wherever they are.
    """
    found = set()
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        file = frame.f_code.co_filename
        if file == root_file or file in user_code:
            found.add((file, frame.f_lineno))
        frame = frame.f_back
    return frozenset(found)


class OpChains:
    """The user-code chain of every op made while active, by (id(graph), op name)."""

    def __init__(self, root_file: str, user_code: Any,
                 outer: frozenset[tuple[str, int]] = frozenset()) -> None:
        self.by_op: dict[tuple[int, str], Chain] = {}
        self.user_code = user_code  # supports ``filename in user_code``
        self.root_file = root_file
        self.outer = outer  # the caller's frames (see caller_frames): never an op's maker
        # id(code object) -> _SKIP (library code), _USER, or _MAPPED (AutoGraph's generated
        # code, whose lines the source map turns into the user's): most frames of a deep
        # stack are TensorFlow's or Keras's, told apart here without reading their line
        # numbers. By id: a code object's own hash works through its bytecode and constants
        # each time (~0.9 us for TensorFlow's long functions, at each of ~35 frames an op:
        # most of this hook's cost). The codes are kept, so that their ids stay theirs.
        self._kinds: dict[int, int] = {}
        self._codes: list[Any] = []
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
        self._kinds[id(code)] = kind
        self._codes.append(code)
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
            kind = kinds.get(id(code))
            if kind is None:
                kind = self._kind(code)
            if kind == _USER:
                if (code.co_filename, frame.f_lineno) not in self.outer:
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
