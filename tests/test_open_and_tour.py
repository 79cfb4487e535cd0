"""Opening anything without writing into the installation: a folder, scratch copies of the
samples, `samples --copy DIR`; the tour's data names real sample functions, and each step
uses its own call."""

from __future__ import annotations

import ast
import os

import pytest

from agexplorer.cli import main, samples_dir
from agexplorer.cli.explorer import open_tui
from agexplorer.state.scratch import MARKER, is_scratch, saved_note, scratch_copies
from agexplorer.tui.app import AgxApp
from agexplorer.tui.tour.opening import Opening
from agexplorer.tui.tour.steps import STEPS
from conftest import SAMPLES, wait_for


@pytest.fixture
def opened(monkeypatch):
    """What open_tui would show: the app's paths and opening, without running the app."""
    seen: dict = {}

    def run(self, *args, **kwargs):
        seen.update(paths=self.paths, program=self.program, function=self.first_function)

    monkeypatch.setattr(AgxApp, "run", run)
    return seen


def sample_names() -> list[str]:
    return sorted(n for n in os.listdir(SAMPLES) if n.endswith(".py"))


def test_a_folder_opens_every_python_file_in_it(tmp_path, opened):
    (tmp_path / "a.py").write_text("def f(x):\n    return x\n")
    (tmp_path / "notes.txt").write_text("not python")
    for folder in ("sub", ".hidden", "__pycache__", "venv"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "b.py").write_text("def g(x):\n    return x\n")
    assert open_tui([str(tmp_path)]) == 0
    assert opened["paths"] == [str(tmp_path / "a.py"), str(tmp_path / "sub" / "b.py")]
    assert opened["program"] == Opening(scratch=False, tour=False)


def test_a_folder_without_python_files_is_one_sentence(tmp_path, capsys):
    assert main([str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"agexplorer: {tmp_path}: no Python files in this folder; open a folder " \
                  "of .py files, or one file."


def test_no_path_opens_scratch_copies_never_the_package(opened):
    assert open_tui([]) == 0
    paths = opened["paths"]
    assert [os.path.basename(p) for p in paths] == sample_names()
    folder = os.path.dirname(paths[0])
    assert os.path.commonpath([folder, samples_dir()]) != samples_dir()  # not inside it
    assert folder.startswith(os.path.join(os.environ["XDG_STATE_HOME"], "agexplorer", "scratch"))
    assert os.path.isfile(os.path.join(folder, MARKER)) and all(is_scratch(p) for p in paths)
    for path in paths:
        with open(path) as copy, open(os.path.join(SAMPLES, os.path.basename(path))) as orig:
            assert copy.read() == orig.read()
    assert opened["program"] == Opening(scratch=True, tour=False)
    assert "scratch copy" in saved_note(paths[0])
    assert saved_note(os.path.join(SAMPLES, "s4_2_tracing.py")).startswith("saved ")
    assert "scratch" not in saved_note(os.path.join(SAMPLES, "s4_2_tracing.py"))


def test_tour_opens_scratch_copies_with_the_tour(opened, capsys):
    assert open_tui(["tour"]) == 0
    assert opened["program"] == Opening(scratch=True, tour=True)
    assert all(is_scratch(p) for p in opened["paths"])
    assert open_tui(["tour", "x.py"]) == 2
    assert "give one PATH" in capsys.readouterr().err


def test_samples_copy_writes_an_editable_copy_and_never_overwrites(tmp_path, capsys):
    dest = tmp_path / "lesson"
    assert main(["samples", "--copy", str(dest)]) == 0
    assert sorted(os.listdir(dest)) == sample_names()
    assert "`agexplorer" in capsys.readouterr().out
    mine = dest / "s4_1_eager_vs_graph.py"
    mine.write_text("# my edits\n")
    assert main(["samples", "--copy", str(dest)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "already exists (and 9 more)" in err
    assert "does not overwrite" in err
    assert mine.read_text() == "# my edits\n"  # untouched


def test_samples_copy_into_a_file_is_one_sentence(tmp_path, capsys):
    target = tmp_path / "afile"
    target.write_text("x")
    assert main(["samples", "--copy", str(target)]) == 2
    assert "that is a file" in capsys.readouterr().err


def test_each_tour_step_names_a_sample_function_and_an_action():
    assert len(STEPS) == 10
    for step in STEPS:
        tree = ast.parse(open(os.path.join(SAMPLES, step.file)).read())
        names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        assert set(step.function.split(".")) <= names, step.target
        assert step.action in ("run", "trace", "doctor", "curves", "none")
        assert step.heading_zh[:3].replace(".", "").isdigit() and step.title_en and step.look
    headings = [s.heading_zh.split()[0] for s in STEPS]
    assert headings == sorted(headings, key=lambda h: [int(x) for x in h.split(".")])


def test_samples_copy_that_fails_half_way_leaves_nothing(tmp_path, capsys, monkeypatch):
    """A full disk on the third file: each file is written atomically, and the copy is all or
    nothing, so no half-written sample is left and trying again works."""
    import errno

    dest = tmp_path / "lesson"
    real_fsync, calls = os.fsync, []

    def failing_fsync(fd):
        calls.append(fd)
        if len(calls) == 5:  # write_source fsyncs each file and its folder: the third file
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", failing_fsync)
    assert main(["samples", "--copy", str(dest)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "so none were left there" in err[0] and "No space left" in err[0]
    assert sorted(os.listdir(dest)) == []  # no sample, no temporary file
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert main(["samples", "--copy", str(dest)]) == 0
    assert len([n for n in os.listdir(dest) if n.endswith(".py")]) == len(
        [n for n in os.listdir(SAMPLES) if n.endswith(".py") and n != "__init__.py"])


@pytest.mark.tf
async def test_a_tour_step_uses_its_own_call_never_one_typed_before(worker):
    """Issue 22: a call typed in step 1 made step 4 answer "line 16: for unreached"."""
    app = AgxApp(scratch_copies(samples_dir()), worker=worker,
                 program=Opening(scratch=True, tour=True))
    async with app.run_test(size=(160, 45)) as pilot:
        assert await wait_for(pilot, lambda: bool(app.query("TourPanel")), 60)
        panel = app.query_one("TourPanel")
        tour = panel.tour

        def analysed(function: str, call: str) -> bool:
            report = app.state.report
            return report is not None and report.function == function and report.call == call

        typed = "tf.ones([2, 2]), tf.ones([2, 2])"
        assert await wait_for(pilot, lambda: app.state.target[1] == STEPS[0].function, 60)
        app.call_input.value = typed  # typed in step 1, for its matmul
        app.analyse()
        assert await wait_for(pilot, lambda: analysed(STEPS[0].function, typed), 120)

        tour.go(3)  # 4.4: dynamic_loop, with its own call (AGX_CALLS)
        step = STEPS[3]
        assert await wait_for(pilot, lambda: analysed(step.function, "tf.constant(5)"), 120)
        assert app.call_input.value == "" and app.state.report.call_origin == "AGX_CALLS"
        panel.focus()
        await pilot.press("enter")
        assert await wait_for(pilot, lambda: bool(panel.result_text), 120)
        assert tour.results[3].startswith("line 16: for staged")  # the step's promise
        assert panel.made_from == "dynamic_loop(tf.constant(5)) [AGX_CALLS]"
        assert panel.made_from in panel.result_text

        # Shown again with another call typed for its function: back to the step's own.
        app.call_input.value = "tf.constant(2)"
        app.analyse()
        assert await wait_for(pilot, lambda: analysed(step.function, "tf.constant(2)"), 120)
        tour.go(3)
        assert await wait_for(pilot, lambda: analysed(step.function, "tf.constant(5)"), 120)
        assert app.call_input.value == ""


@pytest.mark.parametrize("argv", [[], ["f.py"], ["f.py::g"], ["tour"], ["a.py", "b.py"]])
def test_the_explorers_arguments_without_an_option_read_as_its_parser_reads_them(argv):
    """Read without argparse where nothing is an option (explorer_options): the same
    targets and defaults the parser gives."""
    from agexplorer.cli.explorer import explorer_options, explorer_parser

    assert vars(explorer_options(argv)) == vars(explorer_parser().parse_args(argv))
    assert vars(explorer_options(["--no-daemon", *argv]))["no_daemon"] is True
