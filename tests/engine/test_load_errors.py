"""A file whose module-level code raises: one sentence at the line that raised, the error's
own words, and what to do (no TensorFlow: plain Python raises)."""

from __future__ import annotations

import pickle

import pytest

from agexplorer.engine.load import load_module
from agexplorer.model.errors import AgxError

SOURCE = '''\
def featurize(x):
    raise ValueError("no features for " + x)


FEATURES = featurize("audio")
'''


def test_module_code_that_raises_in_a_function_names_that_function_s_line(tmp_path):
    path = tmp_path / "pipeline.py"
    path.write_text(SOURCE)
    with pytest.raises(AgxError) as caught:
        load_module(str(path), SOURCE)
    error = caught.value
    assert (error.kind, error.line) == ("load-error", 2)
    assert error.raised == "ValueError: no features for audio"
    assert error.what == (f"{path}:2: loading the file as a module raised "
                          "ValueError: no features for audio")
    assert 'if __name__ == "__main__":' in error.advice
    assert error.message == f"{error.what}; {error.advice}"


def test_an_error_keeps_its_parts_through_the_worker_s_pipe():
    error = AgxError("trace-failed", "f.py:3: tracing f raised TypeError: bad", advice="fix it",
                     raised="TypeError: bad", line=3, exit_code=1, details=["frame"])
    back = pickle.loads(pickle.dumps(error))
    assert (back.what, back.advice, back.raised, back.line, back.exit_code, back.details) == \
        ("f.py:3: tracing f raised TypeError: bad", "fix it", "TypeError: bad", 3, 1, ["frame"])
    assert str(back) == back.message == "f.py:3: tracing f raised TypeError: bad; fix it"
    # a what with a semicolon of its own keeps it: nothing is split back out of the text
    assert AgxError("x", "a; b").what == "a; b"
