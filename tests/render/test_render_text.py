"""What the terminal renderings say, read back as plain text from a 100-column rich console:
built from small hand-made records (and one real report, which needs TensorFlow)."""

from __future__ import annotations

from rich.console import Console

from agexplorer.model.doctor import DoctorReport, Finding
from agexplorer.model.errors import AgxError
from agexplorer.model.lab import ModeRun, RunLab
from agexplorer.model.retrace import (
    Argument,
    Replay,
    ReplayCall,
    RetraceCall,
    RetraceReport,
)
from agexplorer.render.doctor import render_doctor
from agexplorer.render.retrace import render_retrace
from agexplorer.render.terminal import render_lab, render_report
from conftest import fixture


def _console(width: int = 100) -> Console:
    return Console(record=True, width=width, color_system=None)


def _rows(text: str) -> list[list[str]]:
    """The cells of each table row, split on the box-drawing column separators."""
    return [[cell.strip() for cell in line.strip()[1:-1].split("│")]
            for line in text.splitlines() if line.count("│") >= 3]


def _lab(**changes) -> RunLab:
    runs = {"eager": ModeRun(ok=True, result="float32[2] [1. 4.]", first_call_s=0.002,
                             median_s=3e-4, min_s=2e-4, max_s=5e-4, calls=900,
                             ran_on="/job:localhost/replica:0/task:0/device:CPU:0"),
            "graph": ModeRun(ok=True, result="float32[2] [1. 4.]", first_call_s=0.05,
                             median_s=1e-4, min_s=9e-5, max_s=2e-4, calls=2000,
                             tracing_count=1),
            "xla": ModeRun(error="XLA refused the op StringFormat", error_line=12)}
    lab = RunLab(device="/device:CPU:0", runs=runs, speedup={"graph": 3.0, "xla": None},
                 results_match=True, tracing_count=1)
    for name, value in changes.items():
        setattr(lab, name, value)
    return lab


def test_the_lab_shows_each_modes_result_and_its_timings():
    console = _console()
    render_lab(_lab(), console)
    text = console.export_text()
    assert "Runs on /device:CPU:0 (a fresh module load per mode)" in text
    rows = _rows(text)
    assert ["eager", "float32[2] [1. 4.]", "CPU:0"] in rows
    assert ["xla", "XLA refused the op StringFormat", "-"] in rows  # its failure, worded
    assert ["eager", "2.00 ms", "300.0 µs", "200.0 µs", "500.0 µs", "900", "-", "1.00x"] in rows
    assert ["graph", "50.00 ms", "100.0 µs", "90.0 µs", "200.0 µs", "2000", "1", "3x"] in rows
    assert ["xla", "-", "-", "-", "-", "0", "-", "-"] in rows
    assert "results match across modes" in text


def test_the_lab_words_a_mismatch_between_modes():
    console = _console()
    render_lab(_lab(results_match=False, mismatch="eager: int32[] 1; graph: int32[] 2"), console)
    text = " ".join(console.export_text().split())
    assert "results differ between modes: eager: int32[] 1; graph: int32[] 2" in text
    assert "results match" not in text


def _finding() -> Finding:
    return Finding(code="AGX004", line=38, message="a Python range loop unrolls into the graph",
                   why="range(n) with a Python n runs while tracing", fix="use tf.range(n)",
                   rewrite="range -> tf.range", basis="trace")


def test_a_clean_function_says_no_pitfalls_found():
    console = _console()
    render_doctor([DoctorReport(file="/abs/clean.py", function="f", traced=True)],
                  console=console)
    assert "/abs/clean.py::f: no pitfalls found" in console.export_text()


def test_an_untraced_function_with_nothing_in_its_source_is_not_called_clean():
    """Only its source was examined (a method without its instance): its loops may unroll."""
    from agexplorer.model.errors import AgxError

    console = _console()
    error = AgxError("bad-call", "Accum.call needs an instance of Accum")
    render_doctor([DoctorReport(file="/abs/layer.py", function="Accum.call", traced=False,
                                error=error)], console=console)
    text = " ".join(console.export_text().split())
    assert "no pitfalls found" not in text
    assert "Accum.call: nothing found in its source (not traced, so its loops' verdicts " \
        "are unknown)" in text and "not traced: Accum.call needs an instance" in text


def test_a_finding_shows_its_line_code_why_fix_and_the_command_to_try_it():
    console = _console()
    render_doctor([DoctorReport(file="/abs/loop.py", function="range_loop", traced=True,
                                findings=[_finding()])], console=console)
    text = console.export_text()
    assert "/abs/loop.py::range_loop: 1 finding" in text
    rows = _rows(text)
    assert rows[0] == ["38", "AGX004", "a Python range loop unrolls into the graph"]
    assert rows[1][1] == "loop unrolled while tracing"  # the code's title
    finding = " ".join(row[2] for row in rows)  # the last column, its wrapped lines joined
    assert "why: range(n) with a Python n runs while tracing" in finding
    assert "fix: use tf.range(n)" in finding
    assert "try: agexplorer doctor /abs/loop.py::range_loop --try AGX004" in finding


def test_a_function_that_did_not_trace_says_why():
    console = _console()
    error = AgxError("trace-failed", "tracing f failed at /abs/bad.py:3 (TypeError: no).")
    render_doctor([DoctorReport(file="/abs/bad.py", function="f", error=error)], console=console)
    assert "not traced: tracing f failed at /abs/bad.py:3 (TypeError: no)." in \
        " ".join(console.export_text().split())


def test_the_retrace_table_says_which_calls_traced_and_why():
    calls = [RetraceCall(1, "tf.constant(1)", "traced", True, 1, reason="the first call",
                         arguments=[Argument("x", "tensor", "int32[]", "k1")]),
             RetraceCall(2, "tf.constant(2)", "reused", False, 1,
                         reused_because="same kinds of arguments as call 1",
                         arguments=[Argument("x", "tensor", "int32[]", "k1")]),
             RetraceCall(3, "3", "traced", True, 2, reason="x is a Python int: a new trace "
                         "per value", arguments=[Argument("x", "python", "the Python int 3",
                                                          "k3")])]
    report = RetraceReport(file="/abs/r.py", function="f", decorated=True, calls_origin="--call",
                           calls=calls, tracing_count=2)
    console = _console()
    render_retrace(report, console=console)
    text = console.export_text()
    assert "3 calls (from --call), traced 2 times" in text
    rows = _rows(text)
    assert ["1", "f(tf.constant(1))", "x: int32[]", "traced", "the first call"] in rows
    assert ["2", "f(tf.constant(2))", "x: int32[]", "reused",
            "same kinds of arguments as call 1"] in rows
    assert any(row[:4] == ["3", "f(3)", "x: the Python int 3", "traced"] for row in rows)


def test_a_real_report_lists_a_verdict_per_loop(report):
    console = _console()
    render_report(report(f"{fixture('control_flow.py')}::python_for", "3"), console=console)
    text = console.export_text()
    assert "Control flow: what AutoGraph did with each if/for/while" in text
    verdicts = [row for row in _rows(text) if len(row) == 5 and row[0].isdigit()]
    assert verdicts and verdicts[0][2] == "unrolled x3"  # a Python range loop is unrolled


def _slow_lab() -> RunLab:
    """Timings of nine columns each (``178.20 ms``), and a mode that printed."""
    lab = _lab()
    for run in lab.runs.values():
        if run.ok:
            run.first_call_s = run.median_s = run.min_s = run.max_s = 0.1782
            run.printed_lines, run.printed = 2, [("[b]step[/b]", 2)]
    return lab


def test_the_timings_turn_a_quarter_where_a_row_per_mode_does_not_fit():
    console = _console(80)
    render_lab(_slow_lab(), console)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    rows = _rows(text)
    assert "┃ per call   ┃     eager ┃     graph ┃ xla ┃" in text  # a column per mode
    assert ["first call", "178.20 ms", "178.20 ms", "-"] in rows  # each value whole
    assert ["speed-up", "1.00x", "3x", "-"] in rows
    wide = _console(100)
    render_lab(_slow_lab(), wide)
    assert ["eager", "178.20 ms", "178.20 ms", "178.20 ms", "178.20 ms", "900", "-",
            "1.00x"] in _rows(wide.export_text())


def test_the_printed_panel_keeps_its_title_and_says_why_in_its_body():
    console = _console(80)
    render_lab(_slow_lab(), console)
    text = console.export_text()
    assert "╭─ Printed while running ─" in text
    assert "A Python print runs on every eager call, but in graph modes only while tracing." \
        in " ".join(text.replace("│", " ").split())
    assert "[b]step[/b]  x2" in text


def test_tf_print_s_lines_are_told_apart_from_python_s_per_mode():
    lab = _slow_lab()
    for run in lab.runs.values():
        if run.ok:
            run.stderr_lines, run.stderr = run.calls + 1, [("loss 0.5", run.calls + 1)]
    console = _console(80)
    render_lab(lab, console)
    text = " ".join(console.export_text().replace("│", " ").split())
    assert "tf.print is an op: it prints on every call, in every mode (to stderr)." in text
    eager = lab.runs["eager"]
    assert (f"eager: 2 lines over {eager.calls + 1} calls [b]step[/b] x2 eager, stderr: "
            f"{eager.calls + 1} lines over {eager.calls + 1} calls loss 0.5 x{eager.calls + 1}"
            ) in text


def test_the_retrace_panels_fit_80_columns_and_indent_what_each_setting_did():
    calls = [RetraceCall(1, "0.1", "traced", True, 1, reason="the first call"),
             RetraceCall(2, "0.2", "traced", True, 2, reason="lr: a new Python float")]
    note = ("no fewer traces: reduce_retracing relaxes shapes (to None dimensions), never a "
            "dtype or a Python value.")
    report = RetraceReport(file="/abs/r.py", function="f", decorated=True, calls=calls,
                           tracing_count=2, signatures=["f(lr=0.1)", "f(lr=0.2)"],
                           replays={"reduce_retracing": Replay(
                               "reduce_retracing", True, code="reduce_retracing=True",
                               note=note, summary="traced 2 times (as written: 2 times).",
                               calls=[ReplayCall("traced", True)] * 2, tracing_count=2)})
    console = _console(80)
    render_retrace(report, console=console)
    lines = console.export_text().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any(line.startswith("╭─ The traces, one concrete function each ─") for line in lines)
    assert "│ name=value: a Python value baked into the trace" in "\n".join(lines)
    start = next(i for i, line in enumerate(lines) if "no fewer traces" in line)
    assert lines[start].startswith("│   no fewer traces")
    assert lines[start + 1].startswith("│   ")  # its wrapped end stays under it


def test_the_timing_table_turns_a_quarter_then_into_lines_and_never_cuts_a_value():
    """A row per mode where it fits, a row per measure narrower, and label/value lines in a
    column of 30 (the tour's panel at 80x24): every value whole, never "…"."""
    from rich.console import Console

    from agexplorer.model.lab import ModeRun, RunLab
    from agexplorer.render.timings import TimingTable

    def run(median: float) -> ModeRun:
        return ModeRun(ok=True, first_call_s=0.1782, median_s=median, min_s=median / 2,
                       max_s=median * 2, calls=120, tracing_count=1)

    lab = RunLab(device="CPU", runs={"eager": run(0.0112), "graph": run(0.00031),
                                     "xla": run(0.00042)},
                 speedup={"graph": 36.1, "xla": 26.7})

    def shown(width: int) -> str:
        console = Console(width=width, record=True, color_system=None)
        console.print(TimingTable(lab))
        return console.export_text()

    shown_at = {width: shown(width) for width in (120, 50, 30)}
    wide, narrow, lines = shown_at[120], shown_at[50], shown_at[30]
    assert "speed-up" in wide.splitlines()[2]  # a column per measure
    assert narrow.count("speed-up") == 1 and "per call" in narrow  # a row per measure
    assert "  median: 11.20 ms" in lines and "  speed-up: 36.1x" in lines  # label: value
    for width, text in shown_at.items():
        assert "…" not in text and "178.20 ms" in text
        assert max(len(line.rstrip()) for line in text.splitlines()) <= width


def test_a_report_that_was_not_traced_says_so_not_that_the_function_has_no_if():
    """A function called with nothing (it takes arguments) has no verdicts because it was not
    traced: the header said "no if/for/while" beside an `if`, and "[None]" for the origin."""
    from agexplorer.model.report import Report

    source = "def augment(x, y):\n    if tf.reduce_sum(x) > 0:\n        x = x * 2.0\n    return x\n"
    report = Report(file="train.py", function="augment", source=source, first_line=1,
                    end_line=4, error=AgxError("needs-arguments", "augment takes arguments "
                                               "(x, y); pass them with --call."))
    console = _console()
    render_report(report, console)
    text = console.export_text()
    assert "[None]" not in text and "no if/for/while" not in text
    assert "not traced: no verdicts (the error below says why)" in text


def test_a_function_autograph_refused_shows_why_where_its_code_would_be():
    """No converted code: the AutoGraph panel says what AutoGraph refused and the fix, not an
    empty box."""
    from agexplorer.model.report import Report

    note = ("/abs/pick.py:7: AutoGraph could not transform pick: a `match` statement (Python "
            "3.10), which AutoGraph does not convert; write the `match` as `if`/`elif`.")
    console = _console()
    render_report(Report(file="/abs/pick.py", function="pick", source="def pick(x):\n",
                         first_line=1, end_line=1, conversion_note=note), console=console)
    text = " ".join(console.export_text().replace("│", " ").split())
    assert "AutoGraph: tf.autograph.to_code" in text
    assert "a `match` statement (Python 3.10), which AutoGraph does not convert" in text


def test_a_failed_trace_counts_no_ops_and_says_so():
    """A trace that raised made no graph to count: each verdict's ops read "-" and a reached
    function's title says the ops were not counted, not "0 ops" (which reads as a staged loop
    that made nothing)."""
    from dataclasses import replace

    from share_records import report as sample_report

    from agexplorer.model.report import CallSite, ReachedFunction

    base = sample_report()
    error = AgxError("trace-failed", "train.py:18: tracing train raised "
                     "InaccessibleTensorError: <tf.Tensor 'while/mul:0'> is out of scope",
                     exit_code=1)
    helper = ReachedFunction(file=base.file, function="expand", first_line=30, end_line=34,
                             call_path=(CallSite("train", base.file, 18),
                                        CallSite("expand", base.file, 30)),
                             statements=(replace(base.statements[1], line=31,
                                                 function="expand", ops_created=0),))
    failed = replace(base, inventory=None, error=error, reached=[helper])
    console = _console(140)
    render_report(failed, console)
    text = console.export_text()
    ops = [row[3] for row in _rows(text) if len(row) == 5 and row[0].isdigit()]
    assert ops and set(ops) == {"-"}
    assert "expand  (" in text and "ops not counted: the trace failed" in text
    assert "0 ops" not in text


def test_verdicts_of_a_trace_that_failed_are_said_to_come_before_the_failure():
    """A return inside a staged loop: AutoGraph staged the loop, then tracing raised. The
    header said "1 staged in the graph" as if a graph was made."""
    from agexplorer.model.report import Report, Verdict

    source = ("def early(x):\n    for i in tf.range(5):\n        if x > 1.0:\n"
              "            return x\n    return x\n")
    loop = Verdict(kind="for", line=2, header="for i in tf.range(5):", verdict="staged",
                   graph_op=None, iterations=None, branch=None, ops_created=0,
                   reason="staged", hint=None)
    report = Report(file="early.py", function="early", source=source, first_line=1,
                    end_line=5, statements=[loop], call="tf.ones([2])",
                    error=AgxError("user-code-error", "early.py:2: tracing early raised "
                                   "NotImplementedError: a return statement cannot be placed "
                                   "inside this TensorFlow loop"))
    console = _console()
    render_report(report, console)
    text = console.export_text()
    assert "tracing failed (the error below); before it: 1 staged in the graph" in text
