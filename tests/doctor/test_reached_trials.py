"""A helper's unrolled loop gets its fix tried as the explored function's own loops do (the
explored function traced with the helper rewritten: in its file, or in a module of its own),
and a plain ``main`` that drives the file's tf.functions is not checked as if it were traced."""

from __future__ import annotations

import textwrap

import pytest

from agexplorer.doctor.checks import diagnose
from agexplorer.doctor.rewrites import rewrite
from agexplorer.doctor.verdict_fixes import tried_fixes
from agexplorer.model.doctor import Finding

HELPERS = '''
    def smooth(x):
        for i in range(3):
            x = x * 0.5 + i
        return x


    def ramp(x):
        for i in range(3):
            x = x + float(i)
        return x
'''

TRAIN = '''
    import tensorflow as tf
    from reached_helpers import ramp, smooth


    def accumulate(x):
        total = tf.zeros_like(x)
        for i in range(4):
            total += x * tf.cast(i, tf.float32)
        return total


    def scale(x):
        for i in range(3):
            x = x * i
        return x


    @tf.function
    def step(x):
        return smooth(ramp(scale(accumulate(x))))


    def prepare(values):
        out = []
        for v in values:
            out.append(v * 2.0)
        return out


    def main():
        x = tf.constant([1.0, 2.0])
        print(step(x))
        print(prepare([1.0, 2.0]))


    AGX_CALLS = {"step": "tf.constant([1.0, 2.0])"}
'''


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reached")
    (folder / "reached_helpers.py").write_text(textwrap.dedent(HELPERS))
    train = folder / "reached_train.py"
    train.write_text(textwrap.dedent(TRAIN))
    return train


def helper_loop(report, name: str):
    """The loop verdict of the reached function ``name``."""
    fn = next(f for f in report.reached if f.function == name)
    return next(v for v in fn.statements if v.kind == "for")


@pytest.fixture(scope="module")
def tried_report(report, files):
    target = f"{files}::step"
    return tried_fixes(target, files.read_text(), report(target), None, budget=60.0)


@pytest.mark.tf
def test_a_helper_fix_that_stages_its_loop_says_so(tried_report):
    hint = helper_loop(tried_report, "accumulate").hint
    assert "tf.range(4)" in hint and hint.endswith("op.")
    assert "Tried: the rewrite stages the loop as a" in hint


@pytest.mark.tf
def test_a_helper_fix_that_fails_is_replaced_by_what_works(tried_report):
    hint = helper_loop(tried_report, "scale").hint
    assert "Tried: the rewrite fails to trace" in hint and "TypeError" in hint
    assert "iterate over tf.range" not in hint  # the fix that fails is not offered
    assert "tf.cast" in hint


@pytest.mark.tf
def test_a_helper_in_another_module_is_tried_with_that_module_rewritten(tried_report, files):
    # smooth adds the counter to a float: with tf.range, an int32 tensor, tracing fails
    smooth = helper_loop(tried_report, "smooth").hint
    assert "Tried: the rewrite fails to trace (it raises TypeError" in smooth
    # ramp converts it first (AutoGraph makes float(i) of a tensor a cast): it stages, with
    # TensorFlow imported into the module that did not import it
    ramp = helper_loop(tried_report, "ramp").hint
    assert "Tried: the rewrite stages the loop as a" in ramp
    # the module on disk is as it was; the trials wrote copies
    assert "tf.range" not in (files.parent / "reached_helpers.py").read_text()


@pytest.mark.tf
def test_the_doctor_tries_helper_fixes_without_offering_them(report, files):
    target = f"{files}::step"
    doctor = diagnose(target, report=report(target), try_budget=60.0)
    found = {f.function: f for f in doctor.findings if f.code == "AGX004"}
    assert found["accumulate"].tried.outcome == "staged"
    assert found["scale"].tried.outcome == "fails"
    assert found["smooth"].tried.outcome == "fails"
    # --try is the explored function's: a helper's rewrite is not offered
    assert all(f.rewrite is None for f in found.values())


@pytest.mark.tf
def test_a_plain_main_is_not_checked_as_if_traced(report, files):
    target = f"{files}::main"
    doctor = diagnose(target, report=report(target), try_budget=0.0)
    # its prints run on every call: no AGX001; prepare runs in Python on every call: no
    # finding there either; the helpers of the tf.function it calls are found
    assert not [f for f in doctor.findings if f.function is None]
    assert {f.function for f in doctor.findings} >= {"accumulate", "scale"}
    assert "prepare" not in {f.function for f in doctor.findings}
    assert doctor.note is not None and doctor.note.startswith("main is no tf.function")
    assert "step" in doctor.note
    assert doctor.to_dict()["note"] == doctor.note


def test_a_helper_module_without_tensorflow_is_made_to_import_it():
    text = ('"""Helpers."""\nfrom __future__ import annotations\n\n\n@cached\n'
            'def ramp(x):\n    for i in range(3):\n        x = x + float(i)\n    return x\n')
    loop = Finding(code="AGX004", line=7, message="", why="", fix="iterate over tf.range(3)",
                   col=4)
    assert rewrite(text, loop) is None  # the explored function's own file: no import added
    made = rewrite(text, loop, import_tf=True)
    assert made is not None and made.new_text is not None
    lines = made.new_text.splitlines()
    # after the docstring and the __future__ import, above the decorator
    assert lines[:5] == ['"""Helpers."""', "from __future__ import annotations", "", "",
                         "import tensorflow as tf"]
    assert lines[5] == "@cached" and lines[8] == "        x = x + float(i)"
    assert lines[7] == "    for i in tf.range(3):" and made.new_line == 8
    # a module that binds `tf` to something else gets no import, so no rewrite
    bound = Finding(code="AGX004", line=8, message="", why="", fix="iterate over tf.range(3)",
                    col=4)
    assert rewrite("tf = 3\n" + text, bound, import_tf=True) is None


KERAS = '''
    import keras
    import tensorflow as tf


    def smooth_steps(x, steps):
        for t in range(steps):
            x = x * 0.9 + 0.1
        return x


    @tf.function
    def staged_steps(x):
        for t in range(3):
            x = x * 0.9
        return x


    class Smooth(keras.layers.Layer):
        def call(self, x):
            return staged_steps(smooth_steps(x, 4))


    AGX_CALLS = {"Smooth.call": "tf.zeros([2, 3])", "smooth_steps": "tf.zeros([2, 3]), 4"}
'''


@pytest.fixture(scope="module")
def layer_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("keras3") / "smooth_layer.py"
    path.write_text(textwrap.dedent(KERAS))
    return path


@pytest.mark.tf
def test_a_helper_a_keras_3_layer_calls_runs_as_keras_runs_it(report, layer_file):
    # Keras 3 runs Smooth.call without AutoGraph: smooth_steps, a plain function it calls,
    # runs without it too, so tf.range there would raise; no trial says otherwise
    target = f"{layer_file}::Smooth.call"
    tried = tried_fixes(target, layer_file.read_text(), report(target), None, budget=60.0)
    plain = helper_loop(tried, "smooth_steps")
    assert plain.unconverted == "keras3" and "and so smooth_steps, which it calls" in plain.reason
    assert "tf.range" not in plain.hint and "Tried" not in plain.hint
    assert "keras.ops.fori_loop" in plain.hint
    # a tf.function it calls is converted whoever calls it: its fix stands, and is tried
    staged = helper_loop(tried, "staged_steps")
    assert staged.unconverted is None and "Tried: the rewrite stages the loop" in staged.hint
    doctor = diagnose(target, report=report(target), try_budget=60.0)
    found = {f.function: f for f in doctor.findings if f.code == "AGX004"}
    assert found["smooth_steps"].tried is None and "tf.range" not in found["smooth_steps"].fix
    assert found["staged_steps"].tried.outcome == "staged"


@pytest.mark.tf
def test_a_function_a_run_ran_unconverted_gets_no_autograph_rewrite(report, layer_file):
    target = f"{layer_file}::smooth_steps"
    alone = diagnose(target, report=report(target), try_budget=60.0)
    (loop,) = [f for f in alone.findings if f.code == "AGX004"]
    assert loop.rewrite is not None  # traced on its own, a tf.function would stage it
    run = diagnose(target, report=report(target), try_budget=60.0, unconverted=True)
    (loop,) = [f for f in run.findings if f.code == "AGX004"]
    assert loop.rewrite is None and loop.tried is None
    assert "tf.range" not in loop.fix and "keras.ops.fori_loop" in loop.fix
