"""Why a trace raised "a symbolic tf.Tensor as a Python bool" (or iterated one) in a function
AutoGraph did not convert, and what to do instead.

TensorFlow's own advice there ("decorate this function with @tf.function") does not apply:
the function ran as written because the code that called it does not convert what it calls
(``tf.vectorized_map``, a Keras 3 layer's ``__call__``, a ``tf.function(autograph=False)``).
AutoGraph's message lists the user's frames and marks those it converted with ``*``; the
innermost frame, unmarked, is the line that asked a tensor for a Python bool.
"""

from __future__ import annotations

import os
import re

from agexplorer.engine.calltree import FileIndex
from agexplorer.engine.keras_layers import owner_class, runs_unconverted
from agexplorer.engine.usercode import UserCode

_BOOL = "symbolic `tf.Tensor` as a Python `bool`"
_ITERATE = "Iterating over a symbolic `tf.Tensor`"
# One frame of AutoGraph's "in user code:" list: file, line, function, the mark of a
# converted frame, then the line's code.
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)( +\*)?[ \t]*\n[ \t]+(.+)')


def tensorflow_words(raised: str) -> str:
    """TensorFlow's error line without its advice, which does not apply here."""
    return raised.split(" You can attempt")[0].rstrip(".")


def unconverted_advice(exc: BaseException, index: FileIndex, user: UserCode) -> str | None:
    """The sentence that explains ``exc`` where it is a tensor used as a Python bool (or
    iterated) in a function that ran unconverted, with the fix; None otherwise. ``user``:
    the files of the user's code (--user-code folders too; agexplorer's own frames, its
    recorder's wrapper among them, are not)."""
    text = str(exc)
    iterated = _ITERATE in text
    if _BOOL not in text and not iterated:
        return None
    frames = [f for f in _FRAME.findall(text.split("OperatorNotAllowedInGraphError")[0])
              if f[0] in user] or _traceback_frames(exc, user)
    if not frames:
        return None
    file, line, function, converted, code = frames[-1]
    if converted:  # AutoGraph converted it and left this construct (an assert, a bool())
        return None
    unit = index.unit_at(file, int(line))
    name = unit.qualname if unit is not None else function
    owner = owner_class(file, name) if unit is not None else None
    asked = "iterated over a tensor" if iterated else "asked a tensor for a Python bool"
    if owner is not None and runs_unconverted(owner, name.rpartition(".")[2]):
        return (f"Keras 3 runs {name} without AutoGraph, so `{code.strip()}` "
                f"({os.path.basename(file)}:{line}) {asked} while tracing: "
                + ("vectorise it or use tf.map_fn / keras.ops.fori_loop." if iterated else
                   "write the condition with tensor ops (tf.where, tf.cond or "
                   "keras.ops.cond) so that both branches are in the graph."))
    caller = frames[-2] if len(frames) > 1 else None
    through = (f", because `{caller[4].strip()}` ({os.path.basename(caller[0])}:{caller[1]}) "
               "handed it to code that calls it as written" if caller is not None else "")
    instead = ("vectorise the loop or use tf.map_fn" if iterated else
               "write the condition with tensor ops (tf.where(cond, a, b), or tf.cond)")
    method = "." in name.replace(".<locals>.", "")
    converted_one = f"tf.autograph.to_graph({'<instance>.' if method else ''}{function})"
    return (f"{name} ran as plain Python while tracing: AutoGraph did not convert it"
            f"{through}, so `{code.strip()}` ({os.path.basename(file)}:{line}) {asked}. "
            f"Fix: {instead}, or hand that code AutoGraph's version of the function, "
            f"{converted_one}.")


def _traceback_frames(exc: BaseException, user: UserCode) -> list[tuple[str, str, str, str, str]]:
    """The user's frames of the traceback itself, as ``_FRAME`` reads them from TensorFlow's
    text (none converted): an error that passed through no tf.function (Keras calling a
    layer on a functional model's symbolic inputs, as a module's top level builds it)
    carries them only there."""
    import linecache

    found = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename in user and code.co_name != "<module>":
            found.append((code.co_filename, str(tb.tb_lineno), code.co_name, "",
                          linecache.getline(code.co_filename, tb.tb_lineno)))
        tb = tb.tb_next
    return found
