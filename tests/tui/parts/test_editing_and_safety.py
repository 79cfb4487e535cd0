"""Editing, the safety net and the ending by signal, alone (no app, no TensorFlow): a pause
in typing analyses and keeps a recovery copy, a save that fails keeps the edits, a copy a
crashed run left comes back, and a signal keeps the buffer before the end."""

from __future__ import annotations

import os
import signal

from agexplorer.state import recovery
from agexplorer.tui.buffer.disk import DiskWatch
from agexplorer.tui.buffer.ending import Ending
from agexplorer.tui.buffer.safety import SafetyNet
from agexplorer.tui.code.editing import Editing
from agexplorer.tui.code.made import Provenance
from agexplorer.tui.messages import EngineStatus
from agexplorer.tui.state import ExplorerState
from agexplorer.tui.status import StatusReporter
from agexplorer.tui.status_line import StatusLine
from tests.tui.parts.fakes import Source
from tests.tui.parts.test_provenance import Panels


class Buffer:
    """What the explorer has: the pane, its net, its editing."""

    def __init__(self, path: str, mounted: bool = True) -> None:
        with open(path, encoding="utf-8") as f:
            self.source = Source(path, f.read())
        self.state = ExplorerState()
        self.state.open((path, "f"))
        self.state.analysed_text = self.source.text
        self.line = StatusLine("")
        self.status = StatusReporter(self.line, self.state, lambda: None)
        self.mounted, self.told, self.analysed = mounted, [], 0
        self.safety = SafetyNet(lambda: self.source if self.mounted else None, self.told.append)
        self.disk = DiskWatch(self.status, self.safety.recovery, lambda: None)
        self.editing = Editing(self.state, lambda: self.source if self.mounted else None,
                               self._analyse, Provenance(lambda: self.source.text, Panels),
                               self.safety.recovery, self.disk, self.status, lambda *a, **k: None)

    def _analyse(self) -> None:
        self.analysed += 1
        self.state.analysed_text = self.source.text

    def copy(self) -> str | None:
        self.safety.recovery.wait()
        found = recovery.load_copy(self.source.path)
        return None if found is None else found.text


def program(tmp_path, text: str = "def f(x):\n    return x\n") -> str:
    path = tmp_path / "prog.py"
    path.write_text(text)
    return str(path)


def test_a_pause_in_typing_analyses_the_edit_once_and_keeps_a_recovery_copy(tmp_path):
    buffer = Buffer(program(tmp_path))
    buffer.editing.paused()  # the file just loaded: nothing to analyse, nothing to keep
    assert buffer.analysed == 0 and buffer.copy() is None
    buffer.source.text += "# edited\n"
    buffer.editing.paused()
    buffer.editing.paused()  # the same buffer again: analysed already
    assert buffer.analysed == 1 and buffer.copy() == buffer.source.text
    buffer.source.text = buffer.source.saved_text  # undone: the copy goes
    buffer.editing.paused()
    assert buffer.copy() is None


def test_a_save_writes_the_file_drops_the_copy_and_says_so(tmp_path):
    path = program(tmp_path)
    buffer = Buffer(path)
    buffer.source.text += "# saved\n"
    buffer.editing.paused()
    buffer.editing.save()
    assert open(path).read().endswith("# saved\n") and buffer.copy() is None
    assert "prog.py" in buffer.line.text and not buffer.line.has_class("error")


async def test_a_save_right_after_an_edit_analyses_it_now_and_its_note_outlasts_the_answer(
        tmp_path):
    """ctrl+s within the typing pause: the edit's re-conversion starts at the save, before
    its note, and the note is said again at the answer's "ready" (it started 0.6 s after the
    save, and its request let the note go before anyone could read it)."""
    buffer = Buffer(program(tmp_path))

    def analyse() -> None:  # as Requests.analyse tells the status line
        buffer.analysed += 1
        buffer.state.analysed_text = buffer.source.text
        buffer.status.let_go()
        buffer.status.set("tracing f…")

    buffer.editing.analyse = analyse
    buffer.source.text += "# saved at once\n"
    buffer.editing.edited()
    buffer.editing.save()
    assert buffer.analysed == 1  # now, not after the pause
    note = buffer.line.text
    assert "prog.py" in note
    buffer.status.engine(EngineStatus("ready", ready=True))  # the analysis answered
    assert buffer.line.text == note
    buffer.editing.stop()
    assert buffer.analysed == 1  # the pause's timer was stopped: analysed once


def test_a_save_that_fails_is_one_sentence_and_the_edits_stay(tmp_path):
    path = program(tmp_path)
    buffer = Buffer(path)
    buffer.source.text += "# kept\n"
    buffer.editing.paused()
    os.remove(path)
    os.mkdir(path)  # the file is now a folder: writing it fails
    buffer.editing.save()
    said = buffer.line.text
    assert said.startswith(f"could not save {path}") and said.endswith("kept in the buffer.")
    assert buffer.line.has_class("error") and buffer.source.dirty
    assert buffer.copy() == buffer.source.text
    buffer.status.engine(EngineStatus("trying the rewrites for f…"))  # the doctor, under way
    buffer.status.engine(EngineStatus("ready", ready=True))
    assert buffer.line.text == said  # a background request's "ready" does not wipe it


def test_nothing_is_done_while_the_panes_are_gone(tmp_path):
    buffer = Buffer(program(tmp_path), mounted=False)
    buffer.editing.paused()
    buffer.editing.save()
    assert buffer.analysed == 0 and buffer.safety.keep_unsaved() is None


def test_the_unsaved_buffer_is_kept_as_the_explorer_ends_unless_discarded(tmp_path):
    buffer = Buffer(program(tmp_path))
    assert buffer.safety.keep_unsaved() is None  # clean: nothing to keep
    buffer.source.text += "# unsaved\n"
    assert buffer.safety.keep_unsaved() == "prog.py"
    assert buffer.copy() == buffer.source.text
    assert buffer.safety.note.startswith("your unsaved edits to prog.py were kept")
    buffer.safety.discard(buffer.source.path)  # "Quit without saving"
    assert buffer.copy() is None and buffer.safety.keep_unsaved() is None


def test_a_copy_left_by_a_crash_comes_back_as_one_edit_and_a_saved_one_goes(tmp_path):
    path = program(tmp_path)
    disk = open(path).read()
    recovery.save_copy(path, disk + "# from the crash\n")
    buffer = Buffer(path)
    said = buffer.safety.restore(path, disk)
    assert said.startswith("restored unsaved edits to prog.py from ")
    assert buffer.source.text.endswith("# from the crash\n") and buffer.source.dirty
    recovery.save_copy(path, disk)  # the same as the file: saved after all
    assert buffer.safety.restore(path, disk) is None
    assert recovery.load_copy(path) is None


def restored(tmp_path) -> tuple[str, str, Buffer]:
    """A program whose recovery copy (one line more) was restored into the buffer."""
    path = program(tmp_path)
    disk = open(path).read()
    recovery.save_copy(path, disk + "# from the crash\n")
    buffer = Buffer(path)
    buffer.safety.restore(path, disk)
    return path, disk, buffer


def test_ctrl_z_outside_the_editor_drops_the_restored_edits_while_they_are_the_newest(tmp_path):
    # The status line says "ctrl+z drops them" wherever the focus is; outside the editor
    # ctrl+z is the Doctor's undo, which answered "no fix was applied".
    path, disk, buffer = restored(tmp_path)
    said = buffer.safety.drop_restored()
    assert said == "the restored edits to prog.py are dropped: the buffer is the file on disk again"
    assert buffer.source.text == disk and not buffer.source.dirty
    assert buffer.safety.drop_restored() is None  # once: then ctrl+z is the Doctor's again
    recovery.save_copy(path, disk + "# again\n")
    buffer.safety.restore(path, disk)
    buffer.source.replace_changed_lines(disk + "# again\n# typed since\n")  # a later edit
    assert buffer.safety.drop_restored() is None and buffer.source.text.endswith("since\n")


def test_restored_edits_undone_in_the_editor_are_not_kept_by_a_quick_quit(tmp_path):
    # The copy goes at the typing pause after the undo; a quit before it kept the copy, so
    # the edits the user dropped came back at the next open.
    path, _, buffer = restored(tmp_path)
    buffer.source.undo_edit(buffer.source.last_edit())  # ctrl+z in the editor
    assert buffer.safety.keep_unsaved() is None
    assert recovery.load_copy(path) is None


class Ends:
    def __init__(self, headless: bool, running: bool = True) -> None:
        self.events: list[str] = []
        self.ending = Ending(lambda: self.events.append("kept"),
                             lambda code: self.events.append(f"end {code}"),
                             lambda: running, lambda: self.events.append("closed"),
                             lambda: headless)


def test_a_signal_keeps_the_buffer_first_then_ends_with_its_code():
    ends = Ends(headless=True)
    ends.ending.by_signal(signal.SIGTERM)
    assert ends.events == ["kept", "end 143"]


def test_in_a_terminal_a_last_resort_timer_waits_and_goes_once_the_run_is_over():
    ends = Ends(headless=False)
    ends.ending.by_signal(signal.SIGHUP)
    timer = ends.ending._last_resort
    assert ends.events == ["kept", "end 129"] and timer is not None and timer.is_alive()
    ends.ending.ended()
    timer.join(2)
    assert not timer.is_alive() and ends.events == ["kept", "end 129"]  # not "closed"


def test_a_closed_input_ends_a_running_explorer_as_sighup_and_not_one_already_ending():
    running = Ends(headless=True)
    running.ending.input_closed()
    assert running.events == ["kept", "end 129"]
    ending = Ends(headless=True, running=False)
    ending.ending.input_closed()
    assert ending.events == []
