"""Compare: two variants side by side (the disk, before the fix, another function)."""
