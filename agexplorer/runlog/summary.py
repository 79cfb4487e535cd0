"""What a recorded run traced, summed up per function: as JSON and as the short text printed at exit."""

from __future__ import annotations

import os
from typing import Any

from agexplorer.model.errors import AgxError
from agexplorer.runlog.log import Log

_STATEMENT_KEYS = ("file", "function", "line", "kind", "verdict", "iterations", "branch",
                   "times", "ops_created", "header", "hint", "reason", "mixed", "graph_op")
# Each trace as the program view shows it: its signature, why it traced, its ops.
_TRACE_KEYS = ("trace", "kind", "reason", "compared_with", "arguments", "op_count", "trace_s",
               "error", "reached")
_TOP = 5  # rows per section of the text summary


def summarise(log: Log) -> dict[str, Any]:
    """The ``summary --json`` object: the program, then one entry per traced function; a
    record with a field of the wrong type is one sentence naming it (exit 2)."""
    check_records(log)
    end = log.end or {}
    functions: dict[tuple[str, str, int], dict[str, Any]] = {}
    for trace in log.traces:
        key = (trace.get("file", ""), trace.get("function", ""), trace.get("line", 0))
        entry = functions.get(key)
        if entry is None:
            entry = functions[key] = {
                "file": key[0], "function": key[1], "line": key[2],
                "user": bool(trace.get("user")), "traces": 0, "trace_s": 0.0, "op_count": 0,
                "retraces": [], "signatures": [], "each_trace": [], "errors": [],
                "statements": []}
        entry["traces"] += 1
        entry["trace_s"] += float(trace.get("trace_s") or 0.0)
        entry["op_count"] += int(trace.get("op_count") or 0)
        entry["signatures"].append(signature(trace))
        entry["each_trace"].append({k: trace.get(k) for k in _TRACE_KEYS})
        if trace.get("kind") == "retrace":
            entry["retraces"].append({"trace": trace.get("trace"), "reason": trace.get("reason"),
                                      "compared_with": trace.get("compared_with")})
        if trace.get("error"):
            entry["errors"].append({"trace": trace.get("trace"), "error": trace["error"]})
        for statement in trace.get("statements") or []:
            row = {k: statement.get(k) for k in _STATEMENT_KEYS}
            row["trace"] = trace.get("trace")
            row["trace_op_count"] = trace.get("op_count") or 0
            row["trace_s"] = trace.get("trace_s") or 0.0
            entry["statements"].append(row)
    ordered = sorted(functions.values(), key=lambda f: -f["trace_s"])
    for entry in ordered:
        entry["trace_s"] = round(entry["trace_s"], 6)
    return {"program": {"argv": log.start.get("argv") or [], "exit_code": end.get("exit_code"),
                        "wall_s": end.get("wall_s"), "finished": log.end is not None,
                        # Ctrl-C (a log written before this field: false), and what raised
                        "interrupted": bool(end.get("interrupted")),
                        "exception": end.get("exception"),
                        "tensorflow": log.start.get("tensorflow")},
            "functions": ordered, "notes": list(log.notes)}


# What each field a reader uses may hold, by record (null is always allowed): a log that
# another tool wrote or a hand edit broke is refused in one sentence, not met as a crash.
_TEXT, _WHOLE, _NUMBER, _FLAG = (str,), (int,), (int, float), (bool,)
_LIST, _OBJECT = (list,), (dict,)
_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "start": {"argv": _LIST, "tensorflow": _TEXT},
    "end": {"exit_code": _WHOLE, "wall_s": _NUMBER, "raised": _FLAG, "interrupted": _FLAG,
            "exception": _TEXT},
    "trace": {"trace": _WHOLE, "file": _TEXT, "function": _TEXT, "line": _WHOLE, "kind": _TEXT,
              "reason": _TEXT, "compared_with": _WHOLE, "arguments": _LIST, "trace_s": _NUMBER,
              "op_count": _WHOLE, "error": _TEXT, "statements": _LIST, "reached": _LIST},
    "argument": {"name": _TEXT, "kind": _TEXT, "text": _TEXT, "dtype": _TEXT, "shape": _LIST},
    "statement": {"file": _TEXT, "function": _TEXT, "line": _WHOLE, "kind": _TEXT,
                  "verdict": _TEXT, "iterations": _WHOLE, "branch": _TEXT, "times": _WHOLE,
                  "ops_created": _WHOLE, "header": _TEXT, "hint": _TEXT, "reason": _TEXT,
                  "mixed": _OBJECT, "graph_op": _TEXT},
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
                          ("reached", "reached")):
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
                    f"{found} where {wanted} belongs; pass a log written by `agexplorer "
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
    """Python loops that ran while tracing (unrolled), largest share of their trace's ops first."""
    loops = []
    for function in summary["functions"]:
        for row in function["statements"]:
            if row["kind"] in ("for", "while") and row["verdict"] in ("python", "mixed") \
                    and (row["iterations"] or 0) > 0:
                total = row["trace_op_count"] or 0
                share = (row["ops_created"] or 0) / total if total else 0.0
                loops.append({**row, "share": share, "share_s": share * row["trace_s"]})
    loops.sort(key=lambda r: (-(r["ops_created"] or 0), -(r["iterations"] or 0)))
    seen: set[tuple[Any, ...]] = set()
    largest = []  # one row per loop: its largest trace
    for row in loops:
        key = (row["file"], row["function"], row["line"])
        if key not in seen:
            seen.add(key)
            largest.append(row)
    return largest


def _where(file: str, line: int) -> str:
    return f"{os.path.basename(file)}:{line}" if file else f"line {line}"


def text_lines(summary: dict[str, Any]) -> list[str]:
    """The short summary: functions by trace time, retraces and why, the largest unrolled loops."""
    functions = summary["functions"]
    traces = sum(f["traces"] for f in functions)
    lines = [f"agexplorer record: {traces} trace{'s' * (traces != 1)} of "
             f"{len(functions)} function{'s' * (len(functions) != 1)}"]
    if summary["program"].get("interrupted"):
        lines.append("the run was interrupted (Ctrl-C, KeyboardInterrupt): what it traced "
                     "until then is below.")
    if functions:
        lines.append("functions by trace time:")
    for f in functions[:_TOP]:
        mine = "" if f["user"] else " (library)"
        lines.append(f"  {f['trace_s']:8.3f} s  {f['traces']} trace{'s' * (f['traces'] != 1)}  "
                     f"{f['op_count']:>6} ops  {f['function']} ({_where(f['file'], f['line'])})"
                     f"{mine}")
    retraces = [(f, r) for f in functions for r in f["retraces"]]
    if retraces:
        lines.append("retraces:")
    for f, r in retraces[:_TOP]:
        lines.append(f"  {f['function']}, trace {r['trace']}: {r['reason']}")
    loops = unrolled(summary)
    if loops:
        lines.append("largest unrolled loops:")
    for row in loops[:_TOP]:
        lines.append(f"  {row['function']} ({_where(row['file'], row['line'])}) {row['kind']}: "
                     f"unrolled {row['iterations']}x, {row['ops_created']} ops "
                     f"({row['share']:.0%} of its trace's ops, about {row['share_s']:.3f} s of "
                     "its trace time)")
        if row.get("hint"):
            lines.append(f"    fix: {row['hint']}")
    lines.extend(f"note: {note}" for note in summary.get("notes", []))
    return lines
