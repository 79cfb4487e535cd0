"""agexplorer: a terminal explorer for TensorFlow AutoGraph (version only; imports nothing heavy)."""

__version__ = "0.1.0"
