"""`report PATH --markdown|--html` on a sample through one worker (and in a real browser), and
`summary LOG --markdown|--html` on a small recorded log."""

from __future__ import annotations

import base64
import json
import os
import shutil

import pytest
from test_html import Page
from test_markdown import headings, tables
from test_serve import _COUNT_COLOURS  # how many colours a screenshot holds

from agexplorer.cli import main
from agexplorer.worker import client
from conftest import sample

_FUNCTIONS = ["bad_loop", "fixed_loop", "range_loop", "tf_range_loop"]



def run(capsys, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _log(path) -> str:
    """A recorded run, as `agexplorer record` writes it: a step traced twice, an unrolled loop."""
    loop = {"file": "/abs/helpers.py", "function": "normalize", "line": 7, "kind": "for",
            "verdict": "python", "iterations": 3, "ops_created": 9, "times": 1,
            "header": "for i in range(len(xs)):", "hint": "iterate over tf.range(len(xs))",
            "reason": "a Python range", "branch": None, "mixed": None, "graph_op": None}
    records = [
        {"type": "start", "format": "agexplorer-record/1", "argv": ["train.py", "--epochs", "2"],
         "tensorflow": "2.21.0"},
        {"type": "trace", "trace": 1, "file": "/abs/train.py", "function": "train_step",
         "line": 29, "user": True, "kind": "first", "reason": None, "compared_with": None,
         "arguments": [{"name": "x", "kind": "tensor", "text": "float32[16, 4]"}],
         "trace_s": 0.5, "op_count": 30, "statements": [loop]},
        {"type": "trace", "trace": 2, "file": "/abs/train.py", "function": "train_step",
         "line": 29, "user": True, "kind": "retrace", "compared_with": 1,
         "reason": "x: float32[8, 4] instead of float32[16, 4] (a new shape)",
         "arguments": [{"name": "x", "kind": "tensor", "text": "float32[8, 4]"}],
         "trace_s": 0.25, "op_count": 30, "statements": [loop]},
        {"type": "end", "exit_code": 0, "wall_s": 3.5}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_summary_of_a_log_as_markdown(tmp_path, capsys):
    code, out, _ = run(capsys, "summary", _log(tmp_path / "run.agxlog"), "--markdown")
    assert code == 0
    assert headings(out, "h2") == ["Functions by trace time", "Retraces",
                                   "Largest unrolled loops", "Fixes"]
    found = tables(out)
    assert found[0][1] == ["train_step", "train.py:29", "2", "0.750 s", "60", "yes"]
    assert found[1][1] == ["train_step", "train.py:29", "1",
                           "x: float32[8, 4] instead of float32[16, 4] (a new shape)", "trace 2",
                           "-"]
    assert found[2][1][:6] == ["normalize", "helpers.py:7", "for i in range(len(xs)):", "3",
                               "9", "30%"]


def test_summary_of_a_log_as_html_to_a_file(tmp_path, capsys):
    log, out_file = _log(tmp_path / "run.agxlog"), tmp_path / "run.html"
    code, out, err = run(capsys, "summary", log, "--html", "-o", str(out_file))
    assert code == 0 and out == "" and err == f"wrote {out_file}\n"
    assert sorted(os.listdir(tmp_path)) == ["run.agxlog", "run.html"]  # no temporary left
    assert Page(out_file.read_text()).ids("section") == ["functions", "retraces", "loops",
                                                         "fixes"]


def test_bad_page_options_are_one_sentence(tmp_path, capsys):
    log = _log(tmp_path / "run.agxlog")
    code, _, err = run(capsys, "summary", log, "--markdown", "--json")
    assert code == 2 and err.count("\n") == 1 and "--json and --markdown" in err
    code, _, err = run(capsys, "summary", log, "-o", str(tmp_path / "x.md"))
    assert (code, err) == (2, "agexplorer: -o writes a page: add --markdown or --html.\n")
    code, _, err = run(capsys, "summary", log, "--html", "-o", str(tmp_path / "no" / "x.html"))
    assert code == 2 and err.count("\n") == 1 and "cannot write" in err
    code, _, err = run(capsys, "report", sample("s6_2_bad_loop.py"), "--markdown", "--call", "5")
    assert code == 2 and "--call needs one function" in err


def _chromium() -> str | None:
    for name in (os.environ.get("AGX_CHROMIUM"), "chromium", "chromium-browser"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


@pytest.mark.tf
def test_report_of_a_whole_file_as_markdown_and_html(worker, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    path = sample("s6_2_bad_loop.py")
    code, out, err = run(capsys, "report", path, "--markdown", "--budget", "0.05", "--no-xla")
    assert code == 0, err
    assert headings(out, "h2") == _FUNCTIONS
    counts = tables(out)[0]
    assert [row[0] for row in counts[1:]] == _FUNCTIONS  # the functions are its rows
    assert counts[0][2:6] == ["staged", "python", "mixed", "unreached"]
    rows = {row[0]: row for row in counts[1:]}
    assert rows["range_loop"][3] == "1" and rows["tf_range_loop"][2] == "1"
    assert ["range_loop s6_2_bad_loop.py:38", "for i in range(n):", "5", "10", "83%"] in \
        [row for t in tables(out) for row in t]
    assert "AGX004 loop unrolled while tracing" in out and "| `graph` |" in out

    page = tmp_path / "loops.html"
    code, _, err = run(capsys, "report", path, "--html", "--no-run", "-o", str(page))
    assert code == 0, err
    html = page.read_text()
    parsed = Page(html)
    assert parsed.ids("section") == ["overview", "legend"] + [f"fn-{f}" for f in _FUNCTIONS]
    assert ("v-python", ["38", "unrolled x5", "", "    for i in range(n):"]) in parsed.rows
    for _, attributes in parsed.elements:
        assert not any("http" in (attributes.get(a) or "") or "//" in (attributes.get(a) or "")
                       for a in ("src", "href"))

    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs "
                                   "playwright: pip install -e '.[test]'")
    chromium = _chromium()
    if chromium is None:
        pytest.skip("no Chromium to open the page with: `apt-get install chromium`")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium,
                                    args=["--no-sandbox", "--disable-gpu"])
        shown = browser.new_page(viewport={"width": 1100, "height": 900})
        shown.goto(page.as_uri())
        text = shown.inner_text("body")
        assert all(name in text for name in _FUNCTIONS)
        shot = shown.screenshot(full_page=False)
        shown.emulate_media(color_scheme="dark")
        dark = shown.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        blank = browser.new_page()  # the page's own policy forbids data: images: count here
        colours = blank.evaluate(_COUNT_COLOURS, base64.b64encode(shot).decode())
        browser.close()
    assert dark == "rgb(13, 17, 23)"
    assert colours >= 8, f"the screenshot looks blank ({colours} colours)"


@pytest.mark.tf
def test_report_of_one_function_that_fails_writes_its_sentence(worker, tmp_path, monkeypatch,
                                                               capsys):
    monkeypatch.setattr(client, "shared_worker", lambda *a, **k: worker)
    bad = tmp_path / "bad.py"
    bad.write_text("import tensorflow as tf\n\n\n@tf.function\ndef f():\n    return 1 / 0\n")
    code, out, err = run(capsys, "report", f"{bad}::f", "--markdown", "--no-run")
    assert code == 1
    assert headings(out, "h2") == ["f"]
    assert "**Not analysed:** " in out and "raised ZeroDivisionError: division by zero" in out
    assert err.startswith("agexplorer: f: ") and err.count("\n") == 1
