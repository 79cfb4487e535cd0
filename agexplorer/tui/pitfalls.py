"""The Doctor and Trace tabs' wiring: their requests to the worker and the answers.

A mixin of :class:`~agexplorer.tui.app.AgxApp` (kept apart so that app.py stays a
readable map of the explorer): it uses the app's ``bridge``, ``target``,
``_generation``, ``analyse``, ``set_status``, ``log_line``, and ``_made`` with
``_show_origin`` (the Trace tab's header: which function and calls it shows).
"""

from __future__ import annotations

from agexplorer.tui.guards import while_mounted
from agexplorer.tui.made import Made
from agexplorer.tui.messages import EngineAnswer
from agexplorer.worker.protocol import (
    DoctorRequest,
    OpAttributesRequest,
    ReportRequest,
    RetraceRequest,
    TryFixRequest,
)

# Failures of the engine rather than of the user's code: shown in the status line.
ENGINE_FAILURES = {"worker-died", "worker-start", "timeout", "internal-error", "bad-request"}


class PitfallsWiring:
    """Doctor findings after each analysis; the retrace explainer and fix trials on request."""

    def _buffer_request(self) -> tuple[tuple, dict[str, str | None], str] | None:
        """(key, the request's target, call and unsaved buffer as keyword arguments, path)
        for the current function."""
        if self.target is None:
            return None
        path, qualname = self.target
        source = self.query_one("#source")
        call = self.query_one("#call").value.strip() or None
        return ((path, qualname, self._generation),
                {"target": f"{path}::{qualname}", "call": call,
                 "source": source.text if source.dirty else None}, path)

    @while_mounted
    def on_engine_answer(self, message: EngineAnswer) -> None:  # by name: a mixin has no @on
        if message.key[:2] != self.target:
            return  # about the function shown before (its panels were cleared)
        error = message.error
        if error is not None and error.kind in ENGINE_FAILURES and message.kind is not RetraceRequest:
            # The worker died, hung or failed while reading the trace: say so where every
            # other death is said (the panel shows it too, below).
            self.set_status(error.message, error=True)
            self.log_line(error.message)
        if message.kind is DoctorRequest:
            if message.key[2] != self._generation:
                return  # an older buffer's findings
            doctor = message.value
            panel = self.query_one("#doctor-panel")
            panel.show(doctor)
            panel.remove_class("stale")
            count = len(doctor.findings) if doctor is not None else 0
            self.query_one("#panels").get_tab("tab-doctor").label = (
                f"Doctor ({count})" if count else "Doctor")
        elif message.kind is RetraceRequest:
            panel = self.query_one("#trace-panel")
            if message.error is not None:
                panel.note(message.error.message)
                self.set_status(message.error.message, error=True)
            else:
                panel.show(message.value)
            self._show_origin("trace")
        elif message.kind is TryFixRequest:
            self.query_one("#doctor-panel").show_trial(message.value, message.error)
        elif message.kind is OpAttributesRequest:
            self.show_op_attributes(message)  # the Graph tab's, in the app

    def ask_doctor(self, key: tuple, request: ReportRequest | None) -> None:
        """The doctor's findings for the analysis ``key`` (same target, buffer and call, so
        the worker reuses that trace); skipped when a newer analysis has started."""
        if request is None or key[2] != self._generation:
            return
        self.bridge.ask(key, DoctorRequest(request.target, call=request.call,
                                           source=request.source, reuse=True),
                        key[0], "examining the pitfalls")

    def action_trace(self) -> None:
        self.query_one("#panels").active = "tab-trace"
        self.query_one("#trace-panel").request_explain()

    def on_trace_panel_explain_requested(self, message) -> None:
        made = self._buffer_request()
        if made is None:
            return
        key, buffer, path = made
        calls = tuple(message.calls) if message.calls is not None else None
        request = RetraceRequest(buffer["target"], calls=calls, source=buffer["source"])
        what = f"explaining the retraces of {self.target[1]}"
        calls = "; ".join(message.calls) if message.calls else "the file's AGX_RETRACE"
        self._made["trace"] = Made(self.target, self.query_one("#source").text,
                                   f"{self.target[1]}, calls {calls}")
        self.query_one("#trace-panel").note(what + "… (each call runs, then two replays)")
        self._show_origin("trace")
        self.bridge.ask(key, request, path, what)

    def action_try_fix(self) -> None:
        self.query_one("#panels").active = "tab-doctor"
        self.query_one("#doctor-panel").request_try()

    def action_apply_fix(self) -> None:
        panel = self.query_one("#doctor-panel")
        if panel.trial is None:
            self.set_status("no fix tried yet: pick a finding in the Doctor tab and press f",
                            error=True)
            return
        self.on_doctor_panel_apply_fix(panel.ApplyFix(panel.trial))

    def on_doctor_panel_try_fix(self, message) -> None:
        made = self._buffer_request()
        if made is None:
            return
        key, buffer, path = made
        finding = message.finding
        request = TryFixRequest(buffer["target"], fix=f"{finding.code}@{finding.line}",
                                call=buffer["call"], source=buffer["source"], budget=0.3,
                                device=self.query_one("#run-panel").device)
        self.bridge.ask(key, request, path, f"trying the {finding.code} rewrite")

    def on_doctor_panel_apply_fix(self, message) -> None:
        rewrite = message.trial.rewrite
        if rewrite.new_text is None:  # the fix is to the call (a tensor instead of a Python int)
            self.query_one("#call").value = rewrite.new_call
            self.set_status(f"the Run tab's call is now {rewrite.new_call}; F5 runs it")
            self.analyse(call=rewrite.new_call)
            return
        source = self.query_one("#source")
        if not rewrite.made_from(source.text):
            self.set_status("the buffer changed since the fix was tried; press f to try it "
                            "again", error=True)
            return
        source.replace_changed_lines(rewrite.new_text)
        self.set_status(f"{rewrite.code} applied to the buffer (ctrl+z undoes it, ctrl+s saves "
                        "it to the file)")

    def on_doctor_panel_jump(self, message) -> None:
        self.on_verdict_table_jump(message)
