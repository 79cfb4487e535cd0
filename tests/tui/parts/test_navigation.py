"""Navigation alone (no app, no TensorFlow): opening a function reads its file and analyses it
once the keys rest, quick steps analyse only the last, another file waits for a clean buffer,
and a missing file or an empty list is one sentence."""

from __future__ import annotations

from types import SimpleNamespace

from agexplorer.state import recovery
from agexplorer.tui.buffer.disk import DiskWatch
from agexplorer.tui.buffer.safety import SafetyNet
from agexplorer.tui.code.made import Provenance
from agexplorer.tui.functions.navigation import ANALYSE_PAUSE, Navigation
from agexplorer.tui.requests import Requests
from agexplorer.tui.state import ExplorerState
from agexplorer.tui.status import StatusReporter
from agexplorer.tui.status_line import StatusLine
from tests.tui.parts.fakes import Later, Source, Timers, workspace
from tests.tui.parts.test_provenance import Panels

ONE = "def first(x):\n    return x\n\n\ndef second(x):\n    return x + 1\n"
TWO = "def third(x):\n    return -x\n"


class Picker:
    """The function list: its functions in order, its cursor, what it was told."""

    def __init__(self, functions: list[tuple[str, str]], paths: list[str],
                 ready: set[str] | None = None, staged: set[str] = frozenset(),
                 drivers: set[str] = frozenset()) -> None:
        self._functions, self.paths = functions, paths
        self._ready = ready  # the qualnames with ready inputs (None: every one)
        self._staged, self._drivers = staged, drivers  # tf.functions; main()s calling them
        self.selected: list[tuple[str, str]] = []
        self.unlisted: dict[str, str] = {}  # path -> why it could not be listed
        self.cursor_node: SimpleNamespace | None = None
        self.updates: list[tuple[str, list]] = []

    def functions(self) -> list[tuple[str, str]]:
        return list(self._functions)

    def ready(self, path: str, qualname: str) -> bool:
        return self._ready is None or qualname in self._ready

    def staged(self, path: str, qualname: str) -> bool:
        return qualname in self._staged

    def drives(self, path: str, qualname: str) -> bool:
        return qualname in self._drivers

    def select_function(self, path: str, qualname: str) -> None:
        self.selected.append((path, qualname))

    def update_functions(self, path: str, functions: list, text: str | None = None) -> bool:
        self.updates.append((path, [f.qualname for f in functions]))
        self._functions = [f for f in self._functions if f[0] != path] + \
            [(path, f.qualname) for f in functions]
        return True


class Explorer:
    def __init__(self, tmp_path, functions: list[tuple[str, str]] | None = None) -> None:
        self.one, self.two = tmp_path / "one.py", tmp_path / "two.py"
        self.one.write_text(ONE)
        self.two.write_text(TWO)
        one, two = str(self.one), str(self.two)
        self.functions = [(one, "first"), (one, "second"), (two, "third")] \
            if functions is None else functions
        self.state = ExplorerState()
        self.line = StatusLine("")
        self.status = StatusReporter(self.line, self.state, lambda: None)
        self.source = Source()
        self.panes = workspace(self.source)
        self.picker = Picker(self.functions, [one, two])
        self.safety = SafetyNet(lambda: self.source, lambda _: None)
        self.disk = DiskWatch(self.status, self.safety.recovery, lambda: None)
        self.requests = Requests(self.state, lambda *_: None, self.status,
                                 Provenance(lambda: self.source.text, Panels),
                                 lambda: self.panes)
        self.timers, self.later, self.analysed = Timers(), Later(), []
        self.navigation = Navigation(self.state, self.requests, self.status, self.disk,
                                     self.safety, lambda: self.panes, lambda: self.picker,
                                     lambda: self.analysed.append(self.state.target),
                                     self.timers, self.later)


def test_with_no_function_named_the_first_one_tf_function_could_trace_opens(tmp_path):
    """A class's __init__ listed first is passed over (it opened first and failed: it needs
    an instance, and tf.function does not trace it); __call__ is not; a list of dunders
    alone still opens its first."""
    one = str(tmp_path / "one.py")
    for listed, opened in (([(one, "Gate.__init__"), (one, "Gate.call")], "Gate.call"),
                           ([(one, "M.__init__"), (one, "M.__call__")], "M.__call__"),
                           ([(one, "M.__init__"), (one, "M.__len__")], "M.__init__")):
        explorer = Explorer(tmp_path, listed)
        assert explorer.navigation.open_first(None)
        assert explorer.state.target == (one, opened)


def test_with_no_function_named_the_first_one_with_ready_inputs_opens(tmp_path):
    """A factory that needs arguments comes before the train step it makes (listed from
    `train_step = make_train_step(model)`): the train step opens; with none ready, the
    first one tf.function could trace."""
    one = str(tmp_path / "one.py")
    listed = [(one, "make_train_step"), (one, "train_step")]
    explorer = Explorer(tmp_path, listed)
    explorer.picker = Picker(listed, [one], ready={"train_step"})
    assert explorer.navigation.open_first(None)
    assert explorer.state.target == (one, "train_step")
    explorer = Explorer(tmp_path, listed)
    explorer.picker = Picker(listed, [one], ready=set())
    assert explorer.navigation.open_first(None)
    assert explorer.state.target == (one, "make_train_step")


def test_the_program_s_main_calling_the_tf_functions_opens_after_them(tmp_path):
    """A ready main() that calls the file's tf.functions is the program's Python, not what
    it traces: a ready function that is not one opens first, else the first tf.function
    (it asks for its arguments), else main."""
    one = str(tmp_path / "one.py")
    listed = [(one, "helper"), (one, "train_step"), (one, "main"), (one, "plain")]
    for ready, staged, opened in (({"main", "plain"}, {"train_step"}, "plain"),
                                  ({"main"}, {"train_step"}, "train_step"),
                                  ({"main"}, set(), "main")):
        explorer = Explorer(tmp_path, listed)
        explorer.picker = Picker(listed, [one], ready=ready, staged=staged, drivers={"main"})
        assert explorer.navigation.open_first(None)
        assert explorer.state.target == (one, opened)


def test_opening_a_function_reads_its_file_and_analyses_it_once_the_keys_rest(tmp_path):
    explorer = Explorer(tmp_path)
    assert explorer.navigation.open_first("second")
    assert explorer.state.target == (str(explorer.one), "second")
    assert explorer.source.text == ONE and explorer.disk.mtime is not None
    assert str(explorer.source.border_title) == "one.py :: second"
    # The first function: no keys to wait out, analysed after the next frame.
    assert explorer.timers.pending == []
    explorer.later.run()  # the cursor goes to its def line, once laid out
    assert explorer.analysed == [(str(explorer.one), "second")]
    assert ("goto_line", (5,)) in explorer.source.calls
    # Any other: once the keys rest.
    explorer.navigation.go((str(explorer.one), "first"))
    assert explorer.analysed == [(str(explorer.one), "second")]  # not before the rest
    assert explorer.timers.pending[0].delay == ANALYSE_PAUSE
    explorer.timers.fire()
    assert explorer.analysed[-1] == (str(explorer.one), "first")


def test_quick_steps_show_each_function_but_analyse_only_the_last(tmp_path):
    explorer = Explorer(tmp_path)
    explorer.navigation.open_first(None)
    for _ in range(4):
        explorer.navigation.step(1)
    assert explorer.timers.fire() == 1  # every other rest was stopped by the next step
    assert explorer.analysed == [(str(explorer.one), "second")]  # 4 steps round 3 functions
    assert explorer.picker.selected[-1] == (str(explorer.one), "second")
    assert explorer.navigation.step(-1) and explorer.state.target[1] == "first"


def test_another_file_waits_for_the_buffer_to_be_saved_or_undone(tmp_path):
    explorer = Explorer(tmp_path)
    explorer.navigation.open_first(None)
    explorer.source.text += "# unsaved\n"
    explorer.navigation.go((str(explorer.one), "second"))  # the same file: fine
    assert explorer.state.target[1] == "second"
    assert not explorer.navigation.step(1)  # third is in two.py
    assert explorer.state.target[1] == "second" and explorer.line.has_class("error")
    assert explorer.line.text.startswith("save or undo the edits to one.py before opening")
    assert explorer.source.text.endswith("# unsaved\n")


def test_a_file_gone_is_one_sentence_and_an_empty_list_says_where_it_looked(tmp_path):
    explorer = Explorer(tmp_path)
    explorer.navigation.open_first(None)
    explorer.two.unlink()
    explorer.navigation.go((str(explorer.two), "third"))
    assert explorer.line.has_class("error") and "two.py" in explorer.line.text
    assert explorer.source.text == ONE  # the buffer shown stays
    (tmp_path / "empty").mkdir()
    empty = Explorer(tmp_path / "empty", functions=[])
    assert not empty.navigation.open_first(None)
    assert empty.line.text.startswith("no functions found in ")
    assert str(empty.one) in empty.line.text


def test_a_file_that_does_not_parse_opens_in_the_editor_and_its_first_function_as_it_parses(
        tmp_path):
    """Alone in the list, a file that does not parse opens with no function (its analysis
    says its syntax error); mended in the editor, its first function opens."""
    broken = Explorer(tmp_path, functions=[])
    broken.one.write_text("def first(x:\n    return x\n")
    broken.picker.unlisted[str(broken.one)] = f"{broken.one}:1: syntax error"
    assert broken.navigation.open_first(None)
    assert broken.state.target == (str(broken.one), "")
    assert broken.source.text == "def first(x:\n    return x\n"  # to be mended there
    broken.state.analysed_text = "def first(x):\n    return x\n"
    broken.navigation.relabel(str(broken.one))
    assert broken.picker.updates == [(str(broken.one), ["first"])]
    assert broken.state.target == (str(broken.one), "first")
    # a function renamed in the buffer is not left for the file's first one
    (tmp_path / "named").mkdir()
    named = Explorer(tmp_path / "named")
    named.navigation.open_first(None)
    named.state.analysed_text = ONE.replace("first", "renamed")
    named.navigation.relabel(str(named.one))
    assert named.state.target == (str(named.one), "first")


def test_a_recovery_copy_comes_back_as_the_file_opens_and_is_said_after_the_rest(tmp_path):
    explorer = Explorer(tmp_path)
    recovery.save_copy(str(explorer.one), ONE + "# from the crash\n")
    explorer.navigation.open_first(None)
    assert explorer.source.text.endswith("# from the crash\n")
    assert explorer.line.text.startswith("restored unsaved edits to one.py")
    explorer.timers.fire()
    assert explorer.line.text.startswith("restored unsaved edits to one.py")


def test_the_list_follows_the_analysed_buffer_once_per_text(tmp_path):
    explorer = Explorer(tmp_path)
    explorer.navigation.open_first(None)
    explorer.state.analysed_text = ONE + "\n\ndef added(x):\n    return x\n"
    explorer.navigation.relabel(str(explorer.one))
    explorer.navigation.relabel(str(explorer.one))
    explorer.navigation.relabel(str(explorer.two))  # not the file shown
    assert explorer.picker.updates == [(str(explorer.one), ["first", "second", "added"])]
    explorer.state.analysed_text = "def broken(:\n"
    explorer.navigation.relabel(str(explorer.one))  # does not parse: the list stays
    assert len(explorer.picker.updates) == 1


def test_arrowing_through_the_list_opens_only_where_the_cursor_stops(tmp_path):
    explorer = Explorer(tmp_path)
    explorer.navigation.open_first(None)
    explorer.timers.fire()
    second, third = explorer.functions[1], explorer.functions[2]
    explorer.navigation.highlighted(second)
    explorer.navigation.highlighted(third)
    explorer.picker.cursor_node = SimpleNamespace(data=third)
    assert explorer.timers.fire() == 1
    assert explorer.state.target == third and explorer.source.text == TWO
