"""Call arguments: `--call "ARGS"`, a sample's AGX_CALLS, or values built from an input_signature."""

from __future__ import annotations

from typing import Any

from agexplorer.model.errors import AgxError

SAMPLE_CALLS = "AGX_CALLS"  # module-level dict: qualname -> argument string
SAMPLE_SEQUENCES = "AGX_RETRACE"  # module-level dict: qualname -> list of argument strings


def _collect(*args: Any, **kwargs: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    return args, kwargs


def parse_call(expr: str, namespace: dict[str, Any], origin: str = "--call"
               ) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Evaluate a Python argument list (``tf.constant([1, 2]), n=3``) in ``namespace``."""
    source = f"__agx_collect__({expr})"
    try:
        code = compile(source, f"<{origin}>", "eval")
    except SyntaxError as exc:
        raise AgxError("bad-call", f'{origin} "{expr}" is not a valid Python argument list '
                       f"({exc.msg}); write it as inside f(...), e.g. "
                       '--call "tf.constant([1, 2]), n=3".') from None
    scope = dict(namespace)
    scope["__agx_collect__"] = _collect
    try:
        return eval(code, scope)
    except Exception as exc:  # noqa: BLE001 - the user's expression may raise anything
        raise AgxError("bad-call", f'evaluating {origin} "{expr}" raised '
                       f"{type(exc).__name__}: {exc}; it sees tf, np and the module's "
                       "globals.") from None


def call_namespace(module: Any) -> dict[str, Any]:
    """``tf``, ``np`` and the module's globals, as ``--call`` sees them."""
    import numpy as np

    from agexplorer.engine.tfenv import import_tf

    namespace = {"tf": import_tf(), "np": np}
    namespace.update(vars(module))
    return namespace


def value_for_spec(spec: Any) -> Any:
    """A concrete tensor for a TensorSpec: None dimensions become 2, values count up from 1."""
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    dims = [2 if d is None else d for d in spec.shape.as_list()] if spec.shape.rank is not None else [2]
    size = 1
    for d in dims:
        size *= d
    dtype = spec.dtype
    if dtype == tf.string:
        return tf.fill(dims, "a")
    if dtype == tf.bool:
        return tf.reshape(tf.range(size) % 2 == 0, dims)
    return tf.cast(tf.reshape(tf.range(1, size + 1), dims), dtype)


def signature_call(signature: Any) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Arguments for a function's ``input_signature`` (nested specs become nested tensors)."""
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    values = tf.nest.map_structure(value_for_spec, list(signature))
    return tuple(values), {}
