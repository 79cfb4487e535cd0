"""The worker process: timeouts, crashes, side effects, odd results, devices, TensorBoard."""

import dataclasses
import glob
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from agexplorer.model.errors import AgxError
from agexplorer.worker.client import Worker
from agexplorer.worker.protocol import DevicesRequest, PingRequest, ReportRequest
from conftest import ROOT, fixture, run_cli

RUNS = fixture("runs.py")
pytestmark = pytest.mark.tf  # every test here talks to a TensorFlow worker


def line_of(text: str) -> int:
    """The line of the fixture that contains ``text``."""
    with open(RUNS) as fh:
        return next(i for i, line in enumerate(fh, 1) if text in line)


def lab(worker, func, call="tf.constant(2.0)", **extra):
    request = ReportRequest(f"{RUNS}::{func}", call=call, budget=0.05, **extra)
    return worker.request(request, path=RUNS)["lab"]


def test_three_modes_with_timings_and_speedups(worker):
    result = lab(worker, "square")
    assert set(result.runs) == {"eager", "graph", "xla"}
    for mode, run in result.runs.items():
        assert run.ok, (mode, run.error)
        assert run.result == "float32[] 4.0"
        assert run.first_call_s > 0 and run.min_s <= run.median_s <= run.max_s
        assert run.calls >= 3
    assert result.results_match is True
    assert result.runs["graph"].tracing_count == 1 and result.tracing_count == 1
    assert result.speedup["graph"] == pytest.approx(
        result.runs["eager"].median_s / result.runs["graph"].median_s, rel=1e-2)


def test_a_hang_times_out_names_the_line_and_the_worker_recovers(worker):
    with pytest.raises(AgxError) as err:
        worker.request(ReportRequest(f"{RUNS}::hangs", call="1", budget=0.05),
                       timeout=8, path=RUNS)
    assert err.value.kind == "timeout"
    line = line_of("time.sleep(0.01)")
    assert f"timed out after 8 s while tracing hangs at {RUNS}:{line}" in err.value.message
    assert err.value.line == line
    assert lab(worker, "square").runs["eager"].ok  # a fresh worker answers


def test_a_hang_in_the_eager_run(worker):
    with pytest.raises(AgxError) as err:
        worker.request(ReportRequest(f"{RUNS}::hangs_eagerly", call="1", budget=0.05),
                       timeout=8, path=RUNS)
    assert "while running hangs_eagerly eagerly at" in err.value.message


@pytest.mark.parametrize(("func", "how"), [("exits", "exited with status 3"),
                                           ("aborts", "exited with signal 6 (SIGABRT")])
def test_a_dying_worker_is_reported_and_restarted(worker, func, how):
    with pytest.raises(AgxError) as err:
        lab(worker, func, call="1")
    assert err.value.kind == "worker-died"
    assert how in err.value.message and f"while tracing {func}" in err.value.message
    assert lab(worker, "square").results_match is True


def test_the_command_line_says_only_what_happens_after_a_worker_died():
    # It ends right after: no fresh worker starts, and none is announced.
    out = run_cli("report", f"{RUNS}::exits", "--call", "1", "--no-run")
    assert out.returncode == 1
    assert out.stderr == ("agexplorer: the TensorFlow worker exited with status 3 while "
                          "tracing exits.\n")


def test_side_effects_do_not_leak_between_modes(worker):
    fresh = lab(worker, "bumps_global")
    assert fresh.results_match is True  # each mode sees counter == 0 at its first call
    shared = lab(worker, "bumps_global", fresh=False)
    assert shared.results_match is False
    assert "eager:" in shared.mismatch and "graph:" in shared.mismatch


def test_results_that_are_not_tensors(worker):
    number = lab(worker, "python_number")
    assert number.runs["eager"].result == "3"
    assert number.runs["graph"].result == "int32[] 3"
    assert number.results_match is True
    nested = lab(worker, "nested")
    assert nested.runs["eager"].result.startswith("{'a': float32[] 2.0, 'b': (float32[] 3.0, None)")
    assert lab(worker, "empty", call="").runs["graph"].ok


def test_huge_and_unpicklable_results_are_summarised(worker):
    huge = lab(worker, "huge")
    assert huge.runs["eager"].result.startswith("float32[1000, 1000] [[1. 1. 1. ... 1. 1. 1.]")
    assert len(huge.runs["eager"].result) <= 400
    opaque = lab(worker, "unpicklable")
    assert "Opaque object" in opaque.runs["eager"].result


def test_a_mode_that_fails_does_not_stop_the_others(worker):
    result = lab(worker, "raises_in_graph_only")
    assert result.runs["eager"].ok
    assert not result.runs["graph"].ok and "running raises_in_graph_only as a graph raised" \
        in result.runs["graph"].error
    assert result.runs["graph"].error_line == line_of("np.array(x) + 1")
    assert result.results_match is None


def test_hlo_text(worker):
    result = lab(worker, "square", hlo=True)
    assert result.hlo.startswith("HloModule") and "multiply" in result.hlo


def test_unknown_device(worker):
    with pytest.raises(AgxError) as err:
        lab(worker, "square", device="GPU:7")
    assert err.value.kind == "unknown-device" and "CPU:0" in err.value.message


def test_device_choice_on_a_split_cpu():
    import os

    w = Worker(timeout=60, env={**os.environ, "AGX_LOGICAL_CPUS": "2"})
    try:
        names = [d["name"] for d in w.request(DevicesRequest())]
        assert names[-2:] == ["/device:CPU:0", "/device:CPU:1"]
        result = lab(w, "square", device="CPU:1")
        assert result.device == "/device:CPU:1"
        assert all(r.ran_on.endswith("CPU:1") for m, r in result.runs.items() if m != "eager")
    finally:
        w.close()


def test_tensorboard_logdir_holds_the_functions_graph(worker, tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    result = lab(worker, "square", tensorboard=str(tmp_path))
    assert "tensorboard --logdir" in result.tensorboard_note
    events = glob.glob(str(tmp_path / "**" / "events.out.tfevents.*"), recursive=True)
    assert events
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    graph = acc.Graph()
    ops = {node.op for node in graph.node} | {
        node.op for fn in graph.library.function for node in fn.node_def}
    assert "Mul" in ops


def test_the_cli_process_never_imports_tensorflow():
    code = ("import json, sys\n"
            "from agexplorer.cli import main\n"
            f"rc = main(['report', {RUNS + '::square'!r}, '--call', 'tf.constant(3.0)', "
            "'--json', '--budget', '0.05'])\n"
            "print(json.dumps({'rc': rc, 'tf': 'tensorflow' in sys.modules}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300).stdout
    lines = out.strip().splitlines()
    status = json.loads(lines[-1])
    assert status == {"rc": 0, "tf": False}
    report = json.loads("\n".join(lines[:-1]))
    assert report["runs"]["graph"]["result"] == "float32[] 9.0"
    assert set(report) >= {"device", "runs", "speedup", "results_match", "tracing_count"}


def test_python_print_runs_every_eager_call_but_only_while_tracing_in_graphs(worker):
    result = lab(worker, "prints")
    eager, graph = result.runs["eager"], result.runs["graph"]
    assert eager.printed == [("side effect", eager.calls + 1)]
    assert graph.printed == [("side effect", 1)] and graph.calls > 1


def test_tf_print_runs_every_call_in_every_mode_and_every_line_is_counted(worker):
    # Each line counted, though the capture keeps only 64 KB of them (it told 1215 lines
    # of 4289), and tf.print's stderr apart: it was dropped.
    result = lab(worker, "tf_prints")
    eager, graph = result.runs["eager"], result.runs["graph"]
    side = "side effect " + "." * 188  # a line is told by its first 200 characters
    assert (eager.calls + 1) * 4012 > 2 * 32 * 1024
    assert (eager.printed_lines, eager.printed) == (eager.calls + 1, [(side, eager.calls + 1)])
    assert (graph.printed_lines, graph.printed) == (1, [(side, 1)])
    for run in (eager, graph):
        assert (run.stderr_lines, run.stderr) == (run.calls + 1,
                                                  [("from the graph 2", run.calls + 1)])


def test_sys_exit_in_user_code_is_an_error_not_a_dead_worker(worker):
    answer = worker.request(ReportRequest(f"{RUNS}::calls_exit", call="1", budget=0.05),
                            path=RUNS)
    assert "SystemExit" in answer["report"].error.message
    assert not answer["lab"].runs["eager"].ok and "SystemExit" in answer["lab"].runs["eager"].error


def test_an_unsaved_buffer_is_analysed_under_the_real_path(worker):
    source = open(RUNS).read().replace("return x * x", "return x * x * x")
    answer = worker.request(ReportRequest(f"{RUNS}::square", call="tf.constant(2.0)",
                                          budget=0.05, source=source), path=RUNS)
    assert answer["report"].file == RUNS
    assert answer["lab"].runs["graph"].result == "float32[] 8.0"
    broken = source.replace("def hangs(x):", "def hangs(x:")
    with pytest.raises(AgxError) as err:
        worker.request(ReportRequest(f"{RUNS}::square", source=broken), path=RUNS)
    assert err.value.kind == "syntax-error" and err.value.message.startswith(f"{RUNS}:")


def test_the_converted_code_comes_ahead_of_the_report_when_asked_and_only_then(worker):
    # The explorer draws AutoGraph's code while the function is traced: it comes once,
    # before the reply, as the report's own code (the shadow file's path not in it).
    source = open(RUNS).read().replace("return x * x", "return x * x * x")
    request = ReportRequest(f"{RUNS}::square", call="tf.constant(2.0)", no_run=True,
                            source=source, send_conversion=True)
    order: list[str] = []
    answer = worker.request(request, path=RUNS, on_partial=order.append,
                            on_progress=lambda phase: order.append(f"phase: {phase}"))
    early = [item for item in order if not isinstance(item, str)]
    report = answer["report"]
    # its code and its map, those of the report (the shadow file's path not in the code)
    assert [(c.code, c.source_map) for c in early] == [(report.conversion.code,
                                                         report.conversion.source_map)]
    assert early[0].code.count("ag__.ld(x)") == 3 and early[0].wrapped_by is None
    assert order.index(early[0]) > order.index("phase: tracing square")  # sent as it is made
    heard: list[str] = []
    worker.request(dataclasses.replace(request, send_conversion=False), path=RUNS,
                   on_partial=heard.append)
    assert heard == []


def test_an_xla_failure_is_reported_never_fatal(worker):
    result = lab(worker, "strings", hlo=True)
    assert result.runs["eager"].ok and result.runs["graph"].ok
    assert not result.runs["xla"].ok and "running strings with XLA raised" in result.runs["xla"].error
    assert result.hlo is None and result.hlo_error.startswith("XLA could not compile strings")
    assert result.results_match is True  # eager and graph agree


HOSTILE = fixture("hostile.py")


def wait_dead(worker):
    for _ in range(200):
        if not worker.alive:
            return
        time.sleep(0.05)
    raise AssertionError("the killed worker is still alive")


def test_a_worker_killed_while_idle_is_replaced_and_the_death_noticed(worker):
    assert worker.request(PingRequest()) == "pong"
    folder = worker.tmpdir
    os.kill(worker.pid, signal.SIGKILL)
    wait_dead(worker)
    assert worker.request(PingRequest()) == "pong"  # sent to a fresh worker, never a BrokenPipeError
    notice = worker.take_notice()
    assert notice == ("the TensorFlow worker had exited with signal 9 (SIGKILL, most often the "
                      "out-of-memory killer) while idle; a fresh one was started.")
    assert worker.take_notice() is None
    assert not os.path.exists(folder) and os.path.isdir(worker.tmpdir)


def test_a_pipe_that_breaks_on_send_restarts_the_worker(worker, monkeypatch):
    assert worker.request(PingRequest()) == "pong"
    os.kill(worker.pid, signal.SIGKILL)
    wait_dead(worker)
    # as if it died between the liveness check and the send: the send itself fails
    monkeypatch.setattr(worker._proc, "poll", lambda: None)
    assert lab(worker, "square").runs["graph"].ok
    assert "signal 9 (SIGKILL" in worker.take_notice()


def test_a_worker_killed_mid_request_is_reported_and_the_next_request_works(worker):
    def kill_when_tracing(phase):
        if phase == "tracing spin" and worker.alive:
            os.kill(worker.pid, signal.SIGKILL)

    with pytest.raises(AgxError) as err:
        worker.request(ReportRequest(f"{HOSTILE}::spin", no_run=True),
                       on_progress=kill_when_tracing)
    assert err.value.kind == "worker-died"
    assert "exited with signal 9 (SIGKILL" in err.value.message
    assert "while tracing spin" in err.value.message
    assert lab(worker, "square").runs["eager"].ok
    assert worker.take_notice() is None  # reported as the request's error, not twice


def test_a_function_that_changes_directory_does_not_move_the_next_request(worker):
    relative = os.path.relpath(HOSTILE)  # to the worker's folder: the one it started in
    assert not relative.startswith("/") and os.getcwd() != "/"
    first = worker.request(ReportRequest(f"{relative}::goes_to_root", call="1", budget=0.05))
    assert first["report"].error is None and first["lab"].runs["graph"].ok
    second = worker.request(ReportRequest(f"{relative}::square", call="2", no_run=True))
    assert second["report"].error is None and second["report"].file == HOSTILE



def test_a_worker_started_from_a_short_lived_thread_outlives_it(worker):
    # The worker asks for SIGKILL when the thread that forked it ends (Linux's parent-death
    # signal is per thread); the TUI starts workers from Textual's short-lived threads.
    import threading

    worker.close()
    answers = []
    thread = threading.Thread(target=lambda: answers.append(worker.request(PingRequest())))
    thread.start()
    thread.join()
    time.sleep(0.5)  # let the thread finish in the kernel too, as a short-lived one would
    assert answers == ["pong"] and worker.alive
    assert worker.request(PingRequest()) == "pong" and worker.take_notice() is None


def test_a_final_close_ends_a_request_in_flight_and_no_worker_starts_again(tmp_path):
    # The explorer quitting while user code runs: the request waiting in a thread ends at
    # once, in one sentence, instead of seeing the worker die and starting a fresh one.
    import threading

    marker = tmp_path / "marker"
    closing = Worker(timeout=120, env={**os.environ, "AGX_TEST_MARKER": str(marker)})
    errors = []

    def ask():
        try:
            closing.request(ReportRequest(f"{HOSTILE}::spin", no_run=True))
        except AgxError as exc:
            errors.append(exc)

    thread = threading.Thread(target=ask)
    thread.start()
    for _ in range(1200):  # the worker imports TensorFlow, then spins in spin()
        if marker.exists() and marker.read_text():
            break
        time.sleep(0.1)
    assert marker.read_text() == str(closing.pid)
    folder = closing.tmpdir
    closing.close(final=True)
    thread.join(timeout=10)
    assert not thread.is_alive() and [e.kind for e in errors] == ["worker-closed"]
    assert errors[0].message == ("agexplorer is quitting: the TensorFlow worker was ended and "
                                 "answers no more requests.")
    with pytest.raises(AgxError) as err:
        closing.request(PingRequest())
    assert err.value.kind == "worker-closed"
    assert closing.pid is None and not os.path.exists(folder)


def test_a_modules_process_wide_settings_end_with_its_request(worker, tmp_path):
    """A module that turns on tf.config.run_functions_eagerly(True) and XLA's
    auto-clustering (a debugging script's first lines) changes them for its own request: in a
    warm worker the next module's calls trace as graphs again, and are not told otherwise."""
    from agexplorer.worker.protocol import RetraceRequest

    body = ("@tf.function\ndef f(x, n):\n    for _ in range(n):\n        x = x + 1\n"
            "    return x\n")
    eager = tmp_path / "eager.py"
    eager.write_text("import tensorflow as tf\n\ntf.config.run_functions_eagerly(True)\n"
                     "tf.config.optimizer.set_jit(True)\n\n\n" + body)
    plain = tmp_path / "plain.py"
    plain.write_text("import tensorflow as tf\n\n\n" + body)
    calls = ("tf.ones([2]), 3", "tf.ones([2]), 4")
    first = worker.request(RetraceRequest(f"{eager}::f", calls=calls))
    assert first.tracing_count == 2  # made with it off, and said why
    assert any("run_functions_eagerly(True)" in note for note in first.notes)
    after = worker.request(RetraceRequest(f"{plain}::f", calls=calls))
    assert after.tracing_count == 2
    assert not any("eagerly" in note for note in after.notes), after.notes
    report = worker.request(ReportRequest(f"{plain}::f", call="tf.ones([2]), 3",
                                          budget=0.05))
    assert report["report"].error is None and report["lab"].runs["graph"].ok
    assert not report["lab"].eager_setting_off
    # The run lab on the eager module: its graph and XLA modes run as graphs (they traced),
    # not as the eager calls the module's setting would make of them, and it says so.
    lab = worker.request(ReportRequest(f"{eager}::f", call="tf.ones([2]), 3",
                                       budget=0.05))["lab"]
    assert lab.eager_setting_off and lab.to_dict()["eager_setting_off"]
    assert lab.runs["graph"].tracing_count == 1 and lab.runs["xla"].tracing_count == 1
    from agexplorer.render.lab_notes import timing_notes

    assert "graph and XLA ran with it off" in " ".join(str(n) for n in timing_notes(lab))


def test_a_modules_change_of_folder_ends_with_its_request(worker, tmp_path):
    """User code that os.chdir's (at module level here) moves its own request only: the
    worker is back in its own folder for the next request (put back after the answer is
    sent, off its path), whose module sees the folder it started in."""
    away = tmp_path / "away"
    away.mkdir()
    head = "import os\nimport tensorflow as tf\n"
    tail = "\n\n@tf.function\ndef f():\n    return 1\n"
    wander = tmp_path / "wander.py"
    wander.write_text(f"{head}os.chdir({str(away)!r})\n{tail}")
    where = tmp_path / "where.py"
    where.write_text(f"{head}print('cwd=' + os.getcwd())\n{tail}")
    first = worker.request(ReportRequest(f"{where}::f", no_run=True))["report"]
    moved = worker.request(ReportRequest(f"{wander}::f", no_run=True))["report"]
    second = worker.request(ReportRequest(f"{where}::f", no_run=True))["report"]
    assert moved.error is None and first.output.startswith("cwd=")
    assert second.output == first.output and str(away) not in second.output


def test_keras_dtype_policy_and_floatx_are_put_back(tf):
    """What a module may set for the whole process in Keras (mixed precision, float64)."""
    import keras

    from agexplorer.engine.tfenv import read_settings, write_settings

    was = read_settings(tf)
    policy, floatx = str(keras.config.dtype_policy().name), keras.config.floatx()
    try:
        keras.config.set_dtype_policy("mixed_float16")
        keras.config.set_floatx("float64")
        tf.config.run_functions_eagerly(True)
    finally:
        write_settings(tf, was)
    assert (keras.config.dtype_policy().name, keras.config.floatx()) == (policy, floatx)
    assert not tf.config.functions_run_eagerly()
