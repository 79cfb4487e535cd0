"""The IPython magics (``%load_ext agexplorer``): ``%agx``, ``%agx doctor``, ``%agx retrace``,
``%%agx record``.

    %agx f(x, y)                 explain a call, with the session's own variables
    %agx --run f(x)              ... and time it eagerly, as a graph and with XLA
    %agx --reuse f(x)            ... traced through f's own tf.function and its cache
    %agx doctor f(x)             the doctor's findings for the call
    %agx retrace f(a); f(b)      why each call traced, or reused a trace
    %%agx record                 run the cell and show every tf.function trace it made

A call is written as in Python; its function and arguments are evaluated in the session's
namespace and the call is traced, not run. Bad input is one line (IPython's UsageError),
never agexplorer's traceback; the user's code failing is shown as the reports show it.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from agexplorer.model.errors import AgxError
from agexplorer.notebook.calls import CallError, evaluate, parse_calls
from agexplorer.notebook.target import NotExplainable

USAGE = ("write %agx f(x) (with --run to time it, --reuse to trace through f's own "
         "tf.function), %agx doctor f(x), %agx retrace f(a); f(b), or %%agx record "
         "at the top of a cell.")
_OPTIONS = {"--run": "run", "--reuse": "reuse"}
_ORIGIN = "%agx"


@magics_class
class AgxMagics(Magics):
    """``%agx`` and ``%%agx``: agexplorer's answers for the session's live objects."""

    @line_cell_magic
    def agx(self, line: str, cell: str | None = None) -> Any:
        """Explain a call (``%agx f(x)``), diagnose it (``%agx doctor f(x)``), explain its
        retraces (``%agx retrace f(a); f(b)``), or record a cell (``%%agx record``)."""
        __tracebackhide__ = True
        word, _, rest = line.strip().partition(" ")
        try:
            if cell is not None:
                if line.strip() != "record":
                    raise UsageError(f"%%agx runs a cell under the recorder: write %%agx "
                                     f"record, not %%agx {line.strip()}.")
                return self._record(cell)
            if word == "record":
                raise UsageError("record runs a whole cell: write %%agx record as the cell's "
                                 "first line.")
            if word in ("doctor", "retrace") and not rest.lstrip().startswith("("):
                if not rest.strip():
                    example = "f(x)" if word == "doctor" else "f(a); f(b)"
                    raise UsageError(f"{word} needs a call: write %agx {word} {example}.")
                return self._doctor(rest) if word == "doctor" else self._retrace(rest)
            return self._explain(line)
        except (CallError, NotExplainable, AgxError) as exc:
            message = exc.message if isinstance(exc, AgxError) else str(exc)
            raise UsageError(message) from None

    # -- the commands --------------------------------------------------------------------

    def _explain(self, line: str) -> None:
        from agexplorer.notebook.explain import explain_call

        options, text = _options(line)
        call = self._one_call(text)
        display(explain_call(call.fn, call.args, call.kwargs, origin=_ORIGIN,
                             written=call.arguments_text, run="run" in options,
                             reuse="reuse" in options))

    def _doctor(self, text: str) -> None:
        from agexplorer.notebook.live import diagnose_call
        from agexplorer.notebook.shown import doctor_shown

        call = self._one_call(text)
        display(doctor_shown(diagnose_call(call.fn, call.args, call.kwargs, _ORIGIN,
                                           call.arguments_text)))

    def _retrace(self, text: str) -> None:
        from agexplorer.notebook.live import retrace_calls
        from agexplorer.notebook.shown import retrace_shown

        calls = [self._evaluated(node) for node in parse_calls(text)]
        functions = {id(_unwrapped(c.fn)) for c in calls}
        if len(functions) > 1:
            names = ", ".join(dict.fromkeys(c.text.partition("(")[0] for c in calls))
            raise CallError(f"retrace explains the calls of one function, and these call "
                            f"{names}: write calls of one of them.")
        report = retrace_calls(calls[0].fn, [(c.arguments_text, c.args, c.kwargs)
                                             for c in calls], _ORIGIN)
        display(retrace_shown(report))

    def _record(self, cell: str) -> Any:
        from agexplorer.notebook.record import raise_as_the_cell, record_cell
        from agexplorer.notebook.shown import record_shown

        recorded = record_cell(self.shell, cell)
        display(record_shown(recorded.summary))
        if recorded.failure is not None:
            raise_as_the_cell(self.shell, recorded.failure)
        return recorded.value

    # -- helpers -------------------------------------------------------------------------

    def _evaluated(self, node: Any) -> Any:
        shell = self.shell
        assert shell is not None
        return evaluate(node, shell.user_global_ns, shell.user_ns)

    def _one_call(self, text: str) -> Any:
        if not text.strip():
            raise CallError(f"nothing to explain: {USAGE}")
        calls = parse_calls(text)
        if len(calls) > 1:
            raise CallError("one call at a time: several calls are for %agx retrace "
                            "f(a); f(b).")
        return self._evaluated(calls[0])


def _options(line: str) -> tuple[set[str], str]:
    """The options (``--run``, ``--reuse``) before the call, and the call's text."""
    options: set[str] = set()
    words = line.strip().split(" ")
    while words and words[0].startswith("--"):
        word = words.pop(0)
        if word not in _OPTIONS:
            raise CallError(f"unknown option {word}: {USAGE}")
        options.add(_OPTIONS[word])
    return options, " ".join(words)


def _unwrapped(fn: Any) -> Any:
    """The function a call calls, for telling whether two calls call the same one."""
    fn = getattr(fn, "python_function", fn)
    return getattr(fn, "__func__", fn)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext agexplorer``: register the magics."""
    ipython.register_magics(AgxMagics)
