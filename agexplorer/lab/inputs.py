"""The call's inputs, evaluated once and shared by every mode (and both sides of a fix trial).

Each mode loads the module afresh so that side effects do not leak between modes; that also
evaluates the call again, and ``tf.random.normal([3])`` then gives each mode another tensor.
So every argument that is plain data (tensors, arrays, numbers, strings and structures of
them) comes from one evaluation; stateful ones (a variable, a model, any other object) stay
each load's own, as the fresh load means them to be.
"""

from __future__ import annotations

from typing import Any

Inputs = tuple[tuple[Any, ...], dict[str, Any]]


def is_data(value: Any) -> bool:
    """Whether ``value`` is immutable-enough data to hand to every mode: a tensor (not a
    variable), a NumPy array or scalar, a Python scalar or string, or a structure of those."""
    import numpy as np

    from agexplorer.engine.tfenv import import_tf

    if value is None or isinstance(value, (bool, int, float, complex, str, bytes,
                                           np.ndarray, np.generic)):
        return True
    if isinstance(value, (list, tuple)):
        return all(is_data(v) for v in value)
    if isinstance(value, dict):
        return all(is_data(v) for v in value.values())
    tf = import_tf()
    return bool(tf.is_tensor(value)) and not isinstance(value, tf.Variable)


def _copy(value: Any) -> Any:
    """NumPy arrays copied (a mode may write into its input); everything else as it is."""
    import numpy as np

    return value.copy() if isinstance(value, np.ndarray) else value


def shared(first: Inputs, fresh: Inputs) -> Inputs:
    """``fresh``'s arguments with each data argument replaced by ``first``'s; ``fresh``
    as it is when the two calls do not have the same shape (another call)."""
    (args, kwargs), (new_args, new_kwargs) = first, fresh
    if len(args) != len(new_args) or set(kwargs) != set(new_kwargs):
        return fresh
    out_args = tuple(_copy(a) if is_data(a) else b for a, b in zip(args, new_args, strict=True))
    out_kwargs = {k: _copy(kwargs[k]) if is_data(kwargs[k]) else v for k, v in new_kwargs.items()}
    return out_args, out_kwargs
