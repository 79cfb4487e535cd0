"""What a recorded run traced, summed up per function (``summary --json``), and its unrolled loops."""

from __future__ import annotations

import os
from typing import Any

from agexplorer.model.errors import AgxError
from agexplorer.model.report import is_unrolled
from agexplorer.runlog.causes import group_causes
from agexplorer.runlog.log import Log

_STATEMENT_KEYS = ("file", "function", "line", "kind", "verdict", "iterations", "branch",
                   "times", "ops_created", "header", "hint", "reason", "mixed", "graph_op",
                   "intended", "unconverted", "call_path")
# Each trace as the program view shows it: its signature, why it traced, its ops.
_TRACE_KEYS = ("kind", "reason", "arguments", "op_count", "trace_s", "error", "reached",
               "causes")


def summarise(log: Log) -> dict[str, Any]:
    """The ``summary --json`` object: the program, then one entry per traced function; a
    record with a field of the wrong type is one sentence naming it (exit 2).

    A trace's ``trace`` is its number among its function's traces (``in_log``: among the
    run's), and so are a retrace's ``compared_with`` and a statement row's ``trace`` (its
    ``in_log`` too)."""
    check_records(log)
    end = log.end or {}
    functions: dict[tuple[Any, ...], dict[str, Any]] = {}
    ordered = sorted(log.traces, key=lambda t: t.get("trace") or 0)  # as they started
    numbers = _own_numbers(ordered)
    own = {t.get("trace"): n for t, n in zip(ordered, numbers, strict=True)}
    for trace, number in zip(ordered, numbers, strict=True):
        key = _key(trace)
        entry = functions.get(key)
        if entry is None:
            entry = functions[key] = {
                "file": key[0], "function": key[1], "line": key[2],
                "user": bool(trace.get("user")), "traces": 0, "trace_s": 0.0, "op_count": 0,
                "retraces": [], "signatures": [], "each_trace": [], "errors": [],
                "statements": [], "retrace_causes": [],
                # a library's tf.function (Keras's train step, tf.data's map): the user's
                # line that asked for it, and whether any trace reached the user's code
                "called_from": _called_from(trace), "reaches_user": bool(trace.get("user"))}
        entry["traces"] += 1
        entry["reaches_user"] = entry["reaches_user"] or bool(trace.get("reached")
                                                              or trace.get("statements"))
        entry["trace_s"] += float(trace.get("trace_s") or 0.0)
        entry["op_count"] += int(trace.get("op_count") or 0)
        entry["signatures"].append(signature(trace))
        compared = own.get(trace.get("compared_with")) if trace.get("compared_with") else None
        entry["each_trace"].append({"trace": number, "in_log": trace.get("trace"),
                                    "compared_with": compared,
                                    **{k: trace.get(k) for k in _TRACE_KEYS}})
        if trace.get("kind") == "retrace":
            entry["retraces"].append({"trace": number, "reason": trace.get("reason"),
                                      "compared_with": compared,
                                      "causes": trace.get("causes") or []})
        if trace.get("error"):
            entry["errors"].append({"trace": number, "error": trace["error"],
                                    **({"fix": trace["fix"]} if trace.get("fix") else {})})
        for statement in trace.get("statements") or []:
            row = {k: statement.get(k) for k in _STATEMENT_KEYS}
            row["trace"] = number
            row["in_log"] = trace.get("trace")  # the run's order, which ties go by
            row["trace_op_count"] = trace.get("op_count") or 0
            row["trace_s"] = trace.get("trace_s") or 0.0
            entry["statements"].append(row)
    by_time = sorted(functions.values(), key=lambda f: -f["trace_s"])
    for entry in by_time:
        entry["trace_s"] = round(entry["trace_s"], 6)
        entry["retrace_causes"] = group_causes(entry["retraces"])
    return {"program": {"argv": log.start.get("argv") or [], "cwd": log.start.get("cwd"),
                        "exit_code": end.get("exit_code"),
                        "wall_s": end.get("wall_s"), "finished": log.end is not None,
                        # Ctrl-C (a log written before this field: false), and what raised:
                        # its type, its message's first line, the user's line it came through
                        "interrupted": bool(end.get("interrupted")),
                        "raised": bool(end.get("raised")),
                        "exception": end.get("exception"), "message": end.get("message"),
                        "file": end.get("file"), "line": end.get("line"),
                        # a tensor's if in a Keras 3 layer: the root cause, and its fix
                        "cause": end.get("cause"), "fix": end.get("fix"),
                        "tensorflow": log.start.get("tensorflow")},
            "functions": by_time, "notes": list(log.notes)}


def reaches_nothing(function: dict[str, Any]) -> bool:
    """A library's function (a summary entry) none of whose traces reached the user's code:
    left out of the summary's lists (``--all`` lists it)."""
    return not function.get("user") and not function.get("reaches_user")


def asked_by(function: dict[str, Any]) -> str | None:
    """What the user wrote that asked for a library's function: the call on that line
    (``model.fit``), else the line, else the function holding it; None for the user's own
    function or one no line of the user's asked for."""
    caller = function.get("called_from") or {}
    if function.get("user") or not caller:
        return None
    return caller.get("call") or caller.get("text") or caller.get("function") or None


def untried_fixes() -> str:
    """What the summary's loop fixes are: read from each loop's code, not tried (the
    doctor tries each rewrite, with the call the run recorded)."""
    return ("These fixes are read from each loop's code, not tried: `agexplorer doctor` on "
            "the log traces each rewrite with the call the run recorded")


def loop_path(row: dict[str, Any]) -> str:
    """An unrolled loop's function after the calls that led there from the traced function
    or the user's call that asked a library for the trace: ``model.fit → Smoother.call``."""
    path = [str(site.get("function")) for site in row.get("call_path") or []
            if isinstance(site, dict)]
    return " → ".join([*path[:-1], row["function"]])


def display_name(function: dict[str, Any]) -> str:
    """A function as a page names it: the user's by its name, a library's after the user's
    call that asked for it (``model.fit → one_step_on_data``)."""
    said = asked_by(function)
    return f"{said} → {short_name(function)}" if said else function["function"]


def short_name(function: dict[str, Any]) -> str:
    """A library function's last name (``one_step_on_data``)."""
    return function["function"].rpartition(".")[2] or function["function"]


def _key(trace: dict) -> tuple[Any, ...]:
    """What one summary row counts: a function of the user's; a library's function asked
    for from one line of the user's code (each ``ds.map(fn)`` makes its own tf.function of
    tf.data's one ``wrapped_fn``; each is a row, named by the user's call)."""
    key = (trace.get("file", ""), trace.get("function", ""), trace.get("line", 0))
    caller = None if trace.get("user") else _called_from(trace)
    if caller is None:
        return key
    return (*key, caller["file"], caller["line"], caller["call"])


def _called_from(trace: dict) -> dict[str, Any] | None:
    """The user's line a library's trace was asked for from: file, function, line, text."""
    where = trace.get("called_from")
    if not isinstance(where, dict) or not isinstance(where.get("file"), str) \
            or not isinstance(where.get("line"), int):
        return None
    return {"file": where["file"], "function": str(where.get("function") or ""),
            "line": where["line"], "text": str(where.get("text") or ""),
            "call": str(where["call"]) if where.get("call") else None}


def _own_numbers(traces: list[dict]) -> list[int]:
    """Each trace's number among its function's traces (``traces`` in the order they
    started); a log that records it (``number``) is taken at its word."""
    counts: dict[tuple[Any, ...], int] = {}
    numbers = []
    for trace in traces:
        key = _key(trace)
        counts[key] = counts.get(key, 0) + 1
        number = trace.get("number")
        numbers.append(number if isinstance(number, int) else counts[key])
    return numbers


# What each field a reader uses may hold, by record (null is always allowed): a log that
# another tool wrote or a hand edit broke is refused in one sentence, not met as a crash.
_TEXT, _WHOLE, _NUMBER, _FLAG = (str,), (int,), (int, float), (bool,)
_LIST, _OBJECT = (list,), (dict,)
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "start": {"argv": _LIST, "tensorflow": _TEXT},
    "end": {"exit_code": _WHOLE, "wall_s": _NUMBER, "raised": _FLAG, "interrupted": _FLAG,
            "exception": _TEXT, "message": _TEXT, "file": _TEXT, "line": _WHOLE,
            "cause": _TEXT, "fix": _TEXT},
    "trace": {"trace": _WHOLE, "number": _WHOLE, "file": _TEXT, "function": _TEXT,
              "line": _WHOLE, "kind": _TEXT, "reason": _TEXT, "compared_with": _WHOLE,
              "arguments": _LIST, "trace_s": _NUMBER, "op_count": _WHOLE, "error": _TEXT,
              "fix": _TEXT,
              "statements": _LIST, "reached": _LIST, "causes": _LIST,
              "called_from": _OBJECT},
    "cause": {"name": _TEXT, "change": _TEXT, "relaxed": _TEXT},
    "argument": {"name": _TEXT, "kind": _TEXT, "text": _TEXT, "dtype": _TEXT, "shape": _LIST,
                 "python_type": _TEXT, "value": _TEXT, "holder": _TEXT},
    "statement": {"file": _TEXT, "function": _TEXT, "line": _WHOLE, "kind": _TEXT,
                  "verdict": _TEXT, "iterations": _WHOLE, "branch": _TEXT, "times": _WHOLE,
                  "ops_created": _WHOLE, "header": _TEXT, "hint": _TEXT, "reason": _TEXT,
                  "mixed": _OBJECT, "graph_op": _TEXT, "intended": _TEXT},
    "reached": {"file": _TEXT, "function": _TEXT, "line": _WHOLE, "op_count": _WHOLE},
}
_WANTED = {_TEXT: "a string", _WHOLE: "a whole number", _NUMBER: "a number",
           _FLAG: "true or false", _LIST: "a list", _OBJECT: "an object"}


def check_records(log: Log) -> None:
    """Raise AgxError (exit 2) naming the first record whose fields have the wrong JSON type."""
    _check(log, log.start, "start", "start record")
    argv = log.start.get("argv") or []
    if not all(isinstance(a, str) for a in argv):
        raise _malformed(log, "start record", "argv", "a list of strings", argv)
    if log.end is not None:
        _check(log, log.end, "end", "end record")
    for number, trace in enumerate(log.traces, start=1):
        where = f"{_ordinal(number)} trace record"
        _check(log, trace, "trace", where)
        for kind, key in (("argument", "arguments"), ("statement", "statements"),
                          ("reached", "reached"), ("cause", "causes")):
            for i, item in enumerate(trace.get(key) or [], start=1):
                if not isinstance(item, dict):
                    raise _malformed(log, where, f"{key}[{i}]", "an object", item)
                _check(log, item, kind, f"{where} ({kind} {i})")


def _check(log: Log, record: dict, kind: str, where: str) -> None:
    for key, types in _FIELDS[kind].items():
        value = record.get(key)
        if value is not None and not isinstance(value, types):
            raise _malformed(log, where, key, _WANTED[types], value)


def _malformed(log: Log, where: str, key: str, wanted: str, value: Any) -> AgxError:
    found = {str: "a string", bool: "true/false", int: "a number", float: "a number",
             list: "a list", dict: "an object"}.get(type(value), type(value).__name__)
    return AgxError("bad-log", f"{log.path}: the {where} is malformed: its \"{key}\" is "
                    f"{found} where {wanted} belongs", advice="pass a log written by `agexplorer "
                    "record`.", exit_code=2)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def signature(trace: dict) -> str:
    """``x: float32[16, 4], steps=3``: one trace's arguments as tracing told them apart."""
    parts = []
    for arg in trace.get("arguments") or []:
        if arg.get("kind") == "tensor":
            parts.append(f"{arg.get('name')}: {arg.get('text')}")
        else:
            parts.append(f"{arg.get('name')}={arg.get('text')}")
    return ", ".join(parts)


def unrolled(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Python loops that ran while tracing (unrolled), largest share of their trace's ops
    first; one row per loop (its largest trace). Loops unrolled as intended (over a model's
    variables: one update each) are not among them: see :func:`intended_unrolls`."""
    loops = []
    for function in summary["functions"]:
        for row in function["statements"]:
            if _unrolled(row) and not row.get("intended"):
                total = row["trace_op_count"] or 0
                share = (row["ops_created"] or 0) / total if total else 0.0
                loops.append({**row, "share": share, "share_s": share * row["trace_s"]})
    # Ties (the same loop, as large in fit's trace as in predict's) go to the trace the run
    # made first, not to the order of the functions by trace time, which the load moves.
    loops.sort(key=lambda r: (-(r["ops_created"] or 0), -(r["iterations"] or 0),
                              r.get("in_log") or 0))
    return _one_per_loop(loops)


def intended_unrolls(summary: dict[str, Any]) -> dict[str, int]:
    """How many loops were unrolled as intended, by what they loop over ("variables": 2)."""
    rows = _one_per_loop([row for function in summary["functions"]
                          for row in function["statements"]
                          if _unrolled(row) and row.get("intended")])
    counts: dict[str, int] = {}
    for row in rows:
        counts[str(row["intended"])] = counts.get(str(row["intended"]), 0) + 1
    return counts


def _unrolled(row: dict[str, Any]) -> bool:
    return is_unrolled(row["kind"], row["verdict"], row["iterations"])


def _one_per_loop(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for row in rows:
        key = (row["file"], row["function"], row["line"])
        if key not in seen:
            seen.add(key)
            kept.append(row)
    return kept


def command_line(program: dict[str, Any]) -> str:
    """A run's command line as typed where it ran: ``train.py --epochs 2`` (its script named
    from the folder it ran in; the log holds the absolute path); "" when none was recorded."""
    args = [str(a) for a in program.get("argv") or []]
    cwd = program.get("cwd")
    if args and isinstance(cwd, str) and os.path.isabs(args[0]) \
            and args[0].startswith(os.path.join(cwd, "")):
        args[0] = os.path.relpath(args[0], cwd)
    return " ".join(args)
