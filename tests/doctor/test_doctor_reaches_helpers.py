"""The doctor follows the call tree: a helper's unrolled loop is found where it is, with the
path that reached it; a tf.function given only an input_signature is traced from it."""

from __future__ import annotations

import json

from rich.console import Console

from agexplorer.doctor.checks import diagnose
from agexplorer.engine.callargs import UNKNOWN_DIM
from agexplorer.render.doctor import render_doctor
from conftest import fixture

TRANSLATOR = fixture("doctor_tree/translator.py")
DECODER = fixture("doctor_tree/decoder_steps.py")
WRAPPED = fixture("doctor_tree/wrapped.py")
SIGNED = fixture("doctor_tree/signed.py")


def line_of(path: str, snippet: str) -> int:
    with open(path, encoding="utf-8") as fh:
        [line] = [i for i, text in enumerate(fh.read().splitlines(), 1) if snippet in text]
    return line


def doctored(report, target: str, call: str | None = None):
    return diagnose(target, call, report=report(target, call), try_budget=None)


def test_unrolled_loop_in_a_helper_of_another_file(report):
    result = doctored(report, f"{TRANSLATOR}::Translator.translate")
    assert result.traced and result.error is None
    [finding] = result.findings
    assert (finding.code, finding.basis) == ("AGX004", "trace")
    assert finding.file == DECODER and finding.function == "decode"
    assert finding.line == line_of(DECODER, "for _ in range(steps):")
    assert "unrolled 12 times" in finding.message
    assert [(s.function, s.file, s.line) for s in finding.call_path] == [
        ("Translator.translate", TRANSLATOR, line_of(TRANSLATOR, "return decode(")),
        ("decode", DECODER, line_of(DECODER, "def decode("))]
    assert finding.rewrite is None  # another function's file: the fix text says what to do
    assert "tf.range(steps)" in (finding.fix or "")


def test_helper_finding_in_json_and_terminal(report):
    result = doctored(report, f"{TRANSLATOR}::Translator.translate")
    data = json.loads(json.dumps(result.to_dict()))
    [finding] = data["findings"]
    assert finding["file"] == DECODER and finding["function"] == "decode"
    assert [s["function"] for s in finding["call_path"]] == ["Translator.translate", "decode"]
    console = Console(width=140, record=True)
    render_doctor([result], console=console)
    shown = console.export_text()
    assert "1 finding" in shown and "no pitfalls" not in shown
    assert f"decoder_steps.py:{line_of(DECODER, 'for _ in range(steps):')}" in shown
    assert "reached: Translator.translate (translator.py:" in shown
    assert "→ decode (decoder_steps.py:" in shown


def test_root_findings_stay_without_a_call_path(report):
    result = doctored(report, f"{SIGNED}::row_sums")
    [finding] = result.findings
    assert finding.code == "AGX004" and finding.line == line_of(SIGNED, "for j in range(3):")
    assert finding.file is None and finding.call_path is None


def test_signature_of_a_module_level_wrapper_is_used(report):
    result = doctored(report, f"{WRAPPED}::normalize")
    assert result.traced and result.error is None
    assert (result.call, result.call_origin) == (f"<float32[None→{UNKNOWN_DIM}, 8]>",
                                                    "input_signature")
    [finding] = result.findings
    assert (finding.code, finding.basis) == ("AGX004", "trace")
    assert "unrolled 5 times" in finding.message


def test_signature_of_an_instance_attribute_wrapper_is_used(report):
    result = doctored(report, f"{WRAPPED}::Server._serve")
    assert result.traced and result.call == f"<float32[None→{UNKNOWN_DIM}, None→{UNKNOWN_DIM}]>"
    [finding] = result.findings
    assert finding.line == line_of(WRAPPED, "for _ in range(self.taps):")
    assert "unrolled 3 times" in finding.message


FLAT_MAPPED = fixture("doctor_tree/flat_mapped.py")


def test_a_failed_trace_still_examines_the_helper_it_failed_in(report):
    """A Python list appended in a flat_map helper's staged loop: the trace of the function
    explored fails there, and the doctor names the helper's list, not only the error."""
    result = doctored(report, f"{FLAT_MAPPED}::pipeline")
    assert not result.traced and result.error is not None
    assert "out of scope" in (result.error.raised or "")
    [finding] = [f for f in result.findings if f.code == "AGX003"]
    assert finding.file == FLAT_MAPPED and finding.function == "expand"
    assert finding.line == line_of(FLAT_MAPPED, "parts.append(row * 2.0)")
    used = line_of(FLAT_MAPPED, "from_tensor_slices(tf.stack(parts))")
    assert "staged as a tf.while_loop" in finding.message
    assert f"using it after the loop (line {used}) is what made tracing fail" in finding.message
    assert [s.function for s in finding.call_path] == ["pipeline", "expand"]
    assert "tf.TensorArray" in (finding.fix or "")


def test_only_the_numpy_call_that_raised_is_named_the_cause(report):
    result = doctored(report, f"{FLAT_MAPPED}::two_values", "tf.ones([2])")
    first, second = sorted((f for f in result.findings if f.code == "AGX006"),
                           key=lambda f: f.line)
    assert first.line == line_of(FLAT_MAPPED, "first = x.numpy()")
    assert "that is what made tracing fail" in first.message
    assert "that is what made tracing fail" not in second.message
    assert ": it fails in a graph" in second.message
