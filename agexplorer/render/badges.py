"""Verdict badges and their styles: shared by the report and the TUI, importing nothing heavy."""

from __future__ import annotations

from typing import Any

VERDICT_STYLE = {"staged": "bold green", "python": "bold yellow", "mixed": "bold magenta",
                 "unreached": "dim"}


def verdict_badge(v: Any) -> str:
    """Short gutter mark: ``staged``, ``unrolled x4``, ``took true``, ``unreached``."""
    if v.verdict == "staged":
        return "staged" + (f" x{v.times}" if v.times > 1 else "")
    if v.verdict == "mixed" and v.mixed:
        return f"mixed {v.mixed[0]}+{v.mixed[1]}"
    if v.verdict == "python":
        if v.kind == "if":
            return f"took {v.branch}" if v.branch else "both, in turn"
        return f"unrolled x{v.iterations}"
    return "unreached"
