"""`agexplorer check`: every ready function's verdicts, op and function-graph counts against a golden file."""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agexplorer.cli.options import add_python, positive
from agexplorer.model.errors import AgxError
from agexplorer.model.text import plural

if TYPE_CHECKING:
    from agexplorer.check.run import Target
    from agexplorer.cli.common import CommandWorker
    from agexplorer.model.check import Snapshot, TargetSnap


def add_check_parser(sub: argparse._SubParsersAction) -> None:
    """The ``check`` command's arguments."""
    check = sub.add_parser("check", help="compare every ready function's verdicts, op count "
                           "and function graphs with a golden file (for CI); exit 1 on a "
                           "change")
    check.add_argument("paths", nargs="+", metavar="PATH", help="Python files, folders "
                       "(walked; hidden folders, virtual environments and site-packages "
                       "skipped) or one PATH::FUNC")
    check.add_argument("--golden", metavar="FILE", default=None, help="the golden file "
                       "(default: agexplorer.golden.json in the current folder)")
    check.add_argument("--update", action="store_true", help="write the golden file from "
                       "this run instead of comparing")
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.add_argument("--op-tolerance", type=_tolerance, default=(0.0, False), metavar="N",
                       help="allow an op count to move by N ops, or by N%% (default 0)")
    check.add_argument("--format", choices=("text", "github"), default="text",
                       help="github: GitHub Actions annotations (::error file=F,line=L::...)")
    check.add_argument("--call", metavar="ARGS", help="call arguments of a single PATH::FUNC, "
                       "as for report")
    check.add_argument("--timeout", type=positive, default=60.0, metavar="SECONDS",
                       help="give up on one function after this long (default 60)")
    check.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)
    add_python(check)


def _tolerance(text: str) -> tuple[float, bool]:
    percent = text.endswith("%")
    try:
        value = float(text[:-1] if percent else text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of ops (5) or a "
                                         "percentage (10%)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be 0 or more")
    return value, percent


def cmd_check(args: argparse.Namespace) -> int:
    """Exit 0 when nothing changed, 1 on a change or a target that failed (unless the golden
    file records that it fails so), 2 on bad input."""
    from agexplorer.check.run import DEFAULT_GOLDEN, find_targets, in_scope
    from agexplorer.model.check import Snapshot, compare

    targets = find_targets(args.paths, args.call)  # bad paths answer before the golden file
    golden_path = os.path.abspath(args.golden or DEFAULT_GOLDEN)
    if args.update:  # written: never over a checked file or another kind of file
        from agexplorer.cli.outputs import page_output
        from agexplorer.source.targets import parse_spec

        page_output("--golden", args.golden or DEFAULT_GOLDEN,
                    [parse_spec(p).path for p in args.paths] + [t.file for t in targets],
                    "a golden file")
    golden: Snapshot | None = None
    if not args.update or os.path.lexists(golden_path):
        golden = _golden(golden_path, args.update)
    if not targets:
        raise AgxError("no-targets", f"no function with a ready call in {' '.join(args.paths)}",
                       advice="give one AGX_CALLS, an input_signature or defaults, or check "
                       "PATH::FUNC --call ARGS.")
    from agexplorer.cli.common import command_worker

    worker = command_worker(args)
    analysed = [_analyse(worker, t, golden_path, args.call) for t in targets]
    # read after the requests: a worker replaced midway says them again in its Hello
    current = Snapshot(analysed, worker.tf_version, worker.keras_version, worker.keras_flavour)
    kept = [] if golden is None else [t for t in golden.targets
                                      if not in_scope(t, golden_path, args.paths)]
    if args.update:
        return _update(args, golden_path, replace(current, targets=kept + current.targets),
                       current, worker)
    assert golden is not None
    checked = replace(golden, targets=[t for t in golden.targets if t not in kept])
    percent = args.op_tolerance[1]
    changes = compare(checked, current, args.op_tolerance[0], percent)
    _print(args, changes, current, golden_path, len(kept), worker)
    return 1 if any(not c.info for c in changes) else 0


def _golden(path: str, update: bool) -> Snapshot | None:
    """The golden file; with --update, a damaged one (not JSON, or a golden file's object
    that does not read) is None: it is written anew from this run, and a note says so. JSON
    of another shape is another kind of file, which --update never overwrites."""
    from agexplorer.check.run import read_golden

    try:
        data = read_golden(path)
        if update and not (isinstance(data, dict) and "targets" in data):
            raise AgxError("output-other-kind", f"--golden {path} holds JSON that is not a "
                           "golden file", advice="--update never overwrites another kind of file, so "
                           "name a new file for the golden file.")
        return _load(path, data)
    except AgxError as exc:
        if not update or exc.kind != "bad-golden":
            raise
        print(f"agexplorer: note: {exc.what}; --update writes it anew from this run (the "
              "targets it held are not kept).", file=sys.stderr)
        return None


def _load(path: str, data: Any) -> Snapshot:
    from agexplorer.model.check import Snapshot

    try:
        return Snapshot.from_dict(data)  # anything but a golden file's object: ValueError
    except ValueError as exc:
        raise AgxError("bad-golden", f"{path} cannot be used as the golden file: {exc}",
                       advice="write it again with --update.") from None


def _analyse(worker: CommandWorker, target: Target, golden: str, call: str | None) -> TargetSnap:
    from agexplorer.check.run import failed, snapshot_of
    from agexplorer.worker.protocol import ReportRequest

    if target.error is not None:
        return failed(target, golden, target.error, call)
    try:
        answer = worker.request(ReportRequest(f"{target.file}::{target.function}", call=call,
                                              no_run=True),
                                what=f"checking {target.function}", path=target.file)
    except AgxError as exc:  # a load that failed, a timeout: this target failed, go on
        return failed(target, golden, exc, call)
    return snapshot_of(answer["report"], target, golden, call)


def _shown(golden: str):
    """A golden file's path (relative to its folder) as the path to print (relative to here)."""
    folder = os.path.dirname(golden)

    def shown(file: str) -> str:
        return os.path.relpath(os.path.join(folder, file)) if file else file

    return shown


def _update(args: argparse.Namespace, golden: str, merged: Snapshot, current: Snapshot,
            worker: CommandWorker) -> int:
    from agexplorer.cli.common import worker_json
    from agexplorer.source.files import write_source

    write_source(golden, merged.dumps())  # atomic: a temporary file renamed over the old one
    failures = [t for t in current.targets if t.error is not None]
    statements = sum(len(t.statements) for t in current.targets)
    if args.json:
        print(worker_json({"golden": golden, "written": merged.to_dict(),
                           "failed": [t.to_dict() for t in failures]}, worker))
    else:
        shown = _shown(golden)
        kept = len(merged.targets) - len(current.targets)
        print(f"wrote {os.path.relpath(golden)}: {plural(len(current.targets), 'function')}, "
              f"{plural(statements, 'statement')}"
              + (f" ({plural(kept, 'other target')} kept)" if kept > 0 else "") + ".")
        for t in failures:  # recorded: a later check says so, and fails if another error comes
            print(f"failed: {shown(t.file)}::{t.function}: could not be analysed, recorded as "
                  f"expected to fail: {t.error}", file=sys.stderr)
    return 0


def _print(args: argparse.Namespace, changes: list, current: Snapshot, golden: str,
           kept: int, worker: CommandWorker) -> None:
    from agexplorer.cli.common import worker_json

    shown = _shown(golden)
    if args.json:
        print(worker_json({"golden": golden, "checked": len(current.targets),
                           "not_checked": kept, "changed": any(not c.info for c in changes),
                           "changes": [c.to_dict(shown) for c in changes],
                           "current": current.to_dict()}, worker))
    elif args.format == "github":
        from agexplorer.render.check import github_lines

        for line in github_lines(changes, shown):
            print(line)
        if not any(not c.info for c in changes):
            print(f"{len(current.targets)} functions checked: no change.")
    else:
        from agexplorer.render.check import render_check

        render_check(changes, len(current.targets), os.path.relpath(golden), shown,
                     width=args.width)
