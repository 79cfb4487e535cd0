"""Command line: arguments to a headless command (report, list), one clear sentence on failure."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence

from agexplorer.cli.common import check_calls, samples_dir
from agexplorer.cli.explorer import open_tui, tui_timeout
from agexplorer.model.errors import AgxError

# samples_dir and _tui_timeout are imported from here by tests and the wheel check.
_tui_timeout = tui_timeout
__all__ = ["main", "samples_dir"]

def _fail(exc: AgxError, as_json: bool) -> int:
    if as_json:
        import json  # (here: not on the explorer's way to its first frame)

        print(json.dumps({"error": exc.to_dict()}, indent=2))
    print(f"agexplorer: {exc.message}", file=sys.stderr)
    for line in exc.details:
        print(f"  {line}", file=sys.stderr)
    return exc.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        code = _main(argv)
        _flush_stdout()  # what is still buffered meets a closed pipe here, not at exit
        return code
    except BrokenPipeError:
        # The reader of our output went away (`agexplorer list F --json | head -1`): stop
        # quietly, as other Unix tools do. Exit 2, the issue's group for "the user's
        # environment" (not 3: agexplorer did not fail). stdout now points at /dev/null so
        # the interpreter's final flush of what is still buffered does not complain.
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            os.close(devnull)
        return 2
    except SystemExit as exc:
        if _rich_broken_pipe(exc):  # rich exits 1 on a closed pipe (stdout already /dev/null)
            return 2
        raise


def _flush_stdout() -> None:
    """Flush stdout; only a closed pipe is raised (a stdout the recorded program closed or
    replaced is left as it is)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except (OSError, ValueError, AttributeError):
        pass


def _rich_broken_pipe(exc: SystemExit) -> bool:
    """The SystemExit rich's Console raises when stdout's reader went away (its renderings
    are written by rich, which catches the BrokenPipeError itself)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code if tb is not None else None
    return code is not None and code.co_name == "on_broken_pipe" \
        and f"{os.sep}rich{os.sep}" in code.co_filename


def _main(argv: Sequence[str] | None) -> int:
    from agexplorer.cli.table import BY_NAME, build_parser, parse, resolve

    argv = list(sys.argv[1:] if argv is None else argv)
    command = BY_NAME.get(argv[0]) if argv else None
    if command is None and argv and argv[0].startswith("-") and \
            argv[0].split("=")[0] not in ("--timeout", "--python", "--user-code", "--served"):
        command = BY_NAME.get(next((a for a in argv if not a.startswith("-")), ""))
    if command is None and argv and argv[0] in ("-h", "--help", "--version"):
        build_parser().parse_args(argv)  # prints the help or the version, and exits
    if command is None or command.run is None:  # the explorer (`agexplorer tour` too)
        if "-h" in argv or "--help" in argv:  # `agexplorer tour --help`, `agexplorer F --help`
            build_parser().parse_args(["tour", "--help"] if argv[0] == "tour" else ["--help"])
        try:
            return open_tui(argv)
        except AgxError as exc:
            return _fail(exc, False)
    args = parse(argv)
    as_json = bool(getattr(args, "json", False))
    try:
        check_calls(args)  # a --call that is not Python answers before TensorFlow loads
        return resolve(str(BY_NAME[args.command].run))(args)
    except AgxError as exc:
        return _fail(exc, as_json)
    except KeyboardInterrupt:
        print("agexplorer: interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise  # our output was closed: main stops quietly
    except Exception as exc:  # never show the user our own traceback (--debug does)
        if args.debug:
            raise
        return _fail(AgxError("internal-error", f"agexplorer itself failed ({type(exc).__name__}: "
                              f"{exc})", advice="rerun with --debug and report it with the command "
                              "you ran.", exit_code=3), as_json)
