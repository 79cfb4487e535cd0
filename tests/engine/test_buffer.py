"""Shadow copies of unsaved buffers: where they are written and when they go (no TensorFlow)."""

import os

from agexplorer.engine.buffer import module_shadowed, removals_after, shadowed


def test_a_buffers_copy_goes_with_its_analysis_or_once_the_answer_is_sent(tmp_path):
    real = tmp_path / "m.py"
    real.write_text("def f():\n    return 1\n")
    with shadowed(f"{real}::f", "def f():\n    return 2\n") as (target, shadow):
        copy = target.partition("::")[0]
        assert open(copy).read() == "def f():\n    return 2\n" and shadow.real == str(real)
    assert not os.path.exists(copy)  # gone at once
    # In the worker, the copies of a request go after its answer is sent (~0.5 ms saved).
    with removals_after():
        with shadowed(f"{real}::f", "def f():\n    return 3\n") as (target, _):
            copy = target.partition("::")[0]
        with module_shadowed(str(real), "x = 1\n") as helper:
            pass
        assert os.path.exists(copy) and os.path.exists(helper)
    assert not os.path.exists(copy) and not os.path.exists(helper)
    with shadowed(f"{real}::f", None) as (target, _):
        assert target == f"{real}::f"  # no buffer: the file itself, nothing written
