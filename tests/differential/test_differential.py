"""The differential corpus, fast part: generated programs (corpus.py) traced by plain
tf.function and read from their ops' own tracebacks (oracle.py), against agexplorer's report of
the same call: no internal error, no fact the two disagree on. The larger run is
benchmarks/bench_differential.py."""

from __future__ import annotations

import dataclasses

import pytest
from comparison import compare, run
from corpus import generate
from regressions import PENDING, regression_programs

pytestmark = pytest.mark.tf

SEEDS = range(32)  # a failure names its seed: generate(seed, SIZE) is the program
SIZE = 24  # smaller than the benchmark's programs (corpus.MAX_TICKS), to keep this fast
# What the issue asks the corpus to cover, each in at least one of the fast programs.
CONSTRUCTS = {"creates_name", "nested_loop", "break_in_loop", "continue_in_loop",
              "return_in_loop", "early_return", "list_append", "tensor_array", "cond_py",
              "cond_tensor", "cond_and_or", "cond_not", "py_while", "tf_while", "py_range",
              "tf_range", "py_list", "tensor", "if_in_loop", "helper", "ternary"}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return str(tmp_path_factory.mktemp("differential"))


def test_the_fast_programs_cover_what_the_issue_names():
    covered = set().union(*(generate(seed, SIZE).features for seed in SEEDS))
    assert CONSTRUCTS <= covered, sorted(CONSTRUCTS - covered)
    assert generate(7) == generate(7)  # a seed names its program


@pytest.mark.parametrize("seed", SEEDS)
def test_a_generated_program_agrees_with_its_ops(tf, folder, seed):
    outcome = run(generate(seed, SIZE), folder, tf, render=seed % 3 == 0)
    assert outcome.status != "internal-error", outcome.explain()
    assert not outcome.disagreements, outcome.explain()


@pytest.mark.parametrize("what, program", [
    pytest.param(what, program, id=what, marks=[pytest.mark.xfail(
        strict=True, reason=PENDING[what])] if what in PENDING else [])
    for what, program in regression_programs()])
def test_a_program_the_corpus_caught_agrees_now(tf, folder, what, program):
    outcome = run(program, folder, tf)
    assert outcome.status == "compared", outcome.explain()
    assert not outcome.disagreements, outcome.explain()


def test_a_wrong_report_is_caught(tf, folder):
    """The comparison can fail: a report off by one reach, one op, one branch disagrees."""
    import comparison
    import oracle

    from agexplorer.engine.pipeline import build_report

    program = dataclasses.replace(generate(0), seed=10_000)
    path = f"{folder}/program_{program.seed}.py"
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(program.source)
    args = eval(f"({program.call},)", {"tf": tf})
    ops = oracle.trace_ops(tf, comparison._load(path), "f", args, path)
    facts = oracle.observe(ops, program.source, "f")
    report = build_report(f"{path}::f", program.call)
    assert not compare(program, facts, report).disagreements
    first = report.statements[0]
    report.statements[0] = dataclasses.replace(
        first, times=first.times + 1,
        branch={"true": "false", "false": "true"}.get(first.branch, first.branch))
    ops = report.inventory.ops
    ops.pop(next(i for i, op in enumerate(ops) if op.line is not None))
    wrong = {c.what for c in compare(program, facts, report).disagreements}
    assert {"times", "ops_at_line"} <= wrong
    assert first.branch is None or "branch" in wrong
