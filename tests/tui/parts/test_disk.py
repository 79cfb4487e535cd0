"""DiskWatch alone (no app, no TensorFlow): a file changed, edited under unsaved edits, deleted
and back, as the once-a-second check finds it."""

from __future__ import annotations

import os

from agexplorer.source.files import SourceFile
from agexplorer.tui.buffer.disk import DiskWatch
from agexplorer.tui.state import ExplorerState
from agexplorer.tui.status import StatusReporter
from agexplorer.tui.status_line import StatusLine


class Buffer:
    """The source pane's part the watch uses."""

    def __init__(self, path: str) -> None:
        self.path: str | None = path
        with open(path, encoding="utf-8") as f:
            self.text = self.saved_text = f.read()
        self.missing = False
        self.source_file: SourceFile | None = None
        self.opened: list[str] = []

    @property
    def dirty(self) -> bool:
        return self.missing or self.text != self.saved_text

    def open(self, path: str, text: str, source_file: SourceFile | None = None) -> None:
        self.text = self.saved_text = text
        self.opened.append(text)


class Recovery:
    def __init__(self) -> None:
        self.kept: list[tuple[str, str]] = []

    def keep(self, path: str, text: str) -> None:
        self.kept.append((path, text))


def watch(tmp_path, text: str = "x = 1\n"):
    path = tmp_path / "a.py"
    path.write_text(text, encoding="utf-8")
    line, recovery, reloads = StatusLine(), Recovery(), []
    disk = DiskWatch(StatusReporter(line, ExplorerState(), lambda: None), recovery,
                     lambda: reloads.append(1))
    buffer = Buffer(str(path))
    disk.saw(str(path))
    return disk, buffer, path, line, recovery, reloads


def rewrite(path, text: str) -> None:
    before = os.stat(path).st_mtime_ns
    path.write_text(text, encoding="utf-8")
    os.utime(path, ns=(before + 10**9, before + 10**9))  # a later time, however fast


def test_an_unchanged_file_is_left_alone(tmp_path):
    disk, buffer, _, line, _, reloads = watch(tmp_path)
    disk.check(buffer)
    assert buffer.opened == [] and reloads == [] and line.text == ""


def test_a_clean_buffer_is_reloaded_and_analysed_again(tmp_path):
    disk, buffer, path, line, _, reloads = watch(tmp_path)
    rewrite(path, "x = 2\n")
    disk.check(buffer)
    assert buffer.opened == ["x = 2\n"] and reloads == [1]
    assert line.text == "reloaded a.py: it changed on disk"


def test_unsaved_edits_are_kept_and_the_change_is_held_on_the_status_line(tmp_path):
    disk, buffer, path, line, _, reloads = watch(tmp_path)
    buffer.text = "x = 'mine'\n"
    rewrite(path, "x = 'theirs'\n")
    disk.check(buffer)
    assert buffer.text == "x = 'mine'\n" and buffer.opened == [] and reloads == []
    assert buffer.saved_text == "x = 'theirs'\n" and buffer.dirty  # ctrl+s overwrites
    assert line.text.startswith("a.py changed on disk; your unsaved edits are kept")
    disk.check(buffer)  # nothing new on disk: said once
    assert buffer.text == "x = 'mine'\n"


def test_a_deleted_file_is_announced_once_kept_and_compared_when_back(tmp_path):
    disk, buffer, path, line, recovery, reloads = watch(tmp_path)
    path.unlink()
    disk.check(buffer)
    disk.check(buffer)
    assert buffer.missing and buffer.dirty
    assert line.text == "a.py was deleted on disk: ctrl+s writes it again"
    assert recovery.kept == [(str(path), "x = 1\n")]  # once: the buffer is all there is
    path.write_text("x = 3\n", encoding="utf-8")  # another program writes it again
    disk.check(buffer)
    assert not buffer.missing and buffer.opened == ["x = 3\n"] and reloads == [1]


def test_a_file_that_cannot_be_read_any_more_is_one_sentence(tmp_path):
    disk, buffer, path, line, _, reloads = watch(tmp_path)
    before = os.stat(path).st_mtime_ns
    path.write_bytes(b"\xff\xfe\x00 not text \x00")
    os.utime(path, ns=(before + 10**9, before + 10**9))
    disk.check(buffer)
    assert line.has_class("error") and "a.py" in line.text and "\n" not in line.text
    assert buffer.opened == [] and reloads == []
