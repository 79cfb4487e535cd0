"""AGX013: a Python dict looked up with a tensor ("Tensor is unhashable"): named where it
raised, with a tf.lookup table as the fix (TensorFlow's own advice, tensor.ref(), does not
look up by value); the fix, applied in the fixture, gives the dict's answers. A recorded run
whose map trace failed there is examined by ``doctor LOG`` with the map's element."""

from __future__ import annotations

import os

import pytest

from agexplorer.doctor.checks import diagnose
from agexplorer.record.runner import run_program
from agexplorer.runlog.log import read_log
from agexplorer.runlog.summary import summarise
from conftest import FIXTURES, import_file

CASES = os.path.join(FIXTURES, "record", "vocab_map.py")
with open(CASES, encoding="utf-8") as _fh:
    LINES = _fh.read().splitlines()


def line_of(snippet: str) -> int:
    return next(i for i, t in enumerate(LINES, 1) if snippet in t)


@pytest.mark.parametrize(("function", "lookup", "default"), [
    ("encode", "VOCAB.get(word, 0)", "0"), ("encode_strict", "VOCAB[word]", "-1")])
def test_a_dict_lookup_with_a_tensor_is_the_cause_with_a_table_as_the_fix(
        report, function, lookup, default):
    target = f"{CASES}::{function}"
    rep = report(target)
    assert "Tensor is unhashable" in rep.error.raised
    result = diagnose(target, report=rep)
    [finding] = result.findings
    assert (finding.code, finding.line, finding.cause) == ("AGX013", line_of(lookup), True)
    assert f"`{lookup}` looks up the Python dict `VOCAB` with `word`" in finding.message
    assert "tensor.ref() as the key, looks up the tensor object" in finding.message
    assert ("`vocab_table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer("
            "list(VOCAB.keys()), list(VOCAB.values())), default_value=" + default + ")`"
            ) in finding.fix
    assert "`vocab_table.lookup(word)`" in finding.fix


def test_the_table_applied_gives_the_dicts_answers(tf):
    module = import_file(CASES, "vocab_map_fixed")
    assert module.main(module.encode_fixed) == [module.VOCAB.get(w, 0) for w in "abc"]


@pytest.mark.tf
def test_a_failed_map_trace_keeps_the_function_it_entered_for_doctor_log(tf, tmp_path):
    from agexplorer.cli.doctor_log import targets

    log = str(tmp_path / "vocab_map.agxlog")
    assert run_program(CASES, [], log_path=log) == 1
    summary = summarise(read_log(log))
    [examined] = targets(summary)
    assert (examined.file, examined.function) == (CASES, "encode")
    assert [(a["name"], a.get("dtype"), a.get("shape")) for a in examined.arguments] == \
        [("word", "string", [])]
    # The summary: no "0 ops" for a trace that made no graph; the failure points to the doctor.
    from agexplorer.runlog.text import text_lines

    text = "\n".join(text_lines(summary, log=log, width=200))
    label = "tf.data.Dataset.from_tensor_slices(['a', 'b', 'c']).map(fn) (vocab_map.py:"
    assert f"1 trace       - ops  {label}" in text
    assert f"traces that failed:\n  {label}" in text
    assert f"why, where the doctor knows the cause: agexplorer doctor {log}" in text
