"""The lesson tour: its steps as data, the panel, and each step's result."""
