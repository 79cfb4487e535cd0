"""The if/for/while statements of one function, and its conditional expressions
(``a if c else b``, which AutoGraph converts as an if), found by a static parse (lines are
the file's)."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from agexplorer.model.report import StatementKind
from agexplorer.source.segments import Segments


@dataclass
class Statement:
    """One control-flow statement of the user's function.

    ``parent`` is the index of the innermost enclosing statement (None at top
    level) and ``part`` says where inside it this one sits: ``body`` or
    ``orelse`` (the else branch of an if, the else clause of a loop).
    """

    kind: StatementKind
    line: int
    end_line: int
    header: str  # e.g. "for i in range(n):"
    expr: str  # the iterable of a for, the test of an if or while
    names: tuple[str, ...]  # plain names read by ``expr``, in order
    parent: int | None = None
    part: str | None = None
    body_lines: tuple[int, int] = (0, 0)
    orelse_lines: tuple[int, int] | None = None
    children: list[int] = field(default_factory=list)
    function_lines: tuple[int, int] = (0, 0)  # the lines of the function that holds it
    # A loop's: the names its body assigns that were a Python number just before it
    # (``acc = 0.0``), with that number's text; a staged loop keeps each value's shape.
    numbers_carried: tuple[tuple[str, str], ...] = ()
    params: tuple[str, ...] = ()  # the parameters of the function that holds it
    # A while loop's: each name its condition reads, with the source of its last plain
    # assignment before the loop (``n = len(x)``: ("n", "len(x)")); a name without one is
    # not listed (a parameter, or one only stepped).
    started: tuple[tuple[str, str], ...] = ()
    # A for loop's: the items its body calls, picked from a sequence by the loop's own
    # counter (``self.blocks[i](x)``: "self.blocks[i]"); no tensor holds what is called.
    picks_callables: tuple[str, ...] = ()
    # A for loop's: the lists its body appends to (``out.append(v)``, a statement directly
    # in the body): a staged loop cannot fill one, so its fix makes them tf.TensorArrays.
    appended: tuple[str, ...] = ()

    def nested(self, statements: list[Statement]) -> Iterator[Statement]:
        """The statements inside this one (``statements``: its function's, which ``children``
        index), at any depth."""
        todo = list(self.children)
        while todo:
            inner = statements[todo.pop()]
            todo.extend(inner.children)
            yield inner

    def spans(self, line: int) -> bool:
        """Whether ``line`` lies inside this statement."""
        return self.line <= line <= self.end_line

    def made(self, chain: tuple[tuple[str, int], ...], file: str) -> bool:
        """Whether its own lines made an op whose user frames (outermost first) are ``chain``:
        the innermost frame in its function lies in them. AutoGraph runs the code after an
        ``if ...: return`` (or a loop that returns) in that statement's else, so those frames
        pass through its line, yet it made none of them; a function it calls is further in."""
        low, high = self.function_lines
        if not high:  # its function's lines unknown: any frame in its lines
            return any(f == file and self.spans(line) for f, line in chain)
        here = next((line for f, line in reversed(chain) if f == file and low <= line <= high),
                    None)
        return here is not None and self.spans(here)


def _names(expr: ast.expr) -> tuple[str, ...]:
    seen: list[str] = []
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id not in seen:
            seen.append(node.id)
    return tuple(seen)


def _lines(body: list[ast.stmt]) -> tuple[int, int]:
    return body[0].lineno, body[-1].end_lineno or body[-1].lineno


def _assigned(nodes: list[ast.stmt]) -> list[tuple[int, str, ast.expr | None]]:
    """(line, name, value) of every plain-name assignment in ``nodes`` (value None for an
    augmented one), in line order."""
    found: list[tuple[int, str, ast.expr | None]] = []
    for stmt in nodes:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                found += [(node.lineno, t.id, node.value) for t in node.targets
                          if isinstance(t, ast.Name)]
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) \
                    and isinstance(node.target, ast.Name):
                value = node.value if isinstance(node, ast.AnnAssign) else None
                found.append((node.lineno, node.target.id, value))
    return sorted(found, key=lambda f: f[0])


def _constant_steps(stmt: ast.stmt) -> set[str]:
    """Names ``stmt`` (and what it holds) only steps by a constant: ``i += 1``."""
    steps: set[str] = set()
    other: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            (steps if isinstance(node.value, ast.Constant) else other).add(node.target.id)
        elif isinstance(node, ast.Assign):
            other |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return steps - other


def _last_before(func: ast.AST, loop: ast.stmt) -> dict[str, ast.expr | None]:
    """Each name's last plain assignment in ``func`` before ``loop`` (None: augmented)."""
    before: dict[str, ast.expr | None] = {}
    for line, name, value in _assigned(getattr(func, "body", [])):
        if line < loop.lineno:
            before[name] = value
    return before


def _numbers_carried(func: ast.AST, loop: ast.For | ast.While) -> tuple[tuple[str, str], ...]:
    """The names ``loop``'s body assigns whose last assignment before it was a number, and
    which may change shape: not a counter (read by the loop's condition, or only stepped by
    a constant, ``i += 1``)."""
    before = _last_before(func, loop)
    counters = set(_names(loop.test)) if isinstance(loop, ast.While) else set()
    stepped = {n for stmt in loop.body for n in _constant_steps(stmt)}
    inside = {name for _, name, _ in _assigned(loop.body)} - counters - stepped
    return tuple((name, ast.unparse(value)) for name, value in before.items()
                 if name in inside and isinstance(value, ast.Constant)
                 and type(value.value) in (int, float))


def _appended(loop: ast.For) -> tuple[str, ...]:
    """The names ``loop``'s body appends to, each once (``out.append(v)`` directly in it)."""
    return tuple(dict.fromkeys(
        s.value.func.value.id for s in loop.body if isinstance(s, ast.Expr)
        and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute)
        and s.value.func.attr == "append" and isinstance(s.value.func.value, ast.Name)))


def _picks_callables(loop: ast.For) -> tuple[str, ...]:
    """The items ``loop``'s body calls, picked by its target name (``SEQ[i](...)``)."""
    if not isinstance(loop.target, ast.Name):
        return ()
    counter = loop.target.id
    found = [ast.unparse(n.func) for part in loop.body for n in ast.walk(part)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Subscript)
             and isinstance(n.func.slice, ast.Name) and n.func.slice.id == counter]
    return tuple(dict.fromkeys(found))


def _started(func: ast.AST, loop: ast.While) -> tuple[tuple[str, str], ...]:
    """The names ``loop``'s condition reads, each with the source of its last plain
    assignment before the loop, where it has one."""
    before = _last_before(func, loop)
    return tuple((name, ast.unparse(value)) for name in _names(loop.test)
                 if (value := before.get(name)) is not None)


# The fields of a statement that hold other statements (visited as statements of their own).
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def find_statements(func: ast.FunctionDef | ast.AsyncFunctionDef,
                    text: str | None = None) -> list[Statement]:
    """Every if/for/while inside ``func`` (nested ones too), and every conditional expression
    (kind ``ifexp``: its header is the expression), in source order. ``text``: the file's
    source, where at hand: each header as written (``for i, a in ...``, ``1e-6``), not as
    ast.unparse prints it (``for (i, a) in ...``, ``1e-06``).

    A line that holds two conditional expressions or more (``a if c else (b if d else e)``)
    gives none: the trace tells lines apart, not columns, so whose call was whose is not
    known there."""

    segments = Segments(text) if text is not None else None

    def written(node: ast.AST) -> str:
        segment = segments(node) if segments is not None else None
        return segment if segment and "\n" not in segment else ast.unparse(node)

    found: list[Statement] = []
    lines = (func.lineno, func.end_lineno or func.lineno)
    arguments = func.args
    params = tuple(a.arg for a in [*arguments.posonlyargs, *arguments.args,
                                   *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
                   if a is not None)

    shared = {line for line, n in Counter(node.lineno for node in ast.walk(func)
                                          if isinstance(node, ast.IfExp)).items() if n > 1}

    def add(stmt: Statement, parent: int | None) -> int:
        index = len(found)
        found.append(stmt)
        if parent is not None:
            found[parent].children.append(index)
        return index

    def expressions(node: ast.AST, parent: int | None, part: str | None) -> None:
        """The conditional expressions in ``node``, not in the statements it holds."""
        if isinstance(node, ast.IfExp) and node.lineno not in shared:
            stmt = Statement(kind="ifexp", line=node.lineno, function_lines=lines,
                             end_line=node.end_lineno or node.lineno, header=written(node),
                             expr=ast.unparse(node.test), names=_names(node.test),
                             parent=parent, part=part, params=params,
                             body_lines=(node.body.lineno,
                                         node.body.end_lineno or node.body.lineno),
                             orelse_lines=(node.orelse.lineno,
                                           node.orelse.end_lineno or node.orelse.lineno))
            index = add(stmt, parent)
            expressions(node.test, parent, part)
            expressions(node.body, index, "body")
            expressions(node.orelse, index, "orelse")
            return
        for name, value in ast.iter_fields(node):
            if name in _BLOCKS and isinstance(node, (ast.stmt, ast.match_case)):
                continue
            for child in value if isinstance(value, list) else [value]:
                if isinstance(child, ast.AST):
                    expressions(child, parent, part)

    def visit(nodes: list[ast.stmt], parent: int | None, part: str | None) -> None:
        for node in nodes:
            expressions(node, parent, part)  # a header's are evaluated before its body
            if isinstance(node, (ast.If, ast.For, ast.While)):
                kind: StatementKind = "if" if isinstance(node, ast.If) else \
                    "for" if isinstance(node, ast.For) else "while"
                expr = node.iter if isinstance(node, ast.For) else node.test
                if isinstance(node, ast.For):
                    header = f"for {written(node.target)} in {written(node.iter)}:"
                else:
                    keyword = "while" if kind == "while" else "if"
                    header = f"{keyword} {written(node.test)}:"
                stmt = Statement(kind=kind, line=node.lineno, function_lines=lines,
                                 end_line=node.end_lineno or node.lineno, header=header,
                                 expr=ast.unparse(expr), names=_names(expr), parent=parent,
                                 part=part, body_lines=_lines(node.body),
                                 orelse_lines=_lines(node.orelse) if node.orelse else None,
                                 numbers_carried=_numbers_carried(func, node)
                                 if isinstance(node, (ast.For, ast.While)) else (),
                                 params=params,
                                 started=_started(func, node)
                                 if isinstance(node, ast.While) else (),
                                 picks_callables=_picks_callables(node)
                                 if isinstance(node, ast.For) else (),
                                 appended=_appended(node) if isinstance(node, ast.For) else ())
                index = add(stmt, parent)
                visit(node.body, index, "body")
                visit(node.orelse, index, "orelse")
            else:
                for name in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(node, name, None)
                    if isinstance(inner, list):
                        visit([n for n in inner if isinstance(n, ast.stmt)]
                              + [s for h in inner if isinstance(h, ast.ExceptHandler)
                                 for s in h.body], parent, part)
                if isinstance(node, ast.Match):
                    for case in node.cases:
                        expressions(case, parent, part)  # its guard's
                        visit(case.body, parent, part)

    visit(func.body, None, None)
    return found
