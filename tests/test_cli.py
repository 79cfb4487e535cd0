"""The command line: JSON contract, readable report, and one clear sentence for each bad input."""

import json

import pytest

from agexplorer.cli import main
from conftest import fixture, run_cli, sample

CF = fixture("control_flow.py")


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_report_has_the_documented_keys(capsys, tf):
    code, out, err = run(capsys, "report", f"{sample('s6_2_bad_loop.py')}::bad_loop",
                         "--json", "--no-run")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) >= {"target", "source", "converted", "statements", "graph", "timings"}
    assert data["target"]["function"] == "bad_loop"
    assert data["source"]["first_line"] == 15
    assert all(isinstance(p, list) and len(p) == 2 for p in data["converted"]["source_map"])
    [stmt] = data["statements"]
    assert set(stmt) >= {"kind", "line", "verdict", "graph_op", "iterations", "branch",
                         "ops_created", "reason", "hint"}
    assert (stmt["kind"], stmt["line"], stmt["verdict"], stmt["iterations"]) == \
        ("while", 18, "python", 5)
    assert set(data["graph"]) >= {"op_count", "functions", "ops"}
    assert set(data["graph"]["ops"][0]) >= {"name", "type", "line", "function", "device",
                                            "outputs"}
    assert set(data["timings"]) >= {"load_s", "convert_s", "trace_s"}


def test_prints_during_trace_do_not_corrupt_json(capsys, tf):
    code, out, _ = run(capsys, "report", f"{sample('s4_2_tracing.py')}::show_trace", "--json")
    assert code == 0
    assert json.loads(out)["trace_output"] == "Tracing! (Python print)\n"


def test_terminal_report_shows_code_verdicts_and_ops(capsys, tf):
    code, out, _ = run(capsys, "report", f"{CF}::if_in_unrolled_loop",
                       "--call", "tf.constant(3), 3", "--width", "170")
    assert code == 0
    assert "tf__if_in_unrolled_loop" in out  # converted code
    assert "unrolled x3" in out and "staged x3" in out  # gutter marks
    assert "Ops by source line" in out and "StatelessIf" in out


def test_list_json(capsys):
    code, out, _ = run(capsys, "list", CF, "--json")
    assert code == 0
    names = [f["qualname"] for f in json.loads(out)["functions"]]
    assert "Scaler.scale" in names and "python_for" in names


@pytest.mark.parametrize(("argv", "kind", "needle"), [
    (["report", "nope/missing.py::f"], "missing-file", "no such file"),
    (["report", f"{CF}::no_such_function"], "unknown-function", "available: python_for"),
    (["report", f"{CF}::python_for", "--call", "1,,"], "bad-call", "not a valid Python"),
    (["report", f"{CF}::python_for", "--call", "undefined_thing"], "bad-call", "NameError"),
    (["report", f"{CF}::tensor_while"], "needs-arguments", "--call"),
    (["report", f"{CF}::raises_midway", "--call", "tf.constant([1.0, 2.0])"], "trace-failed",
     "control_flow.py:83: tracing raises_midway raised ValueError: stop here"),
])
def test_bad_input_gives_one_sentence_and_a_nonzero_exit(capsys, tf, argv, kind, needle):
    code, out, err = run(capsys, *argv, "--json")
    assert code != 0
    assert needle in err and "Traceback" not in err
    assert json.loads(out)["error"]["kind"] == kind


def test_syntax_error_and_not_python(capsys, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n    pass\n")
    code, _, err = run(capsys, "report", f"{broken}::f")
    assert code == 2 and f"{broken}:1: syntax error" in err
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nSome prose: it is not code.\n")
    code, _, err = run(capsys, "report", f"{notes}::f")
    assert code == 2 and "not look like Python" in err


def test_conversion_failure(capsys, tmp_path, tf):
    path = tmp_path / "gen.py"
    path.write_text("def gen(x):\n    for i in range(3):\n        yield x\n")
    code, _, err = run(capsys, "report", f"{path}::gen", "--call", "1")
    assert code == 1
    assert f"{path}:1: AutoGraph could not transform gen: generators are not supported" in err


def test_module_that_raises_on_load(capsys, tmp_path, tf):
    path = tmp_path / "bad_module.py"
    # f is made inside a statement after the one that raises: never made (a missing f is
    # answered statically)
    path.write_text("import tensorflow as tf\nx = 1\nraise RuntimeError('broken at import')\n"
                    "\n\nif x:\n    def f():\n        return x\n")
    code, _, err = run(capsys, "report", f"{path}::f")
    assert code == 1
    assert f"{path}:3: loading the file as a module raised RuntimeError: broken at import" in err


def test_a_program_whose_own_call_raises_is_explored_with_a_note(capsys, tmp_path, tf):
    path = tmp_path / "script.py"
    path.write_text("import tensorflow as tf\n\n\n@tf.function\ndef squares(x):\n"
                    "    return tf.add_n([v * v for v in x])\n\n\n"
                    "x = tf.constant([1.0, 2.0])\nprint(squares(x))\n")
    code, out, _ = run(capsys, "report", f"{path}::squares", "--no-run", "--json")
    data = json.loads(out)
    # no --call: the program's own call, made again with its x
    assert data["call"] == {"args": "x", "origin": "the file's call, line 10", "instance": None}
    assert data["load_note"] == (
        "loading the file, line 10 (`print(squares(x))`) raised at line 6: "
        "OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed; "
        "agexplorer went on with what the file had defined by then.")
    # the function itself, traced with the program's x, shows why
    assert code == 1 and data["error"]["line"] == 6 and data["call"]["args"] == "x"
    assert "Iterating over a symbolic `tf.Tensor`" in data["error"]["message"]


@pytest.mark.tf
def test_fresh_process_never_shows_a_traceback():
    """End to end in a new process: the exit code and stderr a shell user sees."""
    result = run_cli("report", "does/not/exist.py::f")
    assert result.returncode == 2
    assert result.stderr.startswith("agexplorer: ") and result.stderr.count("\n") == 1
    assert "exist.py: no such file" in result.stderr
    result = run_cli("report", f"{CF}::raises_midway", "--call", "tf.constant([1.0, 2.0])")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "ValueError: stop here" in result.stderr


@pytest.mark.tf
def test_retrace_json_end_to_end():
    """`agexplorer retrace` in a fresh process: each call traced or reused, and why."""
    result = run_cli("retrace", f"{sample('s6_2_bad_loop.py')}::bad_loop", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [c["traced"] for c in data["calls"]] == [True, True, False, True]
    assert "n: now the Python int 3, before 2" in data["calls"][1]["reason"]
    assert data["tracing_count"] == 3 and len(data["signatures"]) == 3
    assert data["replays"]["input_signature"]["tracing_count"] == 1


@pytest.mark.parametrize(("argv", "kind", "needle"), [
    (["nope/missing.py::f"], "missing-file", "no such file"),
    ([f"{CF}::no_such_function", "--call", "1"], "unknown-function", "available: python_for"),
    ([f"{CF}::python_for", "--call", "1", "--call", "1,,"], "bad-call", "not a valid Python"),
    ([f"{CF}::tensor_while"], "needs-arguments", "--call"),
])
def test_retrace_bad_input_gives_one_sentence_and_exit_2(capsys, tf, argv, kind, needle):
    code, out, err = run(capsys, "retrace", *argv, "--json")
    assert code == 2
    assert needle in err and "Traceback" not in err and err.count("\n") == 1
    assert json.loads(out)["error"]["kind"] == kind


def test_retrace_terminal_shows_calls_prints_and_replays(capsys, tf):
    code, out, _ = run(capsys, "retrace", f"{sample('s4_2_tracing.py')}::show_trace",
                       "--width", "160")
    assert code == 0
    assert "x: now float32[], before int32[] (call 1)" in out
    assert "Tracing! (Python print)" in out and "reused call 2" in out
    assert "reduce_retracing=True" in out and "refused by the input_signature" in out


KINDS = ("import tensorflow as tf\n\nsquare = lambda x: x * x  # noqa: E731\n\n"
         "twice = tf.function(\n    lambda x: (x\n               + x))\n\n\n"
         "class Box:\n    @staticmethod\n    def helper(n):\n        return n\n\n"
         "    @staticmethod\n    def one():\n        return tf.constant(1)\n\n"
         "    @property\n    def size(self):\n        return 3\n\n\n"
         "AGX_CALLS = {'square': '3', 'twice': 'tf.constant(2)'}\n")


def test_list_says_what_a_staticmethod_and_a_property_need(capsys, tmp_path):
    """`list` and `report` agree: helper(n) needs --call (n is not self), one() is ready,
    and a property is no function to trace (report refuses it)."""
    path = tmp_path / "kinds.py"
    path.write_text(KINDS)
    code, out, _ = run(capsys, "list", str(path))
    assert code == 0
    assert f"{path}::Box.helper  line 12  staticmethod, plain, needs --call" in out
    assert f"{path}::Box.one  line 16  staticmethod, plain, ready inputs" in out
    assert f"{path}::Box.size  line 20  property, plain, read, not called: no function to " \
           "trace" in out
    code, out, _ = run(capsys, "list", str(path), "--json")
    size = next(f for f in json.loads(out)["functions"] if f["qualname"] == "Box.size")
    assert (size["descriptor"], size["ready"]) == ("property", False)


@pytest.mark.tf
def test_a_lambda_target_shows_the_lines_of_its_lambda(capsys, tmp_path, worker, monkeypatch):
    from agexplorer.worker import client

    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    path = tmp_path / "kinds.py"
    path.write_text(KINDS)
    for name, lines, source in (("square", (3, 3), "square = lambda x: x * x"),
                                ("twice", (6, 7), "    lambda x: (x\n")):
        code, out, err = run(capsys, "report", f"{path}::{name}", "--no-run", "--json")
        assert code == 0, err
        data = json.loads(out)
        assert (data["source"]["first_line"], data["source"]["end_line"]) == lines
        assert data["source"]["code"].startswith(source)
    code, out, err = run(capsys, "report", f"{path}::Box.one", "--no-run", "--json")
    assert code == 0, err


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "0", "-1", "1e300"])
@pytest.mark.parametrize("argv", [
    ["report", "x.py::f", "--timeout"], ["report", "x.py::f", "--mode-timeout"],
    ["retrace", "x.py::f", "--timeout"], ["doctor", "x.py", "--timeout"],
    ["doctor", "x.py", "--mode-timeout"], ["compare", "x.py::f", "x.py::g", "--timeout"],
    ["compare", "x.py::f", "x.py::g", "--mode-timeout"], ["sweep", "x.py::f", "--timeout"],
    ["passes", "x.py::f", "--timeout"], ["check", "x.py", "--timeout"], ["serve", "--timeout"],
])
def test_a_timeout_that_is_not_a_finite_positive_number_is_one_sentence(capsys, monkeypatch,
                                                                         argv, value):
    """inf, nan and 1e300 reached the clock and failed inside agexplorer (exit 3)."""
    from agexplorer.cli import serve
    from agexplorer.worker import client

    for module, name in ((client, "shared_worker"), (serve, "cmd_serve")):
        monkeypatch.setattr(module, name, lambda *a, **k: pytest.fail("the command ran"))
    with pytest.raises(SystemExit) as exit_:
        main([*argv[:-1], f"{argv[-1]}={value}"])  # "=": -inf would read as an option
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert err.startswith(f"agexplorer: argument {argv[-1]}: '{value}' ") and err.count("\n") == 1


@pytest.mark.parametrize("value", ["inf", "nan", "1e300"])
def test_the_explorers_timeout_is_finite_too(capsys, monkeypatch, value):
    from agexplorer.tui import app

    monkeypatch.setattr(app.AgxApp, "run", lambda *a, **k: pytest.fail("the TUI was opened"))
    with pytest.raises(SystemExit) as exit_:
        main(["--timeout", value])
    err = capsys.readouterr().err
    assert exit_.value.code == 2  # as the commands say it (above)
    assert err.startswith(f"agexplorer: argument --timeout: '{value}' ") and err.count("\n") == 1


@pytest.mark.tf
@pytest.mark.parametrize("function, call, code", [
    ("for_creates", "3", 0), ("while_creates", "tf.constant(3)", 0),
    ("nested_creates", "tf.constant(3)", 0),
    ("creates_in_one_branch", "tf.constant(3)", 1),  # tf.function refuses it too: the user's
])
def test_a_loop_that_creates_a_name_is_reported_not_an_internal_error(capsys, worker,
                                                                       monkeypatch, function,
                                                                       call, code):
    """Such a loop's reply failed to cross from the worker: exit 3, "'Undefined' object is not
    callable"."""
    from agexplorer.worker import client

    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    got, out, err = run(capsys, "report", f"{fixture('loop_vars.py')}::{function}",
                        "--call", call, "--json", "--no-run")
    assert got == code, err
    data = json.loads(out)
    assert data["statements"] and all(s["verdict"] != "unreached" for s in data["statements"])
    if code == 0:
        assert any(v["before"] == {"python_type": "undefined", "value": ""}
                   for v in data["statements"][0]["loop_vars"])
    else:
        assert data["error"]["kind"] == "trace-failed"


@pytest.mark.parametrize("argv", [["--debug", "report", "x.py::f"], ["report", "x.py::f", "--debug"],
                                  ["report", "--debug", "x.py::f"]])
def test_debug_is_accepted_before_and_after_the_command(monkeypatch, argv):
    """The one-sentence internal error says "rerun with --debug": after the command too, the
    rerun shows agexplorer's own traceback."""
    import agexplorer.cli.commands as commands

    def broken(args):
        raise RuntimeError("a bug of agexplorer's own")

    monkeypatch.setattr(commands, "cmd_report", broken)
    with pytest.raises(RuntimeError, match="a bug of agexplorer's own"):
        main(argv)


@pytest.mark.parametrize("argv", [["list", "x.py", "--debug"], ["summary", "x.agxlog", "--debug"],
                                  ["record", "--debug", "x.py"], ["samples", "--debug"]])
def test_every_command_takes_debug(argv):
    from agexplorer.cli.table import parse

    args = parse(argv)
    assert args.debug is True and args.command == argv[0]


def test_one_table_gives_the_parser_help_and_dispatch(capsys):
    """Every command of the table is in the parser and --help, and what runs it exists;
    the parser has no command the table lacks; --help shows the explorer's own form first."""
    from agexplorer.cli.table import COMMANDS, build_parser, parse, resolve

    parser = build_parser()
    [sub] = [a for a in parser._actions if a.dest == "command"]
    assert sorted(sub.choices) == sorted(c.name for c in COMMANDS)
    assert all(callable(resolve(c.run)) for c in COMMANDS if c.run is not None)
    with pytest.raises(SystemExit):
        parser.parse_args(["--help"])
    shown = capsys.readouterr().out
    assert shown.startswith("usage: agexplorer [--timeout SECONDS] [--python PATH]")
    assert all(f"    {c.name} " in shown for c in COMMANDS)
    assert max(len(line) for line in shown.splitlines()) <= 80
    # agexplorer's own options before the command, record's program arguments kept verbatim
    args = parse(["--debug", "record", "-o", "x.agxlog", "train.py", "--epochs", "3", "-v"])
    assert (args.debug, args.output, args.script, args.args) == \
        (True, "x.agxlog", "train.py", ["--epochs", "3", "-v"])


@pytest.mark.parametrize(("argv", "said"), [
    (["--timeout", "abc", "f.py"], "argument --timeout: 'abc' is not a number of seconds"),
    (["--bogus"], "unrecognized arguments: --bogus"),
])
def test_the_explorers_bad_arguments_are_one_sentence(capsys, argv, said):
    from agexplorer.cli import main

    with pytest.raises(SystemExit) as ended:
        main(argv)
    err = capsys.readouterr().err
    assert ended.value.code == 2 and err == f"agexplorer: {said}; see `agexplorer --help`.\n"


def test_a_name_the_failed_load_never_set_is_named_with_its_line(capsys, tmp_path, tf):
    path = tmp_path / "cli_script.py"
    path.write_text("import argparse\n\nimport tensorflow as tf\n\n"
                    "parser = argparse.ArgumentParser()\n"
                    "parser.add_argument('--scale', type=float, required=True)\n"
                    "args = parser.parse_args()\n\n\n@tf.function\ndef scaled(x):\n"
                    "    return x * args.scale\n")
    code, out, _ = run(capsys, "report", f"{path}::scaled", "--call", "tf.constant(1.0)",
                       "--no-run", "--json")
    data = json.loads(out)
    assert data["load_note"].startswith(
        "loading the file, line 7 (`args = parser.parse_args()`) raised: SystemExit: 2 (its "
        "argument parser: the following arguments are required: --scale);")
    assert code == 1 and "NameError: name 'args' is not defined; `args` is set at line 7 of " \
        "the file's module-level code, which did not run while agexplorer loaded the file" \
        in data["error"]["message"]


def test_the_whole_file_doctor_leaves_out_the_program_s_main_and_says_why(capsys, tmp_path, tf):
    # main() runs the tf.function from Python: its print runs on every call and its loop is
    # the program's; read as traced code, it was told AGX001 and AGX004.
    path = tmp_path / "train.py"
    path.write_text("import tensorflow as tf\n\n\n@tf.function\ndef step(x):\n"
                    "    return x * 2.0\n\n\ndef main():\n    for i in range(3):\n"
                    "        print(step(tf.constant(float(i))))\n\n\n"
                    "if __name__ == \"__main__\":\n    main()\n")
    code, out, err = run(capsys, "doctor", str(path), "--json")
    data = json.loads(out)
    assert [f["function"] for f in data["functions"]] == ["step"]
    assert data["not_examined"] == [{"function": "main", "calls": ["step"]}]
    assert code == 0, err
    code, out, _ = run(capsys, "doctor", str(path))
    assert "main: not examined: plain Python that calls the file's tf.function step; the " \
        "program runs it" in " ".join(out.split())
    # Named, it is examined as what it is: its own lines are not (its print is no AGX001),
    # the tf.function it calls is, and the doctor says so first.
    code, out, _ = run(capsys, "doctor", f"{path}::main", "--json")
    named = json.loads(out)
    assert named["findings"] == [] and named["note"].startswith("main is no tf.function")
    code, out, _ = run(capsys, "list", str(path))
    assert f"{path}::main  line 9  function, plain, ready inputs, calls the tf.function step" \
        in out.splitlines()


def test_the_doctor_of_a_file_without_functions_says_so(capsys, tmp_path):
    path = tmp_path / "constants.py"
    path.write_text("RATE = 0.1\n")
    code, out, _ = run(capsys, "doctor", str(path))
    assert code == 0 and out == (f"{path}: no functions to examine (`agexplorer list {path}` "
                                 "shows what it holds).\n")
