"""The doctor's results: the pitfall codes, findings, a function's report, rewrites and fix trials."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

from agexplorer.model.errors import AgxError
from agexplorer.model.report import LOOPS, CallSite, Verdict

# code -> (title, why): the why is one teaching sentence, the same for every finding.
CODES: dict[str, tuple[str, str]] = {
    "AGX001": ("Python print", "A Python print runs while tf.function traces the function; the "
               "graph that later calls run has no trace of it."),
    "AGX002": ("Python state changed", "Python statements run while tracing, not when the graph "
               "runs: a global, a list or an attribute they change moves once per trace, and "
               "calls of the graph leave it alone."),
    "AGX003": ("list.append in a loop", "A Python list only exists while tracing: a staged loop "
               "body is traced once, so the list gets one symbolic tensor from inside the "
               "loop's graph, which cannot be used outside it."),
    "AGX004": ("loop unrolled while tracing", "A loop over a Python value (or on a Python "
               "condition) runs in Python while tracing: its body is copied into the graph "
               "once per iteration, so the graph grows with the count and a new count traces "
               "again."),
    "AGX005": ("tf.Variable created inside", "tf.function lets a function create variables only "
               "on its first trace: a tf.Variable(...) that runs on every call would be a new "
               "variable each time, so tf.function refuses it."),
    "AGX006": ("tensor turned into a Python value", "Inside a graph a tensor is symbolic and has "
               "no value until the graph runs: .numpy(), bool() and NumPy's functions fail "
               "while tracing, and "
               "int()/float() work only because AutoGraph rewrites them as a tf.cast to a dtype "
               "it picks."),
    "AGX007": ("Python or NumPy random", "Python's and NumPy's random functions run while "
               "tracing: the number they draw is stored in the graph as a constant, so every "
               "call gets the same value."),
    "AGX008": ("tf.function made repeatedly", "Each tf.function object keeps its own traces: "
               "making a new one inside a function or a loop throws them away, so every call "
               "traces again."),
    "AGX009": ("Python number argument", "tf.function traces once per distinct Python value of "
               "an argument: the number is baked into the graph as a constant, and each new "
               "value traces the function again."),
    "AGX010": ("loop variable changes shape or dtype",
               "A staged loop is one graph op whose variables "
               "keep one dtype and shape on every iteration: a variable whose shape or dtype "
               "after the body differs from the one it entered with makes tracing fail, "
               "unless a shape invariant allows it."),
    "AGX011": ("return inside a staged loop",
               "A staged loop is one graph op that runs to its end: a `return` inside it "
               "would need the function's result before the loop exists, so AutoGraph "
               "refuses it (\"a return statement cannot be placed inside this TensorFlow "
               "loop\"), while a `break` it stages into the loop's condition."),
    "AGX012": ("static size that is None",
               "`x.shape` is what tracing knows of a tensor's shape: a dimension it does not "
               "know (None in an input_signature, a dataset's batch) is None there, and "
               "Python cannot compare or count with None; `tf.shape(x)` is the shape when "
               "the graph runs."),
    "AGX013": ("Python dict looked up with a tensor",
               "A dict hashes its keys, and a tensor while tracing is symbolic: it has no "
               "value to hash, so the lookup raises; a tf.lookup table made once from the "
               "dict looks up by value when the graph runs."),
    "AGX014": ("staged if with unmatched branches",
               "AutoGraph stages an if on a tensor as a tf.cond, which gives every value the "
               "if sets, and the function's result where a branch returns, from both "
               "branches and with one dtype: a value one branch leaves unset, or a return "
               "on one path only, has nothing to give on the other."),
    "AGX015": ("zip or enumerate over tensors",
               "AutoGraph stages `for x in tensor:` as a tf.while_loop, but zip() and "
               "enumerate() are Python's builtins: they iterate a tensor element by element, "
               "which a symbolic tensor cannot do while tracing."),
    "AGX016": ("comprehension over a tensor",
               "AutoGraph converts for statements, not list, set or dict comprehensions and "
               "generator expressions: Python runs them as written, and a symbolic tensor "
               "cannot be iterated while tracing."),
    "AGX017": ("assert on a tensor",
               "AutoGraph leaves assert statements to Python unless the function asks for "
               "the optional feature ASSERT_STATEMENTS, and Python cannot take a symbolic "
               "tensor as a bool while tracing; tf.debugging.Assert is an op that checks "
               "the condition each time the graph runs."),
    "AGX018": ("list appended in a staged branch",
               "AutoGraph stages an if on a tensor as a tf.cond, whose branches are traced as "
               "functions of their own: a value a branch appends to a Python list made "
               "outside it is a tensor of that branch's graph, which no code after the if "
               "can use; a value the branch sets is returned by the tf.cond instead."),
}


# What trying a finding's rewrite during the doctor showed (one trace of the rewritten copy,
# no run): "staged", the loop became a graph loop; "unstaged", it traced but the loop still
# ran in Python; "traced", it traced (a rewrite that is no loop's); "fails", tracing raised,
# so the rewrite is not offered; "not-tried", see NotTried.
TryOutcome = Literal["staged", "unstaged", "traced", "fails", "not-tried"]
# Why it was not tried: "budget", the doctor's time for trials was spent (or one trace takes
# longer than what was left); "not-traced", the function itself did not trace; "other-file",
# the loop is in a helper whose file a trial cannot load rewritten (a notebook's cell).
NotTried = Literal["budget", "not-traced", "other-file"]


@dataclass(frozen=True)
class Tried:
    """A finding's rewrite tried while the doctor ran: the outcome and what it rests on."""

    outcome: TryOutcome
    graph_op: str | None = None  # "staged": the op the loop became (While, StatelessWhile)
    error: str | None = None  # "fails": what tracing raised (``TypeError: ...``)
    error_line: int | None = None  # "fails": the user's line it raised at
    why_not: NotTried | None = None  # "not-tried": why
    budget_s: float | None = None  # "not-tried" for the budget: the doctor's time for trials

    def text(self) -> str:
        """The sentence the finding's fix carries: ``tried: the rewrite stages the loop as a
        While op``."""
        if self.outcome == "staged":
            op = self.graph_op or "graph loop"
            return f"tried: the rewrite stages the loop as {'an' if op[0] in 'AEIOU' else 'a'} {op} op"
        if self.outcome == "unstaged":
            return "tried: the rewrite traces, but the loop still runs in Python"
        if self.outcome == "traced":
            return "tried: the rewrite traces"
        if self.outcome == "fails":
            where = f"line {self.error_line} raises " if self.error_line else "it raises "
            return f"tried: the rewrite fails to trace ({where}{self.error})"
        if self.why_not == "not-traced":
            return "not tried (the function itself did not trace)"
        if self.why_not == "other-file":
            return ("not tried (it is in a file that a trial cannot load rewritten, such as "
                    "a notebook's cell)")
        budget = f" {self.budget_s:g} s" if self.budget_s is not None else ""
        return f"not tried (the doctor's{budget} for trying rewrites was spent)"


@dataclass
class Finding:
    """One pitfall at one line of the user's file."""

    code: str
    line: int
    message: str
    why: str
    fix: str | None
    rewrite: str | None = None  # the mechanical rewrite doctor.rewrites offers, in words
    col: int = 0  # 0-based character column of the flagged node
    basis: str = "static"  # "trace": the trace confirmed it; "static": the parse alone
    subject: str | None = None  # the name involved: list, parameter, global, wrapped function
    tried: Tried | None = None  # the rewrite tried while the doctor ran (None: not offered)
    # A finding in a function the examined one reached (a helper, maybe of another file):
    # that function's file and qualified name, and the call path from the examined function
    # (``CallSite``s, the helper's def line last). None: in the examined function itself.
    file: str | None = None
    function: str | None = None
    call_path: tuple[CallSite, ...] | None = None
    # The trace failed on it: the error's own words and line say so (its rewrite is then
    # tried even though the function did not trace: it is what would make it trace).
    cause: bool = False

    @property
    def title(self) -> str:
        """The code's short title (from :data:`CODES`)."""
        return CODES[self.code][0]

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {**asdict(self), "title": self.title}


@dataclass
class DoctorReport:
    """The doctor's answer for one function. Picklable."""

    file: str
    function: str
    first_line: int = 0
    end_line: int = 0
    call: str | None = None
    call_origin: str | None = None
    traced: bool = False
    findings: list[Finding] = field(default_factory=list)
    error: AgxError | None = None  # why the function did not trace (or load)
    # What to know first: a plain function that drives the file's tf.functions (``main``)
    # is not checked itself, only the tf.functions it calls (see doctor.checks.examine).
    note: str | None = None

    @property
    def target(self) -> str:
        """``PATH::FUNCTION``."""
        return f"{self.file}::{self.function}"

    def to_dict(self) -> dict[str, Any]:
        """The ``doctor --json`` object for one function."""
        return {"target": self.target, "file": self.file, "function": self.function,
                "first_line": self.first_line, "end_line": self.end_line,
                "call": {"args": self.call, "origin": self.call_origin},
                "traced": self.traced, "findings": [f.to_dict() for f in self.findings],
                "error": self.error.to_dict() if self.error is not None else None,
                "note": self.note}


@dataclass
class Rewrite:
    """One mechanical rewrite of a file (or of the call) for one finding."""

    code: str
    line: int
    description: str
    new_text: str | None  # the whole file rewritten; None when only the call changes
    new_call: str | None  # the call rewritten; None when it stays as it was
    old_sha: str  # sha256 of the text it was made from: apply_fix refuses a changed file
    # The flagged statement's line in ``new_text``, where lines inserted above it moved it
    # (a zip loop's lists stacked before it); None: still ``line``.
    new_line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return asdict(self)

    def made_from(self, text: str) -> bool:
        """Whether ``text`` is the text this rewrite was made from (nothing changed since)."""
        return text_sha(text) == self.old_sha


def text_sha(text: str) -> str:
    """The sha256 a rewrite keeps of the text it was made from."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class TrialSide:
    """One side (before or after the rewrite) of a fix trial."""

    file: str
    call: str | None
    verdicts: list[Any]  # model.report.Verdict, one per if/for/while
    op_count: int | None
    trace_s: float | None
    error: AgxError | None = None
    lab: Any = None  # model.lab.RunLab, or None when it could not run

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"call": self.call, "verdicts": [v.to_dict() for v in self.verdicts],
                "op_count": self.op_count, "trace_s": self.trace_s,
                "error": self.error.to_dict() if self.error is not None else None,
                "lab": self.lab.to_dict() if self.lab is not None else None}


@dataclass
class FixTrial:
    """A rewrite tried: the function's verdicts, ops, timings and results, before and after."""

    file: str
    function: str
    finding: Finding
    rewrite: Rewrite
    diff: str
    before: TrialSide
    after: TrialSide
    results_equal: bool | None = None  # the original run eagerly vs the rewrite as a graph
    results_note: str = ""

    @property
    def parts(self) -> list[Any]:
        """The nested results (for engine.buffer.Shadow.fix)."""
        return [self.before, self.after, self.before.lab, self.after.lab]

    def modes_note(self) -> str | None:
        """Where the rewrite's modes disagree and the original's did not: what each gave,
        and why where it is known (an array of ``dynamic_size=True``, which XLA returns
        empty); None otherwise. "Same result" compares the graph alone with the original."""
        after, before = self.after.lab, self.before.lab
        if after is None or after.results_match is not False or (
                before is not None and before.results_match is False):
            return None
        gave = "; ".join(f"{mode} {run.result}" for mode, run in after.runs.items()
                         if run.result is not None)
        note = f"but the rewrite's modes disagree ({gave})"
        xla = after.runs.get("xla")
        if xla is not None and xla.result is not None and "dynamic_size=True" in self.diff:
            note += (": XLA returns a tf.TensorArray made with dynamic_size=True empty; size "
                     "it with the loop's count (tf.TensorArray(dtype, size=n)) and write each "
                     "step at its index to compile it with XLA")
        return note + "."

    def to_dict(self) -> dict[str, Any]:
        """The ``doctor --try --json`` object."""
        return {"file": self.file, "function": self.function, "finding": self.finding.to_dict(),
                "rewrite": self.rewrite.to_dict(), "diff": self.diff,
                "before": self.before.to_dict(), "after": self.after.to_dict(),
                "results_equal": self.results_equal, "results_note": self.results_note,
                "modes_note": self.modes_note()}


def offers_fix(v: Verdict) -> bool:
    """A loop run in Python whose verdict offers a fix (not one unrolled on purpose)."""
    return v.kind in LOOPS and v.verdict == "python" and bool(v.hint) and v.intended is None


def with_tried_fixes(verdicts: list[Verdict], findings: list[Finding],
                     function: str | None = None) -> list[Verdict]:
    """The verdicts of the explored function (``function`` None) or of the function it reached
    named ``function``, with the fix of each unrolled loop as the trial of the doctor's
    rewrite for it (``findings``, AGX004) left it: kept with "Tried: the rewrite stages the
    loop as a While op.", or, where the rewrite failed, the doctor's advice instead and the
    error; one not tried says so and why. A verdict with no finding is unchanged."""
    tried = {f.line: f for f in findings if f.code == "AGX004" and f.function == function
             and f.tried is not None}
    changed = []
    for v in verdicts:
        finding = tried.get(v.line) if offers_fix(v) else None
        if finding is not None and finding.tried is not None:
            if finding.tried.outcome == "fails":  # the finding's fix: instead, and the error
                v = replace(v, hint=finding.fix)
            else:
                sentence = finding.tried.text()
                v = replace(v, hint=f"{v.hint} {sentence[0].upper()}{sentence[1:]}.")
        changed.append(v)
    return changed


def report_with_tried_fixes(report: Any, findings: list[Finding]) -> Any:
    """``report`` (a Report) with the fixes of its own unrolled loops and of the functions
    its trace reached as their trials left them (see :func:`with_tried_fixes`)."""
    reached = [replace(r, statements=tuple(with_tried_fixes(list(r.statements), [
        f for f in findings if f.file == r.file], r.function))) for r in report.reached]
    return replace(report, statements=with_tried_fixes(report.statements, findings),
                   reached=reached)
