"""Finding functions in a Python file without running it: static listing, `PATH::QUALNAME` specs, checks."""

from __future__ import annotations

import ast
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Literal

from agexplorer.model.errors import AgxError
from agexplorer.source.files import read_source_file

TF_FUNCTION_NAMES = {"tf.function", "function", "tensorflow.function"}

# A method's decorator that makes it something other than a plain method.
Descriptor = Literal["staticmethod", "classmethod", "property"]
_DESCRIPTORS: dict[str, Descriptor] = {
    "staticmethod": "staticmethod", "classmethod": "classmethod", "property": "property",
    "cached_property": "property", "functools.cached_property": "property"}


@dataclass(frozen=True)
class FunctionInfo:
    """One explorable function as the static parse sees it (no code is run)."""

    qualname: str
    line: int
    end_line: int
    decorated: bool
    decorators: tuple[str, ...]
    is_method: bool
    params: tuple[str, ...]
    ready: bool = False  # callable without --call: AGX_CALLS entry, input_signature, no
    # params, or the file's own call (``file_call``)
    # What a method is made into: a property is read, not called, so it is never "ready".
    descriptor: Descriptor | None = None
    # The file's own first call of it that loading the file runs, usable again after the
    # load: (line, argument list as text). See file_calls.
    file_call: tuple[int, str] | None = None
    # A plain function's calls of the file's tf.functions (``main`` calling ``train_step``):
    # the program's Python that runs them, not code the program traces.
    drives: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """JSON form used by ``agexplorer list --json``."""
        return {"qualname": self.qualname, "line": self.line, "end_line": self.end_line,
                "decorated": self.decorated, "decorators": list(self.decorators),
                "is_method": self.is_method, "params": list(self.params), "ready": self.ready,
                "descriptor": self.descriptor,
                "file_call": list(self.file_call) if self.file_call else None,
                "drives": list(self.drives)}


@dataclass(frozen=True)
class TargetSpec:
    """A parsed ``PATH[::QUALNAME]``; ``path`` is absolute."""

    path: str
    qualname: str | None


def traceable(qualname: str) -> bool:
    """Not a dunder method (``__init__`` and friends are not what tf.function traces),
    ``__call__`` excepted: what the doctor examines and the explorer opens first."""
    name = qualname.split(".")[-1]
    return not name.startswith("__") or name == "__call__"


def parse_spec(spec: str) -> TargetSpec:
    """Split ``PATH::QUALNAME`` (the function part is optional)."""
    path, _, qualname = spec.partition("::")
    if not path:
        raise AgxError("bad-target", f"'{spec}' names no file: write PATH::FUNCTION, "
                       "for example samples/s4_4_autograph.py::dynamic_loop.")
    return TargetSpec(os.path.abspath(os.path.expanduser(path)), qualname or None)


def read_source(path: str) -> str:
    """Read a Python file as Python does (coding line, BOM), bounded; unreadable is one sentence."""
    return read_source_file(path).text


def parse_source(path: str, text: str) -> ast.Module:
    """Parse ``text``; a syntax error is reported as ``file:line`` with the offending line.
    A recorded run's log is no Python file (its JSON lines parse as Python: the file would
    seem to hold no function): said, with the commands that read one."""
    if path.endswith(".agxlog") or text.startswith('{"type": "start"'):
        raise AgxError("not-python", f"{path} is a recorded run's log, not Python source",
                       advice=f"`agexplorer summary {path}` shows what it recorded, "
                       f"`agexplorer doctor {path}` examines its functions with the calls "
                       f"it recorded, and `agexplorer {path}` opens it in the explorer.")
    try:
        return _parsed(text, path)
    except SyntaxError as exc:
        line = exc.lineno or 0
        if not path.endswith(".py"):
            raise AgxError("not-python", f"{path} does not look like Python source "
                           f"(it fails to parse at line {line})", advice="open a .py file.",
                           line=line) from None
        shown = (exc.text or "").strip()
        where = f"{path}:{line}"
        raise AgxError("syntax-error", f"{where}: syntax error: {exc.msg}"
                       + (f" in `{shown}`" if shown else ""),
                       advice="fix the line and try again.", line=line) from None
    except (RecursionError, MemoryError) as exc:  # Python's own parser gives up: not ours
        raise AgxError("syntax-error", f"{path}: Python cannot parse this file: it nests too "
                       f"deeply ({type(exc).__name__}: {exc})", advice="split the deepest "
                       "expression (a very long chain of operators, or brackets nested very "
                       "deep) into steps: Python itself cannot compile the file as it is.") \
            from None


_PARSING = threading.Lock()


def _parsed(text: str, path: str, attempts: int = 3) -> ast.Module:
    """``ast.parse``, one thread at a time, and made again where CPython 3.11 trips on its
    own count: it keeps the AST's nesting depth per interpreter, not per thread, so two
    threads parsing at once (the explorer's, a notebook's, a test run's) can fail one of
    them with SystemError "AST constructor recursion depth mismatch" on a sound file."""
    for attempt in range(attempts):
        try:
            with _PARSING:
                return ast.parse(text, filename=path)
        except SystemError as exc:
            if "recursion depth mismatch" not in str(exc) or attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


def tf_function_decorated(node: Any) -> bool:
    """Whether the def ``node`` (an ast def) is decorated with tf.function."""
    return any(_decorator_name(d) in TF_FUNCTION_NAMES
               for d in getattr(node, "decorator_list", ()))


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return ast.unparse(target)


def sample_call_names(tree: ast.Module) -> set[str]:
    """The keys of a module-level ``AGX_CALLS = {...}`` literal (ready inputs of a sample)."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "AGX_CALLS"
                                                for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return set()
            return {str(k) for k in value} if isinstance(value, dict) else set()
    return set()


# The call origin of a function's arguments taken from the file's own call of it
# (file_calls): "the file's call, line N".
FILE_CALL = "the file's call"
# A top-level statement whose calls run as the file loads, once each (not a loop's body,
# not a block that may not run): a call in it is the program's own call of a function.
_ONCE = (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign)


def top_level_bindings(tree: ast.Module) -> dict[str, list[int]]:
    """Each name the file's top-level code binds, with the lines of the top-level statements
    that bind it (function and class bodies and lambdas aside: they bind their own)."""
    bound: dict[str, list[int]] = {}

    def walk(node: ast.AST, line: int) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.setdefault(node.name, []).append(line)
            for d in node.decorator_list:
                walk(d, line)
            return
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.setdefault(node.id, []).append(line)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.setdefault((alias.asname or alias.name).split(".")[0], []).append(line)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, []).append(line)
        for child in ast.iter_child_nodes(node):
            walk(child, line)

    for statement in tree.body:
        walk(statement, statement.lineno)
    # A function's ``global x`` may set x whenever it runs: after any line, as far as can be
    # told here.
    end = max((node.end_lineno or node.lineno for node in tree.body), default=0) + 1
    for node in _all_statements(tree.body):
        if isinstance(node, ast.Global):
            for name in node.names:
                bound.setdefault(name, []).append(end)
    return bound


def _all_statements(body: list) -> Iterator[ast.AST]:
    """Every statement in ``body`` and in the blocks of its statements, nested ones too (a
    walk of the statements alone: ~10x fewer nodes than ``ast.walk``, whose expressions hold
    no statement)."""
    for node in body:
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                yield from _all_statements(block)


def file_calls(tree: ast.Module, functions: set[str] | None = None,
               objects: set[str] | None = None) -> dict[str, tuple[int, str]]:
    """The file's own first call of each module-level function that loading the file runs and
    that can be made again, the same, once it has loaded: ``{name: (line, "args")}``.

    The call is in a top-level statement that runs once (``y = f(x)``, ``print(f(x))``; not
    in a loop or an ``if``, not in a lambda or a comprehension), it passes no ``*``/``**``
    unpacking, and every name its arguments read is bound by the file's top-level code
    before that statement and never again after it (or not at all: a builtin), so that
    after the load each still holds the value the call got.

    A call in a statement of that kind directly in the ``if __name__ == "__main__":`` block
    counts too (the program's calls are mostly there): loading the file does not run the
    block, so every name its arguments read must be bound before the block and nowhere in
    it nor after it (``print(f(tf.constant([1.0, 2.0])))``, not ``x = g(); f(x)``).
    ``functions``/``objects``: only calls of these functions and of these objects' methods
    (None: any).
    """
    found: dict[str, tuple[int, str]] = {}
    bindings: list[dict[str, list[int]]] = []  # made once, where a call is a candidate

    def bound() -> dict[str, list[int]]:
        if not bindings:
            bindings.append(top_level_bindings(tree))
        return bindings[0]

    def calls(node: ast.AST) -> list[ast.Call]:
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            return []
        here = [node] if isinstance(node, ast.Call) else []
        return here + [c for child in ast.iter_child_nodes(node) for c in calls(child)]

    for statement, line in _once_statements(tree):
        for call in sorted(calls(statement), key=lambda c: (c.lineno, c.col_offset)):
            # f(...), or obj.method(...) of a module-level object: "obj.method"
            func = call.func
            if isinstance(func, ast.Name):
                head, called, wanted = func.id, func.id, functions
            elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                head, called, wanted = func.value.id, f"{func.value.id}.{func.attr}", objects
            else:
                continue
            if called in found or (wanted is not None and head not in wanted):
                continue
            written = _call_text(call)
            if written is None:
                continue
            text, reads = written
            if called != head:  # the object whose method it is: the same one after the load
                reads.add(head)
            if all(all(at < line for at in bound().get(name, [])) for name in reads):
                found[called] = (call.lineno, text)
    return found


def _call_text(call: ast.Call) -> tuple[str, set[str]] | None:
    """A call's arguments as written (``data, n=len(data)``) and the names they read; None
    for one that unpacks (``*args``, ``**kwargs``), which cannot be made again as text."""
    if any(isinstance(a, ast.Starred) for a in call.args) or \
            any(k.arg is None for k in call.keywords):
        return None
    reads = {n.id for part in [*call.args, *(k.value for k in call.keywords)]
             for n in ast.walk(part) if isinstance(n, ast.Name)}
    return ", ".join([ast.unparse(a) for a in call.args]
                     + [f"{k.arg}={ast.unparse(k.value)}" for k in call.keywords]), reads


def _once_statements(tree: ast.Module) -> list[tuple[ast.stmt, int]]:
    """The statements whose calls :func:`file_calls` takes, each with the line its
    arguments' names must be bound before: its own for a top-level one; the block's ``if``
    for one of the ``if __name__ == "__main__":`` block (the bindings of a name anywhere in
    the block count at that line: the load never made them)."""
    found: list[tuple[ast.stmt, int]] = []
    for statement in tree.body:
        if isinstance(statement, _ONCE):
            found.append((statement, statement.lineno))
        elif isinstance(statement, ast.If) and _is_main_block(statement):
            found += [(s, statement.lineno) for s in statement.body if isinstance(s, _ONCE)]
    return found


def _is_main_block(node: ast.If) -> bool:
    """``if __name__ == "__main__":`` (either way round)."""
    if not isinstance(node.test, ast.Compare):
        return False
    test = node.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    return any(isinstance(a, ast.Name) and a.id == "__name__" for a in sides) and any(
        isinstance(a, ast.Constant) and a.value == "__main__" for a in sides)


def handed_to(tree: ast.Module, name: str) -> tuple[int, str] | None:
    """(line, what is called) of the first call in the file that is handed the function
    ``name`` itself, not a call of it (``ds.map(parse)``, ``tf.py_function(f, ...)``,
    ``Lambda(f)``): a library that traces or runs it with what it gives it."""
    found = sorted((node.lineno, node.col_offset, ast.unparse(node.func))
                   for node in ast.walk(tree) if isinstance(node, ast.Call)
                   and any(isinstance(a, ast.Name) and a.id == name
                           for a in [*node.args, *(k.value for k in node.keywords)]))
    return (found[0][0], found[0][2]) if found else None


def module_level_arguments(tree: ast.Module, name: str) -> str | None:
    """The arguments' text of the file's first call of the function ``name`` made inside a
    function (``train_epoch(ds)`` in ``main()``) when they read only names of the module's
    top-level code that no enclosing function binds: the same text read in the module means
    the same values, so ``--call`` can pass it. None for any other call."""
    top = top_level_bindings(tree)
    import builtins

    def local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> set[str]:
        args = fn.args
        names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
        names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {a.asname or a.name.split(".")[0] for a in node.names}
        return names

    def visit(node: ast.AST, shadowed: set[str] | None) -> str | None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            shadowed = (shadowed or set()) | local_names(node)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp,
                               ast.ClassDef)):
            return None  # scopes of their own: not followed
        if shadowed is not None and isinstance(node, ast.Call) and \
                isinstance(node.func, ast.Name) and node.func.id == name:
            written = _call_text(node)
            if written is None:
                return None
            text, reads = written
            if text and not reads & shadowed and \
                    all(r in top or hasattr(builtins, r) for r in reads):
                return text
        for child in ast.iter_child_nodes(node):
            found = visit(child, shadowed)
            if found is not None:
                return found
        return None

    return visit(tree, None)


def called_at(tree: ast.Module, name: str) -> int | None:
    """The line of the file's first call of the function ``name`` by that name (anywhere:
    a loop, ``main()``, the ``if __name__ == "__main__":`` block), or None."""
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == name]
    return min(lines, default=None)


def list_functions(tree: ast.Module, drives: bool = False, calls: bool = True
                   ) -> list[FunctionInfo]:
    """Every function reachable by a qualname: top-level ones and methods of (nested) classes;
    ``drives``: with each plain function's calls of the file's tf.functions (a walk of the
    whole file, which the other callers do not need); ``calls=False``: without the file's
    own calls (:func:`file_calls`, a walk of its top-level code: ~0.3-0.6 ms a load), so
    that ``file_call`` is None and ``ready`` leaves them out, for a caller that reads
    neither (the engine's load, on the path of every edit's answer)."""
    found: list[FunctionInfo] = []
    samples = sample_call_names(tree)
    # Each top-level class's first module-level object (``c = Counter()``): the instance a
    # method is bound to (engine/load.py), whose calls in the file are the method's.
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    first_object: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name) and node.value.func.id in classes:
            first_object.setdefault(node.value.func.id, node.targets[0].id)
    # Calls of the module's own functions and objects only (a def, a name bound to a lambda
    # or a call's result, a class's object): the file's other calls (print, tf.constant)
    # need no look at what binds their names.
    own_calls = file_calls(tree, {n.name for n in tree.body
                                  if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
                           | {t.id for n in tree.body if isinstance(n, ast.Assign)
                              and isinstance(n.value, (ast.Lambda, ast.Call))
                              for t in n.targets if isinstance(t, ast.Name)},
                           set(first_object.values())) if calls else {}

    def visit(body: list[ast.stmt], prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decorators = tuple(_decorator_name(d) for d in node.decorator_list)
                descriptor = _descriptor(decorators) if in_class else None
                params = tuple(a.arg for a in node.args.posonlyargs + node.args.args
                               + node.args.kwonlyargs)
                positional = node.args.posonlyargs + node.args.args
                bound = in_class and descriptor != "staticmethod"  # self or cls comes bound
                required = len(positional) - len(node.args.defaults) - bound
                required += sum(d is None for d in node.args.kw_defaults)
                signature = any("input_signature" in ast.unparse(d) for d in node.decorator_list)
                holder = first_object.get(prefix[:-1]) if prefix.count(".") == 1 else None
                own = own_calls.get(node.name) if not in_class else \
                    own_calls.get(f"{holder}.{node.name}") if holder else None
                if own is None and holder and node.name == "__call__":
                    own = own_calls.get(holder)  # c(x) calls its class's __call__
                found.append(FunctionInfo(
                    qualname=prefix + node.name, line=node.lineno,
                    end_line=node.end_lineno or node.lineno,
                    decorated=any(d in TF_FUNCTION_NAMES for d in decorators),
                    decorators=decorators, is_method=in_class, params=params,
                    ready=descriptor != "property" and (prefix + node.name in samples
                                                        or signature or required <= 0
                                                        or own is not None),
                    descriptor=descriptor, file_call=own))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, prefix + node.name + ".", True)

    visit(tree.body, "", False)
    found += _assigned_functions(tree, {f.qualname for f in found}, samples, own_calls)
    found.sort(key=lambda f: f.line)  # in source order (the defs are already): stable
    staged = _staged(found)
    if not drives or not staged:
        return found
    driven = _drives(tree, staged)
    return [replace(f, drives=driven[f.qualname]) if f.qualname in driven and not f.decorated
            else f for f in found]


def drives_of(tree: ast.Module, functions: list[FunctionInfo], qualname: str) -> tuple[str, ...]:
    """The file's tf.functions the plain function ``qualname`` calls (``functions``: the
    file's ``list_functions``), in one walk of the file."""
    staged = _staged(functions)
    return _drives(tree, staged).get(qualname, ()) if staged else ()


def _staged(functions: list[FunctionInfo]) -> set[str]:
    """The file's top-level tf.functions, by name."""
    return {f.qualname for f in functions if f.decorated and not f.is_method}


def _drives(tree: ast.Module, staged: set[str]) -> dict[str, tuple[str, ...]]:
    """The top-level functions' calls of the file's tf.functions (``staged``) by name, in
    one walk of the file (a walk per function took a 400-function file 3 s); none for a
    function the file hands to a call (``tf.function(main)``, ``strategy.run(main)``),
    which may trace it."""
    handed: set[str] = set()
    called: dict[str, set[str]] = {}
    for top in tree.body:
        name = top.name if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        for node in ast.walk(top):
            if not isinstance(node, ast.Call):
                continue
            handed.update(a.id for a in [*node.args, *(k.value for k in node.keywords)]
                          if isinstance(a, ast.Name))
            if name and isinstance(node.func, ast.Name) and node.func.id in staged \
                    and node.func.id != name:
                called.setdefault(name, set()).add(node.func.id)
    return {name: tuple(sorted(calls)) for name, calls in called.items() if name not in handed}


def _info(name: str, node: ast.FunctionDef | ast.AsyncFunctionDef, decorated: bool,
          decorators: tuple[str, ...], signature: bool, samples: set[str],
          own_calls: dict[str, tuple[int, str]]) -> FunctionInfo:
    """A module-level name bound to the function ``node`` (see _assigned_functions)."""
    args = node.args
    positional = args.posonlyargs + args.args
    required = len(positional) - len(args.defaults) + sum(d is None for d in args.kw_defaults)
    own = own_calls.get(name)
    return FunctionInfo(qualname=name, line=node.lineno, end_line=node.end_lineno or node.lineno,
                        decorated=decorated, decorators=decorators, is_method=False,
                        params=tuple(a.arg for a in positional + args.kwonlyargs),
                        ready=name in samples or signature or required <= 0 or own is not None,
                        file_call=own)


def _assigned_functions(tree: ast.Module, taken: set[str], samples: set[str],
                        own_calls: dict[str, tuple[int, str]]
                        ) -> list[FunctionInfo]:
    """Module-level names bound to a function that no def of that name gives: a lambda
    (``sq = lambda x: x * x``, ``step = tf.function(lambda x: model(x))``), a def wrapped
    (``fast = tf.function(slow, jit_compile=True)``) and a function a factory of the module
    returns (``train_step = make_train_step(model, opt)``, where ``make_train_step`` ends in
    ``return train_step``, a def of its own). Each at the lines of its code (the factory's
    def for a factory's function). The last binding of a name counts; a def after it
    rebinds it."""
    defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    bound: dict[str, ast.expr] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = node
            bound.pop(node.name, None)
        elif isinstance(node, ast.ClassDef):
            bound.pop(node.name, None)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            bound[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            bound[node.target.id] = node.value
    found = []
    for name, value in bound.items():
        if name in taken:
            continue
        if isinstance(value, ast.Lambda):
            found.append(_info(name, lambda_as_def(value, name), False, (), False, samples,
                               own_calls))
            continue
        if not isinstance(value, ast.Call):
            continue
        called = ast.unparse(value.func)
        if called in TF_FUNCTION_NAMES and value.args:  # tf.function(lambda | a def)
            wrapped = value.args[0]
            signature = any(k.arg == "input_signature" for k in value.keywords) or \
                len(value.args) > 1
            target = lambda_as_def(wrapped, name) if isinstance(wrapped, ast.Lambda) else \
                defs.get(wrapped.id) if isinstance(wrapped, ast.Name) else None
            if target is not None:
                found.append(_info(name, target, True, ("tf.function",), signature,
                                   samples, own_calls))
        elif isinstance(value.func, ast.Name) and value.func.id in defs:
            made = _returned_def(defs[value.func.id])
            if made is not None:
                inner, wrapped_here = made
                decorators = tuple(_decorator_name(d) for d in inner.decorator_list)
                signature = any("input_signature" in ast.unparse(d)
                                for d in inner.decorator_list)
                decorated = wrapped_here or any(d in TF_FUNCTION_NAMES for d in decorators)
                found.append(_info(name, inner, decorated, decorators, signature,
                                   samples, own_calls))
    return found


def made_by(tree: ast.Module, factory: str) -> list[tuple[str, int]]:
    """The module-level names bound to what ``factory`` returns (``double = make(2)``), with
    their lines, in the file's order."""
    found = []
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        if len(targets) == 1 and isinstance(targets[0], ast.Name) and \
                isinstance(value, ast.Call) and ast.unparse(value.func) == factory:
            found.append((targets[0].id, node.lineno))
    return found


def _returned_def(factory: ast.FunctionDef | ast.AsyncFunctionDef
                  ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, bool] | None:
    """The def of ``factory``'s own body that it returns (``return step``, or ``return
    tf.function(step)``: then True), when every return of it returns that one def."""
    local = {n.name: n for n in factory.body if isinstance(n, (ast.FunctionDef,
                                                               ast.AsyncFunctionDef))}
    returned: set[tuple[str, bool]] = set()
    for node in own_nodes(factory):
        if not isinstance(node, ast.Return):
            continue
        value = node.value
        wrapped = isinstance(value, ast.Call) and ast.unparse(value.func) in TF_FUNCTION_NAMES \
            and len(value.args) == 1
        if wrapped:
            value = value.args[0]  # type: ignore[union-attr]
        if not isinstance(value, ast.Name) or value.id not in local:
            return None
        returned.add((value.id, bool(wrapped)))
    if len(returned) != 1:
        return None
    name, wrapped = returned.pop()
    return local[name], wrapped


def _descriptor(decorators: tuple[str, ...]) -> Descriptor | None:
    """staticmethod, classmethod or property (``@x.setter`` too) from a method's decorators."""
    for name in decorators:
        if name in _DESCRIPTORS:
            return _DESCRIPTORS[name]
        if name.rpartition(".")[2] in ("setter", "getter", "deleter"):
            return "property"
    return None


def find_function_node(tree: ast.Module, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``def`` node for a dotted qualname (``Class.method``), or None. A name assigned a
    lambda (``square = lambda x: x * x``, ``twice = tf.function(lambda x: x + x)``) gets the
    lambda as a ``def`` at the lambda's own lines."""
    parts = qualname.replace(".<locals>", "").split(".")
    body: list[ast.stmt] = tree.body
    node: ast.AST | None = None
    for i, part in enumerate(parts):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                        ast.ClassDef)) and n.name == part), None)
        if node is None:
            return _assigned_lambda(body, part) if i == len(parts) - 1 else None
        if i < len(parts) - 1:
            body = node.body
    return node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _assigned_lambda(body: list[ast.stmt], name: str) -> ast.FunctionDef | None:
    """The lambda of the last ``name = ...`` in ``body`` (when it holds one, lambdas inside
    it aside), as a def."""
    value = None
    for node in body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                                for t in node.targets):
            value = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            value = node.value
    lambdas = outermost_lambdas([n for n in ast.walk(value) if isinstance(n, ast.Lambda)]
                                if value else [])
    if len(lambdas) != 1:
        return None
    return lambda_as_def(lambdas[0], name)


def outermost_lambdas(lambdas: list[ast.Lambda]) -> list[ast.Lambda]:
    """``lambdas`` less those inside another of them (``lambda x: map(lambda y: y, x)``)."""
    inner = {id(n) for lam in lambdas for n in ast.walk(lam.body)}
    return [lam for lam in lambdas if id(lam) not in inner]


def own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` (a def) that is its own: not inside a function, lambda or
    class defined in it."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(child))


def lambda_as_def(lam: ast.Lambda, name: str) -> ast.FunctionDef:
    """``lam`` as a ``def name(...): return ...`` at the lambda's own lines."""
    made = ast.FunctionDef(name=name, args=lam.args, body=[ast.Return(lam.body)],
                           decorator_list=[], returns=None, type_comment=None,
                           **({"type_params": []} if "type_params" in ast.FunctionDef._fields
                              else {}))  # type: ignore[arg-type]  # Python 3.12's field
    return ast.copy_location(made, lam)


MAX_NAMES_SHOWN = 20


def name_list(names: list[str], path: str) -> str:
    """``a, b, c`` for a message: at most 20 names, then "and N more: agexplorer list FILE"."""
    if not names:
        return "none"
    shown = ", ".join(names[:MAX_NAMES_SHOWN])
    rest = len(names) - MAX_NAMES_SHOWN
    return shown if rest <= 0 else f"{shown} and {rest} more: agexplorer list {path}"


# Calls and attributes through which a module can bind names that no statement shows.
_DYNAMIC_NAMES = {"globals", "locals", "vars", "exec", "eval", "setattr", "__import__",
                  "__builtins__"}
_DYNAMIC_ATTRS = {"__dict__", "__setattr__", "f_globals", "f_locals", "modules"}


def _bound_names(tree: ast.Module) -> set[str] | None:
    """Every name the file binds anywhere (an over-estimate of its module globals), or None
    when the module can bind names dynamically (``__getattr__``, ``import *``, ``globals()``,
    ``exec``, ``setattr``, ``vars()``...), so that no name is certainly missing."""
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id in _DYNAMIC_NAMES:
                return None
            if not isinstance(node.ctx, ast.Load):
                bound.add(node.id)
        elif isinstance(node, ast.Attribute) and node.attr in _DYNAMIC_ATTRS:
            return None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    return None
                bound.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    return None if "__getattr__" in bound else bound


def check_target(target: str, tree: ast.Module, need_function: bool = True) -> None:
    """The target checks that need no TensorFlow: raise AgxError when ``target`` certainly
    names nothing in the parsed file (no function part where one is needed, an empty one,
    or a first name the module never binds); what might exist at run time is left to the worker."""
    spec = parse_spec(target)
    _, sep, qualname = target.partition("::")
    functions = [f.qualname for f in list_functions(tree)]
    if sep and not qualname.strip():
        raise AgxError("bad-target", f"'{target}' names no function after '::': write "
                       f"{spec.path}::FUNCTION (available: {name_list(functions, spec.path)}).")
    if not qualname:
        if need_function:
            raise AgxError("no-function", f"name a function: {spec.path}::FUNCTION "
                           f"(available: {name_list(functions, spec.path)}).")
        return
    first = qualname.replace(".<locals>", "").split(".")[0]
    if first.startswith("__") and first.endswith("__"):
        return  # module attributes the loader sets (__name__, __file__...)
    bound = _bound_names(tree)
    if bound is not None and (first not in bound or _missing_on_function(tree, qualname)):
        raise AgxError("unknown-function", f"{spec.path} has no function '{qualname}'",
                       advice=f"available: {name_list(functions, spec.path)}.")


def _missing_on_function(tree: ast.Module, qualname: str) -> bool:
    """``outer.inner`` where ``outer`` is only ever a plain (undecorated) module-level def and
    nothing in the file binds ``inner`` on it or inside it: a function object has no such
    attribute. A class is left alone (its bases, metaclass or callers may add attributes)."""
    parts = qualname.replace(".<locals>", "").split(".")
    if len(parts) < 2 or (parts[1].startswith("__") and parts[1].endswith("__")):
        return False
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == parts[0]]
    if not defs or any(n.decorator_list for n in defs) or _bindings(tree, parts[0]) != len(defs):
        return False
    stored = {n.attr for n in ast.walk(tree)
              if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load)}
    inside = set().union(*(_bound_names(ast.Module(body=n.body, type_ignores=[])) or set()
                           for n in defs))
    return parts[1] not in stored and parts[1] not in inside


def _bindings(tree: ast.Module, name: str) -> int:
    """How many statements or targets anywhere in the file bind ``name`` (an over-count)."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            count += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            count += node.name == name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            count += sum((a.asname or a.name.split(".")[0]) == name for a in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            count += name in node.names
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
            count += node.name == name
        elif isinstance(node, ast.MatchMapping):
            count += node.rest == name
    return count


def check_call(call: str, origin: str = "--call") -> None:
    """Refuse a call (``--call`` text) that is not a Python argument list, by compiling it as
    the worker will (nothing runs), so a typo answers before TensorFlow loads."""
    try:
        compile(f"__agx_collect__({call})", f"<{origin}>", "eval", dont_inherit=True)
    except SyntaxError as exc:
        why = exc.msg
    except ValueError as exc:  # a NUL character
        why = str(exc)
    except (RecursionError, MemoryError):  # the parser's own limits: the worker's too
        why = "it nests too deeply to compile"
    else:
        return
    raise AgxError("bad-call", f'{origin} "{call}" is not a valid Python argument list ({why})',
                   advice='write it as inside f(...), e.g. --call "tf.constant([1, 2]), n=3".')
