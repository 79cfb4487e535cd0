"""`agexplorer doctor RUN.agxlog`: the doctor on a recorded run, each function with its recorded call.

Every function of the user's code the run traced (its own tf.functions) or reached (the layers
and helpers Keras's and tf.data's tf.functions called) is examined once, with the call of the
first trace that recorded its arguments: tensors as zeros of their recorded dtype and shape,
Python values as recorded, a method's instance built with its recorded constructor
arguments. Nothing is guessed: a function whose call or instance the log does not hold is
listed as not examined, with why.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from agexplorer.cli.common import command_worker, worker_json
from agexplorer.model.errors import AgxError
from agexplorer.model.text import plural

if TYPE_CHECKING:
    from agexplorer.model.doctor import DoctorReport


@dataclass(frozen=True)
class Examined:
    """One function of the run to examine: its target, its recorded call and instance."""

    file: str
    function: str
    arguments: list[dict]
    init: str | None  # a method's constructor arguments ("" : its defaults); None: none known
    instance: bool  # it was recorded with an instance (a method called on an object)
    source: str  # where the call was recorded: "trace 2 of train_step"
    init_note: str | None = None
    reached: bool = False  # the run reached it from another one's trace, never traced it alone
    # every trace that reached it ran it as plain Python (code AutoGraph does not convert
    # called it: a Keras 3 layer's call and what it calls)
    unconverted: bool = False


def targets(summary: dict[str, Any]) -> list[Examined]:
    """The functions of the user's code in a summary, each once, with its first recorded
    call, first recorded first: in the order the run traced them (the summary lists the
    functions by their tracing time, which the machine's load can reorder: a loaded run
    examined a Keras layer with predict's call instead of fit's, made before it)."""
    found: dict[tuple[str, str], Examined] = {}
    alone: set[tuple[str, str]] = set()  # traced on their own (their own tf.function's traces)
    converted: set[tuple[str, str]] = set()  # reached converted by some trace
    in_run = sorted(((trace.get("in_log") or 0, order, function, trace)
                     for order, function in enumerate(summary["functions"])
                     for trace in function.get("each_trace") or []),
                    key=lambda item: (item[0], item[1]))
    for _, _, function, trace in in_run:
        label = _label(function)
        where = f"trace {trace.get('trace')} of {label}"
        if function.get("user"):
            alone.add((function["file"], function["function"]))
        if function.get("user") and trace.get("arguments") is not None:
            key = (function["file"], function["function"])
            found.setdefault(key, Examined(function["file"], function["function"],
                                           trace["arguments"], None, False, where))
        for reached in trace.get("reached") or []:
            if not isinstance(reached, dict):
                continue
            key = (str(reached.get("file")), str(reached.get("function")))
            if reached.get("converted", True) is not False:
                converted.add(key)
            if "arguments" not in reached:
                continue
            found.setdefault(key, Examined(
                key[0], key[1], list(reached.get("arguments") or []), reached.get("init"),
                "init" in reached and (reached.get("init") is not None
                                       or reached.get("init_note") is not None),
                where, reached.get("init_note"), reached=True))
    return [replace(e, reached=(e.file, e.function) not in alone,
                    unconverted=(e.file, e.function) not in alone | converted)
            for e in found.values()]


def local_functions(summary: dict[str, Any]) -> list[dict[str, str]]:
    """The functions defined inside another (a map function made in ``make_ds``) through
    which a library's trace reached the user's code: each once, as not examined (a target
    is a module's function or a class's method)."""
    found: dict[tuple[str, str], dict[str, str]] = {}
    for function in summary["functions"]:
        for trace in function.get("each_trace") or []:
            for reached in trace.get("reached") or []:
                if not isinstance(reached, dict) or not reached.get("local"):
                    continue
                # main.<locals>.centred is named by Python's qualname; its outer function:
                outer = str(reached.get("function")).rpartition(".<locals>.")[0] \
                    or str(reached.get("function"))
                local = str(reached["local"])
                found.setdefault((str(reached.get("file")), local), {
                    "file": str(reached.get("file")), "function": local,
                    "why": f"it is defined inside {outer}, and a function is examined on "
                           "its own only from a module's top level or a class (its verdicts "
                           "are in `agexplorer summary LOG`)"})
    return list(found.values())


def _label(function: dict[str, Any]) -> str:
    """The traced function in the user's words: the call that made it (``ds.map(augment)``),
    else the line of the user's code it ran from (a ``for x in ds:`` in a tf.function, which
    tf.data traces as a function of its own: ``for x in ds: (train.py:24)``), else its
    name."""
    caller = function.get("called_from") or {}
    if caller.get("call"):
        return str(caller["call"])
    if caller.get("text") and caller.get("file") and caller.get("line"):
        return f"{caller['text']} ({os.path.basename(str(caller['file']))}:{caller['line']})"
    return str(function["function"].rpartition(".")[2])


def cmd_doctor_log(args: argparse.Namespace, path: str) -> int:
    """Exit 1 when something was found, 0 when clean, 2 for a log that cannot be read."""
    from agexplorer.model.doctor import DoctorReport
    from agexplorer.runlog.calls import parameter_kinds, rebuild_call
    from agexplorer.runlog.log import read_log
    from agexplorer.runlog.summary import summarise
    from agexplorer.worker.protocol import DoctorRequest

    for option in ("call", "init", "try_fix"):
        if getattr(args, option, None) is not None:
            flag = "--try" if option == "try_fix" else f"--{option}"
            raise AgxError("bad-arguments", f"a recorded run is examined with its recorded "
                           f"calls: drop {flag} (or pass FILE::FUNC instead of the log).")
    summary = summarise(read_log(path))
    examined = targets(summary)
    reports: list[DoctorReport] = []
    skipped: list[dict[str, str]] = local_functions(summary)
    worker = command_worker(args) if examined else None
    for item in examined:
        why = _why_not(item, parameter_kinds)
        call, notes = None, []
        if why is None:
            kinds = parameter_kinds(item.file, item.function)
            assert kinds is not None
            rebuilt = rebuild_call(item.arguments, *kinds,
                                   advice="examine it with doctor FILE::FUNC --call ARGS")
            why, call, notes = rebuilt.problem, rebuilt.text, rebuilt.notes
        if why is not None or call is None or worker is None:
            skipped.append({"file": item.file, "function": item.function,
                            "why": why or "its call could not be rebuilt"})
            continue
        request = DoctorRequest(f"{item.file}::{item.function}", call=call,
                                init=item.init if item.instance else None,
                                call_origin=f"the recorded {item.source}",
                                reached=item.reached, unconverted=item.unconverted)
        try:
            report = worker.request(request, what=f"diagnosing {item.function}",
                                    path=item.file)
        except AgxError as exc:
            report = DoctorReport(file=item.file, function=item.function, call=call,
                                  error=exc)
        # what the call made up stands beside it ("x's unknown dimensions are 1")
        reports.append(replace(report, call_origin="; ".join([f"recorded: {item.source}",
                                                              *notes])))
    if args.json:
        data = {"log": path, "functions": [r.to_dict() for r in reports],
                "not_examined": skipped}
        print(worker_json(data, worker) if worker is not None else _plain_json(data))
    else:
        from agexplorer.render.doctor import render_doctor

        print(f"{os.path.basename(path)}: {plural(len(reports), 'function')} of your code "
              "examined with the calls the run "
              "recorded")
        render_doctor(reports, width=args.width)
        for skip in skipped:
            print(f"not examined: {skip['function']} ({os.path.basename(skip['file'])}): "
                  f"{skip['why']}")
    return 1 if any(r.findings for r in reports) else 0


def _why_not(item: Examined, parameter_kinds: Any) -> str | None:
    if not os.path.isfile(item.file):
        return f"{item.file} no longer exists; restore it or record the run again"
    if parameter_kinds(item.file, item.function) is None:
        return (f"{os.path.basename(item.file)} holds no function {item.function} any more; "
                "record the run again")
    if item.instance and item.init is None:
        method = item.function.rpartition(".")[2]
        why = item.init_note or "its instance's constructor arguments were not recorded"
        return (f"{why}; in IPython or Jupyter, agexplorer.explain(obj.{method}, ...) explores "
                "it on your own object (explain's arguments are the method's)")
    return None


def _plain_json(data: dict) -> str:
    import json

    return json.dumps({**data, "warnings": []}, indent=2)
