"""The Trace tab: why the function traced again."""
