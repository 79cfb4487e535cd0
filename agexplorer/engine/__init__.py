"""The engine: load a target, convert it, trace it, record AutoGraph's operators, ops and verdicts.

Imports neither textual nor rich. TensorFlow is imported lazily, by the
functions that need it, so that listing functions stays instant.
"""
