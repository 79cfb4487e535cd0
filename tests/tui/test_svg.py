"""An SVG of the explorer's screen: `report --svg` and the TUI key (F9 / the palette)."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import pytest

from agexplorer.tui.svg import analysis_shown
from conftest import explorer, run_cli, sample, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


def _text_of(svg_path) -> str:
    """Every text node of the SVG, joined (Textual writes one <text> per run of cells)."""
    root = ET.parse(svg_path).getroot()  # parseable, or this raises
    assert root.tag.endswith("svg")
    return "".join("".join(node.itertext()) for node in root.iter()
                   if node.tag.endswith("text")).replace("\xa0", " ")


def test_report_svg_saves_the_explorer_screen(tmp_path):
    out = tmp_path / "slide.svg"
    result = run_cli("report", sample("s6_2_bad_loop.py") + "::range_loop", "--svg", str(out),
                     "--size", "150x40")
    assert result.returncode == 0, result.stderr
    assert f"saved {out}" in result.stderr
    text = _text_of(out)
    assert "range_loop" in text
    assert "unrolled" in text  # the analysis was on screen, not the loading one
    assert result.stdout == ""


def test_report_svg_bad_size_and_folder_are_one_sentence(tmp_path):
    result = run_cli("report", sample("s6_2_bad_loop.py") + "::range_loop", "--svg",
                     str(tmp_path / "x.svg"), "--size", "big")
    assert result.returncode == 2
    assert "'big' is not a size: give COLUMNSxROWS, e.g. 160x45" in result.stderr
    missing = tmp_path / "no" / "x.svg"
    result = run_cli("report", sample("s6_2_bad_loop.py") + "::range_loop", "--svg",
                     str(missing))
    assert result.returncode == 2
    assert result.stderr.strip() == (f"agexplorer: --svg {missing}: cannot write in "
                                     f"{missing.parent}; give a file in an existing, writable "
                                     "folder.")


async def test_key_saves_the_function_svg_and_says_where(flow_file, worker, tmp_path,
                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = explorer(flow_file, worker, "tensor_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: analysis_shown(app, "tensor_for"))
        await pilot.press("f9")
        saved = tmp_path / "tensor_for.svg"
        assert await wait_for(pilot, lambda: saved.exists(), 10)
        assert app.status_line.text == f"saved an SVG of the screen: {saved}"
        assert "tensor_for" in _text_of(saved)


async def test_unwritable_folder_falls_back_to_the_state_folder(flow_file, worker, tmp_path,
                                                                monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    monkeypatch.chdir(locked)
    monkeypatch.setattr(os, "access", lambda path, mode: path != str(locked))
    app = explorer(flow_file, worker, "tensor_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: analysis_shown(app, "tensor_for"))
        app.action_save_svg()  # as the palette's "Save an SVG of the screen" does
        state = os.path.join(os.environ["XDG_STATE_HOME"], "agexplorer", "svg")
        saved = os.path.join(state, "tensor_for.svg")
        assert os.path.exists(saved)
        assert app.status_line.text == f"saved an SVG of the screen: {saved}"
        assert not list(locked.iterdir())
