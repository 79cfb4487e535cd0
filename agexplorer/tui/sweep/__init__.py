"""The unroll cost curve: the sweep of a loop and its chart."""
