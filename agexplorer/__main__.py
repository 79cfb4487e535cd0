"""Entry point for ``python -m agexplorer``."""

from agexplorer.cli import main

raise SystemExit(main())
