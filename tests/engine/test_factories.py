"""A function that makes a tf.function (a factory) explored itself: tf.function refuses its
return value; the report names what to explore instead, and that is explored here."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.tf

FACTORY = '''\
import tensorflow as tf


def make_scaler(k):
    @tf.function
    def scale(x):
        for _ in range(k):
            x = x * 2.0
        return x
    return scale


double3 = make_scaler(3)
double3(tf.constant(1.0))
'''


def test_a_factory_points_to_the_function_the_file_makes_with_it(tmp_path):
    from agexplorer.engine.pipeline import build_report

    path = tmp_path / "factory.py"
    path.write_text(FACTORY)
    error = build_report(f"{path}::make_scaler").error
    assert error is not None and error.raised.startswith("TypeError: To be compatible")
    assert error.advice == ("make_scaler returns a tf.function, not tensors: it makes the "
                            "function to explore. Explore what the file makes with it: "
                            "`double3` (line 13).")
    # the advice applied: double3 is traced, its Python loop unrolled 3 times
    made = build_report(f"{path}::double3")
    assert made.error is None
    loop = next(s for s in made.statements if s.kind == "for")
    assert (loop.verdict, loop.iterations) == ("python", 3)


def test_a_factory_nothing_binds_is_told_to_bind_it(tmp_path):
    from agexplorer.engine.pipeline import build_report

    source = FACTORY.replace("double3 = make_scaler(3)\ndouble3(tf.constant(1.0))\n",
                             "make_scaler(2)\n")
    path = tmp_path / "factory.py"
    path.write_text(source)
    error = build_report(f"{path}::make_scaler").error
    assert error is not None and error.advice == (
        "make_scaler returns a tf.function, not tensors: it makes the function to explore. "
        "Bind what it returns to a module-level name (`step = make_scaler(...)`) and explore "
        "that name, or run `agexplorer record` on the program to see it where the program "
        "calls it.")
    path.write_text(source.replace("make_scaler(2)\n",
                                   "step = make_scaler(2)\nstep(tf.constant(1.0))\n"))
    made = build_report(f"{path}::step")
    loop = next(s for s in made.statements if s.kind == "for")
    assert made.error is None and (loop.verdict, loop.iterations) == ("python", 2)
