"""`agexplorer [--timeout SECONDS] [--python PATH] [--user-code PATH]... [PATH[::FUNC] | DIR]`
and `agexplorer tour`: the checks before the explorer opens."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from agexplorer.cli.common import samples_dir, user_code_paths
from agexplorer.model.errors import AgxError

if TYPE_CHECKING:
    import argparse

    from agexplorer.state.session import ServedSession
    from agexplorer.tui.program.actions import Program
    from agexplorer.tui.tour.opening import Opening


def open_tui(argv: list[str]) -> int:
    """`agexplorer [--timeout SECONDS] [--python PATH] [PATH[::FUNC] | DIR]`: the explorer on a
    file, on every Python file of a folder, on a recorded run (a LOG of `agexplorer record`:
    its program view), or on scratch copies of the bundled samples (`agexplorer tour`: with
    the lesson tour open). ``--served`` (what `agexplorer serve` runs for each browser tab):
    the same in a private session folder of its own, removed when it ends (state/session.py)."""
    served = "--served" in argv
    resume = deferred_collection()
    try:
        if not served:
            from agexplorer.cli.handoff import hand_off

            handed = hand_off(argv)  # to a running background worker's warm explorer
            return _open_tui(argv, None, resume) if handed is None else handed
        from agexplorer.state.session import start_served

        session = start_served()
        try:
            return _open_tui([a for a in argv if a != "--served"], session, resume)
        finally:
            session.end()
    finally:
        resume()


def deferred_collection() -> Callable[[], None]:
    """Hold Python's cyclic garbage collector until the explorer has started; returns the
    call that resumes it (once; later calls do nothing).

    Start-up (Textual's import, agexplorer's, the first frame, the panes' mount) allocates
    ~80,000 objects that live as long as the explorer, and almost no garbage: the collector
    ran ~100 times over them before the first frame, 13-21 ms of a ~0.25 s start on this
    machine. Resumed, the start-up's objects are frozen (``gc.freeze``: moved out of the
    collector's generations), so the later collections during the edits do not walk them
    again. A collector that the process had turned off stays off."""
    if not gc.isenabled():
        return lambda: None
    gc.disable()
    done = False

    def resume() -> None:
        nonlocal done
        if not done:
            done = True
            gc.freeze()
            gc.enable()

    return resume


def _open_tui(argv: list[str], session: ServedSession | None,
              started: Callable[[], None] = lambda: None) -> int:
    from agexplorer.source.targets import check_target, parse_source, parse_spec, read_source
    from agexplorer.state.scratch import python_files, scratch_copies
    from agexplorer.tui.tour.opening import Opening
    from agexplorer.worker.choice import choose

    options = explorer_options(argv)
    timeout, flag = options.timeout, options.python
    if flag == "":
        raise AgxError("bad-arguments", "--python needs the path of a Python interpreter",
                       advice="e.g. --python .venv/bin/python.")
    user_code = user_code_paths(options.user_code)
    argv = list(options.target)
    tour = argv[:1] == ["tour"]  # a folder named tour opens as ./tour
    if tour:
        argv = argv[1:]
    if len(argv) > 1 or (tour and argv):
        print("agexplorer: give one PATH[::FUNC] or folder to open (or none for the samples); "
              "see `agexplorer --help`.", file=sys.stderr)
        return 2
    program: Program | Opening | None = None
    if argv and os.path.isdir(argv[0]):  # every Python file of the folder
        paths, function = python_files(os.path.abspath(os.path.expanduser(argv[0]))), None
    elif argv and _is_log(argv[0]):  # a recorded run: the program view (a bad log: one sentence)
        from agexplorer.tui.program.actions import load_program

        program = load_program(argv[0])
        paths, function = program.user_files(), None
    elif argv:
        spec = parse_spec(argv[0])
        try:
            tree = parse_source(spec.path, read_source(spec.path))
        except AgxError as exc:
            if exc.kind == "missing-file":
                raise _with_recovery_copy(exc, spec.path) from None
            if exc.kind != "syntax-error":  # a syntax error opens: the editor shows it
                raise
        else:
            check_target(argv[0], tree, need_function=False)
        paths, function = [spec.path], spec.qualname
    else:  # copies: a save never writes into the installation (or the checkout's samples/)
        paths, function = scratch_copies(samples_dir()), None
    if session is not None and argv and program is None:  # its own copies, never the server's
        paths = session.copies(paths, argv[0] if os.path.isdir(argv[0]) else None)
    if program is None:  # the tour's palette command everywhere; the tour itself when asked
        program = Opening(scratch=not argv, tour=tour)
    if options.no_daemon:  # its worker is not forked from the background worker's zygote
        os.environ["AGX_NO_DAEMON"] = "1"
    python = None
    if choose(flag) is not None:  # before the explorer opens: a bad one is one sentence
        from agexplorer.worker.interpreter import resolve

        python = resolve(flag)
    from agexplorer.tui.app import AgxApp

    app = AgxApp(paths, function, timeout=timeout, python=python, user_code=user_code,
                 program=program)
    app.started = started
    if session is not None:  # textual-serve's pipe: the screen and downloads, packets whole
        from agexplorer.tui.served_driver import whole_writes

        app.driver_class = whole_writes(app.driver_class)
    else:  # a terminal: suspending (SIGTSTP) must not hang the explorer
        from agexplorer.tui.job_control import job_control_on_loop

        app.driver_class = job_control_on_loop(app.driver_class)
    app.run()
    if app.safety.note and session is None:  # e.g. where the unsaved edits were kept after a crash
        print(f"agexplorer: {app.safety.note}", file=sys.stderr)
    return app.return_code or 0


def _is_log(path: str) -> bool:
    from agexplorer.runlog.log import is_log

    return is_log(path)


def _with_recovery_copy(exc: AgxError, path: str) -> AgxError:
    """A missing file whose unsaved edits the explorer kept (the file was deleted while it
    held them, then the explorer ended): the error says where they are."""
    from agexplorer.state.recovery import copy_path, load_copy

    found = load_copy(path)
    if found is None:
        return exc
    return AgxError(exc.kind, f"{path}: no such file, but the explorer kept your unsaved edits "
                    f"to it from {found.when} in {copy_path(path)}", advice=f"copy that file to {path} "
                    "and open it again.", exit_code=exc.exit_code)


# The explorer's options when none is given: its parser's defaults (explorer_parser).
DEFAULTS: dict[str, Any] = {"timeout": 30.0, "python": None, "user_code": [], "no_daemon": False,
            "debug": False}


def explorer_options(argv: list[str]) -> argparse.Namespace | SimpleNamespace:
    """The explorer's arguments read: by its parser, or, where no argument is an option
    (``agexplorer``, ``agexplorer PATH``, ``agexplorer tour``: nothing starts with "-"),
    as the targets and the defaults, the same values without importing argparse (~2 ms of
    the first paint)."""
    if any(arg.startswith("-") for arg in argv):
        return explorer_parser().parse_args(argv)
    return SimpleNamespace(target=list(argv), **{**DEFAULTS, "user_code": []})


def explorer_parser() -> argparse.ArgumentParser:
    """The explorer's own arguments (``agexplorer [options] [PATH[::FUNC] | DIR | LOG]``,
    ``agexplorer tour [options]``); a bad one is one sentence and exit 2."""
    from agexplorer.cli.options import EXPLORER_USAGE, Parser, add_debug, positive

    parser = Parser(prog="agexplorer", usage=EXPLORER_USAGE, add_help=False)
    # Any number, so that more than one is told in the explorer's own words.
    parser.add_argument("target", nargs="*", metavar="PATH[::FUNC] | DIR | LOG")
    parser.add_argument("--timeout", type=positive, default=DEFAULTS["timeout"],
                        metavar="SECONDS")
    parser.add_argument("--python", metavar="PATH", default=DEFAULTS["python"])
    parser.add_argument("--user-code", action="append", default=[], metavar="PATH")
    parser.add_argument("--no-daemon", action="store_true")
    add_debug(parser)
    return parser


def tui_timeout(argv: list[str]) -> tuple[float, list[str]]:
    """The explorer's ``--timeout SECONDS`` (or ``--timeout=SECONDS``), and the other arguments."""
    timeout = explorer_parser().parse_known_args(argv)[0].timeout
    rest, skip = [], False
    for arg in argv:
        if skip or arg == "--timeout" or arg.startswith("--timeout="):
            skip = arg == "--timeout"
            continue
        rest.append(arg)
    return timeout, rest
