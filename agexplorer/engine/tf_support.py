"""The records of the private-name check: one name, and what the check found (no TensorFlow here)."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn

from agexplorer.model.errors import AgxError


@dataclass(frozen=True)
class PrivateName:
    """One private name: where it lives, what agexplorer does with it, and what is lost
    without it (``lost`` empty: the verdicts themselves, so its absence is fatal)."""

    module: str
    attribute: str  # dotted, walked from the module
    use: str
    lost: str = ""
    probe: Callable[[], bool] | None = None  # for names only an instance has

    @property
    def shown(self) -> str:
        return f"{self.module}.{self.attribute}"

    def present(self) -> bool:
        try:
            if self.probe is not None:
                return self.probe()
            value: Any = importlib.import_module(self.module)
            for part in self.attribute.split("."):
                value = getattr(value, part)
        except (ImportError, AttributeError, KeyError, TypeError):
            return False
        return True


@dataclass(frozen=True)
class Support:
    """What :func:`check_support` found: one sentence per missing name."""

    errors: list[str] = field(default_factory=list)  # the verdicts would be wrong: refuse to work
    warnings: list[str] = field(default_factory=list)  # one feature degrades, the rest holds

    @property
    def sentences(self) -> list[str]:
        """Every sentence, the fatal ones first."""
        return self.errors + self.warnings

    def error(self) -> AgxError | None:
        """The error every request answers with when a fatal name is missing."""
        if not self.errors:
            return None
        return AgxError("tf-unsupported", self.errors[0], exit_code=2, details=self.errors[1:])

    def refuse(self, *_: Any) -> NoReturn:
        """A request handler that answers every request with :meth:`error`."""
        error = self.error()
        raise error if error is not None else AgxError(
            "internal-error", "agexplorer refused a request although TensorFlow is supported.",
            exit_code=3)
