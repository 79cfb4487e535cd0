"""`agexplorer curves PATH::FUNC --steps N`: call a training step N times, chart what it returns."""

from __future__ import annotations

import argparse
from typing import Any

from agexplorer.model.curves import MAX_STEPS, MIN_STEPS


def add_curves_parser(sub: Any) -> None:
    """The ``curves`` subcommand."""
    from agexplorer.cli.options import INIT_HELP, add_python, positive

    curves = sub.add_parser("curves", help="call a function N times in one load of its "
                            "module (a training step trains N epochs) and chart each scalar "
                            "it returns, e.g. its loss and learning rate")
    curves.add_argument("target", metavar="PATH::FUNC")
    curves.add_argument("--steps", type=steps, default=20, metavar="N",
                        help=f"how many times to call it ({MIN_STEPS} to {MAX_STEPS}; "
                        "default 20)")
    curves.add_argument("--call", metavar="ARGS", help="the arguments of every step, as for "
                        "report (default: the file's AGX_CALLS entry)")
    curves.add_argument("--init", metavar="ARGS", help=INIT_HELP)
    curves.add_argument("--json", action="store_true", help="print one JSON object")
    curves.add_argument("--height", type=_lines, default=None, metavar="LINES",
                        help="lines per chart (default 12)")
    curves.add_argument("--timeout", type=positive, default=60.0, metavar="SECONDS",
                        help="give up on the steps after this long (default 60)")
    curves.add_argument("--width", type=int, default=None, help=argparse.SUPPRESS)
    add_python(curves)


def steps(text: str) -> int:
    """A number of steps, MIN_STEPS to MAX_STEPS, or argparse's error naming what is wrong."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of steps") from None
    if not MIN_STEPS <= value <= MAX_STEPS:
        raise argparse.ArgumentTypeError(f"'{text}' is not from {MIN_STEPS} to {MAX_STEPS} "
                                         "steps")
    return value


def _lines(text: str) -> int:
    from agexplorer.render.curves import MIN_HEIGHT

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number of lines") from None
    if not MIN_HEIGHT <= value <= 200:
        raise argparse.ArgumentTypeError(f"'{text}' is not from {MIN_HEIGHT} to 200 lines")
    return value


def cmd_curves(args: argparse.Namespace) -> int:
    """Print the curves (sentences and charts, or one JSON object); 0, or 1 when a step
    raised (the steps before it are still charted)."""
    from agexplorer.cli.common import checked, command_worker, worker_json
    from agexplorer.worker.protocol import CurvesRequest

    spec, _, target = checked(args.target)
    worker = command_worker(args)
    curves = worker.request(CurvesRequest(target, call=args.call, steps=args.steps,
                                          init=args.init),
                            what=f"calling {spec.qualname} {args.steps} times", path=spec.path)
    if args.json:
        print(worker_json(curves.to_dict(), worker))
    else:
        from agexplorer.render.curves import render_curves

        count = max(len(curves.series), 1)
        height = args.height * count + count - 1 if args.height else None
        render_curves(curves, width=args.width, height=height)
    return 1 if curves.error is not None else 0
