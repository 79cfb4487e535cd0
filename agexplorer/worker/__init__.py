"""The TensorFlow worker: a separate process that hosts TensorFlow and the user's code.

The process that draws the UI (or prints the report) never imports TensorFlow;
it sends requests here. A request past its timeout ends the worker and a fresh
one starts; a worker that dies (segfault, abort, ``os._exit``, the OOM killer)
is reported as such and restarted.
"""
