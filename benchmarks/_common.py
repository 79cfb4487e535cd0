"""What the benchmark scripts share: the --quick switch, and a private state folder for the TUI."""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import tempfile


def repeats_from_args(doc: str, argv: list[str] | None, full: int = 5, quick: int = 2) -> int:
    """Parse ``[--quick]`` for a script whose docstring is ``doc``; return the repeat count."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{quick} repeats instead of {full} (a smoke run)")
    return quick if parser.parse_args(argv).quick else full


def private_state_home() -> str:
    """Point ``XDG_STATE_HOME`` at a fresh folder, removed at exit: the explorer keeps recovery
    copies of unsaved buffers there, and a benchmark's edits must neither land in the user's
    folder nor be restored into the next run's buffers."""
    folder = tempfile.mkdtemp(prefix="agx-bench-state-")
    os.environ["XDG_STATE_HOME"] = folder
    atexit.register(shutil.rmtree, folder, True)
    return folder
