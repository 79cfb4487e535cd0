"""The options and parsers every command shares: one sentence on a bad argument, not a
usage dump; seconds and counts checked as they are read."""

from __future__ import annotations

import argparse
import math
from typing import Any, NoReturn

from agexplorer.worker.limits import MAX_TIMEOUT

# The explorer's form, which takes no command: the first line of --help's usage.
EXPLORER_USAGE = ("agexplorer [--timeout SECONDS] [--python PATH] [--user-code PATH]...\n"
                  "                  [--no-daemon] [PATH[::FUNC] | DIR | LOG]")


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one sentence, not a usage dump
        self.exit(2, f"agexplorer: {message}; see `agexplorer {self.prog.split()[-1]} --help`.\n"
                  if " " in self.prog else f"agexplorer: {message}; see `agexplorer --help`.\n")


class CommandParser(Parser):
    """A subcommand's parser (every one, wherever it is added): it takes --debug too, so the
    advice "rerun with --debug" works after the command as well as before it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Unset unless given: a --debug before the command is not undone by its absence here.
        add_debug(self, default=argparse.SUPPRESS)


def add_debug(parser: argparse.ArgumentParser, default: Any = False) -> None:
    """``--debug``: agexplorer's own failures raise with their traceback (hidden in --help)."""
    parser.add_argument("--debug", action="store_true", default=default, help=argparse.SUPPRESS)


INIT_HELP = ("a method's instance: its class's constructor arguments (--init \"steps=6\"); "
             "default: an instance the module holds, else the class's defaults")


PYTHON_HELP = ("run TensorFlow under this Python interpreter, with its own TensorFlow "
               "(default: $AGX_PYTHON, else the active virtual environment's, else "
               "agexplorer's own); agexplorer need not be installed there")


def add_mode_options(parser: argparse.ArgumentParser, default: str) -> None:
    """--no-xla and --mode-timeout: the run lab's modes, each boxed on its own."""
    parser.add_argument("--no-xla", action="store_true",
                        help="do not run with XLA (its compile of a big graph can take minutes)")
    parser.add_argument("--mode-timeout", type=positive, default=None, metavar="SECONDS",
                        help="give each mode (eager, graph, XLA) at most this long, its first "
                        "call included, and keep what it measured by then (default: "
                        f"{default})")


def add_python(parser: argparse.ArgumentParser) -> None:
    """``--python PATH``, ``--no-daemon`` and ``--daemon-idle``, for every command that asks
    a TensorFlow worker."""
    parser.add_argument("--python", metavar="PATH", default=None, help=PYTHON_HELP)
    parser.add_argument("--no-daemon", action="store_true", help="start a TensorFlow worker "
                        "of this command's own (default: the background worker, kept warm "
                        "between commands; so does AGX_NO_DAEMON=1)")
    parser.add_argument("--daemon-idle", type=positive, default=None, metavar="SECONDS",
                        help="a background worker started now stops after this long without "
                        "a request (default: $AGX_DAEMON_IDLE, else 600)")


# The longest wait agexplorer accepts (the worker's own bound, about 11 days).
MAX_SECONDS = int(MAX_TIMEOUT)


def positive(text: str) -> float:
    """A number of seconds above zero and at most MAX_SECONDS (not inf, not nan), or
    argparse's error naming what is wrong."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"'{text}' is not a finite number of seconds")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be more than zero seconds")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"'{text}' is more seconds than agexplorer waits "
                                         f"(at most {MAX_SECONDS:,}, about 11 days)")
    return value


def non_negative(text: str) -> int:
    """A count of calls, zero or more, or argparse's error naming what is wrong."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be 0 or more")
    return value
