"""Counters compiled into the user's own functions, so that code AutoGraph never converts
(a Keras 3 layer's ``call``, a helper Keras calls) says how often each if/for/while ran while
a trace was made, and with which arguments each function was first entered.

A line tracer (``sys.settrace``) would tell it too, but on Python 3.11 it puts the whole
interpreter in tracing mode while it is on: measured on Keras's train step, traces took
1.3-1.5x as long (``benchmarks/bench_record_overhead.py``). Instead each function of the
user's modules gets a copy of its code compiled from its own source with one call per
statement part (reached, loop body, true branch, false branch) and one at its entry, each
at the statement's own line, so its lines, tracebacks, the ops' stack traces and what
AutoGraph reads (the source) stay the same. A counter outside a trace does nothing.

The copies replace the functions' ``__code__`` while a recording is on and are put back at
its end. A function whose copy cannot have the same shape (its closure, its flags) is left
as it is: its loops keep no count, and the record says so.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import linecache
import sys
import types
from collections.abc import Callable, Container, Iterator
from typing import TYPE_CHECKING, Any

from agexplorer.engine.describe import classify

if TYPE_CHECKING:
    from agexplorer.model.values import Described

_HIT, _ENTER, _SAME, _ITER = "__agx_hit__", "__agx_enter__", "__agx_same__", "__agx_iter__"
_TAP = "__agx_tap__"  # a conditional expression's part: counted, its value passed on
# "reached" | "body" | "true" | "false" | "entry" | "iter" (what a for iterates); a
# conditional expression's: "exp-reached" | "exp-true" | "exp-false" (an if's line may hold one)
Part = str


class Counts:
    """One trace's counts: per (slot: file, line, part; the graph being built then), and each
    function's first frame."""

    def __init__(self, on_entry: Callable[[Any], None]) -> None:
        # (slot, the default graph when it ran: held, so that its id is not reused meanwhile;
        # None where the counters were not told how to read it) -> times.
        self.hits: dict[tuple[int, Any], int] = {}
        # A for's "iter" slot -> what it iterated the first time (None: not describable).
        self.iterables: dict[int, Described | None] = {}
        self.on_entry = on_entry
        self._entered: set[int] = set()

    def iterated(self, slots: list[tuple[str, int, Part]], file: str
                 ) -> Callable[[Any], Described | None]:
        """What each for of ``file`` iterated over (its first run in the trace), by statement."""
        mine = {slots[s][1]: d for s, d in self.iterables.items() if slots[s][0] == file}
        return lambda stmt: mine.get(stmt.line) if stmt.kind == "for" else None

    def tally(self, slots: list[tuple[str, int, Part]], file: str,
              graphs: Container[int] | None = None) -> Callable[[Any], tuple[int, int]]:
        """``fallback_verdicts``'s tally for the statements of ``file``: (times reached, body
        runs: a loop's iterations, an if's true branch). ``graphs``: the ids of the trace's
        own graphs (its function's and its control flow's bodies); a run while another graph
        was being built is left out: Keras 3 calls a layer in scratch graphs of its own to
        infer shapes while the first trace is made, and nothing of those is in the trace."""
        mine: dict[tuple[int, Part], int] = {}
        for (s, graph), n in self.hits.items():
            if slots[s][0] == file and (graphs is None or graph is None or id(graph) in graphs):
                key = (slots[s][1], slots[s][2])
                mine[key] = mine.get(key, 0) + n

        def tally(stmt: Any) -> tuple[int, int]:
            if stmt.kind == "ifexp":
                return mine.get((stmt.line, "exp-reached"), 0), mine.get((stmt.line, "exp-true"), 0)
            part = "true" if stmt.kind == "if" else "body"
            return mine.get((stmt.line, "reached"), 0), mine.get((stmt.line, part), 0)
        return tally


class Counters:
    """The user's functions compiled with counters, swapped in while recording."""

    def __init__(self, user_code: Any, graph: Callable[[], Any] | None = None) -> None:
        self.user_code = user_code  # supports ``filename in user_code``
        self._graph = graph  # the graph being built now (each hit notes it), if told
        self.slots: list[tuple[str, int, Part]] = []
        self._copies: dict[types.CodeType, types.CodeType | None] = {}  # original -> copy
        self._swapped: list[tuple[types.FunctionType, types.CodeType]] = []
        # The functions and classes already looked at, by id, each kept alive here: an id
        # a dead object left could be a new function's, which would never be counted.
        self._seen: dict[int, Any] = {}
        self._active: list[Counts] = []
        self._originals: dict[types.CodeType, types.CodeType] = {}  # copy -> original
        self._modules: dict[int, tuple[Any, bool]] = {}  # id -> (module, the user's?)
        self._module_ids: list[int] = []  # sys.modules' modules at the last look
        self._user_modules: list[Any] = []
        self._installed = False

    # -- while a trace is made ------------------------------------------------------------
    @contextlib.contextmanager
    def counting(self, on_entry: Callable[[Any], None]) -> Iterator[Counts]:
        """Count within the block; a trace made inside it counts on its own (this block's
        counts pause meanwhile, as the recorder does)."""
        counts = Counts(on_entry)
        self._active.append(counts)
        try:
            yield counts
        finally:
            self._active.remove(counts)

    def original(self, code: Any) -> Any:
        """The user's own code object for a counted copy (``code`` itself otherwise)."""
        return self._originals.get(code, code)

    def _hit(self, slot: int) -> None:
        if self._active:
            hits = self._active[-1].hits
            key = (slot, self._graph() if self._graph is not None else None)
            hits[key] = hits.get(key, 0) + 1

    def _tap(self, slot: int, value: Any) -> Any:
        """``value`` itself, counted (a part of a conditional expression that ran)."""
        self._hit(slot)
        return value

    def _iter(self, slot: int, iterable: Any) -> Any:
        """``iterable`` itself; what it is noted the first time in a trace."""
        if self._active:
            iterables = self._active[-1].iterables
            if slot not in iterables:
                try:
                    iterables[slot] = classify(iterable)
                except Exception:  # noqa: BLE001 - a value that cannot be described
                    iterables[slot] = None
        return iterable

    def _enter(self, slot: int) -> None:
        if self._active:
            counts = self._active[-1]
            key = (slot, self._graph() if self._graph is not None else None)
            counts.hits[key] = counts.hits.get(key, 0) + 1
            if slot not in counts._entered:
                counts._entered.add(slot)
                counts.on_entry(sys._getframe(1))

    # -- installing the copies ------------------------------------------------------------
    def install(self) -> None:
        """Compile a counted copy of every function of the user's modules not seen yet and
        swap it in (called as each trace starts: a class defined since is picked up)."""
        if not self._installed:
            setattr(builtins, _HIT, self._hit)
            setattr(builtins, _ENTER, self._enter)
            setattr(builtins, _SAME, _same)
            setattr(builtins, _ITER, self._iter)
            setattr(builtins, _TAP, self._tap)
            self._installed = True
        # Modules imported, dropped or replaced since (a reload keeps their number): whose.
        modules = sys.modules.copy()  # another thread may import meanwhile
        module_ids = [id(module) for module in modules.values()]
        if module_ids != self._module_ids:
            self._module_ids = module_ids
            self._user_modules = []
            for module in modules.values():
                known = self._modules.get(id(module))
                if known is None or known[0] is not module:
                    file = getattr(module, "__file__", None)
                    known = self._modules[id(module)] = (
                        module, isinstance(file, str) and file in self.user_code)
                if known[1]:
                    self._user_modules.append(module)
        for module in self._user_modules:
            for value in list(vars(module).values()):
                self._visit(value, depth=0)

    def restore(self) -> None:
        """Put every function's own code back, and take the counters out of builtins."""
        for function, original in reversed(self._swapped):
            with contextlib.suppress(ValueError, TypeError):
                function.__code__ = original
        self._swapped.clear()
        if self._installed:
            for name in (_HIT, _ENTER, _SAME, _ITER, _TAP):
                with contextlib.suppress(AttributeError):
                    delattr(builtins, name)
            self._installed = False

    def _visit(self, value: Any, depth: int) -> None:
        if self._seen.get(id(value)) is value or depth > 3:
            return
        if isinstance(value, type):
            self._seen[id(value)] = value
            for inner in list(vars(value).values()):
                self._visit(inner, depth + 1)
            return
        for fn in _functions_of(value):
            if self._seen.get(id(fn)) is fn:
                continue
            self._seen[id(fn)] = fn
            self._swap(fn)

    def _swap(self, fn: types.FunctionType) -> None:
        code = fn.__code__
        if code.co_filename not in self.user_code:
            return
        if code not in self._copies:
            try:
                self._copies[code] = self._compile(fn)
            except Exception:  # noqa: BLE001 - a function that cannot be copied keeps its code
                self._copies[code] = None
        copy = self._copies[code]
        if copy is None:
            return
        try:
            fn.__code__ = copy
        except (ValueError, TypeError):
            return
        self._originals[copy] = code
        self._swapped.append((fn, code))

    def _compile(self, fn: types.FunctionType) -> types.CodeType | None:
        code = fn.__code__
        found = _find_def(code)
        if found is None:
            return None
        node, klass = found
        marked = _Marker(code.co_filename, self.slots).mark(node)
        copy = _compiled(marked, code, klass)
        if copy is None or not _same_shape(copy, code):
            return None
        if sys.version_info >= (3, 11):
            copy = copy.replace(co_qualname=code.co_qualname)
        return copy


def _same(function: Any) -> Any:
    return function


def _functions_of(value: Any) -> list[types.FunctionType]:
    """The plain functions behind a value: a function, a static or class method, a
    property's accessors, a tf.function's Python function."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel)
                if isinstance(f, types.FunctionType)]
    python_function = getattr(value, "python_function", None) \
        if not isinstance(value, types.FunctionType) else None
    if python_function is not None:
        value = python_function
    found = []
    for _ in range(8):  # a decorated function and the ones it wraps (functools.wraps)
        if isinstance(value, types.FunctionType):
            found.append(value)
        value = getattr(value, "__wrapped__", None) if not isinstance(value, type) else None
        if value is None:
            break
    return found


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def _find_def(code: types.CodeType
              ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, str | None] | None:
    """The function's definition in its file, found by its name and first line (its first
    decorator's, as the code keeps it), and the name of the class it is defined in."""
    text = "".join(linecache.getlines(code.co_filename))
    if not text:
        return None
    try:
        tree = ast.parse(text, filename=code.co_filename)
    except (SyntaxError, ValueError):
        return None
    found = None
    for node in ast.walk(tree):
        if isinstance(node, _DEFS) and node.name == code.co_name and \
                min([node.lineno] + [d.lineno for d in node.decorator_list]) == \
                code.co_firstlineno:
            found = node
    if found is None:
        return None
    return found, _enclosing_class(tree, found)


def _enclosing_class(tree: ast.Module, target: ast.AST) -> str | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and any(child is target for child in node.body):
            return node.name
    return None


class _Marker(ast.NodeTransformer):
    """A copy of a definition with a counter call before each if/for/while (``reached``), at
    each body's start (``body``, ``true``), in each if's else (``false``) and at the
    function's start (``entry``)."""

    def __init__(self, file: str, slots: list[tuple[str, int, Part]]) -> None:
        self.file = file
        self.slots = slots

    def mark(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        import copy

        node = copy.deepcopy(node)
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        node.decorator_list = [ast.copy_location(ast.Name(_SAME, ast.Load()), node)] \
            if first != node.lineno else []
        if node.decorator_list:
            node.decorator_list[0].lineno = node.decorator_list[0].end_lineno = first
        _strip_evaluated(node)
        node.body = [self.visit(s) for s in node.body]  # nested defs are the unit's too
        node.body = self._flat(node.body)
        docstring = 1 if ast.get_docstring(node, clean=False) is not None else 0
        node.body.insert(docstring, self._call(_ENTER, node.lineno, "entry", node.body[0]))
        return node

    def _slot(self, line: int, part: Part) -> int:
        self.slots.append((self.file, line, part))
        return len(self.slots) - 1

    def _call(self, name: str, line: int, part: Part, where: ast.AST) -> ast.stmt:
        call = ast.Expr(ast.Call(ast.Name(name, ast.Load()),
                                 [ast.Constant(self._slot(line, part))], []))
        return ast.fix_missing_locations(ast.copy_location(call, where))

    def _flat(self, body: list[Any]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for item in body:
            out.extend(item if isinstance(item, list) else [item])
        return out

    def _mark_statement(self, node: ast.If | ast.For | ast.While | ast.AsyncFor) -> list[ast.stmt]:
        self.generic_visit(node)
        node.body = self._flat(node.body)
        node.orelse = self._flat(node.orelse)
        part = "true" if isinstance(node, ast.If) else "body"
        if isinstance(node, ast.For):  # what it iterates, seen as the loop starts
            wrapped = ast.Call(ast.Name(_ITER, ast.Load()),
                               [ast.Constant(self._slot(node.lineno, "iter")), node.iter], [])
            node.iter = ast.fix_missing_locations(ast.copy_location(wrapped, node.iter))
        node.body.insert(0, self._call(_HIT, node.lineno, part, node.body[0]))
        if isinstance(node, ast.If):
            where = node.orelse[0] if node.orelse else node
            node.orelse.insert(0, self._call(_HIT, node.lineno, "false", where))
        return [self._call(_HIT, node.lineno, "reached", node), node]

    visit_If = visit_For = visit_While = visit_AsyncFor = _mark_statement

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        """``a if c else b``: its test counted as it is reached, each branch as it runs."""
        self.generic_visit(node)
        for name, part in (("test", "exp-reached"), ("body", "exp-true"), ("orelse", "exp-false")):
            value = getattr(node, name)
            tap = ast.Call(ast.Name(_TAP, ast.Load()),
                           [ast.Constant(self._slot(node.lineno, part)), value], [])
            setattr(node, name, ast.fix_missing_locations(ast.copy_location(tap, value)))
        return node

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for field, value in ast.iter_fields(node):
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                setattr(node, field, self._flat([self.visit(v) for v in value]))
            elif isinstance(value, list):
                setattr(node, field, [self.visit(v) if isinstance(v, ast.AST) else v
                                      for v in value])
            elif isinstance(value, ast.AST):
                setattr(node, field, self.visit(value))
        return node


def _strip_evaluated(node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    """Defaults and annotations are evaluated where the copy is made, not kept in its code:
    they are left out of it (the function keeps its own)."""
    args = node.args
    args.defaults = [ast.copy_location(ast.Constant(None), d) for d in args.defaults]
    args.kw_defaults = [None if d is None else ast.copy_location(ast.Constant(None), d)
                        for d in args.kw_defaults]
    node.returns = None
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None


def _compiled(node: ast.AST, original: types.CodeType, klass: str | None
              ) -> types.CodeType | None:
    """Compile the marked definition where its closure is the original's: inside a factory
    whose parameters are the original's free variables (and, for a method, inside a class of
    its class's name, for ``super()`` and private names); its code is a constant in there."""
    freevars = [v for v in original.co_freevars if v != "__class__"]
    body: list[ast.stmt] = [node]  # type: ignore[list-item]
    if klass is not None or "__class__" in original.co_freevars:
        body = [_with_type_params(ast.ClassDef(name=klass or "_", bases=[], keywords=[],
                                               body=body, decorator_list=[]))]
    factory = _with_type_params(ast.FunctionDef(
        name="__agx_factory__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(v) for v in freevars], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None))
    module = ast.fix_missing_locations(ast.Module(body=[factory], type_ignores=[]))
    compiled = compile(module, original.co_filename, "exec", dont_inherit=True,
                       flags=original.co_flags & _FUTURE_FLAGS)
    return _find_code(compiled, original.co_name, original.co_firstlineno)


def _with_type_params(node: Any) -> Any:
    if sys.version_info >= (3, 12):
        node.type_params = []
    return node


# The __future__ flags a code object carries, which its copy is compiled with.
_FUTURE_FLAGS = 0
for _feature in ("annotations", "generator_stop", "barry_as_FLUFL"):
    _FUTURE_FLAGS |= getattr(__import__("__future__"), _feature).compiler_flag


def _find_code(code: types.CodeType, name: str, first: int) -> types.CodeType | None:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_name == name and const.co_firstlineno == first:
                return const
            found = _find_code(const, name, first)
            if found is not None:
                return found
    return None


def _same_shape(copy: types.CodeType, original: types.CodeType) -> bool:
    """Whether the copy can stand for the original in its function (``__code__`` takes it
    and calls behave the same)."""
    same = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_freevars",
            "co_name", "co_firstlineno", "co_filename")
    flags = 0x20 | 0x80 | 0x200 | 0x04 | 0x08  # generator, coroutine, async gen, *args, **kw
    return all(getattr(copy, a) == getattr(original, a) for a in same) and \
        (copy.co_flags & flags) == (original.co_flags & flags) and \
        copy.co_varnames[:original.co_argcount + original.co_kwonlyargcount] == \
        original.co_varnames[:original.co_argcount + original.co_kwonlyargcount]
