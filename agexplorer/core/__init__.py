"""The engine: conversion, source maps, tracing, op inventory and verdicts.

Imports neither textual nor rich. TensorFlow is imported lazily, by the
functions that need it, so that listing functions stays instant.
"""
