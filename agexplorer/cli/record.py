"""The ``record`` and ``summary`` commands: run a program recording its traces, read a log back."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from agexplorer.model.errors import AgxError

# record's own options that take a value; everything after the script (or -m MODULE) is the
# program's, verbatim: `agexplorer record train.py --epochs 3 -v`.
_VALUED = ("-o", "--output", "--user-code", "--python")
# Set in a recording re-run under the user's interpreter: it records, it does not re-run.
_CHILD = "AGX_RECORD_UNDER"


def add_record_parser(sub: Any) -> None:
    """The ``record`` subcommand (for --help and the options before the script)."""
    record = sub.add_parser("record", help="run a program and record every tf.function trace: "
                            "why it traced, its verdicts, its ops (a log, and a summary at exit)",
                            usage="agexplorer record [-o LOG] [--user-code PATH] [--python PATH]\n"
                            "                         (SCRIPT.py | -m MODULE) [ARGS...]")
    record.add_argument("-o", "--output", metavar="LOG", help="where to write the log "
                        "(default: SCRIPT.agxlog, or MODULE.agxlog, in the current folder)")
    record.add_argument("-m", dest="module", metavar="MODULE", help="run a module, as "
                        "`python -m MODULE` does")
    record.add_argument("--user-code", action="append", default=[], metavar="PATH",
                        help="also count files under PATH as your code (repeatable)")
    record.add_argument("--python", metavar="PATH", help="run the program under this "
                        "interpreter, with its TensorFlow and packages (default: $AGX_PYTHON, "
                        "else the active virtual environment, else this Python)")
    record.add_argument("script", nargs="?", metavar="SCRIPT.py")
    record.add_argument("args", nargs="*", metavar="ARGS", help="the program's own arguments, "
                        "passed as they are")


def add_summary_parser(sub: Any) -> None:
    """The ``summary`` subcommand: a recorded run's summary again, or as a page."""
    summary = sub.add_parser("summary", help="summarise a log written by `agexplorer record`")
    summary.add_argument("log", metavar="LOG")
    summary.add_argument("--json", action="store_true", help="print one JSON object")
    summary.add_argument("--all", action="store_true", help="list every function, cause "
                         "and loop (the text summary shows the first five of each)")
    from agexplorer.cli.share import add_share_options

    add_share_options(summary)  # --markdown, --html, -o: a page


def split_record_argv(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """(record's own arguments up to the script or module, the program's arguments)."""
    own: list[str] = []
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        own.append(word)
        if word == "-m":
            if rest:
                own.append(rest.pop(0))
            return own, rest
        if word in _VALUED:
            if rest:
                own.append(rest.pop(0))
        elif not word.startswith("-") or word == "-":
            return own, rest  # the script: what follows is the program's
    return own, rest


def cmd_record(args: argparse.Namespace) -> int:
    """Run the program as ``__main__``, recording its traces; exit with its exit status."""
    from agexplorer.cli.common import user_code_paths
    from agexplorer.cli.outputs import log_output
    from agexplorer.record.runner import default_log, run_program

    if (args.script is None) == (args.module is None):
        raise AgxError("bad-arguments", "record needs a script or -m MODULE (one of them), "
                       "e.g. `agexplorer record train.py --epochs 3`.", exit_code=2)
    # Absolute before the program runs (it may os.chdir), and never over the script or a
    # file that is not a log: a refusal comes before the program starts.
    args.output = log_output("-o" if args.output else "the log", args.output or
                             default_log(args.module or args.script, args.module is not None),
                             [] if args.module else [args.script])
    if not os.environ.get(_CHILD):
        from agexplorer.worker.interpreter import resolve

        python = resolve(args.python)  # one sentence when it cannot run the program
        if python is not None:
            return _record_under(python.executable, args)
    return run_program(args.module or args.script, args.args, module=args.module is not None,
                       log_path=args.output, user_code=user_code_paths(args.user_code))


def _record_under(executable: str, args: argparse.Namespace) -> int:
    """The same recording, run by ``executable`` (the user's interpreter and TensorFlow) with
    agexplorer's code on its path but not installed there; its exit status is ours."""
    import subprocess
    import tempfile

    from agexplorer.worker.interpreter import path_folder

    own = ["record", "-o", args.output]  # absolute: see cmd_record
    for folder in args.user_code:
        own += ["--user-code", os.path.abspath(folder)]
    own += ["-m", args.module] if args.module else [args.script]
    with tempfile.TemporaryDirectory(prefix="agx-record-") as folder:
        env = dict(os.environ, **{_CHILD: "1"})
        env["PYTHONPATH"] = os.pathsep.join([path_folder(folder),
                                             *filter(None, [os.environ.get("PYTHONPATH")])])
        command = [executable, "-c", "import sys; from agexplorer.cli import main; "
                   "sys.exit(main())", *own, *args.args]
        return subprocess.call(command, env=env)


def cmd_summary(args: argparse.Namespace) -> int:
    """Print a recorded run's summary (text, or the JSON object with --json)."""
    from agexplorer.runlog.log import read_log
    from agexplorer.runlog.summary import summarise
    from agexplorer.runlog.text import TOP, columns, text_lines

    if args.markdown or args.html or args.output:
        from agexplorer.cli.share import cmd_share_summary, page_format

        if page_format(args) and args.output:  # before the log is read: never over it
            from agexplorer.cli.outputs import page_output

            page_output("-o", args.output, [args.log], "a page")
        return cmd_share_summary(args, summarise(read_log(args.log)))
    summary = summarise(read_log(args.log))
    if args.json:
        print(json.dumps(summary, indent=2))
        for note in summary["notes"]:
            print(f"agexplorer: note: {note}", file=sys.stderr)
    else:
        print("\n".join(text_lines(summary, limit=None if args.all else TOP, log=args.log,
                                    width=columns())))
    return 0
