"""The headless commands that ask the worker (report, retrace, devices) or need none (list, samples)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
from typing import TYPE_CHECKING

from agexplorer.cli.common import checked, command_worker, samples_dir, user_code_paths, worker_json

if TYPE_CHECKING:
    pass


def cmd_report(args: argparse.Namespace) -> int:
    from agexplorer.worker.protocol import ReportRequest

    if args.markdown or args.html or args.output:  # a page to share: cli/share.py
        from agexplorer.cli.share import cmd_share_report

        return cmd_share_report(args)
    if args.svg:  # what the explorer shows, as a picture: cli/svg.py
        from agexplorer.cli.svg import cmd_svg_report
        return cmd_svg_report(args)
    spec, _, target = checked(args.target)
    request = ReportRequest(target, call=args.call, init=args.init, no_run=args.no_run,
                            device=args.device,
                            budget=args.budget, fresh=not args.shared_module, hlo=args.hlo,
                            tensorboard=os.path.abspath(args.tensorboard)
                            if args.tensorboard else None,
                            user_code=user_code_paths(args.user_code), depth=args.depth,
                            skip_xla=args.no_xla, mode_timeout=args.mode_timeout,
                            try_fixes=True)
    worker = command_worker(args)
    answer = worker.request(request, what=f"loading {spec.path}", path=spec.path)
    report, lab = answer["report"], answer["lab"]
    if args.json:
        data = report.to_dict()
        if lab is not None:
            data.update(lab.to_dict())
        print(worker_json(data, worker))
    else:
        from agexplorer.render.terminal import render_report

        render_report(report, width=args.width, lab=lab)
    if report.error is not None:
        print(f"agexplorer: {report.error.message}", file=sys.stderr)
        for line in report.error.details:
            print(f"  {line}", file=sys.stderr)
        if report.error.kind == "trace-failed" and report.error.advice is None:
            # the doctor reads the known ones' causes
            call = f" --call {shlex.quote(args.call)}" if args.call else ""
            print(f"  why, where the doctor knows the cause: agexplorer doctor "
                  f"{shlex.quote(args.target)}{call}", file=sys.stderr)
        return report.error.exit_code
    return 0


def cmd_retrace(args: argparse.Namespace) -> int:
    from agexplorer.worker.protocol import RetraceRequest

    spec, _, target = checked(args.target)
    worker = command_worker(args)
    calls = tuple(args.call) if args.call is not None else None
    report = worker.request(RetraceRequest(target, calls=calls),
                            what=f"loading {spec.path}", path=spec.path)
    if args.json:
        print(worker_json(report.to_dict(), worker))
    else:
        from agexplorer.render.retrace import render_retrace

        render_retrace(report, width=args.width)
    return 0  # a call that raised is part of the report, not a failure of the command


def cmd_devices(args: argparse.Namespace) -> int:
    from agexplorer.worker.protocol import DevicesRequest

    worker = command_worker(args)
    devices = worker.request(DevicesRequest(), what="listing devices")
    if args.json:
        print(worker_json({"devices": devices,
                           "python": {"executable": worker.python_executable,
                                      "version": worker.python_version},
                           "tensorflow": worker.tf_version,
                           "keras": {"version": worker.keras_version,
                                     "flavour": worker.keras_flavour}}, worker))
    else:
        from agexplorer.model.keras import keras_text

        for d in devices:
            print(f"{d['name']}  ({d['type']})")
        # One fact a line: the three on one line ran to ~110 columns.
        print(f"Python {worker.python_version} ({worker.python_executable})")
        print(f"TensorFlow {worker.tf_version}")
        print(f"tf.keras: {keras_text(worker.keras_version, worker.keras_flavour)}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from agexplorer.engine.pipeline import list_file

    functions = list_file(args.path)
    if args.json:
        print(json.dumps({"file": os.path.abspath(args.path),
                          "functions": [f.to_dict() for f in functions]}, indent=2))
        return 0
    if not functions:
        print(f"{args.path}: no functions found.")
    for f in functions:
        badge = "@tf.function" if f.decorated else "plain"
        kind = f.descriptor or ("method" if f.is_method else "function")
        inputs = "ready inputs" if f.ready else "needs --call"
        if f.descriptor == "property":  # report refuses it: say why here too
            inputs = "read, not called: no function to trace"
        # The program's Python that runs the file's tf.functions (a main()): doctor FILE
        # leaves it out, the explorer opens another first.
        drives = f", calls the tf.function{'s' if len(f.drives) > 1 else ''} " \
            f"{', '.join(f.drives)}" if f.drives else ""
        # One line a function, however wide: `agexplorer list F | grep needs` keeps its names.
        print(f"{args.path}::{f.qualname}  line {f.line}  {kind}, {badge}, {inputs}{drives}")
    return 0


def _fitted(head: str, tail: str, joint: str, break_: str) -> str:
    """``head + joint + tail`` where it fits the terminal (80 columns when piped), else
    ``head + break_ + tail``."""
    line = f"{head}{joint}{tail}"
    return line if len(line) <= shutil.get_terminal_size((80, 24)).columns \
        else f"{head}{break_}{tail}"


def cmd_samples(args: argparse.Namespace | None = None) -> int:
    """The report command of every sample; with ``--copy DIR``, an editable copy of them."""
    from agexplorer.engine.pipeline import list_file
    from agexplorer.render.terminal import display_path

    folder = samples_dir()
    if args is not None and args.copy is not None:
        from agexplorer.state.scratch import copy_lesson

        written = copy_lesson(folder, os.path.abspath(os.path.expanduser(args.copy)))
        print(f"wrote {len(written)} samples to {args.copy}; `agexplorer {args.copy}` opens "
              "them.")
        return 0
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            path = os.path.join(folder, name)
            shown = display_path(path)  # not ../../../: absolute outside the working folder
            for f in list_file(path):
                if f.ready and not f.qualname.split(".")[-1].startswith("__"):
                    # A shell continuation where the command is wider than the terminal.
                    print(_fitted("agexplorer report", f"{shown}::{f.qualname}", " ",
                                  " \\\n    "))
    return 0
