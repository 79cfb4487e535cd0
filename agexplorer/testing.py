"""Assertions for the user's own test suite: staged loops, no unrolling, trace counts (in-process)."""
