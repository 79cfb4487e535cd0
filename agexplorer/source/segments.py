"""A node's source text, from a text split into lines once.

``ast.get_source_segment`` splits the whole text into lines at every call: a function's
statement headers cost a pass over the file each (0.2 ms each for a 70-line sample, every
time the worker analyses an edit; a long file's many headers, a pass each). ``Segments``
gives the same answer from the lines split once.
"""

from __future__ import annotations

import re
from typing import Any

# A line and its end, as CPython's parser counts lines: "\r\n", "\r" or "\n" (not the form
# feed and the other separators str.splitlines knows).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)")


def split_lines(text: str) -> list[str]:
    """``text``'s lines with their ends, split where the parser's line numbers change."""
    lines = _LINE.findall(text)
    rest = len(text) - sum(len(line) for line in lines)
    if rest:
        lines.append(text[-rest:])
    return lines


class Segments:
    """``ast.get_source_segment(text, node)`` for the nodes of one text (columns are UTF-8
    byte offsets, as the parser gives them)."""

    def __init__(self, text: str) -> None:
        self.lines = split_lines(text)

    def __call__(self, node: Any) -> str | None:
        try:
            if node.end_lineno is None or node.end_col_offset is None:
                return None
            first, last = node.lineno - 1, node.end_lineno - 1
            start, end = node.col_offset, node.end_col_offset
        except AttributeError:
            return None
        lines = self.lines
        if last >= len(lines) or first < 0:
            return None
        if first == last:
            return lines[first].encode()[start:end].decode()
        return "".join([lines[first].encode()[start:].decode(), *lines[first + 1:last],
                        lines[last].encode()[:end].decode()])
