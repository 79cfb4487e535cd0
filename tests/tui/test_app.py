"""The explorer, driven by Textual's Pilot against a real worker."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from agexplorer.worker.client import Worker
from conftest import ROOT, explorer, until_ended, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


@pytest.fixture
def user_file(flow_file):
    return flow_file


def app_for(path, worker, function="python_for"):
    return explorer(path, worker, function)


async def test_first_paint_lists_functions_before_the_engine_answers(user_file, worker):
    app = app_for(user_file, worker)
    async with app.run_test(size=(140, 40)) as pilot:
        picker = app.query_one("#picker")
        assert any(q == "python_for" for _, q in picker.functions())
        names = [q for _, q in picker.functions()]
        assert names[:3] == ["python_for", "tensor_for", "python_while"]
        assert await wait_for(pilot, lambda: app.state.report is not None)


async def test_picking_a_function_shows_code_verdicts_and_ops(user_file, worker):
    app = app_for(user_file, worker, "tensor_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        assert "def tf__tensor_for(n):" in app.query_one("#converted").text
        table = app.query_one("#verdicts")
        assert table.row_count == 1
        assert "StatelessWhile" in str(table.get_row_at(0)[2])
        await pilot.press("alt+down")  # next function: python_while
        assert await wait_for(pilot, lambda: app.state.report is not None
                              and app.state.report.function == "python_while")
        assert app.query_one("#source").border_title.endswith("python_while")


async def test_moving_the_cursor_highlights_the_converted_lines(user_file, worker):
    app = app_for(user_file, worker, "tensor_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        source = app.query_one("#source")
        source.focus()
        source.move_cursor((14, 4))  # line 15: for i in tf.range(n)
        converted = app.query_one("#converted")
        wanted = app.state.report.conversion.converted_lines_for(15)

        def selected() -> tuple[int, int]:
            start, end = sorted([converted.selection.start, converted.selection.end])
            return start[0] + 1, end[0] + 1

        assert await wait_for(pilot, lambda: selected() == (min(wanted), max(wanted)), 10)
        assert "for_stmt" in converted.selected_text
        verdicts = app.query_one("#verdicts")
        assert verdicts.cursor_row == 0  # the loop's row

        # From the Graph tab: the op a line made leads back to that line everywhere.
        app.query_one("#panels").active = "tab-graph"
        ops = app.query_one("#ops")
        assert await wait_for(pilot, lambda: 14 in ops._by_line)
        ops.focus()
        ops.move_cursor(ops._by_line[14][0])  # s = tf.constant(0)
        assert await wait_for(pilot, lambda: source.cursor_location[0] == 13)
        made = app.state.report.conversion.converted_lines_for(14)
        assert await wait_for(pilot, lambda: selected() == (min(made), max(made)))
        detail = app.query_one("#op-detail")
        assert "Const" in str(detail.render())
        # its attributes, read from the trace in the worker
        assert await wait_for(pilot, lambda: "dtype=int32" in str(detail.render()))
        assert "value=int32[] 0" in str(detail.render())


async def test_moving_in_the_verdict_table_highlights_the_statement(user_file, worker):
    app = app_for(user_file, worker, "if_in_unrolled_loop")  # for (line 34), if (line 35)
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)  # no arguments yet
        app.query_one("#call").value = "tf.constant(1.0), 2"
        app.analyse()
        verdicts, source = app.query_one("#verdicts"), app.query_one("#source")
        assert await wait_for(pilot, lambda: verdicts.row_count == 2)
        verdicts.focus()
        await pilot.press("down")  # the keyboard, not Enter: only the cursor moves
        assert await wait_for(pilot, lambda: source.cursor_location[0] == 34)
        assert not source.has_focus
        converted = app.query_one("#converted")
        assert "if_stmt" in converted.selected_text or "if " in converted.selected_text
        # The table is filled again when it resizes (and when the doctor's trials change a
        # fix): the row the user is on stays, and so does the source's line.
        await pilot.resize_terminal(120, 36)
        await pilot.pause(0.3)
        assert verdicts.cursor_row == 1 and source.cursor_location[0] == 34


async def test_an_edit_reconverts_and_a_syntax_error_keeps_the_last_results(user_file, worker):
    app = app_for(user_file, worker, "python_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        source = app.query_one("#source")
        source.focus()
        source.replace("range(n + 1)", (7, 13), (7, 21))  # for i in range(n):
        assert await wait_for(pilot, lambda: "ag__.ld(n) + 1" in app.state.report.conversion.code
                              if app.state.report and app.state.report.conversion else False)
        assert source.dirty and user_file.read_text().count("range(n + 1)") == 0
        source.insert("(((", (7, 0))
        assert await wait_for(pilot, lambda: app.query_one("#converted").has_class("stale"))
        assert "syntax error" in str(app.query_one("#status").render())
        assert "ag__.ld(n) + 1" in app.query_one("#converted").text  # last good results stay


async def test_an_edits_converted_code_is_shown_while_its_function_is_traced(user_file,
                                                                           worker):
    # The worker sends AutoGraph's code ahead of the report: the converted pane shows it
    # before the verdicts come, and the report's own code is the same text.
    app = app_for(user_file, worker, "python_for")
    heard: list[tuple] = []

    class Heard:
        def on_code_converted(self, message):
            shown = app.query_one("#converted").text == message.conversion.code
            heard.append(("code", message.key.generation, shown, app.state.answered))

        def on_report_changed(self, message):
            heard.append(("report", message.key.generation, message.report.conversion.code))

    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.state.subscribe(Heard())
        answered = app.state.answered
        app.query_one("#source").replace("range(n + 1)", (7, 13), (7, 21))
        assert await wait_for(pilot, lambda: app.state.answered != answered)
        generation = app.state.answered
        code = app.state.report.conversion.code
        assert "ag__.ld(n) + 1" in code
        assert heard == [("code", generation, True, answered), ("report", generation, code)]


async def test_the_picker_follows_the_edited_buffer(user_file, worker):
    app = app_for(user_file, worker, "tensor_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        picker, path = app.query_one("#picker"), str(user_file)
        before = {q: picker.label(path, q) for _, q in picker.functions()}
        assert before["tensor_for"].startswith("tensor_for 13")
        app.query_one("#source").insert("# a note\n# and another\n", (0, 0))
        assert await wait_for(pilot, lambda: picker.label(path, "tensor_for").startswith(
            "tensor_for 15"))
        assert picker.label(path, "python_for").startswith("python_for 8")  # all of the file
        assert before["python_for"].startswith("python_for 6")
        assert "staged" in picker.label(path, "tensor_for")  # the badge stays
        source = app.query_one("#source")
        source.insert("\n\ndef added_later(n):\n    return n\n", source.document.end)
        assert await wait_for(pilot, lambda: (path, "added_later") in picker.functions())
        assert picker.functions()[-1] == (path, "added_later")
        assert await wait_for(pilot, lambda: picker.cursor_node.data == (path, "tensor_for"))
        assert "staged" in picker.label(path, "tensor_for")


async def test_run_shows_results_and_timings(user_file, worker):
    app = app_for(user_file, worker, "tensor_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        app.query_one("#call").value = "tf.constant(4)"
        await pilot.press("f5")
        assert await wait_for(pilot, lambda: app.state.lab is not None), \
            str(app.query_one("#status").render())
        assert app.state.lab.runs["graph"].result == "int32[] 6"
        assert app.query_one("#panels").active == "tab-run"


def detail(app) -> str:
    return str(app.query_one("#finding-detail").render())


async def test_a_function_that_needs_arguments_says_where_to_type_them(tmp_path, worker):
    path = tmp_path / "step.py"
    path.write_text("import tensorflow as tf\n\n\n@tf.function\ndef step(x, steps):\n"
                    "    for _ in range(steps):\n        x = x * 2.0\n    return x\n")
    app = explorer(path, worker, "step")
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        # The TUI's way first (the command line's --call is no help here), within 80 columns.
        status = app.status_line.text
        assert status.startswith("step takes arguments (x, steps): type them in the Run tab (5), "
                                 "e.g. tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]), "
                                 "and press F5"), status
        assert "--call" not in status and status.index("Run tab") < 70, status
        app.panes.verdicts.focus()
        await pilot.press("t")  # the retrace explainer needs calls too: typed in its box
        assert await wait_for(pilot, lambda: "Trace tab's box" in app.status_line.text)
        assert app.status_line.text.startswith("step takes arguments: type the calls")
        doctor = app.doctor_tab
        assert await wait_for(pilot, lambda: "Nothing examined yet" in detail(app))
        assert "Run tab (5)" in detail(app) and "--call" not in detail(app)
        app.panes.verdicts.focus()
        await pilot.press("5")  # the Run tab, its call box ready for the arguments
        assert app.focused is app.call_input
        await pilot.press(*"tf.ones([2]), 3", "f5")
        assert await wait_for(pilot, lambda: app.state.lab is not None)
        assert [v.iterations for v in app.state.report.statements] == [3]
        # The doctor reads that trace: the unrolled loop is a finding now.
        assert await wait_for(pilot, lambda: 6 in [f.line for f in doctor.findings]), \
            ([(f.code, f.line) for f in doctor.findings], detail(app))


async def test_quit_with_unsaved_edits_asks_first(user_file, worker):
    app = app_for(user_file, worker, "python_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        source = app.query_one("#source")
        source.insert("# note\n", (0, 0))
        await pilot.press("ctrl+q")
        assert await wait_for(pilot, lambda: type(app.screen).__name__ == "ConfirmQuit", 5)
        await pilot.click("#save")
        assert await until_ended(app)
    assert user_file.read_text().startswith("# note\n")


def test_the_tui_process_never_imports_tensorflow(user_file):
    code = f"""
import asyncio, json, sys
from agexplorer.tui.app import AgxApp

async def main():
    app = AgxApp([{str(user_file)!r}], "tensor_for")
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(600):
            if app.state.report is not None:
                break
            await pilot.pause(0.1)
        print(json.dumps({{"traced": app.state.report is not None, "tf": "tensorflow" in sys.modules}}))

asyncio.run(main())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         timeout=300).stdout
    assert json.loads(out.strip().splitlines()[-1]) == {"traced": True, "tf": False}


async def test_the_gutter_marks_each_statement_with_its_verdict(user_file, worker):
    app = app_for(user_file, worker, "python_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        gutter = app.query_one("#gutter")
        assert gutter.mark_at(8) == "unrolled x3"
        source = app.query_one("#source")

        def level_with_8() -> str:  # the gutter's text on line 8's row, once laid out
            return gutter.line_text(8 - (int(source.scroll_y) + 1))

        # Under 180 columns the gutter draws the short mark, leaving the columns to the code.
        assert await wait_for(pilot, lambda: level_with_8() == "▌x3", 10), level_with_8()
        assert gutter.compact
        await pilot.resize_terminal(190, 45)
        assert await wait_for(pilot, lambda: not gutter.compact)
        assert await wait_for(pilot, lambda: level_with_8() == "▌unrolled x3", 10), level_with_8()


async def test_a_change_on_disk_reloads_a_clean_buffer_and_keeps_edits(user_file, worker):
    app = app_for(user_file, worker, "python_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        source = app.query_one("#source")
        user_file.write_text(user_file.read_text() + "\n# added elsewhere\n")
        assert await wait_for(pilot, lambda: "# added elsewhere" in source.text, 10)
        assert not source.dirty
        source.insert("# mine\n", (0, 0))
        user_file.write_text(user_file.read_text() + "# and again\n")
        assert await wait_for(pilot, lambda: "changed on disk" in str(
            app.query_one("#status").render()), 10)
        assert source.text.startswith("# mine\n") and source.dirty


async def test_a_hang_is_reported_the_worker_restarts_and_the_buffer_stays(tmp_path):
    path = tmp_path / "hangs.py"
    path.write_text("import time\n\n\ndef stuck(x):\n    while True:\n        time.sleep(0.01)\n"
                    "\n\ndef fine(x):\n    return x + 1\n\n\nAGX_CALLS = {'stuck': '1', 'fine': '1'}\n")
    worker = Worker(timeout=5)
    app = app_for(path, worker, "stuck")
    try:
        async with app.run_test(size=(140, 40)) as pilot:
            status = app.query_one("#status")
            assert await wait_for(pilot, lambda: "timed out after 5 s" in str(status.render()))
            assert f"{path}:6" in str(status.render())
            source = app.query_one("#source")
            source.insert("# kept\n", (0, 0))
            await pilot.press("alt+down")  # fine: a fresh worker answers
            assert await wait_for(pilot, lambda: app.state.report is not None
                                  and app.state.report.function == "fine")
            assert source.text.startswith("# kept\n")
    finally:
        worker.close()


async def test_graph_filter_devices_and_call_history(user_file, worker):
    app = app_for(user_file, worker, "tensor_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None and app.engine_ready)
        ops = app.query_one("#ops")
        assert ops._pending  # the Graph tab is not open: the tree waits
        app.query_one("#panels").active = "tab-graph"
        assert await wait_for(pilot, lambda: not ops._pending, 10)
        app.query_one("#op-filter").value = "AddV2"

        def shown(node) -> set[str]:
            types = set()
            for child in node.children:
                if child.data is not None:
                    types.add(child.data.type)
                types |= shown(child)
            return types

        # The while stays: it holds the body.
        assert await wait_for(pilot, lambda: shown(ops.root) == {"AddV2", "StatelessWhile"}, 10)
        panel = app.query_one("#run-panel")
        assert await wait_for(pilot, lambda: len(panel.query_one("#device")._options) > 1, 10)
        app.query_one("#call").value = "tf.constant(3)"
        await pilot.press("f5")
        assert await wait_for(pilot, lambda: app.state.lab is not None)
        assert panel.history == ["tf.constant(3)"]
        assert app.state.lab.device == "/device:CPU:0"


async def test_each_source_line_has_one_colour_in_both_gutters_and_the_ops(user_file, worker):
    app = app_for(user_file, worker, "tensor_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        gutter, refs, ops = app.query_one("#gutter"), app.query_one("#refs"), app.query_one("#ops")
        colour = gutter.shades[15]  # for i in tf.range(n)
        assert refs.shades[15] == colour and ops.shades[15] == colour
        converted_lines = app.state.report.conversion.converted_lines_for(15)
        assert all(refs.origin[c] == 15 for c in converted_lines if refs.origin.get(c) == 15)
        assert len(set(gutter.shades.values())) == len(gutter.shades)  # distinct per line
        app.action_toggle_palette()
        assert gutter.shades[15] != colour and refs.shades[15] == gutter.shades[15]


async def test_a_program_s_main_is_not_what_the_explorer_opens_first(tmp_path, worker):
    # main() runs the tf.function from Python: opened first, it read "for epoch in range(3):
    # unrolled x3, fix: iterate over tf.range(3)". The tf.function opens, asking for its
    # arguments.
    path = tmp_path / "train.py"
    path.write_text("import tensorflow as tf\n\n\ndef main():\n    for epoch in range(3):\n"
                    "        step(tf.constant(1.0))\n\n\n@tf.function\ndef step(x):\n"
                    "    return x * 2.0\n\n\nif __name__ == \"__main__\":\n    main()\n")
    app = explorer(path, worker, None)
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.target is not None)
        assert app.state.target == (str(path), "step")
        picker = app.query_one("#picker")
        assert picker.drives(str(path), "main") and not picker.drives(str(path), "step")


async def test_the_marks_follow_their_code_as_lines_are_added_and_removed(user_file, worker,
                                                                          monkeypatch):
    # Until the edit's answer comes, the gutters, the verdict rows and the linking keep each
    # mark on its statement's code, not on the line number the report gave it. (The edits'
    # pause is made long enough that their answer cannot come before these checks on a busy
    # machine: in a full run it once came first.)
    from agexplorer.tui.code import editing

    monkeypatch.setattr(editing, "EDIT_PAUSE", 5.0)
    app = app_for(user_file, worker, "tensor_for")  # for i in tf.range(n) at line 15
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        gutter, verdicts = app.query_one("#gutter"), app.query_one("#verdicts")
        source, refs = app.query_one("#source"), app.query_one("#refs")
        assert gutter.mark_at(15) == "staged" and verdicts.get_row_at(0)[0] == "15"
        shown, origin = app.state.report, dict(refs.origin)
        source.insert("# a note\n# and another\n", (0, 0))  # two lines above everything
        assert gutter.mark_at(17) == "staged" and gutter.mark_at(15) == ""
        assert verdicts.get_row_at(0)[0] == "17"
        assert refs.origin == {converted: line + 2 for converted, line in origin.items()}
        from agexplorer.tui.doctor.panel import DoctorPanel  # a finding names the report's line

        app.post_message(DoctorPanel.Jump(15))
        assert await wait_for(pilot, lambda: source.cursor_location[0] == 16, 5)
        # Enter at the end of the loop's line leaves its mark; at the start of its code, the
        # mark goes down with the code.
        source.insert("\n    ", (16, len(source.document.get_line(16))))
        assert gutter.mark_at(17) == "staged"
        source.insert("\n    ", (16, 4))
        assert gutter.mark_at(18) == "staged" and gutter.mark_at(17) == ""
        # The linking reads the report's line for the cursor's: line 18 is the loop's.
        source.focus()
        source.move_cursor((17, 4))
        assert await wait_for(pilot, lambda: "for_stmt" in app.query_one("#converted")
                              .selected_text, 5)
        assert app.state.report is shown  # all of it before the edits' answer
        # The answer, for the buffer now: the same marks at the same places.
        assert await wait_for(pilot, lambda: app.state.report is not shown)
        assert not app.state.moves
        assert gutter.mark_at(18) == "staged" and verdicts.get_row_at(0)[0] == "18"
        source.undo()
        source.undo()
        source.undo()  # back to the file's lines, marks first
        assert gutter.mark_at(15) == "staged" and verdicts.get_row_at(0)[0] == "15"


async def test_a_file_that_does_not_parse_is_mended_in_the_editor(tmp_path, worker):
    """Opened alone, a file that does not parse shows in the editor with its syntax error;
    once the line is mended there, its function opens and is analysed."""
    path = tmp_path / "broken.py"
    path.write_text("import tensorflow as tf\n\n\n@tf.function\ndef broken(n:\n"
                    "    for i in range(3):\n        n += 1\n    return n\n\n\n"
                    "AGX_CALLS = {\"broken\": \"tf.constant(1)\"}\n")
    app = explorer(path, worker)
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: "syntax error" in app.query_one("#status").text)
        source = app.query_one("#source")
        assert source.text == path.read_text() and app.state.target == (str(path), "")
        assert str(source.border_title) == "broken.py"
        source.insert(")", (4, len("def broken(n")))
        assert await wait_for(pilot, lambda: app.state.target == (str(path), "broken")
                              and app.state.report is not None)
        assert any(v.unrolled for v in app.state.report.statements)
        assert app.picker().functions() == [(str(path), "broken")]
