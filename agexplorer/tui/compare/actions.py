"""The explorer's compare actions: the buffer against the disk, before the fix, another function."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from agexplorer.tui.guards import while_mounted
from agexplorer.tui.parts import ExplorerApp

if TYPE_CHECKING:
    from agexplorer.tui.state import Target
    from agexplorer.worker.protocol import CompareRequest


class CompareActions(ExplorerApp):
    """Mixed into AgxApp: the ``c`` key and the palette's "Compare with ..." entries. Each
    opens a CompareScreen, which asks the worker and takes its answer."""

    def action_compare(self) -> None:
        """``c``: choose what to compare the current function with."""
        self._compare_choose(others=True)

    def action_compare_function(self) -> None:
        """Compare the current function with another one of the open files."""
        self._compare_choose(others=False)

    @while_mounted
    def action_compare_disk(self) -> None:
        """The file on disk (left) against the unsaved buffer (right)."""
        shown = self._compare_ready()
        if shown is None:
            return
        source = self.source
        name = os.path.basename(source.path or "the file")
        if source.missing:
            self.set_status(f"{name} is not on disk any more: there is no saved file to "
                            "compare with", error=True)
            return
        if not source.dirty:
            self.set_status(f"the buffer is the same as {name} on disk: nothing to compare "
                            "(edit it first)", error=True)
            return
        target = "::".join(shown)
        self._compare_open(shown, self._compare_request(target, target,
                                                        call=self._compare_call(),
                                                        right_source=source.text),
                           f"{shown[1]}: {name} on disk (left) and your unsaved buffer "
                           "(right)", ("the file on disk", "your buffer"))

    @while_mounted
    def action_compare_before_fix(self) -> None:
        """The buffer before the doctor's last applied fix (left) against the buffer now."""
        shown = self._compare_ready()
        if shown is None:
            return
        kept = self.doctor_tab.before_fix
        if kept is None:
            self.set_status("no fix applied yet: pick a finding in the Doctor tab, press f to "
                            "try its fix and a to apply it, then compare", error=True)
            return
        fixed, before, code = kept
        if fixed != shown:
            self.set_status(f"the last fix ({code}) was applied to {fixed[1]}: open it to "
                            "compare with before the fix", error=True)
            return
        text = self.source.text
        if text == before:
            self.set_status("the buffer is as it was before the fix: nothing to compare",
                            error=True)
            return
        target = "::".join(shown)
        self._compare_open(shown, self._compare_request(target, target,
                                                        call=self._compare_call(),
                                                        left_source=before, right_source=text),
                           f"{shown[1]}: before {code} (left) and after it (right)",
                           ("before the fix", f"after {code}"))

    # -- the parts ---------------------------------------------------------------------
    def _compare_ready(self) -> Target | None:
        """The function open, when there is one and the explorer's own screen is shown."""
        if not self.workspace_ready or self.state.target is None:
            self.set_status("open a function first, then compare it", error=True)
            return None
        return self.state.target if self.screen is self.screen_stack[0] else None

    def _compare_call(self) -> str | None:
        """The Run tab's call (None: each side's ready inputs)."""
        return self.call_input.value.strip() or None

    def _compare_request(self, left: str, right: str, **sides: Any) -> CompareRequest:
        """``left`` against ``right`` (``sides``: their calls and sources), run as a fix
        trial runs: the Run tab's device, the doctor's XLA choice, short modes. (The
        protocol is imported here: not for the first frame.)"""
        from agexplorer.worker.protocol import CompareRequest

        return CompareRequest(left, right, **sides, device=self.run_panel.device, budget=0.3,
                              skip_xla=self.doctor_tab.skip_xla,
                              mode_timeout=self.bridge.worker.timeout / 10)

    def _compare_open(self, shown: Target, request: CompareRequest, title: str,
                      names: tuple[str, str]) -> None:
        from agexplorer.tui.compare.screen import CompareScreen
        from agexplorer.tui.messages import AnalysisKey

        key = AnalysisKey(shown[0], shown[1], self.state.generation)
        self.push_screen(CompareScreen(request, key, title, names, self.bridge.ask))

    @while_mounted
    def _compare_choose(self, others: bool) -> None:
        """The picker: the disk and before-the-fix (when ``others``), then every function of
        the open files but the current one."""
        from agexplorer.tui.compare.choice import CompareChoice
        from agexplorer.tui.functions.picker import FunctionPicker

        shown = self._compare_ready()
        if shown is None:
            return
        choices: list[tuple[str, str]] = []
        if others and self.source.dirty and not self.source.missing:
            choices.append(("disk", "the file on disk (your unsaved edits against it)"))
        kept = self.doctor_tab.before_fix
        if others and kept is not None and kept[0] == shown:
            choices.append(("fix", f"the buffer before the fix ({kept[2]})"))
        functions = [f for f in self.query_one(FunctionPicker).functions() if f != shown]
        choices += [(f"fn-{n}", f"{os.path.basename(path)}  {qualname}")
                    for n, (path, qualname) in enumerate(functions)]
        if not choices:
            self.set_status("nothing to compare with: no other function is open, and the "
                            "buffer is as saved", error=True)
            return

        def chosen(choice: str | None) -> None:
            if choice == "disk":
                self.action_compare_disk()
            elif choice == "fix":
                self.action_compare_before_fix()
            elif choice is not None:
                self._compare_function(*functions[int(choice.removeprefix("fn-"))])

        self.push_screen(CompareChoice(f"Compare {shown[1]} with:", choices), chosen)

    def _compare_function(self, path: str, qualname: str) -> None:
        """The current function (its buffer, its call in the Run tab) against another
        function with that one's own call (typed for it earlier, else its ready inputs):
        a call typed for one function is never used for another (issue 22)."""
        shown = self._compare_ready()
        if shown is None:
            return
        own_path, own = shown
        source = self.source
        buffer = source.text if source.dirty else None
        request = self._compare_request(
            f"{own_path}::{own}", f"{path}::{qualname}", left_call=self._compare_call(),
            right_call=self.requests.calls.of((path, qualname)) or None, left_source=buffer,
            right_source=buffer if path == own_path else None)
        names = (own, qualname)
        if own == qualname:  # one name in two files
            names = (f"{os.path.basename(own_path)}::{own}", f"{os.path.basename(path)}::{own}")
        self._compare_open(shown, request, f"{names[0]} (left) and {names[1]} (right)"
                           + (", the left from your unsaved buffer" if buffer else ""), names)
