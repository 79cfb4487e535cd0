"""`agexplorer check` below the command line: its targets, a report's snapshot, the golden file."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from agexplorer.model.check import StatementSnap, TargetSnap
from agexplorer.model.errors import AgxError
from agexplorer.model.report import Report
from agexplorer.source.files import GOLDEN, read_bounded
from agexplorer.source.folders import python_files_under
from agexplorer.source.targets import list_functions, parse_source, parse_spec, read_source

DEFAULT_GOLDEN = "agexplorer.golden.json"
# Folders a walk never enters: virtual environments and installed packages are not the
# project's code (a venv is also told by its pyvenv.cfg).


@dataclass(frozen=True)
class Target:
    """One function to check: its absolute file and qualified name, its line, or why its file
    could not be read (``error``: the file is reported as a failed target)."""

    file: str
    function: str
    line: int = 0
    error: AgxError | None = None


def find_targets(paths: list[str], call: str | None = None) -> list[Target]:
    """Every function with a ready call in ``paths`` (files, folders walked, or one
    ``PATH::FUNC``); AgxError (exit 2) for a path that does not exist or a misused --call."""
    specs = [parse_spec(p) for p in paths]
    if call is not None and (len(specs) != 1 or specs[0].qualname is None):
        raise AgxError("bad-arguments", "--call gives the arguments of one function: check "
                       "a single PATH::FUNC with it.")
    targets: list[Target] = []
    for spec, given in zip(specs, paths, strict=True):
        if not os.path.exists(spec.path):
            raise AgxError("missing-file", f"{given}: no such file or folder", advice="pass Python "
                           "files, folders of them, or PATH::FUNC.")
        if spec.qualname is not None:
            targets.append(Target(spec.path, spec.qualname, _line_of(spec.path, spec.qualname)))
            continue
        files = python_files_under(spec.path) if os.path.isdir(spec.path) else [spec.path]
        for file in files:
            targets += _ready_functions(file)
    unique = {(t.file, t.function): t for t in targets}
    return sorted(unique.values(), key=lambda t: (t.file, t.line, t.function))


def _ready_functions(file: str) -> list[Target]:
    try:
        tree = parse_source(file, read_source(file))
    except AgxError as exc:  # reported as a failed target, never skipped silently
        return [Target(file, "<file>", exc.line or 0, exc)]
    return [Target(file, f.qualname, f.line) for f in list_functions(tree) if f.ready]


def _line_of(file: str, qualname: str) -> int:
    try:
        functions = list_functions(parse_source(file, read_source(file)))
    except AgxError:
        return 0  # the report says why
    return next((f.line for f in functions if f.qualname == qualname), 0)


def relative(file: str, golden: str) -> str:
    """``file`` as the golden file names it: relative to the golden file's folder, with /."""
    rel = os.path.relpath(file, os.path.dirname(os.path.abspath(golden)))
    return rel.replace(os.sep, "/")


def snapshot_of(report: Report, target: Target, golden: str, call: str | None) -> TargetSnap:
    """A report's snapshot: every statement of the target and of the functions it reached."""
    file = relative(target.file, golden)
    statements = [*report.statements, *(v for f in report.reached for v in f.statements)]
    snaps = tuple(StatementSnap(
        line=v.line, kind=v.kind, header=v.header.strip().rstrip(":").rstrip(),
        verdict=v.verdict, function=v.function or report.function,
        iterations=v.iterations if v.verdict == "python" else None, ops=v.ops_created,
        file=None if not v.file or v.file == target.file else relative(v.file, golden))
        for v in statements)
    inventory = report.inventory
    error = report.error
    return TargetSnap(file, target.function, report.first_line or target.line, call,
                      op_count=len(inventory.ops) if inventory else 0,
                      traces=len(inventory.bodies) if inventory else 0, statements=snaps,
                      error=None if error is None else _portable(error.message, target, golden),
                      error_kind=None if error is None else error.kind)


def failed(target: Target, golden: str, error: AgxError, call: str | None = None) -> TargetSnap:
    """The snapshot of a target that could not be analysed."""
    return TargetSnap(relative(target.file, golden), target.function, target.line, call,
                      error=_portable(error.message, target, golden), error_kind=error.kind)


def _portable(message: str, target: Target, golden: str) -> str:
    """The message with the target's file by its name alone: the golden file is committed and
    checked on other machines, from other folders."""
    return message.replace(target.file, os.path.basename(target.file))


def in_scope(target: TargetSnap, golden: str, paths: list[str]) -> bool:
    """Whether a golden target lies in what was checked (a given file, folder or PATH::FUNC):
    the golden targets outside it are kept by --update and not reported as gone."""
    full = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(golden)), target.file))
    for spec in map(parse_spec, paths):
        if spec.qualname is not None:
            if full == spec.path and target.function == spec.qualname:
                return True
        elif full == spec.path or full.startswith(spec.path.rstrip(os.sep) + os.sep):
            return True
    return False


def read_golden(path: str) -> Any:
    """The golden file's JSON value (an object, unless the file is something else); AgxError
    (exit 2) in one sentence when there is none or it cannot be read: "bad-golden" when it is
    not JSON (a damaged file: ``check --update`` writes it anew), else the bounded read's
    refusal (a folder, a FIFO, a device, over 20 MB)."""
    if not os.path.lexists(path):
        raise AgxError("no-golden", f"there is no golden file {path} yet: run the same check "
                       "with --update first to write it, and commit it.")
    data = read_bounded(path, GOLDEN)
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AgxError("bad-golden", f"could not read the golden file {path} "
                       f"({type(exc).__name__}: {exc})", advice="fix it or write it again with "
                       "--update.") from None
