"""The retrace explainer at 80 columns: why a call traced stays readable, user text stays text."""

from __future__ import annotations

from rich.console import Console

from agexplorer.model.retrace import Argument, RetraceCall, RetraceReport
from agexplorer.render.retrace import render_retrace

REASON = ("x: now float32[40, 10], before float32[16, 10] (call 1): a new shape needs a new "
          "trace; a None dimension in input_signature, or reduce_retracing=True, lets one "
          "trace serve both")


def report() -> RetraceReport:
    """Three calls with long argument lists, as a training step's are; one raises."""
    def arguments(rows: int, lr: str) -> list[Argument]:
        return [Argument("x", "tensor", f"float32[{rows}, 10]", f"x{rows}"),
                Argument("y", "tensor", f"float32[{rows}, 1]", f"y{rows}"),
                Argument("lr", "python", lr, lr)]

    calls = [RetraceCall(1, "tf.zeros([16, 10]), tf.ones([16, 1]), lr=0.01", "traced", True, 1,
                         reason="first call", arguments=arguments(16, "the Python float 0.01")),
             RetraceCall(2, "tf.zeros([40, 10]), tf.ones([40, 1]), lr=0.01", "traced", True, 2,
                         reason=REASON, arguments=arguments(40, "the Python float 0.01")),
             RetraceCall(3, "'[/b] closes [bold]nothing'", "failed", False, 2,
                         error="call 3 raised ValueError: [/b] no [red]such[/red] thing",
                         arguments=[Argument("x", "python", "the Python str '[/b] x'", "s")])]
    return RetraceReport(file="/abs/[b]steps.py", function="train_step", decorated=True,
                         calls_origin="--call", calls=calls, tracing_count=2,
                         load_output="loading [/b] the data\n", notes=["[/i] a note"])


def rendered(width: int) -> str:
    console = Console(record=True, width=width, color_system=None)
    render_retrace(report(), console=console)
    return console.export_text()


def words(text: str) -> str:
    """The text without the table's rules and with its wrapping undone."""
    return " ".join(text.translate(str.maketrans("│┃", "  ")).split())


def test_at_80_columns_the_reason_a_call_traced_is_whole():
    text = rendered(80)
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text
    assert REASON in words(text)  # wrapped, never cut
    assert "call 3 raised ValueError: [/b] no [red]such[/red] thing" in words(text)
    # each call's text and its arguments are still there, stacked above the reason
    assert "train_step(tf.zeros([40, 10]), tf.ones([40, 1]), lr=0.01)" in words(text)
    assert "x: float32[40, 10], y: float32[40, 1], lr: the Python float 0.01" in words(text)


def test_user_text_that_looks_like_markup_is_shown_as_written():
    for width in (80, 160):
        text = words(rendered(width))
        assert "/abs/[b]steps.py::train_step" in text
        assert "train_step('[/b] closes" in text and "[bold]nothing')" in text
        assert "x: the Python str '[/b] x'" in text
        assert "loading [/b] the data" in text and "note: [/i] a note" in text


def test_a_wide_terminal_keeps_one_column_per_field():
    text = rendered(160)
    header = next(line for line in text.splitlines() if "call" in line and "┃" in line)
    assert [cell.strip() for cell in header.strip("┃ ").split("┃")] == \
        ["#", "call", "arguments", "trace", "why"]
    why = [line.split("│")[-2] for line in text.splitlines() if line.count("│") == 6]
    assert REASON in " ".join(" ".join(why).split())
