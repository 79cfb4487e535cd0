"""The first frame's function list: drawn as lines (ListSkeleton), then given way to the
FunctionPicker, which looks the same, takes the focus, and comes from the same listing."""

from __future__ import annotations

import glob
import os
from typing import Any

import pytest
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.strip import Strip
from tui.test_layout import AskedWorker

from agexplorer.tui.functions.listing import ListSkeleton, list_file
from agexplorer.tui.functions.picker import FunctionPicker
from conftest import SAMPLES, wait_for

WIDTH, HEIGHT = 32, 24  # a list narrower than its longest name: the labels are cut


@pytest.fixture
def paths(tmp_path) -> list[str]:
    """Samples, a file that does not parse, one whose name is wider than the list, and one
    whose name is markup."""
    broken, long, weird = tmp_path / "broken.py", tmp_path / "long.py", tmp_path / "we[ird].py"
    broken.write_text("def broken(:\n    pass\n")
    long.write_text("import tensorflow as tf\n\n\n@tf.function\n"
                    "def a_function_named_far_wider_than_the_list(x):\n    return x\n\n\n"
                    "class Model:\n    def call(self, x):\n        return x\n")
    weird.write_text("def f():\n    return 1\n")
    samples = sorted(glob.glob(os.path.join(SAMPLES, "*.py")))[:3]
    return [*samples, str(broken), str(long), str(weird)]


class Both(App):
    """The lines and the picker side by side, as the explorer styles them (the picker with
    the focus, as it has once it is in)."""

    CSS = f".function-list {{ width: {WIDTH}; height: {HEIGHT}; border: round $accent; }}"

    def __init__(self, paths: list[str]) -> None:
        super().__init__()
        self.listing = [list_file(path) for path in paths]
        self.paths = paths

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield ListSkeleton(self.listing, classes="function-list")
            picker = FunctionPicker(self.paths, listing=self.listing, classes="function-list")
            picker.border_title = "functions"
            yield picker


def cells(strip: Strip) -> list[tuple]:
    """Each cell of a row: its character, its colours (as RGB) and its attributes. (Not the
    row's ANSI text: rich keeps a style's codes from its first rendering, whatever colour
    system a later console has, and the tests of this process share styles.)"""
    def rgb(color: Any) -> Any:
        return None if color is None else color.get_truecolor()

    return [(char, rgb(style.color), rgb(style.bgcolor), style.bold, style.dim, style.italic,
             style.underline, style.reverse, style.strike)
            for text, style, _ in strip for char in text
            for style in [style or Style()]]


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", "nord"])
async def test_the_first_frames_lines_are_the_focused_lists_own(paths, theme):
    app = Both(paths)
    app.theme = theme
    async with app.run_test(size=(80, 30)) as pilot:
        picker, lines = app.query_one(FunctionPicker), app.query_one(ListSkeleton)
        picker.focus()
        region = Region(0, 0, WIDTH, HEIGHT)

        def drawn() -> list[list[tuple]]:
            return [cells(strip) for strip in lines.render_lines(region)]

        def shown() -> list[list[tuple]]:
            return [cells(strip) for strip in picker.render_lines(region)]

        # (the focus restyles the picker a moment later)
        await wait_for(pilot, lambda: picker.has_focus and drawn() == shown(), 10)
        text = "\n".join(strip.text for strip in lines.render_lines(region))
        # what the list shows: each file, its functions, the cut name, the parse error
        assert "▼ broken.py" in text and f"└── {paths[3]}:1: syntax error"[:WIDTH - 2] in text
        assert "└── Model.call 10" in text and "▼ we[ird].py" in text
        assert "├── a_function_named_far_wide…" in text
        # every row, every colour, the border and its title
        lines_drawn, list_shown = drawn(), shown()
        assert lines_drawn == list_shown, [(i, a, b) for i, (a, b) in enumerate(
            zip(lines_drawn, list_shown, strict=True)) if a != b]


async def test_the_picker_takes_the_lines_place_and_the_focus_just_after_the_first_frame():
    from agexplorer.tui.app import AgxApp

    target = os.path.join(SAMPLES, "s6_2_bad_loop.py")
    app = AgxApp([target], worker=AskedWorker())
    seen: list[tuple[str, ...]] = []
    ready = AgxApp.on_ready

    async def first_frame(self):  # the first frame is on screen: what it drew
        seen.append(tuple(sorted(w.id or "" for w in self.query(".function-list"))))
        await ready(self)

    AgxApp.on_ready = first_frame
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            assert await wait_for(pilot, lambda: app.workspace_ready)
            assert seen == [("skeleton",)]
            assert [w.id for w in app.query(".function-list")] == ["picker"]
            picker = app.picker()
            assert picker is not None and picker.functions() == [
                (target, name) for name in ("bad_loop", "fixed_loop", "range_loop",
                                            "tf_range_loop")]
            assert picker.border_title == "functions" and app.focused is picker
    finally:
        AgxApp.on_ready = ready


async def test_the_picker_reads_no_file_the_lines_read(paths, monkeypatch):
    from agexplorer.tui.functions import picker as picker_module

    app = Both(paths)
    monkeypatch.setattr(picker_module, "list_file", lambda path: pytest.fail(path))
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        picker = app.query_one(FunctionPicker)
        assert len(picker.functions()) > 3
        assert list(picker.unlisted) == [paths[3]]  # the file that does not parse, and why
        assert picker.unlisted[paths[3]].startswith(f"{paths[3]}:1: syntax error")


async def test_the_picker_knows_the_calls_the_first_frame_left_out(tmp_path):
    """The first frame lists without the file's own calls (drawing needs none); the picker
    has them: a function the file calls is ready (opened first, run without arguments)."""
    path = tmp_path / "called.py"
    path.write_text("import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    return x\n\n\n"
                    "f(tf.constant(3))\n")
    first = list_file(str(path), calls=False)
    assert [(f.qualname, f.ready, f.file_call) for f in first.functions] == [("f", False, None)]
    app = Both([str(path)])
    app.listing = [first]
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        assert app.query_one(FunctionPicker).ready(str(path), "f")
