"""What a one-page summary says, as plain rows shared by the Markdown and HTML pages."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from agexplorer.model.doctor import DoctorReport, Finding
from agexplorer.model.lab import RunLab
from agexplorer.model.report import Report, Verdict
from agexplorer.model.text import seconds_text
from agexplorer.render.badges import verdict_badge
from agexplorer.source.cells import shown_name

VERDICTS = ("staged", "python", "mixed", "unreached")
# What each verdict means, for the legend of a page.
VERDICT_WORDS = {
    "staged": "staged: AutoGraph made a graph op (tf.cond, tf.while_loop)",
    "python": "python: ran in Python while tracing (a loop unrolled, one branch taken)",
    "mixed": "mixed: staged on some passes, run in Python on others",
    "unreached": "unreached: the trace never ran it",
}
RETRACE_WORDS = {
    "variables": "its first call created variables, so TensorFlow traced again to run with "
                 "them as state",
    "signature": "a later call's arguments had a new signature (another shape, dtype or Python "
                 "value), and each new signature is a new trace",
}


@dataclass
class FunctionPage:
    """One function of a page: its report, run lab and doctor's findings, or why there are none."""

    file: str
    function: str
    report: Report | None = None
    lab: RunLab | None = None
    doctor: DoctorReport | None = None
    error: str | None = None  # one sentence: why it could not be analysed (or what failed)

    @property
    def statements(self) -> list[Verdict]:
        """Its own verdicts, then those of the functions of the user's code it reached."""
        if self.report is None:
            return []
        return list(self.report.statements) + [v for f in self.report.reached
                                               for v in f.statements]

    @property
    def op_count(self) -> int | None:
        """The ops of its traced graph (None: it did not trace)."""
        inv = self.report.inventory if self.report is not None else None
        return len(inv.ops) if inv is not None else None

    def counts(self) -> dict[str, int]:
        """How many statements got each verdict."""
        found = dict.fromkeys(VERDICTS, 0)
        for v in self.statements:
            found[v.verdict] = found.get(v.verdict, 0) + 1
        return found

    @property
    def findings(self) -> list[Finding]:
        """The doctor's findings (none when the doctor did not run)."""
        return list(self.doctor.findings) if self.doctor is not None else []

    @property
    def refused(self) -> str | None:
        """Why AutoGraph did not convert it (tf.function then traced it as written), if so."""
        r = self.report
        return r.conversion_note if r is not None else None

    @property
    def load_note(self) -> str | None:
        """What the file's module-level code raised while it loaded, and how it went on."""
        r = self.report
        return r.load_note if r is not None else None

    @property
    def doctor_note(self) -> str | None:
        """Why the doctor has nothing to say, when it failed on a function that did trace."""
        d = self.doctor
        if d is None or d.error is None or self.error:
            return None
        return f"the doctor could not examine it: {d.error.message}"

    @property
    def call_text(self) -> str | None:
        """``range_loop(5)``: the call traced, when known (``report.call_origin``: from where)."""
        r = self.report
        if r is None or r.call is None:
            return None
        return f"{self.function.split('.')[-1]}({r.call})"


@dataclass
class FilePage:
    """A page for one file (or one function of it)."""

    file: str
    functions: list[FunctionPage] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # functions with no ready call
    module_findings: list[Finding] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The file's name, as the page's title says it."""
        return shown_name(self.file)


@dataclass(frozen=True)
class LoopRow:
    """An unrolled loop: where, how often its body ran, the ops it made and their share."""

    function: str
    file: str
    line: int
    header: str
    iterations: int
    ops: int
    share: float | None  # of the traced function's ops (None: no op count)
    hint: str | None


def unrolled_loops(fp: FunctionPage) -> list[LoopRow]:
    """Loops that ran in Python while tracing, the most ops first."""
    total = fp.op_count
    rows = [LoopRow(v.function or fp.function, v.file or fp.file, v.line, v.header,
                    v.iterations or 0, v.ops_created,
                    v.ops_created / total if total else None, v.hint)
            for v in fp.statements
            if v.unrolled]
    return sorted(rows, key=lambda r: (-r.ops, -r.iterations, r.line))


def verdict_detail(v: Verdict) -> str:
    """The verdict in the words every view uses (``unrolled x5``, ``took true``), and the
    op a staged statement became (``staged StatelessWhile``)."""
    return verdict_badge(v) + (f" {v.graph_op}" if v.graph_op else "")


def retrace_text(lab: RunLab | None) -> str | None:
    """Why graph mode traced more than once, in a sentence (None: it traced once, or did not run)."""
    if lab is None:
        return None
    graph = lab.runs.get("graph")
    count = graph.tracing_count if graph is not None and graph.tracing_count else lab.tracing_count
    if not count or count < 2:
        return None
    why = RETRACE_WORDS.get(lab.retrace_reason or "", "the reason is not known")
    return f"graph mode traced {count} times: {why}."


def timing_rows(lab: RunLab) -> list[list[str]]:
    """One row per mode: mode, result or error, first call, median, calls, traces, speed-up."""
    rows = []
    for mode, run in lab.runs.items():
        speed = lab.speedup.get(mode)
        outcome = (run.result or "") if run.ok else (run.error or "failed")
        rows.append([mode, outcome, seconds_text(run.first_call_s), seconds_text(run.median_s),
                     str(run.calls), "-" if run.tracing_count is None else str(run.tracing_count),
                     f"{speed:.3g}x" if speed else ("1.00x" if mode == "eager" and run.ok
                                                     else "-")])
    return rows


TIMING_HEADERS = ["mode", "result", "first call", "median", "calls", "traces", "speed-up"]


@dataclass(frozen=True)
class SourceLine:
    """One line of a function's source, with its verdict where a statement starts there."""

    number: int
    text: str
    verdict: str | None  # "staged", "python", "mixed", "unreached" (None: no if/for/while)
    badge: str  # "unrolled x5", "staged", "" ...
    ops: int  # ops made by the line


@dataclass(frozen=True)
class SourceBlock:
    """A function's source lines: the explored one, or one it reached."""

    function: str
    file: str
    lines: list[SourceLine]


def _lines(source: str, first: int, end: int, verdicts: list[Verdict],
           ops: dict[int | None, int]) -> list[SourceLine]:
    by_line: dict[int, Verdict] = {}
    for v in verdicts:
        by_line.setdefault(v.line, v)
    rows = []
    for offset, text in enumerate(textwrap.dedent(source).splitlines()):
        number = first + offset
        if offset and end and number > end:
            break
        found = by_line.get(number)
        rows.append(SourceLine(number, text, found.verdict if found else None,
                               verdict_badge(found) if found else "", ops.get(number, 0)))
    return rows


def source_blocks(fp: FunctionPage) -> list[SourceBlock]:
    """The explored function's source, then each function of the user's code it reached."""
    r = fp.report
    if r is None or not r.source:
        return []
    inv = r.inventory
    blocks = [SourceBlock(r.function, r.file, _lines(
        r.source, r.first_line, r.end_line, r.statements, inv.by_line(r.file) if inv else {}))]
    by_file = inv.by_file() if inv else {}
    for f in r.reached:
        if f.source:
            ops: dict[int | None, int] = {k: n for k, n in by_file.get(f.file, {}).items()}
            blocks.append(SourceBlock(f.function, f.file, _lines(
                f.source, f.first_line, f.end_line, list(f.statements), ops)))
    return blocks


_OPENS_AFTER = " \t\n("  # a code span's backtick opens after these, or at the start
_CLOSES_BEFORE = " \t\n.,;:)!?"  # and closes before these, or at the end


def _balanced(code: str) -> bool:
    return code.count('"') % 2 == 0 and code.count("'") % 2 == 0


def code_spans(text: str) -> list[tuple[str, bool]]:
    """A sentence as (part, is code) pairs, the `code` spans' backticks taken off.

    The sentences quote the user's code in backticks, and that code may hold backticks of
    its own: a span opens at a backtick after a space or an opening bracket, and
    closes at a later backtick before a space, punctuation or the end: the first whose span
    leaves no quote open, else the first. So the quoted line print("`a` | b") stays one span,
    and a lone backtick stays text."""
    parts: list[tuple[str, bool]] = []
    start = i = 0
    while (j := text.find("`", i)) >= 0:
        if j > 0 and text[j - 1] not in _OPENS_AFTER:
            i = j + 1
            continue
        closers = [k for k in range(j + 2, len(text)) if text[k] == "`"
                   and (k + 1 == len(text) or text[k + 1] in _CLOSES_BEFORE)]
        if not closers:
            break
        k = next((k for k in closers if _balanced(text[j + 1:k])), closers[0])
        if j > start:
            parts.append((text[start:j], False))
        parts.append((text[j + 1:k], True))
        start = i = k + 1
    if start < len(text):
        parts.append((text[start:], False))
    return parts


def where(file: str, line: int | None) -> str:
    """``train.py:42`` (a notebook's cell: ``In[3]:42``)."""
    name = shown_name(file) if file else ""
    if line is None:
        return name
    return f"{name}:{line}" if name else f"line {line}"
