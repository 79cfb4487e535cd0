"""How a recorded program ended, from the exception: its message's first line and the user's line."""

from __future__ import annotations

from agexplorer.engine.usercode import UserCode
from agexplorer.record.failure import end_fields, first_line

SYMBOLIC = "Using a symbolic `tf.Tensor` as a Python `bool` is not allowed."


def test_the_message_inside_keras_and_autograph_wrappers_is_the_first_line():
    keras_call = ValueError("Exception encountered when calling Gate.call().\n\n"
                            f"\x1b[1m{SYMBOLIC} You can attempt ...\x1b[0m\n\n"
                            "Arguments received by Gate.call():\n  • x=tf.Tensor(...)")
    assert first_line(keras_call) == f"{SYMBOLIC} You can attempt ..."
    keras_infer = ValueError("Exception encountered when calling Gate.call().\n\n\x1b[1mCould "
                             "not automatically infer the output shape / dtype of 'gate'. "
                             f"Error encountered:\n\n{SYMBOLIC}\x1b[0m\n\nArguments ...")
    assert first_line(keras_infer) == SYMBOLIC
    autograph = AttributeError('in user code:\n\n    File "/p/model.py", line 5, in helper  *\n'
                               "        return x.numpy()\n\n    AttributeError: 'SymbolicTensor'"
                               " object has no attribute 'numpy'\n")
    assert first_line(autograph) == "'SymbolicTensor' object has no attribute 'numpy'"
    assert first_line(KeyError()) == ""


def test_the_end_record_names_the_users_line_from_autograph_frames(tmp_path):
    model = tmp_path / "model.py"
    model.write_text("def helper(x):\n    return x.numpy()\n")
    exc = AttributeError(f'in user code:\n\n    File "{model}", line 2, in helper  *\n'
                         "        return x.numpy()\n\n    AttributeError: no numpy\n")
    fields = end_fields(exc, UserCode())
    assert (fields["raised"], fields["exception"], fields["message"]) == \
        (True, "AttributeError", "no numpy")
    assert (fields["file"], fields["line"]) == (str(model), 2)
    assert end_fields(SystemExit(3), UserCode())["raised"] is False
    assert end_fields(KeyboardInterrupt(), UserCode())["interrupted"] is True


def test_the_end_record_names_the_deepest_line_of_the_users_code_in_the_traceback(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("def fail():\n    raise RuntimeError('first line\\nsecond line')\n\n"
                      "fail()\n")
    try:
        exec(compile(script.read_text(), str(script), "exec"), {})
    except RuntimeError as exc:
        fields = end_fields(exc, UserCode())
    assert (fields["file"], fields["line"], fields["message"]) == (str(script), 2, "first line")
