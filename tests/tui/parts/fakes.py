"""Stand-ins for the panes the explorer's parts draw into, recording what each was told: the
parts are tested alone, without the app, its widgets or TensorFlow."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class Pane:
    """A pane: its classes, and every call made on it by name."""

    def __init__(self, **attrs: Any) -> None:
        self.classes: set[str] = set()
        self.calls: list[tuple[str, tuple]] = []
        self.__dict__.update(attrs)

    is_attached = False  # not in a DOM: textual_patches.set_class calls set_class itself

    def set_class(self, on: bool, name: str) -> None:
        (self.classes.add if on else self.classes.discard)(name)

    def has_class(self, name: str) -> bool:
        return name in self.classes

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)

        def record(*args: Any) -> None:
            self.calls.append((name, args))

        return record

    def told(self, name: str) -> list[tuple]:
        """The arguments of each ``name`` call, in order."""
        return [args for called, args in self.calls if called == name]


class Log(list):
    """The Log panel: the lines written to it; ``at_end`` whether it is scrolled to its end,
    ``scrolled`` whether each write asked it to scroll there."""

    def __init__(self) -> None:
        super().__init__()
        self.at_end = True
        self.scrolled: list[bool | None] = []

    @property
    def is_vertical_scroll_end(self) -> bool:
        return self.at_end

    def write(self, text: str, *, scroll_end: bool | None = None) -> None:
        self.append(text)
        self.scrolled.append(scroll_end)

    def clear(self) -> None:
        del self[:]


class Box:
    def __init__(self, value: str = "") -> None:
        self.value = value


class Source(Pane):
    """The source pane: its buffer, the file it last saved, and what it was opened with."""

    def __init__(self, path: str | None = None, text: str = "") -> None:
        super().__init__(path=path, text=text, saved_text=text, border_title="",
                         source_file=None, missing=False, cursor_location=(0, 0))

    @property
    def dirty(self) -> bool:
        return self.text != self.saved_text

    def open(self, path: str, text: str, read: Any = None) -> None:
        self.path, self.text, self.saved_text = path, text, text
        self.calls.append(("open", (path, text)))

    def replace_changed_lines(self, text: str) -> None:
        self.edits.append((self.text, text))  # one undo step, as the editor's
        self.text = text

    @property
    def edits(self) -> list[tuple[str, str]]:
        return self.__dict__.setdefault("_edits", [])

    def last_edit(self) -> object | None:
        return self.edits[-1] if self.edits else None

    def undo_edit(self, batch: object) -> str:
        if self.edits and self.edits[-1] is batch:
            self.text = self.edits.pop()[0]
            return "undone"
        return "gone"

    def save(self) -> str:
        assert self.path is not None
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(self.text)
        self.saved_text = self.text
        return self.path


def workspace(source: Source | None = None) -> SimpleNamespace:
    """The panes a part reaches (the Workspace's typed attributes)."""
    trace_box = Box()
    converted, verdicts, ops = Pane(), Pane(), Pane(shades=None, source_file=None,
                                                    made_from=None)
    gutter, refs = Pane(), Pane()
    run_panel = Pane(call_input=Box(), init_input=Box(), init=None, device=None)
    return SimpleNamespace(
        source=source or Source(), converted=converted, verdicts=verdicts, ops=ops,
        verdict_gutter=gutter, refs=refs, op_filter=Box(), flow_summary=Pane(),
        run_panel=run_panel, trace=Pane(query_one=lambda _: trace_box), trace_box=trace_box,
        stale_panes=(converted, verdicts, ops, gutter, refs))


class Timers:
    """``set_timer`` whose timers fire when the test says (``fire``), each stoppable."""

    def __init__(self) -> None:
        self.pending: list[SimpleNamespace] = []

    def __call__(self, delay: float, callback: Any) -> SimpleNamespace:
        timer = SimpleNamespace(delay=delay, callback=callback, stopped=False)
        timer.stop = lambda: setattr(timer, "stopped", True)
        self.pending.append(timer)
        return timer

    def fire(self) -> int:
        """Run every timer not stopped; how many ran."""
        due, self.pending = [t for t in self.pending if not t.stopped], []
        for timer in due:
            timer.callback()
        return len(due)


class Later(list):
    """``call_after_refresh``: the callables it was given, run when the test says."""

    def __call__(self, callback: Any, *args: Any) -> None:
        self.append((callback, args))

    def run(self) -> None:
        while self:
            callback, args = self.pop(0)
            callback(*args)
