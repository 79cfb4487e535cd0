"""agexplorer: a terminal explorer for TensorFlow AutoGraph (version only; imports nothing heavy)."""

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "recording"]


def __getattr__(name: str) -> Any:
    # ``agexplorer.recording`` is looked up on use: importing agexplorer imports no TensorFlow.
    if name == "recording":
        from agexplorer.record.runner import recording

        return recording
    raise AttributeError(f"module 'agexplorer' has no attribute {name!r}")
