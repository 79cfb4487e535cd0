"""`agexplorer LOG`: the program view of a recorded run, and "explore this call" into the explorer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from agexplorer.runlog.calls import rebuild_call
from agexplorer.runlog.log import FORMAT, is_log
from agexplorer.tui.app import AgxApp
from agexplorer.tui.program.actions import Program, load_program
from conftest import FIXTURES, run_cli, wait_for


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """tests/fixtures/record copied and its training script recorded once: (log, train.py)."""
    folder = tmp_path_factory.mktemp("program") / "record"
    shutil.copytree(os.path.join(FIXTURES, "record"), folder)
    log = str(folder / "train.agxlog")
    proc = subprocess.run([sys.executable, "-m", "agexplorer", "record", "-o", log, "train.py"],
                          capture_output=True, text=True, timeout=300, cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return log, str(folder / "train.py")


def program_app(log: str, worker) -> tuple[AgxApp, Program]:
    program = load_program(log)
    return AgxApp(program.user_files(), None, worker=worker, program=program), program


def screen_of(app: AgxApp):
    from agexplorer.tui.program.screen import ProgramScreen

    return app.screen if isinstance(app.screen, ProgramScreen) else None


def cells(table) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


@pytest.mark.tf
async def test_program_view_lists_the_step_its_retrace_and_the_unrolled_helper(recorded, worker):
    log, _ = recorded
    app, _ = program_app(log, worker)
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: screen_of(app) is not None)
        screen = screen_of(app)
        assert "exit 0" in str(screen.header.render())
        # The tables fill once the screen is mounted: on a loaded machine after it is shown.
        assert await wait_for(pilot, lambda: screen.functions.row_count > 0)
        (step,) = [r for r in cells(screen.functions) if r[0] == "train_step"]
        assert step[1] == "train.py:29" and step[2] == "2" and step[5] == "1"
        traces = cells(screen.traces)
        assert [t[0] for t in traces] == ["1", "2"]
        assert traces[1][4].replace("\n", " ").startswith(
            "x: now float32[8, 4], before float32[16, 4] (trace 1)")
        # The statements of the selected trace: normalize's loop, in another file, unrolled.
        (loop,) = cells(screen.statements)
        assert loop[:3] == ["helpers.py:7", "for _ in range(steps):", "unrolled x3"]
        assert "tf.range(steps)" in loop[3].replace("\n", " ")
        assert app.state.target is None  # nothing is analysed until a call is explored


@pytest.mark.tf
async def test_explore_this_call_opens_the_step_with_the_recorded_signature(recorded, worker):
    log, train = recorded
    app, _ = program_app(log, worker)
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: screen_of(app) is not None)
        await pilot.press("e")
        assert await wait_for(pilot, lambda: app.state.report is not None, 120)
        assert screen_of(app) is None and app.state.target == (train, "train_step")
        call = "tf.zeros([16, 4], tf.float32), tf.zeros([16, 1], tf.float32)"
        assert app.call_input.value == call
        report = app.state.report
        assert report.error is None and report.function == "train_step" and report.call == call
        assert any(f.function == "normalize" for f in report.reached)
        await pilot.press("P")  # back to the program view, where it was
        assert await wait_for(pilot, lambda: screen_of(app) is not None)
        screen = screen_of(app)
        screen.traces.focus()
        await pilot.press("down")  # the retrace: the 8-row batch
        await pilot.press("e")
        wanted = "tf.zeros([8, 4], tf.float32), tf.zeros([8, 1], tf.float32)"
        assert await wait_for(pilot, lambda: app.state.report is not None and app.state.report.call == wanted,
                              120)


@pytest.mark.tf
async def test_a_deleted_file_is_one_sentence_and_the_view_stays(recorded, worker, tmp_path):
    log, train = recorded
    moved = tmp_path / "copy.agxlog"
    # The same run, as if train.py had been deleted since: its path no longer exists.
    moved.write_text(open(log).read().replace(train, str(tmp_path / "gone" / "train.py")))
    app, _ = program_app(str(moved), worker)
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: screen_of(app) is not None)
        await pilot.press("e")
        screen = screen_of(app)

        def detail() -> str:
            return str(screen.detail.render()).replace("\n", " ")

        assert await wait_for(pilot, lambda: "no longer exists, so train_step cannot be opened"
                              in detail(), 10), detail()
        assert screen_of(app) is screen and app.state.target is None


def test_a_function_is_reached_only_when_the_run_has_no_trace_of_its_own():
    summary = {"functions": [
        {"file": "/p/a.py", "function": "step", "user": True},
        {"file": "/p/a.py", "function": "one_step_on_data", "user": False},
    ]}
    program = Program("/p/run.agxlog", summary)
    assert not program.reached_only("/p/a.py", "step")  # a tf.function of its own
    assert program.reached_only("/p/a.py", "helper")
    assert program.reached_only("/p/b.py", "step")  # another file's


def test_a_library_trace_that_reached_only_a_local_function_says_it_cannot_be_opened():
    """tf.data's map of a function defined inside ``main``: main's call was never made
    (the log keeps the local function's name), so nothing is opened with a made-up call."""
    library = {"file": "/p/structured_function.py", "function": "wrapped_fn", "user": False}
    trace = {"trace": 1, "reached": [{"file": "/p/a.py", "function": "main", "line": 26,
                                      "local": "main.centred (line 35)"}]}
    call = Program("/p/run.agxlog", {"functions": [library]}).rebuilt(library, trace)
    assert call.text is None and call.problem is not None
    assert "through main.centred (line 35), defined inside main" in call.problem


def test_a_call_is_rebuilt_from_the_recorded_arguments():
    arguments = [
        {"name": "x", "kind": "tensor", "text": "float32[None, 4]", "dtype": "float32",
         "shape": [None, 4]},
        {"name": "steps", "kind": "python", "text": "the Python int 3"},
        {"name": "label", "kind": "python", "text": "the Python str 'a'"},
        {"name": "args", "kind": "structure", "text": "a Python tuple []"},
        {"name": "scale", "kind": "python", "text": "None"},
    ]
    call = rebuild_call(arguments, keyword={"scale"}, variadic={"args"})
    assert call.text == "tf.zeros([1, 4], tf.float32), 3, 'a', scale=None"
    assert call.notes == ["x's unknown dimensions are 1"]
    obj = rebuild_call([{"name": "model", "kind": "object", "text": "a Python Sequential"}])
    assert obj.text is None and "model was recorded only as a Python Sequential" in obj.problem


def test_a_log_is_told_by_its_suffix_or_its_start_record(tmp_path):
    plain = tmp_path / "run.txt"
    plain.write_text(json.dumps({"type": "start", "format": FORMAT, "argv": ["t.py"]}) + "\n")
    assert is_log(str(plain)) and is_log("missing.agxlog")
    assert not is_log(os.path.join(FIXTURES, "record", "train.py"))
    assert not is_log(str(tmp_path / "missing.py"))


def test_a_garbage_log_is_one_sentence_and_exit_2(tmp_path):
    bad = tmp_path / "bad.agxlog"
    bad.write_text("this is not a log\nnor is this\n")
    proc = run_cli(str(bad), timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("agexplorer: ") and "bad.agxlog" in lines[0]


@pytest.fixture(scope="module")
def keras_recorded(tmp_path_factory):
    """The Keras fit/predict program recorded once: (log, its script)."""
    folder = tmp_path_factory.mktemp("keras-program") / "record"
    shutil.copytree(os.path.join(FIXTURES, "record"), folder)
    log = str(folder / "keras.agxlog")
    proc = subprocess.run([sys.executable, "-m", "agexplorer", "record", "-o", log,
                           "keras_fit_predict.py"],
                          capture_output=True, text=True, timeout=300, cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return log, str(folder / "keras_fit_predict.py")


@pytest.mark.tf
async def test_e_on_keras_fit_opens_the_layer_with_its_recorded_input_and_instance(
        keras_recorded, worker):
    log, script = keras_recorded
    app, program = program_app(log, worker)
    assert program.user_files() == [script]  # no tf.function of the user's: the layer's file
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: screen_of(app) is not None)
        screen = screen_of(app)
        assert await wait_for(pilot, lambda: screen.functions.row_count > 0)
        names = [r[0].replace("\n", " ") for r in cells(screen.functions)]
        # The rows go by trace time, costliest first: fit's and predict's are close, and
        # on a loaded machine either may come first.
        fit = names.index("model.fit → one_step_on_data (library)")
        screen.functions.move_cursor(row=fit)
        await pilot.pause()
        (loop, _) = cells(screen.statements)
        assert loop[:3] == ["keras_fit_predict.py:18", "for _ in range(self.steps):",
                            "unrolled x6"]
        assert "Smoother.call(tf.zeros([8, 4], tf.float32)) on Smoother(steps=6)" in \
            str(screen.detail.render()).replace("\n", "")
        await pilot.press("e")
        assert await wait_for(pilot, lambda: app.state.report is not None, 120)
        assert screen_of(app) is None and app.state.target == (script, "Smoother.call")
        assert app.call_input.value == "tf.zeros([8, 4], tf.float32)"
        assert app.run_panel.init_input.display and app.run_panel.init_input.value == "steps=6"
        (loop, _) = app.state.report.statements
        assert (loop.line, loop.verdict, loop.iterations) == (18, "python", 6)
        assert loop.unconverted == "keras3"
        # The run reached the layer only from Keras's train step: its doctor is told so
        # (a number it were passed would retrace nothing of it), as `doctor LOG` is.
        assert app.state.reached_calls == {(script, "Smoother.call"):
                                           "tf.zeros([8, 4], tf.float32)"}
        assert program.reached_only(script, "Smoother.call")
