"""The functions of the user's code a trace reached, each with its statements' verdicts.

A *unit* is what the explorer lists and explores: a top-level function or a method
(``Class.method``); a function nested in one belongs to it, as AutoGraph converts it
with it. The explored function is the root. Every other unit that an AutoGraph
operator ran in, that ``converted_call`` entered, or whose lines made ops, is a reached
function, with the call path the trace took to it.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from agexplorer.engine.hints import UNSTACKABLE, unconverted_hint
from agexplorer.engine.keras_layers import owner_class, runs_unconverted
from agexplorer.engine.recorder import Call, Frame
from agexplorer.engine.statements import Statement, find_statements
from agexplorer.engine.verdicts import build_verdicts
from agexplorer.model.inventory import Inventory
from agexplorer.model.report import (
    CONDITIONALS,
    CallSite,
    Conversion,
    ReachedFunction,
    Verdict,
    keras3_words,
)
from agexplorer.source.cells import cell_text
from agexplorer.source.files import read_source_file
from agexplorer.source.targets import (
    FunctionInfo,
    list_functions,
    own_nodes,
    tf_function_decorated,
)

Node = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass
class Unit:
    """A top-level function or method of one file, found by a static parse."""

    file: str
    qualname: str
    node: Node
    first_line: int  # its first decorator's line, else its def line
    end_line: int
    _statements: list[Statement] | None = field(default=None, repr=False)
    text: str | None = field(default=None, repr=False)  # its file's source, for the headers

    @property
    def def_line(self) -> int:
        return self.node.lineno

    @property
    def statements(self) -> list[Statement]:
        if self._statements is None:
            self._statements = find_statements(self.node, self.text)
        return self._statements

    def holds(self, line: int) -> bool:
        return self.first_line <= line <= self.end_line


class FileIndex:
    """The units of every file the trace touched, parsed once each (unreadable: none)."""

    def __init__(self, texts: dict[str, str] | None = None,
                 parsed: dict[str, tuple[ast.Module, list[FunctionInfo]]] | None = None
                 ) -> None:
        """``texts``: files' sources where they are not the files on disk (an unsaved
        buffer); ``parsed``: files already parsed, with their ``list_functions`` (the
        explored file, which the load parsed: not parsed and listed again)."""
        self._units: dict[str, list[Unit]] = {}
        self._lines: dict[str, list[str]] = {}
        self._texts = dict(texts or {})
        self._parsed = dict(parsed or {})

    def units(self, file: str) -> list[Unit]:
        found = self._units.get(file)
        if found is None:
            found = self._units[file] = self._parse(file)
        return found

    def _parse(self, file: str) -> list[Unit]:
        text = self._texts.get(file) or cell_text(file)  # a notebook cell: IPython's text
        if text is None:
            try:
                text = read_source_file(file).text
            except Exception:  # noqa: BLE001 - a file gone or unreadable: no verdicts there
                return []
        tree, functions = self._parsed.get(file, (None, None))
        if tree is None:
            try:
                tree = ast.parse(text, filename=file)
            except (SyntaxError, ValueError):
                return []
        self._lines[file] = text.splitlines()
        nodes = _defs(tree)
        units = []
        for info in functions if functions is not None else list_functions(tree):
            node = nodes.get((info.qualname, info.line))
            if node is None:
                continue
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            units.append(Unit(file, info.qualname, node, first, node.end_lineno or node.lineno,
                              text=text))
        return units

    def unit_at(self, file: str, line: int) -> Unit | None:
        """The unit whose lines hold ``line`` (the innermost, for a class inside a function)."""
        holding = [u for u in self.units(file) if u.holds(line)]
        return max(holding, key=lambda u: u.first_line) if holding else None

    def names_for(self, file: str, line: int) -> tuple[str, ...]:
        """The plain names the statement at ``line`` reads (what the recorder describes)."""
        unit = self.unit_at(file, line)
        if unit is None:
            return ()
        return next((s.names for s in unit.statements if s.line == line), ())

    def source(self, unit: Unit) -> str:
        lines = self._lines.get(unit.file, [])
        return "\n".join(lines[unit.first_line - 1:unit.end_line]) + "\n"


def _defs(tree: ast.Module) -> dict[tuple[str, int], Node]:
    """Every top-level function and method by (qualname, line), as list_functions names them."""
    found: dict[tuple[str, int], Node] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[(prefix + node.name, node.lineno)] = node
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")

    visit(tree.body, "")
    return found


@dataclass(frozen=True)
class Root:
    """The explored function: its file, qualified name and lines."""

    file: str
    qualname: str
    def_line: int
    first_line: int
    end_line: int

    def holds(self, file: str, line: int) -> bool:
        return file == self.file and self.first_line <= line <= self.end_line


@dataclass
class Reach:
    """How the trace first got into a unit: the user frames from the root to its entry."""

    frames: tuple[Frame, ...]
    function: Any = None  # the Python function object, when converted_call entered it


def build_call_tree(root: Root, calls: list[Call], entries: dict[tuple[str, int], Reach],
                    inventory: Inventory | None, traced: bool, index: FileIndex,
                    chains: dict[tuple[tuple[str, int], ...], int] | None = None,
                    convert: Callable[[Any, str, int], Conversion] | None = None,
                    depth: int | None = None,
                    ran: dict[tuple[str, int], Reach] | None = None,
                    failed_at: tuple[str, int] | None = None) -> list[ReachedFunction]:
    """One ReachedFunction per unit other than the root that the trace ran in, nearest
    first (then in file and line order); ``depth`` keeps those at most that many calls away.

    ``entries`` maps (file, def line) to how converted_call first entered a function;
    ``chains`` counts ops by the user frames they were made under (for ops per statement);
    ``ran``, where the trace counted every function of the user's (engine/counters.py),
    maps each unit whose own code ran as plain Python to how it was first entered: a unit
    that made ops and is not among them ran converted.
    """
    reaches: dict[tuple[str, int], tuple[Unit, Reach, bool]] = {}

    def note(file: str, line: int, reach: Reach, converted: bool) -> None:
        if root.holds(file, line):
            return
        unit = index.unit_at(file, line)
        if unit is None:
            return
        key = (unit.file, unit.def_line)
        known = reaches.get(key)
        if known is None or (converted and not known[2]):
            reaches[key] = (unit, reach, converted)

    for (file, line), reach in entries.items():
        # converted_call hands a generator function back unconverted (AutoGraph's allowlist)
        note(file, line, reach, not inspect.isgeneratorfunction(reach.function))
    for call in calls:
        if call.file is not None and call.line is not None:
            note(call.file, call.line, Reach(call.stack), True)
    for (file, line), reach in (ran or {}).items():
        note(file, line, reach, False)
    for chain in (chains or {}):
        if chain:  # outermost first: the path runs through its frames (the call's own line)
            file, line = chain[-1]
            unit = index.unit_at(file, line)
            unconverted = ran is None or (unit is not None
                                          and (unit.file, unit.def_line) in ran)
            note(file, line, Reach(tuple(Frame(f, n, "") for f, n in chain)), not unconverted)

    reached = []
    for unit, reach, converted in reaches.values():
        spans = _local_spans(unit, {line for (file, line) in entries if file == unit.file},
                             ran is not None and (unit.file, unit.def_line) in ran)
        # One function defined inside it ran (`step` of `make_step`), never the unit itself:
        # that function is what was reached, by its own name and lines.
        unit = _local_unit(unit, spans) or unit
        path = _call_path(root, unit, reach.frames, index)
        if depth is not None and len(path) - 1 > depth:
            continue
        mine = [c for c in calls if c.file == unit.file and c.line is not None
                and unit.holds(c.line)]
        verdicts = build_verdicts(unit.statements, mine, inventory, traced, file=unit.file,
                                  chains=chains, failed_line=failed_at[1] if failed_at
                                  and failed_at[0] == unit.file else None)
        if spans is not None:  # only functions defined inside it ran: their statements
            verdicts = [v for v in verdicts if any(a <= v.line <= b for a, b in spans)]
        around = {s.line for s in unit.statements if root.file == unit.file
                  and s.line <= root.first_line and root.end_line <= s.end_line}
        if around:  # around the line that asked for the trace (a library's, made by the
            # `for x in ds:` AutoGraph staged as a tf.data reduce): not in it
            verdicts = [v for v in verdicts if v.line not in around]
        conversion, note_text = None, None
        if not converted:
            why = ("it is a generator function (a `yield`), which AutoGraph calls as written"
                   if _generator(unit.node) else
                   "code it does not convert (Keras, another library) called it")
            note_text = (f"AutoGraph did not convert {unit.qualname}: {why}, so its "
                         "if/for/while ran as plain Python while tracing")
        elif reach.function is not None and convert is not None:
            try:
                conversion = convert(reach.function, unit.file, unit.def_line)
            except Exception as exc:  # noqa: BLE001 - shown as a note; the verdicts stand
                note_text = f"its converted code could not be shown ({exc})"
        placed = tuple(_placed(v, unit, path) for v in verdicts)
        if not converted:
            placed = tuple(_unconverted(v) for v in placed)
        reached.append(ReachedFunction(
            file=unit.file, function=unit.qualname, first_line=unit.first_line,
            end_line=unit.end_line, call_path=path, statements=placed,
            op_count=_own_ops(unit, inventory), source=index.source(unit),
            conversion=conversion, converted=converted, note=note_text))
    if _keras3_method(root.file, root.qualname):
        reached = [_under_keras3(f, root.qualname, index) for f in reached]
    reached.sort(key=lambda f: (f.depth, f.file, f.first_line))
    return reached


def _under_keras3(f: ReachedFunction, root: str, index: FileIndex,
                  why: str | None = None) -> ReachedFunction:
    """A function a Keras 3 layer's method (the root) reached: Keras runs the method
    without AutoGraph, so a plain function it calls runs without it too, as no tf.function
    between them converts it. Its statements as Keras runs them (see :func:`_keras3`;
    ``why``: who runs the root so, where not Keras 3 itself)."""
    if not f.converted:
        return f
    for site in f.call_path[1:]:
        unit = index.unit_at(site.file, site.line)
        if unit is None or tf_function_decorated(unit.node):
            return f  # a tf.function converts what it calls
    said = f" {why or f'Keras 3 runs {root} without AutoGraph'}, and so {f.function}, " \
        "which it calls"
    return replace(f, statements=tuple(_keras3(v, root, said) for v in f.statements))


def ran_unconverted(report: Any) -> Any:
    """``report`` (a Report) as a recorded run ran its function: without AutoGraph, called
    only by code AutoGraph does not convert (a Keras 3 layer's call and what it calls), so
    its statements and those of the plain functions it calls are plain Python, as a Keras 3
    layer's call is (see :func:`root_verdicts`)."""
    name = report.function
    why = (f"The recorded run ran {name} only as plain Python (code AutoGraph does not "
           "convert called it)")
    return replace(report, statements=[_keras3(v, name, f" {why}") for v in report.statements],
                   reached=[_under_keras3(f, name, FileIndex(), why) for f in report.reached])


def with_line_counts(reached: list[ReachedFunction], index: FileIndex,
                     inventory: Inventory | None,
                     lines_of: Callable[[str], Any],
                     iterated_of: Callable[[str], Callable[[Any], Any]] | None = None
                     ) -> list[ReachedFunction]:
    """The functions AutoGraph did not convert, their verdicts made from the counts of a
    trace that counted them (``lines_of(file)``: that file's line counts, line -> times
    run, or a ``fallback.Tally`` of its statements; ``iterated_of(file)``: what its fors
    iterated over, where seen); the others as they are. A Keras 3 layer's method says so
    once, in its note."""
    from agexplorer.engine.fallback import fallback_verdicts, untold_expressions

    counted = []
    for f in reached:
        if f.converted:
            counted.append(f)
            continue
        keras3 = _keras3_method(f.file, f.function)
        if not f.statements:
            counted.append(replace(f, note=keras3_words(f.function)) if keras3 else f)
            continue
        unit = index.unit_at(f.file, f.first_line)  # parsed once, by the call tree
        statements = unit.statements if unit is not None else []
        by_line = inventory.by_line(f.file) if inventory else {}
        why = (f"Keras 3 runs {f.function} without AutoGraph" if keras3 else
               "AutoGraph does not convert a generator function" if unit is not None
               and _generator(unit.node) else
               "code AutoGraph does not convert, such as Keras, called it")
        verdicts = fallback_verdicts(statements, lines_of(f.file), f.function, why, by_line,
                                     True, refused=False, iterated=iterated_of(f.file)
                                     if iterated_of is not None else None)
        note = keras3_words(f.function) if keras3 else f.note
        said = untold_expressions(statements, verdicts, "no counted copy of this code ran "
                                  "(one made inside a function is not copied)")
        if said:
            note = f"{note}; {said}" if note else said[0].upper() + said[1:]
        counted.append(replace(f, note=note, statements=tuple(
            replace(v, file=f.file, function=f.function, call_path=f.call_path,
                    unconverted="keras3" if keras3 else None) for v in verdicts)))
    return counted


def _generator(node: Node) -> bool:
    """Whether the def ``node`` is a generator function (a ``yield`` of its own)."""
    return any(isinstance(inner, (ast.Yield, ast.YieldFrom)) for inner in own_nodes(node))


def _keras3_method(file: str, qualname: str) -> bool:
    cls = owner_class(file, qualname)
    return cls is not None and runs_unconverted(cls, qualname.rpartition(".")[2])


def root_verdicts(root: Root, verdicts: list[Verdict]) -> list[Verdict]:
    """The explored function's verdicts, placed: its file, its name, itself as the path. A
    method Keras 3 runs without AutoGraph (a layer's ``call``) gets the fixes that apply
    there: tf.function converted it here, Keras does not."""
    site = (CallSite(root.qualname, root.file, root.def_line),)
    placed = [_with_place(v, root.file, root.qualname, site) for v in verdicts]
    if _keras3_method(root.file, root.qualname):
        placed = [_keras3(v, root.qualname) for v in placed]
    return placed


def _keras3(verdict: Verdict, name: str, said: str | None = None) -> Verdict:
    """A statement of a Keras 3 layer method ``name`` as Keras runs it: plain Python
    (``said``: why, where the statement is in a function the method calls)."""
    if verdict.verdict == "unreached":
        return replace(verdict, unconverted="keras3")
    said = said or f" Keras 3 runs {name} without AutoGraph"
    said += (", so called by Keras this is not staged (a tensor here raises)."
             if verdict.verdict in ("staged", "mixed") else ".")
    # An if on a Python value runs the same called by Keras: nothing to fix there; nor a
    # for over what no tensor holds (layers: converted, it got no fix either; tensors of
    # different shapes, such as a model's gradients: no graph loop takes them either).
    as_meant = verdict.verdict == "python" and (
        verdict.kind in CONDITIONALS or (verdict.kind == "for" and (
            verdict.hint is None or verdict.hint.startswith(UNSTACKABLE))))
    return replace(verdict, reason=verdict.reason + said, unconverted="keras3",
                   hint=None if verdict.intended or as_meant else
                   unconverted_hint(verdict.kind))


def _local_spans(unit: Unit, entered: set[int], ran: bool) -> list[tuple[int, int]] | None:
    """The lines of the functions defined inside ``unit`` (a map function made in
    ``make_ds``) that the trace entered (``entered``: the first lines of the functions
    converted_call entered), when it never entered ``unit`` itself; None when it did, or
    when ``unit``'s own code ran as plain Python (``ran``), or nothing says."""
    entered = {line for line in entered if unit.holds(line)}
    if ran or not entered or entered & {unit.first_line, unit.def_line}:
        return None
    spans = []
    for node in ast.walk(unit.node):
        if node is unit.node or not isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        decorators = getattr(node, "decorator_list", [])
        first = min([node.lineno, *(d.lineno for d in decorators)])
        if first in entered or node.lineno in entered:
            spans.append((first, node.end_lineno or node.lineno))
    return spans or None


def _local_unit(unit: Unit, spans: list[tuple[int, int]] | None) -> Unit | None:
    """The one function defined inside ``unit`` whose lines are ``spans`` (a def, not a
    lambda), as a unit of its own named as Python names it (``make_step.<locals>.step``);
    None when ``spans`` is not one such def."""
    if spans is None or len(spans) != 1:
        return None
    first, end = spans[0]

    def find(node: ast.AST, qualname: str) -> Unit | None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{qualname}.<locals>.{child.name}"
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                if (start, child.end_lineno or child.lineno) == (first, end):
                    return Unit(unit.file, name, child, start, end, text=unit.text)
                found = find(child, name)
            elif isinstance(child, ast.ClassDef):
                found = find(child, f"{qualname}.<locals>.{child.name}")
            else:
                found = find(child, qualname)
            if found is not None:
                return found
        return None

    return find(unit.node, unit.qualname)


def _placed(verdict: Verdict, unit: Unit, path: tuple[CallSite, ...]) -> Verdict:
    return _with_place(verdict, unit.file, unit.qualname, path)


def _with_place(verdict: Verdict, file: str, function: str,
                path: tuple[CallSite, ...]) -> Verdict:
    return replace(verdict, file=file, function=function, call_path=path)


def _unconverted(verdict: Verdict) -> Verdict:
    """A statement of a function AutoGraph never converted: it ran as plain Python, if at
    all, and AutoGraph's operators never saw it."""
    made = (f"; {verdict.ops_created} ops were made inside it, so Python did run it"
            if verdict.ops_created else "")
    return replace(verdict, verdict="python", iterations=None, branch=None, times=0,
                   reason="its function was not converted by AutoGraph, so this statement "
                          "ran as plain Python while tracing (how often is not recorded"
                          f"{made}).",
                   hint=unconverted_hint(verdict.kind))


def _call_path(root: Root, unit: Unit, frames: tuple[Frame, ...],
               index: FileIndex) -> tuple[CallSite, ...]:
    """The root, then each unit the frames pass through (at its call line), then ``unit``
    at its def line."""
    path: list[CallSite] = []
    for frame in frames:
        if root.holds(frame.file, frame.line):
            site = CallSite(root.qualname, root.file, frame.line)
        else:
            owner = index.unit_at(frame.file, frame.line)
            if owner is None:
                continue
            if owner.file == unit.file and (owner.def_line == unit.def_line
                                            or unit.holds(frame.line)):
                break  # the unit itself (or a function inside a unit, in its own lines):
                # the path ends at its def line below
            site = CallSite(owner.qualname, owner.file, frame.line)
        if path and (path[-1].function, path[-1].file) == (site.function, site.file):
            path[-1] = site  # a nested function of the same unit: the innermost line
        else:
            path.append(site)
    if not path or path[0].function != root.qualname or path[0].file != root.file:
        path.insert(0, CallSite(root.qualname, root.file, root.def_line))
    path.append(CallSite(unit.qualname, unit.file, unit.def_line))
    return tuple(path)


def _own_ops(unit: Unit, inventory: Inventory | None) -> int:
    if inventory is None:
        return 0
    return sum(1 for op in inventory.ops if op.file == unit.file and op.line is not None
               and unit.holds(op.line))
