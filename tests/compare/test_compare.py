"""`agexplorer compare` and the worker's CompareRequest, on the lesson's loops (one worker)."""

import json

import pytest

from agexplorer.cli import main
from agexplorer.worker import client
from agexplorer.worker.protocol import CompareRequest
from tests.conftest import sample

pytestmark = pytest.mark.tf

LOOPS = sample("s6_2_bad_loop.py")


@pytest.fixture
def cli(worker, monkeypatch, capsys):
    """``cli(*args)`` -> (exit status, stdout, stderr), in this process, on the module's worker."""
    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)

    def run(*args: str) -> tuple[int, str, str]:
        code = main(["compare", *args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def test_bad_loop_against_fixed_loop_pairs_the_while_and_shows_it_staged(cli):
    code, out, err = cli(f"{LOOPS}::bad_loop", f"{LOOPS}::fixed_loop", "--json",
                         "--budget", "0.05", "--no-xla")
    assert code == 0, err
    data = json.loads(out)
    assert {"left", "right", "diff", "statements", "op_count", "timings"} <= set(data)
    [pair] = data["statements"]
    assert (pair["left"]["header"], pair["right"]["header"]) == ("while i < n:", "while i < n:")
    assert (pair["left"]["verdict"], pair["left"]["iterations"]) == ("python", 5)
    assert pair["right"]["verdict"] == "staged" and pair["differs"]
    assert data["left"]["call"]["args"] == "5"
    assert data["right"]["call"]["args"] == "tf.constant(5)"
    assert data["op_count"]["left"] < data["op_count"]["right"]
    assert "StatelessWhile" not in data["left"]["ops_by_type"]
    assert data["ops_by_type"]["difference"]["StatelessWhile"] == 1
    assert data["diff"].startswith("--- s6_2_bad_loop.py::bad_loop\n"
                                   "+++ s6_2_bad_loop.py::fixed_loop\n")
    assert "+def tf__fixed_loop(n):" in data["diff"]
    timings = data["timings"]
    assert timings["graph"]["left"] > 0 and timings["graph"]["right"] > 0
    assert timings["graph"]["ratio"] == pytest.approx(
        timings["graph"]["right"] / timings["graph"]["left"])
    assert timings["xla"] == {"left": None, "right": None, "ratio": None}  # --no-xla


def test_a_python_range_against_tf_range_with_one_call_reads_as_a_change(cli):
    code, out, err = cli(f"{LOOPS}::range_loop", f"{LOOPS}::tf_range_loop", "--call", "5",
                         "--no-run", "--width", "140")
    assert code == 0, err
    assert "unrolled x5 -> staged" in out
    assert "for i in range(n):" in out and "for i in tf.range(n):" in out
    assert "--- s6_2_bad_loop.py::range_loop" in out


def test_the_same_function_twice_differs_nowhere(cli):
    code, out, err = cli(f"{LOOPS}::bad_loop", f"{LOOPS}::bad_loop", "--no-run", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["diff"] == ""
    assert [p["differs"] for p in data["statements"]] == [False]
    assert data["op_count"]["left"] == data["op_count"]["right"]
    assert set(data["ops_by_type"]["difference"].values()) == {0}
    code, out, _ = cli(f"{LOOPS}::bad_loop", f"{LOOPS}::bad_loop", "--no-run")
    assert code == 0 and "AutoGraph's code is the same on both sides." in out


def test_a_target_that_does_not_exist_is_one_sentence_and_exit_2(cli, tmp_path):
    code, out, err = cli(f"{LOOPS}::bad_loop", f"{tmp_path}/gone.py::f", "--no-run")
    assert code == 2 and out == ""
    assert err.startswith("agexplorer: ") and err.count("\n") == 1
    code, _, err = cli(f"{LOOPS}::nope", f"{LOOPS}::bad_loop", "--no-run")
    assert code == 2 and "nope" in err and err.count("\n") == 1


def test_a_side_whose_code_raises_is_its_sentence_and_the_other_side_still_shows(cli,
                                                                                   tmp_path):
    path = tmp_path / "boom.py"
    path.write_text("import tensorflow as tf\n\n\n@tf.function\ndef boom(n):\n"
                    "    for i in range(n):\n        raise ValueError('no loop today')\n"
                    "    return n\n")
    loads = tmp_path / "loads.py"
    # f is made inside a statement after the one that raises: never made, the failure is
    # the side's answer
    loads.write_text("raise RuntimeError('not importable')\n\nif True:\n    def f(n):\n"
                     "        return n\n")
    code, out, err = cli(f"{LOOPS}::range_loop", f"{path}::boom", "--call", "3", "--no-run",
                         "--width", "140")
    assert code == 1
    assert "ValueError: no loop today" in out and "range_loop(3)" in out
    assert err.startswith("agexplorer: right side: ") and "no loop today" in err
    code, out, err = cli(f"{loads}::f", f"{LOOPS}::range_loop", "--call", "3", "--no-run",
                         "--json")
    data = json.loads(out)
    assert code == 1 and "not importable" in data["left"]["error"]["message"]
    assert data["left"]["op_count"] is None and data["right"]["op_count"] > 0
    assert data["statements"][0]["left"] is None
    assert data["statements"][0]["right"]["verdict"] == "python"


DIES = ("import os\n\nimport tensorflow as tf\n\n\n@tf.function\ndef ends(n):\n"
        "    os._exit(7)\n\n\n@tf.function\ndef killed(n):\n"
        "    os.kill(os.getpid(), 9)\n")


def test_a_side_that_ends_the_worker_leaves_the_other_side_shown(cli, tmp_path):
    """os._exit or SIGKILL in one side's code took the whole comparison's answer with the
    worker: the other side is analysed alone in a fresh worker and shown, and the side that
    ended the worker says so in one sentence."""
    path = tmp_path / "dies.py"
    path.write_text(DIES)
    code, out, err = cli(f"{LOOPS}::range_loop", f"{path}::ends", "--call", "3", "--no-run",
                         "--json")
    assert code == 1
    data = json.loads(out)
    assert data["left"]["op_count"] > 0 and data["left"]["error"] is None
    assert data["statements"][0]["left"]["verdict"] == "python"
    assert data["right"]["error"]["message"] == (
        "the TensorFlow worker exited with status 7 while tracing ends; the other side was "
        "analysed alone in a fresh worker.")
    assert err == f"agexplorer: right side: {data['right']['error']['message']}\n"
    code, out, err = cli(f"{path}::killed", f"{LOOPS}::range_loop", "--call", "3", "--no-run",
                         "--width", "140")
    assert code == 1
    assert "range_loop(3)" in out and "for i in range(n):" in out
    assert err.startswith("agexplorer: left side: the TensorFlow worker exited with signal 9 ")


def test_an_unsaved_buffer_compares_with_the_file_on_disk(worker):
    """The TUI's case: the edited buffer (left) against the file as saved (right)."""
    with open(LOOPS, encoding="utf-8") as fh:
        text = fh.read()
    edited = text.replace("    for i in range(n):\n        s += i",
                          "    for i in tf.range(n):\n        s += i", 1)
    assert edited != text
    target = f"{LOOPS}::range_loop"
    comparison = worker.request(CompareRequest(target, target, call="4", left_source=edited,
                                               no_run=True))
    assert comparison.left.file == comparison.right.file == LOOPS
    [pair] = comparison.statements
    assert (pair.left.verdict, pair.right.verdict, pair.right.iterations) == \
        ("staged", "python", 4)
    assert "-        ag__.for_stmt(ag__.converted_call(ag__.ld(tf).range," in comparison.diff
    assert "+        ag__.for_stmt(ag__.converted_call(ag__.ld(range)," in comparison.diff
