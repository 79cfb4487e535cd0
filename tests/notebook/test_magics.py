"""IPython's own InteractiveShell runs every magic: %agx, %agx doctor, %agx retrace, %%agx record,
on functions defined in its cells, and bad input as one line."""

from __future__ import annotations

import builtins
import sys

import pytest


@pytest.fixture(scope="module")
def shell(tf, tmp_path_factory):
    """An IPython shell with the extension loaded and a cell that defines the functions; what
    IPython changes in the process (``__main__``, builtins, the recursion limit) is put back."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    saved = (sys.modules.get("__main__"), sys.getrecursionlimit(), set(vars(builtins)))
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    config.InteractiveShell.ipython_dir = str(tmp_path_factory.mktemp("ipython"))
    config.InteractiveShell.colors = "NoColor"  # tracebacks as plain text
    ip = InteractiveShell.instance(config=config)
    assert ip.run_cell("%load_ext agexplorer").success
    ran = ip.run_cell(
        "import tensorflow as tf\n"
        "def f(x):\n"
        "    for i in range(5):\n"
        "        x = x + 1.0\n"
        "    return x\n"
        "x = tf.ones([3])\n", store_history=True)
    assert ran.success, ran.error_in_exec
    yield ip
    InteractiveShell.clear_instance()
    sys.modules["__main__"], _, names = saved
    sys.setrecursionlimit(saved[1])
    for name in set(vars(builtins)) - names:
        delattr(builtins, name)


def run(shell, cell):
    """(the run's result, what it displayed: mimetype -> data per output, its stdout and stderr)."""
    from IPython.utils.capture import capture_output

    with capture_output() as captured:
        result = shell.run_cell(cell, store_history=True)
    return result, [o.data for o in captured.outputs], captured.stdout, captured.stderr


def test_explain_magic_on_a_cells_function(shell, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    result, outputs, _, _ = run(shell, "%agx f(x)")
    assert result.success and result.result is None
    [shown] = outputs
    text, html = shown["text/plain"], shown["text/html"]
    assert "call: f(x)  [%agx]" in text and "unrolled x5" in text  # as written, from the cell
    assert "def f(x):" in text and "tf__f" in text  # the cell's source, converted
    assert max(len(line) for line in text.splitlines()) <= 80
    assert html.startswith('<div class="agx-page">') and "unrolled x5" in html


def test_run_option_times_it(shell):
    result, [shown], _, _ = run(shell, "%agx --run f(x)")
    assert result.success
    assert "Median time per call" in shown["text/plain"]
    assert "Timings on" in shown["text/html"]


def test_doctor_magic(shell):
    result, [shown], _, _ = run(shell, "%agx doctor f(x)")
    assert result.success
    assert "AGX004" in shown["text/plain"] and "tf.range(5)" in shown["text/plain"]
    assert "AGX004" in shown["text/html"] and "--try" not in shown["text/plain"]


def test_retrace_magic(shell):
    result, [shown], _, _ = run(shell, "%agx retrace f(x); f(tf.ones([4])); f(x)")
    assert result.success
    text = shown["text/plain"]
    assert "traced 2 times" in text and "same arguments as call 1" in text
    assert "x: now float32[4], before float32[3]" in text
    assert "<pre" in shown["text/html"] and "traced 2 times" in shown["text/html"]


RECORDED = """%%agx record
@tf.function
def step(x, n):
    for i in range(n):
        x = x * 2.0
    return x

for n in (2, 3, 3):
    y = step(x, n)
float(tf.reduce_sum(y))
"""


def test_record_magic_shows_every_trace(shell):
    result, outputs, _, _ = run(shell, RECORDED)
    assert result.success and result.result == 24.0  # the cell's last value, as IPython's
    [shown] = [o for o in outputs if "text/html" in o]
    text = " ".join(shown["text/plain"].split())
    assert "2 traces of 1 function" in text
    assert "retraces (1), by cause" in text and "n: a new Python int (3)" in text
    assert "unrolled 3x" in text
    assert "Largest unrolled loops" in shown["text/html"]
    assert shell.user_ns["step"].experimental_get_tracing_count() == 2


def test_a_cell_that_raises_shows_what_it_recorded_then_its_error(shell):
    cell = RECORDED.replace("float(tf.reduce_sum(y))", "raise ValueError('the data ran out')")
    result, outputs, stdout, _ = run(shell, cell)
    assert isinstance(result.error_in_exec, ValueError)
    [shown] = [o for o in outputs if "text/html" in o]
    assert "2 traces of 1 function" in " ".join(shown["text/plain"].split())
    assert "failed (exit status 1): ValueError" in " ".join(shown["text/plain"].split())
    assert "ValueError" in stdout and "the data ran out" in stdout  # then the traceback...
    assert "raise ValueError" in stdout and "agexplorer" not in stdout  # ...the cell's own


@pytest.mark.parametrize("cell, sentence", [
    ("%agx 42", "`42` is not a call"),
    ("%agx g(x)", "evaluating `g` raised NameError: name 'g' is not defined."),
    ("%agx f(x); f(x)", "one call at a time"),
    ("%agx --fast f(x)", "unknown option --fast"),
    ("%agx retrace f(x); len(x)", "retrace explains the calls of one function"),
    ("%agx record", "write %%agx record as the cell's first line"),
    ("%agx doctor", "doctor needs a call: write %agx doctor f(x)."),
    ("%%agx doctor\nf(x)", "write %%agx record, not %%agx doctor"),
    ("%agx len(x)", "expected a function, a tf.function, a bound method or a Keras layer"),
])
def test_bad_input_is_one_line(shell, cell, sentence):
    result, outputs, stdout, stderr = run(shell, cell)
    assert not result.success and not outputs
    assert stderr.startswith("UsageError: ") and sentence in stderr, stderr
    assert "Traceback" not in stdout + stderr and len(stderr.strip().splitlines()) == 1
