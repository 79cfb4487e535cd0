"""Golden tests: every lesson sample reports as recorded (verdicts, ops, converted code).

Regenerate after an intended change with ``AGX_UPDATE_GOLDEN=1 python -m pytest
tests/test_samples_golden.py`` and read the diff. The converted code is
compared only on the TensorFlow release the file was recorded with: AutoGraph's
output is a contract of that release, not of every release.
"""

from __future__ import annotations

import ast
import copy
import json
import os
import re

import pytest

from conftest import ROOT, SAMPLES

GOLDEN = os.path.join(ROOT, "tests", "golden", "samples.json")
UPDATE = os.environ.get("AGX_UPDATE_GOLDEN") == "1"


def ready_targets() -> list[str]:
    """Every sample function with ready inputs (AGX_CALLS) or an input_signature."""
    targets = []
    for name in sorted(os.listdir(SAMPLES)):
        if not name.endswith(".py"):
            continue
        tree = ast.parse(open(os.path.join(SAMPLES, name)).read())
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "AGX_CALLS" for t in node.targets):
                targets += [f"{name}::{k}" for k in ast.literal_eval(node.value)]
            if isinstance(node, ast.FunctionDef) and any(
                    "input_signature" in ast.unparse(d) for d in node.decorator_list):
                targets.append(f"{name}::{node.name}")
    return sorted(set(targets))


_NAME_LIST = re.compile(r"(?:'?\w+'?, )+'?\w+'?")


def canonical(code: str) -> str:
    """AutoGraph orders ``nonlocal a, b`` and state tuples by set iteration, which follows
    Python's per-process string hashing: sort such name lists before comparing."""
    return _NAME_LIST.sub(lambda m: ", ".join(sorted(m.group(0).split(", "))), code)


def summarise(report) -> dict:
    data = report.to_dict()
    return {
        "statements": [{k: s[k] for k in ("kind", "line", "verdict", "graph_op", "iterations",
                                          "branch", "ops_created", "times", "loop_vars")}
                       for s in data["statements"]],
        "op_count": data["graph"]["op_count"],
        "ops_by_type": data["graph"]["ops_by_type"],
        "ops_by_line": data["graph"]["ops_by_line"],
        "error": data.get("error", {}).get("kind"),
        "error_line": data.get("error", {}).get("line"),
        "converted": canonical(data["converted"]["code"]),
        "source_map": data["converted"]["source_map"],
    }


def _keras() -> str:
    """The Keras tf.keras is, as the golden file records it: ``keras-3 3.15.1``."""
    from agexplorer.worker.keras_in_use import keras_in_use

    version, flavour = keras_in_use()
    return f"{flavour} {version}"


@pytest.fixture(scope="module")
def golden(tf):
    if UPDATE or not os.path.exists(GOLDEN):
        return {"tf_version": tf.__version__, "keras": _keras(), "targets": {}}
    with open(GOLDEN) as fh:
        return json.load(fh)


@pytest.fixture(scope="module", autouse=True)
def write_golden(golden):
    yield
    if UPDATE:
        os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
        with open(GOLDEN, "w") as fh:
            json.dump(golden, fh, indent=1, sort_keys=True)
            fh.write("\n")


def test_every_lesson_section_has_a_sample():
    sections = {"_".join(name[:-3].split("_")[:2]) for name in os.listdir(SAMPLES)
                if name.startswith("s") and name.endswith(".py")}
    assert {"s4_1", "s4_2", "s4_3", "s4_4", "s4_5", "s4_6", "s4_7", "s5_training",
            "s6_2", "s7_3"} <= sections


@pytest.mark.parametrize("target", ready_targets())
def test_sample_matches_golden(report, golden, tf, target):
    rep = report(os.path.join(SAMPLES, target))
    got = summarise(rep)
    if UPDATE:
        golden["targets"][target] = got
        return
    assert target in golden["targets"], f"no golden entry for {target}: regenerate"
    want = copy.deepcopy(golden["targets"][target])
    if golden["tf_version"] != tf.__version__ or golden.get("keras") != _keras():
        # Another TensorFlow converts and counts a little differently, and another Keras (Keras 2
        # under TF_USE_LEGACY_KERAS=1 or TensorFlow 2.15) builds its layers with other ops: the
        # verdicts must hold, the counts and the converted text need not.
        for key in ("converted", "source_map", "op_count", "ops_by_type", "ops_by_line"):
            want.pop(key), got.pop(key)
        for rows in (want["statements"], got["statements"]):
            for row in rows:
                row.pop("ops_created")
    assert got == want


def test_lesson_expectations(report):
    """What the lesson says, checked directly (independent of the golden file)."""
    s = os.path.join(SAMPLES, "{}")
    assert report(s.format("s4_4_autograph.py::dynamic_loop")).statements[0].graph_op \
        == "StatelessWhile"
    assert report(s.format("s4_4_autograph.py::conditional_function")).statements[0].graph_op \
        == "StatelessIf"
    bad = report(s.format("s6_2_bad_loop.py::bad_loop")).statements[0]
    assert (bad.verdict, bad.iterations) == ("python", 5)
    assert report(s.format("s4_2_tracing.py::show_trace")).output == "Tracing! (Python print)\n"
    failing = report(s.format("s4_7_pitfalls.py::build_list"))
    assert failing.error.kind == "trace-failed" and failing.error.line == 42
    assert report(s.format("s7_3_homework.py::train_step")).statements[0].graph_op in ("If", "StatelessIf")
    keras = report(s.format("s4_6_keras_model.py::MyModel.call"))
    assert keras.error is None and any(op.type == "MatMul" for op in keras.inventory.ops)
