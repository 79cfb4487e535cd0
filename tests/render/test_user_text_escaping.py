"""User text that looks like markup is shown as written, by every renderer.

tests/fixtures/markup_text.py, saved as ``we[ird]<b>.py``, holds rich markup (``[/b]``,
``[bold]``), HTML (``<b>``, ``&amp;``) and Markdown (backticks, pipes) in its source lines,
strings, comments, printed output, argument values, an op name and an exception. Each command's
text output, the one-page Markdown and HTML, the explorer's panes and its SVG must show them
verbatim: rich reads a ``str`` as markup, and ``[/b]`` made `report` exit 3 while ``[batch]``
silently vanished from ``tf.fill([batch], 7)``.
"""

from __future__ import annotations

import html
import importlib.util
import re
import shlex
import shutil
import xml.dom.minidom
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from agexplorer.cli import main
from conftest import explorer, fixture, wait_for

pytestmark = pytest.mark.tf  # the worker (and the recording) import TensorFlow

NAME = "we[ird]<b>.py"
SOURCE = ['note = tf.strings.join(["[/b] closes nothing", "[bold]x[/bold]", "<b>&amp;</b>"])',
          "token = tf.fill([batch], 7)",
          "# [red]a comment[/red] <i>not html</i> | `tick` *star*"]
HEADER = "for s in [x, x * 2]:"
PRINTED = "[red]printed[/red] <b>p</b> | `tick`"
RAISED = "[/b] refused <b>value</b> | `tick`"
ARGUMENT = "[/i] <i>other</i>"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> str:
    """The fixture in a file whose name looks like markup too."""
    path = tmp_path_factory.mktemp("markup") / NAME
    shutil.copy(fixture("markup_text.py"), path)
    return str(path)


@pytest.fixture
def cli(worker, monkeypatch, capsys):
    """``cli(*argv)``: (exit status, stdout, stderr) of the command, run in this process
    with the shared worker."""
    from agexplorer.worker import client

    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


class _Visible(HTMLParser):
    """The text a browser shows: one line per block (cell, paragraph, item, heading, code)."""

    BLOCKS = frozenset({"p", "li", "td", "th", "h1", "h2", "h3", "pre", "tr", "title"})

    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.tags: list[str] = []
        self.feed(page)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data):
        self.parts.append(data)

    @property
    def text(self) -> str:
        return "".join(self.parts)


def _markdown_text(page: str) -> _Visible:
    return _Visible(MarkdownIt("commonmark").enable("table").render(page))


def _shown_as_written(text: str, *literals: str) -> None:
    missing = [s for s in literals if s not in text]
    assert not missing, f"not shown as written: {missing}\n{text}"


def test_the_report_shows_source_output_and_values_as_written(cli, hostile):
    code, out, err = cli("report", f"{hostile}::shout", "--budget", "0.05", "--no-xla",
                         "--width", "250")
    assert code == 0, err
    _shown_as_written(out, NAME, *SOURCE, HEADER, PRINTED, "tf.stack([x, x * 2])",
                      "b'[/b] closes nothing[bold]x[/bold]<b>&amp;</b>'",  # the run's result
                      "'[/b] <b>arg</b> | `a`'")  # the argument the `if` read


def test_an_error_that_quotes_user_text_is_shown_as_written(cli, hostile):
    code, out, err = cli("report", f"{hostile}::refuses", "--no-run", "--width", "250")
    assert code == 1
    _shown_as_written(out, RAISED)
    _shown_as_written(err, RAISED)


def test_the_doctor_quotes_the_line_and_a_command_a_shell_takes(cli, hostile):
    code, out, _ = cli("doctor", f"{hostile}::shout", "--width", "250")
    assert code == 1  # findings
    _shown_as_written(out, f'print("{PRINTED}")', HEADER)
    (command,) = [line.split("try: ", 1)[1] for line in out.splitlines() if "try: " in line
                  and "AGX001" in line]
    words = shlex.split(command.split("  (")[0].strip(" │"))
    assert words[:2] == ["agexplorer", "doctor"] and words[2] == f"{hostile}::shout"


def test_the_passes_show_the_code_as_written(cli, hostile):
    code, out, err = cli("passes", f"{hostile}::shout", "--width", "250")
    assert code == 0, err
    _shown_as_written(out, "['[/b] closes nothing', '[bold]x[/bold]', '<b>&amp;</b>']",
                      "tf.fill([batch], 7)", f"print('{PRINTED}')")


def test_a_comparison_shows_both_sides_as_written(cli, hostile):
    code, out, _ = cli("compare", f"{hostile}::shout", f"{hostile}::refuses", "--no-run",
                       "--width", "250")
    assert code == 1  # the right side raised
    _shown_as_written(out, NAME, HEADER, RAISED)


def test_the_retrace_explainer_shows_arguments_and_output_as_written(cli, hostile):
    code, out, err = cli("retrace", f"{hostile}::shout", "--width", "250")
    assert code == 0, err
    _shown_as_written(out, ARGUMENT, PRINTED, NAME)


@pytest.fixture(scope="module")
def recorded(hostile, tmp_path_factory, tf) -> str:
    """A log of ``shout`` traced twice, the second time for a markup-looking argument."""
    import agexplorer

    spec = importlib.util.spec_from_file_location("markup_text_recorded", hostile)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    log = str(tmp_path_factory.mktemp("log") / "run.agxlog")
    with agexplorer.recording(log):
        module.shout(tf.ones([2]))
        module.shout(tf.ones([2]), ARGUMENT)
    return log


def test_a_recorded_runs_summary_shows_names_and_values_as_written(cli, recorded):
    code, out, _ = cli("summary", recorded)
    assert code == 0
    _shown_as_written(out, NAME, ARGUMENT)
    code, page, _ = cli("summary", recorded, "--markdown")
    assert code == 0
    _shown_as_written(_markdown_text(page).text, NAME, ARGUMENT, HEADER)
    code, page, _ = cli("summary", recorded, "--html")
    assert code == 0
    shown = _Visible(page)
    _shown_as_written(shown.text, NAME, ARGUMENT, HEADER)
    assert "b" not in shown.tags and "i" not in shown.tags  # no tag came from the user


@pytest.mark.parametrize("page", ["--markdown", "--html"])
def test_the_file_page_shows_everything_as_written(cli, hostile, page):
    code, text, _ = cli("report", hostile, page, "--no-run")
    assert code == 1  # refuses raised: the page is written all the same
    shown = _markdown_text(text) if page == "--markdown" else _Visible(text)
    _shown_as_written(shown.text, NAME, *SOURCE, HEADER, RAISED, f'print("{PRINTED}")',
                      "tf.stack([x, x * 2])")
    assert not {"b", "i", "bold"} & set(shown.tags)  # no tag came from the user


def _svg_text(svg: str) -> str:
    """An SVG screenshot's lines of text (rich writes one <text> per run of a style)."""
    xml.dom.minidom.parseString(svg)  # well-formed: no tag or entity came from the user
    rows: dict[float, list[tuple[int, str]]] = {}
    for x, y, text in re.findall(r'<text [^>]*?x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>',
                                 svg):
        rows.setdefault(float(y), []).append((round(float(x) / 12.2), html.unescape(text)))
    lines = []
    for y in sorted(rows):
        line = ""
        for column, text in sorted(rows[y]):
            line = line.ljust(column) + text.replace("\xa0", " ")
        lines.append(line)
    return "\n".join(lines)


def _line_of(path: str, needle: str) -> int:
    with open(path) as fh:
        return next(i for i, line in enumerate(fh, 1) if needle in line)


async def test_the_explorers_panes_and_svg_show_user_text_as_written(hostile, worker,
                                                                     tmp_path, monkeypatch):
    """The picker, the Graph tab (an op's name, a Const's value), the Trace tab's sentences,
    the Passes tab and the saved SVG, on a function without control flow or print (their
    panes are the subject of the next test)."""
    from agexplorer.tui.svg import save_svg

    app = explorer(hostile, worker, "quiet")
    async with app.run_test(size=(160, 50)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None and app.workspace_ready)
        picker = app.query_one("#picker")
        assert [str(node.label) for node in picker.root.children] == [NAME]

        const = _line_of(hostile, 'note = tf.constant("[/b]')
        app.query_one("#panels").active = "tab-graph"
        ops = app.query_one("#ops")
        assert await wait_for(pilot, lambda: const in ops._by_line and const + 2 in ops._by_line)
        assert "a->b" in ops._by_line[const + 2][0].label.plain  # the op named by the user
        ops.focus()
        ops.move_cursor(ops._by_line[const][0])
        detail = app.query_one("#op-detail")
        assert await wait_for(pilot, lambda: "value=" in str(detail.render()), 30)
        _shown_as_written(str(detail.render()), "[/b] closes nothing [bold]x[/bold] <b>&amp;</b>")

        app.query_one("#panels").active = "tab-trace"
        app.query_one("#trace-calls").value = "tf.ones([2]); '[/b]' +"
        app.query_one("#trace-panel").request_explain()
        results = app.query_one("#trace-results")
        assert await wait_for(pilot, lambda: "not a valid" in str(results.render()), 30)
        _shown_as_written(str(results.render()), "'[/b]' +")
        _shown_as_written(str(app.query_one("#trace-origin").render()), "'[/b]' +")

        app.query_one("#panels").active = "tab-passes"
        passes = app.query_one("#passes-panel")
        assert await wait_for(pilot, lambda: passes.passes is not None, 60), \
            (str(passes.note.render()), passes.asked, app.state.generation, app.state.target)
        _shown_as_written(passes.shown_code, '"[/b] closes nothing [bold]x[/bold] <b>&amp;</b>"'
                          .replace('"', "'"))

        monkeypatch.chdir(tmp_path)
        with open(save_svg(app)) as fh:
            _shown_as_written(_svg_text(fh.read()), NAME)


async def test_the_verdict_table_and_the_doctor_show_user_text_as_written(hostile, worker):
    app = explorer(hostile, worker, "shout")
    async with app.run_test(size=(160, 50)) as pilot:
        # (a MarkupError ends the app: the waits are short)
        assert await wait_for(pilot, lambda: app.state.report is not None and app.workspace_ready, 20)
        verdicts = app.query_one("#verdicts")
        assert await wait_for(pilot, lambda: verdicts.row_count == 2, 10)
        # Drawn as written (a MarkupError would end the app first).
        await wait_for(pilot, lambda: HEADER in _svg_text(app.export_screenshot()), 10)
        _shown_as_written(_svg_text(app.export_screenshot()), HEADER)
        panel = app.query_one("#doctor-panel")
        assert await wait_for(pilot, lambda: panel.findings, 10)
        _shown_as_written(str(app.query_one("#finding-detail").render()), PRINTED)
