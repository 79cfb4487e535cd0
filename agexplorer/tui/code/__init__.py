"""The code panes: the source editor, AutoGraph's code, the verdict gutter and table, find, provenance."""
