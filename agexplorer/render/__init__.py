"""Rich renderings of the model's results for the terminal report (no textual)."""
