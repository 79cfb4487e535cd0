"""Target specs, static listing and bad files (no TensorFlow)."""

import ast

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.source.targets import (
    find_function_node,
    list_functions,
    parse_source,
    parse_spec,
    read_source,
)

SOURCE = '''
import tensorflow as tf

@tf.function
def decorated(x):
    return x

@tf.function(jit_compile=True)
def jitted(x):
    return x

def plain(a, b=1):
    def inner():
        return a
    return inner

class Model:
    @tf.function
    def call(self, x):
        return x

    class Inner:
        def method(self):
            return 1
'''


def test_lists_functions_methods_and_nested_classes():
    functions = {f.qualname: f for f in list_functions(ast.parse(SOURCE))}
    assert list(functions) == ["decorated", "jitted", "plain", "Model.call", "Model.Inner.method"]
    assert functions["decorated"].decorated and functions["jitted"].decorated
    assert not functions["plain"].decorated
    assert functions["Model.call"].is_method and functions["Model.call"].line == 19
    assert functions["plain"].params == ("a", "b")
    assert not functions["decorated"].ready and functions["Model.Inner.method"].ready


def test_ready_inputs_from_agx_calls_and_signatures():
    tree = ast.parse("import tensorflow as tf\n"
                     "@tf.function(input_signature=[tf.TensorSpec([None])])\ndef sig(x):\n    return x\n"
                     "def needs(x):\n    return x\n"
                     "def given(x):\n    return x\n"
                     "AGX_CALLS = {'given': '1'}\n")
    ready = {f.qualname: f.ready for f in list_functions(tree)}
    assert ready == {"sig": True, "needs": False, "given": True}


def test_find_function_node_by_qualname():
    tree = ast.parse(SOURCE)
    assert find_function_node(tree, "Model.Inner.method").lineno == 23
    assert find_function_node(tree, "missing") is None


def test_parse_spec_makes_the_path_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    spec = parse_spec("a.py::Model.call")
    assert spec.path == str(tmp_path / "a.py") and spec.qualname == "Model.call"
    assert parse_spec("a.py").qualname is None


def test_missing_file_is_one_sentence(tmp_path):
    with pytest.raises(AgxError) as err:
        read_source(str(tmp_path / "nope.py"))
    assert err.value.kind == "missing-file" and "no such file" in err.value.message


def test_binary_file_is_not_python(tmp_path):
    path = tmp_path / "data.py"
    path.write_bytes(b"\x00\x01\x02")
    with pytest.raises(AgxError) as err:
        read_source(str(path))
    assert err.value.kind == "not-python"


def test_text_that_is_not_python(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("this is : not python at all\n")
    with pytest.raises(AgxError) as err:
        parse_source(str(path), path.read_text())
    assert err.value.kind == "not-python"


@pytest.mark.parametrize("name", ["run.agxlog", "copy.txt"])
def test_a_recorded_runs_log_is_named_so_with_the_commands_that_read_it(tmp_path, name):
    # Its JSON lines parse as Python: a file with no function, which was all it said.
    path = tmp_path / name
    path.write_text('{"type": "start", "format": "agexplorer-record/1", "argv": []}\n'
                    '{"type": "end", "traces": 0}\n')
    with pytest.raises(AgxError) as err:
        parse_source(str(path), path.read_text())
    assert err.value.kind == "not-python" and "is a recorded run's log" in err.value.message
    assert f"agexplorer summary {path}" in err.value.advice
    assert f"agexplorer doctor {path}" in err.value.advice


def test_syntax_error_names_file_and_line(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text("def f(x):\n    return x +\n")
    with pytest.raises(AgxError) as err:
        parse_source(str(path), path.read_text())
    assert err.value.kind == "syntax-error" and err.value.line == 2
    assert f"{path}:2:" in err.value.message


KINDS = '''
import tensorflow as tf

square = lambda x: x * x  # noqa: E731

twice = tf.function(
    lambda x: (x
               + x))


class Box:
    @staticmethod
    def helper(n):
        return n

    @staticmethod
    def ready_one():
        return 1

    @classmethod
    def make(cls):
        return cls()

    @property
    def size(self):
        return 3

    @size.setter
    def size(self, value):
        pass
'''


def test_a_staticmethod_needs_its_arguments_and_a_property_is_never_ready():
    """`list` and `report` agree: a staticmethod's first parameter is not self, so
    helper(n) needs --call; a property is read, not called, so it is not "ready"."""
    functions = {f.qualname: f for f in list_functions(ast.parse(KINDS))}
    assert (functions["Box.helper"].descriptor, functions["Box.helper"].ready) == \
        ("staticmethod", False)
    assert (functions["Box.ready_one"].descriptor, functions["Box.ready_one"].ready) == \
        ("staticmethod", True)
    assert (functions["Box.make"].descriptor, functions["Box.make"].ready) == ("classmethod", True)
    sizes = [f for f in list_functions(ast.parse(KINDS)) if f.qualname == "Box.size"]
    assert [(f.descriptor, f.ready) for f in sizes] == [("property", False)] * 2
    assert functions["Box.helper"].to_dict()["descriptor"] == "staticmethod"


def test_a_lambda_target_has_the_lines_of_its_lambda():
    tree = ast.parse(KINDS)
    square = find_function_node(tree, "square")
    assert (square.lineno, square.end_lineno) == (4, 4)
    twice = find_function_node(tree, "twice")  # the lambda inside tf.function(...)
    assert (twice.lineno, twice.end_lineno) == (7, 8)
    assert find_function_node(ast.parse("pair = (lambda a: a, lambda b: b)\n"), "pair") is None


ASSIGNED = '''
import tensorflow as tf


def make_train_step(model):
    @tf.function
    def train_step(x):
        return model(x)
    return train_step


def make_plain(n):
    def step(x):
        return x * n
    return tf.function(step)


def either(flag):
    def a(x):
        return x
    def b(x):
        return -x
    if flag:
        return a
    return b


def slow(x, y):
    return x + y


train_step = make_train_step(None)
plain_step = make_plain(3)
chosen = either(True)
fast = tf.function(slow, jit_compile=True)
square = lambda x: x * x
wrapped = tf.function(lambda x: x + 1, input_signature=[tf.TensorSpec([None])])
rebound = lambda x: x
def rebound(x):
    return x
number = 3
AGX_CALLS = {"train_step": "tf.ones([2])"}
'''


def test_names_bound_to_functions_are_listed_at_the_lines_of_their_code():
    # A factory's function (the common way to build a train step), a def wrapped in
    # tf.function and a lambda are reachable by their module-level name: each is listed,
    # at its code's lines, so the explorer's list and `agexplorer list` show it.
    text = ASSIGNED.lstrip("\n")
    lines = text.splitlines()
    functions = {f.qualname: f for f in list_functions(ast.parse(text))}
    made = [name for name in functions if name not in
            ("make_train_step", "make_plain", "either", "slow", "rebound")]
    assert made == ["train_step", "plain_step", "fast", "square", "wrapped"]  # source order
    step = functions["train_step"]
    assert step.line == lines.index("    def train_step(x):") + 1 and step.end_line == step.line + 1
    assert step.decorated and step.ready and step.params == ("x",) and not step.is_method
    assert functions["plain_step"].decorated and not functions["plain_step"].ready
    assert functions["fast"].line == functions["slow"].line and functions["fast"].decorated
    assert functions["square"].line == lines.index("square = lambda x: x * x") + 1
    assert functions["wrapped"].ready  # its input_signature
    assert functions["rebound"].line == lines.index("def rebound(x):") + 1  # the def's


def test_a_file_nested_deeper_than_python_parses_is_one_sentence(tmp_path):
    """Python's own parser gives up on a 20,000-term expression (RecursionError in 3.11):
    the file's, said as one, not agexplorer's failure to report."""
    path = tmp_path / "deep.py"
    path.write_text("def f(x):\n    return " + " + ".join(["x"] * 20000) + "\n")
    with pytest.raises(AgxError) as err:
        parse_source(str(path), path.read_text())
    assert err.value.kind == "syntax-error" and str(path) in err.value.message
    assert "\n" not in err.value.message


def test_a_plain_function_that_calls_the_file_s_tf_functions_drives_them():
    import ast as _ast

    from agexplorer.source.targets import list_functions

    text = ("import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n    return x\n\n\n"
            "def helper(x):\n    return x * 2\n\n\ndef main():\n    for i in range(3):\n"
            "        step(helper(tf.constant(i)))\n\n\nfast = tf.function(helper)\n")
    assert not any(f.drives for f in list_functions(_ast.parse(text)))  # not asked for
    functions = {f.qualname: f for f in list_functions(_ast.parse(text), drives=True)}
    assert functions["main"].drives == ("step",)
    assert functions["helper"].drives == () and functions["step"].drives == ()
    assert functions["main"].to_dict()["drives"] == ["step"]


def test_a_parse_that_cpythons_shared_depth_count_trips_is_made_again(monkeypatch):
    # CPython 3.11 counts the AST's depth per interpreter: another thread parsing at the
    # same time makes one parse fail with SystemError on a sound file (seen in a test run).
    import ast as _ast

    real, calls = _ast.parse, []

    def tripping(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=147, after=67)")
        return real(*args, **kwargs)

    monkeypatch.setattr(_ast, "parse", tripping)
    tree = parse_source("f.py", "def f(x):\n    return x\n")
    assert [n.name for n in tree.body] == ["f"] and len(calls) == 2
    monkeypatch.setattr(_ast, "parse", lambda *a, **k: (_ for _ in ()).throw(SystemError("other")))
    with pytest.raises(SystemError):
        parse_source("f.py", "x = 1\n")
