"""What a recorded run traced, summed up per function: as JSON and as the short text printed at exit."""

from __future__ import annotations

import os
from typing import Any

from agexplorer.runlog.log import Log

_STATEMENT_KEYS = ("file", "function", "line", "kind", "verdict", "iterations", "branch",
                   "times", "ops_created", "header", "hint", "reason", "mixed", "graph_op")
# Each trace as the program view shows it: its signature, why it traced, its ops.
_TRACE_KEYS = ("trace", "kind", "reason", "compared_with", "arguments", "op_count", "trace_s",
               "error", "reached")
_TOP = 5  # rows per section of the text summary


def summarise(log: Log) -> dict[str, Any]:
    """The ``summary --json`` object: the program, then one entry per traced function."""
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
    return {"program": {"argv": log.start.get("argv", []), "exit_code": end.get("exit_code"),
                        "wall_s": end.get("wall_s"), "finished": log.end is not None,
                        "tensorflow": log.start.get("tensorflow")},
            "functions": ordered, "notes": list(log.notes)}


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
