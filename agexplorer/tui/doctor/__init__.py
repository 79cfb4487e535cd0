"""The Doctor tab: pitfalls, why they bite, fixes tried and applied."""
