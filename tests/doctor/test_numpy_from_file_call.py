"""AGX006 where the file's own call passed the tensor by name: the trace's failure at the
NumPy call is the evidence that a tensor reached NumPy there."""

from __future__ import annotations

from agexplorer.doctor.checks import diagnose


def test_numpy_on_a_tensor_the_file_s_call_passed_is_the_cause(report, tmp_path):
    """The file's own call passes a module-level tensor by name (``normalize(x)``): its kind
    is not in the call's text, but the trace that failed at the NumPy call shows a tensor
    reached NumPy there (AGX006, the cause)."""
    path = tmp_path / "script.py"
    path.write_text("import numpy as np\nimport tensorflow as tf\n\n\n@tf.function\n"
                    "def normalize(x):\n    mean = np.mean(x)\n    return x - mean\n\n\n"
                    "x = tf.constant([1.0, 2.0, 3.0])\nprint(normalize(x))\n")
    target = f"{path}::normalize"
    rep = report(target)
    assert rep.call_origin == "the file's call, line 12" and rep.load_note is not None
    [finding] = diagnose(target, report=rep).findings
    assert (finding.code, finding.line, finding.cause) == ("AGX006", 7, True)
    assert "tf.reduce_mean(...)" in finding.fix
