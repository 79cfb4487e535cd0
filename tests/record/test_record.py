"""agexplorer record and summary: a real training run recorded, its log and summary, crashes, -m, the API."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import agexplorer
from agexplorer.cli import main
from tests.conftest import FIXTURES, ROOT

RECORD = os.path.join(FIXTURES, "record")
TRAIN = os.path.join(RECORD, "train.py")
HELPERS = os.path.join(RECORD, "helpers.py")


def record(*args: str, cwd: str = ROOT) -> subprocess.CompletedProcess[str]:
    """``agexplorer record ARGS`` in a fresh process (the program's streams and status are the test)."""
    return subprocess.run([sys.executable, "-m", "agexplorer", "record", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def summary_json(log: str, capsys) -> dict:
    capsys.readouterr()
    assert main(["summary", log, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture(scope="module")
def train_run(tmp_path_factory):
    """The training script recorded once: 2 epochs of 16, 16 and 8 rows, exiting 3."""
    log = str(tmp_path_factory.mktemp("record") / "train.agxlog")
    proc = record("-o", log, TRAIN, "--epochs", "2", "--exit", "3", "-v")
    return proc, log


@pytest.mark.tf
def test_program_runs_unchanged_with_its_argv_and_exit_status(train_run):
    proc, _ = train_run
    assert proc.returncode == 3, proc.stderr
    assert "epoch 1 loss" in proc.stdout
    assert "argv: --epochs 2 --exit 3 -v" in proc.stdout  # its own options, verbatim
    # The summary at exit, on stderr (wrapped at 80 columns): the step, its retrace by
    # cause, the unrolled helper loop.
    err = " ".join(proc.stderr.split())
    assert "agexplorer record: the program exited with status 3; 2 traces of 1 function" in err
    assert "train_step (train.py:" in err
    assert "retraces (1), by cause:" in err
    assert "1 × x: a new shape [8, 4]; y: a new shape [8, 1]; trace 2" in err
    assert "normalize (helpers.py:" in err and "unrolled 3x" in err
    assert max(len(line) for line in proc.stderr.split("agexplorer record:")[1]
               .splitlines()[:-1]) <= 80  # all but the log's path


@pytest.mark.tf
def test_log_holds_the_retrace_and_why(train_run, capsys):
    _, log = train_run
    data = summary_json(log, capsys)
    assert data["program"]["exit_code"] == 3
    assert data["program"]["argv"][1:] == ["--epochs", "2", "--exit", "3", "-v"]
    assert data["program"]["wall_s"] > 0
    (step,) = [f for f in data["functions"] if f["function"] == "train_step"]
    assert step["file"] == TRAIN and step["line"] == 29 and step["traces"] == 2
    assert step["op_count"] > 0 and step["trace_s"] > 0
    (retrace,) = step["retraces"]
    assert retrace["trace"] == 2
    # The last batch has 8 rows: the argument that changed, and how.
    assert retrace["reason"].startswith("x: now float32[8, 4], before float32[16, 4] (trace 1)")
    assert step["signatures"] == ["x: float32[16, 4], y: float32[16, 1]",
                                  "x: float32[8, 4], y: float32[8, 1]"]


@pytest.mark.tf
def test_helper_loop_in_another_file_has_its_verdict(train_run, capsys):
    _, log = train_run
    (step,) = summary_json(log, capsys)["functions"]
    loops = [s for s in step["statements"] if s["file"] == HELPERS]
    assert len(loops) == 2  # one per trace
    for loop in loops:
        assert (loop["function"], loop["line"], loop["kind"]) == ("normalize", 7, "for")
        assert loop["verdict"] == "python" and loop["iterations"] == 3 and loop["times"] == 1
        assert loop["ops_created"] > 0


@pytest.mark.tf
def test_a_programs_error_in_converted_code_lists_no_frame_of_agexplorers(tmp_path):
    """AutoGraph's "in user code:" list (and TensorFlow's filtered traceback) leaves out
    TensorFlow's own frames; agexplorer's wrappers sit between AutoGraph and the user's code
    and were listed among the user's frames: they are left out as TensorFlow's are."""
    proc = record("-o", str(tmp_path / "map.agxlog"), os.path.join(RECORD, "map_crash.py"))
    assert proc.returncode == 1
    assert "in user code:" in proc.stderr and 'map_crash.py", line 8, in featurize' in \
        proc.stderr
    assert os.path.dirname(os.path.abspath(agexplorer.__file__)) + os.sep not in proc.stderr


@pytest.mark.tf
def test_crash_leaves_a_readable_log_and_the_programs_traceback(tmp_path, capsys):
    log = str(tmp_path / "crash.agxlog")
    proc = record("-o", log, os.path.join(RECORD, "crash.py"))
    assert proc.returncode == 1
    assert "Traceback (most recent call last):" in proc.stderr
    assert 'crash.py", line 12, in <module>' in proc.stderr
    assert "ValueError: the program failed after one trace" in proc.stderr
    assert "agexplorer" + os.sep + "record" not in proc.stderr  # its traceback, not ours
    data = summary_json(log, capsys)
    assert data["program"]["exit_code"] == 1
    assert (data["program"]["exception"], data["program"]["interrupted"]) == ("ValueError", False)
    (double,) = data["functions"]
    assert (double["function"], double["traces"], double["signatures"]) == \
        ("double", 1, ["x: float32[2]"])


def end_records(log: str) -> list[dict]:
    with open(log, encoding="utf-8") as handle:
        return [r for r in map(json.loads, handle) if r["type"] == "end"]


@pytest.mark.tf
def test_a_ctrl_c_run_says_it_was_interrupted(tmp_path, capsys):
    log = str(tmp_path / "stopped.agxlog")
    proc = record("-o", log, os.path.join(RECORD, "interrupted.py"))
    assert proc.returncode == 130
    assert "the run was interrupted (Ctrl-C" in proc.stderr  # the summary at exit
    (end,) = end_records(log)
    assert (end["raised"], end["exception"], end["interrupted"]) == \
        (True, "KeyboardInterrupt", True)
    data = summary_json(log, capsys)
    assert data["program"]["interrupted"] and data["program"]["exit_code"] == 130
    assert [f["traces"] for f in data["functions"]] == [1]
    assert main(["summary", log]) == 0
    assert "the run was interrupted (Ctrl-C" in capsys.readouterr().out


@pytest.mark.tf
def test_only_the_recording_process_ends_the_log_not_a_forked_child(tmp_path, capsys):
    log = str(tmp_path / "forks.agxlog")
    proc = record("-o", log, os.path.join(RECORD, "forks.py"))
    assert proc.returncode == 5, proc.stderr
    assert [e["exit_code"] for e in end_records(log)] == [5]
    assert proc.stderr.count("agexplorer record: ") == 1  # the child prints no summary
    assert summary_json(log, capsys)["program"]["exit_code"] == 5


def test_a_log_written_before_interrupted_was_recorded_reads_as_not_interrupted(tmp_path,
                                                                                capsys):
    log = tmp_path / "old.agxlog"
    log.write_text('{"type": "start", "format": "agexplorer-record/1", "argv": ["t.py"]}\n'
                   '{"type": "end", "exit_code": 0, "wall_s": 1.0, "raised": false}\n')
    program = summary_json(str(log), capsys)["program"]
    assert (program["interrupted"], program["exception"], program["exit_code"]) == \
        (False, None, 0)
    assert main(["summary", str(log)]) == 0
    assert "interrupted" not in capsys.readouterr().out


START = {"type": "start", "format": "agexplorer-record/1", "argv": ["t.py"]}
TRACE = {"type": "trace", "trace": 1, "file": "/p/t.py", "function": "f", "line": 3,
         "user": True, "kind": "first", "trace_s": 0.5, "op_count": 7, "statements": [],
         "arguments": [{"name": "x", "kind": "tensor", "text": "float32[2]",
                        "dtype": "float32", "shape": [2]}]}


@pytest.mark.parametrize(("records", "where"), [
    ([START, {**TRACE, "arguments": 5}], 'the 1st trace record is malformed: its "arguments" '
     "is a number where a list belongs"),
    ([START, TRACE, {**TRACE, "trace": 2, "trace_s": "slow"}], 'the 2nd trace record is '
     'malformed: its "trace_s" is a string where a number belongs'),
    ([START, {**TRACE, "statements": "for"}], 'its "statements" is a string where a list'),
    ([START, {**TRACE, "statements": [{"kind": "for", "verdict": "python",
                                       "iterations": "3"}]}],
     'the 1st trace record (statement 1) is malformed: its "iterations" is a string'),
    ([START, {**TRACE, "arguments": [{"name": "x", "kind": "tensor", "shape": 4}]}],
     '(argument 1) is malformed: its "shape" is a number where a list belongs'),
    ([START, {**TRACE, "reached": ["f"]}], 'its "reached[1]" is a string where an object'),
    ([START, TRACE, {"type": "end", "exit_code": "five"}], 'the end record is malformed: '
     'its "exit_code" is a string where a whole number belongs'),
])
def test_a_log_with_wrongly_typed_fields_names_the_record(tmp_path, capsys, records, where):
    """A log another tool wrote, or a hand edit broke: one sentence naming the record, exit 2
    (it used to fail inside agexplorer, exit 3)."""
    log = tmp_path / "typed.agxlog"
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    for argv in (["summary", str(log)], ["summary", str(log), "--json"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"agexplorer: {log}: ") and err.count("\n") == 1
        assert where in err


@pytest.mark.tf
def test_module_with_a_python_argument_retrace(tmp_path, capsys):
    log = str(tmp_path / "tiny.agxlog")
    proc = record("-o", log, "-m", "tiny", "5", "--flag", cwd=RECORD)
    assert proc.returncode == 5, proc.stderr
    assert "args: ['5', '--flag']" in proc.stdout
    (scale,) = summary_json(log, capsys)["functions"]
    assert scale["traces"] == 2
    assert scale["retraces"][0]["reason"].startswith("n: now the Python int 3, before 2 (trace 1)")


def test_summary_of_a_truncated_log_skips_the_cut_line(tmp_path, capsys):
    start = {"type": "start", "format": "agexplorer-record/1", "argv": ["t.py"]}
    trace = {"type": "trace", "trace": 1, "file": "/p/t.py", "function": "f", "line": 3,
             "user": True, "kind": "first", "trace_s": 0.5, "op_count": 7, "statements": []}
    log = tmp_path / "cut.agxlog"
    log.write_text(json.dumps(start) + "\n" + json.dumps(trace) + "\n"
                   + json.dumps({**trace, "trace": 2})[:40])
    data = summary_json(str(log), capsys)
    assert [f["traces"] for f in data["functions"]] == [1]
    assert data["program"]["exit_code"] is None and not data["program"]["finished"]
    assert any("cut off" in note for note in data["notes"])
    assert main(["summary", str(log)]) == 0
    assert "f (t.py:3)" in capsys.readouterr().out


@pytest.mark.parametrize("content", [None, "", "not json at all\n{}\n", '{"type": "end"}\n'])
def test_summary_of_a_missing_or_foreign_log_is_one_sentence(tmp_path, capsys, content):
    log = tmp_path / "x.agxlog"
    if content is not None:
        log.write_text(content)
    assert main(["summary", str(log)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("agexplorer: ") and len(err.splitlines()) == 1
    assert "Traceback" not in err


def test_record_needs_a_program(capsys):
    assert main(["record", "-o", "x.agxlog"]) == 2
    assert "record needs a script or -m MODULE" in capsys.readouterr().err
    assert main(["record", "missing_script.py"]) == 2
    assert "no script at missing_script.py" in capsys.readouterr().err


def test_record_options_end_at_the_script():
    from agexplorer.cli.table import parse as parse_record
    from agexplorer.record.runner import default_log

    args = parse_record(["record", "-o", "a.log", "train.py", "--epochs", "3", "-o", "b"])
    assert (args.output, args.script, args.args) == ("a.log", "train.py",
                                                      ["--epochs", "3", "-o", "b"])
    args = parse_record(["record", "-m", "pkg.train", "-v"])
    assert (args.module, args.script, args.args) == ("pkg.train", None, ["-v"])
    assert default_log("dir/train.py", False) == os.path.abspath("train.agxlog")
    assert default_log("pkg.train", True) == os.path.abspath("train.agxlog")


def test_importing_agexplorer_stays_light():
    code = ("import agexplorer, sys; assert 'tensorflow' not in sys.modules; "
            "assert callable(agexplorer.recording); assert 'tensorflow' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.tf
def test_recording_api_in_process(tmp_path):
    import tensorflow as tf

    import agexplorer

    @tf.function
    def square(x):
        return x * x

    log = str(tmp_path / "api.agxlog")
    with agexplorer.recording(log) as run:
        square(tf.constant(2.0))
        square(tf.constant(3.0))  # same signature: no new trace
        square(tf.constant([1, 2]))
    size = os.path.getsize(log)
    square(tf.constant([1.0, 2.0, 3.0]))  # after the block: not recorded
    assert os.path.getsize(log) == size
    (fn,) = run.summary()["functions"]
    assert fn["function"].endswith("square") and fn["traces"] == 2
    assert fn["retraces"][0]["reason"].startswith("x: now int32[2], before float32[] (trace 1)")
    assert run.exit_code is None and run.summary()["program"]["finished"]  # no program exit


def test_a_run_that_ends_in_eager_mode_says_why_nothing_traced(tf, tmp_path):
    """tf.config.run_functions_eagerly(True) (a debugging line left in): the tf.functions
    run as plain Python and nothing traces; the log says so rather than only "0 traces"."""
    import agexplorer
    from agexplorer.runlog.text import text_lines

    @tf.function
    def double(x):
        return x * 2

    log = str(tmp_path / "eager.agxlog")
    try:
        with agexplorer.recording(log) as run:
            tf.config.run_functions_eagerly(True)
            double(tf.constant(2.0))
    finally:
        tf.config.run_functions_eagerly(False)
    summary = run.summary()
    assert summary["functions"] == []
    (note,) = [n for n in summary["notes"] if "run_functions_eagerly(True)" in n]
    assert "traced nothing then" in note
    assert note in " ".join(" ".join(text_lines(summary, width=400)).split())
    with agexplorer.recording(str(tmp_path / "graph.agxlog")) as run:
        double(tf.constant(2.0))
    assert not run.summary()["notes"] and len(run.summary()["functions"]) == 1


@pytest.mark.tf
def test_a_retrace_names_the_earlier_trace_by_its_number_among_the_functions(tmp_path):
    import tensorflow as tf

    import agexplorer

    @tf.function
    def scale(x, n):
        return x * n

    @tf.function
    def shift(x):
        return x + 1.0

    with agexplorer.recording(str(tmp_path / "two.agxlog")) as run:
        scale(tf.constant(1.0), 2)  # scale's trace 1 (the run's 1st)
        shift(tf.constant(1.0))  # shift's trace 1 (the run's 2nd)
        scale(tf.constant(1.0), 3)  # scale's trace 2, against its trace 1
        scale(tf.constant(1.0), 4)  # scale's trace 3, against its trace 1 or 2
    (fn,) = [f for f in run.summary()["functions"] if f["function"].endswith("scale")]
    assert [(t["trace"], t["in_log"]) for t in fn["each_trace"]] == [(1, 1), (2, 3), (3, 4)]
    first, second = fn["retraces"]
    assert (first["trace"], first["compared_with"]) == (2, 1)
    assert first["reason"].startswith("n: now the Python int 3, before 2 (trace 1)")
    assert second["trace"] == 3 and second["compared_with"] in (1, 2)
    assert f"(trace {second['compared_with']})" in second["reason"]
    assert fn["retrace_causes"] == [{"causes": [{"name": "n", "change": "value"}], "count": 2,
                                     "traces": [2, 3], "reason": None}]


def test_a_package_module_run_as_a_file_is_told_to_run_as_a_module(tmp_path, capsys):
    # `python mypkg/train.py` fails at its relative import, as the program would; the
    # summary says why and gives the -m command, which then runs it (no TensorFlow needed).
    package = tmp_path / "mypkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text("VALUE = 7\n")
    (package / "train.py").write_text("from .utils import VALUE\n\nprint('value', VALUE)\n")
    log = str(tmp_path / "train.agxlog")
    proc = record("-o", log, str(package / "train.py"), cwd=str(tmp_path))
    assert proc.returncode == 1
    program = summary_json(log, capsys)["program"]
    assert program["cause"].startswith("train.py is a module of the package mypkg")
    assert program["fix"] == f"record it as a module, from {tmp_path}: agexplorer record -m " \
        "mypkg.train"
    proc = record("-o", log, "-m", "mypkg.train", cwd=str(tmp_path))
    assert proc.returncode == 0 and "value 7" in proc.stdout
