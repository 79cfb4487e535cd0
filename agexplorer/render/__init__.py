"""Rich renderings of core results for the terminal report (no textual)."""
