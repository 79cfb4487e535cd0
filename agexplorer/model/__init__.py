"""Plain, picklable records and error kinds: what the worker sends and the UI and the CLI receive.

Imports no TensorFlow, Textual or rich, and nothing else of agexplorer.
"""
