"""Verdict snapshots for CI: every ready function analysed, compared with a golden file."""
