"""engine/counters.py: the user's functions run from counted copies of their own code while a
recording is on: each if/for/while's counts are exact, and nothing else about them changes."""

from __future__ import annotations

import importlib.util
import sys
import traceback

import pytest

from agexplorer.engine.counters import Counters

MODULE = '''\
import functools


def deco(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        return f(*args, **kwargs)
    return wrapper


class Base:
    def go(self, n):
        return n


class Layer(Base):
    def __init__(self, steps=3):
        self.__steps = steps

    @deco
    def call(self, x, flag: bool = True, *rest, scale=2, **kw):
        """Its docstring."""
        total = super().go(x)
        for i in range(self.__steps):
            if i % 2:
                total += i
            elif i == 0:
                total -= 1
            else:
                total *= scale
        while total > 100:
            total -= 100
        return total

    @property
    def steps(self):
        return self.__steps if self.__steps > 0 else 0


def outer(k):
    def inner(v):
        for _ in range(k):
            v += 1
        return v
    return inner


closure = outer(4)


def numbers(n):
    for i in range(n):
        yield i


def fails(x):
    if x:
        raise ValueError("boom")
'''


class _Files:
    def __init__(self, folder: str) -> None:
        self.folder = folder

    def __contains__(self, file: object) -> bool:
        return isinstance(file, str) and file.startswith(self.folder)


@pytest.fixture
def module(tmp_path):
    path = tmp_path / "layers_mod.py"
    path.write_text(MODULE)
    spec = importlib.util.spec_from_file_location("layers_mod", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["layers_mod"] = mod
    spec.loader.exec_module(mod)
    counters = Counters(_Files(str(tmp_path)))
    counters.install()
    yield mod, counters
    counters.restore()
    del sys.modules["layers_mod"]


def _counts(counters, counts) -> dict[tuple[int, str], int]:
    return {(counters.slots[s][1], counters.slots[s][2]): n for (s, _), n in counts.hits.items()}


def test_each_statement_part_is_counted_exactly(module):
    mod, counters = module
    with counters.counting(lambda frame: None) as counts:
        assert mod.Layer(5).call(1) == 10  # the same result as its own code gives
        assert mod.closure(3) == 7
        assert list(mod.numbers(2)) == [0, 1]
        assert (mod.Layer(5).steps, mod.Layer(-1).steps, mod.Layer(2).steps) == (5, 0, 2)
    seen = _counts(counters, counts)
    assert seen[(24, "reached")] == 1 and seen[(24, "body")] == 5  # the for: 5 iterations
    assert (seen[(25, "true")], seen[(25, "false")]) == (2, 3)  # if i % 2
    assert (seen[(27, "reached")], seen[(27, "true")]) == (3, 1)  # the elif
    assert seen[(31, "reached")] == 1 and (31, "body") not in seen  # a while that never ran
    assert seen[(42, "body")] == 4  # a closure's loop (k=4)
    assert seen[(52, "body")] == 2  # a generator's
    # a conditional expression: each branch as it ran, its value passed on
    assert (seen[(37, "exp-reached")], seen[(37, "exp-true")], seen[(37, "exp-false")]) \
        == (3, 2, 1)


def test_a_counter_outside_a_trace_does_nothing_and_the_own_code_comes_back(module):
    mod, counters = module
    copy = mod.closure.__code__
    with counters.counting(lambda frame: None) as counts:
        pass
    assert mod.Layer(3).call(1) == 2 and not counts.hits
    counters.restore()
    assert mod.closure.__code__ is not copy and counters.original(copy) is mod.closure.__code__
    import builtins

    assert not hasattr(builtins, "__agx_hit__")


def test_the_first_frame_of_each_function_is_told(module):
    mod, counters = module
    frames = []
    with counters.counting(lambda frame: frames.append((frame.f_code.co_name,
                                                        dict(frame.f_locals)))):
        mod.Layer(2).call(4, False, 7)
        mod.Layer(2).call(5)
    names = [name for name, _ in frames]
    assert names.count("call") == 1 and names.count("__init__") == 1
    (call,) = [local for name, local in frames if name == "call"]
    assert call["x"] == 4 and call["flag"] is False and call["rest"] == (7,)


def test_lines_names_and_docstrings_stay_the_users(module):
    mod, _ = module
    call = mod.Layer.call.__wrapped__
    assert call.__doc__ == "Its docstring." and call.__qualname__ == "Layer.call"
    assert call.__code__.co_qualname == "Layer.call" if sys.version_info >= (3, 11) else True
    assert mod.Layer(1).steps == 1  # a property's accessor
    try:
        mod.fails(True)
    except ValueError as exc:
        frame = traceback.extract_tb(exc.__traceback__)[-1]
    assert (frame.lineno, frame.line) == (58, 'raise ValueError("boom")')


def test_a_nested_trace_counts_on_its_own(module):
    mod, counters = module
    with counters.counting(lambda frame: None) as outer:
        mod.closure(0)
        with counters.counting(lambda frame: None) as inner:
            mod.closure(0)
        mod.closure(0)
    assert _counts(counters, outer)[(42, "body")] == 8
    assert _counts(counters, inner)[(42, "body")] == 4


def test_a_module_put_in_place_of_another_is_counted_though_the_count_of_modules_is_the_same(
        module, tmp_path):
    """A program that reloads a module (or drops one as it imports another) leaves as many
    modules as before: the new one's functions are counted all the same."""
    mod, counters = module
    path = tmp_path / "swapped_mod.py"
    path.write_text("def twice(n):\n    for _ in range(2):\n        n += 1\n    return n\n")
    spec = importlib.util.spec_from_file_location("swapped_mod", path)
    new = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(new)
    del sys.modules["layers_mod"]
    sys.modules["swapped_mod"] = new  # as many modules as at the last install
    try:
        counters.install()
        with counters.counting(lambda frame: None) as counts:
            assert new.twice(1) == 3
        assert _counts(counters, counts)[(2, "body")] == 2
    finally:
        sys.modules["layers_mod"] = mod
        del sys.modules["swapped_mod"]
