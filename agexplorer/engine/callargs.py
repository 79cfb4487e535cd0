"""Call arguments: `--call "ARGS"`, a sample's AGX_CALLS, or values built from an input_signature."""

from __future__ import annotations

from typing import Any

from agexplorer.model.errors import AgxError

SAMPLE_CALLS = "AGX_CALLS"  # module-level dict: qualname -> argument string
SAMPLE_SEQUENCES = "AGX_RETRACE"  # module-level dict: qualname -> list of argument strings
# The size an input_signature's unknown dimension (None) is given; the call text says it.
UNKNOWN_DIM = 1


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
                       f"({exc.msg})", advice="write it as inside f(...), e.g. "
                       '--call "tf.constant([1, 2]), n=3".') from None
    scope = dict(namespace)
    scope["__agx_collect__"] = _collect
    try:
        return eval(code, scope)
    except Exception as exc:  # noqa: BLE001 - the user's expression may raise anything
        raise AgxError("bad-call", f'evaluating {origin} "{expr}" raised '
                       f"{type(exc).__name__}: {exc}", advice="it sees tf, np and the module's "
                       "globals.") from None


def call_namespace(module: Any) -> dict[str, Any]:
    """``tf``, ``np`` and the module's globals, as ``--call`` sees them."""
    import numpy as np

    from agexplorer.engine.tfenv import import_tf

    namespace = {"tf": import_tf(), "np": np}
    namespace.update(vars(module))
    return namespace


def value_for_spec(spec: Any) -> Any:
    """A concrete tensor for a TensorSpec: unknown dimensions become :data:`UNKNOWN_DIM`
    (an unknown rank, one such dimension), values count up from 1."""
    from agexplorer.engine.tfenv import import_tf

    tf = import_tf()
    dims = [UNKNOWN_DIM if d is None else d for d in spec.shape.as_list()] \
        if spec.shape.rank is not None else [UNKNOWN_DIM]
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


def signature_text(signature: Any) -> str:
    """The call a signature makes, each tensor as ``<float32[None→2, 3]>``: an unknown
    dimension shows the size it was given (an unknown rank: ``<float32[?→[2]]>``)."""
    from agexplorer.engine.tfenv import import_tf

    def one(spec: Any) -> str:
        dtype = getattr(getattr(spec, "dtype", None), "name", "?")
        shape = getattr(spec, "shape", None)
        if shape is None:
            return f"<{type(spec).__name__}>"
        if shape.rank is None:
            return f"<{dtype}[?→[{UNKNOWN_DIM}]]>"
        dims = (f"None→{UNKNOWN_DIM}" if d is None else str(d) for d in shape.as_list())
        return f"<{dtype}[{', '.join(dims)}]>"

    return ", ".join(one(s) for s in import_tf().nest.flatten(list(signature)))


def wrapping_signature(module: Any, pyfn: Any) -> Any:
    """The input_signature of a tf.function that wraps ``pyfn`` elsewhere: a module-level
    ``f_fn = tf.function(f, input_signature=...)``, or a module-level instance's attribute
    (``self.serve = tf.function(self._serve, input_signature=...)``); None if none."""
    def wrapped_of(value: Any) -> Any:
        try:  # an object's own __getattr__ may raise anything
            return getattr(value, "python_function", None)
        except Exception:  # noqa: BLE001
            return None

    def signature_of(value: Any) -> Any:
        wrapped = wrapped_of(value)
        if wrapped is None or getattr(wrapped, "__func__", wrapped) is not pyfn:
            return None
        return getattr(value, "input_signature", None)

    candidates = list(vars(module).values())
    for value in list(candidates):
        if isinstance(value, (type, type(module))) or wrapped_of(value) is not None:
            continue
        try:
            candidates += list(vars(value).values())
        except TypeError:  # no __dict__
            continue
    return next((s for s in map(signature_of, candidates) if s is not None), None)
