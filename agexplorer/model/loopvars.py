"""A loop's variables as AutoGraph carried them: each one's value entering the loop and after one body."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agexplorer.model.text import shape_text

Shape = tuple[int | None, ...] | None  # None: unknown rank
UNDEFINED = "undefined"  # the python_type of a name not assigned yet (one the loop creates)


@dataclass(frozen=True)
class VarState:
    """A loop variable's value at one moment: a tensor's dtype and shape, or a Python
    value's type and (abbreviated) value."""

    dtype: str | None = None
    shape: Shape = None
    python_type: str | None = None
    value: str | None = None

    @property
    def is_tensor(self) -> bool:
        """Whether the value was a tensor (it has a dtype)."""
        return self.dtype is not None

    @property
    def undefined(self) -> bool:
        """Whether the name was not assigned yet (AutoGraph's ``Undefined``)."""
        return self.python_type == UNDEFINED

    def text(self) -> str:
        """``float32[3]``, ``float32[None, 2]``, ``int 0``."""
        if self.is_tensor:
            if self.shape is None:
                return f"{self.dtype}[unknown rank]"
            return f"{self.dtype}{shape_text(self.shape)}"
        return f"{self.python_type} {self.value}" if self.value else str(self.python_type)

    def to_dict(self) -> dict[str, Any]:
        """``{"dtype", "shape"}`` for a tensor, ``{"python_type", "value"}`` otherwise."""
        if self.is_tensor:
            return {"dtype": self.dtype,
                    "shape": None if self.shape is None else list(self.shape)}
        return {"python_type": self.python_type, "value": self.value}


@dataclass(frozen=True)
class LoopVar:
    """One variable a loop carried (its name in the source), entering the loop and after one
    body trace (a Python loop: across the iteration where its type changed, if one did)."""

    name: str
    before: VarState
    after: VarState
    changed: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {"name": self.name, "before": self.before.to_dict(),
                "after": self.after.to_dict(), "changed": self.changed}

    @property
    def defined_by_loop(self) -> bool:
        """Whether the loop created the name: undefined entering it, defined after a body."""
        return self.before.undefined and not self.after.undefined

    def text(self) -> str:
        """``x: float32[1] -> float32[2]  changed``; ``last: int32[]  defined by the loop``."""
        if self.defined_by_loop:
            return f"{self.name}: {self.after.text()}  defined by the loop"
        return (f"{self.name}: {self.before.text()} -> {self.after.text()}"
                + ("  changed" if self.changed else ""))

    @property
    def change(self) -> str | None:
        """What changed, as a kind: "dtype", "shape" (same rank, some dims differ), "rank",
        "type" (a Python value became a tensor, or another type), or None."""
        if not self.changed:
            return None
        before, after = self.before, self.after
        if not (before.is_tensor and after.is_tensor):
            return "type"
        if before.dtype != after.dtype:
            return "dtype"
        if before.shape is None or after.shape is None or len(before.shape) != len(after.shape):
            return "rank"
        return "shape"

    def invariant(self) -> Shape:
        """The shape that holds both values: None where a dimension differs (only for a
        "shape" change; None otherwise)."""
        if self.change != "shape" or self.before.shape is None or self.after.shape is None:
            return None
        return tuple(b if b == a else None for b, a in zip(self.before.shape, self.after.shape,
                                                             strict=True))


def loop_var_fix(var: LoopVar) -> str | None:
    """The fix for a changed loop variable, in one sentence (None when it did not change)."""
    change = var.change
    if change == "shape":
        return (f"tf.autograph.experimental.set_loop_options(shape_invariants=[({var.name}, "
                f"tf.TensorShape({shape_text(var.invariant() or ())}))]) first in the loop "
                f"body, or give {var.name} a fixed shape.")
    if change == "rank":
        return (f"give {var.name} a fixed shape: the same rank before the loop and after "
                "each iteration (a tf.TensorArray collects values of a growing length).")
    if change == "dtype":
        return (f"give {var.name} one dtype: create it with {var.after.dtype} before the "
                f"loop (or tf.cast it inside).")
    if change == "type" and var.after.is_tensor:
        return (f"make {var.name} a {var.after.text()} tensor before the loop "
                f"({_made_as(var)}), so every iteration carries the same kind of value.")
    if change == "type":
        return (f"give {var.name} one type: the loop changed it from {var.before.python_type} "
                f"to {var.after.python_type}.")
    return None


def _made_as(var: LoopVar) -> str:
    """How to create ``var``'s value before the loop with the dtype and shape one iteration
    gives it, from the Python value it started as: ``tf.zeros([4, 3], tf.float32)``."""
    after, start = var.after, var.before.value
    dtype = f"tf.{after.dtype}"
    value = start if start is not None and _is_number(start) else "..."
    if after.shape == ():
        return f"tf.constant({value}, {dtype})"
    if after.shape is None:
        return f"a {after.dtype} tensor of the shape one iteration gives it"
    dims = shape_text(after.shape)
    unknown = None in after.shape
    shape = "SHAPE" if unknown else dims
    made = (f"tf.zeros({shape}, {dtype})" if value != "..." and float(value) == 0.0
            else f"tf.fill({shape}, tf.constant({value}, {dtype}))")
    return f"{made}, SHAPE being {dims} with each None from an input's tf.shape" \
        if unknown else made


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
