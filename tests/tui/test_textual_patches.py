"""Textual's private names, used by the patches, are all there; one that is gone skips its patch
instead of failing the explorer's start (no TensorFlow)."""

import pytest
from textual.widgets import TabbedContent

from agexplorer.tui import textual_patches


def test_every_private_name_the_patches_use_is_in_this_textual():
    assert textual_patches.missing() == []


def test_a_private_name_that_is_gone_skips_its_patch(monkeypatch):
    monkeypatch.setattr(textual_patches, "_missing",
                        ["textual.widgets:TabbedContent._on_tab_pane_focused"])
    monkeypatch.setattr(textual_patches, "_tab_focus_installed", False)
    before = TabbedContent._on_tab_pane_focused
    textual_patches.install_tab_focus()
    assert TabbedContent._on_tab_pane_focused is before


def test_a_name_left_out_of_the_list_is_refused():
    with pytest.raises(AssertionError, match="PRIVATE"):
        textual_patches.probe("textual.app", "App._private_thing")


def test_esc_and_a_digit_is_read_as_alt_and_the_digit():
    """How tmux, xterm and most Linux terminals send alt+2: ESC then "2" (Textual read it as
    "™", macOS's Option+2, so alt+1-4 never focused a pane through tmux)."""
    from textual import events
    from textual._xterm_parser import XTermParser

    textual_patches.install_alt_digits()
    keys = [event.key for event in XTermParser().feed("\x1b1\x1b2\x1b39")
            if isinstance(event, events.Key)]
    assert keys == ["alt+1", "alt+2", "alt+3", "9"]
    typed = [event.key for event in XTermParser().feed("£¡") if isinstance(event, events.Key)]
    assert typed == ["pound_sign", "inverted_exclamation_mark"]  # typed as they come
