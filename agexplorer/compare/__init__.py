"""Two variants of a function side by side: converted code, verdicts, ops and timings."""
