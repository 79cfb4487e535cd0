"""What the benchmark scripts share: the --quick switch that sets how many repeats to run."""

from __future__ import annotations

import argparse


def repeats_from_args(doc: str, argv: list[str] | None, full: int = 5, quick: int = 2) -> int:
    """Parse ``[--quick]`` for a script whose docstring is ``doc``; return the repeat count."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{quick} repeats instead of {full} (a smoke run)")
    return quick if parser.parse_args(argv).quick else full
