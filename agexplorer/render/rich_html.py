"""Rich renderables as one HTML element for a notebook: what the terminal shows, in its colours.

The retrace report and the doctor's tables are laid out for a terminal (tables that fold
to its width, styled text); a notebook shows the same renderables, exported by rich with
inline styles on a dark terminal background of their own, so that they read the same in
a light or a dark notebook and fetch nothing.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.terminal_theme import MONOKAI

# No document, no stylesheet: one <pre> whose colours are rich's theme's own. White-space is
# kept as laid out (tables are drawn with box characters at ``width`` columns).
_CODE = ('<div class="agx-rich"><pre style="margin: 0; padding: .6rem .8rem; border-radius: 4px; '
         "white-space: pre; overflow-x: auto; line-height: normal; font-size: 12.5px; "
         "background: {background}; color: {foreground}; font-family: ui-monospace, "
         "'SFMono-Regular', Menlo, Consolas, 'DejaVu Sans Mono', monospace\">"
         "<code style=\"font-family: inherit; background: none; color: inherit; padding: 0\">"
         "{code}</code></pre></div>\n")


def rich_html(renderables: Iterable[Any], width: int = 110) -> str:
    """``renderables`` laid out for ``width`` columns, as one self-contained HTML element."""
    console = Console(record=True, width=width, file=io.StringIO(), color_system="truecolor",
                      force_terminal=True, force_jupyter=False, legacy_windows=False)
    for part in renderables:
        console.print(part)
    return console.export_html(theme=MONOKAI, inline_styles=True, code_format=_CODE)


def rich_text(renderables: Iterable[Any], width: int, color: bool) -> str:
    """``renderables`` laid out for ``width`` columns as text (with ANSI colours when
    ``color``: a terminal IPython shows them)."""
    out = io.StringIO()
    console = Console(file=out, width=width, force_terminal=color,
                      color_system="truecolor" if color else None, no_color=not color,
                      force_jupyter=False, legacy_windows=False)
    for part in renderables:
        console.print(part)
    return out.getvalue().rstrip("\n")
