"""The worker's time limits, in a module of their own: the command line and the explorer's
first frame read them without importing the worker's client (its protocol and process
handling: ~40 ms of the explorer's first paint)."""

DEFAULT_TIMEOUT = 30.0
# The longest wait a request may be given (about 11 days): deadlines are added to the clock
# and handed to the operating system, which refuses times far beyond it.
MAX_TIMEOUT = 1_000_000.0
