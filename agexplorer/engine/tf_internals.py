"""Every private TensorFlow name agexplorer touches, each behind one accessor, and the check that they exist.

TensorFlow's public API cannot say which path AutoGraph took for a statement, where a
converted line came from, or which graph a loop body built; the names below can, and a
TensorFlow release may move any of them. Keeping them here means one file to read when
a release breaks something, and one check (:func:`check_support`, run once when the
worker starts) that names each moved one in a sentence instead of failing somewhere deep.
Every import of ``tensorflow.python`` is inside a function: importing this module costs
nothing, and the UI's process never imports it.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import os
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any

from agexplorer.engine.tf_support import PrivateName as _Name
from agexplorer.engine.tf_support import Support
from agexplorer.model.errors import AgxError

# The supported range lives in model/support.py, where the UI side can read it too.
from agexplorer.model.support import TESTED

_API = "tensorflow.python.autograph.impl.api"
_CONTROL_FLOW = "tensorflow.python.autograph.operators.control_flow"
_CONDITIONAL_EXPRESSIONS = "tensorflow.python.autograph.operators.conditional_expressions"
_OPERATORS = "tensorflow.python.autograph.operators"  # the module the generated code calls ``ag__``
_OPS = "tensorflow.python.framework.ops"
_TF_STACK = "tensorflow.python.util.tf_stack"
_ATOMIC = "tensorflow.python.eager.polymorphic_function.atomic_function"
_FUNCTION = "tensorflow.python.eager.polymorphic_function.polymorphic_function"
_TRACEBACK = "tensorflow.python.util.traceback_utils"

# The operators the generated code calls (``ag__.for_stmt``...), which the recorder wraps.
OPERATORS = ("for_stmt", "while_stmt", "if_stmt", "if_exp")
# The functions the operators dispatch to, by the path each one means: only these tell a
# statement run as plain Python from one staged as a graph op (a conditional expression's
# live in a module of their own).
PATH_FUNCTIONS = {"_py_for_stmt": "python", "_py_if_stmt": "python",
                  "_tf_while_stmt": "staged", "_tf_if_stmt": "staged"}
EXPRESSION_PATH_FUNCTIONS = {"_py_if_exp": "python", "_tf_if_exp": "staged"}


# -- the accessors ----------------------------------------------------------------------

def autograph_modules() -> tuple[ModuleType, ModuleType]:
    """The operators module AutoGraph injects into converted code as ``ag__``, and
    ``operators.control_flow`` (where the path functions live)."""
    from tensorflow.python.autograph.impl import api
    from tensorflow.python.autograph.operators import control_flow

    return api._TRANSPILER.get_extra_locals()["ag__"], control_flow


@contextlib.contextmanager
def patched_autograph(wrappers: Mapping[str, Callable[[Callable[..., Any]], Callable[..., Any]]],
                      mark: Callable[[str], None]) -> Iterator[None]:
    """Within the block, ``ag__.NAME`` is ``wrappers[NAME](original)`` and each path function
    calls ``mark("python" | "staged")`` before it runs; all is restored on exit."""
    from tensorflow.python.autograph.impl import api

    ag, cf = autograph_modules()
    ce = importlib.import_module(_CONDITIONAL_EXPRESSIONS)
    # (module, name, original): every name replaced, put back on exit. The path functions
    # are called by module global (if_exp's from their own module).
    saved = [(ag, name, getattr(ag, name)) for name in wrappers]
    marks = [(module, name, getattr(module, name), path)
             for module, paths in ((cf, PATH_FUNCTIONS), (ce, EXPRESSION_PATH_FUNCTIONS))
             for name, path in paths.items()]
    # tf.data's functions (tf_convert) call the api module's own converted_call.
    saved_api = api.converted_call if "converted_call" in wrappers else None

    def marking(original: Callable[..., Any], path: str) -> Callable[..., Any]:
        def marked(*args: Any, **kwargs: Any) -> Any:
            mark(path)
            return original(*args, **kwargs)
        return marked

    for module, name, original in saved:
        setattr(module, name, wrappers[name](original))
    for module, name, original, path in marks:
        setattr(module, name, marking(original, path))
    if saved_api is not None:
        api.converted_call = wrappers["converted_call"](saved_api)
    try:
        with _frames_filtered():
            yield
    finally:
        if saved_api is not None:
            api.converted_call = saved_api
        for module, name, original in [*saved, *((m, n, o) for m, n, o, _ in marks)]:
            setattr(module, name, original)


_AGEXPLORER = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


@contextlib.contextmanager
def _frames_filtered() -> Iterator[None]:
    """Within the block, TensorFlow leaves agexplorer's frames out of the tracebacks it
    filters (AutoGraph's "in user code:" list, a filtered exception's frames) as it leaves
    its own: the wrappers above sit between AutoGraph and the user's code, and a program's
    error under `agexplorer record` would otherwise list a frame of agexplorer's."""
    try:
        utils: Any = importlib.import_module(_TRACEBACK)
        before = utils._EXCLUDED_PATHS
    except (ImportError, AttributeError):  # moved: the frames show (check_support says so)
        yield
        return
    utils._EXCLUDED_PATHS = (*before, _AGEXPLORER)
    try:
        yield
    finally:
        if utils._EXCLUDED_PATHS[-1:] == (_AGEXPLORER,):
            utils._EXCLUDED_PATHS = before


def tf_stack_frames() -> Sequence[Any]:
    """The Python stack, outermost first, with AutoGraph's generated lines mapped back to
    the user's file (the active source maps applied), up to the caller's frame; each
    frame has ``filename``, ``lineno`` and ``name``."""
    from tensorflow.python.util import tf_stack

    return tf_stack.extract_stack(stacklevel=2)  # this accessor's own frame is no one's business


@contextlib.contextmanager
def op_creation_hook(on_op: Callable[[Any, str], None]) -> Iterator[None]:
    """Within the block, ``on_op(graph, op_name)`` runs as each graph op is created (from the
    creating Python frame's callee: ``sys._getframe(2)`` inside ``on_op`` is the caller of
    TensorFlow's op constructor's C hook)."""
    ops: Any = importlib.import_module(_OPS)
    original = ops._create_c_op

    def create_c_op(graph: Any, node_def: Any, *args: Any, **kwargs: Any) -> Any:
        c_op = original(graph, node_def, *args, **kwargs)
        on_op(graph, node_def.name)
        return c_op

    ops._create_c_op = create_c_op
    try:
        yield
    finally:
        ops._create_c_op = original


def source_map() -> dict[tuple[str, int], tuple[str, int, str]]:
    """AutoGraph's map, right now, from a generated (file, line) to the user's (file, line,
    function): what TensorFlow applies to every op's stack trace."""
    return _mapper_stacks()[threading.get_ident()][-1].get_effective_source_map()


@functools.cache
def _mapper_stacks() -> Any:
    from tensorflow.python.util import tf_stack

    return tf_stack._source_mapper_stacks


def default_graph() -> Any:
    """The graph being built right now (a loop body's FuncGraph inside a staged loop)."""
    from tensorflow.python.framework import ops

    return ops.get_default_graph()


def _conversion_cache() -> Any | None:
    """AutoGraph's cache of conversions (a WeakKeyDictionary keyed by code object); None
    where this TensorFlow keeps it elsewhere."""
    try:
        from tensorflow.python.autograph.impl import api

        return api._TRANSPILER._cache._cache
    except (ImportError, AttributeError):
        return None


def evict_conversion(function: Any) -> bool:
    """Drop AutoGraph's cached conversion of ``function``; False where this TensorFlow's
    cache could not be reached (the conversion may then be a stale one)."""
    cached = _conversion_cache()
    if cached is None:
        return False
    try:
        cached.pop(function.__code__, None)
    except (AttributeError, TypeError):
        return False
    return True


def evict_conversions(is_users: Callable[[str], bool]) -> int | None:
    """Drop AutoGraph's cached conversions of every function whose file ``is_users``;
    returns how many went (None where this TensorFlow's cache could not be reached).

    The cache is keyed by code objects, which compare equal across files (``co_filename``
    is not compared): a helper of one copy of a project, still alive, answered for the same
    helper of another copy, with the first copy's file and lines."""
    if "tensorflow" not in sys.modules:
        return 0  # nothing converted yet (and TensorFlow is not imported for this)
    cached = _conversion_cache()
    if cached is None:
        return None
    stale = [code for code in list(cached.keys()) if is_users(getattr(code, "co_filename", ""))]
    for code in stale:
        cached.pop(code, None)
    return len(stale)


def function_library(graph: Any) -> dict[str, Any]:
    """The functions ``graph`` holds by name (loop bodies, branches, nested functions);
    empty where this TensorFlow keeps them elsewhere (check_support says so)."""
    return getattr(graph, "_functions", None) or {}


def function_graph(function: Any) -> Any | None:
    """The FuncGraph of a function from :func:`function_library`, None if it has none."""
    # ``graph`` on current releases; ``_cached_graph`` kept for releases that only had it.
    return getattr(function, "graph", None) or getattr(function, "_cached_graph", None)


def has_fast_numpy(value: Any) -> bool:
    """Whether ``value`` is an eager tensor whose buffer :func:`to_numpy` can read."""
    return hasattr(value, "_numpy")


def to_numpy(tensor: Any) -> Any:
    """An eager tensor's value as NumPy without the copy ``.numpy()`` makes: the timed
    region of the run lab should measure the function, not a copy of its result."""
    return tensor._numpy()


_AG_LOGGING = "tensorflow.python.autograph.utils.ag_logging"


def autograph_logging() -> tuple[Any, Any]:
    """AutoGraph's logging settings as set, not as read: (verbosity level, echo to stdout).
    ``tf.autograph.set_verbosity`` has no getter for what it set, and a level never set
    (None) reads AUTOGRAPH_VERBOSITY from the environment on each use: only the raw values
    put back leave the user's setting as it was."""
    logging: Any = importlib.import_module(_AG_LOGGING)
    return logging.verbosity_level, logging.echo_log_to_stdout


def set_autograph_logging(state: tuple[Any, Any]) -> None:
    """Put back what :func:`autograph_logging` read."""
    logging: Any = importlib.import_module(_AG_LOGGING)
    logging.verbosity_level, logging.echo_log_to_stdout = state


UNROLL_LIMITS = ("INEFFICIENT_UNROLL_MIN_ITERATIONS", "INEFFICIENT_UNROLL_MIN_OPS",
                 "PYTHON_MAX_ITERATIONS")


def unroll_thresholds() -> dict[str, int]:
    """AutoGraph's limits on a loop run in Python: it warns past ..._MIN_ITERATIONS iterations
    of ..._MIN_OPS ops or more, and stops past PYTHON_MAX_ITERATIONS (missing ones left out)."""
    cf = importlib.import_module(_CONTROL_FLOW)
    return {n: getattr(cf, n) for n in UNROLL_LIMITS if isinstance(getattr(cf, n, None), int)}


def concrete_functions_of(function: Any) -> list[Any]:
    """A tf.function's concrete functions in the order they were traced; empty where this
    TensorFlow cannot list them (check_support says so)."""
    try:
        return list(function._list_all_concrete_functions())
    except Exception:  # noqa: BLE001 - a release without it, or a function that is no tf.function
        return []


@functools.cache
def _function_class() -> Any:
    return importlib.import_module(_FUNCTION).Function


def fresh_tf_function(function: Any) -> Any | None:
    """A new tf.function of ``function``'s Python function, with its options and none of its
    traces; None where ``function`` is no tf.function or this TensorFlow cannot copy one."""
    try:
        if not isinstance(function, _function_class()):
            return None
        return function._clone(None)
    except Exception:  # noqa: BLE001 - a release without it: the function is called as it is
        return None


@contextlib.contextmanager
def tf_function_calls(instead: Callable[[Any], Any]) -> Iterator[None]:
    """Within the block, calling a tf.function ``f`` calls ``instead(f)``; where this
    TensorFlow has no copy to give (:func:`fresh_tf_function`), nothing changes."""
    try:
        cls = _function_class()
        original = cls.__call__
    except (ImportError, AttributeError):
        yield
        return

    @functools.wraps(original)
    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        return original(instead(self), *args, **kwargs)

    setattr(cls, "__call__", __call__)  # noqa: B010 - the class's, for the block
    try:
        yield
    finally:
        setattr(cls, "__call__", original)  # noqa: B010


_CONVERTERS = "tensorflow.python.autograph.converters"
CONVERTERS = ("functions", "directives", "break_statements", "asserts", "continue_statements",
              "return_statements", "lists", "slices", "call_trees", "control_flow",
              "conditional_expressions", "logical_expressions", "variables")


def converter_modules() -> list[tuple[str, ModuleType]]:
    """AutoGraph's converters: modules whose ``transform(node, ctx)`` PyToTF.transform_ast calls."""
    return [(name, importlib.import_module(f"{_CONVERTERS}.{name}")) for name in CONVERTERS]


def unparse_gast(node: Any) -> str:
    """A converter's gast tree as source, printed as the transpiler prints it."""
    import gast
    return ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(node))).strip()


# -- the check --------------------------------------------------------------------------

def _injected_operator(name: str) -> Callable[[], bool]:
    def probe() -> bool:
        try:
            operators: Any = autograph_modules()[0]
        except (ImportError, AttributeError, KeyError):
            # The transpiler's own sentence says that; judge the operator where it is defined.
            operators = importlib.import_module(_OPERATORS)
        return hasattr(operators, name)
    return probe


def _graph_has_library() -> bool:
    # ``_functions`` is set in Graph.__init__: only an instance (an empty graph, no trace) has it.
    ops = importlib.import_module(_OPS)
    return hasattr(ops.Graph(), "_functions")


def _atomic_has_graph() -> bool:
    cls = importlib.import_module(_ATOMIC).AtomicFunction
    # Releases without the ``graph`` property set ``_cached_graph`` in __init__: the
    # attribute names its code stores say so without building a function.
    return hasattr(cls, "graph") or "_cached_graph" in cls.__init__.__code__.co_names


_TELL = {"_py_for_stmt": "watches to tell a Python for loop from a graph loop",
         "_py_if_stmt": "watches to tell a Python conditional from a graph conditional",
         "_tf_while_stmt": "watches to tell a graph while loop from a Python one",
         "_tf_if_stmt": "watches to tell a graph conditional from a Python one"}
_JUDGE = {"for_stmt": "watches to judge for loops", "while_stmt": "watches to judge while loops",
          "if_stmt": "watches to judge conditionals",
          "if_exp": "watches to judge conditional expressions"}
_TELL_EXPRESSION = {"_py_if_exp": "watches to tell a Python conditional expression from a "
                                  "graph one",
                    "_tf_if_exp": "watches to tell a graph conditional expression from a "
                                  "Python one"}

NAMES: tuple[_Name, ...] = (
    _Name(_API, "_TRANSPILER.get_extra_locals",
          "calls to find the operators AutoGraph's code runs"),
    *(_Name(_OPERATORS, name, _JUDGE[name], probe=_injected_operator(name)) for name in OPERATORS),
    *(_Name(_CONTROL_FLOW, name, use) for name, use in _TELL.items()),
    *(_Name(_CONDITIONAL_EXPRESSIONS, name, use) for name, use in _TELL_EXPRESSION.items()),
    _Name(_TF_STACK, "extract_stack", "reads to map AutoGraph's statements to your lines"),
    _Name(_OPS, "get_default_graph", "reads to tell which graph a statement built"),
    _Name(_OPS, "_create_c_op", "wraps to note which lines of your code made each op",
          lost="the op inventory reads every op's stack trace instead (slower, more memory)"),
    _Name(_TF_STACK, "_source_mapper_stacks", "reads to map AutoGraph's code to your lines "
          "as each op is made", lost="the op inventory reads every op's stack trace instead "
          "(slower, more memory)"),
    _Name(_API, "_TRANSPILER._cache._cache", "clears so that each function is converted afresh",
          lost="a function whose text repeats in another file may show that file's conversion"),
    _Name(_OPS, "Graph._functions", "reads to find the bodies of loops and conditionals",
          lost="the op inventory lists no ops inside them", probe=_graph_has_library),
    _Name(_ATOMIC, "AtomicFunction.graph", "reads to walk into a loop's or a branch's body",
          lost="the op inventory lists no ops inside them", probe=_atomic_has_graph),
    _Name(_OPS, "EagerTensor._numpy", "calls to bring results to the host without a copy",
          lost="the run lab's timings include a copy of each result"),
    *(_Name(_AG_LOGGING, name, "puts back after agexplorer.explain quiets AutoGraph's log",
            lost="agexplorer.explain leaves AutoGraph's verbosity at 0")
      for name in ("verbosity_level", "echo_log_to_stdout")),
    _Name(_FUNCTION, "Function._list_all_concrete_functions", "reads to list a function's traces",
          lost="the retrace report shows no trace signatures"),
    _Name(_FUNCTION, "Function._clone", "calls to trace a tf.function your function calls "
          "afresh, as the report traces your function itself",
          lost="a tf.function your function calls that traced before (the file's own call "
          "as it loaded) has its statements shown as not reached"),
    *(_Name(_CONTROL_FLOW, name, "reads to mark AutoGraph's unroll limits on a sweep",
            lost="the sweep shows no unroll thresholds") for name in UNROLL_LIMITS),
    *(_Name(f"{_CONVERTERS}.{name}", "transform", "wraps to show the code after each pass",
            lost="agexplorer passes cannot show AutoGraph's conversion") for name in CONVERTERS),
    _Name(_TRACEBACK, "_EXCLUDED_PATHS", "extends so that TensorFlow's filtered tracebacks "
          "leave agexplorer's frames out as they do its own",
          lost="an error of your code traced under agexplorer lists a frame of agexplorer's "
          "among yours"),
    _Name("gast", "gast_to_ast", "calls to print AutoGraph's code after each pass",
          lost="agexplorer passes cannot show AutoGraph's conversion"),
    *(_Name("tensorflow.python.eager.polymorphic_function.tracing_compilation", name, use,
            lost="agexplorer record cannot record traces")
      for name, use in (("_maybe_define_function", "wraps to see each traced call's arguments"),
                        ("_create_concrete_function", "wraps to record every trace of a program"))),
)


def _version() -> str:
    try:
        import tensorflow as tf

        return ".".join(str(tf.__version__).split(".")[:2])
    except Exception:  # noqa: BLE001 - a broken install still gets its sentences
        return "?"


def check_support(names: Sequence[_Name] = NAMES) -> Support:
    """Verify that every private name exists in the installed TensorFlow (imports and
    attribute look-ups only, no tracing): one sentence per missing one."""
    version = _version()
    errors: list[str] = []
    warnings: list[str] = []
    for name in names:
        if name.present():
            continue
        consequence = f", so {name.lost}" if name.lost else ""
        sentence = (f"TensorFlow {version} moved {name.shown}, which agexplorer {name.use}"
                    f"{consequence}; agexplorer is tested with TensorFlow {TESTED}.")
        (warnings if name.lost else errors).append(sentence)
    return Support(errors, warnings)


_supported = False  # set once the fatal names were found: tracing checks them each time


def require_support() -> None:
    """Raise the ``tf-unsupported`` error when a name the verdicts depend on is missing."""
    global _supported
    if _supported:
        return
    error = check_support([n for n in NAMES if not n.lost]).error()
    if error is not None:
        raise error
    _supported = True


# -- recording a whole program's traces (agexplorer record) -----------------------------

_TRACING = "tensorflow.python.eager.polymorphic_function.tracing_compilation"


@contextlib.contextmanager
def patched_tracing(on_trace: Callable[..., Any]) -> Iterator[None]:
    """Within the block, every new trace of any tf.function (or tf.data function) runs as
    ``on_trace(trace, python_function, args, kwargs, scope, cache, relaxing)``: ``trace()`` makes and
    returns the concrete function; ``args``/``kwargs`` are the call's own values; ``scope``
    names the variable-creation scope ("VARIABLE_CREATION", "NO_VARIABLE_CREATION",
    "NO_SCOPE"); ``cache`` is the tf.function's trace cache (one per tf.function, None for
    tf.data), which tells one tf.function from another of the same Python function;
    ``relaxing``: the tf.function has ``reduce_retracing=True`` (a retrace for a new shape
    is made for a shape with None where they differ)."""
    import threading

    from tensorflow.python.eager.polymorphic_function import tracing_compilation as tc

    define, create = tc._maybe_define_function, tc._create_concrete_function
    pending = threading.local()  # the (args, kwargs) of the lookup that may trace, innermost last

    def maybe_define(args: Any, kwargs: Any, tracing_options: Any) -> Any:
        stack = pending.__dict__.setdefault("stack", [])
        stack.append((args, kwargs))
        try:
            return define(args, kwargs, tracing_options)
        finally:
            stack.pop()

    def create_concrete(function_type: Any, type_context: Any, func_graph: Any,
                        tracing_options: Any) -> Any:
        stack = pending.__dict__.get("stack") or [((), {})]
        args, kwargs = stack[-1]
        scope = getattr(getattr(tracing_options, "scope_type", None), "name", "NO_SCOPE")
        return on_trace(lambda: create(function_type, type_context, func_graph, tracing_options),
                        getattr(tracing_options, "python_function", None), args, kwargs,
                        scope, getattr(tracing_options, "function_cache", None),
                        bool(getattr(tracing_options, "reduce_retracing", False)))

    tc._maybe_define_function, tc._create_concrete_function = maybe_define, create_concrete
    try:
        with _frames_filtered():
            yield
    finally:
        tc._maybe_define_function, tc._create_concrete_function = define, create


def require_tracing_hooks() -> None:
    """Raise ``tf-unsupported`` when this TensorFlow lacks what record hooks."""
    sentences = check_support([n for n in NAMES if n.module == _TRACING]).warnings
    if sentences:
        raise AgxError("tf-unsupported", sentences[0], exit_code=2, details=sentences[1:])
