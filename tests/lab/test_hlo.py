"""The HLO XLA compiles, each instruction tied to the user's line, and its compile time apart."""

from __future__ import annotations

import json
import os

import pytest

from agexplorer.lab.hlo import hlo_lines, op_lines
from agexplorer.model.inventory import Inventory, OpInfo
from agexplorer.model.lab import HloText, RunLab
from agexplorer.render.hlo import highlight_hlo, shorten, source_label

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "s6_2_bad_loop.py")
SAMPLE = os.path.abspath(SAMPLE)
HLO = """HloModule m
  %add.1 = s32[] add(s32[] %a, s32[] %b), metadata={op_type="AddV2" op_name="while/add" \
source_file="/tf/ops.py" source_line=1221}
  %c.2 = s32[] constant(1), metadata={op_type="AddV2" op_name="add"}
  %d = s32[] reshape(s32[] %add.1), metadata={op_name="XLA_Retvals"}
  %e = s32[] add(s32[] %d, s32[] %d), metadata={op_name="twice"}"""


def _op(name: str, function: str, line: int | None) -> OpInfo:
    return OpInfo(name, "AddV2", line, function, "", [], file="f.py" if line else None)


def test_each_instruction_gets_the_line_of_the_op_it_names():
    inventory = Inventory(ops=[_op("add", "outer", 47), _op("while/add", "body", 48),
                               _op("twice", "outer", 3), _op("twice", "body", 4)])
    names = op_lines(inventory)
    assert names["twice"] is None  # two bodies, two lines: no line rather than a wrong one
    assert hlo_lines(HLO, names) == [None, ("f.py", 48), ("f.py", 47), None, None]


def test_the_text_is_highlighted_and_tensorflows_own_frame_dropped():
    line = HLO.splitlines()[1]
    short = shorten(line)
    assert "source_file" not in short and short.endswith('op_name="while/add"}')
    styled = highlight_hlo(short)
    styles = {short[s.start:s.end]: str(s.style) for s in styled.spans}
    assert styles["add"] == "bold magenta" and styles["%add.1"] == "yellow"
    assert styles["s32[]"] == "cyan"
    assert source_label(("f.py", 48), "f.py") == "L48"
    assert source_label(("/x/g.py", 2), "f.py") == "g.py:2" and source_label(None) == ""


def test_the_json_keeps_text_and_error_and_adds_lines_and_times():
    lab = RunLab(device="cpu", hlo_ir=HloText(text="HloModule m\n", lines=[None, ("f.py", 2)],
                                              trace_s=0.1, lower_s=0.02, compile_s=0.05))
    lab.rename_file("f.py", "real.py")
    data = json.loads(json.dumps(lab.to_dict()))["hlo"]
    assert data == {"text": "HloModule m\n", "error": None, "lines": [None, ["real.py", 2]],
                    "trace_s": 0.1, "lower_s": 0.02, "compile_s": 0.05}
    assert lab.hlo == "HloModule m\n" and lab.hlo_error is None


@pytest.mark.tf
def test_a_staged_loop_compiles_with_its_body_on_the_body_line():
    from agexplorer.lab.runs import hlo_only

    hlo = hlo_only(f"{SAMPLE}::tf_range_loop").hlo_ir
    assert hlo is not None and hlo.error is None and hlo.text.startswith("HloModule")
    assert len(hlo.lines) == len(hlo.text.splitlines())
    by_line: dict[int, list[str]] = {}
    for text, where in zip(hlo.text.splitlines(), hlo.lines, strict=True):
        if where is not None:
            assert where[0] == SAMPLE
            by_line.setdefault(where[1], []).append(text)
    # `s += i` (line 48) is the body's add; `for i in tf.range(n)` (47) the loop and range.
    assert any('op_name="while/add"' in t and " add(" in t for t in by_line[48])
    assert any(" while(" in t for t in by_line[47])
    assert not any("XLA_Retvals" in t for ts in by_line.values() for t in ts)
    # Each phase measured on its own: the trace, the lowering, the executable's build.
    assert hlo.trace_s > 0 and hlo.lower_s > 0 and hlo.compile_s > 0


@pytest.mark.tf
def test_an_unrolled_loop_folds_to_a_constant_with_no_source_and_xla_refusals_say_so(tmp_path):
    from agexplorer.lab.runs import hlo_only

    folded = hlo_only(f"{SAMPLE}::range_loop").hlo_ir
    assert folded is not None and folded.text and not any(folded.lines)
    strings = tmp_path / "strings.py"
    strings.write_text("import tensorflow as tf\n\n\ndef strings(x):\n"
                       "    return tf.strings.join([x, x])\n\n\n"
                       "AGX_CALLS = {'strings': \"tf.constant('a')\"}\n")
    refused = hlo_only(f"{strings}::strings").hlo_ir
    assert refused is not None and refused.text is None and refused.lines == []
    assert refused.error.startswith("XLA could not compile strings: ")
    assert "\n" not in refused.error


@pytest.mark.tf
def test_a_function_called_without_its_defaults_compiles(tmp_path):
    """TensorFlow's compiler IR does not apply the function's own defaults: the lab does."""
    from agexplorer.lab.runs import hlo_only

    scaled = tmp_path / "scaled.py"
    scaled.write_text("import tensorflow as tf\n\n\ndef scaled(x, label='a', factor=2.0):\n"
                      "    return x * factor\n\n\nAGX_CALLS = {'scaled': 'tf.ones([2])'}\n")
    hlo = hlo_only(f"{scaled}::scaled").hlo_ir
    assert hlo is not None and hlo.error is None and hlo.text.startswith("HloModule")
