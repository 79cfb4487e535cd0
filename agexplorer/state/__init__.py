"""Where the explorer keeps its files: recovery copies of unsaved buffers, scratch copies of what
it opens, and a served session's private folder (``session.state_dir(kind)``). No UI here: the
command line uses it as the explorer does."""
