"""What the commands share: a target checked before TensorFlow loads, the --call and
--user-code arguments checked, a command's JSON with the worker's warnings, the samples."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agexplorer.model.errors import AgxError

if TYPE_CHECKING:
    import argparse
    from typing import TypeAlias

    from agexplorer.daemon.client import BackgroundWorker
    from agexplorer.source.targets import TargetSpec
    from agexplorer.worker.client import Worker

    # What a command asks: its own worker, or the background one answering as one.
    CommandWorker: TypeAlias = Worker | BackgroundWorker


def samples_dir() -> str:
    """The bundled samples: inside the package when installed, else the checkout's samples/."""
    from agexplorer.state.scratch import bundled_samples  # the tour finds them there too

    return bundled_samples()


def command_worker(args: argparse.Namespace) -> CommandWorker:
    """The worker a command asks: the background one (daemon/, warm between commands), or
    with ``--no-daemon`` or ``AGX_NO_DAEMON=1`` a worker of the command's own."""
    from agexplorer.daemon.place import disabled
    from agexplorer.worker.client import DEFAULT_TIMEOUT, shared_worker

    timeout = getattr(args, "timeout", None) or DEFAULT_TIMEOUT
    python = getattr(args, "python", None)
    if getattr(args, "no_daemon", False) or disabled():
        return shared_worker(timeout, python)
    from agexplorer.daemon.client import BackgroundWorker

    return BackgroundWorker(timeout, python, getattr(args, "daemon_idle", None))


def worker_json(data: dict, worker: CommandWorker) -> str:
    """A command's JSON output: ``data`` with the worker's lost-capability sentences (what this
    TensorFlow cannot do; stderr says them too) in a top-level ``warnings`` list."""
    import json  # (here: not on the explorer's way to its first frame)

    return json.dumps({**data, "warnings": list(worker.tf_warnings)}, indent=2)


def checked(target: str, need_function: bool = True) -> tuple[TargetSpec, str, str]:
    """(spec, text, target with an absolute path): the checks that need no TensorFlow, done
    before a worker is waited for (a bad file or a certainly unknown name answers at once)."""
    from agexplorer.source.targets import check_target, parse_source, parse_spec, read_source

    spec = parse_spec(target)
    text = read_source(spec.path)
    check_target(target, parse_source(spec.path, text), need_function)
    # Absolute: the worker's current folder is not ours, and user code may os.chdir.
    return spec, text, f"{spec.path}::{spec.qualname}" if spec.qualname else spec.path


# Every option that carries a call's arguments, and how a message names it.
_CALL_OPTIONS = (("call", "--call"), ("call_left", "--call-left"), ("call_right", "--call-right"))


def check_calls(args: argparse.Namespace) -> None:
    """A --call (--call-left, --call-right; retrace's repeated --call) that is not Python is
    one sentence before a worker is waited for, for every command that takes one."""
    from agexplorer.source.targets import check_call

    for attr, option in _CALL_OPTIONS:
        value = getattr(args, attr, None)
        for call in [value] if isinstance(value, str) else value or []:
            check_call(call, option)


def user_code_paths(paths: list[str]) -> tuple[str, ...]:
    """``--user-code`` folders, absolute; one that does not exist is a bad argument."""
    found = []
    for path in paths:
        full = os.path.abspath(os.path.expanduser(path))
        if not os.path.exists(full):
            raise AgxError("bad-arguments", f"--user-code {path}: no such file or folder", advice="pass "
                           "a folder (or file) of your project's code.", exit_code=2)
        found.append(full)
    return tuple(found)
