"""A mode's result on the host: brought there, summarised, compared with another mode's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agexplorer.engine import tf_internals
from agexplorer.model.lab import ModeRun, asserts_skipped
from agexplorer.model.text import shortened


def to_host(value: Any) -> Any:
    """Bring a result to the host: tensors become NumPy values, structures are walked."""
    if tf_internals.has_fast_numpy(value):
        return tf_internals.to_numpy(value)
    if isinstance(value, (list, tuple)):
        return type(value)(to_host(v) for v in value) if not hasattr(value, "_fields") \
            else type(value)(*(to_host(v) for v in value))
    if isinstance(value, dict):
        return {k: to_host(v) for k, v in value.items()}
    if hasattr(value, "numpy") and callable(value.numpy):  # variables, ragged tensors
        return value.numpy()
    return value


def sink_for(example: Any) -> Callable[[Any], Any]:
    """The cheapest function that brings results shaped like ``example`` to the host."""
    if tf_internals.has_fast_numpy(example):
        return tf_internals.to_numpy
    if example is None or isinstance(example, (int, float, bool, str)):
        return lambda r: r
    return to_host


def summarize(value: Any, limit: int = 400) -> str:
    """A readable summary: dtype, shape and values (truncated when large)."""
    import numpy as np

    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        arr = np.asarray(value)
        if arr.ndim == 0:
            shown = repr(arr.item())
        else:
            with np.printoptions(threshold=20, edgeitems=3, precision=5, linewidth=100):
                shown = np.array2string(arr)
        text = f"{arr.dtype.name}{list(arr.shape)} {shown}"
    elif isinstance(value, (list, tuple)):
        inner = ", ".join(summarize(v, limit) for v in value)
        text = f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k!r}: {summarize(v, limit)}" for k, v in value.items()) + "}"
    else:
        try:
            text = repr(value)
        except Exception as exc:  # noqa: BLE001 - a user object's __repr__ can fail
            text = f"<{type(value).__name__}: repr failed: {exc}>"
    return shortened(text, limit)


def leaves(value: Any) -> list[Any]:
    """A result's values in a fixed order: structures walked, a dict's keys sorted."""
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in leaves(v)]
    if isinstance(value, dict):
        return [leaf for k in sorted(value, key=repr) for leaf in leaves(value[k])]
    return [value]


def same_result(a: Any, b: Any) -> bool:
    """Equal, or allclose for floating values; structures must match."""
    import numpy as np

    la, lb = leaves(a), leaves(b)
    if len(la) != len(lb):
        return False
    for x, y in zip(la, lb, strict=True):
        try:
            ax, ay = np.asarray(x), np.asarray(y)
            if ax.shape != ay.shape:
                return False
            if ax.dtype.kind in "fc" or ay.dtype.kind in "fc":
                if not np.allclose(ax, ay, rtol=1e-5, atol=1e-6, equal_nan=True):
                    return False
            elif not np.array_equal(ax, ay):
                return False
        except (TypeError, ValueError):
            if x != y:
                return False
    return True


def largest_difference(a: Any, b: Any) -> float | None:
    """The largest relative difference between two results' numbers (``|a - b| / max(|a|,
    |b|)``, 0 where both are 0); None when they cannot be compared number by number: another
    structure, shape or dtype kind, or values that are not numbers."""
    import numpy as np

    la, lb = leaves(a), leaves(b)
    if len(la) != len(lb):
        return None
    largest = 0.0
    for x, y in zip(la, lb, strict=True):
        try:
            ax, ay = np.asarray(x), np.asarray(y)
        except (TypeError, ValueError):
            return None
        if ax.shape != ay.shape or ax.dtype.kind not in "biufc" or ay.dtype.kind not in "biufc":
            return None
        fx, fy = ax.astype(np.complex128), ay.astype(np.complex128)
        scale = np.maximum(np.abs(fx), np.abs(fy))
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = np.where(scale > 0, np.abs(fx - fy) / np.where(scale > 0, scale, 1), 0.0)
        rel = rel[~np.isnan(rel)]
        if rel.size:
            largest = max(largest, float(rel.max()))
    return largest


def compare_results(runs: dict[str, ModeRun], hosts: dict[str, Any],
                    modes: tuple[str, ...] = ("eager", "graph", "xla"),
                    ) -> tuple[bool | None, str | None, dict[str, float | None]]:
    """(results_match, mismatch, differences) over ``modes`` in order: whether the modes
    that ran agree with the first of them (None when fewer than two ran); the differing
    results worded, the first one's first; and for each differing mode, its largest
    relative difference from the first (see largest_difference)."""
    checked = asserts_skipped(runs)
    if checked:  # XLA gave a result where an assertion raised: the modes disagree
        return False, (f"{' and '.join(checked)} raised InvalidArgumentError, xla gave "
                       f"{runs['xla'].result}"), {}
    ok = [m for m in modes if runs[m].ok]
    if len(ok) < 2:
        return None, None, {}
    first = ok[0]
    differing = [m for m in ok[1:] if not same_result(hosts[first], hosts[m])]
    if not differing:
        return True, None, {}
    return (False, "; ".join(f"{m}: {runs[m].result}" for m in [first, *differing]),
            {m: largest_difference(hosts[first], hosts[m]) for m in differing})
