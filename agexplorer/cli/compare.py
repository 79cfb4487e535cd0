"""`agexplorer compare A.py::f B.py::g`: two functions' verdicts, ops, timings and code diffed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from agexplorer.cli.common import checked, command_worker, worker_json
from agexplorer.cli.options import add_mode_options, add_python, positive


def add_compare_parser(sub: argparse._SubParsersAction) -> None:
    """The ``compare`` command's arguments."""
    parser = sub.add_parser("compare", help="two functions side by side (bad_loop against "
                            "fixed_loop): verdicts paired by statement, ops by type, trace "
                            "time, eager/graph/XLA timings and the converted code diffed")
    parser.add_argument("left", metavar="A.py::f")
    parser.add_argument("right", metavar="B.py::g", help="the same file twice is fine")
    parser.add_argument("--call", metavar="ARGS", help="call arguments for both sides, as for "
                        "report (default: each side's own, from the file's AGX_CALLS or "
                        "its defaults)")
    parser.add_argument("--call-left", metavar="ARGS", help="the left side's arguments "
                        "(overrides --call)")
    parser.add_argument("--call-right", metavar="ARGS", help="the right side's arguments "
                        "(overrides --call)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--no-run", action="store_true",
                        help="trace only; do not run eager, graph and XLA modes")
    parser.add_argument("--device", metavar="NAME", help="run on this device (GPU:0, CPU:1)")
    parser.add_argument("--budget", type=positive, default=0.5, metavar="SECONDS",
                        help="steady-state timing budget per mode and side (default 0.5)")
    parser.add_argument("--timeout", type=positive, default=60.0, metavar="SECONDS",
                        help="give up on the comparison after this long (default 60)")
    add_mode_options(parser, "a tenth of --timeout")
    parser.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)
    add_python(parser)


def cmd_compare(args: argparse.Namespace) -> int:
    """Exit 0 when both sides were analysed, else the worst side's exit status (1: its code
    raised; the other side is still shown)."""
    from agexplorer.compare.compare import compare_apart
    from agexplorer.worker.protocol import CompareRequest

    left, _, left_target = checked(args.left)
    _, _, right_target = checked(args.right)
    request = CompareRequest(left_target, right_target, call=args.call,
                             left_call=args.call_left, right_call=args.call_right,
                             no_run=args.no_run, device=args.device, budget=args.budget,
                             skip_xla=args.no_xla,
                             mode_timeout=args.mode_timeout or args.timeout / 10)
    worker = command_worker(args)

    def ask(req: Any, heard: Callable[[str], None]) -> Any:
        target = getattr(req, "target", None)  # one side alone (after a death), else both
        return worker.request(req, what=f"comparing {args.left} with {args.right}",
                              path=target.partition("::")[0] if target else left.path,
                              on_progress=heard)

    # A side that ends the worker (os._exit, a signal) still leaves the other side to show.
    comparison = compare_apart(request, ask)
    if args.json:
        print(worker_json(comparison.to_dict(), worker))
    else:
        from agexplorer.render.compare import render_comparison

        render_comparison(comparison, width=args.width)
    for name, side in (("left", comparison.left), ("right", comparison.right)):
        if side.error is not None:
            print(f"agexplorer: {name} side: {side.error.message}", file=sys.stderr)
    return max((e.exit_code for e in comparison.errors), default=0)
