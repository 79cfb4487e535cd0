"""The commands: one table gives each its parser and what runs it, so --help, the parser and
the dispatch cannot disagree. A command's module loads when its parser is built or it runs
("module:function"), so the explorer's first frame imports none of them."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from agexplorer import __version__

if TYPE_CHECKING:  # the parsers are built for a command or --help, not for the explorer
    import argparse


class Command(NamedTuple):
    """One command: ``add`` adds its arguments to the subparsers, ``run`` runs it (both
    ``module:function``); ``run`` None: the explorer opens it (``tour``). A named tuple, not
    a dataclass: every start of the explorer reads this table, and a frozen dataclass took
    ~0.7 ms more to make."""

    name: str
    add: str
    run: str | None


COMMANDS: tuple[Command, ...] = (
    Command("report", "agexplorer.cli.arguments:add_report_parser",
            "agexplorer.cli.commands:cmd_report"),
    Command("retrace", "agexplorer.cli.arguments:add_retrace_parser",
            "agexplorer.cli.commands:cmd_retrace"),
    Command("doctor", "agexplorer.cli.arguments:add_doctor_parser",
            "agexplorer.cli.doctor:cmd_doctor"),
    Command("list", "agexplorer.cli.arguments:add_list_parser",
            "agexplorer.cli.commands:cmd_list"),
    Command("record", "agexplorer.cli.record:add_record_parser",
            "agexplorer.cli.record:cmd_record"),
    Command("summary", "agexplorer.cli.record:add_summary_parser",
            "agexplorer.cli.record:cmd_summary"),
    Command("serve", "agexplorer.cli.serve:add_serve_parser", "agexplorer.cli.serve:cmd_serve"),
    Command("compare", "agexplorer.cli.compare:add_compare_parser",
            "agexplorer.cli.compare:cmd_compare"),
    Command("check", "agexplorer.cli.check:add_check_parser", "agexplorer.cli.check:cmd_check"),
    Command("passes", "agexplorer.cli.passes:add_passes_parser",
            "agexplorer.cli.passes:cmd_passes"),
    Command("sweep", "agexplorer.cli.sweep:add_sweep_parser", "agexplorer.cli.sweep:cmd_sweep"),
    Command("curves", "agexplorer.cli.curves:add_curves_parser",
            "agexplorer.cli.curves:cmd_curves"),
    Command("samples", "agexplorer.cli.arguments:add_samples_parser",
            "agexplorer.cli.commands:cmd_samples"),
    Command("tour", "agexplorer.cli.arguments:add_tour_parser", None),
    Command("devices", "agexplorer.cli.arguments:add_devices_parser",
            "agexplorer.cli.commands:cmd_devices"),
    Command("daemon", "agexplorer.cli.daemon:add_daemon_parser",
            "agexplorer.cli.daemon:cmd_daemon"),
)
BY_NAME = {c.name: c for c in COMMANDS}

def resolve(where: str) -> Callable[..., Any]:
    """The function ``module:function`` names, its module imported now."""
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(module), name)


def build_parser() -> argparse.ArgumentParser:
    """Every command's parser, from the table; --help shows the explorer's form first."""
    from agexplorer.cli.options import EXPLORER_USAGE, CommandParser, Parser, add_debug

    parser = Parser(prog="agexplorer", usage=f"{EXPLORER_USAGE}\n       agexplorer COMMAND "
                    "[ARGS] (agexplorer COMMAND --help)",
                    description="Explore what TensorFlow AutoGraph makes of your Python "
                    "functions. With no COMMAND, the explorer opens PATH (a file, one "
                    "function of it, a folder, or a log of `agexplorer record`), or copies "
                    "of the bundled samples.")
    parser.add_argument("--version", action="version", version=f"agexplorer {__version__}")
    add_debug(parser)
    # COMMAND, not the list of every command: that list made the usage line 98 columns.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser,
                                prog="agexplorer")
    for command in COMMANDS:
        resolve(command.add)(sub)
    return parser


def parse(argv: Sequence[str]) -> argparse.Namespace:
    """A command's arguments; record's program arguments after its script kept verbatim."""
    argv = list(argv)
    at = next((i for i, a in enumerate(argv) if not a.startswith("-")), len(argv))
    if argv[at:at + 1] == ["record"]:  # options before it are agexplorer's own (--debug)
        from agexplorer.cli.record import split_record_argv

        own, program = split_record_argv(argv[at + 1:])
        args = build_parser().parse_args([*argv[:at], "record", *own])
        args.args = program
        return args
    return build_parser().parse_args(argv)
