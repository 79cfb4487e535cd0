"""Segments gives every node's source text as ast.get_source_segment does, from lines split
once (the stdlib splits the whole text at each call)."""

from __future__ import annotations

import ast
import glob
import os

import pytest

from agexplorer.source.segments import Segments, split_lines
from conftest import SAMPLES

ODD = ("a = 1\r\nif a:\r\n    b = 'é' + '漢字'\r\nc = (1,\r    2)\rd = '\f'\n\x0cx = 3\n"
       "e = f'{a!r:>{3}}'  # ü\nif (x :=\n      4) > 3: pass")


TEXTS = {"odd line ends": ODD, "one line": "x = 1", "no end": "x = [\n 1,\n 2]  # no end of line"}
TEXTS.update({os.path.basename(f): open(f, encoding="utf-8").read()
              for f in sorted(glob.glob(os.path.join(SAMPLES, "*.py")))})


@pytest.mark.parametrize("name", list(TEXTS))
def test_every_node_gets_the_stdlibs_segment(name):
    text = TEXTS[name]
    tree, segments = ast.parse(text), Segments(text)
    nodes = [node for node in ast.walk(tree) if hasattr(node, "lineno")]
    assert nodes
    for node in nodes:
        assert segments(node) == ast.get_source_segment(text, node), ast.dump(node)


def test_lines_split_where_the_parser_counts_them():
    # a form feed does not end a line for the parser (str.splitlines would split there)
    assert split_lines("a\r\nb\rc\nd\x0ce") == ["a\r\n", "b\r", "c\n", "d\x0ce"]
    assert split_lines("") == [] and split_lines("\n") == ["\n"]
    assert Segments("x = 1")(ast.Module(body=[], type_ignores=[])) is None  # no position
