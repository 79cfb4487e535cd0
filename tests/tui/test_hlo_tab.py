"""The HLO tab: XLA's HLO of the current function, asked only while shown, linked to source."""

from __future__ import annotations

import pytest

from conftest import explorer, wait_for

pytestmark = pytest.mark.tf  # the worker imports TensorFlow


async def test_the_hlo_tab_shows_the_hlo_with_source_lines_and_links_them(flow_file, worker):
    app = explorer(flow_file, worker, "tensor_for")
    async with app.run_test(size=(140, 40)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        tab = app.panes.hlo
        assert tab.hlo is None  # asked only when shown
        await pilot.press("9")
        assert app.panes.panels.active == "tab-hlo"
        assert await wait_for(pilot, lambda: tab.hlo is not None)
        head = str(tab.head.render())
        assert "XLA compile" in head and "trace" in head
        # The HLO is of one call: the head names it, and where it came from.
        assert head.startswith("HLO of tensor_for(tf.constant(5)) [AGX_CALLS]\n"), head
        assert tab.hlo.compile_s > 0 and tab.hlo.trace_s > 0
        prompts = [str(tab.lines.get_option_at_index(i).prompt)
                   for i in range(tab.lines.option_count)]
        assert prompts[0].lstrip().startswith("HloModule")
        assert not any("source_file=" in p for p in prompts)  # TensorFlow's frame, dropped
        # `s += i` is line 16 of the fixture: its add in the loop body says so, and
        # highlighting it moves the source pane there.
        body = next(i for i, p in enumerate(prompts) if 'op_name="while/add"' in p
                    and " add(" in p)
        assert prompts[body].lstrip().startswith("L16 ")
        tab.lines.focus()
        tab.lines.highlighted = body
        assert await wait_for(pilot, lambda: app.source.cursor_location[0] + 1 == 16)


async def test_xla_refusing_a_function_is_one_sentence(tmp_path, worker):
    path = tmp_path / "strings.py"
    path.write_text("import tensorflow as tf\n\n\ndef strings(x):\n"
                    "    return tf.strings.join([x, x])\n\n\n"
                    "AGX_CALLS = {'strings': \"tf.constant('a')\"}\n")
    app = explorer(path, worker, "strings")
    async with app.run_test(size=(80, 24)) as pilot:
        assert await wait_for(pilot, lambda: app.state.report is not None)
        await pilot.press("9")
        tab = app.panes.hlo
        assert await wait_for(pilot, lambda: "XLA could not compile" in str(tab.head.render()))
        head = str(tab.head.render())
        assert head.startswith("strings(tf.constant('a')) [AGX_CALLS]: XLA could not compile "
                               "strings: ") and "\n" not in head, head
        assert tab.hlo is None and tab.lines.option_count == 0
