"""`agexplorer sweep`: what an unrolled loop costs as its count grows, traced per value, fitted."""

from __future__ import annotations

import argparse
from typing import Any

from agexplorer.model.errors import AgxError

# The sweep's own time box is this share of --timeout: the rest is the worker's start,
# the module's load and the answer's way back, so the sweep answers before the client
# gives up on it.
_SWEEP_SHARE = 0.8


def add_sweep_parser(sub: Any) -> None:
    """The ``sweep`` subcommand."""
    from agexplorer.cli.options import add_python, positive

    sweep = sub.add_parser("sweep", help="trace a function once per value of a Python "
                           "argument: ops, trace and call time per value, the cost per unit, "
                           "and the staged rewrite beside it")
    sweep.add_argument("target", metavar="PATH::FUNC")
    sweep.add_argument("--vary", metavar="NAME=V1,V2,...", help="the Python int argument to "
                       "vary and its values, e.g. n=10,100,1000 (default: the argument that "
                       "drives the largest unrolled loop, over two orders of magnitude up to "
                       "the call's value)")
    sweep.add_argument("--at", type=_count, metavar="N", help="extrapolate the fit to this "
                       "value (e.g. 100000): its ops and trace time, without tracing it")
    sweep.add_argument("--call", metavar="ARGS", help="call arguments, as for report "
                       "(--vary replaces its argument)")
    sweep.add_argument("--no-run", action="store_true", help="trace only; do not time calls")
    sweep.add_argument("--json", action="store_true", help="print one JSON object")
    sweep.add_argument("--device", metavar="NAME", help="run on this device (see `agexplorer "
                       "devices`)")
    sweep.add_argument("--budget", type=positive, default=0.2, metavar="SECONDS",
                       help="steady-state timing per value (default 0.2)")
    sweep.add_argument("--timeout", type=positive, default=60.0, metavar="SECONDS",
                       help="the whole sweep's time box (default 60): a value whose trace "
                       "would not fit in what is left is extrapolated, not traced")
    sweep.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)
    add_python(sweep)


def _count(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be 0 or more")
    return value


def cmd_sweep(args: argparse.Namespace) -> int:
    """Print the sweep (a report, or one JSON object); 0, or the error's exit status."""
    from agexplorer.cli.common import checked, command_worker, worker_json
    from agexplorer.sweep.vary import parse_vary
    from agexplorer.worker.protocol import SweepRequest

    vary, values = parse_vary(args.vary) if args.vary is not None else (None, None)
    spec, _, target = checked(args.target)
    request = SweepRequest(target, vary=vary, values=values, at=args.at, call=args.call,
                           no_run=args.no_run, device=args.device, budget=args.budget,
                           timeout=args.timeout * _SWEEP_SHARE)
    worker = command_worker(args)
    sweep = worker.request(request, what=f"sweeping {spec.qualname}", path=spec.path)
    if args.json:
        print(worker_json(sweep.to_dict(), worker))
    else:
        from agexplorer.render.sweep import render_sweep

        render_sweep(sweep, width=args.width)
    if sweep.fit is None and not any(p.traced for p in sweep.points):
        failed = next((p.error for p in sweep.points if p.error), None)
        raise AgxError("sweep-failed", f"no value could be traced ({failed}).", exit_code=1)
    return 0
