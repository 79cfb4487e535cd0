"""Enter in the editor: the indentation a new line starts with (Python's blocks)."""

from __future__ import annotations

import io
import tokenize
from collections import Counter
from collections.abc import Sequence

DEFAULT_UNIT = "    "
_SKIPPED = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.ENDMARKER,
            tokenize.INDENT, tokenize.DEDENT}


def leading(line: str) -> str:
    """The line's indentation (its leading spaces and tabs)."""
    return line[:len(line) - len(line.lstrip(" \t"))]


def opens_block(code: str) -> bool:
    """Does ``code`` (one line, or its part before the cursor) end with a ":" that opens a
    block? A comment after it counts for nothing; a colon in a string or a slice does not."""
    if ":" not in code:
        return False
    last = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(code.strip() + "\n").readline):
            if token.type not in _SKIPPED:
                last = token
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # an open bracket or string: the tokens read up to it still count
    return last is not None and last.type == tokenize.OP and last.string == ":"


def indent_unit(lines: Sequence[str], limit: int = 2000) -> str:
    """The file's indent step: a tab if its blocks are indented with tabs, else the number of
    spaces a block most often adds under a line ending in ":" (4 when none says)."""
    steps: Counter[str] = Counter()
    previous: str | None = None
    for line in lines[:limit]:
        if not line.strip():
            continue
        if previous is not None and opens_block(previous):
            outer, inner = leading(previous), leading(line)
            if len(inner) > len(outer) and inner.startswith(outer):
                steps[inner[len(outer):]] += 1
        previous = line
    if not steps:
        return DEFAULT_UNIT
    step = steps.most_common(1)[0][0]
    return "\t" if "\t" in step else step


def new_line_indent(lines: Sequence[str], row: int, column: int) -> str:
    """What Enter at (``row``, ``column``) puts after the line break: the line's own
    indentation, and one step more when the code before the cursor opens a block."""
    line = lines[row] if row < len(lines) else ""
    indent = leading(line)
    if opens_block(line[:column]):
        indent += indent_unit(lines)
    return indent
