"""Try the fix: mechanical rewrites for the doctor's findings, measured side by side before applying.

A rewrite edits the file's text at the flagged node's position (the node's
line and UTF-8 byte columns, turned into character offsets), so everything
else in the file, comments and formatting included, stays byte-identical.

The rewrites, by finding code:

- AGX001 ``print(...)`` -> ``tf.print(...)`` (not with ``file=``/``flush=`` or an
  f-string, which would print the trace-time text on every call).
- AGX003 ``l = []`` ... ``for ...: l.append(v)`` ... ``tf.stack(l)`` / ``return l``
  -> a ``tf.TensorArray`` under the same name: ``l.write(i, v)`` into an array of
  ``size=n`` for ``for i in range(n)`` / ``tf.range(n)`` (XLA compiles it), else
  ``l.write(l.size(), v)`` with ``dynamic_size=True``; then ``l.stack()``. Only
  that shape (one ``[]``, one append directly in a ``for`` body, the list used
  after the loop only by ``tf.stack(l)`` or ``return l``); anything else gets no
  rewrite. The dtype: see :func:`_dtype`.
- AGX004 ``for ... in range(...)`` -> ``tf.range(...)``: the loop variable
  becomes an int32 tensor, and AutoGraph stages one tf.while_loop.
- AGX009 a Python number argument -> ``tf.constant(...)`` in the CALL; the file
  is unchanged (``new_text`` is None).
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import gast

from agexplorer.core.doctor import Finding, ParsedFile, _dotted, _params, diagnose
from agexplorer.core.errors import AgxError


@dataclass
class Rewrite:
    """One mechanical rewrite of a file (or of the call) for one finding."""

    code: str
    line: int
    description: str
    new_text: str | None  # the whole file rewritten; None when only the call changes
    new_call: str | None  # the call rewritten; None when it stays as it was
    old_sha: str  # sha256 of the text it was made from: apply_fix refuses a changed file

    def to_dict(self) -> dict:
        """JSON form."""
        return asdict(self)

    def made_from(self, text: str) -> bool:
        """Whether ``text`` is the text this rewrite was made from (nothing changed since)."""
        return _sha(text) == self.old_sha


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _replace(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _parents(tree: Any) -> dict[int, Any]:
    return {id(c): n for n in gast.walk(tree) for c in gast.iter_child_nodes(n)}


def _enclosing_def(mod: ParsedFile, line: int) -> Any:
    defs = [n for n in gast.walk(mod.tree) if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef))
            and n.lineno <= line <= (n.end_lineno or n.lineno)]
    return max(defs, key=lambda n: n.lineno, default=None)


# -- the rewrites -----------------------------------------------------------------------

def _print(mod: ParsedFile, finding: Finding, call: str | None) -> tuple[list, str, str | None] | None:
    node = next((n for n in gast.walk(mod.tree) if isinstance(n, gast.Call)
                 and isinstance(n.func, gast.Name) and n.func.id == "print"
                 and n.lineno == finding.line and mod.col(n) == finding.col), None)
    if node is None or mod.tf_name is None:
        return None
    if any(k.arg in ("file", "flush") for k in node.keywords) or any(
            isinstance(a, gast.JoinedStr) for a in node.args):
        return None
    start, end = mod.span(node.func)
    return [(start, end, f"{mod.tf_name}.print")], f"print(...) -> {mod.tf_name}.print(...)", None


def _range(mod: ParsedFile, finding: Finding, call: str | None) -> tuple[list, str, str | None] | None:
    node = next((n for n in gast.walk(mod.tree) if isinstance(n, gast.For)
                 and n.lineno == finding.line), None)
    if node is None or mod.tf_name is None or not isinstance(node.iter, gast.Call) \
            or _dotted(node.iter.func) != "range":
        return None
    start, end = mod.span(node.iter.func)
    return ([(start, end, f"{mod.tf_name}.range")],
            f"range(...) -> {mod.tf_name}.range(...): one tf.while_loop, the loop variable "
            "an int32 tensor", None)


def _int_expr(node: Any, counter: str) -> bool:
    if isinstance(node, gast.Name):
        return node.id == counter
    if isinstance(node, gast.Constant):
        return type(node.value) is int
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, gast.USub) and _int_expr(node.operand, counter)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult,
                                                              gast.FloorDiv, gast.Mod)):
        return _int_expr(node.left, counter) and _int_expr(node.right, counter)
    return False


def _dtype(mod: ParsedFile, value: Any, loop: Any) -> str:
    """The TensorArray's dtype.

    1. Said in the value: ``tf.cast(v, DT)`` or a ``dtype=DT`` keyword -> DT.
    2. An integer expression of the counter of a ``range``/``tf.range`` loop over
       Python ints or names (``i``, ``i * 2``) -> int32: tf.range's dtype for
       int32 bounds, and what AutoGraph's staged ``range`` yields.
    3. Otherwise float32, the dtype of most model values: a wrong guess shows up
       as a dtype error when the fix is tried, never as a silently changed result.
    """
    tf = mod.tf_name
    if isinstance(value, gast.Call):
        if mod.is_tf(_dotted(value.func), "cast") and len(value.args) >= 2:
            return mod.segment(value.args[1])
        for kw in value.keywords:
            if kw.arg == "dtype":
                return mod.segment(kw.value)
    it = loop.iter
    if isinstance(it, gast.Call) and isinstance(loop.target, gast.Name) \
            and (_dotted(it.func) == "range" or mod.is_tf(_dotted(it.func), "range")) \
            and not it.keywords and _int_expr(value, loop.target.id):
        return f"{tf}.int32"
    return f"{tf}.float32"


def _statement_lists(tree: Any) -> list[list[Any]]:
    return [getattr(n, f) for n in gast.walk(tree) for f in ("body", "orelse", "finalbody")
            if isinstance(getattr(n, f, None), list)]


def _tensorarray(mod: ParsedFile, finding: Finding, call: str | None
                 ) -> tuple[list, str, str | None] | None:
    func, name, tf = _enclosing_def(mod, finding.line), finding.subject, mod.tf_name
    if func is None or name is None or tf is None:
        return None
    parents = _parents(func)
    stmt = next((n for n in gast.walk(func) if isinstance(n, gast.Expr)
                 and n.lineno == finding.line and isinstance(n.value, gast.Call)
                 and isinstance(n.value.func, gast.Attribute) and n.value.func.attr == "append"
                 and isinstance(n.value.func.value, gast.Name) and n.value.func.value.id == name),
                None)
    if stmt is None or len(stmt.value.args) != 1 or stmt.value.keywords:
        return None
    loop = parents.get(id(stmt))
    if not isinstance(loop, gast.For) or not any(s is stmt for s in loop.body):
        return None
    names = [n for n in gast.walk(func) if isinstance(n, gast.Name) and n.id == name]
    stores = [n for n in names if not isinstance(n.ctx, gast.Load)]
    init = parents.get(id(stores[0])) if len(stores) == 1 else None
    if not (isinstance(init, gast.Assign) and len(init.targets) == 1
            and ((isinstance(init.value, gast.List) and not init.value.elts)
                 or (isinstance(init.value, gast.Call) and _dotted(init.value.func) == "list"
                 and not init.value.args and not init.value.keywords))
            and init.lineno < loop.lineno
            and any(any(s is init for s in body) and any(s is loop for s in body)
                    for body in _statement_lists(func))):
        return None
    value = stmt.value.args[0]
    dtype, bound = _dtype(mod, value, loop), _count(func, loop)
    if bound is not None:  # the lesson's shape, which XLA compiles too (see _count)
        made = f"{tf}.TensorArray({dtype}, size={mod.segment(bound)})"
        index = mod.segment(loop.target)
    else:
        made, index = f"{tf}.TensorArray({dtype}, size=0, dynamic_size=True)", f"{name}.size()"
    edits = [(*mod.span(init.value), made),
             (*mod.span(stmt.value), f"{name} = {name}.write({index}, {mod.segment(value)})")]
    for use in names:
        if use is stmt.value.func.value or use in stores:
            continue
        parent = parents.get(id(use))
        after = use.lineno > (loop.end_lineno or loop.lineno)
        if after and isinstance(parent, gast.Call) and mod.is_tf(_dotted(parent.func), "stack") \
                and len(parent.args) == 1 and parent.args[0] is use and not parent.keywords:
            edits.append((*mod.span(parent), f"{name}.stack()"))
        elif after and isinstance(parent, gast.Return) and parent.value is use:
            edits.append((*mod.span(use), f"{name}.stack()"))
        else:
            return None  # another use of the list (len, indexing, ...): not the simple shape
    if len(edits) == 2:
        return None
    return (edits, f"list + append -> {tf}.TensorArray: {name}.write({index}, ...), "
            f"{name}.stack()", None)


def _count(func: Any, loop: Any) -> Any:
    """The bound ``n`` of a ``for i in range(n)`` / ``tf.range(n)`` loop, when it can size the array.

    A TensorArray sized by the count and written at ``i`` is what XLA compiles
    correctly: with ``dynamic_size=True`` XLA silently returns an empty array.
    The bound is evaluated where the list was made, so it may only read names
    that the function never assigns.
    """
    it = loop.iter
    if not (isinstance(it, gast.Call) and len(it.args) == 1 and not it.keywords
            and isinstance(loop.target, gast.Name)
            and (_dotted(it.func) or "").split(".")[-1] == "range"):
        return None
    stored = {n.id for n in gast.walk(func) if isinstance(n, gast.Name)
              and isinstance(n.ctx, gast.Store)}
    read = {n.id for n in gast.walk(it.args[0]) if isinstance(n, gast.Name)}
    calls = any(isinstance(n, gast.Call) for n in gast.walk(it.args[0]))
    return None if read & stored or calls else it.args[0]


def _tensor_arg(mod: ParsedFile, finding: Finding, call: str | None
                ) -> tuple[list, str, str | None] | None:
    func, param = _enclosing_def(mod, finding.line), finding.subject
    if func is None or param is None or not call:
        return None
    import ast

    method = isinstance(_parents(mod.tree).get(id(func)), gast.ClassDef)
    params = _params(func, method)
    wrapper = f"f({call})"
    try:
        parsed = ast.parse(wrapper, mode="eval").body
    except SyntaxError:
        return None
    assert isinstance(parsed, ast.Call)
    arg = next((k.value for k in parsed.keywords if k.arg == param), None)
    if arg is None and param in params:
        index = params.index(param)
        if any(isinstance(a, ast.Starred) for a in parsed.args[:index + 1]) \
                or index >= len(parsed.args):
            return None
        arg = parsed.args[index]
    if arg is None:
        return None
    lines = wrapper.splitlines(keepends=True)

    def offset(line: int, byte_col: int) -> int:
        head = lines[line - 1].encode("utf-8")[:byte_col].decode("utf-8", "replace")
        return sum(len(x) for x in lines[:line - 1]) + len(head)

    start = offset(arg.lineno, arg.col_offset)
    end = offset(arg.end_lineno or arg.lineno, arg.end_col_offset or 0)
    new = wrapper[:start] + f"tf.constant({wrapper[start:end]})" + wrapper[end:]
    return [], f"{param}={wrapper[start:end]} -> tf.constant({wrapper[start:end]}) in the call", \
        new[2:-1]


_MAKERS: dict[str, Callable[..., tuple[list, str, str | None] | None]] = {
    "AGX001": _print, "AGX003": _tensorarray, "AGX004": _range, "AGX009": _tensor_arg}


def rewrite(text: str, finding: Finding, call: str | None = None) -> Rewrite | None:
    """The mechanical rewrite for ``finding`` in ``text`` (the file), or None when there is none.

    ``call``: the argument list the function is called with (AGX009 rewrites it).
    """
    maker = _MAKERS.get(finding.code)
    if maker is None:
        return None
    try:
        made = maker(ParsedFile(text), finding, call)
    except SyntaxError:
        return None
    if made is None:
        return None
    edits, description, new_call = made
    return Rewrite(code=finding.code, line=finding.line, description=description,
                   new_text=_replace(text, edits) if edits else None, new_call=new_call,
                   old_sha=_sha(text))


def function_diff(old: str, new: str, first: int, end: int, name: str) -> str:
    """A unified diff of lines ``first``..``end`` (the function) of two versions of a file."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    mine, theirs = a[first - 1:end], b[first - 1:end + len(b) - len(a)]
    lines = list(difflib.unified_diff(mine, theirs, f"{name} (before)", f"{name} (after)",
                                      n=max(len(mine), len(theirs))))

    def shift(m: re.Match[str]) -> str:  # hunk lines relative to the file, not the slice
        return f"{m.group(1)}{int(m.group(2)) + first - 1}"

    return "".join(re.sub(r"([-+])(\d+)", shift, line) if line.startswith("@@") else
                   line if line.endswith("\n") else line + "\n" for line in lines)


# -- trying it ---------------------------------------------------------------------------

@dataclass
class TrialSide:
    """One side (before or after the rewrite) of a fix trial."""

    file: str
    call: str | None
    verdicts: list[Any]  # core.verdicts.Verdict, one per if/for/while
    op_count: int | None
    trace_s: float | None
    error: AgxError | None = None
    lab: Any = None  # core.runs.RunLab, or None when it could not run

    def to_dict(self) -> dict:
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
        """The nested results (for core.shadow.Shadow.fix)."""
        return [self.before, self.after, self.before.lab, self.after.lab]

    def to_dict(self) -> dict:
        """The ``doctor --try --json`` object."""
        return {"file": self.file, "function": self.function, "finding": self.finding.to_dict(),
                "rewrite": self.rewrite.to_dict(), "diff": self.diff,
                "before": self.before.to_dict(), "after": self.after.to_dict(),
                "results_equal": self.results_equal, "results_note": self.results_note}


def pick_finding(findings: list[Finding], choice: str) -> Finding:
    """The finding ``--try CODE|LINE|CODE@LINE`` names, among those with a rewrite."""
    wanted = choice.strip().upper()
    ready = [f for f in findings if f.rewrite is not None]
    code, _, line = wanted.partition("@") if "@" in wanted else (
        (wanted, "", "") if wanted.startswith("AGX") else ("", "", wanted))
    match = [f for f in ready if (not code or f.code == code) and (not line or str(f.line) == line)]
    if match:
        return match[0]
    offered = ", ".join(f"{f.code} at line {f.line} ({f.rewrite})" for f in ready)
    raise AgxError("no-rewrite", f"no finding with a mechanical rewrite matches '{choice}'; "
                   + (f"these have one: {offered}." if offered else
                      "no finding of this function has one (see the fix text instead)."))


def _side(report: Any, lab: Any) -> TrialSide:
    return TrialSide(file=report.file, call=report.call, verdicts=report.statements,
                     op_count=len(report.inventory.ops) if report.inventory else None,
                     trace_s=report.timings.get("trace_s"), error=report.error, lab=lab)


def _lab(target: str, call: str | None, report: Any, device: str | None, budget: float,
         progress: Callable[[str], None] | None) -> Any:
    from agexplorer.core.loaded import ARGUMENT_ERRORS
    from agexplorer.core.runs import run_lab

    if report.error is not None and report.error.kind in ARGUMENT_ERRORS:
        return None
    return run_lab(target, call, device=device, budget=budget, progress=progress)


def _compare(old_target: str, old_call: str | None, new_target: str, new_call: str | None
             ) -> tuple[bool | None, str]:
    """The original run eagerly (what the Python means) against the rewrite as a graph."""
    from agexplorer.core.capture import capture_output
    from agexplorer.core.loaded import load_target
    from agexplorer.core.runs import same_result, summarize, to_host
    from agexplorer.core.tfenv import import_tf

    tf = import_tf()
    doing = "running the original eagerly"
    try:
        with capture_output():
            old = load_target(old_target, old_call)
            expected = to_host(old.bound(*old.args, **old.kwargs))
            doing = "running the rewrite as a graph"
            new = load_target(new_target, new_call)
            got = to_host(tf.function(new.bound, input_signature=new.signature)(
                *new.args, **new.kwargs))
    except AgxError as exc:
        return None, f"not compared: {doing} failed ({exc.message})"
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - user code can raise anything
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        return None, f"not compared: {doing} raised {type(exc).__name__}: {first}"
    equal = same_result(expected, got)
    return equal, (f"the original run eagerly gave {summarize(expected, 120)}; the rewrite as "
                   f"a graph gave {summarize(got, 120)}")


def try_fix(target: str, choice: str, call: str | None = None, budget: float = 0.5,
            device: str | None = None, progress: Callable[[str], None] | None = None,
            run: bool = True) -> FixTrial:
    """Rewrite ``target`` for the finding ``choice`` names (a code or a line) and compare.

    Both versions are traced (verdicts, op count, trace time) and, unless
    ``run`` is False, run in the run lab (eager, graph, XLA medians); the
    rewritten file lives in a temporary folder, the user's file is not touched.
    """
    from agexplorer.core.report import build_report
    from agexplorer.core.shadow import shadowed
    from agexplorer.core.targets import parse_spec, read_source

    say = progress or (lambda phase: None)
    spec = parse_spec(target)
    text = read_source(spec.path)
    report = build_report(target, call, progress=progress)
    doctor = diagnose(target, call, report=report)
    finding = pick_finding(doctor.findings, choice)
    made = rewrite(text, finding, report.call)
    assert made is not None  # pick_finding only offers findings whose rewrite exists
    say(f"running {doctor.function} as it is")
    before = _side(report, _lab(target, call, report, device, budget, progress) if run else None)
    after_call = made.new_call if made.new_call is not None else call
    with shadowed(target, made.new_text if made.new_text is not None else text) as (new, shadow):
        say(f"tracing {doctor.function} rewritten ({made.description})")
        after_report = shadow.fix(build_report(new, after_call))
        lab = _lab(new, after_call, after_report, device, budget, progress) if run else None
        after = _side(after_report, shadow.fix(lab))
        equal, note = _compare(target, call, new, after_call)
        note = shadow.fix_text(note) or ""
    if made.new_text is not None:
        diff = function_diff(text, made.new_text, doctor.first_line, doctor.end_line,
                             os.path.basename(spec.path))
    else:
        name = doctor.function.split(".")[-1]
        diff = (f"--- call (before)\n+++ call (after)\n@@ call @@\n-{name}({report.call})\n"
                f"+{name}({made.new_call})\n")
    return FixTrial(file=doctor.file, function=doctor.function, finding=finding, rewrite=made,
                    diff=diff, before=before, after=after, results_equal=equal,
                    results_note=note)


def apply_fix(path: str, made: Rewrite) -> str:
    """Write ``made`` to ``path`` atomically, keeping its encoding, BOM and line endings.

    Refuses when the file changed since the rewrite was made; returns the real path written
    (a symlink's target). A failed write leaves the file untouched (see ``write_source``).
    """
    from agexplorer.core.sourcefile import read_source_file, write_source

    path = os.path.abspath(path)
    if made.new_text is None:
        raise AgxError("call-only", f"the {made.code} fix changes the call, not the file: "
                       f'call the function with --call "{made.new_call}".')
    current = read_source_file(path)
    if not made.made_from(current.text):
        raise AgxError("file-changed", f"{path} changed on disk since the fix was made; "
                       "run the doctor again and retry.")
    return write_source(path, made.new_text, like=current)
