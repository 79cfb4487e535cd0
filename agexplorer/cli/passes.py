"""`agexplorer passes PATH::FUNC`: AutoGraph's conversion pass by pass, each step's diff."""

from __future__ import annotations

import argparse

from agexplorer.cli.common import checked, command_worker, worker_json
from agexplorer.cli.options import add_python, positive


def add_passes_parser(sub: argparse._SubParsersAction) -> None:
    """The ``passes`` command's arguments."""
    parser = sub.add_parser("passes", help="AutoGraph's conversion pass by pass: the code "
                            "after each converter, what it rewrites and its diff")
    parser.add_argument("target", metavar="PATH::FUNC")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--full", action="store_true",
                        help="print every step's code (default: the first and the last)")
    parser.add_argument("--timeout", type=positive, default=30.0, metavar="SECONDS",
                        help="give up after this long (default 30)")
    parser.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)
    add_python(parser)


def cmd_passes(args: argparse.Namespace) -> int:
    """Exit 0 with the steps; 2 on a bad target, 1 when the file raises or AutoGraph refuses."""
    from agexplorer.worker.protocol import PassesRequest

    spec, _, target = checked(args.target)
    worker = command_worker(args)
    passes = worker.request(PassesRequest(target), what=f"converting {spec.qualname}",
                            path=spec.path)
    if args.json:
        print(worker_json(passes.to_dict(), worker))
    else:
        from agexplorer.render.passes import render_passes

        render_passes(passes, width=args.width, full=args.full)
    return 0
