"""The retrace explainer's results: each call traced or reused and why, its arguments and effects."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

Holder = Literal["variable", "numpy"]


@dataclass
class Argument:
    """One parameter's value in one call: ``x`` is ``float32[2]``, ``n`` the Python int 3."""

    name: str
    kind: str  # "tensor", "python" (a number, str, bool, None), "structure", "object"
    text: str  # "float32[2]", "the Python int 3", "a Python list [float32[2], 3]"
    key: str  # what tracing compares: equal keys can share a trace
    dtype: str | None = None  # tensors
    shape: list[int | None] | None = None  # tensors; None for an unknown rank
    # A structure's values, each named by where it sits (``data[0]``, ``batch['x']``),
    # nested structures flattened: tracing compares them one by one.
    parts: list[Argument] = field(default_factory=list)
    # A Python value's (or structure's) type name, "int", and a Python value's repr, "3".
    python_type: str | None = None
    value: str | None = None
    # What holds a tensor's value where it is not a tf.Tensor: "variable", "numpy".
    holder: Holder | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``key`` is internal; ``parts`` only for a structure; the type, the
        value and the holder where there is one)."""
        data: dict[str, Any] = {"kind": self.kind, "text": self.text, "dtype": self.dtype,
                      "shape": self.shape}
        data.update({k: v for k, v in (("python_type", self.python_type),
                                       ("value", self.value), ("holder", self.holder))
                     if v is not None})
        if self.parts:
            data["parts"] = [{"name": p.name, **p.to_dict()} for p in self.parts]
        return data

    def leaves(self) -> list[Argument]:
        """Itself, or a structure's values (see ``parts``)."""
        return self.parts if self.kind == "structure" and self.parts else [self]


@dataclass
class Effect:
    """Python state one call changed: ``global counter: 0 → 1``."""

    kind: str  # "global", "nonlocal", "attribute", "random", "numpy-random"
    name: str
    before: str
    after: str
    text: str
    during: str = ""  # the call's outcome: "traced", "reused" or "failed"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"kind": self.kind, "name": self.name, "before": self.before,
                "after": self.after, "text": self.text, "during": self.during}


@dataclass(frozen=True)
class RetraceCall:
    """One call of the sequence: traced or reused, and why it traced."""

    index: int  # 1-based position in the sequence
    call: str  # the argument list as written
    outcome: str  # "traced", "reused" or "failed" (raised; see error)
    traced: bool  # the tracing count went up
    tracing_count: int  # after this call
    reason: str | None = None  # why it traced (None when reused)
    closest: int | None = None  # the earlier traced call it is compared with
    differs: list[str] = field(default_factory=list)  # the parameters that differ from it
    same_as: int | None = None  # reused: the first earlier call with the same arguments
    reused_because: str | None = None  # reused: why a trace fitted ("same arguments as call 1")
    arguments: list[Argument] = field(default_factory=list)
    printed: str = ""  # stdout during the call: Python print runs only while tracing
    logged: str = ""  # stderr during the call (tf.print writes here, on every call)
    effects: list[Effect] = field(default_factory=list)
    error: str | None = None
    error_line: int | None = None
    # Where TensorFlow itself refused the call (an input_signature's binding), its own
    # message as raised ("TypeError: Binding inputs to tf.function failed ..."): ``error``
    # says it in plain words, this quotes it.
    tf_message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"index": self.index, "call": self.call, "outcome": self.outcome,
                "traced": self.traced, "tracing_count": self.tracing_count,
                "reason": self.reason, "closest": self.closest, "differs": self.differs,
                "same_as": self.same_as, "reused_because": self.reused_because,
                "arguments": {a.name: a.to_dict() for a in self.arguments},
                "printed": self.printed, "logged": self.logged,
                "effects": [e.to_dict() for e in self.effects],
                "error": self.error, "error_line": self.error_line,
                "tf_message": self.tf_message}


@dataclass(frozen=True)
class ReplayCall:
    """One call of a replay."""

    outcome: str  # "traced", "reused" or "failed"
    traced: bool
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"outcome": self.outcome, "traced": self.traced, "error": self.error}


@dataclass(frozen=True)
class Replay:
    """The same calls again on a fresh tf.function with one setting changed."""

    setting: str  # "reduce_retracing" or "input_signature"
    applied: bool  # False: skipped, see note
    code: str | None = None  # the setting as code to paste: "reduce_retracing=True"
    note: str | None = None  # why it was skipped, or what to know about it
    calls: list[ReplayCall] = field(default_factory=list)
    tracing_count: int | None = None
    signatures: list[str] = field(default_factory=list)
    summary: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"setting": self.setting, "applied": self.applied, "code": self.code,
                "note": self.note, "calls": [c.to_dict() for c in self.calls],
                "tracing_count": self.tracing_count, "signatures": self.signatures,
                "summary": self.summary}


@dataclass(frozen=True)
class RetraceReport:
    """Everything the retrace explainer shows for one function. Picklable."""

    file: str
    function: str
    decorated: bool = False
    settings: str = "tf.function()"  # the user's own settings, as code
    calls_origin: str = ""  # "--call", "AGX_RETRACE", "AGX_CALLS", "input_signature", ...
    calls: list[RetraceCall] = field(default_factory=list)
    tracing_count: int = 0
    signatures: list[str] = field(default_factory=list)  # one per trace, in order
    replays: dict[str, Replay] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)  # the lessons, in sentences
    notes: list[str] = field(default_factory=list)
    load_output: str = ""  # what the module printed while loading
    log: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object."""
        return {"target": {"file": self.file, "function": self.function,
                           "decorated": self.decorated, "settings": self.settings},
                "calls_origin": self.calls_origin,
                "calls": [c.to_dict() for c in self.calls],
                "tracing_count": self.tracing_count, "signatures": self.signatures,
                "replays": {k: r.to_dict() for k, r in self.replays.items()},
                "findings": self.findings, "notes": self.notes,
                "load_output": self.load_output, "log": self.log}

    def with_paths(self, file: str, fix_text: Callable[[str | None], str | None]
                   ) -> RetraceReport:
        """This report naming ``file``, every message through ``fix_text`` (a shadow file's
        name back to the user's)."""
        def fixed(call: Any) -> Any:
            return dataclasses.replace(call, error=fix_text(call.error))

        return dataclasses.replace(
            self, file=file, calls=[fixed(c) for c in self.calls],
            replays={k: dataclasses.replace(r, calls=[fixed(c) for c in r.calls])
                     for k, r in self.replays.items()})
