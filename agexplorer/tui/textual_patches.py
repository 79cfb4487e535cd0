"""One compiled tree-sitter highlight query per language, shared by every TextArea.

Textual's ``TextArea`` compiles its highlight query each time it builds a document: at
mount, on every ``load_text`` and on every language change. For Python that compile takes
about 20 ms, paid by the source pane before the first paint and by both panes after each
analysis. A compiled ``tree_sitter.Query`` holds no per-document state (the cursor that
runs it is made per call), so one per (language, query text) serves every document.
"""

from __future__ import annotations

from typing import Any

# (id(language), query text) -> (language, compiled query); the language is kept so that
# its id cannot be reused by another object while the entry lives.
_CACHE: dict[tuple[int, str], tuple[Any, Any]] = {}
_installed = False


def install() -> None:
    """Make ``SyntaxAwareDocument.prepare_query`` reuse compiled queries (idempotent)."""
    global _installed
    if _installed:
        return
    try:
        from textual.document._syntax_aware_document import SyntaxAwareDocument
    except ImportError:  # Textual without tree-sitter: plain text, nothing to cache
        return
    compile_query = SyntaxAwareDocument.prepare_query

    def prepare_query(self: Any, query: str) -> Any:
        key = (id(self.language), query)
        entry = _CACHE.get(key)
        if entry is None:
            entry = _CACHE[key] = (self.language, compile_query(self, query))
        return entry[1]

    SyntaxAwareDocument.prepare_query = prepare_query  # type: ignore[method-assign]
    _installed = True
