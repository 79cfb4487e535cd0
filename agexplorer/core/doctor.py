"""The pitfall doctor: static checks over a function's AST (gast), cross-checked with its trace.

Every finding carries a stable code. The codes, what they flag and when they
stay quiet (the README lists them from :data:`CODES`):

======  ==============================================================================
AGX001  a Python ``print`` inside the function (``tf.print`` is fine)
AGX002  a ``global``/``nonlocal`` name assigned inside the function
AGX003  ``.append`` on a Python list inside a loop (not for a loop over a Python
        container of layers or functions, whose unrolling is the point)
AGX004  a ``for``/``while`` the trace ran in Python and unrolled (over ``range``, a
        NumPy array, a literal list, or a Python condition); without a trace only
        ``range(<int literals>)`` and literal lists, marked as not confirmed
AGX005  ``tf.Variable(...)`` created inside the function (not when guarded by an
        ``if ... is None`` / ``if not ...``: create-once is the documented pattern)
AGX006  ``.numpy()``, or ``bool``/``int``/``float`` of a tensor expression (not of a
        literal, a ``len(...)`` or a static ``.shape``)
AGX007  ``random.*`` or ``np.random.*`` called inside the function
AGX008  ``tf.function`` made inside the function, or in a module-level loop
AGX009  a Python int/float/bool passed by the call to a parameter the function uses
        (not a bool that only chooses an ``if`` branch: that is what it is for)
======  ==============================================================================

Line numbers are 1-based lines of the user's file: the whole file is parsed.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import gast

from agexplorer.core.errors import AgxError

# code -> (title, why): the why is one teaching sentence, the same for every finding.
CODES: dict[str, tuple[str, str]] = {
    "AGX001": ("Python print", "A Python print runs while tf.function traces the function; the "
               "graph that later calls run has no trace of it."),
    "AGX002": ("Python global changed", "Python statements run while tracing, not when the graph "
               "runs: the name changes once per trace, and calls of the graph leave it alone."),
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
               "no value until the graph runs: .numpy() and bool() fail while tracing, and "
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
}

_LOOPS = (gast.For, gast.While)
_DEFS = (gast.FunctionDef, gast.AsyncFunctionDef)


@dataclass
class Finding:
    """One pitfall at one line of the user's file."""

    code: str
    line: int
    message: str
    why: str
    fix: str | None
    rewrite: str | None = None  # the mechanical rewrite core.fixes offers, in words
    col: int = 0  # 0-based character column of the flagged node
    basis: str = "static"  # "trace": the trace confirmed it; "static": the parse alone
    subject: str | None = None  # the name involved: list, parameter, global, wrapped function

    @property
    def title(self) -> str:
        """The code's short title (from :data:`CODES`)."""
        return CODES[self.code][0]

    def to_dict(self) -> dict:
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

    @property
    def target(self) -> str:
        """``PATH::FUNCTION``."""
        return f"{self.file}::{self.function}"

    def to_dict(self) -> dict:
        """The ``doctor --json`` object for one function."""
        return {"target": self.target, "file": self.file, "function": self.function,
                "first_line": self.first_line, "end_line": self.end_line,
                "call": {"args": self.call, "origin": self.call_origin},
                "traced": self.traced, "findings": [f.to_dict() for f in self.findings],
                "error": self.error.to_dict() if self.error is not None else None}


# -- the parse --------------------------------------------------------------------------

def _dotted(node: Any) -> str | None:
    """``tf.random.normal`` for a chain of attributes on a name, else None."""
    parts: list[str] = []
    while isinstance(node, gast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, gast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


class ParsedFile:
    """What the doctor needs from the whole file: its aliases and literal globals."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tree = gast.parse(text)
        # Line starts as the tokenizer counts lines (str.splitlines also splits on \f).
        self.starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
        self.tf: list[str] = []
        self.np: list[str] = []
        self.random: list[str] = []
        self.numbers: dict[str, Any] = {}
        self.lists: set[str] = set()
        for node in self.tree.body:
            if isinstance(node, gast.Import):
                for alias in node.names:
                    bound = alias.asname or alias.name
                    {"tensorflow": self.tf, "numpy": self.np, "random": self.random,
                     "numpy.random": self.random}.get(alias.name, []).append(bound)
            elif isinstance(node, gast.ImportFrom) and node.module == "numpy":
                self.random += [a.asname or a.name for a in node.names if a.name == "random"]
            elif isinstance(node, gast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], gast.Name):
                name, value = node.targets[0].id, node.value
                if isinstance(value, gast.Constant) and type(value.value) in (int, float, bool):
                    self.numbers[name] = value.value
                elif isinstance(value, gast.List):
                    self.lists.add(name)

    @property
    def tf_name(self) -> str | None:
        """How the file names TensorFlow (``tf``), or None when it does not import it."""
        return self.tf[0] if self.tf else None

    def is_tf(self, dotted: str | None, *attrs: str) -> bool:
        """Whether ``dotted`` is ``<tf alias>.<attr>`` for one of ``attrs``."""
        return dotted is not None and any(dotted == f"{t}.{a}" for t in self.tf or ["tf"]
                                          for a in attrs)

    def segment(self, node: Any) -> str:
        """The node's source text (gast keeps CPython's byte columns)."""
        return ast.get_source_segment(self.text, node) or ""

    def col(self, node: Any) -> int:
        """The node's 0-based character column."""
        return self.offset(node.lineno, node.col_offset) - self.starts[node.lineno - 1]

    def offset(self, line: int, byte_col: int) -> int:
        """The character offset in the text of a (1-based line, UTF-8 byte column) position."""
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        head = self.text[start:end].encode("utf-8")[:byte_col]
        return start + len(head.decode("utf-8", "replace"))

    def span(self, node: Any) -> tuple[int, int]:
        """The node's (start, end) character offsets in the text."""
        return (self.offset(node.lineno, node.col_offset),
                self.offset(node.end_lineno, node.end_col_offset))

    def find(self, qualname: str, first_line: int = 0) -> tuple[Any, bool]:
        """(the def node, whether it is a method) for a qualname, else by its first line."""
        body, node, parent = self.tree.body, None, None
        for part in qualname.split("."):
            parent = node
            node = next((n for n in body if isinstance(n, (*_DEFS, gast.ClassDef))
                         and n.name == part), None)
            if node is None:
                break
            body = node.body
        if isinstance(node, _DEFS):
            return node, isinstance(parent, gast.ClassDef)
        for n in gast.walk(self.tree):
            if isinstance(n, _DEFS) and min([n.lineno, *(d.lineno for d in n.decorator_list)]) \
                    == first_line:
                return n, False
        return None, False


def _parents(root: Any) -> dict[int, Any]:
    found: dict[int, Any] = {}
    for node in gast.walk(root):
        for child in gast.iter_child_nodes(node):
            found[id(child)] = node
    return found


def _ancestors(node: Any, parents: dict[int, Any], stop: Any) -> Iterator[Any]:
    node = parents.get(id(node))
    while node is not None and node is not stop:
        yield node
        node = parents.get(id(node))


def _params(func: Any, method: bool) -> list[str]:
    args = func.args
    names = [a.id for a in args.posonlyargs + args.args]
    static = any(_dotted(d) == "staticmethod" for d in func.decorator_list)
    return names[1:] if method and not static and names else names


# -- the checks -------------------------------------------------------------------------

class _Doctor:
    """Runs the checks over one function, with the trace's results when there are any."""

    def __init__(self, mod: ParsedFile, func: Any, method: bool, report: Any) -> None:
        self.mod, self.func, self.report = mod, func, report
        self.params = _params(func, method)
        self.parents = _parents(func)
        self.traced = report is not None and report.inventory is not None
        self.verdicts = {(v.kind, v.line): v for v in (report.statements if report else [])}
        self.findings: list[Finding] = []
        self.args = self._call_args()

    def add(self, code: str, node: Any, message: str, fix: str | None, basis: str = "static",
            subject: str | None = None) -> None:
        self.findings.append(Finding(code=code, line=node.lineno, message=message,
                                     why=CODES[code][1], fix=fix, col=self.mod.col(node),
                                     basis=basis, subject=subject))

    def nodes(self) -> Iterator[Any]:
        """Every node of the body (not the decorators: a ``@tf.function(...)`` is no pitfall)."""
        for stmt in self.func.body:
            yield from gast.walk(stmt)

    def loop_of(self, node: Any) -> Any:
        return next((a for a in _ancestors(node, self.parents, self.func)
                     if isinstance(a, _LOOPS)), None)

    def verdict(self, loop: Any) -> Any:
        return self.verdicts.get(("for" if isinstance(loop, gast.For) else "while", loop.lineno))

    def not_traced(self) -> str:
        error = self.report.error if self.report is not None else None
        if error is not None and error.kind in ("needs-arguments", "bad-call"):
            return "the function was not traced (it has no call arguments; pass --call)"
        return "the function did not trace, so this is from the source alone"

    def run(self) -> list[Finding]:
        for check in (self.prints, self.globals, self.appends, self.loops, self.variables,
                      self.values, self.randoms, self.functions, self.scalars):
            check()
        return self.findings

    # AGX001
    def prints(self) -> None:
        printed = (self.report.output or "").splitlines() if self.report else []
        for node in self.nodes():
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                    and node.func.id == "print":
                text = self.mod.segment(node)
                words = [a.value for a in node.args
                         if isinstance(a, gast.Constant) and isinstance(a.value, str) and a.value]
                seen = next((p for p in printed if words and words[0] in p), None)
                if self.traced and seen:
                    shown = seen if len(seen) <= 70 else seen[:69] + "…"
                    message = (f"`{text}` printed {shown!r} once, while tracing; calls of "
                               "the graph print nothing")
                    basis = "trace"
                else:
                    message = f"`{text}` prints only while tracing, never when the graph runs"
                    basis = "static"
                self.add("AGX001", node, message, "use tf.print(...), a graph op that prints on "
                         "every call (use print only to see when tracing happens).", basis)

    # AGX002
    def globals(self) -> None:
        declared: dict[str, str] = {}
        for node in self.nodes():
            if isinstance(node, (gast.Global, gast.Nonlocal)):
                kind = "global" if isinstance(node, gast.Global) else "nonlocal"
                declared.update({n: kind for n in node.names})
        done: set[str] = set()
        for node in self.nodes():
            targets = node.targets if isinstance(node, (gast.Assign, gast.Delete)) else \
                [node.target] if isinstance(node, (gast.AugAssign, gast.AnnAssign)) else []
            for target in targets:
                if isinstance(target, gast.Name) and target.id in declared \
                        and target.id not in done:
                    done.add(target.id)
                    name, kind = target.id, declared[target.id]
                    self.add("AGX002", node, f"`{self.mod.segment(node)}` changes the Python "
                             f"{kind} `{name}` once per trace, not on every call: call the "
                             f"graph twice and `{name}` has moved once",
                             "keep the state in a tf.Variable made once outside the function "
                             "and update it with .assign(...) / .assign_add(...).",
                             "trace" if self.traced else "static", name)

    # AGX003
    def _lists(self) -> set[str]:
        local = set()
        for node in self.nodes():
            if isinstance(node, gast.Assign) and isinstance(node.value, (gast.List, gast.ListComp)):
                local |= {t.id for t in node.targets if isinstance(t, gast.Name)}
            elif isinstance(node, gast.Assign) and isinstance(node.value, gast.Call) \
                    and _dotted(node.value.func) == "list":
                local |= {t.id for t in node.targets if isinstance(t, gast.Name)}
        return local | {n for n in self.mod.lists if n not in self.params}

    def _loop_mode(self, loop: Any) -> str:
        """``staged``, ``unrolled`` (a count: range, a while), ``container``, ``unreached``."""
        v = self.verdict(loop)
        if v is not None and v.verdict == "staged":
            return "staged"
        if v is not None and v.verdict == "python":
            if isinstance(loop, gast.While) or (v.value or "").startswith(("range(", "a NumPy")):
                return "unrolled"
            return "container"
        if self.traced:
            return "unreached"
        if isinstance(loop, gast.While):
            return "unknown"
        it = _dotted(loop.iter.func) if isinstance(loop.iter, gast.Call) else None
        if it == "range" or self.mod.is_tf(it, "range"):
            return "unknown"
        return "container"

    def appends(self) -> None:
        lists = self._lists()
        for node in self.nodes():
            if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
                    and node.func.attr == "append" and isinstance(node.func.value, gast.Name)
                    and node.func.value.id in lists):
                continue
            loop = self.loop_of(node)
            if loop is None:
                continue
            name, mode = node.func.value.id, self._loop_mode(loop)
            v = self.verdict(loop)
            where = f"the loop at line {loop.lineno}"
            if mode == "staged":
                message = (f"`{name}.append(...)` sits in {where}, which AutoGraph staged as a "
                           f"tf.while_loop: the body was traced once, so `{name}` holds one "
                           "tensor from inside the loop's graph")
                error = self.report.error if self.report else None
                if error is not None and error.kind == "trace-failed":
                    message += "; using it after the loop is what made tracing fail"
                basis = "trace"
            elif mode == "unrolled":
                message = (f"`{name}.append(...)` works here only because {where} ran in Python "
                           f"(unrolled x{v.iterations}); staged as a tf.while_loop (tf.range, a "
                           "tensor condition) it would collect one placeholder and fail")
                basis = "trace"
            elif mode == "unknown":
                message = (f"`{name}.append(...)` in {where}: if the loop is staged the list "
                           f"gets one placeholder and fails; {self.not_traced()}")
                basis = "static"
            else:
                continue
            self.add("AGX003", node, message, f"collect into a tf.TensorArray: `{name} = "
                     f"tf.TensorArray(dtype, size=n)` and `{name} = {name}.write(i, value)` in "
                     f"the loop (size=0, dynamic_size=True and .write({name}.size(), value) when "
                     f"the count is unknown), then `{name}.stack()`.", basis, name)

    # AGX004
    def loops(self) -> None:
        for node in self.nodes():
            if not isinstance(node, _LOOPS):
                continue
            v = self.verdict(node)
            literal = isinstance(node, gast.For) and isinstance(node.iter, (gast.List, gast.Tuple))
            header = (f"for {self.mod.segment(node.target)} in {self.mod.segment(node.iter)}:"
                      if isinstance(node, gast.For) else f"while {self.mod.segment(node.test)}:")
            if v is not None and v.verdict == "python":
                if not v.iterations:
                    continue
                counted = isinstance(node, gast.While) or literal or \
                    (v.value or "").startswith(("range(", "a NumPy"))
                if not counted:
                    continue  # a Python container (layers, functions): unrolling is the point
                per = v.ops_created // v.iterations
                ops = (f"its {per} op{'s' if per != 1 else ''} copied {v.iterations} times "
                       f"({v.ops_created} ops)" if per else
                       "adding no ops: its result is folded into the graph as a constant")
                times = f"unrolled {v.iterations} time{'s' if v.iterations != 1 else ''}"
                python = [n for n, d in v.names if d.startswith("the Python")]
                if isinstance(node, gast.While):
                    said = ", ".join(f"{n} is {d}" for n, d in v.names)
                    message = (f"`{header}` ran in Python while tracing (its condition was a "
                               f"Python bool: {said}): {times}, {ops}")
                    fix = v.hint if python and python[-1] in self.params else (
                        "make the condition a tensor (compare tensors, e.g. a counter made "
                        "with tf.constant) so AutoGraph builds one tf.while_loop.")
                else:
                    message = (f"`{header}` ran in Python while tracing, over {v.value}: "
                               f"{times}, {ops}")
                    fix = v.hint
                    it = node.iter
                    if isinstance(it, gast.Call) and _dotted(it.func) == "range":
                        bounds = ", ".join(self.mod.segment(a) for a in it.args)
                        fix = (f"iterate over {self.mod.tf_name or 'tf'}.range({bounds}) so "
                               "AutoGraph builds one tf.while_loop whatever the count.")
                self.add("AGX004", node, message, fix, "trace")
            elif (v is None or v.verdict == "unreached") and not self.traced \
                    and isinstance(node, gast.For):
                call = node.iter if isinstance(node.iter, gast.Call) else None
                fixed = call is not None and _dotted(call.func) == "range" and call.args and \
                    all(isinstance(a, gast.Constant) and isinstance(a.value, int) for a in call.args)
                if fixed or literal:
                    self.add("AGX004", node, f"`{header}` loops over a Python value, so it "
                             f"would unroll while tracing; not confirmed: {self.not_traced()}",
                             "iterate over tf.range(...) (or a tensor) so AutoGraph builds one "
                             "tf.while_loop.")

    # AGX005
    def variables(self) -> None:
        for node in self.nodes():
            if isinstance(node, gast.Call) and self.mod.is_tf(_dotted(node.func), "Variable"):
                guarded = any(isinstance(a, gast.If) and (
                    (isinstance(a.test, gast.UnaryOp) and isinstance(a.test.op, gast.Not))
                    or any(isinstance(op, (gast.Is, gast.IsNot)) for c in gast.walk(a.test)
                           if isinstance(c, gast.Compare) for op in c.ops))
                    for a in _ancestors(node, self.parents, self.func))
                if guarded:
                    continue
                error = self.report.error if self.report else None
                failed = error is not None and "Variable" in error.message
                self.add("AGX005", node, f"`{self.mod.segment(node)}` creates a variable inside "
                         "the function" + ("; tracing refused it" if failed else
                                           ", which tf.function allows only on the first trace"),
                         "create the variable once, outside the function (or in __init__), "
                         "and only .assign(...) to it inside.", "trace" if failed else "static")

    # AGX006
    def _tensor_names(self) -> set[str]:
        names = {p for p, (kind, _) in self.args.items() if kind == "tensor"}
        for v in self.verdicts.values():
            names |= {n for n, d in v.names if d.startswith(("a tensor", "a tf.Variable"))}
        return names

    def _tensorish(self, node: Any, names: set[str]) -> bool:
        if isinstance(node, gast.Constant):
            return False
        if isinstance(node, gast.Attribute) and node.attr in ("shape", "dtype", "ndim", "name"):
            return False
        if isinstance(node, gast.Call):
            func = _dotted(node.func)
            if func in ("len", "int", "float", "bool", "str", "round"):
                return False
            if func is not None and func.split(".")[0] in (self.mod.tf or ["tf"]):
                return True
        if isinstance(node, gast.Name):
            return node.id in names
        return any(self._tensorish(c, names) for c in gast.iter_child_nodes(node))

    def values(self) -> None:
        names = self._tensor_names()
        error = self.report.error if self.report else None
        for node in self.nodes():
            if not isinstance(node, gast.Call):
                continue
            text = self.mod.segment(node)
            if isinstance(node.func, gast.Attribute) and node.func.attr == "numpy" \
                    and not node.args:
                failed = error is not None and "numpy" in error.message
                self.add("AGX006", node, f"`{text}` asks a symbolic tensor for its value while "
                         "tracing" + ("; that is what made tracing fail" if failed else
                                      ": it fails in a graph"),
                         "keep it a tensor: use tf ops on it (tf.math, tf.cast) instead of "
                         "NumPy.", "trace" if failed else "static")
            elif isinstance(node.func, gast.Name) and node.func.id in ("bool", "int", "float") \
                    and len(node.args) == 1 and self._tensorish(node.args[0], names):
                if node.func.id == "bool":
                    message = (f"`{text}` needs the tensor's value while tracing: in a graph it "
                               "raises OperatorNotAllowedInGraphError")
                    fix = ("keep it a tensor: compare with tf ops and let AutoGraph stage the "
                           "if (tf.cond), or tf.cast(..., tf.bool).")
                else:
                    dtype = "tf.int32" if node.func.id == "int" else "tf.float32"
                    message = (f"`{text}` turns a tensor into a Python number: AutoGraph quietly "
                               f"rewrites it as tf.cast(..., {dtype}), and without AutoGraph "
                               "it fails")
                    fix = f"say what you mean: tf.cast(..., {dtype}) (or the dtype you need)."
                self.add("AGX006", node, message, fix)

    # AGX007
    def randoms(self) -> None:
        for node in self.nodes():
            if not isinstance(node, gast.Call):
                continue
            func = _dotted(node.func) or ""
            head, _, rest = func.partition(".")
            numpy = head in self.mod.np and rest.startswith("random.")
            if (head in self.mod.random and rest) or numpy:
                origin = "NumPy" if numpy or head != "random" else "Python"
                self.add("AGX007", node, f"`{self.mod.segment(node)}` draws a {origin} random "
                         "number once, while tracing: every call of the graph reuses it",
                         "use tf.random.uniform / tf.random.normal (new values on every call), "
                         "or a tf.random.Generator made once outside the function.",
                         "trace" if self.traced else "static")

    # AGX008
    def functions(self) -> None:
        for node in self.nodes():
            if isinstance(node, gast.Call) and self.mod.is_tf(_dotted(node.func), "function"):
                inner = self.mod.segment(node.args[0]) if node.args else "a function"
                self.add("AGX008", node, f"`{self.mod.segment(node)}` makes a new tf.function "
                         f"each time `{self.func.name}` runs, so `{inner}` is traced again on "
                         "every call", "make it once, at module level, and call that one.",
                         subject=inner)
            elif isinstance(node, _DEFS) and any(
                    self.mod.is_tf(_dotted(d.func if isinstance(d, gast.Call) else d), "function")
                    for d in node.decorator_list):
                self.add("AGX008", node, f"the @tf.function `{node.name}` is defined inside "
                         f"`{self.func.name}`: a new tf.function, traced again, on every call",
                         f"define `{node.name}` once, at module level.", subject=node.name)

    # AGX009
    def _call_args(self) -> dict[str, tuple[str, Any]]:
        """Parameter -> ("python", value) or ("tensor", text) from the call string."""
        found: dict[str, tuple[str, Any]] = {}
        report = self.report
        if report is not None and report.call and report.call_origin in ("--call", "AGX_CALLS"):
            try:
                call = ast.parse(f"f({report.call})", mode="eval").body
            except SyntaxError:
                call = None
            if isinstance(call, ast.Call):
                pairs = list(zip(self.params, call.args, strict=False)) + \
                    [(k.arg, k.value) for k in call.keywords if k.arg]
                for param, arg in pairs:
                    if isinstance(arg, ast.Starred):
                        break
                    found[param] = self._kind(arg)
            for v in report.statements:
                for name, desc in v.names:
                    if name in self.params and desc.startswith("the Python ") \
                            and found.get(name, ("", None))[0] != "python":
                        kind, _, value = desc[len("the Python "):].partition(" ")
                        if kind in ("int", "float", "bool"):
                            found[name] = ("python", (kind, value))
        return found

    def _kind(self, arg: ast.expr) -> tuple[str, Any]:
        negative = isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub)
        node = arg.operand if isinstance(arg, ast.UnaryOp) and \
            isinstance(arg.op, (ast.USub, ast.UAdd)) else arg
        value: Any = None
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            value = node.value
            value = -value if negative else value
        elif isinstance(node, ast.Name) and node.id in self.mod.numbers:
            value = self.mod.numbers[node.id]
        if value is not None:
            return "python", (type(value).__name__, repr(value))
        func = arg.func if isinstance(arg, ast.Call) else None
        head = ast.unparse(func).split(".")[0] if func is not None else ""
        return ("tensor" if head in ("tf", *self.mod.tf) else "other"), ast.unparse(arg)

    def scalars(self) -> None:
        for param, (kind, detail) in self.args.items():
            if kind != "python" or param not in self.params:
                continue
            type_name, value = detail
            uses = sorted((n for n in self.nodes() if isinstance(n, gast.Name)
                           and n.id == param and isinstance(n.ctx, gast.Load)),
                          key=lambda n: (n.lineno, n.col_offset))
            if not uses:
                continue
            if type_name == "bool" and all(self._only_tests(u) for u in uses):
                continue
            origin = self.report.call_origin
            first = uses[0]
            self.add("AGX009", first, f"`{param}` is the Python {type_name} {value} (from "
                     f"{origin}): tracing bakes it into the graph as a constant, so every new "
                     f"value of `{param}` traces `{self.func.name}` again",
                     f"pass a tensor, e.g. tf.constant({value}), or give the function an "
                     "input_signature.", "trace" if self.traced else "static", param)

    def _only_tests(self, use: Any) -> bool:
        parent = self.parents.get(id(use))
        if isinstance(parent, gast.UnaryOp) and isinstance(parent.op, gast.Not):
            use, parent = parent, self.parents.get(id(parent))
        return isinstance(parent, (gast.If, gast.While, gast.IfExp)) and parent.test is use


def _module_loops(mod: ParsedFile) -> list[Finding]:
    """AGX008 at module level: ``tf.function(...)`` called inside a top-level for/while."""
    found = []
    for stmt in mod.tree.body:
        stack = [stmt] if isinstance(stmt, _LOOPS) else \
            [s for s in getattr(stmt, "body", []) if isinstance(s, _LOOPS)] \
            if isinstance(stmt, gast.If) else []
        for loop in stack:
            for node in gast.walk(loop):
                if isinstance(node, gast.Call) and mod.is_tf(_dotted(node.func), "function"):
                    wrapped = mod.segment(node.args[0]) if node.args else None
                    found.append(Finding(
                        code="AGX008", line=node.lineno, col=mod.col(node),
                        message=f"`{mod.segment(node)}` runs in the loop at line {loop.lineno}: "
                        "a new tf.function every iteration, each traced again",
                        why=CODES["AGX008"][1], fix="make the tf.function once, before the "
                        "loop, and call it inside.", subject=wrapped))
    return found


def module_findings(text: str) -> list[Finding]:
    """Findings about the module itself, not one function (AGX008 in top-level loops)."""
    return _module_loops(ParsedFile(text))


# -- the entry point --------------------------------------------------------------------

def diagnose(target: str, call: str | None = None,
             progress: Callable[[str], None] | None = None, report: Any = None) -> DoctorReport:
    """The findings for ``PATH::QUALNAME``: the static checks, cross-checked with its trace.

    ``report``: a :class:`~agexplorer.core.report.Report` already built for the
    same target and call (it is built here otherwise). A function that fails to
    trace still gets its static findings, and the error.
    """
    from agexplorer.core.fixes import rewrite
    from agexplorer.core.report import build_report
    from agexplorer.core.targets import parse_source, parse_spec, read_source

    spec = parse_spec(target)
    text = read_source(spec.path)
    parse_source(spec.path, text)  # a syntax error: one sentence, before TensorFlow loads
    if spec.qualname is None:
        raise AgxError("no-function", f"name a function: {spec.path}::FUNCTION.")
    load_error: AgxError | None = None
    if report is None:
        try:
            report = build_report(target, call, progress=progress)
        except AgxError as exc:
            if exc.kind != "load-error":
                raise
            load_error = exc  # the module does not load: the parse alone still helps
    mod = ParsedFile(text)
    func, method = mod.find(spec.qualname, report.first_line if report else 0)
    if func is None:
        raise AgxError("unknown-function", f"{spec.path} has no function '{spec.qualname}' "
                       "that the doctor can read.")
    doctor = _Doctor(mod, func, method, report)
    findings = doctor.run()
    wrapped = spec.qualname.split(".")[-1]
    findings += [f for f in _module_loops(mod) if f.subject == wrapped]
    for finding in findings:
        made = rewrite(text, finding, report.call if report else call)
        finding.rewrite = made.description if made is not None else None
    findings.sort(key=lambda f: (f.line, f.col, f.code))
    first = min([func.lineno, *(d.lineno for d in func.decorator_list)])
    return DoctorReport(
        file=report.file if report else spec.path, function=spec.qualname,
        first_line=first, end_line=func.end_lineno or func.lineno,
        call=report.call if report else call, call_origin=report.call_origin if report else None,
        traced=doctor.traced, findings=findings,
        error=report.error if report is not None else load_error)


def doctor_targets(path: str) -> list[str]:
    """The qualnames ``agexplorer doctor PATH`` examines: every function but dunder methods
    (``__init__`` and friends are not traced by tf.function), ``__call__`` excepted."""
    from agexplorer.core.report import list_file

    return [f.qualname for f in list_file(path)
            if not (f.qualname.split(".")[-1].startswith("__")
                    and f.qualname.split(".")[-1] != "__call__")]
