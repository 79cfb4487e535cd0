"""The buffer's safety: the disk watch, and unsaved edits kept through crashes and signals."""
