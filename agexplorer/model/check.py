"""Verdict snapshots (`agexplorer check`): what a golden file holds, and what changed since."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from agexplorer.model.keras import keras_text
from agexplorer.model.text import plural

# The golden file's format; a file of another format is refused in one sentence. 2: the
# statements include conditional expressions (kind "ifexp"); a file of format 1 is read,
# and a conditional expression it lacks is told as judged since, not failed on.
FORMAT = 2
_READ = (1, 2)
_EXPRESSIONS_SINCE = 2  # the first format whose statements hold conditional expressions

ChangeKind = Literal["verdict", "statement-new", "statement-gone", "ops", "traces",
                     "target-new", "target-gone", "failed", "moved", "tensorflow", "keras"]
_COUNTS = ("ops", "traces")  # the kinds another TensorFlow or Keras may explain


@dataclass(frozen=True)
class StatementSnap:
    """One if/for/while of a target: where, what, and how AutoGraph treated it."""

    line: int
    kind: str
    header: str  # the statement's first line, without its colon: "for i in range(n)"
    verdict: str  # "staged" | "python" | "mixed" | "unreached"
    function: str  # the function it is in (a function the target reached, or itself)
    iterations: int | None = None  # how often a Python loop ran while tracing
    ops: int = 0  # graph ops the statement made
    file: str | None = None  # None: the target's own file

    @property
    def verdict_text(self) -> str:
        """``staged``, ``unrolled x200`` (the explorer's words for a loop run in Python)."""
        return f"unrolled x{self.iterations}" if self.verdict == "python" \
            and self.iterations is not None else self.verdict

    def to_dict(self) -> dict[str, Any]:
        """JSON form (the file only where it is not the target's)."""
        data = asdict(self)
        if self.file is None:
            del data["file"]
        return data


@dataclass(frozen=True)
class TargetSnap:
    """One checked function: its statements, its op count and its trace count (or why it
    could not be analysed)."""

    file: str  # relative to the golden file's folder
    function: str
    line: int = 0
    call: str | None = None  # --call, when given
    op_count: int = 0
    traces: int = 0  # function graphs the trace made: the function's own, each staged loop's
    #                  condition and body, each staged branch (see the README)
    statements: tuple[StatementSnap, ...] = ()
    error: str | None = None  # why it could not be analysed (one sentence)
    error_kind: str | None = None  # the error's kind: a golden failure of the same kind is
    #                                expected (a sample that shows a pitfall fails on purpose)

    @property
    def key(self) -> tuple[str, str]:
        """(file, function): how a target is matched between two snapshots."""
        return self.file, self.function

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        data = {"file": self.file, "function": self.function, "line": self.line,
                "call": self.call, "op_count": self.op_count, "traces": self.traces,
                "error": self.error, "error_kind": self.error_kind,
                "statements": [s.to_dict() for s in self.statements]}
        return {k: v for k, v in data.items() if v is not None}  # absent, not null: short diffs


@dataclass
class Snapshot:
    """Every target of one check, in a stable order, and the TensorFlow and Keras it was
    made with (empty: not recorded, as in golden files written before Keras was)."""

    targets: list[TargetSnap] = field(default_factory=list)
    tensorflow: str = ""
    keras: str = ""  # the version of the Keras tf.keras routed to
    keras_flavour: str = ""  # model/keras.py's KerasFlavour ("keras-3", "tf-keras"...)
    format: int = FORMAT  # the golden file's, where read from one

    def sorted(self) -> Snapshot:
        """Targets by file then line then name; statements by file then line."""
        def order(t: TargetSnap) -> TargetSnap:
            statements = sorted(t.statements, key=lambda s: (s.file or "", s.line, s.kind,
                                                             s.function, s.header))
            return replace(t, statements=tuple(statements))

        return replace(self, targets=sorted((order(t) for t in self.targets),
                                            key=lambda t: (t.file, t.line, t.function)))

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``--json`` and the golden file)."""
        return {"format": FORMAT, "tensorflow": self.tensorflow, "keras": self.keras,
                "keras_flavour": self.keras_flavour,
                "targets": [t.to_dict() for t in self.sorted().targets]}

    def dumps(self) -> str:
        """The golden file's text: sorted keys, one target's fields a line each and one
        statement a line, so a review diff shows exactly the statement that changed."""
        data = self.to_dict()
        lines = ["{", f'  "format": {FORMAT},', f'  "tensorflow": {json.dumps(self.tensorflow)},',
                 f'  "keras": {json.dumps(self.keras)},',
                 f'  "keras_flavour": {json.dumps(self.keras_flavour)},', '  "targets": [']
        for i, target in enumerate(data["targets"]):
            statements = target.pop("statements")
            lines.append("    {")
            for key in sorted(target):
                lines.append(f"      {json.dumps(key)}: {json.dumps(target[key])},")
            body = [f"        {json.dumps(s, sort_keys=True)}" for s in statements]
            lines.append('      "statements": [' + ("" if body else "]"))
            if body:
                lines.append(",\n".join(body))
                lines.append("      ]")
            lines.append("    }" + ("," if i < len(data["targets"]) - 1 else ""))
        lines += ["  ]", "}"]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Snapshot:
        """Read a golden file's object; ValueError (with what is wrong) when it is not one."""
        if not isinstance(data, dict) or data.get("format") not in _READ:
            raise ValueError(f"it is not an agexplorer check golden file of format {FORMAT}")
        try:
            targets = [TargetSnap(
                file=t["file"], function=t["function"], line=int(t.get("line", 0)),
                call=t.get("call"), op_count=int(t.get("op_count", 0)),
                traces=int(t.get("traces", 0)), error=t.get("error"),
                error_kind=t.get("error_kind"),
                statements=tuple(StatementSnap(**s) for s in t.get("statements", ())))
                for t in data["targets"]]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"a target in it is malformed ({type(exc).__name__}: {exc})") \
                from None
        # "keras" and "keras_flavour" came later: a file without them is read as not saying
        return cls(targets, str(data.get("tensorflow", "")), str(data.get("keras") or ""),
                   str(data.get("keras_flavour") or ""), int(data["format"]))


@dataclass(frozen=True)
class Change:
    """One difference between the golden snapshot and the current one. ``info`` changes are
    told, not failed on (a statement that only moved, another TensorFlow)."""

    kind: ChangeKind
    file: str
    line: int
    function: str
    before: str | None
    after: str | None
    header: str | None = None
    info: bool = False
    # A note about the TensorFlow or Keras in use ("tensorflow", "keras"; no file): the
    # targets, (file, function), whose op or trace counts it is the likely cause of changing.
    explains: tuple[tuple[str, str], ...] = ()

    def text(self, shown: Callable[[str], str] = str) -> str:
        """The sentence: ``train.py:42 `for i in range(n)`: staged -> unrolled x200``;
        ``shown`` turns the stored file into the path to print."""
        if self.kind in ("tensorflow", "keras"):  # about the whole check: no file, no line
            return self._environment_text()
        where = f"{shown(self.file)}:{self.line} `{self.header}`" if self.header is not None \
            else f"{shown(self.file)}::{self.function}"
        if self.kind in ("verdict", "ops", "traces"):
            return f"{where}: {self.before} -> {self.after}"
        return f"{where}: " + {
            "statement-new": f"new statement ({self.after})" if not self.info else
                             f"a conditional expression ({self.after}), judged since the "
                             "golden file was written (run with --update to record it)",
            "statement-gone": f"gone (it was {self.before})",
            "target-new": "new target, not in the golden file (run with --update to add it)",
            "target-gone": "in the golden file but no longer found with a ready call",
            "failed": f"could not be analysed: {self.after}" if not self.info else
                      f"fails as the golden file records ({self.after})",
            "moved": f"moved from line {self.before}, verdict unchanged ({self.after})",
        }[self.kind]

    def _environment_text(self) -> str:
        if self.kind == "tensorflow":
            made = f"the golden file was made with TensorFlow {self.before}, this is {self.after}"
            cause, may = "the TensorFlow release", "op counts may differ between releases"
        else:  # before and after: keras_text's "Keras 3 (keras 3.15.1)"
            made = f"the golden file was made with {self.before}, this is {self.after}"
            cause, may = "Keras", "the op counts of Keras code may differ"
        if not self.explains:
            return f"{made} ({may})"
        names = [function for _, function in self.explains]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        return f"{made}: {cause} is the likely cause of the changed op or trace counts of {listed}"

    def to_dict(self, shown: Callable[[str], str] = str) -> dict[str, Any]:
        """JSON form, with the sentence; a note about the whole check has null file, line and
        function."""
        whole = not self.file
        data: dict[str, Any] = {"kind": self.kind, "file": None if whole else shown(self.file),
                "line": None if whole else self.line,
                "function": None if whole else self.function, "before": self.before,
                "after": self.after, "info": self.info, "message": self.text(shown)}
        if self.kind in ("tensorflow", "keras"):
            data["explains"] = [f"{shown(file)}::{function}" for file, function in self.explains]
        return data


def within(before: int, after: int, tolerance: float, percent: bool) -> bool:
    """Whether an op count moved no more than the tolerance (ops, or percent of before)."""
    allowed = before * tolerance / 100 if percent else tolerance
    return abs(after - before) <= allowed


def compare(golden: Snapshot, current: Snapshot, op_tolerance: float = 0,
            percent: bool = False) -> list[Change]:
    """What changed from ``golden`` to ``current``, target by target, in a stable order."""
    changes: list[Change] = []
    old = {t.key: t for t in golden.targets}
    new = {t.key: t for t in current.targets}
    for target in current.sorted().targets:
        before = old.get(target.key)
        if target.error is not None:  # told every time; a change unless the golden expects it
            expected = before is not None and before.error_kind is not None \
                and before.error_kind == target.error_kind
            changes.append(Change("failed", target.file, target.line, target.function,
                                  before.error if before else None, target.error,
                                  info=expected))
        elif before is None:
            changes.append(Change("target-new", target.file, target.line, target.function,
                                  None, None))
        else:
            changes += _target_changes(before, target, op_tolerance, percent,
                                       judged_since=golden.format < _EXPRESSIONS_SINCE)
    for target in golden.sorted().targets:
        if target.key not in new:
            changes.append(Change("target-gone", target.file, target.line, target.function,
                                  None, None))
    return _environment(golden, current, changes) + changes


def _environment(golden: Snapshot, current: Snapshot, changes: list[Change]) -> list[Change]:
    """A note for another TensorFlow and one for another Keras than the golden file's. The
    targets whose op or trace counts changed are put down to Keras when it differs (Keras
    builds the layers' ops, and its flavour changes them), else to TensorFlow; not a target
    whose statements changed too (its code did: that explains its counts better)."""
    edited = {(c.file, c.function) for c in changes if c.kind not in _COUNTS and not c.info}
    counted = tuple(dict.fromkeys((c.file, c.function) for c in changes
                                  if c.kind in _COUNTS and (c.file, c.function) not in edited))
    tf_differs = bool(golden.tensorflow and current.tensorflow
                      and golden.tensorflow != current.tensorflow)
    # Only when both files say: a golden file from before Keras was recorded proves nothing.
    keras_differs = bool(golden.keras_flavour and current.keras_flavour) and (
        (golden.keras, golden.keras_flavour) != (current.keras, current.keras_flavour))
    notes = []
    if tf_differs:
        notes.append(Change("tensorflow", "", 0, "", golden.tensorflow, current.tensorflow,
                            info=True, explains=() if keras_differs else counted))
    if keras_differs:
        notes.append(Change("keras", "", 0, "", keras_text(golden.keras, golden.keras_flavour),
                            keras_text(current.keras, current.keras_flavour), info=True,
                            explains=counted))
    return notes


def _target_changes(before: TargetSnap, after: TargetSnap, tolerance: float,
                    percent: bool, judged_since: bool = False) -> list[Change]:
    """``judged_since``: the golden file is of a format before conditional expressions were
    judged (a new one is told, not failed on)."""
    changes = _statement_changes(before, after, judged_since)
    where = (after.file, after.line, after.function)
    if before.error is None and not within(before.op_count, after.op_count, tolerance, percent):
        changes.append(Change("ops", *where, plural(before.op_count, "op"),
                              plural(after.op_count, "op")))
    if before.error is None and before.traces != after.traces:
        # (the kind and the JSON key say "traces": the graphs one trace made, not retraces)
        changes.append(Change("traces", *where, plural(before.traces, "function graph"),
                              plural(after.traces, "function graph")))
    return changes


def _statement_changes(before: TargetSnap, after: TargetSnap,
                       judged_since: bool = False) -> list[Change]:
    """Pair statements by function, kind and header first (a moved loop is the same loop),
    then by function, kind and line (an edited header is the same statement), then by
    function and kind in order (a loop edited and moved at once)."""
    olds = list(before.statements)
    pairs: list[tuple[StatementSnap, StatementSnap]] = []
    unpaired: list[StatementSnap] = []
    for rule in (lambda s: (s.file, s.function, s.kind, s.header),
                 lambda s: (s.file, s.function, s.kind, s.line),
                 lambda s: (s.file, s.function, s.kind)):
        unpaired = []
        for stmt in _remaining(after.statements, pairs):
            match = next((o for o in olds if rule(o) == rule(stmt)), None)
            if match is None:
                unpaired.append(stmt)
            else:
                olds.remove(match)
                pairs.append((match, stmt))
    changes: list[Change] = []
    file = after.file
    for old, new in sorted(pairs, key=lambda p: (p[1].file or "", p[1].line)):
        at = (new.file or file, new.line, new.function)
        if old.verdict_text != new.verdict_text:
            changes.append(Change("verdict", *at, old.verdict_text, new.verdict_text,
                                  header=new.header))
        elif old.line != new.line:
            changes.append(Change("moved", *at, str(old.line), new.verdict_text,
                                  header=new.header, info=True))
    for new in unpaired:
        changes.append(Change("statement-new", new.file or file, new.line, new.function, None,
                              new.verdict_text, header=new.header,
                              info=judged_since and new.kind == "ifexp"))
    for old in olds:
        changes.append(Change("statement-gone", old.file or file, old.line, old.function,
                              old.verdict_text, None, header=old.header))
    return changes


def _remaining(statements: tuple[StatementSnap, ...],
               pairs: list[tuple[StatementSnap, StatementSnap]]) -> list[StatementSnap]:
    paired = {id(new) for _, new in pairs}
    return [s for s in statements if id(s) not in paired]
