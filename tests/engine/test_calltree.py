"""Verdicts across the call tree: helpers in another file, methods, nested functions, a Keras
layer, call paths, ops charged to the innermost user frame, --depth and --user-code."""

from __future__ import annotations

import importlib.util
import os
import shutil

import pytest

from agexplorer.engine.usercode import UserCode
from agexplorer.worker.protocol import ReportRequest
from conftest import ROOT

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "calltree")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A copy of the two-file project (the worker caches modules by path: a copy per module)."""
    folder = tmp_path_factory.mktemp("project")
    for name in ("train.py", "helpers.py"):
        shutil.copy(os.path.join(FIXTURE, name), folder / name)
    return folder


def line_of(path, text: str) -> int:
    lines = open(path).read().splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line)


def report(worker, project, function: str, **kwargs):
    target = f"{project / 'train.py'}::{function}"
    return worker.request(ReportRequest(target, no_run=True, **kwargs))["report"]


def reached(rep, function: str):
    return next(f for f in rep.reached if f.function == function)


@pytest.mark.tf
def test_a_helper_in_another_file_gets_its_loop_verdict_and_call_path(worker, project):
    rep = report(worker, project, "step")
    assert rep.error is None
    helpers, train = str(project / "helpers.py"), str(project / "train.py")
    normalize = reached(rep, "normalize")
    assert normalize.file == helpers
    (loop,) = normalize.statements
    assert (loop.kind, loop.line, loop.verdict, loop.iterations) == (
        "for", line_of(helpers, "for _ in range(steps)"), "python", 4)
    assert (loop.file, loop.function) == (helpers, "normalize")
    assert "tf.range" in loop.hint
    path = [(s.function, s.file, s.line) for s in normalize.call_path]
    assert path == [("step", train, line_of(train, "x = normalize(x, 4)")),
                    ("normalize", helpers, line_of(helpers, "def normalize"))]
    assert normalize.depth == 1
    assert normalize.conversion is not None and "ag__.for_stmt" in normalize.conversion.code
    # Its ops are charged to its own lines, in its file (x4: the loop unrolled).
    norm_line = line_of(helpers, "x = x / (tf.norm(x) + 1.0)")
    mine = [op for op in rep.inventory.ops if op.file == helpers and op.line == norm_line]
    assert len(mine) >= 4 * 3 and normalize.op_count >= len(mine)
    assert not any(op.line == line_of(train, "x = normalize(x, 4)") and op.file == train
                   for op in rep.inventory.ops)


@pytest.mark.tf
def test_a_method_and_its_nested_function_are_one_section(worker, project):
    rep = report(worker, project, "step")
    helpers = str(project / "helpers.py")
    apply = reached(rep, "Scaler.apply")
    verdicts = {(v.kind, v.line): v for v in apply.statements}
    inner = verdicts[("for", line_of(helpers, "for _ in range(2)"))]
    assert (inner.verdict, inner.iterations, inner.function) == ("python", 2, "Scaler.apply")
    branch = verdicts[("if", line_of(helpers, "if self.factor != 1"))]
    assert (branch.verdict, branch.branch) == ("python", "true")
    clip = reached(rep, "clip")
    (check,) = clip.statements
    assert (check.verdict, check.branch, check.times) == ("python", "true", 1)


@pytest.mark.tf
def test_the_json_lists_every_statement_with_its_place(worker, project):
    data = report(worker, project, "staged").to_dict()
    train = str(project / "train.py")
    own = [s for s in data["statements"] if s["function"] == "staged"]
    assert [s["verdict"] for s in own] == ["staged"]
    assert own[0]["file"] == train
    assert own[0]["call_path"] == [{"function": "staged", "file": train,
                                    "line": line_of(train, "def staged")}]
    helper = [s for s in data["statements"] if s["function"] == "normalize"]
    assert [(s["verdict"], s["iterations"]) for s in helper] == [("python", 2)]
    assert [c["function"] for c in helper[0]["call_path"]] == ["staged", "normalize"]
    assert [f["function"] for f in data["call_tree"]][:1] == ["staged"]
    assert "normalize" in [f["function"] for f in data["call_tree"]]
    assert str(project / "helpers.py") in data["graph"]["ops_by_file"]
    assert all("file" in op for op in data["graph"]["ops"])
    # The staged loop's ops include those its body's call made in the helper.
    loop = own[0]
    assert loop["ops_created"] > sum(n for line, n in data["graph"]["ops_by_line"]
                                     if line is not None and line == loop["line"])


@pytest.mark.tf
def test_depth_limits_the_call_tree(worker, project):
    rep = report(worker, project, "chained")
    paths = {f.function: [s.function for s in f.call_path] for f in rep.reached}
    assert paths["no_control_flow"] == ["chained", "no_control_flow"]
    assert paths["clip"] == ["chained", "no_control_flow", "clip"]
    assert reached(rep, "no_control_flow").statements == ()
    shallow = report(worker, project, "chained", depth=1)
    assert [f.function for f in shallow.reached] == ["no_control_flow"]
    assert report(worker, project, "chained", depth=0).reached == []


@pytest.mark.tf
def test_a_keras_layers_call_is_reached(worker, project):
    rep = report(worker, project, "layered")
    assert rep.error is None
    call = reached(rep, "Repeat.call")
    (loop,) = call.statements
    assert (loop.verdict, loop.iterations) == ("python", 3)
    if not call.converted:  # reached through Keras, which AutoGraph does not convert: said so
        assert "did not convert Repeat.call" in loop.reason and call.note
    # The path goes through the line that called the layer (Keras's frames in between are
    # not the user's), not the explored function's def line.
    train = str(project / "train.py")
    assert (call.call_path[0].function, call.call_path[0].file, call.call_path[0].line) == (
        "layered", train, line_of(train, "return LAYER(x)"))


def test_user_code_is_outside_the_installation_and_never_tensorflow(tmp_path):
    code = UserCode()
    assert str(tmp_path / "mine.py") in code
    assert os.path.join(os.path.dirname(os.__file__), "json", "__init__.py") not in code
    assert "<string>" not in code and "/tmp/__autograph_generated_fileabc.py" not in code
    assert os.path.abspath(pytest.__file__) not in code  # an installed package
    widened = UserCode([os.path.dirname(pytest.__file__)])
    assert os.path.abspath(pytest.__file__) in widened
    spec = importlib.util.find_spec("tensorflow")  # where it is, without importing it
    tf_file = os.path.join(spec.submodule_search_locations[0], "python", "ops", "math_ops.py")
    assert tf_file not in UserCode([os.path.dirname(os.path.dirname(tf_file))])



@pytest.mark.tf
def test_a_copy_of_a_project_gets_its_own_helpers_verdicts_after_another_copys(
        worker, tmp_path):
    """AutoGraph caches a conversion by code object, and code objects compare equal across
    files (``co_filename`` is not compared): the same helper of another copy, still alive in
    the worker, once answered for this copy's (its file and lines, and this copy's
    statement 'unreached')."""
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        for name in ("train.py", "helpers.py"):
            shutil.copy(os.path.join(FIXTURE, name), folder / name)
    for depth in (None, 1, 0):
        report(worker, first, "chained", depth=depth)
    clip = reached(report(worker, second, "step"), "clip")
    assert clip.file == str(second / "helpers.py")
    (statement,) = clip.statements
    assert (statement.verdict, statement.branch, statement.ops_created) == ("python", "true", 2)


FACTORY = '''import tensorflow as tf


def make_step(n):
    def step(x):
        for _ in range(n):
            x = tf.tanh(x)
        return x
    return step


step3 = make_step(3)


@tf.function
def run(x):
    return step3(x) * 2.0


AGX_CALLS = {"run": "tf.ones([2])"}
'''


@pytest.mark.tf
def test_a_function_a_factory_made_is_reached_by_its_own_name_and_lines(worker, tmp_path):
    # The trace entered `step`, never `make_step`: the section, the path and the verdicts
    # name `make_step.<locals>.step` and its lines, as Python does (they named make_step).
    path = tmp_path / "factory.py"
    path.write_text(FACTORY)
    rep = worker.request(ReportRequest(f"{path}::run", no_run=True))["report"]
    (step,) = rep.reached
    assert step.function == "make_step.<locals>.step"
    assert (step.first_line, step.end_line) == (line_of(path, "def step"),
                                                line_of(path, "return x"))
    assert [(s.function, s.line) for s in step.call_path] == [
        ("run", line_of(path, "return step3(x)")),
        ("make_step.<locals>.step", line_of(path, "def step"))]
    (loop,) = step.statements
    assert (loop.function, loop.verdict, loop.iterations) == (step.function, "python", 3)
    assert step.source.startswith("    def step(x):") and "return step" not in step.source
    assert step.conversion is not None and "ag__.for_stmt" in step.conversion.code
    assert step.op_count == 3  # Tanh x3, its own lines


@pytest.mark.parametrize("function", ["outer", "outer_as_written"])
def test_a_tf_function_traced_as_the_file_loaded_is_traced_again_when_reached(worker,
                                                                             function):
    """The file's own calls traced ``inner`` as it loaded; called the same way in the
    report's trace, the original's cached trace would run none of its Python (its loop:
    "never reached", and with autograph=False around it "not converted"). A fresh copy of
    it is traced instead: its loop ran 3 times, converted by its own tf.function."""
    path = os.path.join(ROOT, "tests", "fixtures", "nested_tf_functions.py")
    rep = worker.request(ReportRequest(f"{path}::{function}", no_run=True))["report"]
    fn = reached(rep, "inner")
    [loop] = fn.statements
    assert fn.converted and fn.note is None
    assert (loop.verdict, loop.iterations) == ("python", 3)
    assert loop.ops_created == 6  # x * 2, three times: its Const and Mul each time
