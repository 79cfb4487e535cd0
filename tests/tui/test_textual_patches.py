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
