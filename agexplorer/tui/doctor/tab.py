"""DoctorTab: the Doctor panel that asks for findings, tries fixes and applies them."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding

from agexplorer.tui.code.made import Made, answer_label
from agexplorer.tui.doctor.panel import DoctorPanel
from agexplorer.tui.messages import AnalysisKey, EngineAnswer
from agexplorer.worker.protocol import DoctorRequest, ReportRequest, TryFixRequest

if TYPE_CHECKING:
    from collections.abc import Callable

    from agexplorer.tui.desk import Desk
    from agexplorer.tui.state import ReportChanged, ReportFailed, TargetChanged


class DoctorTab(DoctorPanel):
    """Doctor findings after each analysis; fix trials and their rewrites on request. It
    asks and applies through ``desk``, trials run on ``device()`` (the Run tab's choice), and
    ``label`` titles its tab with the count of findings."""

    # One key, two bindings: only the one for what x would do now is on, so the footer and
    # the help screen say it ("skip XLA" while trials run it, "use XLA" while they skip it).
    BINDINGS: ClassVar = [Binding("x", "set_skip_xla(True)", "Trials: skip XLA"),
                          Binding("x", "set_skip_xla(False)", "Trials: use XLA")]
    skip_xla: bool = False  # fix trials leave XLA out (its compile can take minutes)
    # (function, the buffer before, the fix's code) of the last fix applied: "Compare with
    # before the fix" (tui/compare/actions.py) compares that text with the buffer now.
    before_fix: tuple[tuple[str, str], str, str] | None = None
    # (the fix's code, its edit in the source's undo history) of the last fix applied to the
    # buffer: ctrl+z outside the editor undoes that edit (undo_apply).
    applied: tuple[str, object] | None = None
    generation: int | None = None  # the analysis the findings shown are of

    def __init__(self, desk: Desk, device: Callable[[], str | None],
                 label: Callable[[str], object], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.desk, self.device, self._label = desk, device, label

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "set_skip_xla":
            return parameters[0] != self.skip_xla
        return True

    def action_set_skip_xla(self, skip: bool) -> None:
        """Fix trials without XLA (``skip``) or with it: the x key."""
        self.skip_xla = skip
        self.refresh_bindings()
        self.desk.status.set("fix trials now " + ("skip XLA" if skip else "run XLA too")
                                 + " (x toggles it)")

    def action_toggle_xla(self) -> None:
        """Fix trials with XLA or without."""
        self.action_set_skip_xla(not self.skip_xla)

    def on_target_changed(self, _: TargetChanged) -> None:
        self.reset()

    def on_report_changed(self, message: ReportChanged) -> None:
        # The doctor reads the trace the worker just made, once the panes are painted.
        self.call_after_refresh(self.ask, message.key, message.request)

    def on_report_failed(self, _: ReportFailed) -> None:
        self.add_class("stale")

    def ask(self, key: AnalysisKey, request: ReportRequest | None) -> None:
        """The doctor's findings for the analysis ``key`` (same target, buffer and call, so
        the worker reuses that trace); skipped when a newer analysis has started."""
        desk = self.desk
        if request is None or key.generation != desk.state.generation:
            return
        reached = desk.state.reached_only(key.target, request.call)
        desk.bridge.ask(key, DoctorRequest(request.target, call=request.call,
                                          source=request.source, reuse=True,
                                          init=request.init, reached=reached,
                                          call_origin="the recorded call" if reached else None),
                       key.path, "examining the pitfalls", self.answer)

    def answer(self, message: EngineAnswer) -> None:
        """The worker's findings, or the outcome of a fix trial."""
        if message.kind is TryFixRequest:
            self.show_trial(message.value, message.error)
            return
        desk = self.desk
        if message.key.generation != desk.state.generation:
            return  # an older buffer's findings
        self.show(message.value)
        self.generation = message.key.generation
        self.remove_class("stale")
        if message.value is not None:  # the call the worker examined, as it says
            desk.provenance.set("doctor", Made(message.key.target, desk.state.analysed_text,
                                              answer_label(message.value)))
        else:
            desk.provenance.forget("doctor")
        desk.provenance.show("doctor")
        count = len(message.value.findings) if message.value is not None else 0
        self._label(f"Doctor ({count})" if count else "Doctor")
        if message.value is not None:  # the Control flow tab's fixes, as tried here
            desk.state.fixes_tried(message.key, message.value.findings)
        desk.state.pane_answered("doctor", message.key)

    def reset(self) -> None:
        """Another function: no findings yet."""
        self.show(None)
        self.generation = None
        self.set_origin("")
        self.remove_class("stale")
        self._label("Doctor")

    def apply_tried(self) -> None:
        """The `a` key: apply the fix last tried."""
        if self.trial is None:
            self.desk.status.set("no fix tried yet: pick a finding in the Doctor tab and "
                                     "press f", error=True)
            return
        self.on_doctor_panel_apply_fix(self.ApplyFix(self.trial))

    def undo_apply(self) -> None:
        """ctrl+z outside the editor: the last fix applied to the buffer undone, while it is
        the buffer's newest edit (else one sentence says why nothing was undone)."""
        status = self.desk.status
        # Typed just before: that edit's re-conversion starts now, not after what is said
        # here (its request would take the sentence off the status line ~0.6 s later).
        self.desk.settle()
        # The refusals are notices: the doctor's and the trace tab's requests after an
        # analysis must not wipe them (their progress replaces a plain status a moment later).
        if self.applied is None:
            status.announce("nothing to undo: no fix was applied to the buffer")
            return
        code, edit = self.applied
        outcome = self.desk.source().undo_edit(edit)
        if outcome == "undone":
            self.desk.analyse()  # as Apply did: the verdicts of the buffer as it was
            status.announce(f"{code} fix undone: the buffer is as before it was applied",
                            error=False)
            return
        status.announce({
            "edited-since": f"nothing undone: you edited the buffer after the {code} fix",
            "undone-already": f"nothing to undo: the {code} fix is undone already",
            "gone": f"nothing to undo: the {code} fix is no longer in this buffer's history",
        }[outcome])

    def on_doctor_panel_try_fix(self, message: DoctorPanel.TryFix) -> None:
        desk = self.desk
        asked = desk.buffer_request()
        if asked is None:
            return
        finding = message.finding
        request = TryFixRequest(asked.target, fix=f"{finding.code}@{finding.line}",
                                call=asked.call, source=asked.source, budget=0.3,
                                device=self.device(), skip_xla=self.skip_xla,
                                # six modes and two traces share the request's timeout, so
                                # ctrl+t (double the timeout) widens each mode's box too
                                mode_timeout=desk.bridge.worker.timeout / 10)
        desk.bridge.ask(asked.key, request, asked.key.path, f"trying the {finding.code} rewrite",
                       self.answer)

    def on_doctor_panel_apply_fix(self, message: DoctorPanel.ApplyFix) -> None:
        desk = self.desk
        target = desk.state.target
        rewrite = message.trial.rewrite
        if rewrite.new_text is None:  # the fix is to the call (a tensor instead of a Python int)
            if target is None or rewrite.new_call is None:
                return
            # This function's call only: the others keep their own (issue 22).
            desk.set_call(target, rewrite.new_call)
            desk.status.set(f"{target[1]}'s call is now {rewrite.new_call}; F5 runs it")
            desk.analyse(call=rewrite.new_call)
            return
        source = desk.source()
        if not rewrite.made_from(source.text):
            desk.status.set("the buffer changed since the fix was tried; press f to try it "
                           "again", error=True)
            return
        if target is not None:
            self.before_fix = (target, source.text, rewrite.code)
        source.replace_changed_lines(rewrite.new_text)
        self.applied = (rewrite.code, source.last_edit())
        # Re-trace now (the edit's own handler then finds the buffer analysed), and say what
        # happened as a notice: it outlasts that trace's "tracing…" and comes back for its
        # "ready", so the hint is still there when the new verdicts are.
        desk.analyse()
        desk.status.announce(f"{rewrite.code} applied to the buffer (ctrl+z undoes it, ctrl+s saves "
                     "it, c compares it with before)", error=False)
