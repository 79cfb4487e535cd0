"""A file whose module-level code raises: one sentence at the line that raised, the error's
own words, and what to do (no TensorFlow: plain Python raises)."""

from __future__ import annotations

import pickle

import pytest

from agexplorer.engine.load import load_module
from agexplorer.model.errors import AgxError

SOURCE = '''\
def featurize(x):
    raise ValueError("no features for " + x)


FEATURES = featurize("audio")
'''


def test_module_code_that_raises_in_a_function_names_that_function_s_line(tmp_path):
    path = tmp_path / "pipeline.py"
    path.write_text(SOURCE)
    with pytest.raises(AgxError) as caught:
        load_module(str(path), SOURCE)
    error = caught.value
    assert (error.kind, error.line) == ("load-error", 2)
    assert error.raised == "ValueError: no features for audio"
    assert error.what == (f"{path}:2: loading the file as a module raised "
                          "ValueError: no features for audio")
    assert 'if __name__ == "__main__":' in error.advice
    assert error.message == f"{error.what}; {error.advice}"


def test_an_error_keeps_its_parts_through_the_worker_s_pipe():
    error = AgxError("trace-failed", "f.py:3: tracing f raised TypeError: bad", advice="fix it",
                     raised="TypeError: bad", line=3, exit_code=1, details=["frame"])
    back = pickle.loads(pickle.dumps(error))
    assert (back.what, back.advice, back.raised, back.line, back.exit_code, back.details) == \
        ("f.py:3: tracing f raised TypeError: bad", "fix it", "TypeError: bad", 3, 1, ["frame"])
    assert str(back) == back.message == "f.py:3: tracing f raised TypeError: bad; fix it"
    # a what with a semicolon of its own keeps it: nothing is split back out of the text
    assert AgxError("x", "a; b").what == "a; b"


PROGRAM = '''\
from __future__ import annotations

import math

SCALE = 2.0


def scaled(x: float) -> float:
    return x * SCALE


print(scaled("text") + 1)  # the program's own call
AFTER = 1


def later(x: float) -> float:
    return math.floor(x)


class Later:
    pass
'''


def test_module_code_that_raises_keeps_what_ran_and_the_definitions_after_it(tmp_path):
    from agexplorer.engine.load import run_module

    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    module, failure = run_module(str(path), PROGRAM)
    assert module.scaled(3.0) == 6.0 and module.SCALE == 2.0  # ran before the failure
    assert module.later(2.5) == 2 and isinstance(module.Later(), object)  # defined after it
    assert module.later.__annotations__ == {"x": "float", "return": "float"}  # its future flags
    assert not hasattr(module, "AFTER")  # not a definition: it did not run
    assert failure is not None and failure.statement == 12 and failure.after
    assert failure.error.kind == "load-error" and failure.error.line == 9
    assert failure.note() == (
        "loading the file, line 12 (`print(scaled(\"text\") + 1)  # the program's own "
        "call`) raised at line 9: TypeError: can't multiply sequence by non-int of type "
        "'float'; agexplorer went on without the module-level statements after "
        "it (their def, class and import statements ran), so what they would have set is "
        "missing.")


def test_a_file_runs_with_its_own_future_imports_only(tmp_path):
    # agexplorer's own modules import annotations from __future__; the user's file, run as
    # `python FILE` runs it, keeps its annotations as objects (a decorator reading them).
    from agexplorer.engine.load import run_module

    text = ("def f(x: int) -> float:\n    return x\n\n\n"
            "ANNOTATIONS = dict(f.__annotations__)\n")
    path = tmp_path / "annotated.py"
    path.write_text(text)
    module, failure = run_module(str(path), text)
    assert failure is None and module.ANNOTATIONS == {"x": int, "return": float}
    import ast

    parsed, _ = run_module(str(path), text, ast.parse(text))  # compiled from its parse
    assert parsed.ANNOTATIONS == {"x": int, "return": float}


def test_load_module_still_refuses_module_code_that_raises(tmp_path):
    path = tmp_path / "program.py"
    path.write_text(PROGRAM)
    with pytest.raises(AgxError) as caught:
        load_module(str(path), PROGRAM)
    assert (caught.value.kind, caught.value.line) == ("load-error", 9)


def test_an_exit_at_module_level_goes_on_and_an_interrupt_stops(tmp_path):
    from agexplorer.engine.load import run_module

    path = tmp_path / "cli.py"
    text = "import sys\n\n\ndef f(x):\n    return x + 1\n\n\nsys.exit(2)\n"
    path.write_text(text)
    module, failure = run_module(str(path), text)
    assert module.f(1) == 2
    assert failure is not None and failure.statement == 8 and not failure.after
    assert failure.note().endswith("agexplorer went on with what the file had defined by then.")
    text = ("raise ValueError('first')\n\n\ndef quit_(f):\n    raise SystemExit(3)\n\n\n"
            "@quit_\ndef g(x):\n    return x\n\n\ndef h(x):\n    return x\n")
    path.write_text(text)  # a definition after it that exits is left out, the rest is made
    module, failure = run_module(str(path), text)
    assert module.h(1) == 1 and not hasattr(module, "g") and failure.statement == 1
    text = "def f(x):\n    return x\n\n\nraise KeyboardInterrupt\n"
    path.write_text(text)
    with pytest.raises(KeyboardInterrupt):
        run_module(str(path), text)


def test_a_function_the_failure_kept_from_being_made_is_the_load_error(tmp_path):
    from agexplorer.engine.load import load_target

    path = tmp_path / "guarded.py"
    text = ("import os\n\nif os.environ['NO_SUCH_VARIABLE_AGX']:\n    def f(x):\n"
            "        return x\n")
    path.write_text(text)
    with pytest.raises(AgxError) as caught:
        load_target(f"{path}::f", "1")
    assert caught.value.kind == "load-error" and caught.value.line == 3
    assert "KeyError: 'NO_SUCH_VARIABLE_AGX'" in caught.value.what


def test_a_function_a_library_calls_is_pointed_to_record(tmp_path):
    from agexplorer.engine.load import load_target

    path = tmp_path / "pipeline.py"
    path.write_text("def parse(x):\n    return x + 1\n\n\nitems = list(map(parse, [1, 2]))\n")
    with pytest.raises(AgxError) as caught:
        load_target(f"{path}::parse")
    assert caught.value.kind == "needs-arguments"
    assert caught.value.advice == (
        "parse is handed to map(...) at line 5, which calls it with what it makes: "
        "`agexplorer record pipeline.py` runs the program and records that trace of parse, "
        "with the values it was given; or pass them with --call, e.g. --call "
        '"tf.constant([1.0, 2.0])".')


def test_a_tf_function_the_program_calls_in_a_loop_is_pointed_to_record(tmp_path, tf):
    from agexplorer.engine.load import load_target

    path = tmp_path / "train.py"
    path.write_text("import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    return x\n\n\n"
                    "def plain(x):\n    return x\n\n\ndef main():\n    for i in range(3):\n"
                    "        step(tf.constant(i))\n        plain(i)\n")
    with pytest.raises(AgxError) as caught:
        load_target(f"{path}::step")
    assert caught.value.advice.startswith(
        "the file calls step at line 15: `agexplorer record train.py` runs the program and "
        "records the traces of step its calls make, with the values they passed; or pass "
        "them with --call")
    with pytest.raises(AgxError) as caught:  # Python runs it: nothing of it to record
        load_target(f"{path}::plain")
    assert caught.value.advice.startswith("pass them with --call")


def test_the_file_s_call_in_main_is_the_example_where_the_module_gives_its_values(tmp_path,
                                                                                   tf):
    from agexplorer.engine.load import load_target

    path = tmp_path / "train.py"
    source = ("import tensorflow as tf\n\nds = tf.data.Dataset.range(3)\n\n\n@tf.function\n"
              "def epoch(d):\n    total = tf.constant(0, tf.int64)\n    for v in d:\n"
              "        total += v\n    return total\n\n\ndef main():\n    epoch(ds)\n")
    path.write_text(source)
    with pytest.raises(AgxError) as caught:
        load_target(f"{path}::epoch")
    assert caught.value.advice.endswith('or pass them with --call, e.g. --call "ds".')
    loaded = load_target(f"{path}::epoch", call="ds")  # as told: it traces
    assert int(loaded.tf_function(tf)(*loaded.args)) == 3
    path.write_text(source.replace("ds = tf.data", "DS = tf.data"))  # no such name: generic
    with pytest.raises(AgxError) as caught:
        load_target(f"{path}::epoch")
    assert caught.value.advice.endswith('e.g. --call "tf.constant([1.0, 2.0])".')


def test_module_values_named_as_the_parameters_are_the_example(tmp_path, tf):
    """``step(model, x)`` beside ``model = ...`` and ``x = ...``: the example passes them, and
    as told it traces; a parameter the module holds no value of (a function of that name
    is none) keeps the generic example."""
    from agexplorer.engine.load import load_target

    path = tmp_path / "named.py"
    source = ("import tensorflow as tf\n\nw = tf.Variable([2.0, 3.0])\nx = tf.ones([2])\n\n\n"
              "@tf.function\ndef step(w, x):\n    return tf.reduce_sum(w * x)\n")
    path.write_text(source)
    with pytest.raises(AgxError) as caught:
        load_target(f"{path}::step")
    assert caught.value.advice.endswith('e.g. --call "w, x".')
    loaded = load_target(f"{path}::step", call="w, x")
    assert float(loaded.tf_function(tf)(*loaded.args)) == 5.0
    path.write_text(source.replace("x = tf.ones([2])", "def x():\n    pass"))
    with pytest.raises(AgxError) as caught:
        load_target(f"{path}::step")
    assert caught.value.advice.endswith('e.g. --call "tf.constant([1.0, 2.0]), '
                                        'tf.constant([1.0, 2.0])".')


def test_the_names_the_statements_that_did_not_run_would_have_set():
    import ast

    from agexplorer.engine.load import unset_names

    tree = ast.parse("import os\nA = 1\nB = f()\nC = 2\n\n\ndef g():\n    return C\n\n\n"
                     "import sys\nfor i in range(2):\n    D = i\nA = 3\n")
    assert unset_names(tree, 3) == {"B": 3, "C": 4, "i": 12, "D": 12, "A": 14}


ARGPARSE = '''\
import argparse
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=5)
args = parser.parse_args()
SEEN = list(sys.argv)
'''


def test_a_module_level_argument_parser_reads_the_command_line_of_python_file(tmp_path):
    # As `python train.py` runs it: no arguments, so its defaults hold (the worker's own
    # command line, its pipe's descriptor, was parsed as the program's: "unrecognized
    # arguments: 6 21492").
    import sys

    path = tmp_path / "train.py"
    path.write_text(ARGPARSE)
    before = list(sys.argv)
    sys.argv = [before[0], "6", "21492"]
    try:
        module = load_module(str(path), ARGPARSE)
        assert module.args.steps == 5
        assert module.SEEN == [str(path)]
        assert sys.argv == [before[0], "6", "21492"]  # given back
    finally:
        sys.argv = before


def test_a_parser_that_exits_is_named_with_what_it_said(tmp_path):
    # argparse prints its error to stderr and raises SystemExit: 2, all the error says.
    source = ARGPARSE.replace('"--steps", type=int, default=5', '"data"')
    path = tmp_path / "train.py"
    path.write_text(source)
    with pytest.raises(AgxError) as caught:
        load_module(str(path), source)
    assert caught.value.raised == ("SystemExit: 2 (its argument parser: the following "
                                   "arguments are required: data)")
    assert caught.value.line == 6


def test_a_full_stop_before_the_advice_is_dropped_and_an_ellipsis_kept():
    assert AgxError("x", "it raised TypeError: not a Tensor.", advice="do this").message == \
        "it raised TypeError: not a Tensor; do this"
    assert AgxError("x", "it raised ValueError: cut...", advice="do this").message == \
        "it raised ValueError: cut...; do this"
    assert AgxError("x", "no advice.").message == "no advice."


def test_a_module_of_a_package_loads_with_its_relative_imports(tmp_path):
    # As `python -m mypkg.sub.train` runs it; it raised "attempted relative import with no
    # known parent package". An edited sibling is seen on the next load.
    from agexplorer.source.files import package_of

    sub = tmp_path / "src" / "mypkg" / "sub"
    sub.mkdir(parents=True)
    for folder in (sub, sub.parent):
        (folder / "__init__.py").write_text("")
    (sub.parent / "scale.py").write_text("FACTOR = 2\n")
    source = "from ..scale import FACTOR\nfrom . import helpers\n\nVALUE = helpers.twice(FACTOR)\n"
    (sub / "helpers.py").write_text("def twice(x):\n    return 2 * x\n")
    path = sub / "train.py"
    path.write_text(source)
    assert package_of(str(path)) == ("mypkg.sub", str(tmp_path / "src"))
    assert load_module(str(path), source).VALUE == 4
    (sub / "helpers.py").write_text("def twice(x):\n    return 20 * x\n")
    assert load_module(str(path), source).VALUE == 40
    loose = tmp_path / "script.py"
    assert package_of(str(loose)) == (None, str(tmp_path))
    odd = tmp_path / "my-pkg"  # not a name Python can import: no package
    odd.mkdir()
    (odd / "__init__.py").write_text("")
    assert package_of(str(odd / "t.py")) == (None, str(odd))


def test_a_name_that_is_no_function_says_what_it_is_with_its_article(tmp_path):
    from agexplorer.engine.load import load_target

    path = tmp_path / "constants.py"
    path.write_text("RATE = 1\nNAME = 'x'\n")
    with pytest.raises(AgxError) as caught:
        load_target(f"{path}::RATE")
    assert caught.value.what == f"RATE in {path} is an int, not a function"
    with pytest.raises(AgxError) as caught:
        load_target(f"{path}::NAME")
    assert caught.value.what == f"NAME in {path} is a str, not a function"
