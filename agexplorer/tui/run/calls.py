"""Each function's own calls: what was typed for it in the Run and Trace tabs' boxes."""

from __future__ import annotations

from typing import Literal

Target = tuple[str, str]  # (path, qualname)
# The Run tab's call, the Trace tab's calls (separated by ;), the Run tab's init (a
# method's constructor arguments).
Box = Literal["run", "trace", "init"]


class Calls:
    """The boxes' text per function, keyed by (path, qualname): a call typed for ``f`` is
    never used for ``g``. Kept for the session, so across a reload of the same file too; a
    function with none uses its ready inputs (AGX_CALLS, an input_signature, none needed) and,
    in the Trace tab, its file's AGX_RETRACE."""

    def __init__(self) -> None:
        self._typed: dict[tuple[Box, Target], str] = {}

    def of(self, target: Target, box: Box = "run") -> str:
        """The text typed in ``box`` for ``target`` ("" for none: its ready inputs)."""
        return self._typed.get((box, target), "")

    def keep(self, target: Target, text: str, box: Box = "run") -> None:
        """``text`` is now what ``box`` holds for ``target`` (blank: its ready inputs)."""
        text = text.strip()
        if text:
            self._typed[box, target] = text
        else:
            self._typed.pop((box, target), None)
