"""Every command's text output is readable at 80 columns, as when it is piped (rich then
takes COLUMNS, else 80): no line is wider, and the column that carries the answer (why a
call traced, what a statement did and its fix) keeps its words instead of "…" or a letter
per line. Run in this process with the shared worker, on tests/fixtures/markup_text.py,
whose reasons are long."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from rich.cells import cell_len

from agexplorer.cli import main
from conftest import fixture, sample

pytestmark = pytest.mark.tf  # the worker imports TensorFlow

WIDTH = 80
_BOX = "│┃║"


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("eighty") / "markup_text.py"
    shutil.copy(fixture("markup_text.py"), path)
    return str(path)


@pytest.fixture
def cli(worker, monkeypatch, capsys):
    """``cli(*argv)``: (exit status, stdout) of the command piped at 80 columns."""
    from agexplorer.worker import client

    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    monkeypatch.setenv("COLUMNS", str(WIDTH))

    def run(*argv: str) -> tuple[int, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        assert code in (0, 1), err
        return code, out

    return run


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(f"[{_BOX}]", line)[1:-1]]


def _columns(text: str) -> list[str]:
    """Each table column's text, its wrapped pieces joined (one string per column of each
    run of table lines), so that a sentence wrapped in its cell reads whole again; a
    panel's body is a table of one column."""
    columns: list[str] = []
    run: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        cells = _cells(line) if line.strip()[:1] in _BOX else []
        if cells and (not run or len(cells) == len(run)):
            if not run:
                run = [[] for _ in cells]
            for bucket, cell in zip(run, cells, strict=True):
                bucket.append(cell)
            continue
        columns += [" ".join(" ".join(bucket).split()) for bucket in run]
        run = []
        if cells:
            run = [[c] for c in cells]
    return columns


def readable(text: str, *answers: str) -> None:
    """No line wider than 80 cells, no table cell cut to "…", and each answer's words in
    order in one column (or in the flowing text)."""
    wide = [line for line in text.splitlines() if cell_len(line) > WIDTH]
    assert not wide, "wider than 80 columns:\n" + "\n".join(wide)
    cut = [cell for line in text.splitlines() for cell in _cells(line) if cell.endswith("…")]
    assert not cut, f"cells cut at 80 columns: {cut}"
    # A panel's title runs into its corner when cut: "╭─ Printed while running (a Py─╮".
    titles = [line for line in text.splitlines() if line.startswith("╭─ ")]
    cut = [line for line in titles if not re.fullmatch(r"╭─ .*\S ─+╮", line)]
    assert not cut, "titles cut at 80 columns:\n" + "\n".join(cut)
    flowing = " ".join(text.split())
    columns = _columns(text)
    for answer in answers:
        assert answer in flowing or any(answer in c for c in columns), \
            f"{answer!r} is not readable at 80 columns:\n{text}"


def test_report(cli, program):
    _, out = cli("report", f"{program}::shout", "--no-run")
    readable(out, "iterates over a Python list of 2 tensors",
             "stack the items into one tensor", 'note = tf.strings.join(["[/b] closes nothing", '
             '"[bold]x[/bold]", "<b>&amp;</b>"])', "(made by tf.function: inputs, outputs)",
             "Python print runs only here, never on later calls")


def test_report_with_its_run_lab(cli, program):
    _, out = cli("report", f"{program}::shout", "--budget", "0.05", "--no-xla")
    readable(out, "speed-up", "but in graph modes only while tracing")
    # Each timing whole in its cell ("178.20 ms", never "178.20" over "ms").
    timings = out.split("Timings per call")[1].split("└")[0]
    cells = [cell for line in timings.splitlines() for cell in _cells(line) if cell]
    assert all(re.fullmatch(r"[\d.]+ (s|ms|µs)|[\d.]+x|\d+|-|[a-z -]+", c) for c in cells), cells


def test_doctor(cli, program):
    _, out = cli("doctor", program)
    readable(out, "ran in Python while tracing, over a Python list of 2 tensors",
             "stack the items into one tensor")


def test_doctor_try(cli, program):
    _, out = cli("doctor", f"{program}::shout", "--try", "AGX001", "--budget", "0.05",
                 "--no-xla")
    readable(out, "modes agree")


def test_retrace(cli, program):
    _, out = cli("retrace", f"{program}::shout")
    readable(out, "a new shape needs a new trace", "Python values are baked into the trace")


def test_passes(cli, program):
    _, out = cli("passes", f"{program}::shout")
    readable(out, "each function's body runs in a scope")


def test_compare(cli, program):
    _, out = cli("compare", f"{program}::shout", f"{program}::quiet", "--no-run")
    readable(out, "only on the left", "AutoGraph's code, left to right")


def test_sweep(cli):
    _, out = cli("sweep", f"{sample('s6_2_bad_loop.py')}::range_loop", "--vary", "n=2,4,8",
                 "--no-run")
    readable(out, "each unit of n adds")


def test_summary_of_a_recorded_run(cli, program, tmp_path, tf):
    import importlib.util

    import agexplorer

    spec = importlib.util.spec_from_file_location("markup_text_eighty", program)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    log = str(tmp_path / "run.agxlog")
    with agexplorer.recording(log):
        for n in (2, 3):
            module.shout(tf.ones([n]))
    _, out = cli("summary", log)
    readable(out, "stack the items into one tensor")


def test_check_keeps_each_sentence_on_its_line(cli, program, tmp_path):
    """check's sentences are never wrapped (a CI log is searched for them); a terminal wraps
    them. Everything else it prints fits."""
    golden = str(tmp_path / "golden.json")
    cli("check", f"{program}::shout", "--golden", golden, "--update")
    data = json.loads(open(golden).read())
    data["targets"][0]["op_count"] += 5
    with open(golden, "w") as fh:
        json.dump(data, fh)
    code, out = cli("check", f"{program}::shout", "--golden", golden)
    assert code == 1
    (changed,) = [line for line in out.splitlines() if line.startswith("changed: ")]
    assert changed.endswith(f"-> {data['targets'][0]['op_count'] - 5} ops")
    assert not any(c in out for c in _BOX)


@pytest.mark.parametrize("argv", [
    ["list", "markup_text.py"], ["samples"], ["devices"]])
def test_the_listing_commands(cli, program, monkeypatch, argv):
    if argv[0] == "list":
        monkeypatch.chdir(program.rpartition("/")[0])  # a path as a user types it
    _, out = cli(*argv)
    readable(out, {"list": "ready inputs", "samples": "agexplorer report",
                   "devices": "tf.keras: Keras"}[argv[0]])


@pytest.mark.parametrize("argv", [["--help"], ["report", "--help"], ["summary", "--help"],
                                  ["devices", "--help"]])
def test_help(monkeypatch, capsys, argv):
    monkeypatch.setenv("COLUMNS", str(WIDTH))
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: agexplorer {argv[0] if len(argv) > 1 else ''}".rstrip())
    readable(out)
