"""The page `agexplorer serve` sends a browser: textual-serve's own template, read from its
package, with its one request to another machine (Google's web fonts, for the terminal's
'Roboto Mono') replaced by ``@font-face`` rules on the Roboto Mono textual-serve ships in its
``static/fonts`` folder and serves itself; so the page works offline, as a classroom may be,
and is otherwise the same page. No copy of the template is kept here."""

from __future__ import annotations

import re
from collections.abc import Callable

import jinja2

# A stylesheet fetched from another machine (the template links Google's web fonts).
_REMOTE_LINK = re.compile(r"""<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?//[^>]*>""",
                          re.IGNORECASE)

# The fonts textual-serve 1.1 ships (variable in weight), under its own /static route.
_LOCAL_FONTS = """<style>
      @font-face {
        font-family: "Roboto Mono";
        font-style: normal;
        font-weight: 100 700;
        src: url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
      }
      @font-face {
        font-family: "Roboto Mono";
        font-style: italic;
        font-weight: 100 700;
        src: url("{{ config.static.url }}fonts/RobotoMono-Italic-VariableFont_wght.ttf")
          format("truetype");
      }
    </style>"""


def offline_page(source: str) -> str:
    """The template ``source`` without links to another machine, and with the local
    Roboto Mono declared where the first one was (else at the end of the head)."""
    match = _REMOTE_LINK.search(source)
    if match is None:
        return source.replace("</head>", _LOCAL_FONTS + "\n  </head>", 1)
    rest = _REMOTE_LINK.sub("", source[match.end():])
    return source[:match.start()] + _LOCAL_FONTS + rest


class OfflineTemplates(jinja2.FileSystemLoader):
    """textual-serve's templates, each made offline (``offline_page``) as it is read."""

    def get_source(self, environment: jinja2.Environment,
                   template: str) -> tuple[str, str, Callable[[], bool]]:
        source, filename, uptodate = super().get_source(environment, template)
        return offline_page(source), filename, uptodate
