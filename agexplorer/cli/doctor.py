"""`agexplorer doctor`: pitfalls of a function or a file, and --try / --apply of a rewrite."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from agexplorer.cli.common import checked, command_worker, worker_json
from agexplorer.model.errors import AgxError

if TYPE_CHECKING:
    from agexplorer.cli.common import CommandWorker


def cmd_doctor(args: argparse.Namespace) -> int:
    """Exit 1 when something was found (as a linter does), 0 when clean, 2 on bad input."""
    import re

    from agexplorer.doctor.checks import doctor_plan, module_findings
    from agexplorer.model.doctor import DoctorReport
    from agexplorer.runlog.log import is_log
    from agexplorer.worker.protocol import DoctorRequest

    if is_log(args.target.partition("::")[0]):
        from agexplorer.cli.doctor_log import cmd_doctor_log

        return cmd_doctor_log(args, os.path.abspath(args.target.partition("::")[0]))
    _python_file(args.target.partition("::")[0])
    spec, text, target = checked(args.target, need_function=False)
    if args.apply and not args.try_fix:
        raise AgxError("bad-arguments", "--apply writes the rewrite that --try shows: add "
                       "--try CODE|LINE.")
    if args.try_fix and not re.fullmatch(r"(?i)AGX\d{3}(@\d+)?|\d+", args.try_fix):
        raise AgxError("bad-arguments", f"--try takes a finding's code (AGX004), its line "
                       f"number (38) or both (AGX004@38), not '{args.try_fix}'.")
    if spec.qualname is None and (args.try_fix or args.call is not None
                                  or args.init is not None):
        option = "--try" if args.try_fix else "--call" if args.call is not None else "--init"
        raise AgxError("bad-arguments", f"{option} needs one function: write "
                       f"{args.target}::FUNCTION.")
    worker = command_worker(args)
    if args.try_fix:
        return _doctor_try(args, worker, target)
    names, left_out = ([spec.qualname], {}) if spec.qualname else doctor_plan(spec.path)
    reports: list[DoctorReport] = []
    for name in names:
        target = f"{spec.path}::{name}"
        try:
            reports.append(worker.request(DoctorRequest(target, call=args.call, init=args.init),
                                          what=f"diagnosing {name}", path=spec.path))
        except AgxError as exc:
            if spec.qualname:
                raise
            reports.append(DoctorReport(file=spec.path, function=name, error=exc))
    module = [] if spec.qualname else [f for f in module_findings(text)
                                       if f.subject not in names]
    if args.json:
        data = reports[0].to_dict() if spec.qualname else {
            "file": spec.path, "functions": [r.to_dict() for r in reports],
            "module": [f.to_dict() for f in module],
            "not_examined": [{"function": name, "calls": list(calls)}
                             for name, calls in left_out.items()]}
        print(worker_json(data, worker))
    elif not names and not module and not left_out:
        print(f"{spec.path}: no functions to examine (`agexplorer list {spec.path}` shows what "
              "it holds).")
    else:
        from agexplorer.render.doctor import render_doctor

        render_doctor(reports, width=args.width, module=module, drivers=left_out)
    return 1 if module or any(r.findings for r in reports) else 0


def _python_file(path: str) -> None:
    """The doctor reads Python files and run logs; anything else is one sentence (exit 2)."""
    if os.path.isfile(path) and not path.endswith((".py", ".pyw")):
        raise AgxError("bad-arguments", f"{path} is neither a Python file (.py) nor a run log "
                       "written by `agexplorer record`", advice="pass one of those.", exit_code=2)


def _doctor_try(args: argparse.Namespace, worker: CommandWorker, target: str) -> int:
    from agexplorer.doctor.trial import apply_fix
    from agexplorer.source.targets import parse_spec
    from agexplorer.worker.protocol import TryFixRequest

    box = args.mode_timeout or args.timeout / 10  # six modes, two traces: all in --timeout
    trial = worker.request(TryFixRequest(target, fix=args.try_fix, call=args.call,
                                         budget=args.budget, skip_xla=args.no_xla,
                                         mode_timeout=box),
                           what=f"trying the fix for {args.try_fix}",
                           path=parse_spec(target).path)
    applied = None
    if args.apply:
        if trial.after.error is not None and trial.before.error is None:
            raise AgxError("fix-failed", f"not applied: the rewritten function fails "
                           f"({trial.after.error.message}).", exit_code=1)
        applied = apply_fix(trial.file, trial.rewrite)
    if args.json:
        print(worker_json({"trial": trial.to_dict(), "applied": applied}, worker))
    else:
        from agexplorer.render.doctor import render_trial

        render_trial(trial, width=args.width, applied=bool(applied))
        if applied:
            print(f"wrote {applied} ({trial.finding.code}: {trial.rewrite.description})")
        elif trial.rewrite.new_call is not None:
            import shlex  # quoted as a shell takes it: the call may hold quotes

            print(f"to use it, call with --call {shlex.quote(trial.rewrite.new_call)}")
    return 0
