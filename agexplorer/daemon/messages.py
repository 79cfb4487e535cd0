"""What a command and the background worker say on its socket (length-prefixed pickles, as
between a command and its own worker: worker/wire.py). One connection carries one question:
a request to answer, the worker's status, or a stop."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agexplorer.worker.protocol import Request


@dataclass(frozen=True)
class Ask:
    """Answer ``request`` as a command's own worker would, run in the command's ``folder``
    (its current folder), within ``timeout`` seconds once a worker has taken it."""

    request: Request[Any]
    timeout: float
    what: str = ""
    path: str | None = None  # the user's file, for the line a hang or a crash was at
    folder: str | None = None


@dataclass(frozen=True)
class Taken:
    """The background worker's first answer to an Ask: the TensorFlow worker that takes it,
    as its Hello said (a command reports these as its own worker's)."""

    pid: int
    python_executable: str
    python_version: str
    tf_version: str
    keras_version: str
    keras_flavour: str
    tf_warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Busy:
    """Every worker the background one may run is busy: the command starts its own."""

    workers: int


@dataclass(frozen=True)
class StatusAsk:
    """How the background worker is."""


@dataclass(frozen=True)
class Status:
    """The background worker's answer to StatusAsk."""

    pid: int
    executable: str  # the interpreter its TensorFlow workers run under
    started: float  # time.time() it started
    idle_limit: float  # seconds without a request before it stops
    idle_for: float  # seconds since its last request ended (0 while one runs)
    answered: int  # requests answered so far
    workers: list[dict[str, Any]] = field(default_factory=list)  # pid, busy, ready
    # The socket of the warm zygote its workers are forked from (worker/zygote.py), which
    # the explorer forks its own worker from too; None: its workers start the usual way.
    zygote: str | None = None
    # The socket of its warm explorer (cli/warm.py), which opens `agexplorer FILE` in the
    # command's terminal with Textual loaded already; None: the explorer opens cold.
    explorer: str | None = None


@dataclass(frozen=True)
class StopAsk:
    """Stop now (``agexplorer daemon stop``): requests under way are cut short."""


@dataclass(frozen=True)
class Stopping:
    """The answer to StopAsk."""

    pid: int
