"""Hand-made records for the one-page summaries' tests: a file of two functions, one failing."""

from __future__ import annotations

from agexplorer.model.doctor import DoctorReport, Finding
from agexplorer.model.errors import AgxError
from agexplorer.model.inventory import Inventory, OpInfo
from agexplorer.model.lab import ModeRun, RunLab
from agexplorer.model.report import Report, Verdict
from agexplorer.render.page import FilePage, FunctionPage

FILE = "/abs/train.py"
HOSTILE = "<script>alert('x')</script>"
SOURCE = (
    "@tf.function\n"
    "def train(n):\n"
    "    s = tf.constant(0)\n"
    "    for i in range(n):\n"
    "        s += i\n"
    "    while s < 100:\n"
    "        s += 1\n"
    "    if n > 1000:\n"
    f"        print(\"{HOSTILE} | a ``` fence\")\n"
    "    return s\n"
)


def _verdict(line: int, kind: str, header: str, verdict: str, ops: int, **more) -> Verdict:
    return Verdict(kind=kind, line=line, header=header, verdict=verdict,
                   graph_op=more.pop("graph_op", None), iterations=more.pop("iterations", None),
                   branch=more.pop("branch", None), ops_created=ops,
                   reason=more.pop("reason", f"{kind} at {line}"), hint=more.pop("hint", None),
                   file=FILE, function="train", **more)


def report() -> Report:
    """``train``: a loop unrolled 5 times (10 of 20 ops), a staged while, an unreached if."""
    ops = [OpInfo(f"op{i}", "AddV2", 14 if i < 10 else 16, "train", "CPU:0", [], file=FILE)
           for i in range(20)]
    return Report(file=FILE, function="train", source=SOURCE, first_line=10, end_line=19,
                  decorated=True, call="5", call_origin="AGX_CALLS",
                  statements=[
                      _verdict(13, "for", "for i in range(n):", "python", 10, iterations=5,
                               hint="iterate over tf.range(n) instead"),
                      _verdict(15, "while", "while s < 100:", "staged", 6, graph_op="While"),
                      _verdict(17, "if", "if (n > 1000) | flag:", "unreached", 0),
                  ],
                  inventory=Inventory(ops=ops))


def lab() -> RunLab:
    runs = {"eager": ModeRun(ok=True, result="int32[] 100", first_call_s=0.002, median_s=3e-4,
                             calls=900),
            "graph": ModeRun(ok=True, result="int32[] 100", first_call_s=0.05, median_s=1e-4,
                             calls=2000, tracing_count=2)}
    return RunLab(device="/device:CPU:0", runs=runs, speedup={"graph": 3.0},
                  results_match=True, tracing_count=2, retrace_reason="signature")


def finding() -> Finding:
    return Finding(code="AGX004", line=13, message="a Python range loop unrolls into the graph",
                   why="range(n) with a Python n runs while tracing", fix="use tf.range(n)")


def page() -> FilePage:
    """The file page: ``train`` analysed, ``broken`` failed, ``needs_args`` skipped."""
    good = FunctionPage(FILE, "train", report=report(), lab=lab(),
                        doctor=DoctorReport(FILE, "train", traced=True, findings=[finding()]))
    bad = FunctionPage(FILE, "broken", error="ValueError: the shapes | differ (train.py:30)")
    module = Finding(code="AGX008", line=40, message="tf.function made in a loop", why="w",
                     fix="make it once")
    return FilePage(FILE, [good, bad], skipped=["needs_args"], module_findings=[module])


def failing_report_error() -> AgxError:
    return AgxError("user-code", "ZeroDivisionError: division by zero (train.py:12)", exit_code=1)


def run_summary() -> dict:
    """What ``summarise`` makes of a run: a step traced twice, an unrolled helper loop."""
    statement = {"file": "/abs/helpers.py", "function": "normalize", "line": 7, "kind": "for",
                 "verdict": "python", "iterations": 3, "branch": None, "times": 1,
                 "ops_created": 9, "header": "for i in range(len(xs)):", "hint": "use tf.range",
                 "reason": "r", "mixed": None, "graph_op": None, "trace": 1,
                 "trace_op_count": 30, "trace_s": 0.5}
    return {"program": {"argv": ["train.py", "--epochs", "2"], "exit_code": 0, "wall_s": 3.5,
                        "finished": True, "tensorflow": "2.21.0"},
            "functions": [
                {"file": "/abs/train.py", "function": "train_step", "line": 29, "user": True,
                 "traces": 2, "trace_s": 0.75, "op_count": 60,
                 "retraces": [{"trace": 2, "reason": f"x: float32[8, 4] instead of float32[16, 4]"
                                                     f" {HOSTILE}", "compared_with": 1}],
                 "signatures": [], "each_trace": [], "errors": [], "statements": [statement]}],
            "notes": []}


def busy_summary() -> dict:
    """``summarise`` of a run that failed after 10 traces of ``train_step``: 8 retraces for a
    new Python float ``lr``, 1 for a new shape; 12 unrolled loops and one over the model's
    variables (unrolled as intended)."""
    from agexplorer.runlog.log import Log
    from agexplorer.runlog.summary import summarise

    def loop(line: int, ops: int, **more) -> dict:
        return {"file": "/abs/train.py", "function": "train_step", "line": line, "kind": "for",
                "verdict": "python", "iterations": 2, "ops_created": ops, "times": 1,
                "header": f"for k{line} in range(2):", "hint": None, "reason": "r",
                "branch": None, "mixed": None, "graph_op": None, **more}

    def trace(n: int, lr: float, rows: int, causes: list[dict]) -> dict:
        return {"trace": n, "file": "/abs/train.py", "function": "train_step", "line": 29,
                "user": True, "kind": "retrace" if causes else "first", "reason": "r",
                "compared_with": n - 1 if causes else None, "causes": causes,
                "arguments": [{"name": "x", "kind": "tensor", "text": f"float32[{rows}, 4]",
                               "dtype": "float32", "shape": [rows, 4]},
                              {"name": "lr", "kind": "python", "text": f"the Python float {lr}"}],
                "trace_s": 0.1, "op_count": 400,
                "statements": [loop(100 + i, 30 - i) for i in range(12)]
                + [loop(99, 50, intended="variables", header="for v in model.variables:")]}

    lrs = [0.1 * 0.9 ** i for i in range(9)]
    traces = [trace(1, lrs[0], 16, [])]
    traces += [trace(n, round(lrs[n - 1], 4), 16, [{"name": "lr", "change": "value"}])
               for n in range(2, 10)]
    traces.append(trace(10, round(lrs[8], 4), 8, [{"name": "x", "change": "shape"}]))
    log = Log(path="/abs/run.agxlog", start={"argv": ["train.py"], "tensorflow": "2.21.0"},
              traces=traces, end={"exit_code": 1, "wall_s": 2.0, "raised": True,
                                  "exception": "ValueError", "file": "/abs/train.py",
                                  "line": 40, "message": f"bad value {HOSTILE}"})
    return summarise(log)
