"""Modal screens the explorer pushes over its main layout."""
