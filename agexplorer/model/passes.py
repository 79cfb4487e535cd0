"""AutoGraph's conversion pass by pass: the code after each converter and what it changed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SOURCE = "source"  # the name of the first step: the function as AutoGraph parsed it


@dataclass(frozen=True)
class PassStep:
    """One step: the code after converter ``name`` (the first step: the parsed source)."""

    name: str  # "source", then AutoGraph's converter modules: "functions", "control_flow", ...
    note: str  # what the converter rewrites, in one plain line
    code: str
    diff: str  # unified diff from the previous step's code; "" when it changed nothing

    @property
    def changed(self) -> bool:
        """Whether this step rewrote anything (the first step never does)."""
        return bool(self.diff)

    def changed_lines(self) -> set[int]:
        """The 1-based lines of ``code`` this step added or changed (from ``diff``)."""
        lines: set[int] = set()
        number = 0
        for line in self.diff.splitlines():
            if line.startswith("@@"):
                # "@@ -a,b +c,d @@": the new side starts at line c.
                number = int(line.split("+", 1)[1].split(",")[0].split(" ")[0])
            elif line.startswith(("+++", "---")):
                continue
            elif line.startswith("+"):
                lines.add(number)
                number += 1
            elif not line.startswith("-"):
                number += 1
        return lines

    def to_dict(self) -> dict[str, Any]:
        """The JSON form."""
        return {"name": self.name, "note": self.note, "code": self.code, "diff": self.diff}


@dataclass
class Passes:
    """The steps of one conversion, in the order the transpiler applied its converters."""

    file: str
    function: str
    steps: tuple[PassStep, ...] = ()
    # Converters this TensorFlow has but did not apply (optional features that are off).
    skipped: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"file", "function", "steps": [{"name", "note", "code", "diff"}],
        "skipped"}``."""
        return {"file": self.file, "function": self.function,
                "steps": [step.to_dict() for step in self.steps], "skipped": list(self.skipped)}
