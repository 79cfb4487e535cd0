"""`agexplorer curves` on bad input: one sentence and exit 2 before any worker is asked, and
the charts and the exit status from a record (a stand-in worker: no TensorFlow)."""

from __future__ import annotations

import json

import pytest

from agexplorer import cli
from agexplorer.model.curves import Curves, Series
from agexplorer.worker import client

SIMPLE = "def f(x):\n    return x\n"


@pytest.fixture
def no_worker(monkeypatch):
    """Fails the test if the command asks for a TensorFlow worker."""
    def refuse(*args, **kwargs):
        raise AssertionError("a worker was asked for")

    monkeypatch.setattr(client, "shared_worker", refuse)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``agexplorer curves ARGV``, argparse's exits too."""
    try:
        code = cli.main(["curves", *argv])
    except SystemExit as exited:  # the parser's own refusal, worded by agexplorer's Parser
        code = exited.code
    out, err = capsys.readouterr()
    return code, out, err


def flat(text: str) -> str:
    """``text`` without its white space: a sentence the terminal's width wrapped reads whole."""
    return "".join(text.split())


@pytest.mark.parametrize(("argv", "said"), [
    (["{path}::f", "--steps", "0"], "argument --steps: '0' is not from 1 to 1000 steps; "
                                    "see `agexplorer curves --help`."),
    (["{path}::f", "--steps", "1001"], "argument --steps: '1001' is not from 1 to 1000 steps; "
                                       "see `agexplorer curves --help`."),
    (["{path}::f", "--steps", "ten"], "argument --steps: 'ten' is not a whole number of steps; "
                                      "see `agexplorer curves --help`."),
    (["{path}::f", "--height", "2"], "argument --height: '2' is not from 5 to 200 lines; "
                                     "see `agexplorer curves --help`."),
    (["{path}::g"], "{path} has no function 'g'; available: f."),
    (["{path}"], "name a function: {path}::FUNCTION (available: f)."),
    (["{path}::f", "--call", "tf.constant(1"],
     '--call "tf.constant(1" is not a valid Python argument list (\'(\' was never closed); '
     'write it as inside f(...), e.g. --call "tf.constant([1, 2]), n=3".'),
    (["{missing}::f"], "{missing}: no such file; check the path (run `agexplorer list PATH` "
                       "to see what a file holds)."),
])
def test_bad_input_is_one_sentence_and_exit_2_before_a_worker(tmp_path, capsys, no_worker,
                                                              argv, said):
    path = tmp_path / "m.py"
    path.write_text(SIMPLE)
    names = {"path": path, "missing": tmp_path / "gone.py"}
    code, out, err = run(capsys, *[word.format(**names) for word in argv])
    assert code == 2 and out == ""
    assert err == f"agexplorer: {said.format(**names)}\n"


class StandIn:
    """A worker that answers every request with ``curves``."""

    tf_warnings = ()

    def __init__(self, curves: Curves) -> None:
        self.curves = curves
        self.asked = []

    def request(self, request, **kwargs):
        self.asked.append(request)
        return self.curves


def test_a_step_that_raised_exits_1_after_the_charts_of_the_steps_before(tmp_path, capsys,
                                                                          monkeypatch):
    path = tmp_path / "m.py"
    path.write_text(SIMPLE)
    curves = Curves(file=str(path), function="f", call="2", call_origin="--call", steps=9,
                    done=4, series=[Series("x", [4.0, 3.0, 2.0, 1.0])],
                    error=f"{path}:2: step 5 of 9, f(2), raised ValueError: no", error_line=2)
    worker = StandIn(curves)
    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    monkeypatch.setenv("COLUMNS", "60")
    code, out, err = run(capsys, f"{path}::f", "--steps", "9", "--call", "2", "--height", "6")
    assert code == 1 and err == ""
    request = worker.asked[0]
    assert (type(request).__name__, request.target, request.call, request.steps) == \
        ("CurvesRequest", f"{path}::f", "2", 9)
    lines = out.splitlines()
    assert flat(out).startswith(flat("f(2) [--call]: 4 of 9 steps in 0.0 µs, one load of the "
                                     "module (its state carried from step to step)."))
    assert flat(f"{path}:2: step 5 of 9, f(2), raised ValueError: no") in flat(out)
    assert lines[-6:] == ["x: 4 → 1", "4 ┤•", "  │ ••", "1 ┤   •",
                          "  └┬──┬ step", "   1  4"]
    code, out, _ = run(capsys, f"{path}::f", "--json")
    assert code == 1 and json.loads(out)["error"] == curves.error
