"""Loading a target: the file run as a module, the function found, bound and given its arguments."""

from __future__ import annotations

import ast
import contextlib
import importlib.machinery
import importlib.util
import inspect
import itertools
import os
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from agexplorer.engine import callargs
from agexplorer.engine.usercode import UserCode
from agexplorer.model.errors import AgxError, user_code_error, user_frames_message
from agexplorer.source.files import package_of
from agexplorer.source.targets import (
    FILE_CALL,
    FunctionInfo,
    called_at,
    drives_of,
    find_function_node,
    handed_to,
    list_functions,
    module_level_arguments,
    name_list,
    parse_source,
    parse_spec,
    read_source,
    top_level_bindings,
)

# The phase a timeout names while an argument expression runs (``--call '10**10**8'``).
EVALUATING = "evaluating the call arguments"

_module_counter = itertools.count()
_user_code: UserCode | None = None
# Each module of sys.modules decided once: name -> (module, whether it is the user's), by
# the UserCode in _decided_by.
_decided: dict[str, tuple[ModuleType, bool]] = {}
_decided_by: UserCode | None = None
# sys.modules's last name and size when the user's modules were last forgotten: the modules
# imported since are the ones after that name (a dict keeps its insertion order).
_tail: tuple[str, int] | None = None


def _appended() -> list[str] | None:
    """The names ``sys.modules`` gained since the user's modules were last forgotten, newest
    first; None where that cannot be told (a first time, a module removed by someone else:
    every module is looked at then). Reading only the newest names matters after a pause:
    the whole table, ~3,500 modules with TensorFlow, took 3.4 ms to walk in a process idle
    for 0.6 s (0.4 ms right after other work)."""
    if _tail is None or _tail[0] not in sys.modules:
        return None
    grown = len(sys.modules) - _tail[1]
    added: list[str] = []
    try:
        for name in reversed(sys.modules):
            if name == _tail[0]:
                break
            added.append(name)
            if len(added) > grown:
                return None
    except RuntimeError:  # changed while read (an import in another thread): read it all
        return None
    return added if len(added) == grown else None


def forget_user_modules(user: UserCode | None = None) -> list[str]:
    """Drop from ``sys.modules`` every module loaded from the user's files (the targets
    loaded before, and what they imported by name: ``import helpers``), so that the next
    load imports them afresh: an edited helper is seen, and a ``helpers.py`` of another
    folder is not taken for this one's. Library modules stay imported. Returns their names."""
    global _user_code, _decided_by, _tail
    if user is None:  # one for the worker's life: it decides each file name once
        user = _user_code = _user_code or UserCode()
    added = _appended() if _decided_by is user else None
    if _decided_by is not user:
        _decided.clear()
        _decided_by = user
    if added is not None:  # only what was imported since: the rest was decided then
        modules = {name: sys.modules[name] for name in added if name in sys.modules}
    else:
        modules = sys.modules.copy()
        for name in _decided.keys() - modules.keys():  # gone from sys.modules meanwhile
            del _decided[name]
    gone = []
    for name, module in modules.items():
        known = _decided.get(name)
        if known is None or known[0] is not module:
            file = getattr(module, "__file__", None)
            known = _decided[name] = (module, name.startswith("agx_user_") or (
                isinstance(file, str) and file in user))
        if known[1]:
            gone.append(name)
    for name in gone:
        sys.modules.pop(name, None)
        _decided.pop(name, None)
    try:
        _tail = (next(reversed(sys.modules)), len(sys.modules))
    except (StopIteration, RuntimeError):
        _tail = None
    # Their conversions too: AutoGraph finds a conversion by a code object that compares
    # equal to the same function of another copy of the file (see evict_conversions).
    from agexplorer.engine import tf_internals

    tf_internals.evict_conversions(lambda file: file in user)
    return gone


# A load runs the file's module-level code: a program run there runs at every load.
_LOAD_ADVICE = ("fix it: agexplorer runs the file's module-level code to find its functions "
                "(code that runs the program belongs under `if __name__ == \"__main__\":`).")


def load_module(path: str, text: str) -> ModuleType:
    """Run the file as a module (its ``if __name__ == "__main__"`` block does not run), after
    the user's modules of earlier loads are forgotten, with its folder first on the path (its
    sibling imports find its own neighbours, not those of a file loaded before); module-level
    code that raises is an AgxError ("load-error")."""
    module, failure = run_module(path, text)
    if failure is not None:
        sys.modules.pop(module.__name__, None)
        raise failure.error
    return module


@dataclass
class LoadFailure:
    """The file's module-level code raised: ``error`` (one sentence at the user's line),
    ``statement`` the first line of the module-level statement that raised, ``text`` its
    source's first line, and ``after`` whether module-level statements came after it."""

    error: AgxError
    statement: int
    text: str
    after: bool
    # Why, where it is known: a tensor asked for a Python bool in code that ran unconverted
    # (a Keras 3 layer called on the functional model's symbolic inputs), with the fix.
    advice: str | None = None

    def note(self) -> str:
        """What the report says of it: the error, then what agexplorer did."""
        first = (self.error.raised or "").split("\n", 1)[0]
        sentence = first.find(". ")  # TensorFlow's messages go on with advice: the first one
        if 0 < sentence < len(first) - 2:
            first = first[:sentence + 1]
        if len(first) > 160:
            first = first[:157].rstrip() + "..."
        went_on = ("agexplorer went on without the module-level statements after it (their "
                   "def, class and import statements ran), so what they would have set is "
                   "missing" if self.after else "agexplorer went on with what the file had "
                   "defined by then")
        at = f" at line {self.error.line}" if self.error.line != self.statement else ""
        why = f"; {self.advice.rstrip('.')}" if self.advice else ""
        return (f"loading the file, line {self.statement} (`{self.text}`) raised{at}: "
                f"{first.rstrip('.')}{why}; {went_on}.")


def unset_names(tree: ast.Module, line: int) -> dict[str, int]:
    """The names the module-level statements from ``line`` on set, their def, class and
    import statements aside (those ran): name -> the first line that sets it."""
    found: dict[str, int] = {}
    for name, lines in top_level_bindings(tree).items():
        later = [at for at in lines if at >= line and not _defines(tree, at)]
        if later:
            found[name] = min(later)
    return found


def _defines(tree: ast.Module, line: int) -> bool:
    """Whether the top-level statement at ``line`` is a def, class or import (it ran)."""
    return any(node.lineno == line and isinstance(node, _DEFINITIONS) for node in tree.body)


def run_module(path: str, text: str, tree: ast.Module | None = None
               ) -> tuple[ModuleType, LoadFailure | None]:
    """Run the file as a module (see :func:`load_module`). Module-level code that raises
    (a program's own call of the function explored, an argument parser): the module as far
    as it ran, then the def, class and import statements after the one that raised, each
    on its own (one that raises is left out), and what raised. KeyboardInterrupt stops.
    ``tree``: ``text`` parsed already (compiled from it, not parsed again)."""
    forget_user_modules()
    name = f"agx_user_{next(_module_counter)}_{os.path.splitext(os.path.basename(path))[0]}"
    folder = os.path.dirname(path)
    package, root = package_of(path)
    for place in ([root] if package else []) + [folder]:
        with contextlib.suppress(ValueError):
            sys.path.remove(place)
        sys.path.insert(0, place)
    if package:  # a module of a package: its relative imports (from .utils import f) resolve
        name = f"{package}.{name}"
    # An explicit loader: spec_from_file_location gives up on names that do not end in .py.
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    # Its own ``from __future__`` imports only, as ``python FILE`` runs it: compile() would
    # give it this module's too (``annotations``: the user's annotations strings).
    code = compile(tree if tree is not None else text, path, "exec", dont_inherit=True)
    # The command line the module reads (an argument parser at module level) is that of
    # `python FILE`, none: the worker's own (its pipe's descriptor) would be parsed as the
    # program's arguments.
    saved_argv, sys.argv = sys.argv, [path]
    try:
        exec(code, module.__dict__)
    except BaseException as exc:  # user code may raise anything, even SystemExit
        if isinstance(exc, KeyboardInterrupt):
            sys.modules.pop(name, None)
            raise
        error = user_code_error(exc, path, "loading the file as a module", kind="load-error",
                                advice=_LOAD_ADVICE)
        return module, _go_on(module, path, text, code, exc, error)
    finally:
        sys.argv = saved_argv
    return module, None


# The definitions run after a module-level statement raised: they only bind names.
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
# The file's ``from __future__`` features, kept for them (the module ``__future__``, found
# by name: ``from __future__ import ...`` is the compiler's own statement).
_FUTURE = importlib.import_module("__future__")
_FUTURE_FLAGS = 0
for _feature in _FUTURE.all_feature_names:
    _FUTURE_FLAGS |= getattr(_FUTURE, _feature).compiler_flag


def _go_on(module: ModuleType, path: str, text: str, code: types.CodeType,
           exc: BaseException, error: AgxError) -> LoadFailure:
    tb, line = exc.__traceback__, None
    while tb is not None:  # the module-level frame's line: the statement that raised
        if tb.tb_frame.f_code is code:
            line = tb.tb_lineno
        tb = tb.tb_next
    body = ast.parse(text).body
    at = next((i for i, node in enumerate(body)
               if line is not None and node.lineno <= line <= (node.end_lineno or node.lineno)),
              len(body) - 1)
    later = body[at + 1:]
    for node in later:
        if isinstance(node, _DEFINITIONS):
            one = compile(ast.Module(body=[node], type_ignores=[]), path, "exec",
                          flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
            try:
                exec(one, module.__dict__)
            except KeyboardInterrupt:
                raise
            except BaseException:  # noqa: BLE001 - it needed what did not run: left out
                continue
    first = text.splitlines()[body[at].lineno - 1].strip() if body else ""
    if len(first) > 60:
        first = first[:57].rstrip() + "..."
    return LoadFailure(error, body[at].lineno if body else 1, first, bool(later),
                       _unconverted_why(exc, path, text))


def _unconverted_why(exc: BaseException, path: str, text: str) -> str | None:
    """unconverted_advice for what the load raised (its classes are defined by now)."""
    from agexplorer.engine.calltree import FileIndex
    from agexplorer.engine.unconverted_raise import unconverted_advice
    from agexplorer.engine.usercode import UserCode

    try:
        return unconverted_advice(exc, FileIndex({path: text}), UserCode.shared(()))
    except Exception:  # noqa: BLE001 - the advice is a help, never the load's failure
        return None


def resolve(module: ModuleType, qualname: str, available: list[FunctionInfo]) -> Any:
    """Follow ``a.b.c`` from the module; an unknown name lists what is there."""
    obj: Any = module
    for part in qualname.replace(".<locals>", "").split("."):
        if not hasattr(obj, part):
            names = name_list([f.qualname for f in available], str(module.__file__))
            raise AgxError("unknown-function", f"{module.__file__} has no function "
                           f"'{qualname}'", advice=f"available: {names}.")
        obj = getattr(obj, part)
    return obj


@dataclass
class Loaded:
    """One target, ready to convert, trace or run (not picklable: it holds live objects)."""

    path: str
    qualname: str
    text: str
    # load_target lists them without the file's own calls (``file_call`` and ``ready`` not
    # told): _file_call finds the function's own call where it is needed.
    functions: list[FunctionInfo]
    node: Any  # the ast def node, or None for a function made by assignment
    module: Any
    pyfn: Any  # the plain Python function (a tf.function's python_function)
    signature: Any  # its input_signature, or None
    bound: Any  # what to call: pyfn, or pyfn bound to an instance for a method
    decorated: bool
    call: str | None = None
    call_origin: str | None = None
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    args_error: AgxError | None = None  # no usable arguments (only when not required)
    # A method's instance, in words: "Smoother(steps=6) (--init)", "model (the module's)"
    instance: str | None = None
    # The tf.function the report's trace goes through (None: a fresh one of ``bound``): the
    # user's own, where agexplorer.explain is asked to reuse it (its settings, its cache).
    traced_with: Any = None
    # False where the user's own tf.function was made with autograph=False: it traces the
    # function as written, and so does the report's trace.
    autograph: bool = True
    # The optional AutoGraph features of the user's own tf.function
    # (``experimental_autograph_options``: Feature.ASSERT_STATEMENTS...), None where none.
    autograph_options: Any = None
    # The module turned on tf.config.run_functions_eagerly(True), under which a tf.function
    # runs eagerly: turned off again once it ran (what is made of it is graphs; a worker
    # puts the process's settings back after each request).
    eager_setting_off: bool = False
    # The file's module-level code raised (run_module): what, and how agexplorer went on.
    load_note: str | None = None
    # The names the module-level statements that did not run would have set (that one and
    # those after it, their definitions aside), by name: the first line that sets each.
    not_set: dict[str, int] = field(default_factory=dict)
    # A plain function's calls of the file's tf.functions (``main`` calling ``train_step``).
    drives: tuple[str, ...] = ()
    # The function defined at ``node``, where ``pyfn`` is another that calls it (a
    # decorator's wrapper under the tf.function): its conversion is the one shown.
    own: Any = None
    tree: ast.Module | None = None  # the parse of ``text`` that ``functions`` lists

    def tf_function(self, tf: Any, **settings: Any) -> Any:
        """A fresh ``tf.function`` of ``bound`` that converts as the user's own does (its
        ``autograph`` switch and optional AutoGraph features), with ``settings`` on top."""
        made: dict[str, Any] = {"autograph": self.autograph}
        if self.autograph_options is not None:
            made["experimental_autograph_options"] = self.autograph_options
        return tf.function(self.bound, **{**made, **settings})


def _graphs_as_graphs() -> bool:
    """Turn off tf.config.run_functions_eagerly(True) where the module just run turned it
    on; whether it had."""
    tf = sys.modules.get("tensorflow")
    try:
        if tf is None or not tf.config.functions_run_eagerly():
            return False
        tf.config.run_functions_eagerly(False)
    except Exception:  # noqa: BLE001 - a TensorFlow without it: nothing to turn off
        return False
    return True


def load_target(target: str, call: str | None = None, require_args: bool = True,
                progress: Callable[[str], None] | None = None, init: str | None = None
                ) -> Loaded:
    """Parse, run the file as a module, find the function, bind it and build its arguments.

    With ``require_args=False`` a missing or bad argument list is kept in
    ``args_error`` instead of raised: the code can still be converted. ``progress``
    hears when the call's arguments are evaluated (user code, which can take long).
    ``init``: a method's instance is made with these constructor arguments (``--init``),
    not taken from the module.
    """
    spec = parse_spec(target)
    text = read_source(spec.path)
    tree = parse_source(spec.path, text)
    functions = list_functions(tree, calls=False)  # the file's own calls: _file_call
    if spec.qualname is None:
        names = name_list([f.qualname for f in functions], spec.path)
        raise AgxError("no-function", f"name a function: {spec.path}::FUNCTION "
                       f"(available: {names}).")
    node = find_function_node(tree, spec.qualname)
    module, failure = run_module(spec.path, text, tree)
    eager_setting_off = _graphs_as_graphs()
    try:
        obj = resolve(module, spec.qualname, functions)
    except AgxError:
        if failure is None:
            raise
        sys.modules.pop(module.__name__, None)
        raise failure.error from None  # the function was never made: the failure is the news
    pyfn, signature = _unwrap(obj)
    if signature is None and callable(pyfn):  # wrapped elsewhere: f_fn = tf.function(f, ...)
        signature = callargs.wrapping_signature(module, pyfn)
    if node is None and hasattr(pyfn, "__code__"):  # e.g. `f2 = tf.function(f)`
        node = find_function_node(tree, pyfn.__qualname__)
    # A decorator's wrapper (or a callable object) under the tf.function: the function
    # the file defines at the name, which the wrapper calls.
    own = wrapped_function(pyfn, spec.path, node)
    if not callable(pyfn) or not (hasattr(pyfn, "__code__") or own is not None):
        kind = type(obj).__name__
        raise AgxError("not-a-function", f"{spec.qualname} in {spec.path} is "
                       f"{'an' if kind[:1].lower() in 'aeiou' else 'a'} {kind}, not a function",
                       advice="pick one from "
                       f"`agexplorer list {spec.path}`.")
    decorated = signature is not None or any(
        f.decorated for f in functions if f.qualname == spec.qualname)
    bound, instance = _bind(module, spec.qualname, pyfn, init, (spec.path, tree))
    loaded = Loaded(path=spec.path, qualname=spec.qualname, text=text, functions=functions,
                    node=node, module=module, pyfn=pyfn, signature=signature,
                    bound=bound, decorated=decorated, instance=instance,
                    autograph=getattr(obj, "_autograph", True) is not False,
                    autograph_options=getattr(obj, "_experimental_autograph_options", None),
                    eager_setting_off=eager_setting_off,
                    load_note=failure.note() if failure is not None else None,
                    not_set=unset_names(tree, failure.statement) if failure else {},
                    drives=() if decorated else drives_of(tree, functions, spec.qualname),
                    own=own, tree=tree)
    try:
        _arguments(loaded, call, progress or (lambda phase: None))
    except AgxError as exc:
        if require_args:
            raise
        loaded.args_error = exc
    else:
        _build_layer(loaded)
    return loaded


def _build_layer(loaded: Loaded) -> None:
    """A Keras layer's ``call`` explored on an unbuilt instance: the instance is called once
    with the call's arguments, as Keras would be, so ``build`` makes its weights first."""
    from agexplorer.engine.keras_layers import keras_major

    layer = getattr(loaded.bound, "__self__", None)
    # A @tf.function call is left alone: calling the layer would trace it once more.
    if loaded.qualname.rpartition(".")[2] != "call" or layer is None or loaded.decorated \
            or keras_major(type(layer)) is None or getattr(layer, "built", True):
        return
    args, kwargs = _as_keras_takes(loaded.bound, loaded.args, loaded.kwargs)
    try:
        layer(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - build and call are user code
        message, line = user_frames_message(exc, loaded.path)
        where = f"{loaded.path}:{line}" if line else loaded.path
        raise AgxError("build-failed", f"{where}: building {type(layer).__name__} by calling "
                       f"it with the call's arguments raised {message.rstrip('.')}.",
                       line=line, exit_code=1) from None


def _as_keras_takes(method: Any, args: Any, kwargs: dict) -> tuple[list, dict]:
    """A layer call's arguments as Keras's ``Layer.__call__`` takes them: the inputs (the
    call's first parameter) by position, the others by name. Keras 3 refuses any other
    argument by position (``layer(x, True)``: "Only input tensors may be passed as
    positional arguments"), and a recorded call gives ``training`` so. Left as they are
    where they do not bind, or where the call takes ``*args``."""
    try:
        bound = inspect.signature(method).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return list(args), dict(kwargs)
    params = bound.signature.parameters
    if not bound.arguments or any(p.kind is p.VAR_POSITIONAL for p in params.values()):
        return list(args), dict(kwargs)
    (first, value), *rest = bound.arguments.items()
    if params[first].kind not in (params[first].POSITIONAL_ONLY,
                                  params[first].POSITIONAL_OR_KEYWORD):
        return list(args), dict(kwargs)
    named: dict = {}
    for name, given in rest:
        named.update(given if params[name].kind is params[name].VAR_KEYWORD else {name: given})
    return [value], named


def wrapped_function(pyfn: Any, path: str, node: Any) -> Any | None:
    """The function defined at ``node`` in ``path``, where ``pyfn`` is not it but calls it:
    a decorator's wrapper (``@tf.function`` over ``@timed``) holds it as ``__wrapped__``
    (functools.wraps) or in its closure. None where ``pyfn`` is it, or none is found.

    tf.function converts the wrapper, and AutoGraph converts the function when the
    wrapper's call runs; ``tf.autograph.to_code`` shows the wrapper's code, with a source
    map that names the function's lines for the wrapper's (AutoGraph reads the wrapper's
    source where ``inspect`` unwraps it)."""
    if node is None:
        return None
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])

    def defined_here(fn: Any) -> bool:
        code = getattr(fn, "__code__", None)
        return (code is not None and code.co_filename == path
                and first <= code.co_firstlineno <= node.lineno)

    return None if defined_here(pyfn) else called_function(pyfn, defined_here)


def called_function(pyfn: Any, is_it: Callable[[Any], bool]) -> Any | None:
    """The function ``is_it`` takes, found from ``pyfn`` down ``__wrapped__``
    (functools.wraps) and closure cells, a few wrappers deep; None where none is."""
    seen, todo = {id(pyfn)}, [(pyfn, 0)]
    while todo:
        fn, depth = todo.pop(0)
        inner = [getattr(fn, "__wrapped__", None)]
        inner += [_cell_value(cell) for cell in getattr(fn, "__closure__", None) or ()]
        for found in inner:
            found = getattr(found, "python_function", found)  # a tf.function inside
            if not callable(found) or id(found) in seen:
                continue
            if is_it(found):
                return found
            seen.add(id(found))
            if depth < 3:
                todo.append((found, depth + 1))
    return None


def _cell_value(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return None


def _unwrap(obj: Any) -> tuple[Any, Any]:
    """(python function, input_signature) for a plain or ``tf.function``-decorated callable."""
    python_function = getattr(obj, "python_function", None)
    if python_function is not None:
        return python_function, getattr(obj, "input_signature", None)
    return obj, None


def _constructed(module: Any, cls: type, init: str) -> Any:
    """``cls(INIT)``: the instance ``--init`` asks for."""
    args, kwargs = callargs.parse_call(init, callargs.call_namespace(module), origin="--init")
    try:
        return cls(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - the class's constructor is user code
        first = (str(exc).strip().splitlines() or [""])[0]
        raise AgxError("no-instance", f"{cls.__name__}({init}) raised {type(exc).__name__}"
                       f"{': ' + first if first else ''}", advice="fix --init.") from None


def _instance_for(module: Any, cls: type, qualname: str,
                  program: tuple[str, ast.Module] | None = None) -> tuple[Any, str]:
    """An instance the module holds (a model the program built), else ``cls()``; and which.
    ``program``: the file's path and parse, for the advice where ``cls()`` fails."""
    for name, value in vars(module).items():
        if isinstance(value, cls):
            return value, f"{name} (the module's {cls.__name__}; --init builds another)"
    try:
        return cls(), f"{cls.__name__}() (its defaults; --init sets its arguments)"
    except Exception as exc:  # noqa: BLE001 - the class's constructor is user code
        advice = ("pass its constructor's arguments with --init (in the explorer: the Run "
                  f"tab's init box), or make one at module level (obj = {cls.__name__}(...)).")
        from agexplorer.engine.keras_layers import keras_major

        made = called_at(program[1], cls.__name__) if program is not None else None
        if program is not None and made is not None and keras_major(cls) is not None:
            # a layer of the program's model: the program's own run has one, and its inputs
            advice = (f"the file makes one at line {made}, a layer Keras calls: `agexplorer "
                      f"record {os.path.basename(program[0])}` runs the program and records "
                      f"the traces of {qualname} that Keras makes (fit, predict, ...), with "
                      f"the inputs and the layer it had; or {advice}")
        raise AgxError("no-instance", f"{qualname} is a method and needs an instance of "
                       f"{cls.__name__}: {cls.__name__}() raised {type(exc).__name__}: {exc}",
                       advice=advice) from None


def _bind(module: Any, qualname: str, pyfn: Any, init: str | None = None,
          program: tuple[str, ast.Module] | None = None) -> tuple[Any, str | None]:
    """A method becomes bound to an instance (``Class(INIT)`` with ``init``, else a
    module-level one, else ``Class()``); and that instance in words (None: no method)."""
    parent_name, _, attr = qualname.rpartition(".")
    if parent_name:
        parent = resolve(module, parent_name, [])
        if isinstance(parent, type) and not isinstance(
                inspect.getattr_static(parent, attr, None), (staticmethod, classmethod)):
            if init is not None:
                instance = _constructed(module, parent, init)
                words = f"{parent.__name__}({init}) (--init)"
            else:
                instance, words = _instance_for(module, parent, qualname, program)
            return types.MethodType(pyfn, instance), words
    if init is not None:
        raise AgxError("bad-arguments", f"--init builds the instance of a method, and "
                       f"{qualname} is not a method of a class: drop --init.")
    return pyfn, None


def _keras_made(loaded: Loaded, tree: ast.Module) -> tuple[int, str] | None:
    """(line, class name) where the file makes the Keras layer or model whose method
    ``loaded`` is (``m = MyModel()`` in its ``__main__`` block), or None."""
    from agexplorer.engine.keras_layers import keras_major

    cls = type(getattr(loaded.bound, "__self__", None))
    if keras_major(cls) is None:
        return None
    line = called_at(tree, cls.__name__)
    return (line, cls.__name__) if line is not None else None


def _example_call(loaded: Loaded, tree: ast.Module) -> str | None:
    """The arguments of the file's own call in a function (``train_epoch(ds)`` in
    ``main()``) where that text, read in the loaded module, gives values: the --call to
    type (module_level_arguments); None otherwise."""
    text = module_level_arguments(tree, loaded.qualname)
    if text is None or ('"' in text and "'" in text):  # not quoted whole for a shell
        return None
    try:
        callargs.parse_call(text, callargs.call_namespace(loaded.module))
    except AgxError:
        return None
    return text


def _same_names(loaded: Loaded, params: list[inspect.Parameter]) -> str | None:
    """``model, x`` where the module itself holds a value of each parameter's name (not a
    module, a class or a function: ``step(model, x)`` beside ``model = build()``); None
    otherwise."""
    values = vars(loaded.module) if loaded.module is not None else {}
    for p in params:
        value = values.get(p.name, _MISSING)
        if value is _MISSING or isinstance(value, (type, types.ModuleType, types.FunctionType,
                                                   types.BuiltinFunctionType)):
            return None
    return ", ".join(p.name for p in params)


_MISSING = object()


def _file_call(loaded: Loaded) -> tuple[int, str] | None:
    """The file's own first call of the function that loading it runs (``file_call``):
    ``loaded.functions`` was listed without them (``list_functions(calls=False)``)."""
    listed = list_functions(loaded.tree) if loaded.tree is not None else loaded.functions
    return next((f.file_call for f in listed if f.qualname == loaded.qualname), None)


def _arguments(loaded: Loaded, call: str | None, progress: Callable[[str], None]) -> None:
    """Fill ``args``/``kwargs``: --call, else AGX_CALLS, else the input_signature, else none."""
    module, qualname = loaded.module, loaded.qualname
    if call is not None:
        loaded.call, loaded.call_origin = call, "--call"
        progress(f"{EVALUATING} (--call)")
        loaded.args, loaded.kwargs = callargs.parse_call(call, callargs.call_namespace(module))
        return
    samples = getattr(module, callargs.SAMPLE_CALLS, None)
    if isinstance(samples, dict) and qualname in samples:
        loaded.call, loaded.call_origin = samples[qualname], callargs.SAMPLE_CALLS
        progress(f"{EVALUATING} ({callargs.SAMPLE_CALLS})")
        loaded.args, loaded.kwargs = callargs.parse_call(
            samples[qualname], callargs.call_namespace(module),
            origin=f"{callargs.SAMPLE_CALLS}[{qualname!r}]")
        return
    if loaded.signature is not None:
        loaded.call_origin = "input_signature"
        loaded.args, loaded.kwargs = callargs.signature_call(loaded.signature)
        loaded.call = callargs.signature_text(loaded.signature)
        return
    params = [p for p in inspect.signature(loaded.bound).parameters.values()
              if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    own = _file_call(loaded) if params else None
    if params and own is not None:  # the program's own call, made again with its values
        origin = f"{FILE_CALL}, line {own[0]}"
        progress(f"{EVALUATING} ({origin})")
        with contextlib.suppress(AgxError):  # e.g. a name a failed statement did not set
            loaded.args, loaded.kwargs = callargs.parse_call(
                own[1], callargs.call_namespace(module), origin=origin)
            loaded.call, loaded.call_origin = own[1], origin
            return
    if params:
        names = ", ".join(p.name for p in params)
        tree = parse_source(loaded.path, loaded.text)
        example = _example_call(loaded, tree) or _same_names(loaded, params) or \
            ", ".join(["tf.constant([1.0, 2.0])"] * len(params))  # one per parameter
        quote = "'" if '"' in example else '"'
        advice = f"pass them with --call, e.g. --call {quote}{example}{quote}."
        handed, called = handed_to(tree, qualname), called_at(tree, qualname)
        record = f"`agexplorer record {os.path.basename(loaded.path)}` runs the program and"
        if handed is not None:  # a library calls it (dataset.map): the program knows how
            advice = (f"{qualname} is handed to {handed[1]}(...) at line {handed[0]}, which "
                      f"calls it with what it makes: {record} records that trace of "
                      f"{qualname}, with the values it was given; or {advice}")
        elif called is not None and loaded.decorated:  # in a loop, in main(): recorded
            advice = (f"the file calls {qualname} at line {called}: {record} records the "
                      f"traces of {qualname} its calls make, with the values they passed; "
                      f"or {advice}")
        elif (made := _keras_made(loaded, tree)) is not None:  # Keras calls it (fit, ...)
            advice = (f"the file makes a {made[1]} at line {made[0]}, whose {qualname} Keras "
                      f"calls: {record} records the traces of {qualname} that Keras makes "
                      f"(fit, predict, ...), with the inputs it was given; or {advice}")
        raise AgxError("needs-arguments", f"{qualname} takes arguments ({names})",
                       advice=advice)
    loaded.call, loaded.call_origin = "", "no arguments"
