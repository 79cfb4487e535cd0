"""examples/autograph_lesson.ipynb, executed by nbclient in a real IPython kernel: every cell
runs, none fails, and each answer shows (HTML for Jupyter, with its verdicts)."""

from __future__ import annotations

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NOTEBOOK = os.path.join(ROOT, "examples", "autograph_lesson.ipynb")


@pytest.fixture(scope="module")
def executed(tf):
    """The notebook after a run of all its cells (the kernel imports this checkout's
    agexplorer: PYTHONPATH is set by the suite's conftest)."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=180, kernel_name="python3",
                   resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}}).execute()
    return notebook


def _outputs(cell):
    """(mimetype or stream name, text) for each of a cell's outputs."""
    found = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            found.append((output["name"], output["text"]))
        elif output["output_type"] == "error":
            found.append(("error", f"{output['ename']}: {output['evalue']}"))
        else:
            found += [(kind, data if isinstance(data, str) else str(data))
                      for kind, data in output.get("data", {}).items()]
    return found


def _cell(notebook, text):
    return next(c for c in notebook.cells if c.cell_type == "code" and text in c.source)


def test_every_cell_runs_without_a_traceback(executed):
    for cell in executed.cells:
        if cell.cell_type != "code":
            continue
        assert cell.execution_count, cell.source
        for kind, text in _outputs(cell):
            assert kind not in ("error", "stderr") and "Traceback" not in text, (cell.source,
                                                                                  text)


def test_each_answer_shows_as_html_with_its_verdicts(executed):
    expected = {
        "%agx running_sum(x)": ["unrolled x5", "for i in range(5):"],
        "staged\n": ["staged", "StatelessWhile"],  # the Explanation returned as the value
        "agexplorer.explain(model, batch)": ["Keras 3 runs MyModel.call without AutoGraph",
                                             "unrolled x2"],
        "%agx retrace": ["traced 2 times", "same kinds of argument as call 1"],
        "%%agx record": ["Retraces", "Largest unrolled loops", "halve"],
        "%agx doctor": ["AGX004", "AGX009"],
    }
    for source, words in expected.items():
        cell = _cell(executed, source.rstrip("\n")) if source != "staged\n" else next(
            c for c in executed.cells if c.cell_type == "code" and c.source == "staged")
        html = " ".join(text for kind, text in _outputs(cell) if kind == "text/html")
        assert html, f"no HTML for {source!r}"
        plain = " ".join(html.split())
        for word in words:
            assert word in plain, (source, word)
        assert "<script" not in html and "http" not in html
    verdicts = _cell(executed, "agexplorer.explain(staged_sum")
    assert "'staged', 'StatelessWhile'" in dict(_outputs(verdicts))["text/plain"]
