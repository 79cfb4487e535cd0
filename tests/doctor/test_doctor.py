"""The pitfall doctor: every check flags its must-flag cases and stays quiet on the rest."""

from __future__ import annotations

import json
import pickle

import pytest

from agexplorer import doctor as doctor_module
from agexplorer.doctor.checks import diagnose, doctor_targets, module_findings
from agexplorer.model.doctor import CODES
from conftest import fixture, run_cli, sample

CASES = fixture("doctor_cases.py")
with open(CASES, encoding="utf-8") as _fh:
    _LINES = _fh.read().splitlines()


def line_of(snippet: str) -> int:
    """The 1-based line of the fixture that holds ``snippet`` (exactly one must)."""
    [line] = [i for i, text in enumerate(_LINES, 1) if snippet in text]
    return line


def diagnosed(report, target: str, call: str | None = None):
    return diagnose(target, call, report=report(target, call))


def found(report, target: str, call: str | None = None) -> set[tuple[str, int]]:
    return {(f.code, f.line) for f in diagnosed(report, target, call).findings}


MUST_FLAG = {
    "prints": {("AGX001", 'print("tracing", x)')},
    "bumps_global": {("AGX002", "total += 1")},
    "appends_in_staged_loop": {("AGX003", "out.append(i * 2)")},
    "appends_in_unrolled_loop": {("AGX003", "rows.append(x * i)"),
                                 ("AGX004", "for i in range(3):")},
    "python_range_loop": {("AGX004", "for i in range(4):")},
    "python_while": {("AGX004", "while i < 3:")},
    "untraced_loops": {("AGX004", "for i in range(3):")},
    "makes_variable": {("AGX005", "v = tf.Variable(1.0)")},
    "calls_numpy": {("AGX006", "x.numpy()")},
    "casts_tensor": {("AGX006", "int(tf.reduce_sum(x))")},
    "python_random": {("AGX007", "random.random()")},
    "numpy_random": {("AGX007", "np.random.normal()")},
    "wraps_inside": {("AGX008", "g = tf.function(helper)")},
    "nested_decorated": {("AGX008", "def inner(y):")},
    "looped_target": {("AGX008", "_looped = tf.function(looped_target)")},
    "scales": {("AGX009", "return x * k")},
    "appends_to_module_list": {("AGX002", "history.append(x * 2.0)")},
    "numpy_on_tensor": {("AGX006", "return x - np.mean(x)")},
    "Tally.step": {("AGX002", "self.calls += 1")},
    "make_shifter": {("AGX008", "def shifter(x):")},
}
MUST_NOT_FLAG = ["clean", "tf_prints", "bumps_variable", "writes_tensorarray", "applies_each",
                 "tensor_range_loop", "tensor_while", "Lazy.call", "casts_literal", "tf_random",
                 "helper", "picks", "appends_to_own_list", "numpy_on_shape", "Tally.step_var",
                 "top", "make_scaler", "scale_twice", "shift_each", "shift_looped"]


def _line(snippet: str, function: str) -> int:
    """The first line after ``def function(`` that holds ``snippet``."""
    start = line_of(f"def {function.rpartition('.')[2]}(")  # a method: its own name
    return next(i for i, t in enumerate(_LINES, 1) if i > start and snippet in t)


@pytest.mark.parametrize("function", sorted(MUST_FLAG))
def test_each_check_flags_its_case_at_the_users_line(report, function):
    expected = {(code, _line(snippet, function)) for code, snippet in MUST_FLAG[function]}
    assert found(report, f"{CASES}::{function}") == expected


@pytest.mark.parametrize("function", MUST_NOT_FLAG)
def test_functions_without_pitfalls_get_no_finding(report, function):
    assert found(report, f"{CASES}::{function}") == set()


def test_every_fixture_function_is_covered():
    assert set(doctor_targets(CASES)) == set(MUST_FLAG) | set(MUST_NOT_FLAG)


CLEAN_SAMPLES = [
    ("s4_1_eager_vs_graph.py", "matmul_static", None),
    ("s4_1_eager_vs_graph.py", "matmul_eager", None),
    ("s4_2_tracing.py", "simple_func", None),
    ("s4_3_input_signature.py", "process_batch", None),
    ("s4_4_autograph.py", "dynamic_loop", None),
    ("s4_4_autograph.py", "conditional_function", None),
    ("s4_5_concrete_function.py", "add_func", None),
    ("s4_6_keras_model.py", "MyModel.call", None),
    ("s4_7_pitfalls.py", "increment_var", None),
    ("s4_7_pitfalls.py", "build_tensorarray", None),
    ("s5_training.py", "train_step_graph", None),
    ("s6_2_bad_loop.py", "fixed_loop", None),
    ("s6_2_bad_loop.py", "tf_range_loop", "tf.constant(5)"),
    ("s7_3_homework.py", "train_step", None),
]


@pytest.mark.parametrize(("name", "function", "call"), CLEAN_SAMPLES)
def test_clean_samples_get_no_finding(report, name, function, call):
    assert found(report, f"{sample(name)}::{function}", call) == set()


@pytest.mark.parametrize(("name", "function", "expected"), [
    ("s4_2_tracing.py", "show_trace", {("AGX001", 19)}),
    ("s4_7_pitfalls.py", "increment", {("AGX002", 18)}),
    ("s4_7_pitfalls.py", "build_list", {("AGX003", 41)}),
    ("s6_2_bad_loop.py", "bad_loop", {("AGX004", 18), ("AGX009", 18)}),
    ("s6_2_bad_loop.py", "range_loop", {("AGX004", 38), ("AGX009", 38)}),
    ("s6_2_bad_loop.py", "tf_range_loop", {("AGX009", 47)}),  # AGX_CALLS passes the int 5
])
def test_the_lessons_pitfalls_are_found(report, name, function, expected):
    assert found(report, f"{sample(name)}::{function}") == expected


def test_unrolled_loop_names_the_count_and_ops_per_iteration(report):
    [loop, scalar] = diagnosed(report, f"{sample('s6_2_bad_loop.py')}::range_loop").findings
    assert loop.basis == "trace" and "unrolled 5 times" in loop.message
    assert "2 ops copied 5 times (10 ops)" in loop.message
    assert "tf.range(n)" in loop.fix
    assert scalar.subject == "n" and "the Python int 5" in scalar.message
    assert loop.rewrite and scalar.rewrite


def test_a_failed_trace_keeps_findings_and_reports_the_error(report):
    d = diagnosed(report, f"{sample('s4_7_pitfalls.py')}::build_list")
    assert not d.traced and d.error is not None and d.error.kind == "trace-failed"
    [f] = d.findings
    assert "staged as a tf.while_loop" in f.message and "made tracing fail" in f.message


def test_without_a_trace_only_literal_ranges_are_flagged_and_said_unconfirmed(report):
    d = diagnosed(report, f"{CASES}::untraced_loops")
    assert not d.traced and d.error.kind == "needs-arguments"
    [f] = d.findings
    assert f.basis == "static" and "not confirmed" in f.message and "range(3)" in f.message


def test_python_number_arguments_depend_on_the_call(report):
    target = f"{CASES}::scales"
    assert found(report, target, "tf.constant([1.0]), tf.constant(3.0)") == set()
    [f] = diagnosed(report, target, "tf.constant([1.0]), N").findings  # N = 4 in the module
    assert (f.code, f.subject) == ("AGX009", "k") and "the Python int 4" in f.message


def test_print_message_quotes_what_tracing_printed(report):
    [f] = diagnosed(report, f"{sample('s4_2_tracing.py')}::show_trace").findings
    assert f.basis == "trace" and "'Tracing! (Python print)'" in f.message
    assert f.rewrite == "print(...) -> tf.print(...)"


def test_module_level_loops_making_tf_functions():
    with open(CASES, encoding="utf-8") as fh:
        [f] = module_findings(fh.read())
    assert (f.code, f.line, f.subject) == ("AGX008", line_of("_looped = tf.function"),
                                           "looped_target")


def test_report_is_picklable_json_ready_and_sorted(report):
    d = diagnosed(report, f"{sample('s6_2_bad_loop.py')}::range_loop")
    again = pickle.loads(pickle.dumps(d))
    data = json.loads(json.dumps(again.to_dict()))
    assert set(data) >= {"target", "file", "function", "traced", "error", "findings", "call"}
    assert data["target"].endswith("s6_2_bad_loop.py::range_loop") and data["traced"] is True
    for f in data["findings"]:
        assert set(f) >= {"code", "line", "message", "why", "fix", "rewrite", "title"}
        assert f["why"] == CODES[f["code"]][1]
    assert [f["line"] for f in data["findings"]] == sorted(f["line"] for f in data["findings"])


def test_the_code_table_is_documented():
    for code in CODES:
        assert code in doctor_module.__doc__


def test_worker_handler_analyses_an_unsaved_buffer(tf):
    from agexplorer.worker.protocol import DoctorRequest
    from agexplorer.worker.server import Context, LastReport, handle_doctor

    path = sample("s4_2_tracing.py")
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    buffer = text.replace('    return x ** 2 + 2 * x + 1',
                          '    print("unsaved")\n    return x ** 2 + 2 * x + 1')
    d = handle_doctor(DoctorRequest(target=f"{path}::simple_func", source=buffer),
                      Context(lambda p: None, LastReport()))
    assert d.file == path
    assert [(f.code, f.line) for f in d.findings] == [("AGX001", 13)]


# -- the command line (each starts a worker: kept few) ----------------------------------

@pytest.mark.tf  # its doctor loads TensorFlow in a worker
def test_cli_doctor_json_on_the_pitfalls_sample():
    result = run_cli("doctor", "samples/s4_7_pitfalls.py", "--json")
    assert result.returncode == 1, result.stderr  # something was found, as a linter says
    data = json.loads(result.stdout)
    by_name = {r["function"]: [(f["code"], f["line"]) for f in r["findings"]]
               for r in data["functions"]}
    assert by_name == {"increment": [("AGX002", 18)], "increment_var": [],
                       "build_list": [("AGX003", 41)], "build_tensorarray": []}
    [failed] = [r for r in data["functions"] if r["error"]]
    assert failed["function"] == "build_list" and failed["traced"] is False


@pytest.mark.parametrize(("argv", "words"), [
    (["doctor", "samples/nope.py"], "no such file"),
    (["doctor", "samples/s6_2_bad_loop.py::range_loop", "--apply"], "--try"),
    (["doctor", "samples/s6_2_bad_loop.py", "--try", "AGX004"], "needs one function"),
    (["doctor", "samples/s6_2_bad_loop.py::range_loop", "--try", "loop"], "code"),
])
def test_cli_bad_input_is_one_sentence_and_exit_2(argv, words):
    result = run_cli(*argv, timeout=60)
    assert result.returncode == 2
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
