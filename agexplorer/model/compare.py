"""Two functions side by side: their verdicts paired by statement, ops, timings, code diff."""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agexplorer.model.errors import AgxError
from agexplorer.model.lab import RunLab
from agexplorer.model.report import Verdict, uncounted, verdict_badge

MODES = ("eager", "graph", "xla")


@dataclass
class CompareSide:
    """One side of a comparison: what its report and run lab said, as plain data (no graph).
    ``error``: why it could not be analysed (or traced); what was learned before stays."""

    file: str
    function: str
    call: str | None = None
    call_origin: str | None = None
    op_count: int | None = None  # None: not traced
    ops_by_type: dict[str, int] = field(default_factory=dict)  # most common first
    trace_s: float | None = None
    statements: list[Verdict] = field(default_factory=list)  # the function's own if/for/while
    code: str | None = None  # tf.autograph.to_code (None: not converted)
    lab: RunLab | None = None  # eager/graph/XLA runs (None: --no-run, or it could not run)
    error: AgxError | None = None

    @property
    def label(self) -> str:
        """``file.py::function`` (the diff's and the report's heading for this side)."""
        return f"{os.path.basename(self.file)}::{self.function}"

    def median_s(self, mode: str) -> float | None:
        """The run lab's median per call in ``mode`` (None: not run, or it failed)."""
        run = self.lab.runs.get(mode) if self.lab is not None else None
        return run.median_s if run is not None and run.ok else None

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the comparison's ``left`` and ``right``)."""
        return {"target": f"{self.file}::{self.function}", "file": self.file,
                "function": self.function,
                "call": {"args": self.call, "origin": self.call_origin},
                "op_count": self.op_count, "ops_by_type": self.ops_by_type,
                "trace_s": self.trace_s, "statements": [v.to_dict() for v in self.statements],
                "converted": self.code,
                "timings": {m: self.median_s(m) for m in MODES},
                "lab": self.lab.to_dict() if self.lab is not None else None,
                "error": self.error.to_dict() if self.error is not None else None}


@dataclass(frozen=True)
class StatementPair:
    """A statement of the left function and its counterpart on the right (None: unpaired)."""

    left: Verdict | None
    right: Verdict | None

    @property
    def differs(self) -> bool:
        """Whether AutoGraph treated the two differently (or one side has no such statement)."""
        if self.left is None or self.right is None:
            return True
        return verdict_text(self.left) != verdict_text(self.right)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``{"left", "right", "differs"}`` (a side with no statement: null)."""
        return {"left": self.left.to_dict() if self.left is not None else None,
                "right": self.right.to_dict() if self.right is not None else None,
                "differs": self.differs}


def verdict_text(v: Verdict) -> str:
    """A verdict in a few words, for marking a change, in the explorer's words
    (``verdict_badge``): ``unrolled x200``, ``staged``, ``took true``, ``mixed 2+3``,
    ``in Python (not counted)``, ``unreached``."""
    return "in Python (not counted)" if uncounted(v) else verdict_badge(v)


def normalized_header(header: str) -> str:
    """A statement's header with its spacing and the trailing colon made uniform."""
    return " ".join(header.split()).rstrip(":").rstrip()


def pair_statements(left: Sequence[Verdict], right: Sequence[Verdict]) -> list[StatementPair]:
    """Pair two functions' statements by position and kind.

    difflib's SequenceMatcher over (kind, normalized header) pairs the statements that read
    the same; within a stretch that differs, a second match over the kinds alone pairs
    statements of one kind in order (``for i in range(n)`` with ``for i in tf.range(n)``).
    A statement left over has None on the other side; the order follows both functions.
    """
    keys_l = [(v.kind, normalized_header(v.header)) for v in left]
    keys_r = [(v.kind, normalized_header(v.header)) for v in right]
    pairs: list[StatementPair] = []
    matcher = difflib.SequenceMatcher(None, keys_l, keys_r, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs.extend(StatementPair(a, b) for a, b in zip(left[i1:i2], right[j1:j2], strict=True))
        else:
            pairs.extend(_pair_by_kind(left[i1:i2], right[j1:j2]))
    return pairs


def _pair_by_kind(left: Sequence[Verdict], right: Sequence[Verdict]) -> list[StatementPair]:
    kinds = difflib.SequenceMatcher(None, [v.kind for v in left], [v.kind for v in right],
                                    autojunk=False)
    pairs: list[StatementPair] = []
    for tag, i1, i2, j1, j2 in kinds.get_opcodes():
        if tag == "equal":
            pairs.extend(StatementPair(a, b) for a, b in zip(left[i1:i2], right[j1:j2], strict=True))
            continue
        pairs.extend(StatementPair(a, None) for a in left[i1:i2])
        pairs.extend(StatementPair(None, b) for b in right[j1:j2])
    return pairs


def code_diff(left: CompareSide, right: CompareSide) -> str:
    """The unified diff of the two sides' converted code, headed by each side's
    ``file::function`` (full paths when two files share a name); empty when they match."""
    names = (left.label, right.label)
    if names[0] == names[1] and left.file != right.file:
        names = (f"{left.file}::{left.function}", f"{right.file}::{right.function}")
    lines = difflib.unified_diff((left.code or "").splitlines(keepends=True),
                                 (right.code or "").splitlines(keepends=True),
                                 fromfile=names[0], tofile=names[1])
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def ratio(left: float | None, right: float | None) -> float | None:
    """``right / left`` (how many times the left's figure the right's is); None without both."""
    if left is None or right is None or left <= 0:
        return None
    return right / left


@dataclass
class Comparison:
    """Two functions (or one function twice) compared. Picklable.

    Only the explored functions' own statements are paired: the functions they reach are
    not, since two variants rarely reach the same helpers in the same order, and each
    side's ``agexplorer report`` shows its call tree.
    """

    left: CompareSide
    right: CompareSide
    diff: str = ""
    statements: list[StatementPair] = field(default_factory=list)

    @classmethod
    def of(cls, left: CompareSide, right: CompareSide) -> Comparison:
        """The comparison of two sides: their code diff and their statements paired."""
        return cls(left, right, diff=code_diff(left, right),
                   statements=pair_statements(left.statements, right.statements))

    @property
    def errors(self) -> list[AgxError]:
        """Each side's error, left first."""
        return [s.error for s in (self.left, self.right) if s.error is not None]

    def timings(self) -> dict[str, dict[str, float | None]]:
        """``{"trace_s" | "eager" | "graph" | "xla": {"left", "right", "ratio"}}``: seconds
        (a mode's median per call) and right / left."""
        figures = {"trace_s": (self.left.trace_s, self.right.trace_s)}
        figures.update({m: (self.left.median_s(m), self.right.median_s(m)) for m in MODES})
        return {key: {"left": a, "right": b, "ratio": ratio(a, b)}
                for key, (a, b) in figures.items()}

    def ops_difference(self) -> dict[str, int]:
        """Right's count minus left's, per op type (types of either side, most ops first);
        empty unless both sides traced."""
        if self.left.op_count is None or self.right.op_count is None:
            return {}
        a, b = self.left.ops_by_type, self.right.ops_by_type
        types = sorted(set(a) | set(b), key=lambda t: (-max(a.get(t, 0), b.get(t, 0)), t))
        return {t: b.get(t, 0) - a.get(t, 0) for t in types}

    def to_dict(self) -> dict[str, Any]:
        """The ``compare --json`` object (key names are a contract: see the README)."""
        return {"left": self.left.to_dict(), "right": self.right.to_dict(), "diff": self.diff,
                "statements": [p.to_dict() for p in self.statements],
                "op_count": {"left": self.left.op_count, "right": self.right.op_count},
                "ops_by_type": {"left": self.left.ops_by_type,
                                "right": self.right.ops_by_type,
                                "difference": self.ops_difference()},
                "timings": self.timings()}
