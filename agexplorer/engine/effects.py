"""What a call changed in Python: globals, closure cells, attributes, the random generators.

The one home of the effects tracker, below the capabilities that watch a call with it: the
retrace explainer (each call's effects) and the run lab (each mode's, the evidence for a
difference between modes). It sits in the engine because those two may not import each
other.
"""

from __future__ import annotations

import random
from typing import Any

from agexplorer.engine import callargs
from agexplorer.model.text import shortened

_SCALARS = (bool, int, float, str, type(None))
_CONTAINERS = (list, dict, set, tuple)


def _watchable(value: Any) -> str | None:
    if isinstance(value, _SCALARS):
        text = repr(value)
        return shortened(text, 40)
    if isinstance(value, _CONTAINERS):
        return f"{type(value).__name__} of {len(value)}"
    return None


def snapshot(loaded: Any) -> dict[tuple[str, str], str]:
    """What a call's Python side effects can change, as comparable strings (``loaded``: a Loaded)."""
    state: dict[tuple[str, str], str] = {}
    skip = {callargs.SAMPLE_CALLS, callargs.SAMPLE_SEQUENCES}
    fn = loaded.own or loaded.pyfn  # the user's function, not a decorator's wrapper
    for name, value in list(getattr(fn, "__globals__", {}).items()):
        shown = None if name.startswith("__") or name in skip else _watchable(value)
        if shown is not None:
            state["global", name] = shown
    code = getattr(fn, "__code__", None)
    for name, cell in zip(code.co_freevars if code else (), getattr(fn, "__closure__", None) or (),
                          strict=False):
        try:
            shown = _watchable(cell.cell_contents)
        except ValueError:  # an empty cell: not assigned yet
            continue
        if shown is not None:
            state["nonlocal", name] = shown
    instance = getattr(loaded.bound, "__self__", None)
    for name, value in list(getattr(instance, "__dict__", {}).items()):
        shown = None if name.startswith("_") else _watchable(value)
        if shown is not None:
            state["attribute", f"self.{name}"] = shown
    state["random", "Python's random module"] = str(hash(random.getstate()))
    try:
        import numpy as np

        _, keys, pos, *_ = np.random.get_state(legacy=True)
        state["numpy-random", "NumPy's global random generator"] = \
            f"{hash(np.asarray(keys).tobytes())}:{pos}"
    except Exception:  # noqa: BLE001 - a NumPy without the legacy global state
        pass
    return state


def changes(before: dict[tuple[str, str], str], after: dict[tuple[str, str], str]
             ) -> list[tuple[str, str, str, str, str]]:
    """(kind, name, before, after, text) for every watched value that changed."""
    changes = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key, "(unset)"), after.get(key, "(unset)")
        if old == new:
            continue
        kind, name = key
        if kind in ("random", "numpy-random"):
            changes.append((kind, name, "", "", f"drew from {name}"))
            continue
        label = {"global": "global", "nonlocal": "nonlocal", "attribute": "attribute"}[kind]
        both = old.rpartition(" of ")[0] == new.rpartition(" of ")[0] and " of " in old
        if both:  # a container: its length changed (an append, a new key)
            text = f"{label} {name} ({old.split()[0]}): {old.split()[-1]} → {new.split()[-1]} items"
        else:
            text = f"{label} {name}: {old} → {new}"
        changes.append((kind, name, old, new, text))
    return changes
