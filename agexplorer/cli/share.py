"""`report --markdown|--html` and `summary --markdown|--html`: one-page summaries to share."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from agexplorer.model.errors import AgxError

if TYPE_CHECKING:
    from agexplorer.cli.common import CommandWorker
    from agexplorer.render.page import FilePage, FunctionPage


def add_share_options(parser: argparse.ArgumentParser) -> None:
    """--markdown, --html and -o FILE, for ``report`` and ``summary``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--markdown", action="store_true", help="print a one-page summary in "
                       "Markdown (tables and code blocks, for a pull request or a wiki)")
    group.add_argument("--html", action="store_true", help="print a one-page summary as one "
                       "self-contained HTML file (nothing loads from the network)")
    parser.add_argument("-o", "--output", metavar="FILE", default=None,
                        help="with --markdown or --html: write the page to FILE instead of "
                        "printing it")


def page_format(args: argparse.Namespace) -> str | None:
    """"markdown", "html" or None; one sentence when the options do not go together."""
    chosen = "markdown" if getattr(args, "markdown", False) else \
        "html" if getattr(args, "html", False) else None
    if chosen is None and getattr(args, "output", None):
        raise AgxError("bad-arguments", "-o writes a page: add --markdown or --html.",
                       exit_code=2)
    if chosen is not None and getattr(args, "json", False):
        raise AgxError("bad-arguments", f"--json and --{chosen} are two outputs: pick one.",
                       exit_code=2)
    return chosen


def write_page(text: str, output: str | None) -> None:
    """Print the page, or write it to ``output`` atomically (source/files.py's write: a
    temporary file, flushed, then renamed)."""
    if output is None:
        sys.stdout.write(text)
        return
    from agexplorer.source.files import write_source

    try:
        write_source(os.path.abspath(os.path.expanduser(output)), text)
    except AgxError as exc:
        raise AgxError("bad-arguments", f"cannot write {output}: {exc.message} Pass -o a file "
                       "in a folder you can write to.", exit_code=2) from None
    print(f"wrote {output}", file=sys.stderr)


def cmd_share_report(args: argparse.Namespace) -> int:
    """A page for a file (every function with a ready call) or one function; exit 1 when one
    failed to analyse (the page is written all the same)."""
    from agexplorer.cli.common import checked, command_worker
    from agexplorer.render.page import FilePage
    from agexplorer.source.targets import list_functions, parse_source

    fmt = page_format(args)
    if args.output:  # before any work: never over the source (or another kind of file)
        from agexplorer.cli.outputs import page_output
        from agexplorer.source.targets import parse_spec

        page_output("-o", args.output, [parse_spec(args.target).path, *args.user_code],
                    "a page")
    spec, text, _ = checked(args.target, need_function=False)
    if spec.qualname is None and args.call is not None:
        raise AgxError("bad-arguments", f"--call needs one function: write "
                       f"{args.target}::FUNCTION.", exit_code=2)
    page = FilePage(spec.path)
    if spec.qualname:
        names = [spec.qualname]
    else:
        found = [f for f in list_functions(parse_source(spec.path, text))
                 if not f.qualname.split(".")[-1].startswith("__")]
        names = [f.qualname for f in found if f.ready]
        page.skipped = [f.qualname for f in found if not f.ready]
        from agexplorer.doctor.checks import module_findings

        page.module_findings = [f for f in module_findings(text) if f.subject not in names]
    worker = command_worker(args)
    page.functions = [_analyse(worker, args, spec.path, name) for name in names]
    write_page(_render(page, fmt), args.output)
    failed = [fp for fp in page.functions if fp.error]
    for fp in failed:
        print(f"agexplorer: {fp.function}: {fp.error}", file=sys.stderr)
    return max((_exit_code(fp) for fp in failed), default=0)


def _exit_code(fp: FunctionPage) -> int:
    error = fp.report.error if fp.report is not None else None
    return error.exit_code if error is not None else 1


def _render(page: FilePage, fmt: str | None) -> str:
    if fmt == "html":
        from agexplorer.render.html import file_html

        return file_html(page)
    from agexplorer.render.markdown import file_markdown

    return file_markdown(page)


def _analyse(worker: CommandWorker, args: argparse.Namespace, path: str, name: str) -> FunctionPage:
    """One function's report, run lab and findings; a failure becomes its one sentence."""
    from agexplorer.cli.common import user_code_paths
    from agexplorer.render.page import FunctionPage
    from agexplorer.worker.protocol import DoctorRequest, ReportRequest

    target = f"{path}::{name}"
    fp = FunctionPage(path, name)
    init = getattr(args, "init", None)
    request = ReportRequest(target, call=args.call, init=init, no_run=args.no_run,
                            device=args.device,
                            budget=args.budget, fresh=not args.shared_module,
                            user_code=user_code_paths(args.user_code), depth=args.depth,
                            skip_xla=args.no_xla, mode_timeout=args.mode_timeout,
                            try_fixes=True)
    try:
        answer = worker.request(request, what=f"analysing {name}", path=path)
    except AgxError as exc:
        fp.error = exc.message
        return fp
    fp.report, fp.lab = answer["report"], answer["lab"]
    if fp.report.error is not None:
        fp.error = fp.report.error.message
        return fp
    try:  # the doctor reads the trace the report just made
        fp.doctor = worker.request(DoctorRequest(target, call=args.call, reuse=True,
                                                 init=init),
                                   what=f"diagnosing {name}", path=path)
    except AgxError as exc:
        from agexplorer.model.doctor import DoctorReport

        fp.doctor = DoctorReport(file=path, function=name, error=exc)
    return fp


def cmd_share_summary(args: argparse.Namespace, summary: dict) -> int:
    """A recorded run's page, printed or written with -o."""
    if page_format(args) == "html":
        from agexplorer.render.html import summary_html

        write_page(summary_html(summary), args.output)
    else:
        from agexplorer.render.markdown import summary_markdown

        write_page(summary_markdown(summary), args.output)
    return 0
