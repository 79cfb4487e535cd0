"""What a notebook asks about, made into what the engine traces: a function, a tf.function, a
bound method or a Keras layer (its ``call``), found in its file or its IPython cell.

Bad input is one sentence (a TypeError, raised before TensorFlow is imported); the user's
code failing (a layer that cannot be built) is the report's error, as ``agexplorer report``
shows it.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any

from agexplorer.engine.keras_layers import keras_major
from agexplorer.engine.load import Loaded
from agexplorer.model.errors import AgxError, user_frames_message
from agexplorer.model.text import file_line, shortened

KINDS = "a function, a tf.function, a bound method or a Keras layer"


class NotExplainable(TypeError):
    """What was given cannot be explained: the sentence says why and what to pass instead.
    In IPython it is that sentence alone (IPython's ``_render_traceback_`` hook), not a
    traceback through agexplorer's frames."""

    def _render_traceback_(self) -> list[str]:
        return [f"TypeError: {self}"]


@dataclass(frozen=True)
class Target:
    """What was given, and what the engine loads for it."""

    given: Any
    callable: Any  # what engine.live.load_callable takes
    layer: Any = None  # the Keras layer whose ``call`` is explored (built first if need be)
    tf_function: Any = None  # the user's own tf.function, when one was given

    @property
    def name(self) -> str:
        """The given object in a few words, for sentences: ``f``, ``MyModel.call``."""
        if self.layer is not None:
            return f"{type(self.layer).__name__}.call"
        fn = getattr(self.callable, "python_function", self.callable)
        return getattr(fn, "__qualname__", None) or type(fn).__name__


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a user object whose repr fails
        text = f"<{type(value).__name__} object>"
    return shortened(text, 60)


def is_layer(value: Any) -> bool:
    """A Keras layer or model (Keras 3 or tf-keras), told from its class alone: nothing imported."""
    return not isinstance(value, type) and keras_major(type(value)) is not None


def resolve(fn: Any) -> Target:
    """``fn`` as a :class:`Target`; TypeError with one sentence for anything else."""
    __tracebackhide__ = True  # the sentence is the news: pytest skips this frame
    if is_layer(fn):
        return _layer_target(fn)
    if isinstance(fn, type):
        raise NotExplainable(f"expected {KINDS}, got the class {fn.__name__}: pass an instance "
                        f"(a model or layer), or the method itself ({fn.__name__}().call).")
    if hasattr(fn, "python_function"):
        return Target(fn, fn, tf_function=fn)
    if isinstance(fn, types.MethodType):
        owner = fn.__self__
        layer = owner if is_layer(owner) and fn.__func__.__name__ == "call" else None
        return Target(fn, fn, layer=layer)
    if isinstance(fn, types.FunctionType):
        return Target(fn, fn)
    raise NotExplainable(f"expected {KINDS}, got {type(fn).__name__} {_short(fn)}.")


def _layer_target(layer: Any) -> Target:
    """A layer's ``call``, bound to it; refused where it is Keras's own code (a Sequential's,
    a Dense's): there is nothing of the user's to give verdicts on."""
    __tracebackhide__ = True
    from agexplorer.engine.usercode import UserCode

    name = type(layer).__name__
    call = getattr(layer, "call", None)
    if hasattr(call, "python_function"):  # a @tf.function call (Keras 2 models often have one)
        return Target(layer, call, layer=layer, tf_function=call)
    function = getattr(call, "__func__", None)
    if not isinstance(function, types.FunctionType):
        raise NotExplainable(f"{name} has no call method of Python code to explain.")
    file = function.__code__.co_filename
    if file not in UserCode():
        raise NotExplainable(f"{name}.call is Keras's own code ({file}), not yours: explain the "
                        f"function of yours that calls the {name} (a train step, a "
                        "forward pass).")
    return Target(layer, call, layer=layer)


def load(target: Target, args: tuple[Any, ...], kwargs: dict[str, Any], origin: str,
         written: str | None = None) -> Loaded:
    """The engine's :class:`Loaded` for ``target`` called with ``args``/``kwargs``, its
    source read from its file or its notebook cell; TypeError (one sentence) without one.
    ``written``: the arguments as the user wrote them (a magic's ``x, y``), which the
    report names the call by (else their types and shapes)."""
    __tracebackhide__ = True
    from agexplorer.engine.live import load_callable

    try:
        loaded = load_callable(target.callable, args, kwargs)
    except TypeError as exc:
        raise NotExplainable(str(exc)) from None  # one sentence, not the engine's traceback
    loaded.call_origin = origin
    if written is not None:
        loaded.call = written
    owner = getattr(loaded.bound, "__self__", None)
    if target.layer is not None:
        loaded.instance = f"the {type(target.layer).__name__} given"
    elif owner is not None:
        loaded.instance = f"the {type(owner).__name__} it is bound to"
    return loaded


def build_layer(tf: Any, target: Target, loaded: Loaded) -> AgxError | None:
    """Build an unbuilt layer the way calling it would, without running it: one call of it
    traced (not run) in a throwaway tf.function makes its weights, initialised, and moves no
    state (a BatchNormalization's moving mean stays put). None: built, or nothing to build;
    else the user's error, at the user's line."""
    layer = target.layer
    if layer is None or getattr(layer, "built", True):
        return None
    try:
        tf.function(lambda *a, **k: layer(*a, **k)).get_concrete_function(
            *loaded.args, **loaded.kwargs)
    except Exception as exc:  # noqa: BLE001 - build and call are user code
        message, line = user_frames_message(exc, loaded.path)
        return AgxError("build-failed", f"{file_line(loaded.path, line)}: building "
                        f"{type(layer).__name__} by tracing a call of it with these arguments "
                        f"raised {message.rstrip('.')}", line=line, exit_code=1)
    return None

