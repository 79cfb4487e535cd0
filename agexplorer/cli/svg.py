"""`agexplorer report PATH::FUNC --svg FILE [--size 160x45]`: the explorer's screen as an SVG."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from agexplorer.model.errors import AgxError

if TYPE_CHECKING:
    from agexplorer.tui.app import AgxApp

DEFAULT_SIZE = (160, 45)


def size(text: str) -> tuple[int, int]:
    """``160x45`` as (columns, rows), or argparse's error naming what is wrong."""
    columns, sep, rows = text.lower().partition("x")
    if not (sep and columns.isdigit() and rows.isdigit()):
        raise argparse.ArgumentTypeError(f"'{text}' is not a size: give COLUMNSxROWS, e.g. 160x45")
    if int(columns) < 40 or int(rows) < 10:
        raise argparse.ArgumentTypeError(f"'{text}' is too small: at least 40x10")
    return int(columns), int(rows)


def add_svg_options(parser: argparse.ArgumentParser) -> None:
    """--svg FILE and --size, for ``report``."""
    parser.add_argument("--svg", metavar="FILE", default=None, help="save what the explorer "
                        "shows for the function as an SVG (for slides) instead of printing")
    parser.add_argument("--size", type=size, default=DEFAULT_SIZE, metavar="COLSxROWS",
                        help="with --svg: the screen's size (default 160x45)")


def cmd_svg_report(args: argparse.Namespace) -> int:
    """Open the explorer headless on the function, wait for its analysis, save, exit."""
    from agexplorer.cli.common import checked, user_code_paths
    from agexplorer.worker.interpreter import resolve

    if args.json or getattr(args, "markdown", False) or getattr(args, "html", False):
        raise AgxError("bad-arguments", "--svg saves a picture of the explorer", advice="leave out "
                       "--json, --markdown and --html.", exit_code=2)
    from agexplorer.cli.outputs import page_output
    from agexplorer.source.targets import parse_spec

    # Before any work: never over the source, a --user-code file or another kind of file.
    out = page_output("--svg", args.svg, [parse_spec(args.target).path, *args.user_code],
                      "an SVG")
    folder = os.path.dirname(out)
    if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
        raise AgxError("bad-arguments", f"--svg {args.svg}: cannot write in {folder}", advice="give a "
                       "file in an existing, writable folder.", exit_code=2)
    spec, _, _ = checked(args.target)
    from agexplorer.tui.app import AgxApp

    app = AgxApp([spec.path], spec.qualname, timeout=args.timeout, python=resolve(args.python),
                 user_code=user_code_paths(args.user_code))
    wait = 2 * args.timeout + 120  # TensorFlow's start-up, then the analysis
    import asyncio  # here: `record` builds this parser, and asyncio costs it ~50 ms

    svg = asyncio.run(_screenshot(app, spec.qualname or "", args.size, wait))
    if svg is None:
        raise AgxError("svg-timeout", f"{spec.path}: the explorer did not finish showing "
                       f"{spec.qualname} within {wait:.0f} seconds", advice="try a larger --timeout.",
                       exit_code=1)
    from agexplorer.source.files import write_source

    try:
        write_source(out, svg)  # atomic: a temporary file renamed over the target
    except AgxError as exc:
        raise AgxError("bad-arguments", f"--svg {args.svg}: {exc.message}", exit_code=2) from None
    print(f"agexplorer: saved {out}", file=sys.stderr)
    report = app.state.report
    if report is not None and report.error is not None:  # shown in the picture, and said here
        print(f"agexplorer: {report.error.message}", file=sys.stderr)
        return report.error.exit_code
    return 0


async def _screenshot(app: AgxApp, function: str, screen: tuple[int, int],
                      seconds: float) -> str | None:
    from agexplorer.tui.svg import analysis_shown

    async with app.run_test(size=screen) as pilot:
        for _ in range(int(seconds / 0.1)):
            if analysis_shown(app, function):
                await pilot.pause(0.3)  # the last answer's repaint
                return app.export_screenshot(title=f"agexplorer: {function}")
            await pilot.pause(0.1)
    return None
