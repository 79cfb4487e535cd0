"""agexplorer: a terminal explorer for TensorFlow AutoGraph (version only; imports nothing heavy)."""

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "explain", "load_ipython_extension", "recording"]


def __getattr__(name: str) -> Any:
    # ``agexplorer.recording`` and ``agexplorer.explain`` are looked up on use: importing
    # agexplorer imports no TensorFlow.
    if name == "recording":
        from agexplorer.record.runner import recording

        return recording
    if name == "explain":
        from agexplorer.notebook.explain import explain

        return explain
    raise AttributeError(f"module 'agexplorer' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext agexplorer``: the ``%agx`` and ``%%agx`` magics (see agexplorer/notebook)."""
    from agexplorer.notebook.magics import load_ipython_extension as load

    load(ipython)
