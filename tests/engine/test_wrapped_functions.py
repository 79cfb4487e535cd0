"""A tf.function over a decorator's wrapper (``@tf.function`` then ``@timed``): tf.function
converts the wrapper, and AutoGraph converts the user's function when the wrapper calls it.
``tf.autograph.to_code`` shows the wrapper's code, with AutoGraph's source map naming the
function's lines for the wrapper's (functools.wraps); the report shows the function's own
conversion and names the wrapper. A callable object as the decorator (``@Memo``) loads too
(it was "a Function, not a function")."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf

DECORATORS = '''\
import functools


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


def bare(fn):
    def inner(*args):
        return fn(*args)
    return inner


class Memo:
    def __init__(self, fn):
        self.fn = fn
        functools.update_wrapper(self, fn)

    def __call__(self, *args):
        return self.fn(*args)
'''

PROGRAM = '''\
import tensorflow as tf
from decorators import timed, bare, Memo


@tf.function
@timed
def doubled(x):
    for _ in range(3):
        x = x * 2
    return x


@tf.function
@timed
@bare
def twice_wrapped(x):
    if x > 0:
        x = x + 1
    return x


@tf.function
@Memo
def memo(x):
    for _ in range(2):
        x = x * 3
    return x


@tf.function
def plain(x):
    for _ in range(2):
        x = x * 3
    return x


STEPS = 0
'''


@pytest.fixture
def program(tmp_path):
    (tmp_path / "decorators.py").write_text(DECORATORS)
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    return path


def _imported(program, name: str):
    """The program imported as the user's own code would be (its folder on the path)."""
    import importlib.util
    import sys

    sys.path.insert(0, str(program.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, program)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(program.parent))
    return module


def test_the_functions_own_conversion_is_shown_and_the_wrapper_named(program):
    import tensorflow as tf

    from agexplorer.engine.pipeline import build_report

    report = build_report(f"{program}::doubled", "tf.constant(1.0)")
    assert report.error is None
    conversion = report.conversion
    assert conversion.code.startswith("def tf__doubled(x):")
    assert (1, 7) in conversion.source_map  # `def doubled` is line 7
    assert {source for _, source in conversion.source_map} <= set(range(5, 11))
    site = conversion.wrapped_by
    assert (site.function, site.file.endswith("decorators.py"), site.line) == (
        "timed.<locals>.wrapper", True, 5)
    assert "tf.function converts timed.<locals>.wrapper (decorators.py:5)" in \
        conversion.wrapper_note(report.function)
    loop = next(s for s in report.statements if s.kind == "for")
    assert (loop.line, loop.verdict, loop.iterations) == (8, "python", 3)
    # What to_code shows instead: the wrapper's code, its lines named as the function's.
    module = _imported(program, "program_for_to_code")
    assert tf.autograph.to_code(module.doubled.python_function).startswith(
        "def tf__wrapper(")


def test_a_function_under_two_wrappers_and_one_under_a_callable_object(program):
    from agexplorer.engine.pipeline import build_report

    twice = build_report(f"{program}::twice_wrapped", "tf.constant(1)")
    assert twice.error is None and twice.conversion.code.startswith("def tf__twice_wrapped(")
    assert twice.conversion.wrapped_by.function == "timed.<locals>.wrapper"
    branch = next(s for s in twice.statements if s.kind == "if")
    assert (branch.line, branch.verdict) == (17, "staged")

    memo = build_report(f"{program}::memo", "tf.constant(1)")
    assert memo.error is None and memo.conversion.code.startswith("def tf__memo(")
    assert memo.conversion.wrapped_by.function == "Memo.__call__"
    loop = next(s for s in memo.statements if s.kind == "for")
    assert (loop.verdict, loop.iterations) == ("python", 2)


def test_an_undecorated_function_names_no_wrapper(program):
    from agexplorer.engine.pipeline import build_report

    report = build_report(f"{program}::plain", "tf.constant(1)")
    assert report.conversion.wrapped_by is None
    assert report.conversion.wrapper_note(report.function) is None
    assert report.to_dict()["converted"]["wrapped_by"] is None


def test_a_live_wrapped_function_is_found_in_its_own_file(program):
    # agexplorer.explain(step) in a notebook: the tf.function's python_function is the
    # wrapper (in decorators.py), named `doubled` by functools.wraps; the report was of the
    # wrapper's file, with no control flow.
    import tensorflow as tf

    from agexplorer.engine.live import report_for_callable

    module = _imported(program, "program_live")
    report = report_for_callable(module.doubled, (tf.constant(1.0),))
    assert (report.file, report.function, report.error) == (str(program), "doubled", None)
    assert report.conversion.code.startswith("def tf__doubled(")
    assert report.conversion.wrapped_by.function == "timed.<locals>.wrapper"
    assert [(s.line, s.verdict, s.iterations) for s in report.statements] == [(8, "python", 3)]
    memo = report_for_callable(module.memo, (tf.constant(1),))  # a callable object's
    assert memo.function == "memo" and memo.conversion.wrapped_by.function == "Memo.__call__"
    assert [(s.verdict, s.iterations) for s in memo.statements] == [("python", 2)]


def test_passes_step_through_the_functions_own_conversion(program):
    from agexplorer.engine.passes import passes_of

    passes = passes_of(f"{program}::doubled")
    assert "def doubled(x):" in passes.steps[0].code  # (its decorators above it)
    assert "for _ in range(3)" in passes.steps[0].code and "wrapper" not in passes.steps[-1].code


def test_side_effects_are_watched_in_the_functions_module_not_the_decorators(program):
    # (the run lab and retrace compare these before and after a call)
    from agexplorer.engine.effects import snapshot
    from agexplorer.engine.load import load_target

    watched = snapshot(load_target(f"{program}::doubled", require_args=False))
    assert watched.get(("global", "STEPS")) == "0"
