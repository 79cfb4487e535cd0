"""Workarounds for Textual: a shared highlight query, a footer that neither leaks nor churns,
and tabs that a late focus message cannot switch back.

Textual's ``TextArea`` compiles its highlight query each time it builds a document: at
mount, on every ``load_text`` and on every language change. For Python that compile takes
about 20 ms, paid by the source pane before the first paint and by both panes after each
analysis. A compiled ``tree_sitter.Query`` holds no per-document state (the cursor that
runs it is made per call), so one per (language, query text) serves every document.

Textual's ``Footer`` (8.2.8) recomposes twice after every focus change, and every key it
ever composed stayed alive through its ``data_bind`` watchers (1.2 MB and 0.4 s of CPU a tab
switch: docs/upstream/textual-footer-leak.md). :func:`install_footer` skips a recompose that
would show the same keys and lets go of the keys it replaced; narrow, a group's keys show as
one range ("alt+1-4 Panes", not "alt+1alt+2alt+3alt+4") and a key cut by the palette's key
or the edge is hidden whole (it left a stray "^" or "p").

A widget focused in a ``TabbedContent``'s pane makes it show that pane, through messages
that reach it later, each pane's on its own queue: in a burst of tab keys a late one showed
an older tab while the focus was in the newer one. :func:`install_tab_focus` drops such a
message once the focus has left its pane.

Textual reads ESC followed by a digit, which is how xterm, tmux, GNOME Terminal and most
Linux terminals send alt+digit, as the characters macOS types for Option+digit ("¡", "™",
"£", "¢"...: a table entry for WezTerm on macOS), so alt+1-4 never reached the explorer's
bindings through tmux. :func:`install_alt_digits` maps those entries to alt+digit (a macOS
terminal that types "¡" itself still types it).

A class set on a node makes Textual restyle the node and every node under it: for a class on
the screen, the whole explorer with all its tabs (about 0.1 s on this machine, paid twice a
tour step and at each tab or pane switch that moves a screen class). :func:`set_class`
restyles only the nodes the rules naming that class select: only those rules can change
what they select when the class changes, and Textual's style setters repaint the nodes under
one whose inherited styles (colour, background, opacity) changed.

:func:`install_styles_cache`: docs/upstream/textual-styles-cache.md (and tui/textual_render.py).
Each of these reaches into Textual's private names, as :func:`install_crash_hook` does
(``App._handle_exception``, to keep an unsaved buffer before Textual ends the app). They
are all named in ``PRIVATE`` and checked by :func:`probe` (tests/tui/test_textual_patches.py
runs it): a Textual that renamed one skips that patch and keeps working, unpatched.
pyproject.toml bounds textual to the major version they were written for.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App
    from textual.dom import DOMNode
    from textual.widgets import Footer, TabbedContent, TabPane
    from textual.widgets._footer import FooterKey

# The private names the patches use: (module, attribute path), each probed before use.
PRIVATE: tuple[tuple[str, str], ...] = (
    ("textual.document._syntax_aware_document", "SyntaxAwareDocument.prepare_query"),
    ("textual.widgets._footer", "FooterKey"),
    ("textual.widgets", "Footer.recompose"),
    ("textual.widgets", "TabbedContent._on_tab_pane_focused"),
    ("textual.app", "App._handle_exception"),
    ("textual._ansi_sequences", "ANSI_SEQUENCES_KEYS"),
    ("textual._styles_cache", "StylesCache.get_inner_outer"),
)
# The names set_class restyles through (also in PRIVATE).
RESTYLE: tuple[tuple[str, str], ...] = (
    ("textual.css.stylesheet", "Stylesheet.rules"),
    ("textual.css.stylesheet", "Stylesheet.update_nodes"),
    ("textual.css.model", "SelectorSet.css"),
    ("textual.css.model", "SelectorType.CLASS"),
)
PRIVATE += RESTYLE


def missing() -> list[str]:
    """The names of ``PRIVATE`` this Textual lacks (``module:attribute``)."""
    return [f"{module}:{path}" for module, path in PRIVATE if not _present(module, path)]


def _present(module: str, path: str) -> bool:
    import importlib

    try:
        found: Any = importlib.import_module(module)
        for part in path.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return False
    return True


def probe(module: str, path: str) -> bool:
    """Whether ``module``'s ``path`` (one of ``PRIVATE``) is there to patch. Each name is
    looked up when first asked for, alone: the first frame's patches do not import the
    modules of the later ones (Textual's tabs, its syntax-aware document: ~8 ms)."""
    assert (module, path) in PRIVATE, "name every private Textual name in PRIVATE"
    key = (module, path)
    if key not in _probed:
        _probed[key] = _present(module, path)
    return _probed[key]


_probed: dict[tuple[str, str], bool] = {}


# (id(language), query text) -> (language, compiled query); the language is kept so that
# its id cannot be reused by another object while the entry lives.
_CACHE: dict[tuple[int, str], tuple[Any, Any]] = {}
_installed = False
_footer_installed = False
_tab_focus_installed = False
_alt_digits_installed = False
_styles_cache_installed = False


def install() -> None:
    """Make ``SyntaxAwareDocument.prepare_query`` reuse compiled queries (idempotent)."""
    global _installed
    if _installed or not probe("textual.document._syntax_aware_document",
                               "SyntaxAwareDocument.prepare_query"):
        return  # also: Textual without tree-sitter (plain text, nothing to cache)
    from textual.document._syntax_aware_document import SyntaxAwareDocument

    compile_query = SyntaxAwareDocument.prepare_query

    def prepare_query(self: Any, query: str) -> Any:
        key = (id(self.language), query)
        entry = _CACHE.get(key)
        if entry is None:
            entry = _CACHE[key] = (self.language, compile_query(self, query))
        return entry[1]

    SyntaxAwareDocument.prepare_query = prepare_query  # type: ignore[method-assign]
    _installed = True


def install_styles_cache() -> None:
    """Key ``StylesCache.get_inner_outer``'s cache by the two colours it reads (idempotent):
    an ``lru_cache`` on the method, its 1,024 keys held gone widgets' rendered lines."""
    global _styles_cache_installed
    if _styles_cache_installed or not probe("textual._styles_cache",
                                            "StylesCache.get_inner_outer"):
        return
    from functools import lru_cache

    from textual._styles_cache import StylesCache

    body = getattr(StylesCache.get_inner_outer, "__wrapped__", None)
    if body is None:  # not the cached method this was written for: left as it is
        return

    @lru_cache(1024)
    def inner_outer(base_background: Any, background: Any) -> Any:
        return body(None, base_background, background)

    StylesCache.get_inner_outer = staticmethod(inner_outer)  # type: ignore[method-assign, assignment]
    _styles_cache_installed = True


def footer_keys(footer: Footer) -> tuple[object, ...]:
    """What ``footer`` would show if composed now: each shown binding with whether it is on
    and its tooltip, in order, and the command palette's key (what ``Footer.compose`` reads)."""
    bindings = footer.screen.active_bindings
    shown = tuple((b.binding, b.enabled, b.tooltip) for b in bindings.values() if b.binding.show)
    palette = bindings.get(footer.app.COMMAND_PALETTE_BINDING)
    return (shown, footer.show_command_palette and footer.app.ENABLE_COMMAND_PALETTE,
            palette and (palette.binding, palette.enabled, palette.tooltip))


def forget_removed_watchers(node: DOMNode) -> None:
    """Drop the callbacks that removed widgets left on ``node`` with ``watch`` or
    ``data_bind``: Textual keeps them, and so the widgets, until the watched reactive changes,
    then drops them by this same test (``Reactive._check_watchers``)."""
    watchers: dict[str, list[tuple[Any, Any]]] = getattr(node, "__watchers", {})
    for entries in watchers.values():
        entries[:] = [(watcher, callback) for watcher, callback in entries
                      if not watcher._closing]


def group_keys(keys: Sequence[str]) -> str:
    """One label for a group's keys: a run of single characters after a shared prefix as a
    range (``alt+1`` ... ``alt+4`` -> ``alt+1-4``, ``1`` ... ``9`` -> ``1-9``), else the keys
    joined by "/"."""
    prefix = keys[0][:-1]
    if len(keys) > 2 and all(len(key) == len(prefix) + 1 and key.startswith(prefix)
                             for key in keys) and \
            all(ord(b[-1]) - ord(a[-1]) == 1 for a, b in itertools.pairwise(keys)):
        return f"{keys[0]}-{keys[-1][-1]}"
    return "/".join(keys)


def show_as_one(keys: Sequence[FooterKey]) -> None:
    """Show a binding group's keys (composed, not yet mounted) as its first key, labelled
    with them all (``group_keys``); its tooltip names each (a click presses the first).
    Textual marks a group's keys "-grouped" and keeps a key's label in ``key_display``: a
    Textual that did otherwise would show its own footer, unchanged, not fail."""
    first, *rest = keys
    first.tooltip = "\n".join(f"{key.key_display}  {key.tooltip or ''}" for key in keys)
    first.key_display = group_keys([key.key_display for key in keys])
    for key in rest:
        key.display = False


def fit_footer(footer: Footer) -> None:
    """Hide the footer's items that its width cuts, under the command palette's key (docked
    over the right end) or at an edge, and show again those that fit whole. Hidden, not
    removed: every item keeps its place, read from the footer's arrangement (a hidden item
    has no region on the screen)."""
    if not footer.is_attached:
        return
    area = footer.scrollable_content_region
    places = {place.widget: place for place in footer.arrange(area.size).placements}
    left, right = round(footer.scroll_x), round(footer.scroll_x) + area.width
    for widget, place in places.items():  # the palette's key, docked on the right
        if place.fixed and widget.styles.dock == "right":
            right = min(right, round(footer.scroll_x) + place.region.x)
    for item in footer.children:
        found = places.get(item)
        if found is None or found.fixed:
            continue
        fits = left <= found.region.x and found.region.right <= right
        if item.visible != fits:
            item.visible = fits


def install_footer() -> None:
    """Make every ``Footer`` recompose only when its keys change, and forget the keys it
    removed (idempotent; before the first footer mounts)."""
    global _footer_installed
    if _footer_installed or not (probe("textual.widgets._footer", "FooterKey")
                                 and probe("textual.widgets", "Footer.recompose")):
        return
    from textual.events import Resize
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    recompose, compose = Footer.recompose, Footer.compose

    def compose_in_style(self: Footer) -> Any:
        # Each key bound to the footer's ``compact`` is made compact or not as the footer is:
        # binding it then changes nothing (a key made compact and bound to a wide footer
        # restyled itself). The command palette's key is not bound: it stays as it was made.
        # A group's keys (each marked "-grouped", then the group's label) show as one.
        grouped: list[FooterKey] = []
        for widget in compose(self):
            if isinstance(widget, FooterKey) and widget.has_class("-grouped"):
                grouped.append(widget)
            elif grouped:
                show_as_one(grouped)
                grouped = []
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                widget.set_reactive(FooterKey.compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget
        if grouped:
            show_as_one(grouped)

    async def recompose_when_changed(self: Footer) -> None:
        if not self.is_attached:
            return
        keys = footer_keys(self)
        if self.children and keys == getattr(self, "_agx_keys", None):
            return  # the same keys (a focus change within the same bindings): nothing to do
        await recompose(self)
        self._agx_keys = keys  # type: ignore[attr-defined]
        forget_removed_watchers(self)
        self.call_after_refresh(fit_footer, self)  # the new keys, once placed

    # Fitted again when the keys' room changes: the footer's width, its keys' widths (compact
    # or not: its virtual size), or a scroll (the mouse wheel scrolls a footer sideways).
    resized = getattr(Footer, "on_resize", None)  # none in Textual 8.2.8

    def on_resize(self: Footer, event: Resize) -> None:
        if resized is not None:
            resized(self, event)
        self.call_after_refresh(fit_footer, self)

    scrolled = Footer.watch_scroll_x

    def watch_scroll_x(self: Footer, old_value: float, new_value: float) -> None:
        scrolled(self, old_value, new_value)
        self.call_after_refresh(fit_footer, self)

    Footer.compose = compose_in_style  # type: ignore[method-assign]
    Footer.recompose = recompose_when_changed  # type: ignore[method-assign, assignment]
    Footer.on_resize = on_resize  # type: ignore[attr-defined]
    Footer.watch_scroll_x = watch_scroll_x  # type: ignore[method-assign, assignment]
    _footer_installed = True


def install_tab_focus() -> None:
    """Make a ``TabbedContent`` show the pane of a focused widget only while the focus is
    still in that pane (idempotent)."""
    global _tab_focus_installed
    if _tab_focus_installed or not probe("textual.widgets", "TabbedContent._on_tab_pane_focused"):
        return
    from textual.widgets import TabbedContent

    on_pane_focused = TabbedContent._on_tab_pane_focused

    def on_pane_focused_now(self: TabbedContent, event: TabPane.Focused) -> None:
        focused = self.screen.focused
        if focused is None or event.tab_pane not in focused.ancestors_with_self:
            event.stop()  # stale: the focus has moved on (to another tab, shown by its key)
            return
        on_pane_focused(self, event)

    TabbedContent._on_tab_pane_focused = on_pane_focused_now  # type: ignore[method-assign]
    _tab_focus_installed = True


def install_alt_digits() -> None:
    """Read ESC and a digit as alt+digit, not as macOS's Option characters (idempotent)."""
    global _alt_digits_installed
    if _alt_digits_installed or not probe("textual._ansi_sequences", "ANSI_SEQUENCES_KEYS"):
        return
    import enum

    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    # The table's values are characters or tuples of keys (members of an enum whose value
    # is the key's name): alt+digit is such a key, read at once. (Leaving ESC and the digit
    # out of the table made Textual wait for more of a sequence, then read a second alt+digit
    # pressed within its escape delay as "^" and the digit.)
    alt: Any = enum.Enum("AltDigit",  # type: ignore[misc]  # (members made from the digits)
                         {f"ALT_{digit}": f"alt+{digit}" for digit in "0123456789"})
    for digit in "0123456789":
        sequence = "\x1b" + digit
        # Only Textual's own character entries: one that names keys is left as it is.
        if isinstance(ANSI_SEQUENCES_KEYS.get(sequence), str):
            ANSI_SEQUENCES_KEYS[sequence] = (alt[f"ALT_{digit}"],)  # type: ignore[index]
    _alt_digits_installed = True


def install_crash_hook(app_class: type[App], before: Callable[[App], None]) -> None:
    """Call ``before(app)`` first on Textual's path for an unexpected exception (which then
    ends the app): e.g. keep the unsaved buffer."""
    if not probe("textual.app", "App._handle_exception"):
        return
    handle = app_class._handle_exception

    def handle_exception(self: App, error: Exception) -> None:
        before(self)
        handle(self, error)

    app_class._handle_exception = handle_exception  # type: ignore[method-assign]


def served_key_thread(app: App) -> threading.Thread | None:
    """The thread a served explorer (Textual's web driver) reads stdin with, started; None
    in a terminal, and where this Textual names the driver or its thread otherwise (the
    input is then not watched: read defensively, not probed, as it is only ever read)."""
    driver = getattr(app, "_driver", None)
    keys = getattr(driver, "_key_thread", None)
    if type(driver).__module__ != "textual.drivers.web_driver" or \
            not isinstance(keys, threading.Thread) or keys.ident is None:
        return None
    return keys


# A class name -> (the stylesheet's rules, their count, the selectors naming the class).
_SELECTING: dict[str, tuple[list[Any], int, frozenset[str]]] = {}


def set_class(node: DOMNode, on: bool, name: str) -> None:
    """``node.set_class(on, name)``, restyling only ``node`` and the nodes under it that the
    rules naming ``.name`` select (looked up while the class is set), not every node under
    ``node``: no other node can match a selector differently when ``node``'s class changes."""
    if node.has_class(name) == on:
        return
    if not node.is_attached or not all(probe(module, path) for module, path in RESTYLE):
        node.set_class(on, name)
        return
    from textual.css.model import SelectorType

    sheet = node.app.stylesheet
    rules = sheet.rules  # parsed again (a new list) when a widget's CSS is added
    cached = _SELECTING.get(name)
    if cached is None or cached[0] is not rules or cached[1] != len(rules):
        css = frozenset(selectors.css for rule in rules for selectors in rule.selector_set
                        if any(part.type == SelectorType.CLASS and part.name == name
                               for part in selectors.selectors))
        cached = _SELECTING[name] = (rules, len(rules), css)
    selecting = cached[2]

    def selected() -> list[DOMNode]:
        # Only ``node`` and the nodes under it can match a selector differently.
        found: dict[int, DOMNode] = {id(node): node}
        for css in sorted(selecting):
            found.update((id(hit), hit) for hit in node.query(css))
        return list(found.values())

    if on:
        node.set_class(True, name, update=False)
        nodes = selected()
    else:
        nodes = selected()
        node.set_class(False, name, update=False)
    sheet.update_nodes(nodes, animate=True)
