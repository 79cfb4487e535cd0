"""Errors a user can cause, each carrying one sentence that says what to do."""

from __future__ import annotations


class AgxError(Exception):
    """A failure the user can act on: printed as one message, never as a traceback.

    ``kind`` is a stable machine-readable tag (used in JSON output), ``line`` the
    1-based line of the user's file when one is known, and ``exit_code`` what
    the command line exits with (2 for bad input, 1 for user code that failed).
    """

    def __init__(self, kind: str, message: str, *, line: int | None = None,
                 exit_code: int = 2, details: list[str] | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line = line
        self.exit_code = exit_code
        self.details = details or []

    def to_dict(self) -> dict:
        """The JSON form: ``{"kind", "message", "line", "details"}``."""
        return {"kind": self.kind, "message": self.message, "line": self.line,
                "details": self.details}
