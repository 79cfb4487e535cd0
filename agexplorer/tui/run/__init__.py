"""The Run tab: call arguments, eager/graph/XLA runs and their timings."""
