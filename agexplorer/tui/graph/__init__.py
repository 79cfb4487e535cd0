"""The Graph tab: the trace's ops, grouped, and the highlighted op's detail."""
