"""One-page summaries as one self-contained HTML file: inline CSS, no scripts, nothing fetched."""

from __future__ import annotations

import re
from html import escape
from typing import Any

from agexplorer.model.doctor import DoctorReport, Finding
from agexplorer.model.text import plural
from agexplorer.render.page import (
    TIMING_HEADERS,
    VERDICT_WORDS,
    VERDICTS,
    FilePage,
    FunctionPage,
    SourceBlock,
    code_spans,
    retrace_text,
    source_blocks,
    timing_rows,
    unrolled_loops,
    verdict_detail,
    where,
)
from agexplorer.render.run_page import (
    cause_rows,
    failure_words,
    intended_words,
    largest_loops,
    more_loops,
)
from agexplorer.runlog.summary import command_line, display_name, loop_path, untried_fixes
from agexplorer.source.cells import cell_label

# Light by default, dark where the reader's system asks for it; verdict colours readable on both
# (the Okabe-Ito hues the terminal report uses, as tints behind the text).
_LIGHT = """--bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --head: #f6f8fa;
  --link: #0969da; --staged: #d8f3e6; --python: #fdebc8; --mixed: #f6dcef; --unreached: #eceff2;"""
_DARK = """--bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --head: #151b23;
    --link: #4493f8; --staged: #0f3a2c; --python: #4a3512; --mixed: #47213d; --unreached: #22272e;"""
_MARKS = ("--staged-mark: #009E73; --python-mark: #E69F00; --mixed-mark: #CC79A7; "
          "--unreached-mark: #8c959f;")
# The rules below the page's own (html, body, main): one element's look, shared by the page
# and the notebook's fragment (which scopes each of them, see _scoped).
_RULES = """
h1 { font-size: 1.6rem; } h2 { border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
code, pre, .source td { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: 13px; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left;
  vertical-align: top; }
th { background: var(--head); }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: var(--muted); }
.error { border-left: 4px solid #D55E00; padding: .3rem .7rem; background: var(--head); }
.legend span, .verdict { display: inline-block; padding: 0 .4rem; margin: 0 .3rem .3rem 0;
  border-radius: 3px; }
.v-staged { background: var(--staged); } .v-python { background: var(--python); }
.v-mixed { background: var(--mixed); } .v-unreached { background: var(--unreached); }
.source { border: 1px solid var(--line); width: 100%; }
.source td { border: 0; padding: 0 .5rem; white-space: pre; }
.source tr.v-staged td:first-child { box-shadow: inset 4px 0 var(--staged-mark); }
.source tr.v-python td:first-child { box-shadow: inset 4px 0 var(--python-mark); }
.source tr.v-mixed td:first-child { box-shadow: inset 4px 0 var(--mixed-mark); }
.source tr.v-unreached td:first-child { box-shadow: inset 4px 0 var(--unreached-mark); }
.source td.num, .source td.ops { color: var(--muted); text-align: right; }
.source td:last-child { width: 100%; }
.fix { font-weight: 600; }
a:link, a:visited { color: var(--link); }
"""
_CSS = f"""
:root {{ {_LIGHT}
  {_MARKS} }}
@media (prefers-color-scheme: dark) {{
  :root {{ {_DARK} }}
}}
html {{ background: var(--bg); color: var(--fg); }}
body {{ font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; }}
main {{ max-width: 1100px; margin: 0 auto; padding: 1.5rem; }}
{_RULES}"""

# In a notebook the page is one output among the notebook's own: every rule is scoped to its
# element (the doubled class outweighs JupyterLab's rules for rendered HTML, such as its
# striped table rows), and it sets its own background and text colours, so it stays readable
# whatever the notebook's theme. Its light or dark follows the notebook's theme where the
# notebook says which (JupyterLab and VS Code mark their body), else the reader's system.
FRAGMENT_CLASS = "agx-page"
_SCOPE = f".{FRAGMENT_CLASS}.{FRAGMENT_CLASS}"
_NOTEBOOK_DARK = ('body[data-jp-theme-light="false"]', "body.vscode-dark",
                  "body.vscode-high-contrast:not(.vscode-high-contrast-light)")
_NOTEBOOK_LIGHT = ('body[data-jp-theme-light="true"]', "body.vscode-light",
                   "body.vscode-high-contrast-light")


def _scoped(rules: str) -> str:
    """``rules`` (plain ``selector, selector { ... }`` rules, none nested) with each selector
    inside the fragment's element."""
    def scope(match: re.Match[str]) -> str:
        selectors = ", ".join(f"{_SCOPE} {sel.strip()}" for sel in match.group(1).split(","))
        return f"{selectors} {{{match.group(2)}}}\n"

    return re.sub(r"([^{}]+?)\s*\{([^{}]*)\}", scope, rules.strip())


def _fragment_css() -> str:
    def on(bodies: tuple[str, ...]) -> str:
        return ", ".join(f"{body} {_SCOPE}" for body in bodies)

    return (f"{_SCOPE} {{ {_LIGHT} {_MARKS}\n  background: var(--bg); color: var(--fg); "
            "font: 14px/1.5 system-ui, -apple-system, \"Segoe UI\", sans-serif; "
            "padding: .5rem 1rem; border-radius: 4px; text-align: left; overflow-x: auto; }\n"
            f"@media (prefers-color-scheme: dark) {{ {_SCOPE} {{ {_DARK} }} }}\n"
            f"{on(_NOTEBOOK_DARK)} {{ {_DARK} }}\n{on(_NOTEBOOK_LIGHT)} {{ {_LIGHT} }}\n"
            f"{_SCOPE} p, {_SCOPE} li {{ color: var(--fg); }}\n"
            f"{_SCOPE} .agx-h1, {_SCOPE} .agx-h2, {_SCOPE} .agx-h3 {{ font-weight: 600; "
            "line-height: 1.25; margin: 1.2rem 0 .6rem; }\n"
            f"{_SCOPE} .agx-h1 {{ font-size: 1.5rem; margin-top: .5rem; }}\n"
            f"{_SCOPE} .agx-h2 {{ font-size: 1.25rem; border-bottom: 1px solid var(--line); "
            "padding-bottom: .2rem; }\n"
            f"{_SCOPE} .agx-h3 {{ font-size: 1.05rem; }}\n"
            # JupyterLab's own: striped rows, fixed table layout, its table text colour.
            f"{_SCOPE} tbody tr {{ background: transparent; }}\n"
            f"{_SCOPE} table {{ color: inherit; font-size: inherit; table-layout: auto; }}\n"
            + _scoped(_RULES) + "\n")


def fragment(body: str) -> str:
    """``body`` (a page's body, as :func:`file_html` builds it) as one element to embed in a
    notebook's output: its own scoped style, no document around it, nothing fetched. Its
    headings are marked as headings for a reader (``role="heading"``), not as ``<h1>``..
    ``<h3>`` elements, which JupyterLab would list in the notebook's table of contents."""
    body = re.sub(r"<h([1-3])([ >])", r'<div role="heading" aria-level="\1" class="agx-h\1"\2',
                  body)
    body = re.sub(r"</h[1-3]>", "</div>", body)
    return (f'<div class="{FRAGMENT_CLASS}">\n<style>{_fragment_css()}</style>\n'
            f"{body}</div>\n")


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _prose(text: object) -> str:
    """A sentence escaped, its `code` spans set as code (render.page.code_spans)."""
    return "".join(f"<code>{_e(part)}</code>" if is_code else _e(part)
                   for part, is_code in code_spans(str(text)))


def _anchor(name: str) -> str:
    return "fn-" + re.sub(r"[^A-Za-z0-9_.-]", "-", name)


class _Num(str):
    """A cell that holds a number (right-aligned)."""


def _table(headers: list[str], rows: list[list[str]], css: str = "") -> str:
    """Cells are HTML already (escaped by the caller); :func:`_num` cells align right."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(
        f'<td class="n">{c}</td>' if isinstance(c, _Num) else f"<td>{c}</td>" for c in row)
        + "</tr>\n" for row in rows)
    klass = f' class="{css}"' if css else ""
    return f"<table{klass}><thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody></table>\n"


def _page(title: str, body: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            # Nothing may load from anywhere: no scripts, fonts, images or styles but this one.
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<meta name=\"color-scheme\" content=\"light dark\">\n"
            f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n"
            f"{body}</main>\n</body>\n</html>\n")


def _legend() -> str:
    spans = "".join(f'<span class="v-{k}">{_e(VERDICT_WORDS[k])}</span>' for k in VERDICTS)
    return f'<section id="legend" class="legend"><h2>Verdicts</h2>\n<p>{spans}</p></section>\n'


def _num(value: object) -> str:
    return _Num(_e(value))


def _overview(page: FilePage) -> str:
    rows = []
    for fp in page.functions:
        counts = fp.counts()
        graph = fp.lab.runs.get("graph") if fp.lab is not None else None
        traces = "-" if graph is None or graph.tracing_count is None else graph.tracing_count
        rows.append([f'<a href="#{_anchor(fp.function)}"><code>{_e(fp.function)}</code></a>',
                     _num("-" if fp.op_count is None else fp.op_count),
                     *[_num(counts[k]) for k in VERDICTS], _num(len(unrolled_loops(fp))),
                     _num(traces), _num(len(fp.findings)),
                     '<span class="error">failed</span>' if fp.error else "ok"])
    return ('<section id="overview"><h2>Functions</h2>\n'
            + _table(["function", "ops", *VERDICTS, "unrolled loops", "traces", "findings",
                      "analysis"], rows) + "</section>\n")


def _findings(findings: list[Finding]) -> str:
    return _table(["line", "code", "finding", "fix"], [
        [_num(f.line), f"<strong>{_e(f.code)}</strong> {_e(f.title)}",
         _prose(f.message) + f'<br><span class="muted">{_prose(f.why)}</span>', _prose(f.fix or "-")]
        for f in findings])


def _source(block: SourceBlock) -> str:
    rows = []
    for line in block.lines:
        klass = f' class="v-{line.verdict}"' if line.verdict else ""
        rows.append(f'<tr{klass}><td class="num">{line.number}</td><td>{_e(line.badge)}</td>'
                    f'<td class="ops">{line.ops or ""}</td><td>{_e(line.text)}</td></tr>')
    return (f"<h3>Source of <code>{_e(block.function)}</code> "
            f'<span class="muted">({_e(where(block.file, None))}; line, verdict, ops, code)'
            f'</span></h3>\n<table class="source">\n' + "\n".join(rows) + "\n</table>\n")


def _statements(fp: FunctionPage) -> str:
    rows = []
    for v in fp.statements:
        detail = verdict_detail(v)
        line = where(v.file, v.line) if fp.report and v.file and v.file != fp.report.file \
            else str(v.line)
        why = _prose(v.reason) + (f'<br><span class="fix">fix:</span> {_prose(v.hint)}'
                                   if v.hint else "")
        rows.append([_num(line), f"<code>{_e(v.header)}</code>",
                     f'<span class="verdict v-{_e(v.verdict)}">{_e(detail)}'
                     "</span>", _num(v.ops_created if fp.op_count is not None else "-"), why])
    return "<h3>Control flow</h3>\n" + _table(["line", "statement", "verdict", "ops",
                                              "why, and the fix"], rows)


def _function(fp: FunctionPage) -> str:
    r = fp.report
    out = [f'<section class="function" id="{_anchor(fp.function)}">'
           f"<h2><code>{_e(fp.function)}</code></h2>"]
    facts = []
    if r is not None:
        facts += [f"{where(r.file, r.first_line)}-{r.end_line}",
                  "@tf.function" if r.decorated else "plain function"]
    if fp.call_text:
        facts.append(f"call {fp.call_text}" + (f" ({r.call_origin})" if r and r.call_origin
                                                else ""))
    if fp.op_count is not None:
        facts.append(f"{fp.op_count} ops")
    if facts:
        out.append(f'<p class="muted">{_e(" · ".join(facts))}</p>')
    if fp.error:
        # The error as written: its backticks may be the user's own.
        out.append(f'<p class="error"><strong>Not analysed:</strong> {_e(fp.error)}</p>')
    if fp.load_note:
        out.append(f'<p class="error"><strong>Loading the file:</strong> {_e(fp.load_note)}</p>')
    if fp.refused:
        out.append(f'<p class="error"><strong>Not converted by AutoGraph:</strong> '
                   f"{_e(fp.refused)}</p>")
    if fp.statements:
        out.append(_statements(fp))
    loops = unrolled_loops(fp)
    if loops:
        out.append("<h3>Unrolled loops</h3>\n" + _table(
            ["where", "loop", "iterations", "ops made", "share of the function's ops"],
            [[f"<code>{_e(row.function)}</code> {_e(where(row.file, row.line))}",
              f"<code>{_e(row.header)}</code>", _num(row.iterations), _num(row.ops),
              _num("-" if row.share is None else f"{row.share:.0%}")] for row in loops]))
    retrace = retrace_text(fp.lab)
    if retrace:
        out.append(f"<h3>Retraces</h3>\n<p>{_e(retrace)}</p>")
    if fp.findings:
        out.append("<h3>Doctor's findings</h3>\n" + _findings(fp.findings))
    elif fp.doctor_note:
        out.append(f"<h3>Doctor's findings</h3>\n<p>{_e(fp.doctor_note)}</p>")
    elif fp.doctor is not None and fp.doctor.traced:
        out.append("<h3>Doctor's findings</h3>\n<p>No pitfalls found.</p>")
    if fp.lab is not None and fp.lab.runs:
        out.append(f"<h3>Timings on {_e(fp.lab.device)}</h3>\n" + _table(
            TIMING_HEADERS, [[_e(row[0]), _e(row[1]), *[_num(c) for c in row[2:]]]
                             for row in timing_rows(fp.lab)]))
    out += [_source(block) for block in source_blocks(fp)]
    out.append("</section>\n")
    return "\n".join(out)


def file_html(page: FilePage) -> str:
    """The whole page for a file (or one function of it)."""
    return _page(f"agexplorer report: {page.name}", file_body(page))


def file_body(page: FilePage) -> str:
    """The body of :func:`file_html` (a notebook embeds it with :func:`fragment`)."""
    n = len(page.functions)
    body = [f"<h1>agexplorer report: <code>{_e(page.name)}</code></h1>",
            f'<p class="muted">{_e(cell_label(page.file) or page.file)}: '
            f'{plural(n, "function")} analysed; verdicts '
            "count each if/for/while (its own and those of your code it called).</p>\n"]
    if page.functions:
        body.append(_overview(page))
    if page.skipped:
        body.append("<p>Not analysed (no ready call: add an <code>AGX_CALLS</code> entry or an "
                    "input_signature): " + ", ".join(f"<code>{_e(s)}</code>"
                                                     for s in page.skipped) + ".</p>\n")
    body.append(_legend())
    body += [_function(fp) for fp in page.functions]
    if page.module_findings:
        body.append('<section id="module"><h2>Module-level findings</h2>\n'
                    + _findings(page.module_findings) + "</section>\n")
    return "".join(body)


def doctor_body(report: DoctorReport) -> str:
    """The doctor's findings for one function, as the report page shows them (a notebook's
    ``%agx doctor`` embeds it with :func:`fragment`)."""
    n = len(report.findings)
    body = [f"<h2>Doctor: <code>{_e(report.function)}</code></h2>\n"]
    facts = [where(report.file, report.first_line)]
    if report.call is not None:
        facts.append(f"call {report.function.split('.')[-1]}({report.call})"
                     + (f" ({report.call_origin})" if report.call_origin else ""))
    body.append(f'<p class="muted">{_e(" · ".join(facts))}</p>\n')
    if report.error is not None:
        label = "Not traced" if not report.traced else "Error"
        body.append(f'<p class="error"><strong>{label}:</strong> {_e(report.error.message)}</p>\n')
    body.append(f"<p>{_e(plural(n, 'finding'))}.</p>\n" + _findings(report.findings) if n
                else "<p>No pitfalls found.</p>\n")
    return "".join(body)


def summary_html(summary: dict[str, Any]) -> str:
    """A recorded run's page (``summarise(read_log(path))``)."""
    return _page("agexplorer run summary", summary_body(summary))


def summary_body(summary: dict[str, Any]) -> str:
    """The body of :func:`summary_html` (a notebook embeds it with :func:`fragment`)."""
    program, functions = summary["program"], summary["functions"]
    argv = command_line(program)
    traces = sum(f["traces"] for f in functions)
    failed = failure_words(program)
    body = ["<h1>agexplorer run summary</h1>",
            f"<p>Program: <code>{_e(argv or '?')}</code> · exit code "
            f"{_e(program.get('exit_code', '-'))} · {program.get('wall_s') or 0:.2f} s · "
            f"TensorFlow {_e(program.get('tensorflow') or '?')}"
            + ("" if program.get("finished") else " · <strong>did not finish</strong>")
            + (" · <strong>interrupted</strong> (Ctrl-C)" if program.get("interrupted") else "")
            + "</p>\n"
            + (f'<p class="error"><strong>The program failed</strong> (exit status '
               f"{_e(program.get('exit_code'))}): {_e(failed)}</p>\n" if failed else "")
            + f"<p>{plural(traces, 'trace')} of "
            f"{plural(len(functions), 'function')}.</p>\n"]
    if functions:
        body.append('<section id="functions"><h2>Functions by trace time</h2>\n' + _table(
            ["function", "where", "traces", "trace time", "ops", "your code"],
            [[f"<code>{_e(display_name(f))}</code>", _e(where(f["file"], f["line"])),
              _num(f["traces"]), _num(f"{f['trace_s']:.3f} s"), _num(f["op_count"]),
              "yes" if f["user"] else "no"] for f in functions]) + "</section>\n")
    causes = cause_rows(summary)
    if causes:
        n = sum(row.count for row in causes)
        body.append(f'<section id="retraces"><h2>Retraces</h2>\n<p>'
                    f"{plural(n, 'retrace')}, grouped by what changed.</p>\n" + _table(
                        ["function", "where", "retraces", "what changed", "traces", "fix"],
                        [[f"<code>{_e(row.function)}</code>", _e(row.where), _num(row.count),
                          _e(row.what), _e(row.traces), _e(row.fix or "-")] for row in causes])
                    + "</section>\n")
    loops, hidden = largest_loops(summary)
    intended = intended_words(summary)
    if loops or intended:
        body.append('<section id="loops"><h2>Largest unrolled loops</h2>\n' + (_table(
            ["function", "where", "loop", "iterations", "ops made", "share of its trace's ops",
             "about"],
            [[f"<code>{_e(loop_path(row))}</code>", _e(where(row["file"], row["line"])),
              f'<span class="verdict v-{_e(row["verdict"])}"><code>'
              f'{_e(row.get("header") or row["kind"])}</code></span>',
              _num(row["iterations"]), _num(row["ops_created"]), _num(f"{row['share']:.0%}"),
              _num(f"{row['share_s']:.3f} s")] for row in loops]) if loops else "")
            + (f'<p class="muted">{_prose(more_loops(hidden))}</p>\n' if hidden else "")
            + "".join(f"<p>{_e(words)}.</p>\n" for words in intended) + "</section>\n")
    fixes = [row for row in loops if row.get("hint")]
    if fixes:
        body.append('<section id="fixes"><h2>Fixes</h2>\n<ul>' + "".join(
            f"<li><code>{_e(row['function'])}</code> ({_e(where(row['file'], row['line']))}): "
            f"{_prose(row['hint'])}</li>" for row in fixes) + "</ul>\n"
            f'<p class="muted">{_prose(untried_fixes())}.</p></section>\n')
    errors = [(f, e) for f in functions for e in f["errors"]]
    if errors:
        body.append('<section id="errors"><h2>Traces that failed</h2>\n<ul>' + "".join(
            f"<li><code>{_e(f['function'])}</code>, trace {_e(e['trace'])}: {_e(e['error'])}</li>"
            for f, e in errors) + "</ul></section>\n")
    if summary.get("notes"):
        body.append('<section id="notes"><h2>Notes</h2>\n<ul>' + "".join(
            f"<li>{_e(n)}</li>" for n in summary["notes"]) + "</ul></section>\n")
    return "".join(body)
