"""The Passes tab: AutoGraph's conversion step by step, each line traced to its source line."""
