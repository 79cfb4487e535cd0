"""Modal screens: help and the quit confirmation."""
