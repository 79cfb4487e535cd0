"""`agexplorer check` end to end: the samples against the committed golden file, a mutated
sample, --update round trips, failures, the GitHub format and the refusals."""

import contextlib
import io
import json
import os
import shutil

import pytest

from agexplorer.cli import main
from agexplorer.model.keras import keras_text
from agexplorer.worker.keras_in_use import keras_in_use
from conftest import ROOT, SAMPLES, sample

GOLDEN = os.path.join(ROOT, "tests", "golden", "check_samples.json")
pytestmark = pytest.mark.tf


def run(*argv):
    """(exit code, stdout, stderr) of ``agexplorer ARGV`` in this process (its worker is shared
    by the whole module, so each check pays only for its traces)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def samples_check():
    """One check of every sample against the committed golden file, as JSON."""
    code, out, err = run("check", SAMPLES, "--golden", GOLDEN, "--json")
    return code, json.loads(out), err


@pytest.fixture(scope="module")
def mutated(tmp_path_factory):
    """A copy of s6_2_bad_loop.py: its golden file written twice (both texts kept), then its
    ``tf.range`` changed to ``range``."""
    folder = tmp_path_factory.mktemp("mutated")
    path = folder / "s6_2_bad_loop.py"
    shutil.copy(sample("s6_2_bad_loop.py"), path)
    golden = folder / "golden.json"
    first = run("check", str(folder), "--golden", str(golden), "--update")
    text = golden.read_text()
    second = run("check", str(folder), "--golden", str(golden), "--update")
    unchanged = run("check", str(folder), "--golden", str(golden))
    path.write_text(path.read_text().replace("in tf.range(n)", "in range(n)"))
    return {"folder": folder, "golden": golden, "texts": (text, golden.read_text()),
            "updates": (first, second), "unchanged": unchanged}


def test_the_samples_match_the_committed_golden_file(samples_check):
    code, data, _ = samples_check
    notes = [c for c in data["changes"] if c["kind"] in ("tensorflow", "keras")]
    # Under another TensorFlow or Keras (benchmarks/tf_versions.py), op and trace counts may
    # move, each put down to it by a note; nothing else may change.
    explained = {name for note in notes for name in note["explains"]}
    others = [c for c in data["changes"] if c not in notes and not (
        c["kind"] in ("ops", "traces") and f"{c['file']}::{c['function']}" in explained)]
    if not notes:  # the TensorFlow and Keras it was written with: no change at all
        assert code == 0 and not data["changed"], data["changes"]
    assert data["checked"] == 21
    # The pitfall sample that fails on purpose is told, as the golden file expects it.
    assert [c["function"] for c in others] == ["build_list"]
    assert others[0]["info"]


def test_the_golden_verdicts_are_the_lessons(samples_check):
    verdicts = {(t["function"], s["line"]): (s["verdict"], s["iterations"])
                for t in samples_check[1]["current"]["targets"] for s in t["statements"]}
    assert verdicts[("bad_loop", 18)] == ("python", 5)
    assert verdicts[("range_loop", 38)] == ("python", 5)
    assert verdicts[("fixed_loop", 29)] == ("staged", None)
    assert verdicts[("tf_range_loop", 47)] == ("staged", None)


def test_update_round_trips(mutated):
    first, second = mutated["updates"]
    assert first[0] == 0 and "wrote" in first[1] and "4 functions" in first[1]
    assert second[0] == 0
    assert mutated["texts"][0] == mutated["texts"][1]  # stable across two updates
    code, out, _ = mutated["unchanged"]
    assert code == 0 and "4 functions checked" in out and "no change" in out


def test_a_mutated_sample_fails_with_the_sentence(mutated, monkeypatch):
    monkeypatch.chdir(mutated["folder"])
    code, out, _ = run("check", ".", "--golden", "golden.json")
    assert code == 1
    assert "s6_2_bad_loop.py:47 `for i in range(n)`: staged -> unrolled x5" in out
    assert "s6_2_bad_loop.py::tf_range_loop: 40 ops -> 12 ops" in out
    assert "\x1b[" not in out  # no colours when stdout is not a terminal


def test_the_golden_file_records_the_keras_tf_keras_routes_to(mutated):
    data = json.loads(mutated["texts"][0])
    assert (data["keras"], data["keras_flavour"]) == keras_in_use()


def test_a_golden_file_made_under_another_keras_names_it_as_the_likely_cause(mutated,
                                                                          monkeypatch):
    """As if the golden file were written under tf-keras, where bad_loop made 3 more ops."""
    data = json.loads(mutated["texts"][0])
    data["keras"], data["keras_flavour"] = "2.21.0", "tf-keras"
    [bad_loop] = [t for t in data["targets"] if t["function"] == "bad_loop"]
    bad_loop["op_count"] += 3
    (mutated["folder"] / "keras2.json").write_text(json.dumps(data))
    monkeypatch.chdir(mutated["folder"])
    code, out, _ = run("check", ".", "--golden", "keras2.json", "--format", "github")
    keras = keras_text(*keras_in_use())
    assert code == 1
    # tf_range_loop's count changed with its code (the mutation): not put down to Keras
    assert out.splitlines()[0] == (
        f"::notice::the golden file was made with Keras 2 (tf-keras 2.21.0), this is {keras}: "
        "Keras is the likely cause of the changed op or trace counts of bad_loop")
    assert any(line.startswith("::error file=s6_2_bad_loop.py,line=")
               and "::s6_2_bad_loop.py::bad_loop: " in line for line in out.splitlines())


def test_op_tolerance_hides_the_op_change_not_the_verdict(mutated):
    code, out, _ = run("check", str(mutated["folder"]), "--golden", str(mutated["golden"]),
                       "--json", "--op-tolerance", "100%")
    kinds = {c["kind"] for c in json.loads(out)["changes"]}
    assert code == 1 and "verdict" in kinds and "ops" not in kinds


def test_github_annotations(mutated, monkeypatch):
    monkeypatch.chdir(mutated["folder"])
    code, out, _ = run("check", ".", "--golden", "golden.json", "--format", "github")
    assert code == 1
    assert ("::error file=s6_2_bad_loop.py,line=47::s6_2_bad_loop.py:47 `for i in range(n)`: "
            "staged -> unrolled x5") in out.splitlines()


def test_a_target_that_fails_to_analyse_is_reported(tmp_path):
    path = tmp_path / "model.py"
    path.write_text("import tensorflow as tf\n\n\n@tf.function\ndef step():\n"
                    "    return tf.constant(1)\n")
    golden = str(tmp_path / "g.json")
    assert run("check", str(path), "--golden", golden, "--update")[0] == 0
    path.write_text(path.read_text().replace("return tf.constant(1)",
                                             "raise ValueError('broken')"))
    code, out, _ = run("check", str(path), "--golden", golden)
    assert code == 1
    assert "model.py::step: could not be analysed:" in out and "ValueError" in out


def test_a_file_that_does_not_parse_is_a_failed_target(tmp_path):
    (tmp_path / "ok.py").write_text("def ready():\n    return 1\n")
    golden = str(tmp_path / "g.json")
    assert run("check", str(tmp_path), "--golden", golden, "--update")[0] == 0
    (tmp_path / "broken.py").write_text("def f(:\n")
    code, out, _ = run("check", str(tmp_path), "--golden", golden)
    assert code == 1 and "broken.py::<file>: could not be analysed:" in out


def test_no_golden_file_is_one_sentence_and_exit_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run("check", sample("s6_2_bad_loop.py"))
    assert code == 2 and out == ""
    assert err.strip() == ("agexplorer: there is no golden file "
                           f"{tmp_path / 'agexplorer.golden.json'} yet: run the same check "
                           "with --update first to write it, and commit it.")


def test_call_needs_one_function(tmp_path):
    code, out, err = run("check", SAMPLES, "--call", "5", "--golden", str(tmp_path / "g.json"))
    assert code == 2 and out == ""
    assert "--call gives the arguments of one function" in err


def test_a_bad_tolerance_is_one_sentence(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["check", SAMPLES, "--op-tolerance", "x"])
    assert exit_.value.code == 2
    assert "'x' is not a number of ops (5) or a percentage (10%)" in capsys.readouterr().err
