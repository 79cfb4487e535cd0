"""Provenance alone (no app, no TensorFlow): each result panel's header names what it was
made from, and is marked "before your last edit" exactly while the buffer differs."""

from __future__ import annotations

from agexplorer.tui.code.made import Made, Provenance

F = ("/p/a.py", "bad_loop")


class Panels:
    def __init__(self) -> None:
        self.origins: dict[str, tuple[str, bool]] = {}
        self.drawn: list[str] = []  # every header drawn, in order
        self.op: tuple[str, bool] | None = None

    def set_origin(self, panel: str, header: str, stale: bool) -> None:
        self.origins[panel] = (header, stale)
        self.drawn.append(panel)

    def show_op_detail(self, text, stale: bool) -> None:
        self.op = (str(text), stale)


def provenance(buffer: list[str]) -> tuple[Provenance, Panels]:
    panels = Panels()
    return Provenance(lambda: buffer[0], lambda: panels), panels


def test_a_panel_names_its_call_and_is_marked_while_the_buffer_differs():
    buffer = ["v1"]
    made, panels = provenance(buffer)
    made.set("run", Made(F, "v1", "bad_loop(5)"))
    made.show("run")
    assert panels.origins["run"] == ("run: bad_loop(5)", False)
    buffer[0] = "v2"  # an edit
    made.mark()
    assert panels.origins["run"] == ("run: from bad_loop(5), before your last edit", True)
    buffer[0] = "v1"  # undone
    made.mark()
    assert panels.origins["run"] == ("run: bad_loop(5)", False)


def test_only_the_panels_whose_state_changed_are_drawn_again_at_each_pause():
    buffer = ["v1"]
    made, panels = provenance(buffer)
    made.set("trace", Made(F, "v1", "bad_loop, calls the file's AGX_RETRACE"))
    made.set("doctor", Made(F, "v0", "bad_loop(5)"))  # examined an older buffer
    made.show("trace")
    made.show("doctor")
    assert panels.origins["trace"][0].startswith("retraces: ")
    assert panels.origins["doctor"] == ("examined: from bad_loop(5), before your last edit", True)
    panels.drawn.clear()
    made.mark()  # nothing changed since they were drawn
    assert panels.drawn == []
    buffer[0] = "v0"
    made.mark()
    assert panels.drawn == ["trace", "doctor"]


def test_the_op_detail_shows_its_header_above_the_op_and_goes_with_the_function():
    buffer = ["v1"]
    made, panels = provenance(buffer)
    made.set("op", Made(F, "v1", "bad_loop(5)"))
    made.show("op")
    assert panels.op == ("", False)  # no op chosen yet
    made.op_detail = "while/add: AddV2"
    made.show("op")
    assert panels.op == ("op: bad_loop(5)\nwhile/add: AddV2", False)
    made.clear()  # another function
    made.show("op")
    made.forget("run")
    made.show("run")
    assert panels.op == ("", False) and panels.origins["run"] == ("", False)
