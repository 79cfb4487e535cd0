"""Which source line each line of a conversion step came from, by following the steps back.

The steps carry no origin information (AutoGraph's ``origin_info`` does not survive its
unparsing), but each step is the previous one rewritten by one converter: most lines stay
as they were. So a step's line is matched to the previous step's (difflib: equal lines map
one to one, a rewritten block to the block it replaced), step by step down to the first
step (the function as AutoGraph parsed it), which is matched to the source the same way,
its lines compared without spaces, comments or quote style (what unparsing changes).
A line a converter inserted goes to the rewritten line whose words it holds (the loop's
``ag__.for_stmt(range, n, ...)`` to its ``for``); others it added (``do_return = False``)
have no source line.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

_COMMENT = re.compile(r"\s+#.*$|^\s*#.*$")
_WORD = re.compile(r"\w+")


def _key(line: str) -> str:
    """A line as unparsing leaves it comparable: no comment, no spaces, one quote style."""
    return _COMMENT.sub("", line).replace(" ", "").replace("\t", "").replace("'", '"')


def match_lines(new: Sequence[str], old: Sequence[str]) -> list[int | None]:
    """Per line of ``new`` (0-based): the line of ``old`` it came from, or None (added)."""
    keys_old = [_key(line) for line in old]
    keys_new = [_key(line) for line in new]
    out: list[int | None] = [None] * len(new)
    kept: set[int] = set()  # old lines that stay as they were
    matcher = difflib.SequenceMatcher(None, keys_old, keys_new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(j2 - j1):
                out[j1 + offset] = i1 + offset
            kept.update(range(i1, i2))
        elif tag == "replace":  # a rewritten block: each new line to its old block's line
            for offset in range(j2 - j1):
                out[j1 + offset] = i1 + min(offset, i2 - i1 - 1)
    _by_words(new, old, out, kept)
    for j, key in enumerate(keys_new):  # blank lines belong to nothing
        if not key:
            out[j] = None
    return out


def _by_words(new: Sequence[str], old: Sequence[str], out: list[int | None],
              kept: set[int]) -> None:
    """Lines a converter inserted (``ag__.for_stmt(...range, n...)`` after the loop's body)
    go to the rewritten line whose words they hold most of, half of them at least."""
    gone = [(i, set(_WORD.findall(_key(old[i])))) for i in range(len(old)) if i not in kept]
    for j, line in enumerate(new):
        if out[j] is not None or not gone:
            continue
        words = set(_WORD.findall(line))
        score, best = max(((len(w & words) / len(w), i) for i, w in gone if w),
                          default=(0.0, None))
        if score >= 0.5:
            out[j] = best


class StepLines:
    """The source line of each line of each step of one conversion, computed on demand."""

    def __init__(self, steps: Sequence[str], source: str, first_line: int) -> None:
        self.codes = [code.splitlines() for code in steps]
        self.source = source.splitlines()
        self.first_line = first_line
        self._maps: dict[int, list[int | None]] = {}

    def _map(self, number: int) -> list[int | None]:
        """Step ``number``'s lines as 0-based lines of the source text (None: added)."""
        known = self._maps.get(number)
        if known is not None:
            return known
        if number == 0:
            mapped = match_lines(self.codes[0], self.source)
        else:
            below = self._map(number - 1)
            mapped = [None if j is None else below[j]
                      for j in match_lines(self.codes[number], self.codes[number - 1])]
        self._maps[number] = mapped
        return mapped

    def source_line(self, step: int, line: int) -> int | None:
        """The file's 1-based line that step ``step``'s 1-based ``line`` came from."""
        if not 0 <= step < len(self.codes):
            return None
        for number in range(step + 1):  # fill the chain from the first step up (no deep recursion)
            self._map(number)
        mapped = self._maps[step]
        if not 1 <= line <= len(mapped) or mapped[line - 1] is None:
            return None
        return self.first_line + mapped[line - 1]  # type: ignore[operator]
