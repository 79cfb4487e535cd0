"""The README is a front door (at most 250 lines) and every relative link in it and in docs/
leads to a file that is there (no TensorFlow)."""

import pathlib
import re

import pytest

from conftest import ROOT

PAGES = [pathlib.Path(ROOT) / "README.md", *sorted((pathlib.Path(ROOT) / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")


def test_the_readme_is_a_front_door():
    assert len((pathlib.Path(ROOT) / "README.md").read_text().splitlines()) <= 250


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_relative_link_resolves(page):
    broken = [target for target in LINK.findall(page.read_text())
              if "://" not in target and not (page.parent / target).exists()]
    assert broken == []
