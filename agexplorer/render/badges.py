"""Verdict badges and their styles: shared by the report and the TUI, importing nothing heavy."""

from __future__ import annotations

from typing import Any

from agexplorer.model.report import CONDITIONALS, uncounted, verdict_badge

__all__ = ["VERDICT_STYLE", "compact_badge", "verdict_badge"]

VERDICT_STYLE = {"staged": "bold green", "python": "bold yellow", "mixed": "bold magenta",
                 "unreached": "dim"}


def compact_badge(v: Any) -> str:
    """The gutter's mark when code needs the columns (under 180): ``x4`` for a loop unrolled
    four times, ``✓`` staged, ``T``/``F`` for the branch an if took, ``–`` unreached; the
    bar's colour and the verdict table say the rest."""
    if uncounted(v):
        return "Py"
    if v.verdict == "staged":
        return "✓" + (f"x{v.times}" if v.times > 1 else "")
    if v.verdict == "mixed":
        return "±"
    if v.verdict == "python":
        if v.kind in CONDITIONALS:
            return {"true": "T", "false": "F"}.get(v.branch or "", "TF")
        return f"x{v.iterations}"
    return "–"
